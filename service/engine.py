"""The samestory engine: one object that owns the store, the candidate state and the cascade.

>>> d = Deduper.open(":memory:", model=None)          # cheap passes only, no embedder
>>> d.ingest(Article(title="FED RAISES RATES", url="https://a.example/1")).status
'new'
>>> r = d.ingest(Article(title="Fed raises rates", url="https://b.example/2"))
>>> (r.status, r.decision.stage)
('duplicate', 'exact')
>>> d.close()
"""

from __future__ import annotations

import enum
import functools
import numbers
import time as _time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from tqdm import tqdm

from index.urls import UrlRules
from models.base import Embedder
from service.config import EngineConfig
from service.context import EngineContext
from service.copy_level import CopyLevel
from service.deletion import Deletion
from service.recorder import Recorder
from service.settle import CopySettleReport, SettleReport
from service.settling import Settling
from service.stateless import DedupeResult, compare_pairs, dedupe_headlines
from service.store import Store, open_store
from service.story_level import StoryLevel
from service.types import (
    Article,
    ArticleError,
    Decision,
    IngestResult,
    RepeatedIdWarning,
    duplicate_id_warning,
)

if TYPE_CHECKING:
    from models.verifier import PairVerifierLike
    from service.guards import GuardSet
    from service.passages import PassageDedupeResult

__all__ = ["DEFAULT_GUARDS", "DedupeResult", "Deduper", "GuardsArg", "guards_on", "resolve_guards"]


class _Default(enum.Enum):
    GUARDS = "the shipped guard set"


DEFAULT_GUARDS: Final = _Default.GUARDS
"""``guards=DEFAULT_GUARDS``: the shipped guard set, ``GuardSet.default()``, built when the engine
is (loading the rules costs ~0.25 s, so it is not built at import)."""

GuardsArg: TypeAlias = "GuardSet | Literal[_Default.GUARDS] | None"


def resolve_guards(guards: GuardsArg) -> GuardSet | None:
    """The guard set an engine runs: ``DEFAULT_GUARDS`` -> ``GuardSet.default()``; None: guards off.

    ``True``/``False`` were accepted before; they are refused with the spelling to use, rather
    than read as a guard set.
    """
    if isinstance(guards, bool):
        raise TypeError(f"guards must be a GuardSet, DEFAULT_GUARDS or None, not {guards!r} "
                        f"(guards=True is DEFAULT_GUARDS, guards=False is None)")
    if guards is DEFAULT_GUARDS:
        from service.guards import GuardSet

        return GuardSet.default()
    return guards


def guards_on(on: bool) -> GuardsArg:
    """A command-line switch (``--no-guards``, ``SAMESTORY_GUARDS``) as the ``guards`` argument."""
    return DEFAULT_GUARDS if on else None


class Deduper:
    """Decides, for each incoming item, whether it copies something already seen.

    Use :meth:`open` rather than the constructor. The embedder is any ``models.base.Embedder``
    (``encode(texts) -> float32 (n, dim)`` L2-normalised rows, ``dim`` and ``name``);
    ``embedder=None`` runs the cheap passes only. ``guards`` is a ``GuardSet``, None (off), or
    ``DEFAULT_GUARDS``.

    The engine is composed: the ``cascade`` decides (``ctx.cascade``, ``service.cascade``, its
    stages in ``service.stages``), the candidate state is searched, and ``restart``
    (``service.restart.StateRestart``) keeps that state across restarts and in step with other
    writers; the passage path (``ctx.passages``) and the story level (``story_level``) sit beside them.

    This class is a facade: the work is done by collaborators sharing one ``EngineContext``
    (``ctx``): the copy level (``copy_level``, ``service.copy_level``), the story level
    (``story_level``, ``service.story_level``), settling (``settling``, ``service.settling``) and the
    stateless comparisons (``service.stateless``).

    Its public methods are the operations users call (issue 37; ``tests/meta/test_engine_surface.py``
    keeps the list); the rest is read on the collaborator that owns it: the candidate state
    (``ctx.state``), the editors' constraints (``ctx.constraints``), the shared parts (``ctx.embedder``,
    ``guards``, ``cascade``, ``verifier``, ``counters``, ...; ``store`` stays on the engine too), the warm-ups of single parts
    (``ctx.warm_encoder``, ``warm_guards``, ``warm_verifier``), the change cursor, warm-up report and
    checkpoint timings (``restart``), the open stories and each group's story (``story_level.stories``,
    ``group_story``, ``restory``), the document key (``copy_level.doc_key``) and each result's copy
    group and story as stored now (``service.recorder.stored_groups``, ``stored_stories``).
    """

    def __init__(self, store: Store, *, embedder: Embedder | None = None, config: EngineConfig | None = None,
                 guards: GuardsArg = DEFAULT_GUARDS, url_rules: UrlRules | None = None, warm: bool = True,
                 verifier: PairVerifierLike | None = None) -> None:
        self.ctx = ctx = EngineContext.build(store, embedder=embedder, config=config, guards=resolve_guards(guards),
                                             url_rules=url_rules, verifier=verifier)
        # The store is the user's handle on what was kept (documents, copy groups, stories); the
        # other shared parts (encoder, guards, cascade, verifier, counters, ...) are read on ``ctx``.
        self.store, self.restart = ctx.store, ctx.restart
        self.recorder = Recorder(ctx.store, ctx.model_name)  # the ingest's store writes
        self.story_level = StoryLevel(ctx, self.recorder)
        # Other workers' new items reach the open stories as they reach the candidate state.
        ctx.restart.on_new_documents = self.story_level.take_in
        ctx.restart.on_deleted_document = functools.partial(self.story_level.forget, counted=False)
        self.copy_level = CopyLevel(ctx, self.story_level, self.recorder, rebuild=self.warm_up)
        self.deletion = Deletion(ctx, self.story_level, rebuild=self.warm_up)
        self.settling = Settling(ctx, self.copy_level, self.story_level, rebuild=self.warm_up)
        self._owns_embedder = False  # ``open`` built the embedder from a spec, so ``close`` stops it
        self._closed = False
        if warm:
            self.warm_up()
        else:  # no history read: the state is whole only if there is no history
            self.restart.complete = self.store.max_change() == 0

    # construction -------------------------------------------------------------------------------
    @classmethod
    def open(cls, db: str = ":memory:", *, model: str | Embedder | None = "use", config: EngineConfig | None = None,
             guards: GuardsArg = DEFAULT_GUARDS, device: str = "cpu") -> Deduper:
        """Open an engine on ``db`` (``:memory:``, ``sqlite:///PATH``, ``postgresql://...``).

        ``model`` is an embedder spec for ``models.registry.load_embedder`` ("use", "e5-small",
        "st:PATH", "onnx:DIR"), an embedder object, or None for the cheap passes only.
        """
        if model is not None and not isinstance(model, str) and not isinstance(model, Embedder):
            # Otherwise the engine fails deep inside on ``model.name``, which names no argument.
            raise TypeError(f"model must be an embedder spec such as 'use', an Embedder (name, dim, encode) "
                            f"or None, got {type(model).__name__}")
        config = config or EngineConfig.load()
        embedder: Embedder | None
        if isinstance(model, str):
            from models.registry import load_embedder

            embedder = load_embedder(model, device=device, shared_cache=config.operations.embedding_cache,
                                     process=config.operations.encoder_process)
        else:
            embedder = model
        engine = cls(open_store(db), embedder=embedder, config=config, guards=guards)
        engine._owns_embedder = isinstance(model, str)  # built here: ``close`` stops its process, if any
        return engine

    @property
    def config(self) -> EngineConfig:
        """The engine's configuration (``ctx.config``)."""
        return self.ctx.config

    # persistence (``restart``) -----------------------------------------------------------------------
    def checkpoint(self, *, wait: bool = True) -> bool:
        """Write the vector index and state snapshot beside a SQLite store (``StateRestart.checkpoint``)."""
        return self.restart.checkpoint(wait=wait)

    def warm_up(self) -> dict[str, Any]:
        """Rebuild the candidate state (``StateRestart.warm_up``), then the open stories."""
        # The replay inside the state's warm-up brings no item to the stories one by one: the
        # stories are read whole right after (``StoryLevel.warm``).
        hook, self.restart.on_new_documents = self.restart.on_new_documents, None
        try:
            report = self.restart.warm_up()
        finally:
            self.restart.on_new_documents = hook
        report["story_items"] = self.story_level.warm()
        return report

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return self._closed

    def close(self) -> None:
        """Persist the vector index and the state snapshot next to the store (a fast warm
        restart), then close the store. A second call does nothing."""
        if self._closed:
            return
        self._closed = True
        try:
            self.checkpoint()
        finally:
            self.store.close()
            if self._owns_embedder:
                from models.registry import close_embedder

                close_embedder(self.ctx.embedder)

    def _check_open(self) -> None:
        """Refuse work on the store of a closed engine in one line, as a closed file does (the
        store's own error came after a logged warm-up traceback). Compare and dedupe read no store."""
        if self._closed:
            raise ValueError("this Deduper is closed; open a new one with Deduper.open")

    def __enter__(self) -> Deduper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ingest --------------------------------------------------------------------------------------------
    def ingest(self, article: Article | dict[str, Any]) -> IngestResult:
        """Ingest one article; the result is returned only after it is committed."""
        self._check_open()
        return self._ingest(self._validated([article], lambda _: ""), progress=False, chunk_size=1)[0]

    def ingest_many(self, articles: Iterable[Article | dict[str, Any]], *, progress: bool = False,
                    chunk_size: int = 256, warn_repeated_ids: bool = True) -> list[IngestResult]:
        """Ingest in order; every ``chunk_size`` items are one transaction (committed before returning).

        Items are validated first, so a bad item fails the call before anything is stored, and
        the error names it by its place (``articles[3]: title must be a string, got int``).
        Records that repeat an ``id`` give one ``RepeatedIdWarning`` saying what the repeat does
        (``service.types.duplicate_id_warning``): nothing is lost, but a record without a ``url``
        is keyed by its id, so its repeat is that document again. ``warn_repeated_ids=False``
        is for callers that report it their own way (the command line, the HTTP service).
        """
        self._check_open()
        if isinstance(articles, (str, bytes, Article, Mapping)):
            # Iterating one would read its characters or keys as articles.
            raise TypeError(f"articles must be a list of articles, got one {type(articles).__name__}; "
                            "ingest() takes a single article")
        items = self._validated(articles, lambda i: f"articles[{i}]")
        repeated = duplicate_id_warning(a for a, _ in items) if warn_repeated_ids else None
        if repeated:
            warnings.warn(repeated.removeprefix("warning: "), RepeatedIdWarning, stacklevel=2)
        return self._ingest(items, progress=progress, chunk_size=chunk_size)

    def _validated(self, articles: Iterable[Article | dict[str, Any]],
                   where: Callable[[int], str]) -> list[tuple[Article, str | None]]:
        """Each article with its document key; a refusal names the article by ``where(index)``
        (nothing to name when it is ``""``: one article)."""
        out = []
        for i, a in enumerate(articles):
            if not isinstance(a, (Article, Mapping)):
                raise TypeError(f"{where(i) or 'article'} must be an Article or a dict, got {type(a).__name__}")
            try:
                item = a if isinstance(a, Article) else Article.from_dict(dict(a))
                out.append((item, self.copy_level.doc_key(item)))
            except ArticleError as exc:
                if not where(i):
                    raise
                raise ArticleError(f"{where(i)}: {exc}") from None
        return out

    def _ingest(self, items: list[tuple[Article, str | None]], *, progress: bool,
                chunk_size: int) -> list[IngestResult]:
        results: list[IngestResult] = []
        # The earliest time still to come after each item (an untimed one is timed now, as ingest
        # times it): expiry keeps what those items can match (CopyLevel.expire).
        now, to_come = _time.time(), [float("inf")] * (len(items) + 1)
        for i in range(len(items) - 1, -1, -1):
            at = items[i][0].published_at
            to_come[i] = min(to_come[i + 1], at.timestamp() if at is not None else now)
        bar = tqdm(total=len(items), disable=not progress, unit="item", desc="ingest")
        try:
            for start in range(0, len(items), chunk_size):
                chunk = items[start : start + chunk_size]
                self.copy_level.earliest_to_come = to_come[start + len(chunk)]
                results.extend(self.copy_level.ingest_chunk(chunk))
                bar.update(len(chunk))
        finally:
            self.copy_level.earliest_to_come = float("inf")
            bar.close()
        return results

    # deletion ------------------------------------------------------------------------------------------
    def delete_document(self, document_id: int, *, erase: bool = False) -> bool:
        """Remove a document from the indices and mark it deleted (its rows stay for provenance).

        ``erase=True`` (privacy, a takedown) also erases it: the texts, content hashes and vectors of
        every version, its URL and its observations' URLs and caller ids are blanked or dropped in the
        store, the embedding caches and the state files beside a SQLite store, and the decisions of
        other documents made against it have its words redacted (``service.erasure``). Ids, counts,
        times, channel, source, stages and scores stay. A deleted document can be erased later; False
        when there is nothing (more) to do: no such document, already deleted (or already erased).
        One call, not a second method: an erasure is a deletion that also forgets the words, and the
        two must never disagree on what deletion did.
        """
        if isinstance(document_id, bool) or not isinstance(document_id, numbers.Integral):
            raise TypeError(f"document_id must be an int, got {type(document_id).__name__}")
        if not isinstance(erase, bool):
            raise TypeError(f"erase must be a bool, got {type(erase).__name__}")
        document_id = int(document_id)  # numpy's int64 (an id from a DataFrame) is one too
        self._check_open()
        return self.deletion.delete(document_id, erase=erase)

    # stateless ----------------------------------------------------------------------------------------
    def compare(self, a: Article | str, b: Article | str, *, all_scores: bool = False) -> Decision:
        """Stateless pairwise verdict through the same cascade and guards as ``ingest``; a refused
        side is named ``a`` or ``b``."""
        return compare_pairs(self.ctx, [(a, b)], all_scores=all_scores, where=lambda _: "")[0]

    def compare_pairs(self, pairs: Sequence[tuple[Article | str, Article | str]], *, progress: bool = False,
                      all_scores: bool = False, batch_size: int = 512) -> list[Decision]:
        """``compare`` for many pairs, with the embedder called in batches."""
        return compare_pairs(self.ctx, pairs, progress=progress, all_scores=all_scores, batch_size=batch_size)

    def dedupe(self, records: Sequence[str | Mapping[str, Any]], *, text_field: str = "text", kind: str = "passage",
               threshold: float | None = None, progress: bool = False) -> PassageDedupeResult | DedupeResult:
        """Drop near-duplicate texts or records (e.g. retrieved RAG chunks); stores nothing.

        ``kind="passage"`` (chunks, article bodies): ``service.passages`` decides, and the result
        (``PassageDedupeResult``) holds the kept records and the dropped ones with why.
        ``kind="headline"``: the headline cascade and guards, as ``ingest`` (a ``DedupeResult``,
        with ``selected`` and ``filtered`` records as the passage kind's).
        Records are strings or mappings with a ``text_field``; ``threshold`` overrides the
        embedding-stage threshold for this call. It reads neither the candidate state nor the
        store, so it may run beside an ingest in another thread (the HTTP service does).
        ``progress``: a progress bar on stderr (the command line's, on a terminal).
        """
        if threshold is not None:
            # float("0.5") would accept a string a caller meant as a number from a config file;
            # numpy's float32 (a score of the verifier, a percentile) is a number
            if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
                raise TypeError(f"threshold must be a number in [0, 1] or None, got {type(threshold).__name__}")
            threshold = float(threshold)
        if kind == "passage":
            return self.ctx.passages.dedupe(records, text_field=text_field, threshold=threshold, progress=progress)
        if kind != "headline":
            raise ValueError(f"kind must be 'passage' or 'headline', got {kind!r}")
        from service.passages import texts_of

        return dedupe_headlines(self.ctx, texts_of(records, text_field)[0], threshold=threshold, progress=progress,
                                records=list(records))

    # stories and settling ------------------------------------------------------------------------------
    def settle(self, *, hours: float | None = None, copies: bool = True, progress: bool = False) -> SettleReport:
        """Settle the open window in publication order, both levels (``service.settling.Settling.settle``):
        the copy groups (``settle_copies``; ``copies=False`` keeps them as they streamed), then the
        stories over them (``settle_stories``)."""
        self._check_open()
        return self.settling.settle(hours=hours, copies=copies, progress=progress)

    def settle_copies(self, *, hours: float | None = None, progress: bool = False) -> CopySettleReport:
        """Re-decide the open window's copy groups in publication order
        (``service.settling.Settling.settle_copies``)."""
        self._check_open()
        return self.settling.settle_copies(hours=hours, progress=progress)

    def settle_stories(self, *, hours: float | None = None, progress: bool = False) -> SettleReport:
        """Re-decide the open stories in publication order (``service.settling.Settling.settle_stories``)."""
        self._check_open()
        return self.settling.settle_stories(hours=hours, progress=progress)

    # reading ---------------------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Store and index counts. ``copy_groups`` and ``indexed_copy_groups`` are the copy groups
        stored with members (``stories`` likewise: an emptied row is not counted) and in the
        candidate index; ``clusters`` and ``indexed_clusters`` are their deprecated aliases (the
        store's table name), removed in the next release."""
        self._check_open()
        counts = self.store.counts()
        return {
            **counts,
            "copy_groups": counts.get("clusters", 0),
            "indexed_documents": len(self.ctx.state.entries),
            "indexed_copy_groups": len(self.ctx.state.reps),
            "indexed_clusters": len(self.ctx.state.reps),
            "vector_index": len(self.ctx.state.vectors) if self.ctx.state.vectors is not None else 0,
            "counters": dict(self.ctx.counters),
            "model": self.ctx.model_name,
            "embedding_cache": _cache_stats(self.ctx.embedder),
        }


def _cache_stats(embedder: Any) -> dict[str, int]:
    """Counts of the embedder's caches (``models.cache``, ``models.shared_cache``); {} without one.

    ``hits``: texts served without the model (local LRU or shared cache); ``model_texts``: texts
    the model embedded; ``shared_*``: lookups in the cache other processes share.
    """
    if embedder is None or not hasattr(embedder, "hits") or not hasattr(embedder, "calls"):
        return {}
    out = {"hits": int(embedder.hits), "model_texts": int(embedder.calls)}
    shared = getattr(embedder, "shared", None)
    if shared is not None:
        out.update(shared_hits=int(shared.hits), shared_misses=int(shared.misses), shared_errors=int(shared.errors))
    return out

