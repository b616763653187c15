"""``POST /v1/articles``: ingest a batch; the response comes only after it is committed."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from service.api.dependencies import ServiceDep
from service.api.schemas import IngestRequest, IngestResponse, IngestResultOut
from service.types import Article, ArticleError

router = APIRouter(prefix="/v1", tags=["articles"])


@router.post("/articles", response_model=IngestResponse, summary="Ingest articles",
             responses={413: {"description": "batch or body over the configured limit"},
                        422: {"description": "an article is invalid (the detail names which and why)"}})
def ingest(request: IngestRequest, service: ServiceDep) -> IngestResponse:
    """Ingest ``articles`` in order and return one result per article, in input order.

    Durability: the batch is committed in one transaction before this handler returns, so an
    acknowledged article survives a crash. Nothing of a batch is stored when any article in it
    is invalid. URLs are canonicalised, never fetched. Requests that arrive while the engine is
    busy are gathered into one engine call (one encoder batch) and ingested in arrival order.
    """
    limit = service.settings.max_batch
    if len(request.articles) > limit:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE,
                            f"batch of {len(request.articles)} articles exceeds the limit of {limit} (setting max_batch)")
    articles: list[Article] = []
    for i, item in enumerate(request.articles):
        try:
            article = item.to_article()
            # The engine validates URLs too, but without saying which article of the batch failed.
            # doc_key only reads the (immutable) URL rules, so it needs no engine lock.
            service.engine.copy_level.doc_key(article)
        except ArticleError as exc:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, f"articles[{i}]: {exc}") from exc
        articles.append(article)
    results = service.ingest(articles)
    service.metrics.observe_results(results)
    return IngestResponse(results=[IngestResultOut.model_validate(r.to_dict()) for r in results])
