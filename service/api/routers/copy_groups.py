"""``/v1/copy-groups``: copy groups (the same report again), their members, representative and the
reasons for both. ``/v1/clusters`` answers the same, as a deprecated alias for one release."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.routers.listing import add_listing
from service.api.schemas import CopyGroupDetailOut, CopyGroupPage
from service.views import copy_group_page, copy_group_view

router = APIRouter(prefix="/v1", tags=["copy groups"])
add_listing(router, what="copy_group", plural="copy-groups", page_of=copy_group_page, view_of=copy_group_view,
            page_model=CopyGroupPage, item_model=CopyGroupDetailOut,
            page_summary="Recent copy groups, most recently updated first",
            item_summary="A copy group: members, representative and why",
            deprecated_alias=("cluster", "clusters"))
