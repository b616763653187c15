"""``/ui``: the editors' pages - stories, a story and why, the compare box, corrections, the eval report.

Server-rendered (Jinja2), so every page reads with JavaScript off; ``ui.js`` only adds local
times, a compare box that answers in place, and confirmations. Every asset is served from the
package (``service/web/static``), none from a CDN. The pages take the API key from a login
form (a cookie) or from a header a reverse proxy adds (docs/ui.md); the key's name is who a
correction is recorded as. Data comes through ``service.web.stories`` (the view-model) and
``service.corrections`` only.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from service.api import auth
from service.api.dependencies import Service, get_service, require_api_key
from service.corrections import CorrectionError, Editor, list_corrections
from service.types import Article, ArticleError
from service.web.stories import Filters, local_iso, parse_when, story_detail, story_list, utc_iso

WEB = Path(__file__).resolve().parent.parent.parent / "web"
templates = Jinja2Templates(directory=str(WEB / "templates"))
templates.env.globals.update(local_iso=local_iso, utc_iso=utc_iso)
templates.env.filters["pct"] = lambda v: "-" if v is None else f"{v:.3f}"

router = APIRouter(prefix="/ui", include_in_schema=False)

# How many corrections the corrections page lists (the export has them all).
CORRECTIONS_SHOWN = 200


class LoginRequired(Exception):
    """Raised by a page when the caller has no valid key: answered with a redirect to the login form."""


def _who(request: Request) -> str:
    """The caller's name (see ``require_api_key``), or a redirect to the login form."""
    try:
        return require_api_key(request, request.headers.get("X-API-Key"), _bearer(request))
    except HTTPException as exc:
        if exc.status_code == status.HTTP_401_UNAUTHORIZED:
            raise LoginRequired() from exc
        raise


def require_key_or_login(request: Request) -> str:
    """For pages outside ``/ui`` (``/docs``, ``/redoc``): a browser (it accepts HTML) without the
    key is sent to the login form; any other client gets the API's 401."""
    if "text/html" in request.headers.get("Accept", ""):
        return _who(request)
    return require_api_key(request, request.headers.get("X-API-Key"), _bearer(request))


def _bearer(request: Request) -> Any:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token:
        from fastapi.security import HTTPAuthorizationCredentials

        return HTTPAuthorizationCredentials(scheme="Bearer", credentials=token)
    return None


def login_redirect(request: Request, exc: Exception) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/ui/login?next={quote(target)}", status.HTTP_303_SEE_OTHER)


def _page(request: Request, name: str, who: str, *, status_code: int = 200, **context: Any) -> HTMLResponse:
    settings = request.app.state.settings
    return templates.TemplateResponse(request, name, {"who": who, "auth_on": auth.auth_on(settings), **context},
                                      status_code=status_code)


async def _form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body as a dict (first value of each field)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}


def _reader_lang(request: Request) -> str | None:
    """The reader's language: ``?hl=`` first, else the first of Accept-Language (``ko-KR`` -> ``ko``)."""
    hl = request.query_params.get("hl")
    if hl:
        return hl.strip().lower()[:8] or None
    accept = request.headers.get("Accept-Language", "")
    first = accept.split(",")[0].split(";")[0].strip().lower()
    return first.split("-")[0] or None if first else None


def _int_param(value: str | None, what: str) -> int | None:
    """``what``: as the page labels the field (an editor reads "story number", not "other_story")."""
    if value is None or not value.strip():
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, got {value!r}") from None


# login -------------------------------------------------------------------------------------------
@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/ui", error: str | None = None) -> HTMLResponse:
    return _page(request, "login.html", auth.ANONYMOUS, next=_safe_next(next), error=error)


def _safe_next(target: str) -> str:
    """Only a path on this site: ``next`` must not send a freshly logged-in editor elsewhere."""
    return target if target.startswith("/") and not target.startswith("//") else "/ui"


@router.post("/login")
async def login(request: Request) -> Response:
    form = await _form(request)
    target = _safe_next(form.get("next", "/ui"))
    key = form.get("key", "")
    settings = request.app.state.settings
    if auth.auth_on(settings) and auth.name_of(settings, key) is None:
        return RedirectResponse(f"/ui/login?{urlencode({'next': target, 'error': 'that key is not valid'})}",
                                status.HTTP_303_SEE_OTHER)
    response = RedirectResponse(target, status.HTTP_303_SEE_OTHER)
    if auth.auth_on(settings):
        # HttpOnly: page scripts never see the key. SameSite=Strict: no other site can post a
        # correction with it. Secure only behind https (the scheme the request came in on).
        response.set_cookie(auth.COOKIE, key, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
    return response


@router.post("/logout")
def logout() -> Response:
    response = RedirectResponse("/ui/login", status.HTTP_303_SEE_OTHER)
    response.delete_cookie(auth.COOKIE, path="/")
    return response


# stories -----------------------------------------------------------------------------------------
@router.get("", response_class=HTMLResponse)
def stories(request: Request) -> HTMLResponse:
    who = _who(request)
    service = get_service(request)
    q = request.query_params
    error = None
    try:
        filters = Filters(lang=(q.get("lang") or None), outlet=(q.get("outlet") or None),
                          since=parse_when(q.get("since"), "since"), until=parse_when(q.get("until"), "until"),
                          q=(q.get("q") or None))
        offset = max(0, _int_param(q.get("offset"), "offset") or 0)
    except ValueError as exc:
        filters, offset, error = Filters(), 0, str(exc)
    limit = min(service.settings.max_page, 50)
    page = service.call("read", story_list, service.engine.store, filters, reader_lang=_reader_lang(request),
                        limit=limit, offset=offset)
    keep = {k: v for k, v in q.items() if k != "offset" and v}
    return _page(request, "stories.html", who, page=page, filters=filters, query=dict(q), error=error,
                 reader_lang=_reader_lang(request),
                 next_url=f"/ui?{urlencode({**keep, 'offset': page['next_offset']})}" if page["next_offset"] else None,
                 prev_url=f"/ui?{urlencode({**keep, 'offset': max(0, offset - limit)})}" if offset else None)


@router.get("/stories/{story_id}", response_class=HTMLResponse)
def story(request: Request, story_id: int) -> HTMLResponse:
    who = _who(request)
    service = get_service(request)
    view = service.call("read", story_detail, service.engine.store, story_id, reader_lang=_reader_lang(request))
    if view is None:
        return _page(request, "error.html", who, message=f"story {story_id} does not exist", status_code=404)
    mine = service.call("read", _corrections_of, service.engine.store, story_id)
    q = request.query_params
    # A refused correction's form comes back as the editor filled it (_back's ``kept``).
    kept = {k: q.get(k, "") for k in KEPT_FIELDS} if q.get("error") else {}
    return _page(request, "story.html", who, story=view, corrections=mine,
                 notice=q.get("notice"), error=q.get("error"), kept=kept)


def _corrections_of(store: Any, story_id: int) -> list[dict[str, Any]]:
    return [c.to_dict() for c in list_corrections(store) if story_id in (c.story_from, c.story_to)]


# corrections -------------------------------------------------------------------------------------
KEPT_FIELDS = ("form", "other_story", "doc_a", "doc_b", "note")


def _back(story_id: int, *, notice: str | None = None, error: str | None = None,
          kept: dict[str, str] | None = None) -> RedirectResponse:
    """Back to the story page with a notice or an error; with an error, ``kept`` (the refused
    form's fields) too, so that the page refills that form: a typo in the story number used to
    lose the note the editor had written."""
    params = {k: v for k, v in (("notice", notice), ("error", error)) if v}
    if error and kept:
        params.update({k: v for k, v in kept.items() if k in KEPT_FIELDS and v})
    return RedirectResponse(f"/ui/stories/{story_id}?{urlencode(params)}", status.HTTP_303_SEE_OTHER)


async def _correct(request: Request, story_id: int, action: str) -> Response:
    who = _who(request)
    service: Service = get_service(request)
    form = await _form(request)
    try:
        if action == "split":
            doc = _int_param(form.get("document_id"), "document")
            if doc is None:
                raise ValueError("choose the member to split off")
            c = await run_in_threadpool(service.call, "correct", lambda: Editor(service.engine).split(
                doc, who=who, note=form.get("note") or None))
            return _back(c.story_to or story_id, notice=f"document {doc} split off story {c.story_from} "
                                                        f"into story {c.story_to} (correction {c.id})")
        if action == "merge":
            other = _int_param(form.get("other_story"), "story number")
            if other is None:
                raise ValueError("give the number of the story to merge into this one")
            c = await run_in_threadpool(service.call, "correct", lambda: Editor(service.engine).merge(
                story_id, other, who=who, note=form.get("note") or None))
            return _back(story_id, notice=f"story {other} merged into story {story_id} (correction {c.id})")
        a, b = _int_param(form.get("doc_a"), "document"), _int_param(form.get("doc_b"), "document")
        if a is None or b is None:
            raise ValueError("give both documents of the pair")
        c = await run_in_threadpool(service.call, "correct", lambda: Editor(service.engine).not_same(
            a, b, who=who, note=form.get("note") or None))
        moved = f"; document {b} moved to story {c.story_to}" if c.story_to else ""  # they shared a story
        return _back(story_id, notice=f"documents {a} and {b} marked not the same (correction {c.id}){moved}")
    except (CorrectionError, ValueError) as exc:
        kept = {k: str(form.get(k) or "")[:2000] for k in KEPT_FIELDS[1:]}
        return _back(story_id, error=str(exc), kept={"form": action, **kept})


@router.post("/stories/{story_id}/split")
async def split(request: Request, story_id: int) -> Response:
    return await _correct(request, story_id, "split")


@router.post("/stories/{story_id}/merge")
async def merge(request: Request, story_id: int) -> Response:
    return await _correct(request, story_id, "merge")


@router.post("/stories/{story_id}/not-same")
async def not_same(request: Request, story_id: int) -> Response:
    return await _correct(request, story_id, "not_same")


@router.get("/corrections", response_class=HTMLResponse)
def corrections(request: Request) -> HTMLResponse:
    who = _who(request)
    service = get_service(request)
    rows = service.call("read", list_corrections, service.engine.store)
    shown = [c.to_dict() for c in reversed(rows[-CORRECTIONS_SHOWN:])]
    q = request.query_params
    return _page(request, "corrections.html", who, corrections=shown, total=len(rows),
                 notice=q.get("notice"), error=q.get("error"))


@router.post("/corrections/{correction_id}/withdraw")
async def withdraw(request: Request, correction_id: int) -> Response:
    """The corrections list's Undo: withdraw the correction, back to the list with what happened."""
    who = _who(request)
    service: Service = get_service(request)
    form = await _form(request)
    editor = Editor(service.engine)
    try:
        c = await run_in_threadpool(service.call, "correct", lambda: editor.withdraw(
            correction_id, who=who, note=form.get("note") or None))
    except CorrectionError as exc:
        params = {"error": str(exc)}
    else:
        params = {"notice": f"correction {c.id} withdrawn ({c.describe()}){_placed_again(editor)}"}
    return RedirectResponse(f"/ui/corrections?{urlencode(params)}", status.HTTP_303_SEE_OTHER)


def _placed_again(editor: Editor) -> str:
    """What the withdrawal's settling moved, for the notice: ``: 1 document and 1 copy group placed again``."""
    copies, stories = editor.placed_again or (None, None)
    docs = copies.moved if copies is not None else 0
    groups = stories.moved if stories is not None else 0
    if not docs and not groups:
        return ": nothing moved (the engine places them where they are)"
    parts = [f"{n} {what}{'s' if n != 1 else ''}" for n, what in ((docs, "document"), (groups, "copy group")) if n]
    return f": {' and '.join(parts)} placed again"


# compare -----------------------------------------------------------------------------------------
@router.get("/compare", response_class=HTMLResponse)
def compare_form(request: Request) -> HTMLResponse:
    return _page(request, "compare.html", _who(request), a="", b="", decision=None, error=None)


@router.post("/compare", response_class=HTMLResponse)
async def compare(request: Request) -> HTMLResponse:
    who = _who(request)
    service: Service = get_service(request)
    form = await _form(request)
    a, b = form.get("a", ""), form.get("b", "")
    decision, error = None, None
    try:
        left, right = Article(title=a.strip()), Article(title=b.strip())
        decision = (await run_in_threadpool(service.call, "compare", service.engine.compare, left, right)).to_dict()
    except ArticleError as exc:
        error = f"both texts are needed: {exc}"
    # ui.js asks for the result alone (?part=result) and swaps it into the page.
    name = "_decision.html" if request.query_params.get("part") == "result" else "compare.html"
    return _page(request, name, who, a=a, b=b, decision=decision, error=error)


# evaluation --------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _eval_results() -> dict[str, Any] | None:
    try:
        return json.loads(resources.files("eval").joinpath("results.json").read_text("utf-8"))
    except (FileNotFoundError, ModuleNotFoundError, json.JSONDecodeError):
        return None


def _figures() -> list[str]:
    try:
        folder = resources.files("eval").joinpath("figures")
        return sorted(p.name for p in folder.iterdir() if p.name.endswith(".png"))
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
        return []


@router.get("/eval", response_class=HTMLResponse)
def eval_report(request: Request) -> HTMLResponse:
    who = _who(request)
    service = get_service(request)
    results = _eval_results()
    figures = _figures()
    rows = []
    for s in (results or {}).get("sets", []):
        p = s.get("pairs", {}).get("samestory") or {}
        rows.append({"name": s["name"], "is_news": s.get("is_news"), "used": s.get("pairs_used"),
                     "total": s.get("pairs_total"), "precision": p.get("precision"), "recall": p.get("recall"),
                     "f1": p.get("f1"), "fmr": p.get("false_merge_rate"),
                     "figures": [f for f in figures if f.startswith(s["name"] + "_")]})
    cfg = service.engine.config
    thresholds = [("ngram_threshold", cfg.copy.ngram_threshold, "IDF-weighted char 3-gram Jaccard, inside the subject gate"),
                  ("minhash_threshold", cfg.copy.minhash_threshold, "exact title 3-gram Jaccard verifying a MinHash LSH hit"),
                  ("embedding_threshold", cfg.copy.embedding_threshold,
                   f"embedding cosine ({service.engine.ctx.model_name or 'no model loaded'})")]
    return _page(request, "eval.html", who, rows=rows, settings=(results or {}).get("settings", {}),
                 thresholds=thresholds, overview=[f for f in figures if "_" not in f.removesuffix(".png")
                                                  or f.startswith("f1_")])


@router.get("/eval/figures/{name}")
def eval_figure(request: Request, name: str) -> Response:
    _who(request)
    if name not in _figures():
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no figure {name!r}")
    data = resources.files("eval").joinpath("figures").joinpath(name).read_bytes()
    return Response(data, media_type="image/png", headers={"Cache-Control": "max-age=3600"})
