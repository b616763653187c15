"""The engine under test: samestory's own decisions, through its public API only.

The harness never re-implements samestory: pair verdicts come from ``Deduper.compare_pairs``
(the same decision as ``samestory compare``: cascade and guards), cluster labels from
``Deduper.ingest`` into a fresh in-memory store.

Eval texts become articles as follows: a text of at most ``MAX_TITLE_CHARS`` characters is the
title (every sentence, headline and question set); a longer one (NTREX whole articles) keeps
its first line, which is the article's headline, as the title and the whole text as the body,
because an article cannot carry a longer title.

One embedder object is loaded per run and wrapped in :class:`CachedEmbedder`, so samestory
(with and without guards) and the embed-everything baseline embed each distinct text once.
The vector of a text does not depend on what else is in the batch, so the cache changes
run time, not results.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np

from eval.data import ClusterItem, Pair, Side
from service.types import MAX_BODY_CHARS, MAX_TITLE_CHARS, Article, IngestResult

if TYPE_CHECKING:
    from service.engine import Deduper
    from service.settle import SettleReport


class CachedEmbedder:
    """An embedder that remembers every text's vector (``models.base.Embedder`` protocol)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name: str = getattr(inner, "name", type(inner).__name__)
        self.dim: int = int(getattr(inner, "dim", 0))
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        texts = list(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vecs = np.asarray(self.inner.encode(missing, **kwargs), dtype=np.float32)
            self._cache.update(zip(missing, vecs, strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


_LOADED: dict[str, CachedEmbedder] = {}


def load_embedder(model: str = "use") -> CachedEmbedder:
    """samestory's embedder (``models.registry.load_embedder``), cached per process.

    Falls back to ``models.use.USEEmbedder`` (the class the registry returns for "use") only
    where the registry module is not present.
    """
    if model not in _LOADED:
        try:
            from models.registry import load_embedder as registry_load
        except ImportError:
            if model != "use":
                raise
            from models.use import USEEmbedder

            inner: Any = USEEmbedder()
        else:
            inner = registry_load(model)
        _LOADED[model] = CachedEmbedder(inner)
    return _LOADED[model]


# An article written out as one text: a headline line of at most HEADLINE_CHARS characters over
# at least two more lines (NTREX's whole articles, in both languages: the first line of each is
# its headline). A Korean article is often shorter than MAX_TITLE_CHARS, and was read as one
# 1,500-character title before, so it had no body for the guards, the body check and the story
# evidence to read while its English source had one. 120 covers every NTREX dev headline; a
# sentence chunk (rag-chunks-ntrex) whose first line is longer stays one title.
HEADLINE_CHARS = 120


def _is_article(text: str) -> bool:
    """Whether ``text`` is a headline line over a body of two or more lines.

    >>> _is_article("Fed raises rates\\nThe Fed raised rates by a quarter point.\\nMarkets fell.")
    True
    >>> _is_article("Fed raises rates\\nMarkets fell.")
    False
    """
    lines = [line.strip() for line in text.strip().split("\n") if line.strip()]
    return len(lines) >= 3 and len(lines[0]) <= HEADLINE_CHARS


def to_article(side: Side, source: str | None = None, id: str | None = None) -> Article:
    """The article the engine sees for one eval text.

    >>> to_article(Side("연준 금리 인상", "ko")).title
    '연준 금리 인상'
    >>> a = to_article(Side("Headline\\n" + "x" * 3000, "en")); (a.title, len(a.body))
    ('Headline', 3009)
    """
    text = side.text
    if len(text) <= MAX_TITLE_CHARS and not _is_article(text):
        return Article(title=text, lang=side.lang, source=source, id=id)
    first = text.strip().split("\n", 1)[0].strip()[:MAX_TITLE_CHARS]
    return Article(title=first, body=text[:MAX_BODY_CHARS], lang=side.lang, source=source, id=id)


def make_config(overrides: dict[str, float] | None = None) -> Any:
    """The engine's default ``EngineConfig`` with ``overrides`` (threshold sweeps) applied."""
    from service.config import EngineConfig

    config = EngineConfig.load()  # honours SAMESTORY_* env and defaults
    return config.replace(**overrides) if overrides else config


@contextmanager
def open_engine(guards: bool = True, model: str = "use", overrides: dict[str, float] | None = None
                ) -> Iterator[Any]:
    """A fresh in-memory engine, closed on exit."""
    from service.engine import Deduper, guards_on

    d = Deduper.open(":memory:", model=load_embedder(model), guards=guards_on(guards), config=make_config(overrides))
    try:
        yield d
    finally:
        d.close()


def compare_pairs(pairs: Sequence[Pair], guards: bool = True, model: str = "use",
                  overrides: dict[str, float] | None = None, progress: bool = False) -> list[Any]:
    """``Decision`` for every pair, every stage's score computed (``all_scores=True``)."""
    articles = [(to_article(p.a), to_article(p.b)) for p in pairs]
    with open_engine(guards=guards, model=model, overrides=overrides) as d:
        return list(d.compare_pairs(articles, progress=progress, all_scores=True))


def item_time(it: ClusterItem) -> datetime | None:
    """A cluster item's publication time: ``meta.timestamp`` (epoch ms or s) or ``meta.published_at``
    / ``published_at`` (epoch s or ISO 8601); None when it has none.

    >>> item_time(ClusterItem("1", "g", "x", "en", meta={"timestamp": 1394470370698})).isoformat()
    '2014-03-10T16:52:50.698000+00:00'
    >>> item_time(ClusterItem("1", "g", "x", "en")) is None
    True
    """
    meta = it.meta or {}
    for value in (meta.get("timestamp"), meta.get("published_at")):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return datetime.fromtimestamp(value / 1000.0 if value > 1e11 else float(value), tz=timezone.utc)
        if isinstance(value, str) and value:
            try:
                t = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
    return None


def ingest_clusters(items: Sequence[ClusterItem], guards: bool = True, model: str = "use",
                    overrides: dict[str, float] | None = None, progress: bool = False,
                    level: str = "copy", settle: bool = False) -> list[int]:
    """Ingest the items in file order into a fresh store, each with its time when it has one;
    the engine's copy group (``level="copy"``) or story (``"story"``, as the store holds it at
    the end; ``settle``: once settled) id of each."""
    if level not in ("copy", "story"):
        raise ValueError(f"level must be 'copy' or 'story', got {level!r}")
    copy, story = ingest_levels(items, guards, model, overrides, progress, settle=settle)
    return copy if level == "copy" else story


def cluster_articles(items: Sequence[ClusterItem]) -> list[Article]:
    """The article the engine sees for each cluster item, with its time when it has one."""
    articles = []
    for it in items:
        a = to_article(Side(it.text, it.lang), source=it.source, id=it.id)
        t = item_time(it)
        articles.append(a if t is None else replace(a, published_at=t))
    return articles


def ingest_levels(items: Sequence[ClusterItem], guards: bool = True, model: str = "use",
                  overrides: dict[str, float] | None = None, progress: bool = False,
                  settle: bool = False) -> tuple[list[int], list[int]]:
    """One ingest of the items in the given order (``ingest_clusters``): each item's copy group and
    its story as the store holds them once the feed is in (``settle``: and then settled,
    ``Deduper.settle``)."""
    lv = ingest_stories(items, guards, model, overrides, progress, settle=settle)
    return (lv.settled_copy, lv.settled_story) if settle else (lv.copy, lv.story)


@dataclass(frozen=True)
class Levels:
    """One ingest's labels, one per item: its copy group and story once the feed is in, and once
    settled (``Deduper.settle``; without settling, the same lists again)."""

    copy: list[int]
    story: list[int]
    settled_copy: list[int]
    settled_story: list[int]
    ingest_seconds: float = 0.0
    settled: SettleReport | None = None  # the settling's report (None: not settled)


def ingest_stories(items: Sequence[ClusterItem], guards: bool = True, model: str = "use",
                   overrides: dict[str, float] | None = None, progress: bool = False, *,
                   settle: bool = True, settle_hours: float | None = None) -> Levels:
    """One ingest of the items in the given order, both levels as streamed and (``settle``) once
    settled (``settle_hours``: ``Deduper.settle(hours=...)``)."""
    articles = cluster_articles(items)
    from service.recorder import stored_groups

    with open_engine(guards=guards, model=model, overrides=overrides) as d:
        started = time.perf_counter()
        results = d.ingest_many(articles, progress=progress)
        seconds = time.perf_counter() - started
        copy, story = stored_groups(d.store, results), _stories_of(d, results)
        if not settle:
            return Levels(copy, story, copy, story, seconds)
        report = d.settle(hours=settle_hours, progress=progress)
        return Levels(copy, story, stored_groups(d.store, results), _stories_of(d, results), seconds, report)


def _stories_of(d: Deduper, results: Sequence[IngestResult]) -> list[int]:
    """Each result's story as the store holds it now (``service.recorder.stored_stories``); every
    copy group of an eval ingest is in a story."""
    from service.recorder import stored_stories

    out: list[int] = []
    for r, sid in zip(results, stored_stories(d.store, results), strict=True):
        if sid is None:
            raise RuntimeError(f"copy group {r.cluster_id} is in no story")
        out.append(sid)
    return out


def ingest_units(items: Sequence[ClusterItem], model: str = "use",
                 overrides: dict[str, float] | None = None) -> tuple[list[int], list[bool]]:
    """Ingest the items in the given order into a fresh store, as ``ingest_clusters`` does; each
    item's copy group, and whether its story evidence carried a vector (the engine embeds no item
    a cheap stage settled as a copy, so such an item adds no vector to its story).

    The story calibration (``eval.stories``) replays its story decisions over these copy groups:
    the units the engine's story level places, instead of every item on its own."""
    articles = cluster_articles(items)
    with open_engine(guards=True, model=model, overrides=overrides) as d:
        results = d.ingest_many(articles)
        versions = [r.version_id for r in results]
        name = d.ctx.model_name or ""
        stored = set(d.store.load_vectors(versions, name)) | set(d.store.load_vectors(versions, f"{name}#story"))
        return [int(r.cluster_id) for r in results], [v in stored for v in versions]
