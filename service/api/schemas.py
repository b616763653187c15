"""The HTTP contract: pydantic models mirroring ``service.types`` (Article, Decision, IngestResult).

Field names and shapes are exactly those of the dataclasses' ``to_dict()``, so a response body
is interchangeable with a line of ``samestory ingest --json``. Limits on single fields come
from ``service.types`` so the API and the engine reject the same things; limits on batch sizes
depend on settings and are checked in the routers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from service.types import MAX_BODY_CHARS, MAX_FIELD_CHARS, MAX_TITLE_CHARS, Article

StageName = Literal["url", "exact", "ngram", "minhash", "embedding", "none"]
StatusName = Literal["new", "reobserved", "new_version", "duplicate"]

_ARTICLE_EXAMPLE = {
    "title": "연준, 기준금리 0.25%p 인상",
    "body": "미국 연방준비제도가 기준금리를 0.25%포인트 올렸다.",
    "url": "https://news.example.kr/economy/123?utm_source=rss",
    "source": "news.example.kr",
    "channel": "rss",
    "published_at": "2024-03-20T18:00:00Z",
    "lang": "ko",
    "id": "feed-42",
}


class ArticleIn(BaseModel):
    """One incoming item. At least one of ``title`` and ``body`` must be non-blank.

    The service never fetches ``url``: it is only canonicalised and used as the document key.
    """

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_ARTICLE_EXAMPLE]})

    title: str = Field("", max_length=MAX_TITLE_CHARS, description="headline")
    body: str = Field("", max_length=MAX_BODY_CHARS, description="article text (or its lead)")
    url: str | None = Field(None, max_length=MAX_FIELD_CHARS,
                            description="http(s) URL; canonicalised, never fetched")
    source: str | None = Field(None, max_length=MAX_FIELD_CHARS, description="publisher name or host")
    channel: str = Field("default", max_length=MAX_FIELD_CHARS,
                         description="collector channel; documents are unique per (channel, canonical URL)")
    published_at: datetime | None = Field(None, description="ISO-8601 time; naive times are UTC")
    lang: str | None = Field(None, max_length=MAX_FIELD_CHARS, description="language code; detected when absent")
    id: str | None = Field(None, max_length=MAX_FIELD_CHARS, description="caller's id, echoed in the result")

    @field_validator("published_at", mode="before")
    @classmethod
    def _iso_string(cls, value: Any) -> Any:
        # pydantic would read a number as a Unix time; the CLI and the engine do not, and a
        # timestamp in the wrong unit silently lands in 1970, so only ISO-8601 strings pass.
        if value is not None and not isinstance(value, (str, datetime)):
            raise ValueError("published_at must be an ISO-8601 string such as 2024-03-20T18:00:00Z")
        return value

    @model_validator(mode="after")
    def _not_empty(self) -> ArticleIn:
        if not self.title.strip() and not self.body.strip():
            raise ValueError("an article needs a non-empty title or body")
        return self

    def to_article(self) -> Article:
        """The engine's Article (which re-validates; an ArticleError becomes a 422 in the router)."""
        return Article(title=self.title, body=self.body, url=self.url, source=self.source,
                       channel=self.channel, published_at=self.published_at, lang=self.lang, id=self.id)


class GuardVerdictOut(BaseModel):
    guard: str
    blocked: bool
    decided: bool = Field(description="False when the guard found nothing to compare and stepped aside")
    evidence: str = ""


class DecisionOut(BaseModel):
    """Why an item was joined to another or kept apart (``service.types.Decision``)."""

    same: bool
    stage: StageName = Field(description="the stage that settled the item")
    score: float | None = Field(description="that stage's similarity")
    reasons: list[str] = Field(description="human-readable evidence")
    blocked_by: list[str] = Field(description="guards that vetoed a merge")
    matched_id: int | None
    scores: dict[str, float] = Field(description="every stage score computed, for re-thresholding")
    guards: list[GuardVerdictOut]


class IngestResultOut(BaseModel):
    """What ingesting one article did (``service.types.IngestResult.to_dict()``)."""

    id: str | None = Field(description="the caller's id, echoed")
    observation_id: int
    document_id: int
    version_id: int
    cluster_id: int
    copy_group_id: int | None = Field(None, description="the copy group (same report again): equals cluster_id")
    matched_copy: int | None = Field(None, description="the document the item was matched with (null: new group)")
    story_id: int | None = Field(None, description="the story (same event) the copy group is in: GET /v1/stories/{id}")
    representative_id: int
    status: StatusName
    duplicate_of: int | None
    decision: DecisionOut


class IngestRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"articles": [_ARTICLE_EXAMPLE]}]})

    articles: list[ArticleIn] = Field(min_length=1, description="processed in order, one transaction per chunk")


class IngestResponse(BaseModel):
    results: list[IngestResultOut] = Field(description="one per article, in input order")


class CompareRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "a": {"title": "Fed raises rates by a quarter point"},
        "b": {"title": "연준, 기준금리 0.25%p 인상"},
    }]})

    a: ArticleIn
    b: ArticleIn
    all_scores: bool = Field(True, description="compute every stage's score, not only the deciding one")


class DedupeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "texts": ["Fed raises rates by 25bp", "The Fed raised rates by 25bp", "ECB holds rates"],
        "threshold": 0.7,
    }]})

    texts: list[str] = Field(min_length=1, description="e.g. retrieved RAG chunks; nothing is stored")
    threshold: float | None = Field(None, ge=0.0, le=1.0, description="embedding threshold for this call")

    @field_validator("texts")
    @classmethod
    def _text_sizes(cls, texts: list[str]) -> list[str]:
        for i, t in enumerate(texts):
            if len(t) > MAX_BODY_CHARS:
                raise ValueError(f"texts[{i}] is {len(t)} characters; the limit is {MAX_BODY_CHARS}")
        return texts


class DedupeResponse(BaseModel):
    clusters: list[list[int]] = Field(description="input indices per group")
    keep: list[int] = Field(description="the index kept from each group (its first occurrence)")
    decisions: list[DecisionOut] = Field(description="one per input")


class VersionOut(BaseModel):
    id: int
    content_hash: str
    title: str
    body: str
    lang: str
    created_at: float = Field(description="Unix time")


class ObservationOut(BaseModel):
    id: int
    version_id: int
    channel: str
    url: str | None
    source: str | None
    caller_id: str | None
    observed_at: float = Field(description="Unix time")
    status: StatusName
    decision: DecisionOut


class MembershipOut(BaseModel):
    """How a document joined its cluster: the decision made when it was ingested."""

    cluster_id: int
    joined_at: float
    stage: str
    score: float | None
    matched_id: int | None
    decision: DecisionOut


class DocumentOut(BaseModel):
    id: int
    channel: str
    doc_key: str | None = Field(description="canonical URL (or id:<caller id>) the document is unique by")
    url: str | None
    source: str | None
    cluster_id: int | None
    latest_version_id: int | None
    published_at: float | None
    first_seen: float
    deleted: bool
    membership: MembershipOut | None
    versions: list[VersionOut]
    observations: list[ObservationOut]


class DeleteResponse(BaseModel):
    document_id: int
    deleted: bool
    new_representative_id: int | None = Field(
        None, description="set when the deleted document was its cluster's representative")


class ClusterEventOut(BaseModel):
    id: int
    old_representative: int | None
    new_representative: int
    reason: str
    at: float


class ClusterMemberOut(BaseModel):
    document_id: int
    url: str | None
    source: str | None
    title: str | None
    joined_at: float
    stage: str
    score: float | None
    matched_id: int | None
    decision: DecisionOut


class ClusterOut(BaseModel):
    id: int
    representative_id: int
    representative_reason: str | None = Field(description="why the current representative was chosen (last event)")
    created_at: float
    updated_at: float
    members: list[ClusterMemberOut] = Field(description="live members, each with its membership decision")
    events: list[ClusterEventOut] = Field(description="representative changes, oldest first")


class ClusterSummaryOut(BaseModel):
    id: int
    representative_id: int
    title: str | None = Field(description="the representative's latest title")
    size: int = Field(description="live members")
    created_at: float
    updated_at: float


class ClusterPage(BaseModel):
    clusters: list[ClusterSummaryOut] = Field(description="most recently updated first")
    limit: int
    offset: int
    next_offset: int | None = Field(description="offset of the next page, null on the last page")


class Health(BaseModel):
    status: Literal["ok"]
    model: str | None
    guards: bool
    store: str = Field(description="store kind: sqlite or postgresql")
