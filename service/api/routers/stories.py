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
             summary="Re-decide the open copy groups and stories in publication order",
             description="Settles the open window and returns the report (a settling is not stored as a resource). "
                         "First the copy groups: the timed items are replayed through the cascade and guards by "
                         "publication time, then content hash, each group's anchor becoming its earliest report; a "
                         "moved item's membership says `copy: settled in publication order, moved from copy group "
                         "N` (items without a publication time follow the timed ones in content-hash order). Then the stories: "
                         "a copy group whose story changes is moved with the reason `story: settled ...`; items "
                         "without a publication time follow the timed ones, copy group by copy group in "
                         "content-hash order. Neither level then depends on the order items arrived in "
                         "(`Deduper.settle`). A store with editors' corrections is not settled (`skipped` says so).")
def settle(service: ServiceDep, who: Annotated[str, Depends(require_api_key)],
           hours: Annotated[float | None, Query(gt=0, le=1e6, description=(
               "replay only the copy groups published within the last `hours` before the newest "
               "item; older ones stay where they are, as context (default: the whole open window)"))] = None,
           copies: Annotated[bool, Query(description=(
               "settle the copy groups first (false: the stories only, over the copy groups as they "
               "streamed)"))] = True,
           ) -> SettleOut:
    try:
        report = service.call("settle", lambda: service.engine.settle(hours=hours, copies=copies).to_dict())
    except ValueError as exc:  # the service's model is not the one the store's items were embedded with
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
    return SettleOut.model_validate(report)
