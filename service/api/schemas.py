"""The HTTP contract: every request and response model of ``/v1``, in one module.

Results of the engine mirror ``service.types`` (Article, Decision, IngestResult): field names and
shapes are exactly those of the dataclasses' ``to_dict()``, so a response body is interchangeable
with a line of ``samestory ingest --json``. Answers about stored things are built from the store's
row dataclasses (``from_row``; ``service.views`` builds them for the routes, the pages and the CLI). Limits on single fields come
from ``service.types`` so the API and the engine reject the same things; limits on batch sizes
depend on settings and are checked in the routers.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictBool,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.config import JsonDict
from pydantic.json_schema import SkipJsonSchema

from index.text import WORD_CHAR_PATTERN, has_word_chars
from service.types import (
    LANG_TAG_PATTERN,
    MAX_BODY_CHARS,
    MAX_FIELD_CHARS,
    MAX_TITLE_CHARS,
    NO_WORDS,
    Article,
    misspelt_key_problem,
    misspelt_keys_pattern,
    text_problem,
    utc_iso,
)

# A time in an answer: epoch seconds in the store and in Python (the views, the pages' models), an
# ISO 8601 UTC string (service.types.utc_iso: "2025-11-27T00:10:00Z") in every JSON answer, so that
# HTTP, the CLI's --json and the pages' data give every time one way.
UtcTime = Annotated[float, PlainSerializer(utc_iso, return_type=str, when_used="json"),
                    WithJsonSchema({"type": "string", "format": "date-time"})]

# Ids are SQL BIGINTs: a larger number can name nothing, and would overflow the database driver.
MAX_ID = 2**63 - 1
# A store id in a request body (service.api.openapi keeps its bounds integers in the description).
StoreId = Annotated[int, Field(ge=1, le=MAX_ID)]


# ``cluster_id`` (and ``clusters``) were the first names of the copy group; they stay in every answer
# for one release as deprecated aliases, with the same value as the primary field.
DEPRECATED_ALIAS = "deprecated alias of copy_group_id; removed in the next release"


def deprecated_alias(of: str = "copy_group_id") -> Any:
    """A field that repeats ``of`` under its old name: marked ``deprecated`` in the OpenAPI description."""
    return Field(description=DEPRECATED_ALIAS.replace("copy_group_id", of), json_schema_extra={"deprecated": True})


class _CopyGroupAlias(BaseModel):
    """A model with a primary field and its deprecated alias (``ALIASES``: (primary, alias) pairs):
    either fills the other, so a view sets one (the store's rows still say ``cluster_id``)."""

    ALIASES: ClassVar[tuple[tuple[str, str], ...]] = (("copy_group_id", "cluster_id"),)

    @model_validator(mode="before")
    @classmethod
    def _both_names(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for primary, alias in cls.ALIASES:
                if primary not in data and alias in data:
                    data = {**data, primary: data[alias]}
                elif alias not in data and primary in data:
                    data = {**data, alias: data[primary]}
        return data


def _clean(value: str) -> str:
    problem = text_problem(value)
    if problem:
        raise ValueError(problem)
    return value


# Every string the API accepts: no NUL (PostgreSQL cannot store it) and no lone surrogate (not
# Unicode text; no store and no encoder takes it). The pattern says the first in the contract; a
# lone surrogate cannot be sent as UTF-8 at all, only as a JSON escape, and is checked all the same.
Text = Annotated[str, AfterValidator(_clean), Field(json_schema_extra={"pattern": "^[^\\u0000]*$"})]
# The same with a length limit, checked first: on an optional field the limit after the
# validator read "Value should have at most N items after validation", not "String should have
# at most N characters".
TitleText = Annotated[Annotated[str, Field(max_length=MAX_TITLE_CHARS)], AfterValidator(_clean),
                      Field(json_schema_extra={"pattern": "^[^\\u0000]*$"})]
BodyText = Annotated[Annotated[str, Field(max_length=MAX_BODY_CHARS)], AfterValidator(_clean),
                     Field(json_schema_extra={"pattern": "^[^\\u0000]*$"})]
FieldText = Annotated[Annotated[str, Field(max_length=MAX_FIELD_CHARS)], AfterValidator(_clean),
                      Field(json_schema_extra={"pattern": "^[^\\u0000]*$"})]
# "Has a non-whitespace character", spelled out: the characters ``str.isspace()`` (so
# ``str.strip()``, the engine's test) counts as whitespace. Not ``\\S``, which means something
# slightly different in JSON Schema's (ECMA-262) regular expressions.
_SPACE = "\\t\\n\\u000b\\u000c\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_NOT_BLANK = f"[^{_SPACE}]"
_NOT_BLANK_RE = re.compile(_NOT_BLANK)

# The URLs the API takes, in the contract: http(s), a host of ASCII labels (send an IDN host as
# punycode, xn--...), an optional port, then anything but spaces, control characters and <>".
# Every URL it matches canonicalises (index.urls; checked on thousands of generated URLs by
# tests/service/api/test_api_contract.py); the engine's own check still runs after it.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PORT = r"(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
URL_PATTERN = rf'^[Hh][Tt][Tt][Pp][Ss]?://{_LABEL}(?:\.{_LABEL})*\.?(?::{_PORT})?(?:[/?#][^\u0000-\u0020<>"]*)?$'
_URL_RE = re.compile(URL_PATTERN)


def _url(value: str | None) -> str | None:
    if value is None or _URL_RE.fullmatch(value):  # fullmatch: Python's $ would pass a final newline
        return value
    from index.urls import InvalidUrlError, UrlRules

    try:  # the canonicaliser's reason when it has one (scheme, host, credentials, ...)
        UrlRules().canonicalize(value)
    except InvalidUrlError as exc:
        raise ValueError(f"invalid url: {exc}") from None
    raise ValueError(f"invalid url: {value!r} is not an http(s) URL with an ASCII host name "
                     "(send an IDN host as punycode, xn--...; no spaces or control characters)")

StageName = Literal["url", "exact", "ngram", "minhash", "embedding", "none"]
StatusName = Literal["new", "reobserved", "new_version", "duplicate"]

_ARTICLE_EXAMPLE: JsonDict = {
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
    """One incoming item. At least one of ``title`` (or ``text`` in its place) and ``body`` must be
    non-blank; other fields are accepted and ignored, but one that spells an article field
    otherwise (``publishedAt``, ``Title``) is refused: the rule of ``samestory ingest`` and
    ``samestory batch`` too.

    The service never fetches ``url``: it is only canonicalised and used as the document key.
    """

    # One rule for every way in (service.types.Article.from_dict): unknown fields are ignored, so
    # a feed's line is accepted alike by HTTP, ingest and batch (which passes them through).
    model_config = ConfigDict(extra="ignore", json_schema_extra={
        "examples": [_ARTICLE_EXAMPLE],
        # The "title (or text) or body, with a letter or digit" rule of _not_empty, in the
        # contract: a body the schema accepts is one the service accepts (the same pattern as the
        # engine's check). ``text`` is read only when there is no ``title``.
        # A null field is an absent one (Article.from_dict), so each branch wants a string.
        "anyOf": [{"required": ["title"], "properties": {"title": {"type": "string", "pattern": WORD_CHAR_PATTERN}}},
                  {"required": ["body"], "properties": {"body": {"type": "string", "pattern": WORD_CHAR_PATTERN}}},
                  {"required": ["text"], "not": {"required": ["title"], "properties": {"title": {"type": "string"}}},
                   "properties": {"text": {"type": "string", "pattern": WORD_CHAR_PATTERN}}}],
        # _known_spellings: a misspelt article field is refused, any other extra field ignored.
        "propertyNames": {"not": {"pattern": misspelt_keys_pattern()}},
    })

    # title, body and channel are nullable like every other field: null is absent, as in a line
    # of `samestory ingest` or `batch` (docs/scale.md: a record is an article as api.md says).
    title: TitleText | None = Field(
        None, description="headline")
    text: TitleText | None = Field(
        None, description="the headline when there is no `title` (ignored when there is one)")
    body: BodyText | None = Field(
        None, description="article text (or its lead)")
    url: Annotated[str | None, AfterValidator(_url)] = Field(
        None, max_length=MAX_FIELD_CHARS, json_schema_extra={"pattern": URL_PATTERN},
        description="http(s) URL with an ASCII (or punycode) host; canonicalised, never fetched")
    source: FieldText | None = Field(
        None, description="publisher name or host")
    channel: FieldText | None = Field(
        None, description="collector channel (absent or null: `default`); documents are unique "
                          "per (channel, canonical URL)")
    published_at: datetime | None = Field(None, description="ISO-8601 time; naive times are UTC")
    lang: str | None = Field(None, max_length=MAX_FIELD_CHARS, pattern=LANG_TAG_PATTERN,
                             description="language tag such as ko, en or zh-Hant; detected when absent")
    id: FieldText | None = Field(
        None, description="caller's id, echoed in the result")

    @model_validator(mode="before")
    @classmethod
    def _known_spellings(cls, data: Any) -> Any:
        # Silently ignored, publishedAt would lose the time it carries (service.types.misspelt_key).
        problem = misspelt_key_problem(data) if isinstance(data, dict) else None
        if problem:
            raise ValueError(problem)
        return data

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
        if self.title is None and self.text is not None:
            self.title = self.text  # as Article.from_dict reads it
        title, body = self.title or "", self.body or ""
        if not _NOT_BLANK_RE.search(title) and not _NOT_BLANK_RE.search(body):
            raise ValueError("an article needs a non-empty title or body")
        if not has_word_chars(title) and not has_word_chars(body):
            raise ValueError(NO_WORDS)
        return self

    def to_article(self) -> Article:
        """The engine's Article (which re-validates; an ArticleError becomes a 422 in the router)."""
        return Article(title=self.title or "", body=self.body or "", url=self.url, source=self.source,
                       channel="default" if self.channel is None else self.channel,
                       published_at=self.published_at, lang=self.lang, id=self.id)


class GuardVerdictOut(BaseModel):
    guard: str = Field(description="the guard's name: version, quantity, date, subject, ...")
    blocked: bool = Field(description="True when the guard vetoed the merge (it is then in blocked_by)")
    decided: bool = Field(description="False when the guard found nothing to compare and stepped aside")
    evidence: str = Field("", description="what the guard compared and found, in words")


class _DecisionFields(BaseModel):
    # The fields of ``Decision.to_dict()``, in its order; each subclass narrows ``stage``.
    same: bool = Field(description="True: a copy of matched_id (ingest: joined its copy group, or the same URL "
                       "again; dedupe: dropped; compare: a and b are one); False: kept apart")
    stage: str = Field(description="the stage that settled the item")
    score: float | None = Field(description="that stage's similarity")
    reasons: list[str] = Field(description="human-readable evidence")
    blocked_by: list[str] = Field(description="guards that vetoed a merge (\"time\": published more than copy_gap_hours apart in other words; \"body\": the passage check; \"verifier\": the pair verifier)")
    matched_id: int | None = Field(description="what it copies: a document id (ingest) or an input position (dedupe); "
                                   "null when kept apart, and in POST /v1/compare")
    scores: dict[str, float] = Field(description="every stage score computed, for re-thresholding")
    guards: list[GuardVerdictOut] = Field(description="each guard's verdict on the pair it checked")


class DecisionOut(_DecisionFields):
    """Why an item was joined to another or kept apart (``service.types.Decision``)."""

    stage: StageName = Field(description="the stage that settled the item; \"none\" for an ingested or "
                             "deduplicated item that joined nothing")


class StoredDecisionOut(_DecisionFields):
    """A decision as the store keeps it with a membership or an observation: the engine's, or an
    editor's correction (stage ``editor``, with the membership it replaced in ``previous``)."""

    stage: StageName | Literal["editor"] = Field(description="the stage that settled the item, or editor")
    # Left out when absent (never null, hence SkipJsonSchema), so an engine's decision reads
    # exactly as ``Decision.to_dict()`` wrote it.
    previous: dict[str, Any] | SkipJsonSchema[None] = Field(
        None, exclude_if=lambda v: v is None, description="an editor's correction: the membership it replaced "
        "(its copy_group_id; cluster_id is a deprecated alias of it, removed in the next release)")

    @field_validator("previous", mode="before")
    @classmethod
    def _previous_copy_group(cls, value: Any) -> Any:
        # Corrections stored the replaced membership's group as ``cluster_id``; answers name it first by its name.
        if isinstance(value, dict) and "cluster_id" in value and "copy_group_id" not in value:
            return {"copy_group_id": value["cluster_id"], **value}
        return value


class IngestResultOut(_CopyGroupAlias):
    """What ingesting one article did (``service.types.IngestResult.to_dict()``)."""

    id: str | None = Field(description="the caller's id, echoed")
    observation_id: int
    document_id: int
    version_id: int
    copy_group_id: int = Field(description="the copy group (the same report again): GET /v1/copy-groups/{id}")
    cluster_id: int = deprecated_alias()
    matched_copy: int | None = Field(None, description="the document the item was matched with (null: new group)")
    story_id: int | None = Field(None, description="the story (same event) the copy group is in: GET /v1/stories/{id}")
    representative_id: int
    status: StatusName
    duplicate_of: int | None = Field(description="status duplicate: the copy group's representative when the item "
                                                 "joined (matched_copy is the document it matched); else null")
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

    a: ArticleIn = Field(description="the first article")
    b: ArticleIn = Field(description="the second article")
    all_scores: StrictBool = Field(True, description="compute every stage's score, not only the deciding one")


def _clean_values(value: Any, where: str) -> None:
    """Refuse a lone surrogate anywhere in a record: it comes back in the answer, and UTF-8 cannot
    carry it. A NUL can (as \\u0000) and is nothing the service stores, so other fields keep it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{where}: contains a lone surrogate: not Unicode text") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _clean_values(k, where)
            _clean_values(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _clean_values(v, f"{where}[{i}]")


class DedupeRecord(BaseModel):
    """A record to filter: its text in ``text``; every other field comes back untouched."""

    model_config = ConfigDict(extra="allow")

    text: Text = Field(max_length=MAX_BODY_CHARS, description="the text the decision reads")
    lang: str | None = Field(None, max_length=MAX_FIELD_CHARS, pattern=LANG_TAG_PATTERN,
                             description="language tag such as ko, en or zh-Hant; detected from the text when absent")

    @model_validator(mode="after")
    def _clean_extra(self) -> DedupeRecord:
        for k, v in (self.model_extra or {}).items():
            _clean_values(k, "record field name")
            _clean_values(v, k)
        return self


class DedupeRequest(BaseModel):
    """Texts or records (not both) to filter; nothing is stored."""

    # "texts or records, not both" is in the schema (oneOf), not only in the validator below.
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "oneOf": [{"required": ["texts"]}, {"required": ["records"]}],
        "examples": [
            {"texts": ["Fed raises rates by 25bp. Markets rallied.", "fed raises rates by 25bp.\nMarkets rallied.",
                       "ECB holds rates. Bond yields fell."]},
            {"records": [{"text": "Fed raises rates by 25bp. Markets rallied.", "id": "doc-1#0", "score": 0.82},
                         {"text": "(Reuters) - Fed raises rates by 25bp. Markets rallied.", "id": "doc-7#3",
                          "score": 0.79}]},
            {"texts": ["Fed raises rates by 25bp", "The Fed raised rates by 25bp"], "kind": "headline",
             "threshold": 0.7},
        ]})

    # SkipJsonSchema[None]: absent is allowed, null is not (the schema says array, not array|null).
    # An empty list is a 200 with an empty result, as Deduper.dedupe([]) and the CLI on an empty
    # file: a RAG pipeline whose retrieval found nothing is no client error.
    texts: list[Annotated[str, Field(max_length=MAX_BODY_CHARS), AfterValidator(_clean),
                          Field(json_schema_extra={"pattern": "^[^\\u0000]*$"})]] | SkipJsonSchema[
        None] = Field(None, description="e.g. retrieved RAG chunks")
    records: list[DedupeRecord] | SkipJsonSchema[None] = Field(
        None, description="records with their text in ``text``; kept and dropped records come back "
        "whole, other fields untouched")
    kind: Literal["passage", "headline"] = Field(
        "passage", description="passage: chunks and article bodies (sentence-aware; never drops a chunk with new "
        "content); headline: the headline cascade, as POST /v1/articles")
    threshold: float | None = Field(None, ge=0.0, le=1.0, description="embedding-stage threshold for this call "
                                    "(passage: sentence alignment score; headline: cosine)")

    @field_validator("threshold", mode="before")
    @classmethod
    def _a_number(cls, value: Any) -> Any:
        # The contract says number: pydantic alone would also take true and "0.5".
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError("threshold must be a number in [0, 1]")
        return value

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, data: Any) -> Any:
        # The schema says array: an explicit null is not "left out" (SkipJsonSchema only hides it).
        if isinstance(data, dict):
            for key in ("texts", "records"):
                if key in data and data[key] is None:
                    raise ValueError(f"{key} must be an array, not null (leave it out instead)")
        return data

    @model_validator(mode="after")
    def _texts_or_records(self) -> DedupeRequest:
        if self.texts is None and self.records is None:
            raise ValueError("give texts (strings) or records (objects with a text field): neither was sent")
        if self.texts is not None and self.records is not None:
            raise ValueError("give either texts or records, not both")
        return self

    @property
    def items(self) -> list[Any]:
        if self.texts is not None:
            return list(self.texts)
        # exclude_unset: a record comes back as given, without a "lang": null it did not send.
        return [r.model_dump(exclude_unset=True) for r in self.records or []]


class DroppedOut(BaseModel):
    """A dropped input: its position, the kept input it copies, and why."""

    index: int = Field(description="position in texts / records")
    duplicate_of: int = Field(description="position of the kept input it copies")
    stage: StageName = Field(description="the stage that found the copy")
    score: float | None = Field(description="that stage's similarity")
    reasons: list[str] = Field(description="human-readable evidence")
    record: Any = Field(description="the input text or record, as given")


class DedupeResponse(_CopyGroupAlias):
    ALIASES = (("copy_groups", "clusters"),)

    copy_groups: list[list[int]] = Field(description="input indices per copy group")
    clusters: list[list[int]] = deprecated_alias("copy_groups")
    keep: list[int] = Field(description="the index kept from each group (its first occurrence)")
    decisions: list[DecisionOut] = Field(description="one per input; matched_id is the input it copies")
    duplicate_of: list[int | None] = Field(description="per input: the kept input it copies, or null when kept")
    selected: list[Any] = Field(description="the kept texts or records, as given, in input order")
    dropped: list[DroppedOut] = Field(description="the dropped inputs with why")


# The answers about stored things (documents, copy groups, stories) are built from the store's
# row dataclasses (service.store.base) by ``from_row``: a model names the row fields it shows (a
# row's other fields stay out of the contract) and adds what is not in the row, and no view
# copies a row field by hand. DocumentOut shows every field of its row, so it extends the row.
# The row models carry their row's name in a comment, not a docstring (the OpenAPI description).
M = TypeVar("M", bound=BaseModel)


def from_row(model: type[M], row: Any, **more: Any) -> M:
    """``model`` validated from the fields of ``row`` (a store row dataclass) and ``more``."""
    return model.model_validate({**vars(row), **more})


# A ``VersionRow`` (without its document id).
class VersionOut(BaseModel):
    id: int
    content_hash: str
    title: str
    body: str
    lang: str
    created_at: UtcTime


# An ``ObservationRow`` (without its document id).
class ObservationOut(BaseModel):
    id: int
    version_id: int
    channel: str
    url: str | None
    source: str | None
    caller_id: str | None
    observed_at: UtcTime
    status: StatusName
    decision: StoredDecisionOut


class MembershipOut(_CopyGroupAlias):
    """How a document joined its copy group: the decision made when it was ingested (or an editor's)."""

    copy_group_id: int
    cluster_id: int = deprecated_alias()
    joined_at: UtcTime
    stage: str
    score: float | None
    matched_id: int | None
    decision: StoredDecisionOut


# A ``DocumentRow`` (every field, its ``cluster_id`` as ``copy_group_id``) with its membership,
# versions and observations.
class DocumentOut(_CopyGroupAlias):
    id: int
    channel: str
    doc_key: str | None = Field(description="canonical URL (or id:<caller id>) the document is unique by")
    url: str | None
    source: str | None
    copy_group_id: int | None = Field(description="the copy group the document is in (null: deleted before it joined one)")
    cluster_id: int | None = deprecated_alias()
    latest_version_id: int | None
    published_at: UtcTime | None
    first_seen: UtcTime
    deleted: bool
    erased_at: UtcTime | None = Field(None, description="when its texts, URLs, caller ids and vectors were erased")
    membership: MembershipOut | None
    versions: list[VersionOut]
    observations: list[ObservationOut]


class DeleteResponse(BaseModel):
    document_id: int
    deleted: bool
    erased: bool = Field(False, description="its texts, URLs, caller ids and vectors were erased (?erase=true)")
    new_representative_id: int | None = Field(
        None, description="set when the deleted document was its copy group's representative")


# A ``ClusterEventRow`` (without its copy group id).
class CopyGroupEventOut(BaseModel):
    id: int
    old_representative: int | None
    new_representative: int
    reason: str
    at: UtcTime


# A ``MembershipRow`` (without its copy group id) with the member's URL, source and latest title.
class CopyGroupMemberOut(BaseModel):
    document_id: int
    url: str | None
    source: str | None
    title: str | None
    joined_at: UtcTime
    stage: str
    score: float | None
    matched_id: int | None
    decision: StoredDecisionOut


class CopyGroupDetailOut(BaseModel):
    """A copy group (the same report again): its members, each with how it joined, and its representative."""

    id: int = Field(description="copy group id")
    representative_id: int | None = Field(description="null when the representative was deleted and no live "
                                                      "member took its place")
    representative_reason: str | None = Field(description="why the current representative was chosen (last event), "
                                                          "or why there is none")
    created_at: UtcTime
    updated_at: UtcTime
    members: list[CopyGroupMemberOut] = Field(description="live members, each with its membership decision")
    events: list[CopyGroupEventOut] = Field(description="representative changes, oldest first")


class CopyGroupSummaryOut(BaseModel):
    id: int = Field(description="copy group id")
    representative_id: int | None = Field(description="null when the representative was deleted and no live "
                                                      "member took its place")
    title: str | None = Field(description="the representative's latest title")
    size: int = Field(description="live members")
    created_at: UtcTime
    updated_at: UtcTime


class CopyGroupPage(_CopyGroupAlias):
    ALIASES = (("copy_groups", "clusters"),)

    copy_groups: list[CopyGroupSummaryOut] = Field(description="most recently updated first")
    clusters: list[CopyGroupSummaryOut] = deprecated_alias("copy_groups")
    limit: int
    offset: int
    next_offset: int | None = Field(description="offset of the next page, null on the last page")


class CopyGroupOut(BaseModel):
    """One copy group of a story: the same report again, shown by its representative."""

    id: int = Field(description="copy group id: GET /v1/copy-groups/{id} lists its members")
    representative_id: int
    title: str | None = Field(description="the representative's latest title")
    representative_reason: str | None = Field(description="why the representative is the one shown")
    size: int = Field(description="live members")
    languages: list[str]
    outlets: list[str]
    story_score: float | None = Field(description="story score when the group joined (null: it opened the story)")
    story_reason: str | None = Field(description="why the group is in this story")


class StoryFields(BaseModel):
    # What a story answer and the editors' StoryDetail (service.views) share; each adds its groups.
    id: int
    created_at: UtcTime
    updated_at: UtcTime
    languages: list[str]
    outlets: list[str]
    start: UtcTime | None = Field(description="earliest member time (published, else first seen)")
    end: UtcTime | None = Field(description="latest member time (published, else first seen)")


class StoryOut(StoryFields):
    title: str | None = Field(description="the story's title, as in GET /v1/stories")
    copy_groups: list[CopyGroupOut]


class StorySummaryOut(BaseModel):
    id: int
    title: str | None = Field(description="the earliest original outlet's headline as written (no all-capital "
                                          "headline while another exists), without an outlet suffix")
    copy_groups: int
    items: int
    created_at: UtcTime
    updated_at: UtcTime
    languages: list[str] = Field(description="the live members' languages")
    outlets: list[str] = Field(description="the live members' outlets (source, else URL host)")
    start: UtcTime | None = Field(description="earliest member time (published, else first seen)")
    end: UtcTime | None = Field(description="latest member time (published, else first seen)")


class StoryPage(BaseModel):
    stories: list[StorySummaryOut] = Field(description="most recently updated first")
    limit: int
    offset: int
    next_offset: int | None


class SettleMoveOut(BaseModel):
    copy_group_id: int
    from_story: int
    to_story: int
    score: float = Field(description="the story score of the decision that put the group there in the replay")


class CopySettleMoveOut(BaseModel):
    document_id: int
    from_copy_group: int
    to_copy_group: int
    stage: str = Field(description="the cascade stage that decided the item in the replay")
    score: float | None = Field(description="that stage's score (null for a stage without one)")


# A ``service.settle.CopySettleReport`` (its ``to_dict()``).
class CopySettleOut(BaseModel):
    items: int = Field(description="live items of the open window replayed through the cascade, by publication "
                                   "time (items without one after, by content hash)")
    held: int = Field(description="items of copy groups kept as they are (a member outside the open window, or "
                                  "older than `hours`), as context")
    groups_before: int = Field(description="the replayed items' copy groups before")
    groups_after: int = Field(description="and after")
    moved: int = Field(description="items now in another copy group")
    anchors: int = Field(description="copy groups whose anchor (the report they are compared through) changed")
    new_groups: int = Field(description="copy groups the settling opened")
    embedded: int = Field(description="items embedded for the replay (copies a cheap stage had settled)")
    seconds: float
    skipped: str | None = Field(description="why nothing was done, else null")
    moves: list[CopySettleMoveOut]
    corrected: int = Field(description="editors' corrections honoured: the copy groups they name held as they are")


# A ``service.settle.SettleReport`` (its ``to_dict()``).
class SettleOut(BaseModel):
    items: int = Field(description="live items of the open stories replayed")
    untimed: int = Field(description="of those, the items without a publication time (replayed after the timed "
                                     "ones, copy group by copy group in content-hash order)")
    held: int = Field(description="items of copy groups older than `hours` or pinned by editors' corrections, "
                                  "kept where they are as context")
    groups: int = Field(description="copy groups replayed")
    stories_before: int
    stories_after: int
    moved: int = Field(description="copy groups whose story changed")
    new_stories: int = Field(description="stories the settling opened")
    embedded: int = Field(description="items embedded for their story vector (copies a cheap stage had settled)")
    seconds: float = Field(description="both levels together")
    skipped: str | None = Field(description="why nothing was done, else null")
    moves: list[SettleMoveOut]
    corrected: int = Field(description="editors' corrections honoured: the copy groups they name and the groups "
                                       "of the stories they split or merged held where they are (must-link, "
                                       "cannot-link)")
    copies: CopySettleOut | None = Field(description="the copy level's part, settled first (null with "
                                                     "`copies=false`: the copy groups as they streamed)")


# A ``service.corrections.Correction`` (its ``to_dict()``).
class WithdrawalOut(BaseModel):
    who: str = Field(description="the name of the API key that withdrew the correction")
    at: str = Field(description="when, ISO 8601 UTC", json_schema_extra={"format": "date-time"})
    note: str | None


class CorrectionOut(BaseModel):
    id: int
    kind: str
    doc_a: int = Field(description="first document of the labelled pair the correction stands for")
    doc_b: int
    story_from: int | None = Field(description="the story the change left (split, merge)")
    story_to: int | None = Field(description="the story it went to")
    who: str = Field(description="the name of the API key that made it")
    at: str = Field(description="when, ISO 8601 UTC", json_schema_extra={"format": "date-time"})
    note: str | None
    label: int = Field(description="1: the pair is the same story, 0: it is not")
    withdrawn: WithdrawalOut | None = Field(None, description="who withdrew it (undo) and when; null: in force")


class Health(BaseModel):
    status: Literal["ok"]
    model: str | None
    guards: bool
    store: str = Field(description="store kind: sqlite or postgresql")
