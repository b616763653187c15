"""Error responses: every 4xx and 5xx carries a ``detail`` string that says what was wrong and where.

The shape is one model, :class:`ErrorOut`, declared in the OpenAPI description for every status
a route can answer with (:func:`responses`), so a client (or schemathesis) can check any error
body against the contract: 400 malformed or non-UTF-8 JSON, 401 missing or wrong key, 404 no such
resource, 413 over a configured limit, 415 a body that is not JSON, 422 invalid input, 500 a bug (logged with its traceback;
the body never carries one).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.types import ArticleError, json_kind

log = logging.getLogger("samestory.api")


class ErrorItem(BaseModel):
    type: str = Field(description="pydantic's error type, e.g. missing, string_too_long")
    loc: list[str | int] = Field(description="where: ['body', 'articles', 0, 'title']")
    msg: str


class ErrorOut(BaseModel):
    """Every error body: one readable ``detail``; validation errors add the raw ``errors`` list."""

    detail: str = Field(description="what was wrong and where, in one sentence")
    errors: list[ErrorItem] | None = Field(None, description="validation errors, one per problem (422 only)")


_WHY = {
    400: "the body is not JSON, or not UTF-8",
    401: "missing or invalid API key (only when the service has one)",
    404: "no such resource",
    413: "the body or a batch is over a configured limit (max_body_bytes, max_batch, max_dedupe_texts)",
    415: "the body's Content-Type is not JSON (send application/json)",
    422: "the request is well-formed JSON but invalid; `detail` names the field and the problem",
    500: "a bug in the service; the server log holds the traceback",
}


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for ``codes``, each with the :class:`ErrorOut` body."""
    return {code: {"model": ErrorOut, "description": _WHY[code]} for code in codes}


def place(loc: tuple[Any, ...] | list[Any]) -> list[str | int]:
    """The places in a pydantic error location: ``["body", "texts", 3]``, without the tags pydantic
    gives a union's members (``none``, ``list[function-after[functools.partial(...)]]``), which
    name its validators, not a place in the body.

    >>> place(("body", "texts", "list[function-after[functools.partial(<function f>), str]]", 3))
    ['body', 'texts', 3]
    """
    return [p if isinstance(p, int) else str(p) for p in loc
            if not (isinstance(p, str) and ("[" in p or "(" in p or p == "none"))]


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("body", "articles", 0, "title")`` -> ``articles[0].title``."""
    out = ""
    for part in place(loc):
        if part == "body" and not out:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


def describe(errors: list[dict[str, Any]]) -> str:
    """One readable sentence per pydantic error, joined."""
    parts = []
    for err in errors:
        if err.get("type") == "none_required":
            continue  # "or leave it out": the optional member of a union says nothing more
        msg = str(err.get("msg", "invalid"))
        # pydantic prefixes messages of custom validators with "Value error, "; it adds nothing.
        msg = msg.removeprefix("Value error, ")
        if err.get("type") == "model_attributes_type" and "input" in err:
            # pydantic's "Input should be a valid dictionary or object to extract fields from"
            # for a body sent as a bare list of articles, or a compare side sent as a string.
            msg = f"expected a JSON object, got {json_kind(err['input'])}"
        elif err.get("type") == "string_unicode":  # a lone surrogate met a pattern check first
            msg = "contains a lone surrogate: not Unicode text"
        elif err.get("type") == "string_pattern_mismatch" and tuple(err.get("loc", ()))[-1:] == ("lang",):
            msg = "must be a language tag such as 'ko', 'en' or 'zh-Hant' (letters, then -subtags)"
        parts.append(f"{_where(err.get('loc', ()))}: {msg}")
    return "; ".join(parts)


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = list(exc.errors())
    malformed = [e for e in errors if e.get("type") == "json_invalid"]
    if malformed:
        # Not JSON at all: a 400, with the parser's own complaint and the byte offset.
        e = malformed[0]
        pos = e.get("loc", ("body", "?"))[-1]
        why = (e.get("ctx") or {}).get("error", "JSON decode error")
        if str(why).startswith("Extra data"):
            # A JSONL feed sent as is: one object a line, where the route reads one object.
            why = f"{why} (the body is one JSON object, not JSON lines)"
        return JSONResponse({"detail": f"malformed JSON at character {pos}: {why}"}, status.HTTP_400_BAD_REQUEST)
    if any(e.get("type") == "missing" and tuple(e.get("loc", ())) == ("body",) for e in errors):
        return JSONResponse({"detail": "request body is missing: send a JSON object with Content-Type "
                                       "application/json"}, status.HTTP_422_UNPROCESSABLE_CONTENT)
    # "or leave it out" (the optional member of a union) says nothing more, here as in ``detail``.
    clean = [{"type": str(e.get("type", "")), "loc": place(e.get("loc", ())), "msg": str(e.get("msg", ""))}
             for e in errors if e.get("type") != "none_required"]
    return JSONResponse({"detail": describe(errors), "errors": clean}, status.HTTP_422_UNPROCESSABLE_CONTENT)


async def article_error(request: Request, exc: ArticleError) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status.HTTP_422_UNPROCESSABLE_CONTENT)


async def http_error(request: Request, exc: StarletteHTTPException) -> Any:
    cause = exc.__cause__
    if exc.status_code == 400 and isinstance(cause, UnicodeDecodeError):
        # FastAPI's own words would be "There was an error parsing the body".
        return JSONResponse({"detail": f"request body is not UTF-8 ({cause.reason} at byte {cause.start}): "
                                       "send JSON encoded as UTF-8"}, status.HTTP_400_BAD_REQUEST)
    if exc.status_code == 405:
        # Starlette's Allow names the methods of the first route on the path only (GET for
        # /v1/documents/{id}, which also has DELETE); RFC 9110 wants all of them.
        allowed = allowed_methods(request)
        if allowed:  # else a route outside the description (/docs): Starlette's header stands
            exc.headers = {**(exc.headers or {}), "Allow": ", ".join(allowed)}
    return await http_exception_handler(request, exc)


def allowed_methods(request: Request) -> list[str]:
    """Every method the OpenAPI description lists for this request's path (HEAD with GET)."""
    methods: set[str] = set()
    for template, item in request.app.openapi().get("paths", {}).items():
        if re.fullmatch(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)), request.url.path):
            methods.update(m.upper() for m in item if m in ("get", "put", "post", "delete", "patch"))
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


async def server_error(request: Request, exc: Exception) -> JSONResponse:
    # Starlette would answer text/plain "Internal Server Error"; the contract says JSON.
    # ServerErrorMiddleware re-raises after this answer, so the server logs the traceback once.
    log.error("unhandled error", extra={"samestory": {"method": request.method, "path": request.url.path}})
    return JSONResponse({"detail": f"internal error ({type(exc).__name__}); the server log has the details"},
                        status.HTTP_500_INTERNAL_SERVER_ERROR)


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(ArticleError, article_error)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, server_error)
