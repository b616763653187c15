"""Pure ASGI middleware: the API-key gate, a request-body size limit and a structured access log.

Pure ASGI rather than ``BaseHTTPMiddleware`` so that the size limit can act on the byte stream
itself: a client that sends no Content-Length (chunked) is cut off once it passes the limit
instead of being buffered whole.
"""

from __future__ import annotations

import json
import logging
import time
from abc import ABC, abstractmethod
from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api import auth
from service.api.metrics import Metrics

access_log = logging.getLogger("samestory.access")


class BodyTooLarge(HTTPException):
    """The request body passed the configured limit (answered with 413).

    An HTTPException because FastAPI turns any other exception raised while it reads the body
    into a generic 400; this one it re-raises, and its exception middleware answers it.
    """

    def __init__(self, limit: int, seen: int | None = None) -> None:
        what = f"{seen} bytes" if seen is not None else "more than the limit"
        super().__init__(413, f"request body is {what}; the limit is {limit} bytes (setting max_body_bytes)")

    def __str__(self) -> str:
        return str(self.detail)


MISSING_KEY = "missing API key: send it as 'X-API-Key: <key>' or 'Authorization: Bearer <key>'"
INVALID_KEY = "invalid API key"


def key_problem(settings: Any, api_key: str | None, authorization: str | None,
                cookie: str | None = None) -> str | None:
    """Why a request with these credentials may not pass, or None (the one check the gate and the
    route dependency share). Keys come from ``api_key`` and the named ``api_keys`` (service.api.auth).

    >>> from types import SimpleNamespace
    >>> s = SimpleNamespace(api_key="k", api_keys="alice=k2")
    >>> key_problem(s, None, None) == MISSING_KEY, key_problem(s, "x", None), key_problem(s, None, "Bearer k")
    (True, 'invalid API key', None)
    >>> key_problem(s, None, None, cookie="k2") is None
    True
    """
    offered = auth.offered_key(api_key, authorization, cookie)
    if offered is None:
        return MISSING_KEY
    if auth.name_of(settings, offered) is None:
        return INVALID_KEY
    return None


class _HttpOnly(ABC):
    """Base of the middlewares here: a scope other than HTTP (lifespan, websocket) passes through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one HTTP request."""


class _StatusWatch:
    """``send``, noting the response status once the response has started (``status`` is None before).

    The size limit needs to know whether it can still answer 413; the access log which status to record.
    """

    def __init__(self, send: Send) -> None:
        self.send = send
        self.status: int | None = None

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
        await self.send(message)


class ApiKeyGate(_HttpOnly):
    """Answer 401 before a byte of the body is read when the service has a key and the request
    does not carry one; ``public`` paths (``/healthz``) and paths under ``page_prefixes`` (the
    editors' pages and the API docs, which send a browser without the key to the login form
    themselves) pass.

    The routes check the key too (a FastAPI dependency, which also declares it in the OpenAPI
    description), but only after FastAPI has read and parsed the body: a client without the key
    could otherwise make the service read up to ``max_body_bytes`` for nothing.
    """

    def __init__(self, app: ASGIApp, settings: Any, public: tuple[str, ...] = ("/healthz",),
                 page_prefixes: tuple[str, ...] = ("/ui", "/docs", "/redoc")) -> None:
        super().__init__(app)
        self.settings = settings
        self.on = auth.auth_on(settings)
        self.public = public
        self.page_prefixes = page_prefixes

    def _is_page(self, path: str) -> bool:
        return any(path == p or path.startswith(p + "/") for p in self.page_prefixes)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if not self.on or path in self.public or self._is_page(path):
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope.get("headers", [])
                   if name in (b"x-api-key", b"authorization", b"cookie")}
        problem = key_problem(self.settings, headers.get("x-api-key"), headers.get("authorization"),
                              auth.cookie_value(headers.get("cookie")))
        if problem is None:
            await self.app(scope, receive, send)
            return
        await _send_json(send, 401, {"detail": problem}, ((b"www-authenticate", b"Bearer"),))


class BodySizeLimit(_HttpOnly):
    """Answer 413 when the declared or actual body size exceeds ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            # Refused before a byte of the body is read.
            await _send_json(send, 413, {"detail": str(BodyTooLarge(self.max_bytes, declared))})
            return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        watch = _StatusWatch(send)
        try:
            await self.app(scope, limited_receive, watch)
        except BodyTooLarge as exc:
            if watch.status is not None:  # pragma: no cover - the app answered before reading the whole body
                raise
            await _send_json(send, 413, {"detail": str(exc)})


class AccessLog(_HttpOnly):
    """One structured log line and one latency observation per request.

    The route label is the path template (``/v1/documents/{document_id}``), never the raw
    path, so ids do not explode the metric's cardinality.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        super().__init__(app)
        self.metrics = metrics

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        watch = _StatusWatch(send)
        try:
            await self.app(scope, receive, watch)
        finally:
            elapsed = time.perf_counter() - started
            code = 500 if watch.status is None else watch.status  # no answer started: the app failed
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            self.metrics.request_seconds.labels(scope["method"], route, str(code)).observe(elapsed)
            if 400 <= code < 500:
                self.metrics.rejected.labels(str(code)).inc()
            client = scope.get("client")
            access_log.info("request", extra={"samestory": {
                "method": scope["method"], "path": scope["path"], "route": route, "status": code,
                "ms": round(elapsed * 1000, 2), "client": client[0] if client else None}})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_json(send: Send, status: int, payload: dict[str, Any],
                     extra_headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    # connection: close - the body was not read, so the connection cannot carry another request.
    body = json.dumps(payload).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *extra_headers]})
    await send({"type": "http.response.body", "body": body})
