"""``/v1/clusters``: stories, their members, representative and the reasons for both."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, status

from service.api.dependencies import ServiceDep
from service.api.schemas import ClusterOut, ClusterPage

router = APIRouter(prefix="/v1", tags=["clusters"])


def _title(store: Any, document_id: int) -> tuple[Any, str | None]:
    doc = store.get_document(document_id)
    if doc is None or doc.latest_version_id is None:
        return doc, None
    ver = store.get_version(doc.latest_version_id)
    return doc, (ver.title or ver.body[:200]) if ver else None


def cluster_view(store: Any, cluster_id: int) -> dict[str, Any] | None:
    cluster = store.get_cluster(cluster_id)
    if cluster is None:
        return None
    members = []
    for m in store.members_of(cluster_id):
        doc, title = _title(store, m.document_id)
        members.append({"document_id": m.document_id, "url": doc.url if doc else None,
                        "source": doc.source if doc else None, "title": title, "joined_at": m.joined_at,
                        "stage": m.stage, "score": m.score, "matched_id": m.matched_id, "decision": m.decision})
    events = [{"id": e.id, "old_representative": e.old_representative, "new_representative": e.new_representative,
               "reason": e.reason, "at": e.at} for e in store.cluster_events(cluster_id)]
    # The last event that installed the current representative says why it is the representative.
    reason = next((e["reason"] for e in reversed(events) if e["new_representative"] == cluster.representative_id), None)
    return {"id": cluster.id, "representative_id": cluster.representative_id, "representative_reason": reason,
            "created_at": cluster.created_at, "updated_at": cluster.updated_at, "members": members, "events": events}


def cluster_page(store: Any, limit: int, offset: int) -> dict[str, Any]:
    # One row more than asked tells whether there is a next page without a COUNT(*).
    rows = store.list_clusters(limit + 1, offset)
    out = []
    for c in rows[:limit]:
        _, title = _title(store, c.representative_id)
        out.append({"id": c.id, "representative_id": c.representative_id, "title": title,
                    "size": len(store.members_of(c.id)), "created_at": c.created_at, "updated_at": c.updated_at})
    return {"clusters": out, "limit": limit, "offset": offset,
            "next_offset": offset + limit if len(rows) > limit else None}


@router.get("/clusters", response_model=ClusterPage, summary="Recent clusters, most recently updated first")
def list_clusters(service: ServiceDep,
                  limit: Annotated[int, Query(ge=1, description="page size (at most the setting max_page)")] = 20,
                  offset: Annotated[int, Query(ge=0, description="clusters to skip")] = 0) -> dict[str, Any]:
    if limit > service.settings.max_page:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                            f"limit {limit} exceeds the page limit of {service.settings.max_page} (setting max_page)")
    return service.call("read", cluster_page, service.engine.store, limit, offset)


@router.get("/clusters/{cluster_id}", response_model=ClusterOut, summary="A cluster: members, representative and why",
            responses={404: {"description": "no such cluster"}})
def get_cluster(cluster_id: Annotated[int, Path(ge=1, description="cluster id")], service: ServiceDep) -> dict[str, Any]:
    view = service.call("read", cluster_view, service.engine.store, cluster_id)
    if view is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"cluster {cluster_id} does not exist")
    return view
