"""``/v1/clusters``: stories, their members, representative and the reasons for both."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, status

from service.api.dependencies import PageDep, ServiceDep
from service.api.schemas import MAX_ID, ClusterOut, ClusterPage
from service.views import cluster_page, cluster_view

router = APIRouter(prefix="/v1", tags=["clusters"])


@router.get("/clusters", response_model=ClusterPage, summary="Recent clusters, most recently updated first")
def list_clusters(service: ServiceDep, page: PageDep) -> dict[str, Any]:
    return service.call("read", cluster_page, service.engine.store, page.limit, page.offset)


@router.get("/clusters/{cluster_id}", response_model=ClusterOut, summary="A cluster: members, representative and why",
            responses={404: {"description": "no such cluster"}})
def get_cluster(cluster_id: Annotated[int, Path(ge=1, le=MAX_ID, description="cluster id")], service: ServiceDep) -> dict[str, Any]:
    view = service.call("read", cluster_view, service.engine.store, cluster_id)
    if view is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"cluster {cluster_id} does not exist")
    return view
