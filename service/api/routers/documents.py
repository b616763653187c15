"""``/v1/documents/{id}``: a document with its versions and observations; deletion."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, status

from service.api.dependencies import ServiceDep
from service.api.schemas import MAX_ID, DeleteResponse, DocumentOut

router = APIRouter(prefix="/v1", tags=["documents"])

DocumentId = Annotated[int, Path(ge=1, le=MAX_ID, description="document id (from an ingest result)")]


def document_view(store: Any, document_id: int) -> dict[str, Any] | None:
    """Everything the store knows about one document, or None."""
    doc = store.get_document(document_id)
    if doc is None:
        return None
    membership = None
    if doc.cluster_id is not None:
        # members_of hides deleted documents; provenance of a deleted one is still readable.
        for m in store.members_of(doc.cluster_id):
            if m.document_id == doc.id:
                membership = {"cluster_id": m.cluster_id, "joined_at": m.joined_at, "stage": m.stage,
                              "score": m.score, "matched_id": m.matched_id, "decision": m.decision}
    return {
        **asdict(doc),  # DocumentOut extends the row, so every row field is in the answer
        "membership": membership,
        "versions": [{"id": v.id, "content_hash": v.content_hash, "title": v.title, "body": v.body,
                      "lang": v.lang, "created_at": v.created_at} for v in store.versions_of(doc.id)],
        "observations": [{"id": o.id, "version_id": o.version_id, "channel": o.channel, "url": o.url,
                          "source": o.source, "caller_id": o.caller_id, "observed_at": o.observed_at,
                          "status": o.status, "decision": o.decision} for o in store.observations_of(doc.id)],
    }


@router.get("/documents/{document_id}", response_model=DocumentOut, summary="A document, its versions and observations",
            responses={404: {"description": "no such document (or deleted, unless include_deleted)"}})
def get_document(document_id: DocumentId, service: ServiceDep,
                 include_deleted: Annotated[bool, Query(description="also return a deleted document")] = False,
                 ) -> dict[str, Any]:
    view = service.read_item("document", document_view, document_id)
    if view["deleted"] and not include_deleted:
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            f"document {document_id} was deleted (add ?include_deleted=true to see its provenance)")
    return view


@router.delete("/documents/{document_id}", response_model=DeleteResponse, summary="Delete a document",
               responses={404: {"description": "no such document, or already deleted"}})
def delete_document(document_id: DocumentId, service: ServiceDep) -> dict[str, Any]:
    """Remove the document from the candidate indices and mark it deleted.

    Its rows stay for provenance. When it was its cluster's representative, the next-best
    member takes over (a cluster event records why).
    """
    with service.locked("delete") as engine:
        doc = engine.store.get_document(document_id)
        if doc is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"document {document_id} does not exist")
        cluster = engine.store.get_cluster(doc.cluster_id) if doc.cluster_id is not None else None
        if not engine.delete_document(document_id):
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"document {document_id} is already deleted")
        new_rep = None
        if cluster is not None and cluster.representative_id == document_id:
            after = engine.store.get_cluster(cluster.id)
            if after is not None and after.representative_id != document_id:
                new_rep = after.representative_id
    return {"document_id": document_id, "deleted": True, "new_representative_id": new_rep}
