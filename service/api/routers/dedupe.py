"""``POST /v1/dedupe``: stateless grouping of texts, e.g. to filter retrieved RAG chunks."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, status

from service.api.dependencies import ServiceDep
from service.api.schemas import DedupeRequest, DedupeResponse

router = APIRouter(prefix="/v1", tags=["stateless"])


@router.post("/dedupe", response_model=DedupeResponse, summary="Group near-duplicate texts (stores nothing)")
def dedupe(request: DedupeRequest, service: ServiceDep) -> dict[str, Any]:
    """Each text is matched, in order, against the groups formed so far; ``keep`` holds the
    first text of each group. ``threshold`` overrides the embedding threshold for this call."""
    limit = service.settings.max_dedupe_texts
    if len(request.texts) > limit:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE,
                            f"{len(request.texts)} texts exceed the limit of {limit} (setting max_dedupe_texts)")
    # Stateless: it does not wait for (or hold up) an ingest batch holding the engine.
    res = service.call_stateless("dedupe", service.engine.dedupe, request.texts, threshold=request.threshold)
    return {"clusters": res.clusters, "keep": res.keep, "decisions": [d.to_dict() for d in res.decisions]}
