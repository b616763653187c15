"""``/v1/stories``: the event level (issue 17): stories and the copy groups inside them."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from service.api.routers.listing import add_listing
from service.views import story_page, story_view

router = APIRouter(prefix="/v1", tags=["stories"])


class CopyGroupOut(BaseModel):
    """One copy group of a story: the same report again, shown by its representative."""

    id: int = Field(description="copy group (cluster) id: GET /v1/clusters/{id} lists its members")
    representative_id: int
    title: str | None = Field(description="the representative's latest title")
    representative_reason: str | None = Field(description="why the representative is the one shown")
    size: int = Field(description="live members")
    languages: list[str]
    outlets: list[str]
    story_score: float | None = Field(description="story score when the group joined (null: it opened the story)")
    story_reason: str | None = Field(description="why the group is in this story")


class StoryOut(BaseModel):
    id: int
    created_at: float
    updated_at: float
    languages: list[str]
    outlets: list[str]
    start: str | None = Field(description="earliest member time, ISO 8601")
    end: str | None = Field(description="latest member time, ISO 8601")
    copy_groups: list[CopyGroupOut]


class StorySummaryOut(BaseModel):
    id: int
    title: str | None = Field(description="the first copy group's representative title")
    copy_groups: int
    items: int
    created_at: float
    updated_at: float


class StoryPage(BaseModel):
    stories: list[StorySummaryOut] = Field(description="most recently updated first")
    limit: int
    offset: int
    next_offset: int | None
add_listing(router, what="story", plural="stories", page_of=story_page, view_of=story_view,
            page_model=StoryPage, item_model=StoryOut,
            page_summary="Recent stories, most recently updated first",
            item_summary="A story: its copy groups, languages, outlets, span")
