"""``POST /v1/compare``: a stateless pairwise verdict."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from service.api.dependencies import ServiceDep
from service.api.schemas import CompareRequest, DecisionOut
from service.types import ArticleError

router = APIRouter(prefix="/v1", tags=["stateless"])


@router.post("/compare", response_model=DecisionOut, summary="Are two articles the same story?")
def compare(request: CompareRequest, service: ServiceDep) -> DecisionOut:
    """Run ``a`` and ``b`` through the same cascade and guards as ingest; stores nothing."""
    try:
        a, b = request.a.to_article(), request.b.to_article()
    except ArticleError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from exc
    decision = service.call("compare", service.engine.compare, a, b, all_scores=request.all_scores)
    return DecisionOut.model_validate(decision.to_dict())
