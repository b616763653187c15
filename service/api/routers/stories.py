"""``/v1/stories``: the event level (issue 17): stories and the copy groups inside them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, status

from service.api.dependencies import ServiceDep, require_api_key
from service.api.routers.listing import add_listing
from service.api.schemas import SettleOut, StoryOut, StoryPage
from service.views import story_page, story_view

router = APIRouter(prefix="/v1", tags=["stories"])
add_listing(router, what="story", plural="stories", page_of=story_page, view_of=story_view,
            page_model=StoryPage, item_model=StoryOut,
            page_summary="Recent stories, most recently updated first",
            item_summary="A story: its copy groups, languages, outlets, span")


@router.post("/settlements", response_model=SettleOut,
             responses={409: {"description": "the store's items were embedded with another model (the detail says which)"}},
             summary="Re-decide the open stories in publication order (copy groups untouched)",
             description="Settles the open stories and returns the report (a settling is not stored as a resource). Replays the story decisions of every live item of the open stories by publication time, "
                         "then content hash, so the stories no longer depend on the order items arrived in "
                         "(`Deduper.settle_stories`). A copy group whose story changes is moved with the reason "
                         "`story: settled ...`; items without a publication time follow the timed ones, copy "
                         "group by copy group in content-hash order; a store with "
                         "editors' corrections is not settled (`skipped` says so).")
def settle_stories(service: ServiceDep, who: Annotated[str, Depends(require_api_key)],
                   hours: Annotated[float | None, Query(gt=0, le=1e6, description=(
                       "replay only the copy groups published within the last `hours` before the newest "
                       "item; older ones stay where they are, as context (default: every open story)"))] = None,
                   ) -> SettleOut:
    try:
        report = service.call("settle", lambda: service.engine.settle_stories(hours=hours).to_dict())
    except ValueError as exc:  # the service's model is not the one the store's items were embedded with
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
    return SettleOut.model_validate(report)
