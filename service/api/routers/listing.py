"""The read-only listings (``/v1/clusters``, ``/v1/stories``): a page, and one item by id.

The listings differ only in their words, views and response models; the two routes, the id
bounds and the 404 are declared here once, so paging or a new listing changes one place.
"""

# No ``from __future__ import annotations`` here: FastAPI reads the endpoints' annotations at
# run time, and the id parameter's annotation names this listing (a local, not a module global).

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel

from service.api.dependencies import PageDep, ServiceDep
from service.api.schemas import MAX_ID
from service.store.base import Store


def add_listing(router: APIRouter, *, what: str, plural: str,
                page_of: Callable[[Store, int, int], BaseModel],
                view_of: Callable[[Store, int], BaseModel | None],
                page_model: type[BaseModel], item_model: type[BaseModel],
                page_summary: str, item_summary: str) -> None:
    """Add ``GET /{plural}`` (a page, most recently updated first) and ``GET /{plural}/{what}_id``.

    The path parameter keeps its name (``cluster_id``, ``story_id``) and the routes their names
    (``list_clusters``, ``get_cluster``), so the OpenAPI description reads as if written by hand.
    """
    id_name = f"{what}_id"

    def list_items(service: ServiceDep, page: PageDep) -> BaseModel:
        return service.read_page(page_of, page)

    def get_item(item_id: Annotated[int, Path(alias=id_name, ge=1, le=MAX_ID, description=f"{what} id")],
                 service: ServiceDep) -> BaseModel:
        return service.read_item(what, view_of, item_id)

    router.add_api_route(f"/{plural}", list_items, methods=["GET"], name=f"list_{plural}",
                         response_model=page_model, summary=page_summary)
    router.add_api_route(f"/{plural}/{{{id_name}}}", get_item, methods=["GET"], name=f"get_{what}",
                         response_model=item_model, summary=item_summary,
                         responses={404: {"description": f"no such {what}"}})
