"""``POST /v1/dedupe``: stateless grouping of texts, e.g. to filter retrieved RAG chunks."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from service.api.dependencies import ServiceDep
from service.api.schemas import DecisionOut, DedupeRequest, DedupeResponse, DroppedOut

router = APIRouter(prefix="/v1", tags=["stateless"])


@router.post("/dedupe", response_model=DedupeResponse, summary="Drop near-duplicate texts or records (stores nothing)")
def dedupe(request: DedupeRequest, service: ServiceDep) -> DedupeResponse:
    """Each input is matched, in order, against the kept ones; ``keep`` holds the first of each
    group, ``dropped`` every other input with the one it copies and why. ``kind`` "passage"
    (default: RAG chunks, article bodies) never drops a chunk with a sentence or number the kept
    ones lack; "headline" uses the headline cascade. ``threshold`` overrides the embedding-stage
    threshold for this call."""
    items = request.items
    limit = service.settings.max_dedupe_texts
    if len(items) > limit:
        what = "texts" if request.texts is not None else "records"  # name what was sent
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE,
                            f"{len(items)} {what} exceed the limit of {limit} (setting max_dedupe_texts)")
    # Stateless: it does not wait for (or hold up) an ingest batch holding the engine.
    res = service.call_stateless("dedupe", service.engine.dedupe, items, text_field="text",
                                 kind=request.kind, threshold=request.threshold)
    decisions = res.decisions
    dup = list(res.duplicate_of)
    return DedupeResponse(
        copy_groups=res.clusters, keep=res.keep, decisions=[DecisionOut.model_validate(d.to_dict()) for d in decisions],
        duplicate_of=dup, selected=[items[i] for i, j in enumerate(dup) if j is None],
        dropped=[DroppedOut(index=i, duplicate_of=j, stage=decisions[i].stage, score=decisions[i].score,
                            reasons=decisions[i].reasons, record=items[i])
                 for i, j in enumerate(dup) if j is not None])
