"""Error responses: every 4xx carries a ``detail`` string that says what was wrong and where."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from service.types import ArticleError


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("body", "articles", 0, "title")`` -> ``articles[0].title``."""
    out = ""
    for part in loc:
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
        msg = str(err.get("msg", "invalid"))
        # pydantic prefixes messages of custom validators with "Value error, "; it adds nothing.
        msg = msg.removeprefix("Value error, ")
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
        return JSONResponse({"detail": f"malformed JSON at character {pos}: {why}"}, status.HTTP_400_BAD_REQUEST)
    if any(e.get("type") == "missing" and tuple(e.get("loc", ())) == ("body",) for e in errors):
        return JSONResponse({"detail": "request body is missing: send a JSON object with Content-Type "
                                       "application/json"}, status.HTTP_422_UNPROCESSABLE_CONTENT)
    clean = [{k: v for k, v in e.items() if k in ("type", "loc", "msg")} for e in errors]
    return JSONResponse({"detail": describe(errors), "errors": clean}, status.HTTP_422_UNPROCESSABLE_CONTENT)


async def article_error(request: Request, exc: ArticleError) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status.HTTP_422_UNPROCESSABLE_CONTENT)


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(ArticleError, article_error)  # type: ignore[arg-type]
