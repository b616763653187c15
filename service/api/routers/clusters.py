"""``/v1/clusters``: stories, their members, representative and the reasons for both."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.routers.listing import add_listing
from service.api.schemas import ClusterOut, ClusterPage
from service.views import cluster_page, cluster_view

router = APIRouter(prefix="/v1", tags=["clusters"])
add_listing(router, what="cluster", plural="clusters", page_of=cluster_page, view_of=cluster_view,
            page_model=ClusterPage, item_model=ClusterOut,
            page_summary="Recent clusters, most recently updated first",
            item_summary="A cluster: members, representative and why")
