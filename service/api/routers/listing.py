"""The read-only listings (``/v1/copy-groups``, ``/v1/stories``): a page, and one item by id.

The listings differ only in their words, views and response models; the two routes, the id
bounds and the 404 are declared here once, so paging or a new listing changes one place.
"""

# No ``from __future__ import annotations`` here: FastAPI reads the endpoints' annotations at
# run time, and the id parameter's annotation names this listing (a local, not a module global).

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Response
from pydantic import BaseModel

from service.api.dependencies import PageDep, ServiceDep
from service.api.schemas import MAX_ID
from service.store.base import Store

# RFC 9745 (Deprecation) and RFC 8288 (Link, rel="successor-version") on every answer of an old route.
_DEPRECATION_HEADERS = {
    "Deprecation": {"description": "true: this route is a deprecated alias, removed in the next release",
                    "schema": {"type": "string"}},
    "Link": {"description": "the route that replaces it (rel=\"successor-version\")", "schema": {"type": "string"}},
}


def _deprecated(successor: str) -> Callable[[Response], None]:
    def mark(response: Response) -> None:
        response.headers["Deprecation"] = "true"
        response.headers["Link"] = f'<{successor}>; rel="successor-version"'
    return mark


def add_listing(router: APIRouter, *, what: str, plural: str,
                page_of: Callable[[Store, int, int], BaseModel],
                view_of: Callable[[Store, int], BaseModel | None],
                page_model: type[BaseModel], item_model: type[BaseModel],
                page_summary: str, item_summary: str,
                deprecated_alias: tuple[str, str] | None = None) -> None:
    """Add ``GET /{plural}`` (a page, most recently updated first) and ``GET /{plural}/{what}_id``.

    The path parameter keeps its name (``copy_group_id``, ``story_id``) and the routes their names
    (``list_copy_groups``, ``get_copy_group``), so the OpenAPI description reads as if written by
    hand. ``deprecated_alias`` (old ``what``, old ``plural``) adds the same two routes under the old
    name, marked deprecated, answering the same body with ``Deprecation`` and ``Link`` headers.
    """
    words = what.replace("_", " ")

    def routes(item: str, path: str, extra: dict[str, Any]) -> None:
        id_name = f"{item}_id"
        responses = extra.pop("responses", {})

        def list_items(service: ServiceDep, page: PageDep) -> BaseModel:
            return service.read_page(page_of, page)

        def get_item(item_id: Annotated[int, Path(alias=id_name, ge=1, le=MAX_ID, description=f"{words} id")],
                     service: ServiceDep) -> BaseModel:
            return service.read_item(words, view_of, item_id)

        router.add_api_route(f"/{path}", list_items, methods=["GET"], name=f"list_{path.replace('-', '_')}",
                             response_model=page_model, summary=page_summary, responses=responses, **extra)
        router.add_api_route(f"/{path}/{{{id_name}}}", get_item, methods=["GET"], name=f"get_{item}",
                             response_model=item_model, summary=item_summary, **extra,
                             responses={404: {"description": f"no such {words}"}, **responses})

    routes(what, plural, {})
    if deprecated_alias is not None:
        old_what, old_plural = deprecated_alias
        routes(old_what, old_plural, {
            "deprecated": True, "dependencies": [Depends(_deprecated(f"/v1/{plural}"))],
            "description": f"Deprecated alias of the `/v1/{plural}` routes, removed in the next release: the "
                           f"same answer, with the headers `Deprecation: true` and `Link: </v1/{plural}>; "
                           f"rel=\"successor-version\"`.",
            "responses": {200: {"description": "Successful Response", "headers": _DEPRECATION_HEADERS}}})
