"""The engine's typed contract: what goes in (Article) and what comes out (Decision, IngestResult).

These dataclasses are the shapes the CLI prints as JSON and the HTTP API serves; the pydantic
models in ``service.api.schemas`` mirror them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

from index.text import detect_lang, has_word_chars

# Stages in cascade order, cheapest first. A stage that settles an item means later stages
# never see it.
STAGES = ("url", "exact", "ngram", "minhash", "embedding")
StageName = Literal["url", "exact", "ngram", "minhash", "embedding", "none"]
Status = Literal["new", "reobserved", "new_version", "duplicate"]

# Bounds on what one article may carry. A 10 MB title is a client bug, not a headline.
MAX_TITLE_CHARS = 2_000
MAX_BODY_CHARS = 200_000
MAX_FIELD_CHARS = 2_048


# A language tag the guards accept (service.guards.base uses the same expression): "ko", "en",
# "ko-KR", "zh_Hant". Anything else ("ö", "en us") is refused up front instead of failing in a guard.
LANG_TAG_PATTERN = r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$"
_LANG_TAG_RE = re.compile(LANG_TAG_PATTERN)


def lang_tag_problem(value: object) -> str | None:
    """Why ``value`` is not a language tag, or None.

    >>> lang_tag_problem("ko-KR"), lang_tag_problem("korean")
    (None, "must be a language tag such as 'ko', 'en' or 'zh-Hant', got 'korean'")
    """
    if isinstance(value, str) and _LANG_TAG_RE.fullmatch(value):
        return None
    return f"must be a language tag such as 'ko', 'en' or 'zh-Hant', got {value!r}"


def text_problem(text: str) -> str | None:
    r"""Why ``text`` cannot be stored, or None: a NUL (PostgreSQL refuses it) or a lone surrogate
    (not Unicode; no store or encoder takes it).

    >>> text_problem("ok"), text_problem("a" + chr(0) + "b"), text_problem(chr(0xD800))
    (None, 'contains a NUL character (\\u0000) at position 1', 'contains a lone surrogate (\\ud800) at position 0')
    """
    nul = text.find("\x00")
    if nul >= 0:
        return f"contains a NUL character (\\u0000) at position {nul}"
    if _has_surrogates(text):
        at = next(i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff")
        return f"contains a lone surrogate (\\u{ord(text[at]):04x}) at position {at}"
    return None


# The one message for an article with no letter or digit (the API's validation says the same).
NO_WORDS = "an article needs a letter or digit in its title or body, not only punctuation, symbols or spaces"


class ArticleError(ValueError):
    """An article that cannot be ingested; the message says which field and why."""


# The names an article's JSON object is read by (Article.from_dict, HTTP's ArticleIn): its fields,
# and ``text``, which stands for a missing title.
ARTICLE_KEYS = ("title", "body", "url", "source", "channel", "published_at", "lang", "id", "text")


def _plain(name: str) -> str:
    return name.replace("_", "").replace("-", "").casefold()


_KEY_OF_PLAIN = {_plain(k): k for k in ARTICLE_KEYS}


def misspelt_key(name: str) -> str | None:
    """The article key ``name`` spells other than as the key (case, ``_`` and ``-`` aside), or None.

    Fields that are not an article's are accepted and ignored (feeds carry their own), but one
    that is an article's, spelt differently, would lose what the sender meant silently.

    >>> misspelt_key("publishedAt"), misspelt_key("URL"), misspelt_key("published_at"), misspelt_key("colour")
    ('published_at', 'url', None, None)
    """
    key = _KEY_OF_PLAIN.get(_plain(name)) if isinstance(name, str) else None
    return key if key is not None and key != name else None


def misspelt_key_problem(data: dict[str, Any]) -> str | None:
    """The message refusing the first key of ``data`` that is a misspelt article key, or None."""
    for name in data:
        key = misspelt_key(name)
        if key is not None:
            return f"unknown field {name!r}: did you mean {key!r}?"
    return None


def misspelt_keys_pattern() -> str:
    """A regular expression (a JSON Schema ``pattern``) that matches the names :func:`misspelt_key`
    refuses, for the OpenAPI description's ``propertyNames``.

    >>> import re; [bool(re.match(misspelt_keys_pattern(), k)) for k in ("Published-At", "published_at", "x")]
    [True, False, False]
    """
    def spelling(key: str) -> str:
        letters = [f"[{c}{c.upper()}]" if c.isalpha() else c for c in key.replace("_", "")]
        return "[-_]*" + "[-_]*".join(letters) + "[-_]*"
    return f"^(?!(?:{'|'.join(ARTICLE_KEYS)})$)(?:{'|'.join(spelling(k) for k in ARTICLE_KEYS)})$"


@dataclass(frozen=True)
class Article:
    """One incoming item.

    >>> Article(title="연준, 기준금리 0.25%p 인상").lang
    'ko'
    >>> Article(title="", body="")
    Traceback (most recent call last):
    ...
    service.types.ArticleError: an article needs a non-empty title or body
    """

    title: str = ""
    body: str = ""
    url: str | None = None
    source: str | None = None
    channel: str = "default"
    published_at: datetime | None = None
    lang: str | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        for name in ("title", "body"):
            value = getattr(self, name)
            if value is None:
                object.__setattr__(self, name, "")
            elif not isinstance(value, str):
                raise ArticleError(f"{name} must be a string, got {type(value).__name__}")
        for name in ("url", "source", "channel", "lang", "id"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ArticleError(f"{name} must be a string, got {type(value).__name__}")
            if value is not None and len(value) > MAX_FIELD_CHARS:
                raise ArticleError(f"{name} is {len(value)} characters; the limit is {MAX_FIELD_CHARS}")
            problem = text_problem(value) if value is not None else None
            if problem:
                raise ArticleError(f"{name} {problem}")
        if self.lang is not None and lang_tag_problem(self.lang):
            raise ArticleError(f"lang {lang_tag_problem(self.lang)}")
        if not self.title.strip() and not self.body.strip():
            raise ArticleError("an article needs a non-empty title or body")
        if not has_word_chars(self.title) and not has_word_chars(self.body):
            # "...!!!" or two zero-width spaces say nothing; stored, every such item would be a copy of the others.
            raise ArticleError(NO_WORDS)
        if len(self.title) > MAX_TITLE_CHARS:
            raise ArticleError(f"title is {len(self.title)} characters; the limit is {MAX_TITLE_CHARS}")
        if len(self.body) > MAX_BODY_CHARS:
            raise ArticleError(f"body is {len(self.body)} characters; the limit is {MAX_BODY_CHARS}")
        for name in ("title", "body"):
            if "\ufffd" in getattr(self, name) or _has_surrogates(getattr(self, name)):
                raise ArticleError(f"{name} is not valid UTF-8 text (replacement or surrogate characters)")
            if "\x00" in getattr(self, name):
                raise ArticleError(f"{name} {text_problem(getattr(self, name))}")
        if not self.channel or not self.channel.strip():
            object.__setattr__(self, "channel", "default")
        if self.published_at is not None:
            if isinstance(self.published_at, str):
                object.__setattr__(self, "published_at", parse_time(self.published_at))
            elif not isinstance(self.published_at, datetime):
                raise ArticleError("published_at must be an ISO-8601 string or datetime")
            elif self.published_at.tzinfo is None:
                object.__setattr__(self, "published_at", self.published_at.replace(tzinfo=timezone.utc))
        if self.lang is None:
            object.__setattr__(self, "lang", detect_lang(self.title or self.body))

    @property
    def headline(self) -> str:
        """The title, or the body's start when there is no title."""
        return self.title.strip() or self.body.strip()[:200]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Article:
        """Build from a JSON object (a line of ``samestory ingest`` or ``samestory batch``, a row of
        a Parquet file) by the rule of every way in, HTTP's ``ArticleIn`` included: a non-empty
        ``title`` or ``body`` is required, and fields that are not an article's are accepted and
        ignored (batch passes them through to its output), but a field that spells an article's
        otherwise (``publishedAt``, ``Title``: :func:`misspelt_key`) is refused. ``text`` stands
        for a missing title (eval-data records); a null field is an absent one.

        >>> Article.from_dict({"body": "연준 금리 인상", "score": 0.8}).body
        '연준 금리 인상'
        """
        if not isinstance(data, dict):
            raise ArticleError(f"an article must be a JSON object, got {type(data).__name__}")
        problem = misspelt_key_problem(data)
        if problem:
            raise ArticleError(problem)
        fields = {k: v for k, v in data.items() if v is not None}
        if "title" not in fields and "text" in fields:
            fields["title"] = fields["text"]
        return cls(**{f.name: fields[f.name] for f in dataclasses.fields(cls) if f.name in fields})

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["published_at"] = self.published_at.isoformat() if self.published_at else None
        return out


def json_kind(value: Any) -> str:
    """A parsed JSON value's kind in JSON's words: a reader of JSON knows null and arrays, not
    Python's ``NoneType`` and ``list``.

    >>> json_kind(None), json_kind([1]), json_kind(3), json_kind(True), json_kind("x"), json_kind({})
    ('null', 'an array', 'a number', 'a boolean', 'a string', 'an object')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):  # before int: bool is an int subclass
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def utc_iso(t: float | None) -> str | None:
    """Epoch seconds as the ISO 8601 UTC string every JSON answer gives a time as (HTTP, the CLI's
    ``--json``, the pages' data): a ``Z``, and milliseconds only when the time has a fraction.

    >>> utc_iso(1764202200.0), utc_iso(1764202200.25), utc_iso(None)
    ('2025-11-27T00:10:00Z', '2025-11-27T00:10:00.250Z', None)
    """
    if t is None:
        return None
    spec = "seconds" if float(t).is_integer() else "milliseconds"
    return datetime.fromtimestamp(t, tz=timezone.utc).isoformat(timespec=spec).replace("+00:00", "Z")


def parse_time(value: str) -> datetime:
    """Parse ISO-8601 (a trailing Z allowed); naive times are taken as UTC."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (ValueError, AttributeError) as exc:
        raise ArticleError(f"published_at is not ISO-8601: {value!r}") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class GuardVerdict:
    """One guard's say on one proposed merge.

    ``decided`` is False when the guard found nothing to compare and stepped aside
    (seed 000: "the gate blocks when present and steps aside when absent").
    """

    guard: str
    blocked: bool
    decided: bool
    evidence: str = ""
    # A veto the pair verifier decides instead when it is on: a who/where clash across scripts
    # between names no gazetteer or alias table knows, spelt alike (Jeju / 제주항공, K-pop / K), which
    # the slot guard can only guess at and the verifier reads (Cascade.vet; research/notes/verifier.md).
    soft: bool = False
    # How many names (people, organisations, places read as actors), figures with their units and
    # model numbers the guard matched across the two sides: what lets the verifier read a
    # Korean-English pair whose cosine is below its floor (Cascade.anchored_band). Not serialised.
    anchors: int = 0

    def to_dict(self) -> dict[str, Any]:
        # Spelled out: dataclasses.asdict deep-copies field by field, and every ingested item
        # serialises five or six of these.
        return {"guard": self.guard, "blocked": self.blocked, "decided": self.decided, "evidence": self.evidence}


@dataclass
class Decision:
    """Why an item was joined to another or kept apart.

    ``stage`` is the stage that settled the item, ``score`` that stage's similarity,
    ``reasons`` human-readable evidence, ``blocked_by`` the guards that vetoed a merge.
    ``scores`` holds every stage score that was computed, so callers can re-threshold.
    """

    same: bool
    stage: StageName
    score: float | None = None
    reasons: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)
    matched_id: int | None = None
    scores: dict[str, float] = field(default_factory=dict)
    guards: list[GuardVerdict] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "same": self.same,
            "stage": self.stage,
            "score": None if self.score is None else round(float(self.score), 6),
            "reasons": list(self.reasons),
            "blocked_by": list(self.blocked_by),
            "matched_id": self.matched_id,
            "scores": {k: round(float(v), 6) for k, v in self.scores.items()},
            "guards": [g.to_dict() for g in self.guards],
        }


class RepeatedIdWarning(UserWarning):
    """``Deduper.ingest_many`` was given records that repeat an ``id`` (``duplicate_id_warning``)."""


def duplicate_id_warning(articles: Iterable[Article]) -> str | None:
    """The one warning ``samestory ingest`` and ``batch`` give when records repeat an ``id``, or
    None when none does: how many records repeat an earlier one's id, the first id repeated, and
    what the repeat does. Not an error, and nothing is lost: a record with a ``url`` only echoes
    its id; a record without one is keyed by it (``CopyLevel.doc_key``), so the same (channel, id)
    again is that document again (re-observed, or a new version when its text differs) rather
    than a document of its own, which is what a caller joining results back by ``id`` must know.

    >>> a = [Article(title="t1", id="a"), Article(title="t2", id="b", url="https://x.example/1"),
    ...      Article(title="t3", id="a"), Article(title="t4", id="b", url="https://x.example/2"), Article(title="t5")]
    >>> duplicate_id_warning(a)
    "warning: 2 records repeat an earlier record's id (the first: 'a'); 1 has no url, so the id names its document: the earlier record's document again (a new version if the text differs), not a new one"
    >>> duplicate_id_warning(a[1:4:2])
    "warning: 1 record repeats an earlier record's id (the first: 'b'); the id is only echoed back for these"
    >>> duplicate_id_warning(a[:2]) is None
    True
    """
    seen: set[str] = set()
    keyed_seen: set[tuple[str, str]] = set()  # (channel, id) of records keyed by their id
    repeats = keyed = 0
    first: str | None = None
    for a in articles:
        if a.id is None:
            continue
        if a.id in seen:
            repeats += 1
            first = a.id if first is None else first
        seen.add(a.id)
        if not a.url:
            keyed += (a.channel, a.id) in keyed_seen
            keyed_seen.add((a.channel, a.id))
    if not repeats:
        return None
    what = "1 record repeats" if repeats == 1 else f"{repeats} records repeat"
    head = f"warning: {what} an earlier record's id (the first: {first!r})"
    if not keyed:
        return f"{head}; the id is only echoed back for these"
    return (f"{head}; {keyed} {'has' if keyed == 1 else 'have'} no url, so the id names "
            f"{'its' if keyed == 1 else 'their'} document: the earlier record's document again (a new version "
            "if the text differs), not a new one")


def matched_stage(status: str, stage: StageName) -> StageName:
    """The stage that joined an item to what was stored, or ``"none"`` for a new item: no stage
    matched, and a new item's decision ``stage`` is only the last stage the cascade ran
    (``embedding``, or ``minhash`` without a model) or the stage of a merge a guard vetoed, which is
    no merge. ``"none"`` is the passage kind's word for a kept chunk and a value of the API's
    ``StageName``. One rule for every ``stage`` a user reads: the ingest CLI's lines and JSON,
    ``POST /v1/articles``, ``/metrics``, batch's rows and summary, the headline kind of dedupe.

    >>> matched_stage("duplicate", "exact"), matched_stage("reobserved", "url"), matched_stage("new", "embedding")
    ('exact', 'url', 'none')
    """
    return "none" if status == "new" else stage


@dataclass
class IngestResult:
    """What ingesting one article did. Also the JSON line ``samestory ingest --json`` prints."""

    observation_id: int
    document_id: int
    version_id: int
    copy_group_id: int
    representative_id: int
    status: Status
    duplicate_of: int | None
    decision: Decision
    id: str | None = None
    # Issue 17: the story (event level) the item's copy group is in, and the copy it matched.
    story_id: int | None = None
    matched_copy: int | None = None

    @property
    def cluster_id(self) -> int:
        """Deprecated alias of :attr:`copy_group_id` (the copy group's first name); removed in the next release."""
        return self.copy_group_id

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "observation_id": self.observation_id,
            "document_id": self.document_id,
            "version_id": self.version_id,
            "copy_group_id": self.copy_group_id,
            "cluster_id": self.copy_group_id,  # deprecated alias, removed in the next release
            "matched_copy": self.matched_copy,
            "story_id": self.story_id,
            "representative_id": self.representative_id,
            "status": self.status,
            "duplicate_of": self.duplicate_of,
            # a new item's stage is "none" (matched_stage), as in batch rows and dedupe; its score,
            # reasons and blocked_by still say what the stages saw
            "decision": {**self.decision.to_dict(), "stage": matched_stage(self.status, self.decision.stage)},
        }
