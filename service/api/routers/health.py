"""Liveness (public, even with auth on) and Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Response
from prometheus_client import CONTENT_TYPE_LATEST

from service.api.dependencies import ServiceDep, require_api_key
from service.api.schemas import Health

router = APIRouter(tags=["operations"])


@router.get("/healthz", response_model=Health, summary="Liveness: the engine is open")
def healthz(service: ServiceDep) -> Health:
    """Answers without touching the engine lock, so a long ingest batch cannot fail health checks."""
    engine = service.engine
    url = getattr(engine.store, "url", "")
    kind = "postgresql" if url.startswith(("postgresql://", "postgres://")) else "sqlite"
    return Health(status="ok", model=engine.ctx.model_name, guards=engine.ctx.guards is not None, store=kind)


@router.get("/metrics", summary="Prometheus metrics", dependencies=[Depends(require_api_key)],
            response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}})
def metrics(service: ServiceDep) -> Response:
    """Items per stage and outcome, merges, guard vetoes, latency histograms, index and store sizes."""
    stats = service.call("stats", service.engine.stats)
    service.metrics.refresh(stats)
    return Response(service.metrics.render(), media_type=CONTENT_TYPE_LATEST)
