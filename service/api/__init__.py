"""The samestory HTTP service (FastAPI): ``create_app(settings)``; ``samestory serve`` runs it.

Layout follows FastAPI's "bigger applications": settings, dependencies (the engine singleton
and the API-key check), schemas (the contract), metrics, middleware, and one router per
resource under ``routers/``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from service.api import errors
from service.api.dependencies import Service, require_api_key, require_json
from service.api.metrics import Metrics
from service.api.middleware import AccessLog, ApiKeyGate, BodySizeLimit
from service.api.openapi import contract
from service.api.settings import Settings

if TYPE_CHECKING:
    from service.engine import Deduper

log = logging.getLogger("samestory.api")

__all__ = ["Settings", "create_app", "open_engine"]


def open_engine(settings: Settings) -> Deduper:
    """The engine the settings describe (store, model, guards, thresholds), warmed up: its state
    from the store, and its model, guards (the Korean analyser) and pair verifier (when on) loaded and
    run once before the first request arrives."""
    from service.engine import Deduper, guards_on

    engine = Deduper.open(settings.db, model=settings.model, config=settings.engine_config(),
                          guards=guards_on(settings.guards), device=settings.device)
    engine.ctx.warm_encoder()
    engine.ctx.warm_guards()
    engine.ctx.warm_verifier()
    return engine


def create_app(settings: Settings | None = None, *, engine: Deduper | None = None,
               close_engine: bool = False) -> FastAPI:
    """Build the app. The engine is opened at start-up (lifespan) unless one is passed in.

    One opened here is closed at shutdown; one passed in stays the caller's to close unless
    ``close_engine`` hands it over. ``samestory serve`` does: uvicorn runs the lifespan's shutdown
    on SIGTERM and SIGINT but then re-raises the signal, which ends the process before any code
    after ``uvicorn.run`` (issue: a SIGTERMed server wrote no restart state).
    """
    # Imported here, not with the package: the routers answer with service.views, which builds
    # the models of service.api.schemas, so importing the package must not import the routers
    # (``import service.views`` first would otherwise meet a half-imported service.views).
    from service.api.routers import (
        articles,
        compare,
        copy_groups,
        corrections,
        dedupe,
        documents,
        health,
        stories,
        ui,
    )

    settings = settings or Settings.load()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        eng = engine if engine is not None else open_engine(settings)
        app.state.service = service = Service(eng, settings, metrics)
        log.info("engine ready", extra={"samestory": {"settings": settings.public(),
                                                      "warmup": getattr(getattr(eng, "restart", None), "warmup_report", {})}})
        try:
            yield
        finally:
            app.state.service = None
            if (engine is None or close_engine) and not eng.closed:
                # Under the engine lock: a request still running in the thread pool finishes
                # (and commits) before the state is written and the store closed.
                with service.lock:
                    eng.close()
                log.info("engine closed")

    app = FastAPI(
        title="samestory",
        version="0.1.0",
        summary="Cross-lingual (Korean/English) near-duplicate news detection.",
        description="Ingest articles and learn which ones tell the same story; compare or dedupe texts "
                    "statelessly. URLs are canonicalised and never fetched.",
        lifespan=lifespan,
        # Served below behind the API-key check: with auth on, every route but /healthz needs the key.
        docs_url=None, redoc_url=None, openapi_url=None,
    )
    app.state.settings = settings
    app.state.service = None
    errors.install(app)

    protected = [Depends(require_api_key)]
    app.include_router(health.router)
    for module in (articles, compare, dedupe, documents, copy_groups, stories, corrections):
        # The key is checked first: a caller without one learns nothing about the body.
        app.include_router(module.router, dependencies=[*protected, Depends(require_json)])
    # The editors' pages check the key themselves (a missing one sends the browser to the login
    # form); their assets, and Swagger's and ReDoc's, are served from the package: no CDN.
    app.include_router(ui.router)
    app.add_exception_handler(ui.LoginRequired, ui.login_redirect)
    app.mount("/ui/static", StaticFiles(directory=str(ui.WEB / "static")), name="ui-static")

    draft = app.openapi

    def openapi() -> dict[str, Any]:
        # FastAPI's description, made to say what the service does (service.api.openapi); cached.
        if app.openapi_schema is None or not app.state.contract_ready:
            app.openapi_schema = contract(draft(), settings)
            app.state.contract_ready = True
        return app.openapi_schema

    app.state.contract_ready = False
    app.openapi = openapi  # type: ignore[method-assign]

    @app.get("/openapi.json", include_in_schema=False, dependencies=protected)
    def openapi_json() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request) -> HTMLResponse:
        ui.require_key_or_login(request)  # a browser without the key goes to the login form
        vendor = "/ui/static/vendor/swagger-ui"
        return get_swagger_ui_html(openapi_url="/openapi.json", title="samestory API",
                                   swagger_js_url=f"{vendor}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{vendor}/swagger-ui.css",
                                   swagger_favicon_url=f"{vendor}/favicon-32x32.png")

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        ui.require_key_or_login(request)
        return get_redoc_html(openapi_url="/openapi.json", title="samestory API",
                              redoc_js_url="/ui/static/vendor/redoc/redoc.standalone.js",
                              redoc_favicon_url="/ui/static/vendor/swagger-ui/favicon-32x32.png",
                              with_google_fonts=False)

    # add_middleware wraps: the last added is outermost, so the access log also sees 401s and
    # 413s, and a request without the key is refused before the size limit or the body is looked at.
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(ApiKeyGate, settings=settings)
    app.add_middleware(AccessLog, metrics=metrics)
    return app
