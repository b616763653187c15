"""``/v1/documents/{id}``: a document with its versions and observations; deletion."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, status

from service.api.dependencies import ServiceDep
from service.api.schemas import MAX_ID, DeleteResponse, DocumentOut
from service.views import document_view

router = APIRouter(prefix="/v1", tags=["documents"])

DocumentId = Annotated[int, Path(ge=1, le=MAX_ID, description="document id (from an ingest result)")]


@router.get("/documents/{document_id}", response_model=DocumentOut, summary="A document, its versions and observations",
            responses={404: {"description": "no such document (or deleted, unless include_deleted)"}})
def get_document(document_id: DocumentId, service: ServiceDep,
                 include_deleted: Annotated[bool, Query(description="also return a deleted document")] = False,
                 ) -> DocumentOut:
    view = service.read_item("document", document_view, document_id)
    if view.deleted and not include_deleted:
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            f"document {document_id} was deleted (add ?include_deleted=true to see its provenance)")
    return view


@router.delete("/documents/{document_id}", response_model=DeleteResponse, summary="Delete (or erase) a document",
               responses={404: {"description": "no such document, or already deleted (erase: already erased)"}})
def delete_document(document_id: DocumentId, service: ServiceDep,
                    erase: Annotated[bool, Query(description="also erase its texts, URLs, caller ids and vectors "
                                                             "(privacy); allowed on a deleted document")] = False,
                    ) -> DeleteResponse:
    """Remove the document from the candidate indices and mark it deleted.

    Its rows stay for provenance. When it was its copy group's representative, the next-best
    member takes over (a representative event records why). ``?erase=true`` also blanks the titles
    and bodies of its versions, its URLs and caller ids, drops its vectors and embedding-cache
    entries, and redacts its words from other documents' reasons (``[erased]``); ids, counts,
    times, stages and scores stay.
    """
    with service.locked("delete") as engine:
        doc = engine.store.get_document(document_id)
        if doc is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"document {document_id} does not exist")
        cluster = engine.store.get_cluster(doc.cluster_id) if doc.cluster_id is not None else None
        if not engine.delete_document(document_id, erase=erase):
            done = "erased" if erase else "deleted"
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"document {document_id} is already {done}")
        new_rep = None
        if cluster is not None and cluster.representative_id == document_id:
            after = engine.store.get_cluster(cluster.id)
            if after is not None and after.representative_id != document_id:
                new_rep = after.representative_id
    return DeleteResponse(document_id=document_id, deleted=True, erased=erase, new_representative_id=new_rep)
