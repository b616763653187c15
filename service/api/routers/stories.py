"""``/v1/stories``: the event level (issue 17): stories and the copy groups inside them."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.routers.listing import add_listing
from service.api.schemas import StoryOut, StoryPage
from service.views import story_page, story_view

router = APIRouter(prefix="/v1", tags=["stories"])
add_listing(router, what="story", plural="stories", page_of=story_page, view_of=story_view,
            page_model=StoryPage, item_model=StoryOut,
            page_summary="Recent stories, most recently updated first",
            item_summary="A story: its copy groups, languages, outlets, span")
