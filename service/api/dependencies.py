"""Shared dependencies: the engine singleton (serialised by a lock) and the API-key check."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, HTTPException, Query, Request, Security, status
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from service.api import auth
from service.api.gather import IngestGatherer
from service.api.metrics import Metrics
from service.api.middleware import key_problem
from service.api.schemas import MAX_ID
from service.api.settings import Settings

if TYPE_CHECKING:
    from service.engine import Deduper

T = TypeVar("T")


@dataclass
class Service:
    """What the routers share: one engine, the lock that serialises it, settings and metrics.

    The engine is not thread-safe (its candidate state is plain dicts and a FAISS index), and
    FastAPI runs sync endpoints on a thread pool, so every engine or store call goes through
    :meth:`call`. Serialising is also what the engine's transaction model expects: each call
    decides and writes inside one store transaction, so nothing is gained by overlapping them.
    The one exception is :meth:`call_stateless`, for ``Deduper.dedupe``, which reads neither the
    candidate state nor the store: a RAG pipeline's dedupe must not wait behind an ingest batch.
    """

    engine: Deduper
    settings: Settings
    metrics: Metrics
    lock: threading.Lock = field(default_factory=threading.Lock)
    gatherer: IngestGatherer[Any, Any] = field(init=False)

    def __post_init__(self) -> None:
        # Concurrent ingest requests share engine calls (service/api/gather.py); one gathered
        # call is never larger than the largest single request the service accepts.
        self.gatherer = IngestGatherer(self.lock, max_items=self.settings.max_batch,
                                       on_batch=self.metrics.observe_gathered)

    def ingest(self, articles: list[Any]) -> list[Any]:
        """Ingest one request's validated articles, gathered with whatever other requests wait.

        Returns this request's results, in its order, after the gathered batch is committed.
        """
        def ingest_many(items: list[Any], chunk_size: int) -> list[Any]:
            with self.timed("ingest"):  # the gatherer holds the lock
                # repeats across gathered requests are re-observations, not a caller's mistake
                return self.engine.ingest_many(items, chunk_size=chunk_size, warn_repeated_ids=False)

        return self.gatherer.submit(articles, ingest_many)

    @contextmanager
    def timed(self, operation: str) -> Iterator[None]:
        """Time one engine operation for the ``engine_seconds`` histogram."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.metrics.engine_seconds.labels(operation).observe(time.perf_counter() - started)

    @contextmanager
    def locked(self, operation: str) -> Iterator[Deduper]:
        """Hold the engine for one operation, timing it for the ``engine_seconds`` histogram."""
        with self.lock, self.timed(operation):
            yield self.engine

    def call(self, operation: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        with self.locked(operation):
            return fn(*args, **kwargs)

    def read_page(self, page_of: Callable[[Any, int, int], T], page: Page) -> T:
        """One page of a store listing (``GET /v1/copy-groups``, ``GET /v1/stories``), read under the lock."""
        return self.call("read", page_of, self.engine.store, page.limit, page.offset)

    def read_item(self, what: str, view_of: Callable[[Any, int], T | None], item_id: int) -> T:
        """One item's view of the store, read under the lock; 404 naming ``what`` when there is none."""
        view = self.call("read", view_of, self.engine.store, item_id)
        if view is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"{what} {item_id} does not exist")
        return view

    def call_stateless(self, operation: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn`` without the engine lock (timed like :meth:`call`).

        Only for calls that build their own state and touch neither the engine's candidate state
        nor the store: ``Deduper.dedupe``. What they share with ingestion is thread-safe: the
        embedder (a lock around the model), the guards (``functools.lru_cache``) and the encoder
        counters (``EngineContext.encode`` updates them under a lock).
        """
        with self.timed(operation):
            return fn(*args, **kwargs)


def get_service(request: Request) -> Service:
    service = getattr(request.app.state, "service", None)
    if service is None:  # only possible if a request races start-up or shutdown
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "the engine is not running")
    return service


ServiceDep = Annotated[Service, Depends(get_service)]

# auto_error=False: a missing header is not an error when auth is off, and when it is on we
# want one message that names both accepted forms.
_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="the service's API key")
_bearer = HTTPBearer(auto_error=False, description="the service's API key as a bearer token")


def require_api_key(
    request: Request,
    api_key: Annotated[str | None, Security(_api_key_header)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
) -> str:
    """Reject the request unless auth is off or it carries a key (``X-API-Key``, Bearer, or the
    pages' login cookie); returns who called (the key's name, ``anonymous`` with auth off)."""
    settings = request.app.state.settings
    if not auth.auth_on(settings):
        return auth.ANONYMOUS
    # The same check as the ApiKeyGate middleware, which already refused a request without a key
    # before its body was read; this one declares the schemes in the OpenAPI description and says who.
    authorization = f"Bearer {bearer.credentials}" if bearer is not None else None
    cookie = request.cookies.get(auth.COOKIE)
    problem = key_problem(settings, api_key, authorization, cookie)
    if problem is not None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, problem, headers={"WWW-Authenticate": "Bearer"})
    name = auth.name_of(settings, auth.offered_key(api_key, authorization, cookie))
    assert name is not None  # key_problem found the key
    return name


WhoDep = Annotated[str, Depends(require_api_key)]


def is_json(content_type: str) -> bool:
    """``application/json`` or ``application/<anything>+json``, parameters (charset) aside.

    >>> is_json("application/json; charset=utf-8"), is_json("application/problem+json"), is_json("text/plain")
    (True, True, False)
    """
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


async def require_json(request: Request) -> None:
    """415 for a body sent to a route that reads JSON without a JSON Content-Type.

    FastAPI reads such a body (none at all included: its strict content type) as bytes, and
    answered 422 "Input should be a valid dictionary" even when the bytes were valid JSON. Without
    a body, the 422 "request body is missing" still says what to send.
    """
    if getattr(request.scope.get("route"), "body_field", None) is None:
        return  # a route without a body (GET, DELETE, POST /v1/settlements)
    content_type = request.headers.get("content-type")
    if (content_type is None or not is_json(content_type)) and await request.body():
        said = "the body has no Content-Type" if content_type is None else f"Content-Type {content_type!r} is not JSON"
        raise HTTPException(status.HTTP_415_UNSUPPORTED_MEDIA_TYPE, f"{said}: send the body as application/json")


@dataclass(frozen=True)
class Page:
    """One page of a listing (``GET /v1/copy-groups``, ``GET /v1/stories``)."""

    limit: int
    offset: int


def get_page(request: Request,
             limit: Annotated[int, Query(ge=1, description="page size (at most the setting max_page)")] = 20,
             offset: Annotated[int, Query(ge=0, le=MAX_ID, description="items to skip")] = 0) -> Page:
    max_page = request.app.state.settings.max_page
    if limit > max_page:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                            f"limit {limit} exceeds the page limit of {max_page} (setting max_page)")
    return Page(limit, offset)


PageDep = Annotated[Page, Depends(get_page)]
