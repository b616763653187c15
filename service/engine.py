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
import logging
import re
import threading
import time as _time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

import numpy as np
from tqdm import tqdm

from index.features import ItemFeatures
from index.urls import InvalidUrlError, UrlRules
from models.base import Embedder
from service.cascade import Cascade, Confirm, Match
from service.config import DAY, EngineConfig
from service.corrections import Constraints, load_constraints
from service.representative import Candidate, best_of, better
from service.restart import StateRestart, anchor_of
from service.scoring import CosineScorer, EmbeddingScorer, make_scorer
from service.settle import (
    REPLAY_IDS,
    CopyItem,
    CopySettleReport,
    SettleItem,
    SettleReport,
    copy_order,
    hold,
    keep_ids,
    replay,
    replay_copies,
    settle_order,
)
from service.state import CandidateState, Entry
from service.store import Store, open_store
from service.store.base import DocumentRow, MembershipRow
from service.stories import StoryEvidence, StoryMatch, StoryTracker, story_text
from service.types import Article, ArticleError, Decision, IngestResult, Status

if TYPE_CHECKING:
    from models.verifier import PairVerifierLike
    from service.guards import GuardSet
    from service.passages import PassageDeduper, PassageDedupeResult

log = logging.getLogger("samestory.engine")

# Bodies compared per ingested item (``Deduper._body_confirm``): each costs a passage comparison,
# and a cross-lingual one the encoder for both bodies' sentences. With it, NTREX dev's copy groups
# are the same in file order and shuffles 1-3 (docs/stories.md, "Copy decisions that do not hang
# on arrival order"). A candidate past the cap is refused unchecked, so raising it can only add
# merges and lowering it to 1 brings back the arrival-order dependence (the first candidate's
# veto ends the walk).
MAX_BODY_CHECKS = 3
# Why a store with editors' corrections is not settled: a replay could undo a split or a merge,
# which neither the cascade nor a story revision ever does.


def _check_hours(hours: float | None) -> None:
    if hours is not None and not (isinstance(hours, (int, float)) and not isinstance(hours, bool) and hours > 0):
        raise ValueError(f"hours must be a number > 0, got {hours!r}")


def _copy_item(doc: DocumentRow, ver: Any) -> CopyItem:
    """A stored document as the copy replay reads it (its features timed at its publication, else
    when it was first seen)."""
    assert doc.cluster_id is not None
    t = doc.published_at if doc.published_at is not None else doc.first_seen
    f = ItemFeatures.build(ver.title, ver.body, ver.lang, t, content_sha=ver.content_hash, source=doc.source,
                           url=doc.url)
    return CopyItem(doc.id, ver.id, doc.cluster_id, f, doc.url, doc.source, ver.body, ver.lang,
                    timed=doc.published_at is not None)


# The story reason service.corrections.Editor.merge gives each copy group it moves.
_MERGED_RE = re.compile(r"merged story (\d+) into story \d+$")



@dataclass
class DedupeResult:
    """Stateless dedupe of a batch (RAG chunk filtering).

    ``clusters`` lists input indices per group, ``keep`` the index kept from each group (the
    first occurrence), ``decisions`` one Decision per input. ``rethreshold`` re-groups with a
    stricter embedding threshold without re-embedding (semhash style).
    """

    clusters: list[list[int]]
    keep: list[int]
    decisions: list[Decision]
    duplicate_of: list[int | None] = field(default_factory=list)

    def rethreshold(self, threshold: float) -> DedupeResult:
        """Split off items merged by the embedding stage below ``threshold`` (only ever stricter)."""
        dup = list(self.duplicate_of)
        decisions = list(self.decisions)
        for i, d in enumerate(decisions):
            if dup[i] is not None and d.stage == "embedding" and (d.score or 0.0) < threshold:
                dup[i] = None
        return _group(dup, decisions)


def _group(dup: list[int | None], decisions: list[Decision]) -> DedupeResult:
    root = list(range(len(dup)))
    for i, j in enumerate(dup):
        if j is not None:
            root[i] = root[j]
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(root):
        groups.setdefault(r, []).append(i)
    clusters = list(groups.values())
    return DedupeResult(clusters, [g[0] for g in clusters], decisions, dup)


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

    The engine is composed: the ``cascade`` decides (``service.cascade``, its stages in
    ``service.stages``), the candidate state is searched, and ``restart``
    (``service.restart.StateRestart``) keeps that state across restarts and in step with other
    writers; the passage path (``passages``) and the story level (``stories``) sit beside them.
    """

    def __init__(self, store: Store, *, embedder: Embedder | None = None, config: EngineConfig | None = None,
                 guards: GuardsArg = DEFAULT_GUARDS, url_rules: UrlRules | None = None, warm: bool = True,
                 verifier: PairVerifierLike | None = None) -> None:
        self.embedder = embedder
        self.model_name: str | None = embedder.name if embedder is not None else None
        self.config = (config or EngineConfig()).for_model(self.model_name)
        self.store = store
        self.guards: GuardSet | None = resolve_guards(guards)
        self.url_rules = url_rules or _load_url_rules(self.config)
        self.scorer = self._make_scorer()
        # The pair verifier (EngineConfig.verifier, issue 35): one per engine, its artefact read on
        # first use (or at warm_verifier). A verifier passed in is used whatever the config says.
        self.verifier: PairVerifierLike | None = verifier
        if verifier is None and self.config.verifier:
            from models.verifier import LazyVerifier

            self.verifier = LazyVerifier()
        self.cascade = Cascade(self.config, self.guards, self.scorer, verifier=self.verifier)
        if embedder is not None:
            self.cascade.use_encoder(self._encode)
        # "checkpoints" is counted by the background writer: created here, so that thread never
        # adds a key while a reader copies the counters.
        self.counters: Counter[str] = Counter(checkpoints=0)
        self.restart = StateRestart(store, self.config, self._new_state(), counters=self.counters,
                                    model_name=self.model_name, index_path=_index_path(store),
                                    snapshot_path=_index_path(store, ".state.npz"))
        self._max_time = 0.0
        self._since_expiry = 0
        self._encode_lock = threading.Lock()
        # Editors' must-/cannot-link constraints (service.corrections), consulted at story decisions.
        self.constraints: Constraints = load_constraints(store)
        self._passages: PassageDeduper | None = None  # built on first use by ``passages``
        # The story level (service/stories.py): open stories' evidence, and each copy group's story.
        self.stories = self._new_tracker()
        self.group_story: dict[int, int] = {}
        if warm:
            self.warm_up()
        else:  # no history read: the state is whole only if there is no history
            self.restart.complete = self.store.max_change() == 0

    def _make_scorer(self) -> EmbeddingScorer | None:
        """The embedding stage's scorer; None without a model (``for_model`` gave a model its threshold)."""
        cosine = self.config.embedding_threshold
        if self.embedder is None or cosine is None:
            return None
        return make_scorer(self.config.embedding_scorer, self.model_name, cosine_threshold=cosine,
                           threshold=self.config.xling_threshold)

    def _new_state(self, config: EngineConfig | None = None) -> CandidateState:
        return CandidateState(config or self.config, self.embedder.dim if self.embedder is not None else None)

    # construction -------------------------------------------------------------------------------
    @classmethod
    def open(cls, db: str = ":memory:", *, model: str | Embedder | None = "use", config: EngineConfig | None = None,
             guards: GuardsArg = DEFAULT_GUARDS, device: str = "cpu") -> Deduper:
        """Open an engine on ``db`` (``:memory:``, ``sqlite:///PATH``, ``postgresql://...``).

        ``model`` is an embedder spec for ``models.registry.load_embedder`` ("use", "e5-small",
        "st:PATH", "onnx:DIR"), an embedder object, or None for the cheap passes only.
        """
        config = config or EngineConfig.load()
        embedder: Embedder | None
        if isinstance(model, str):
            from models.registry import load_embedder

            embedder = load_embedder(model, device=device, shared_cache=config.embedding_cache)
        else:
            embedder = model
        return cls(open_store(db), embedder=embedder, config=config, guards=guards)

    # the candidate state and its persistence (``restart``) ----------------------------------------
    @property
    def state(self) -> CandidateState:
        """The candidate state the cascade searches (a warm-up replaces it: read it here each time)."""
        return self.restart.state

    @property
    def cursor(self) -> int:
        """The last store change the candidate state reflects."""
        return self.restart.cursor

    @property
    def warmup_report(self) -> dict[str, Any]:
        return self.restart.warmup_report

    @property
    def checkpoint_seconds(self) -> list[float]:
        return self.restart.checkpoint_seconds

    @property
    def checkpoint_write_seconds(self) -> list[float]:
        return self.restart.checkpoint_write_seconds

    def checkpoint(self, *, wait: bool = True) -> bool:
        """Write the vector index and state snapshot beside a SQLite store (``StateRestart.checkpoint``)."""
        return self.restart.checkpoint(wait=wait)

    def wait_for_checkpoint(self) -> None:
        self.restart.wait_for_checkpoint()

    def warm_up(self) -> dict[str, Any]:
        """Rebuild the candidate state (``StateRestart.warm_up``), then the open stories."""
        report = self.restart.warm_up()
        report["story_items"] = self._warm_stories()
        return report

    def _catch_up(self, limit: int | None = None) -> int:
        """Replay other writers' changes into the state (``StateRestart.catch_up``)."""
        return self.restart.catch_up(limit)

    def warm_encoder(self) -> float:
        """Load the model and run it once on a short text, so the first request does not pay for it.

        The bundled USE reads its weights on first use (~1.5 s here), which a server would
        otherwise add to its first ingest or dedupe. Not counted in ``counters`` (no item was
        embedded). Returns the seconds it took (0.0 without a model); the service's start-up
        records it in ``warmup_report["encoder_s"]``.
        """
        if self.embedder is None:
            return 0.0
        t0 = _time.perf_counter()
        self.embedder.encode(["samestory warm-up"])
        seconds = _time.perf_counter() - t0
        self.warmup_report["encoder_s"] = round(seconds, 3)
        return seconds

    def warm_guards(self) -> float:
        """Run the guards once on a Korean-English pair, so the first request does not pay for
        loading them: the Korean analyser (kiwipiepy) loads on first use, 2.4 s on a fresh server
        (issue 36), and the slot tables are read then too. Returns the seconds it took (0.0 with
        guards off); the service's start-up records it in ``warmup_report["guards_s"]``."""
        if self.guards is None:
            return 0.0
        from service.guards import GuardInput

        t0 = _time.perf_counter()
        ko, en = "한국은행, 기준금리 연 3.50%로 동결", "Bank of Korea holds key rate at 3.50%"
        self.guards.check(GuardInput(title=ko, text=ko, lang="ko"), GuardInput(title=en, text=en, lang="en"))
        seconds = _time.perf_counter() - t0
        self.warmup_report["guards_s"] = round(seconds, 3)
        return seconds

    def warm_verifier(self) -> float:
        """Load the pair verifier and run it once, so the first request does not pay for reading
        its artefact and tokenizer (a few seconds). Returns the seconds it took (0.0 with the
        verifier off); the service's start-up records it in ``warmup_report["verifier_s"]``."""
        if self.verifier is None:
            return 0.0
        t0 = _time.perf_counter()
        self.verifier.score(["한국은행, 기준금리 연 3.50%로 동결"], ["Bank of Korea holds key rate at 3.50%"])
        seconds = _time.perf_counter() - t0
        self.warmup_report["verifier_s"] = round(seconds, 3)
        return seconds

    def close(self) -> None:
        """Persist the vector index and the state snapshot next to the store (a fast warm
        restart), then close the store."""
        try:
            self.checkpoint()
        finally:
            self.store.close()

    def __enter__(self) -> Deduper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # embedding --------------------------------------------------------------------------------------
    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        # The HTTP service runs dedupe beside ingestion (Service.call_stateless): both count here.
        if self.embedder is None:
            raise RuntimeError("this engine has no embedder (model=None)")
        with self._encode_lock:
            self.counters["encoder_texts"] += len(texts)
            self.counters["encoder_calls"] += 1
        return np.asarray(self.embedder.encode(list(texts)), dtype=np.float32)

    def _embed_text(self, f: ItemFeatures) -> str:
        return self.cascade.embed_text(f)

    # ingest --------------------------------------------------------------------------------------------
    def ingest(self, article: Article | dict[str, Any]) -> IngestResult:
        """Ingest one article; the result is returned only after it is committed."""
        return self.ingest_many([article])[0]

    def ingest_many(self, articles: Iterable[Article | dict[str, Any]], *, progress: bool = False,
                    chunk_size: int = 256) -> list[IngestResult]:
        """Ingest in order; every ``chunk_size`` items are one transaction (committed before returning).

        Items are validated first, so a bad item fails the call before anything is stored.
        """
        items = [a if isinstance(a, Article) else Article.from_dict(a) for a in articles]
        keys = [self.doc_key(a) for a in items]
        results: list[IngestResult] = []
        bar = tqdm(total=len(items), disable=not progress, unit="item", desc="ingest")
        for start in range(0, len(items), chunk_size):
            chunk = list(zip(items[start : start + chunk_size], keys[start : start + chunk_size], strict=True))
            results.extend(self._ingest_chunk(chunk))
            bar.update(len(chunk))
        bar.close()
        return results

    def doc_key(self, a: Article) -> str | None:
        """The document key: canonical URL, else ``id:<caller id>``, else None. Raises ArticleError."""
        if a.url:
            try:
                return self.url_rules.canonicalize(a.url)
            except InvalidUrlError as exc:
                raise ArticleError(f"invalid url: {exc}") from exc
        return f"id:{a.id}" if a.id else None

    def _ingest_chunk(self, chunk: list[tuple[Article, str | None]]) -> list[IngestResult]:
        now = _time.time()
        feats = [ItemFeatures.build(a.title, a.body, a.lang or "und",
                                    a.published_at.timestamp() if a.published_at else now, source=a.source, url=a.url)
                 for a, _ in chunk]
        prefetched = self._prefetch_vectors(feats)
        results = []
        try:
            with self.store.transaction():
                self._catch_up()
                for (article, key), f in zip(chunk, feats, strict=True):
                    results.append(self._ingest_one(article, key, f, now, prefetched))
                last = self.store.max_change()
            self.restart.advance(last)
        except BaseException:
            # The transaction rolled back; the in-memory state may hold its writes. Rebuild it.
            self.warm_up()
            raise
        self._max_time = max([self._max_time, *(f.time for f in feats)])
        self._since_expiry += len(chunk)
        if self._since_expiry >= 5_000:
            self._since_expiry = 0
            self._expire()
        self.restart.checkpoint_if_due()
        for r in results:
            self.counters[f"status_{r.status}"] += 1
            self.counters[f"stage_{r.decision.stage}"] += 1
            for g in r.decision.blocked_by:
                self.counters[f"veto_{g}"] += 1
        return results

    def _expire(self) -> int:
        """Drop from memory what no new item can be compared with any more (the store keeps it).

        Twice the candidate window behind the newest item seen, so an item published a little
        late still finds the copies it may have.
        """
        horizon = self._max_time - 2 * self.config.window_days * DAY
        dropped = self.state.expire(horizon) if horizon > 0 else 0
        if dropped and self.state.vectors is not None:
            self.state.vectors.expire(horizon)
        self.counters["expired_documents"] += dropped
        self._expire_stories()
        return dropped

    def _expire_stories(self) -> int:
        """Close for good the stories whose latest member is older than what a warm restart reads
        (``warmup_days``), and at least two story windows, behind the newest item: no item in time
        can join them, and the story table, its centroid rows and ``group_story`` then hold the
        open stories, not every story ever made (issue 37). A copy arriving later than that joins
        its group's story id with its own evidence only, as after a restart. Off without a story
        window (``story_window_days`` 0: every story stays open)."""
        days = self.config.story_window_days
        horizon = self._max_time - max(self.config.warmup_days, 2 * days) * DAY
        if not days or horizon <= 0:
            return 0
        closed = {sid for sid, s in self.stories.stories.items() if s.last_time < horizon}
        if not closed:
            return 0
        self.stories.expire(horizon)
        self.group_story = {g: sid for g, sid in self.group_story.items() if sid not in closed}
        self.counters["expired_stories"] += len(closed)
        return len(closed)

    def _prefetch_vectors(self, feats: list[ItemFeatures], state: CandidateState | None = None,
                          cascade: Cascade | None = None) -> dict[str, np.ndarray]:
        """Embed, in one batch, the items the cheap stages cannot settle (``Cascade.cheaply_unsettled``:
        against the state and the earlier items of the same batch, where syndicated copies often
        arrive together)."""
        if self.embedder is None or len(feats) < 2:
            return {}
        cascade = cascade or self.cascade
        state = self.state if state is None else state
        need = list(dict.fromkeys(cascade.embed_text(feats[i]) for i in cascade.cheaply_unsettled(feats, state)))
        if not need:
            return {}
        vecs = self._encode(need)
        return dict(zip(need, vecs, strict=True))

    def _observe(self, article: Article, doc_id: int, version_id: int, status: Status, decision: Decision,
                 now: float) -> int:
        """Record that ``article`` was seen (one observation row per ingested item)."""
        return self.store.insert_observation(document_id=doc_id, version_id=version_id, channel=article.channel,
                                             url=article.url, source=article.source, caller_id=article.id, now=now,
                                             status=status, decision=decision.to_dict())

    def _ingest_one(self, article: Article, key: str | None, f: ItemFeatures, now: float,
                    prefetched: dict[str, np.ndarray]) -> IngestResult:
        store, state = self.store, self.state
        chash = f.content_sha
        published = article.published_at.timestamp() if article.published_at else None
        if key is not None:
            doc = store.find_document(article.channel, key)
            if doc is not None:
                return self._known_document(article, doc, f, chash, now)
        vector: np.ndarray | None = None

        def vector_fn() -> np.ndarray | None:
            nonlocal vector
            if self.embedder is None:
                return None
            if vector is None:
                text = self._embed_text(f)
                vector = prefetched[text] if text in prefetched else self._encode([text])[0]
            return vector

        window = (f.time - self.config.window_days * DAY, f.time + self.config.window_days * DAY)
        confirm = self._body_confirm(article.body, article.lang) if self.config.body_passages else None
        match: Match = self.cascade.match(f, state, vector_fn, window, confirm=confirm)
        apart = None
        disputed = self._disputed_twins(f, match) if self.constraints.cannot else None
        if disputed is not None and disputed[1] is not None:
            match = disputed[1]
        elif disputed is not None:
            apart, d = disputed[0], match.decision
            match = Match(Decision(False, d.stage, d.score, [*d.reasons, apart], [*d.blocked_by, "editor"],
                                   scores=dict(d.scores), guards=list(d.guards)))
        doc_id = store.insert_document(article.channel, key, article.url, article.source, published, now)
        version_id = store.insert_version(doc_id, chash, article.title, article.body, article.lang or "und", now)
        decision = match.decision
        if vector is not None and self.model_name:
            store.save_vector(version_id, self.model_name, np.asarray(vector, dtype=np.float32).tobytes())
        status: Status
        duplicate_of: int | None
        if decision.same and match.cluster_id is not None:
            # Joined through the cluster's anchor (or an exact copy of a member): the evidence
            # compared never moves. The displayed representative follows seed 000's rules apart.
            cluster_id = match.cluster_id
            store.set_membership(doc_id, cluster_id, now, decision.stage, decision.score, match.matched_doc,
                                 decision.to_dict())
            state.put(Entry(doc_id, version_id, cluster_id, f, article.url, article.source))
            status = "duplicate"
            cluster = store.get_cluster(cluster_id)
            matched = match.matched_doc if match.matched_doc is not None else doc_id  # the cascade always names it
            rep = cluster.representative_id if cluster is not None else matched
            duplicate_of = rep
            cur = self._rep_candidate(rep)
            if cur is not None:
                why = better(Candidate(doc_id, article.url, article.source, f.time), cur, self.url_rules)
                if why is not None:
                    store.set_representative(cluster_id, rep, doc_id, why, now)
                    store.record_change(rep, now)
                    rep = doc_id
            # A copy joins its group's story; its evidence (words, names, its vector) joins too. The
            # store says which story (an editor on another worker may have moved the group since).
            story_id = cluster.story_id if cluster is not None else None
            if story_id is None:
                story_id = self.group_story.get(cluster_id)
            elif self.group_story.get(cluster_id, story_id) != story_id:
                self._sync_corrections()
            ev = self._story_evidence(article, f, vector, version_id, cluster_id=cluster_id)
            if story_id is None:  # a group from before stories existed: give it one now
                story_id = self._place_group(cluster_id, ev, now)
            else:
                self.stories.add(self._evidence_part(cluster) or story_id if cluster is not None else story_id, ev,
                                 unit=cluster_id, settle=False)
                self.group_story[cluster_id] = story_id
                store.touch_story(story_id, now)
                if self._story_revising:
                    # A group's second whole article may show that the group's story was wrong
                    # (StoryTracker.recheck); the move is stored like a revision's.
                    self.stories.recheck(cluster_id, ev)
                    self._apply_story_moves(now)
                    story_id = self.group_story[cluster_id]
        else:
            cluster_id = store.create_cluster(doc_id, now)
            store.set_membership(doc_id, cluster_id, now, decision.stage, decision.score, None, decision.to_dict())
            state.put(Entry(doc_id, version_id, cluster_id, f, article.url, article.source))
            state.set_rep(cluster_id, doc_id)
            if vector is not None:
                state.set_cluster_vector(cluster_id, doc_id, vector)
            rep, status, duplicate_of = doc_id, "new", None
            story_id = self._place_group(cluster_id, self._story_evidence(article, f, vector, version_id), now,
                                         apart=apart)
        store.record_change(doc_id, now)
        obs = self._observe(article, doc_id, version_id, status, decision, now)
        return IngestResult(obs, doc_id, version_id, cluster_id, rep, status, duplicate_of, decision,
                            id=article.id, story_id=story_id,
                            matched_copy=match.matched_doc if decision.same else None)

    def _body_confirm(self, body: str | None, lang: str | None) -> Confirm | None:
        """``EngineConfig.body_passages``: a merge the cascade proposes stands when the new body is
        a passage copy of the candidate document's body, and is vetoed (``blocked_by`` "body")
        when it is not, and the cascade goes on to its next candidate; a candidate stands
        unchecked when either side has no body of two or more sentences (nothing to compare as a
        passage). None when the item's ``body`` has no such body.

        The walk goes on after a veto so that the decision does not hang on arrival order: a
        Korean article whose English source is in the state is first compared with the
        best-scoring candidate, which can be another outlet's Korean article on the same event
        (its headline closer in words), and used to end there as a new group whenever that other
        article had come in first (NTREX dev, ``rt.com.91337``: joined its source in file order,
        alone in shuffle 1). At most ``MAX_BODY_CHECKS`` bodies are compared per item; a
        candidate past that is refused unchecked (over-splitting, never over-merging).
        """
        from index.passages import split_sentences

        body = (body or "").strip()
        if len(split_sentences(body)) < 2:
            return None
        checked = 0

        def confirm(doc_id: int) -> tuple[bool, str | None]:
            nonlocal checked
            # Every version is matched, the latest first: a mirror that republishes a document's
            # first version after the publisher corrected it copies that version, not the
            # latest (seed 002; issue 36: the latest alone vetoed it for one word, '절반으로').
            versions = self.store.versions_of(doc_id)
            bodies = list(dict.fromkeys((v.body, v.lang) for v in reversed(versions)
                                        if len(split_sentences(v.body or "")) >= 2))
            if not bodies:
                return True, None
            if checked >= MAX_BODY_CHECKS:
                return False, f"body veto: document {doc_id}'s body not compared ({MAX_BODY_CHECKS} bodies " \
                              f"compared already)"
            checked += 1
            whys = []
            for n, (other_body, other_lang) in enumerate(bodies):
                v = self.passages.dedupe([{"text": other_body, "lang": other_lang if other_lang != "und" else None},
                                          {"text": body, "lang": lang if lang != "und" else None}]).verdicts[1]
                why = v.reasons[0] if v.reasons else ""
                if v.duplicate_of == 0:
                    which = "body" if n == 0 else f"earlier version's body ({n} correction(s) before the latest)"
                    return True, f"body: a passage copy of document {doc_id}'s {which} ({why})"
                whys.append(why)
            every = "'s body" if len(bodies) == 1 else f"'s {len(bodies)} versions' bodies"
            return False, f"body veto: not a passage copy of document {doc_id}{every} ({'; '.join(whys)})"

        return confirm

    # stories ---------------------------------------------------------------------------------------------
    def _new_tracker(self) -> StoryTracker:
        veto = None
        if self.config.story_slot_veto and self.guards is not None:
            from service.guards.storyveto import SlotVeto

            veto = SlotVeto.from_guards(self.guards)
        tracker = StoryTracker(threshold=self.config.story_threshold, window_days=self.config.story_window_days,
                               veto=veto, revise=self.config.story_revise)
        tracker.allocate = lambda: self.store.create_story(_time.time())
        return tracker

    def _story_evidence(self, article: Article, f: ItemFeatures, vector: np.ndarray | None, version_id: int,
                        *, embed: bool = True, cluster_id: int | None = None) -> StoryEvidence:
        """The item's story evidence. Its vector is the copy level's when both read the same text
        (headlines); an article with a body is embedded again on more of its body (``story_text``),
        and that vector is stored for warm restarts. Copies bring their vectors too: a story's
        evidence is every member's, as the story score was calibrated (a translation that joined
        its original's group is the story's cross-language evidence)."""
        text = story_text(article.title, article.body)
        story_vec = None
        if self.embedder is not None:
            # A copy a cheap stage settled has no copy-level vector; with story_copy_vectors it
            # is embedded for its story like a body read further.
            unembedded_copy = vector is None and self.config.story_copy_vectors
            if text == self._embed_text(f) and not (embed and unembedded_copy):
                story_vec = vector
            elif embed:
                story_vec = self._encode([text])[0]
                if self.model_name:
                    self.store.save_vector(version_id, f"{self.model_name}#story", story_vec.tobytes())
        time = f.time if cluster_id is None else self._story_time(cluster_id, f.time)
        return StoryEvidence.build(article.title, article.body, article.lang or "und", time, story_vec)

    def _story_time(self, cluster_id: int | None, time: float) -> float:
        """The time a copy group's member counts at in its story: its own, except for a re-run, a
        member published more than ``copy_gap_hours`` from the group's anchor (only the same words
        may join that far: ``Cascade.too_far``), which counts at the anchor's time. A re-run
        repeats the anchor's report; on its own time it would stretch its story's span to another
        day, and that day's coverage of another event would join the story with no gap to pay
        (UCI dev: a "Titanfall" headline re-run 27 h later bridged two gold stories; docs/stories.md
        "Re-runs"). 0 (``copy_gap_hours`` off) or no time: the member's own time."""
        gap = self.config.copy_gap_hours * 3600.0
        anchor = self.state.reps.get(cluster_id) if cluster_id is not None else None
        if not gap or not time or anchor is None or anchor not in self.state.entries:
            return time
        anchor_time = self.state.entries.time_of(anchor)
        return anchor_time if anchor_time and abs(time - anchor_time) > gap else time

    def _disputed_twins(self, f: ItemFeatures, match: Match) -> tuple[str, Match | None] | None:
        """None, or why a new item must stay out of the copy group the cascade chose, and where it
        goes instead: it is an identical copy of members of two copy groups an editor told apart
        (a split or "not the same" between them), so joining either would take a side the editor's
        cannot-link does not tell. It joins an undisputed group of its identical copies (an
        earlier such item's), else starts a group, and a story, of its own (over-splitting beats
        over-merging)."""
        if not match.decision.same or match.cluster_id is None:
            return None
        entries = self.state.entries
        twins: dict[int, int] = {}  # copy group -> its earliest identical copy of the item
        for d in sorted(d for d in self.state.exact.lookup(f.content_key) if d in entries):
            twins.setdefault(entries.cluster_of(d), d)
        if match.cluster_id not in twins or len(twins) < 2:
            return None
        docs = {g: [m.document_id for m in self.store.members_of(g)] for g in twins}
        disputed: dict[int, tuple[int, int, Any]] = {}
        for g in twins:
            for h in twins:
                if g < h and (c := self.constraints.cannot_link(docs[g], docs[h])) is not None:
                    disputed.setdefault(g, (g, h, c))
                    disputed.setdefault(h, (g, h, c))
        if match.cluster_id not in disputed:
            return None
        g1, g2, c = disputed[match.cluster_id]
        why = (f"editor: identical to members of copy groups {g1} and {g2}, which {c.who} told apart "
               f"(correction {c.id}, {c.kind} of documents {c.doc_a} and {c.doc_b})")
        calm = [g for g in twins if g not in disputed]
        if calm:
            g = min(calm)
            dec = match.decision
            return (f"{why}: joined copy group {g} of its identical copies instead (cannot-link)",
                    Match(Decision(True, "exact", 1.0, [f"exact: same normalised title and body as document {twins[g]}",
                                                        f"{why}: joined copy group {g} of its identical copies "
                                                        f"instead (cannot-link)"], list(dec.blocked_by),
                                   matched_id=twins[g], scores={**dec.scores, "exact": 1.0}), g, twins[g]))
        return f"{why}: kept apart from both (cannot-link)", None

    def _place_group(self, cluster_id: int, ev: StoryEvidence, now: float, *, apart: str | None = None) -> int:
        """The story decision for a new copy group: join the best open story or open one. A story
        an editor merged into another is never joined: the group goes where it was merged
        (must-link), with the reason. ``apart`` (``_disputed_twins``): a new story, for that reason."""
        self._sync_corrections()
        m = self.stories.match(ev)
        if apart is not None:
            m = StoryMatch(None, m.score, m.features, apart)
        story_id, reason = m.story_id, m.reason
        if story_id is not None:
            target, chain = self.constraints.story_of(story_id)
            if chain:
                reason = "; ".join([reason, *(c.must_link_reason() for c in chain)])
                story_id = target
        if story_id is None:
            story_id = self.store.create_story(now)
        # A group placed by an editor's merge (must-link) or kept apart is never moved.
        self.stories.revise = self._story_revising
        pinned = apart is not None or (m.story_id is not None and story_id != m.story_id)
        # Evidence goes to the part that matched (a merged story's keeps drawing its own event).
        part = m.story_id if m.story_id is not None and apart is None else story_id
        self.group_story[cluster_id] = story_id
        self.store.set_cluster_story(cluster_id, story_id, round(m.score, 6) if m.story_id is not None else None,
                                     reason if m.story_id is not None else f"new story ({reason})", now)
        self.stories.add(part, ev, unit=cluster_id, settle=not pinned)
        if pinned and cluster_id in self.stories.units:
            self.stories.units[cluster_id].pinned = True
        self._apply_story_moves(now)
        return self.group_story[cluster_id]

    @property
    def _story_revising(self) -> bool:
        """Story membership is revised (``EngineConfig.story_revise``) unless the store holds
        editors' corrections: a revision must never undo an editor's split or merge."""
        return self.config.story_revise and not self.constraints

    def _apply_story_moves(self, now: float) -> None:
        """Store the tracker's revisions: each moved copy group's new story and why. A story left
        empty stays as a row without groups, as after an editor's merge."""
        for mv in self.stories.take_moves():
            group = int(mv.unit)  # type: ignore[call-overload]
            self.group_story[group] = mv.target
            self.store.set_cluster_story(group, mv.target, round(mv.score, 6), mv.reason, now)
            self.store.touch_story(mv.target, now)

    def _sync_corrections(self) -> None:
        """Read the corrections other workers made since ours were loaded (one MAX(id) query on
        the primary key) and rebuild the stories they touched, so their evidence is the store's."""
        fresh = self.constraints.refresh()
        touched = [s for c in fresh for s in (c.story_from, c.story_to) if s is not None]
        if touched:
            self.restory(touched)

    def _stored_evidence(self, rows: list[tuple[DocumentRow, Any]]) -> list[tuple[DocumentRow, StoryEvidence]]:
        """Story evidence of stored items, oldest document first, from their stored vectors (the
        story vector, else the copy level's when both read the same text); no encoder call."""
        rows = sorted(rows, key=lambda r: r[0].id)
        vectors: dict[int, bytes] = {}
        story_vectors: dict[int, bytes] = {}
        if rows and self.model_name and self.embedder is not None:
            ids = [v.id for _, v in rows]
            vectors = self.store.load_vectors(ids, self.model_name)
            story_vectors = self.store.load_vectors(ids, f"{self.model_name}#story")
        out = []
        for doc, ver in rows:
            t = doc.published_at if doc.published_at is not None else doc.first_seen
            raw = story_vectors.get(ver.id)
            if raw is None and story_text(ver.title, ver.body) == self.cascade.embed_text(
                    ItemFeatures.build(ver.title, ver.body, ver.lang, t, content_sha=ver.content_hash)):
                raw = vectors.get(ver.id)
            vec = np.frombuffer(raw, dtype=np.float32) if raw is not None else None
            out.append((doc, StoryEvidence.build(ver.title, ver.body, ver.lang, self._story_time(doc.cluster_id, t),
                                                 vec)))
        return out

    @staticmethod
    def _evidence_part(cluster: Any) -> int | None:
        """Whose evidence a copy group's items are in the story tracker: its story's, except for a
        group an editor's merge brought in, which keeps the merged story's (an item that would
        have joined that story is then redirected, must-link, instead of the union of the two
        stories' evidence scoring lower than either)."""
        m = _MERGED_RE.search(cluster.story_reason or "") if cluster.story_score is None else None
        return int(m.group(1)) if m else cluster.story_id

    def restory(self, story_ids: Iterable[int]) -> None:
        """Rebuild these stories' evidence from the store (their copy groups and live members as
        they are now): after an editor moved groups or members between stories."""
        wanted = list(dict.fromkeys(story_ids))
        parts: dict[int, list[tuple[DocumentRow, Any]]] = {}
        for sid in wanted:
            for c in self.store.clusters_of_story(sid):
                self.group_story[c.id] = sid
                rows = parts.setdefault(self._evidence_part(c) or sid, [])
                for m in self.store.members_of(c.id):
                    doc = self.store.get_document(m.document_id)
                    if doc is None or doc.deleted or doc.latest_version_id is None:
                        continue
                    ver = self.store.get_version(doc.latest_version_id)
                    if ver is not None:
                        rows.append((doc, ver))
        for part in dict.fromkeys([*wanted, *parts]):
            self.stories.rebuild(part, [ev for _, ev in self._stored_evidence(parts.get(part, []))])

    def stored_groups(self, results: Sequence[IngestResult]) -> list[int]:
        """Each result's copy group as the store holds it now: a settling (``settle_copies``) may
        have moved the item after its result was returned (a deleted item keeps the result's)."""
        out = []
        for r in results:
            doc = self.store.get_document(r.document_id)
            out.append(int(doc.cluster_id) if doc is not None and doc.cluster_id is not None else r.cluster_id)
        return out

    def stored_stories(self, results: Sequence[IngestResult]) -> list[int | None]:
        """Each result's story as the store holds it now: an item's story is its copy group's
        (``stored_groups``), and a story revision (or settling) may have moved the group after the
        result was returned (a group the store has no story for keeps the result's)."""
        story_of: dict[int, int | None] = {}
        out: list[int | None] = []
        for r, g in zip(results, self.stored_groups(results), strict=True):
            if g not in story_of:
                c = self.store.get_cluster(g)
                story_of[g] = c.story_id if c is not None and c.story_id is not None else r.story_id
            out.append(story_of[g])
        return out

    def _open_story_rows(self) -> list[tuple[DocumentRow, Any]]:
        """The live items a warm restart reads into the open stories (and settling replays):
        those first seen or published within the last ``max(warmup_days, story_window_days)``."""
        return list(self.store.live_documents(0.0 if not self.config.story_window_days else
                                              _time.time() - max(self.config.warmup_days,
                                                                 self.config.story_window_days) * DAY))

    def _warm_stories(self) -> int:
        """Rebuild the open stories from the store: every live item of the last ``story_window_days``
        (before the newest item's time), oldest first, with its stored vectors."""
        self.stories = self._new_tracker()
        self.group_story = {}
        rows = self._open_story_rows()
        if not rows:
            return 0
        stories_of: dict[int, int | None] = {}
        parts_of: dict[int, int] = {}
        added = 0
        for doc, ev in self._stored_evidence(rows):
            if doc.cluster_id is None:
                continue
            if doc.cluster_id not in stories_of:
                c = self.store.get_cluster(doc.cluster_id)
                stories_of[doc.cluster_id] = c.story_id if c is not None else None
                if c is not None and c.story_id is not None:
                    parts_of[doc.cluster_id] = self._evidence_part(c) or c.story_id
            story_id = stories_of[doc.cluster_id]
            if story_id is None:
                continue
            self.stories.add(parts_of[doc.cluster_id], ev, unit=doc.cluster_id, settle=False)
            self.group_story[doc.cluster_id] = story_id
            added += 1
        self.stories.next_id = 1 + max(self.stories.stories, default=0)
        return added

    def settle(self, *, hours: float | None = None, copies: bool = True, progress: bool = False) -> SettleReport:
        """Settle the open window in publication order, both levels: the copy groups
        (``settle_copies``; ``copies=False`` keeps them as they streamed), then the stories over
        them (``settle_stories``). The result is what a feed in time order would have given,
        whatever order the items came in. The report is the stories' with the copy level's part in
        ``copies``; ``seconds`` covers both.

        >>> d = Deduper.open(":memory:", model=None)
        >>> for url, title, at in [("https://a.example/2", "Fed raises rates by 25 basis points", "09:40"),
        ...                        ("https://a.example/1", "Fed raises rates by 25 basis points", "09:00")]:
        ...     _ = d.ingest({"title": title, "url": url, "published_at": f"2026-03-11T{at}:00Z"})
        >>> r = d.settle()
        >>> (r.copies.items, r.copies.moved, r.copies.anchors, r.groups, r.moved)
        (2, 0, 1, 1, 0)
        >>> d.close()
        """
        _check_hours(hours)
        copy_report = self.settle_copies(hours=hours, progress=progress) if copies else None
        report = self.settle_stories(hours=hours, progress=progress)
        report.copies = copy_report
        if copy_report is not None:
            report.seconds += copy_report.seconds
        return report

    def settle_copies(self, *, hours: float | None = None, progress: bool = False) -> CopySettleReport:
        """Re-decide the open window's copy groups in publication order (``service/settle.py``).

        The live items of the open window (what a warm restart reads) whose copy groups lie wholly
        in the window are replayed through the engine's cascade and guards over a fresh candidate
        state, by publication time, then content hash, the items without a publication time after
        them by content hash (``copy_order``); the other groups are held there as they are, as
        context the replayed items may join. A replayed group keeps the stored id
        it shares most items with; a moved item's membership is rewritten with the replay's
        decision and the reason ``copy: settled in publication order, moved from copy group N``,
        and its previous membership kept in ``decision["previous"]``; a group's anchor becomes its
        earliest report (``service.restart.anchor_of``). A new group starts in the story of the
        group most of its items came from until the stories are settled (``settle``). Items the
        replay embeds have their vectors stored. Nothing is deleted; a group whose items all moved
        stays as a row without members. Editors' corrections are honoured: the copy groups holding a
        document a correction names are held as they are (``Constraints.pinned``; the report's
        ``corrected`` says how many corrections that was).

        ``hours``: replay only the copy groups whose items were all published (else first seen)
        within the last ``hours`` before the newest item.
        """
        _check_hours(hours)
        started = _time.perf_counter()
        self._catch_up()
        self._sync_corrections()
        store = self.store
        rows = [(doc, ver) for doc, ver in self._open_story_rows() if doc.cluster_id is not None]
        # Editors' corrections are constraints, not a reason to stop: the groups they name are held.
        corrected, honoured = self.constraints.pinned({doc.id: int(doc.cluster_id) for doc, _ in rows})  # type: ignore[arg-type]
        self._check_settle_model([ver.id for _, ver in rows])
        # What each item counts at: its publication, else when it was first seen.
        when = {doc.id: doc.published_at if doc.published_at is not None else doc.first_seen for doc, _ in rows}
        members: dict[int, list[MembershipRow]] = {}
        for doc, _ in rows:
            if doc.cluster_id not in members:
                members[int(doc.cluster_id)] = store.members_of(int(doc.cluster_id))  # type: ignore[arg-type]
        cut = max(when.values()) - hours * 3600.0 if hours is not None and when else None

        def replayable(group: int) -> bool:
            # A member outside the window is not read, so its group stays as it is (and, with
            # ``hours``, a group with a member older than the cut).
            return group not in corrected and all(
                (t := when.get(m.document_id)) is not None and (cut is None or t >= cut) for m in members[group])

        replayed = {g for g in members if replayable(g)}
        held_rows = [(doc, ver) for doc, ver in rows if doc.cluster_id not in replayed]
        items = copy_order(_copy_item(doc, ver) for doc, ver in rows if doc.cluster_id in replayed)
        report = CopySettleReport(items=len(items), held=len(held_rows), groups_before=len(replayed), corrected=honoured)
        if not items:
            report.seconds = _time.perf_counter() - started
            return report
        state = self._new_state()
        # The held groups, as a restart loads them (their anchors, their stored vectors).
        StateRestart(store, self.config, state, counters=Counter(), model_name=self.model_name, index_path=None,
                     snapshot_path=None).load_docs(held_rows)
        vectors = self._replay_vectors(items, progress)
        report.embedded = sum(fresh for _, fresh in vectors.values())
        confirm_of = (lambda it: self._body_confirm(it.body, it.lang)) if self.config.body_passages else (lambda it: None)
        placed = replay_copies(self.cascade, state, tqdm(items, desc="settling copies", unit="item",
                                                         disable=not progress),
                               vector_of=lambda it: vectors[it.version_id][0] if it.version_id in vectors else None,
                               confirm_of=confirm_of, window_days=self.config.window_days)
        before = {it.doc_id: it.group for it in items}
        held = {int(doc.cluster_id) for doc, _ in held_rows}  # type: ignore[arg-type]
        ids = {g: g for g in held}
        # Each item counts 1; a replayed group's founder half again, so that of two stored groups
        # sharing as many items with it, the one its anchor comes from keeps its id (fewer moves).
        weight = {d: 1.5 if p.matched is None else 1.0 for d, p in placed.items()}
        ids.update(keep_ids(before, {d: p.group for d, p in placed.items() if p.group >= REPLAY_IDS}, weight, held))
        founded = {m.document_id: m.matched_id is None for g in replayed for m in members[g]}
        anchors = {g: anchor_of(members[g]) for g in replayed}
        report.groups_after = len({p.group for p in placed.values()})
        now = _time.time()
        touched: set[int] = set()
        try:
            with store.transaction():
                for it in items:
                    vec, fresh = vectors.get(it.version_id, (None, False))
                    if fresh and vec is not None and self.model_name:
                        store.save_vector(it.version_id, self.model_name, vec.tobytes())
                for new in sorted({p.group for p in placed.values()} - set(ids)):
                    docs = [it.doc_id for it in items if placed[it.doc_id].group == new]
                    source = max(Counter(before[d] for d in docs).items(), key=lambda kv: (kv[1], -kv[0]))[0]
                    ids[new] = store.create_cluster(docs[0], now)
                    src = store.get_cluster(source)
                    if src is not None and src.story_id is not None:
                        store.set_cluster_story(ids[new], src.story_id, None,
                                                f"copy group settled out of copy group {source}: its story until "
                                                f"the stories are settled", now)
                    report.new_groups += 1
                for it in items:
                    p = placed[it.doc_id]
                    target, founder = ids[p.group], p.matched is None
                    if target == it.group and founder == founded[it.doc_id]:
                        continue
                    old = next(m for m in members[it.group] if m.document_id == it.doc_id)
                    why = (f"copy: settled in publication order, moved from copy group {it.group}" if target != it.group
                           else "copy: settled in publication order, " + (
                               "founds its copy group (its earliest report)" if founder else
                               f"a copy of document {p.matched}, no longer the report its group was founded on"))
                    decision = p.decision.to_dict()
                    decision["reasons"].append(why)
                    decision["previous"] = {"cluster_id": old.cluster_id, "stage": old.stage, "score": old.score,
                                            "matched_id": old.matched_id, "decision": old.decision}
                    store.set_membership(it.doc_id, target, now, p.decision.stage, p.decision.score, p.matched,
                                         decision)
                    touched |= {target, it.group}
                    if target != it.group:
                        report.moved += 1
                        report.moves.append({"document_id": it.doc_id, "from_copy_group": it.group,
                                             "to_copy_group": target, "stage": p.decision.stage,
                                             "score": None if p.decision.score is None else round(p.decision.score, 4)})
                for g in sorted(touched):
                    live = store.members_of(g)
                    if g in anchors and anchor_of(live) != anchors[g]:
                        report.anchors += 1
                    self._settle_representative(g, live, now)
                    for m in live:
                        store.record_change(m.document_id, now)
                if self.state.vectors is not None:
                    self.state.vectors.remove(sorted(touched))
                self._catch_up()  # the live state reads the settled groups back, as a restart would
        except BaseException:
            self.warm_up()
            raise
        report.seconds = _time.perf_counter() - started
        return report

    def _replay_vectors(self, items: Sequence[CopyItem], progress: bool) -> dict[int, tuple[np.ndarray, bool]]:
        """Each replayed item's copy-level vector by version id, and whether it was embedded now:
        the stored one, else the text the model sees embedded in batches (streaming embeds only the
        items no cheap stage settled; the replay may need any of them, and the stories' settling
        then reads the same vectors for headlines)."""
        if self.embedder is None or not self.model_name:
            return {}
        stored = self.store.load_vectors([it.version_id for it in items], self.model_name)
        out = {v: (np.frombuffer(raw, dtype=np.float32), False) for v, raw in stored.items()}
        missing = [it for it in items if it.version_id not in out]
        if missing:
            vecs = self._encode_batches([self._embed_text(it.features) for it in missing], progress)
            out.update((it.version_id, (vec, True)) for it, vec in zip(missing, vecs, strict=True))
        return out

    def _encode_batches(self, texts: Sequence[str], progress: bool) -> np.ndarray:
        """``texts`` (at least one) embedded 256 at a time, with a progress bar: settling's bulk
        embedding, which streaming never needed."""
        return np.concatenate([self._encode(texts[k:k + 256]) for k in
                               tqdm(range(0, len(texts), 256), desc="embedding", unit="batch", disable=not progress)])

    def _settle_representative(self, group: int, live: Sequence[MembershipRow], now: float) -> None:
        """After settling moved members: the group's displayed representative by seed 000's rules
        over its members now (the current one kept on a tie)."""
        cands = [c for c in (self._rep_candidate(m.document_id) for m in live) if c is not None]
        cluster = self.store.get_cluster(group)
        if not cands or cluster is None:
            return
        best = best_of(cands, self.url_rules)
        current = next((c for c in cands if c.doc_id == cluster.representative_id), None)
        why = better(best, current, self.url_rules) if current is not None else "the representative left the group"
        if why is not None:
            self.store.set_representative(group, cluster.representative_id, best.doc_id,
                                          f"settled in publication order: {why}", now)

    def _check_settle_model(self, version_ids: list[int]) -> None:
        """Refuse to settle on another model than the store's items were embedded with: both
        levels were decided on that model's vectors (the story weights were fitted on USE's), and
        a replay on another model's, or on words alone, would re-decide them on evidence they were
        never decided on."""
        stored = {m.split("#", 1)[0] for m in self.store.vector_models(version_ids)}
        if stored and (self.model_name or "none") not in stored:
            raise ValueError(f"the store's items were embedded with {', '.join(sorted(stored))}: settle with "
                             f"that model, not {self.model_name or 'none'}")

    def settle_stories(self, *, hours: float | None = None, progress: bool = False) -> SettleReport:
        """Re-decide the open stories in publication order (``service/settle.py``): the story
        level as if the feed had arrived in time order, whatever order it came in.

        Every live item of the open stories (what a warm restart reads) is replayed through a
        fresh story tracker by publication time, then content hash; each copy group is placed by
        its first item there, with revision as in streaming; items without a publication time
        (whose only order is their arrival) follow, copy group by copy group in the order of the
        groups' content hashes (``settle_order``). Items without a story vector (copies
        a cheap stage settled) are embedded now and their vectors stored, so that every member's
        evidence counts whichever member came first. Copy groups are not touched. A group whose
        story changes is moved as a revision is (its story, score and reason stored, ``story:
        settled ...``); a replayed story keeps the id of the stored story it shares most items
        with. Editors' corrections are honoured, not a reason to stop (a replay must never undo an
        editor's split or merge): the copy groups a correction names and every group of a story a
        correction split or merged are held where they are, as context the replayed groups may join
        (``Constraints.pinned``); ``corrected`` in the report counts the corrections honoured.

        ``hours``: replay only the copy groups whose items were all published within the last
        ``hours`` before the newest item; older groups are held where they are, as context the
        replayed ones may join (the settling's cost then follows the recent items, not the
        open stories' whole window).

        >>> d = Deduper.open(":memory:", model=None)
        >>> _ = d.ingest({"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1",
        ...               "published_at": "2026-03-11T09:00:00Z"})
        >>> _ = d.ingest({"title": "Volcano erupts in Iceland", "url": "https://b.example/2"})
        >>> r = d.settle_stories()
        >>> (r.items, r.untimed, r.groups, r.moved, r.skipped)
        (2, 1, 2, 0, None)
        >>> d.close()
        """
        _check_hours(hours)
        started = _time.perf_counter()
        self._catch_up()  # other workers' items into the state first: their anchors time re-runs
        self._sync_corrections()
        rows = [(doc, ver) for doc, ver in self._open_story_rows() if doc.cluster_id is not None]
        # Without a publication time an item's only order is its arrival: such items are replayed
        # after the timed ones, copy group by copy group (service/settle.py, settle_order).
        untimed = sum(doc.published_at is None for doc, _ in rows)
        versions = {doc.id: ver for doc, ver in rows}
        self._check_settle_model([v.id for v in versions.values()])
        before: dict[int, int] = {}
        for doc, _ in rows:
            g = int(doc.cluster_id)  # type: ignore[arg-type]
            if g not in before:
                c = self.store.get_cluster(g)
                if c is not None and c.story_id is not None:
                    before[g] = c.story_id
        items: list[SettleItem] = []
        for doc, ev in self._stored_evidence([(d, v) for d, v in rows if d.cluster_id in before]):
            items.append(SettleItem(doc.id, int(doc.cluster_id), ev,  # type: ignore[arg-type]
                                    versions[doc.id].content_hash, timed=doc.published_at is not None,
                                    published=doc.published_at if doc.published_at is not None else doc.first_seen))
        missing = [i for i, it in enumerate(items) if it.evidence.vector is None]
        embedded = 0
        if missing and self.embedder is not None:
            texts = [story_text(versions[items[i].doc_id].title, versions[items[i].doc_id].body) for i in missing]
            vecs = self._encode_batches(texts, progress)
            with self.store.transaction():
                for i, vec in zip(missing, vecs, strict=True):
                    if self.model_name:
                        self.store.save_vector(versions[items[i].doc_id].id, f"{self.model_name}#story",
                                               vec.tobytes())
                    items[i] = replace(items[i], evidence=replace(items[i].evidence, vector=vec))
            embedded = len(missing)
        held: set[int] = set()
        if hours is not None and items:
            cut = max(it.evidence.time for it in items) - hours * 3600.0
            held = {it.group for it in items if it.evidence.time < cut}
        # Editors' corrections: the groups they name, and every group of a story they split or
        # merged, are held where they are (must-link and cannot-link kept); the rest is replayed
        # and may join them.
        corrected, honoured = self.constraints.pinned({it.doc_id: it.group for it in items}, before)
        held |= corrected
        tracker = self._new_tracker()
        tracker.allocate = None  # the replay's own ids; stored ids are chosen after (keep_ids)
        context = [it for it in items if it.group in held]
        hold(tracker, settle_order(context), before)
        placed = replay(tracker, settle_order([it for it in items if it.group not in held]))
        weight = Counter(it.group for it in items)
        taken = {before[g] for g in held}
        ids = {sid: sid for sid in taken}  # a replayed group that joined a held story goes there
        ids.update(keep_ids(before, {g: p.story for g, p in placed.items() if p.story not in taken}, weight, taken))
        now = _time.time()
        report = SettleReport(items=len(items) - len(context), untimed=untimed, held=len(context), groups=len(placed),
                              stories_before=len({before[g] for g in placed}),
                              stories_after=len({p.story for p in placed.values()}), embedded=embedded,
                              corrected=honoured)
        with self.store.transaction():
            for new in sorted({p.story for p in placed.values()} - set(ids)):
                ids[new] = self.store.create_story(now)
                report.new_stories += 1
            for g, p in sorted(placed.items()):
                target, source = ids[p.story], before[g]
                if target == source:
                    continue
                reason = f"story: settled in publication order, moved from story {source} (score {p.score:.3f})"
                self.store.set_cluster_story(g, target, round(p.score, 6), reason, now)
                self.store.touch_story(target, now)
                self.store.touch_story(source, now)
                report.moved += 1
                report.moves.append({"copy_group_id": g, "from_story": source, "to_story": target,
                                     "score": round(p.score, 4)})
        self._warm_stories()  # the live tracker reads the settled stories back, as a restart would
        report.seconds = _time.perf_counter() - started
        return report

    def _rep_candidate(self, doc_id: int) -> Candidate | None:
        """The displayed representative as ``better`` compares it (from memory, else the store)."""
        if doc_id in self.state.entries:
            e = self.state.entries[doc_id]
            return Candidate(e.doc_id, e.url, e.source, e.features.time)
        doc = self.store.get_document(doc_id)
        if doc is None:
            return None
        return Candidate(doc.id, doc.url, doc.source, doc.published_at if doc.published_at is not None
                         else doc.first_seen)

    def _known_document(self, article: Article, doc: DocumentRow, f: ItemFeatures, chash: str,
                        now: float) -> IngestResult:
        """Same (channel, canonical URL): a re-observation, or a new version of the same document."""
        store = self.store
        ver = store.find_version(doc.id, chash)
        assert doc.cluster_id is not None
        cluster = store.get_cluster(doc.cluster_id)
        rep = cluster.representative_id if cluster else doc.id
        # The document's copy group keeps its story: a re-observation or a new version says which.
        story_id = cluster.story_id if cluster else None
        if ver is not None:
            decision = Decision(True, "url", 1.0, [f"url: same channel '{doc.channel}' and canonical URL, same content"
                                                   f" as version {ver.id}: re-observation"], matched_id=doc.id)
            obs = self._observe(article, doc.id, ver.id, "reobserved", decision, now)
            return IngestResult(obs, doc.id, ver.id, doc.cluster_id, rep, "reobserved", None, decision, id=article.id,
                                story_id=story_id)
        version_id = store.insert_version(doc.id, chash, article.title, article.body, article.lang or "und", now)
        n = len(store.versions_of(doc.id))
        decision = Decision(True, "url", 1.0, [f"url: same channel '{doc.channel}' and canonical URL, changed content:"
                                               f" version {n} of document {doc.id}"], matched_id=doc.id)
        old = self.state.entries.get(doc.id)
        if old is not None:
            entry = Entry(doc.id, version_id, doc.cluster_id, f, old.url, old.source)
            self.state.put(entry)
            model = self.model_name  # set exactly when there is an embedder
            if self.state.reps.get(doc.cluster_id) == doc.id and model is not None:
                vec = self._encode([self._embed_text(f)])[0]
                store.save_vector(version_id, model, vec.tobytes())
                self.state.set_cluster_vector(doc.cluster_id, doc.id, vec)
        store.record_change(doc.id, now)
        obs = self._observe(article, doc.id, version_id, "new_version", decision, now)
        return IngestResult(obs, doc.id, version_id, doc.cluster_id, rep, "new_version", None, decision, id=article.id,
                            story_id=story_id)

    # deletion ------------------------------------------------------------------------------------------
    def delete_document(self, document_id: int) -> bool:
        """Remove a document from the indices and mark it deleted (its rows stay for provenance)."""
        with self.store.transaction():
            self._catch_up()
            doc = self.store.get_document(document_id)
            if doc is None or doc.deleted:
                return False
            now = _time.time()
            self.store.mark_deleted(document_id, now)
            self.state.remove(document_id)
            if doc.cluster_id is not None:
                cluster = self.store.get_cluster(doc.cluster_id)
                live = self.state.entries.docs_of_cluster(doc.cluster_id)
                if cluster is not None and cluster.representative_id == document_id and live:
                    # The best remaining member by seed 000's rules takes the representative's place.
                    cands = [c for c in map(self._rep_candidate, live) if c is not None]
                    new_rep = best_of(cands, self.url_rules).doc_id
                    self.store.set_representative(doc.cluster_id, document_id, new_rep,
                                                  "previous representative deleted", now)
                    self.store.record_change(new_rep, now)
            self.store.record_change(document_id, now)
            last = self.store.max_change()
        self.restart.advance(last)
        return True

    # stateless ----------------------------------------------------------------------------------------
    def _features(self, item: Article | str) -> ItemFeatures:
        a = item if isinstance(item, Article) else Article(title=item)
        t = a.published_at.timestamp() if a.published_at else 0.0
        return ItemFeatures.build(a.title, a.body, a.lang or "und", t, source=a.source, url=a.url)

    def compare(self, a: Article | str, b: Article | str, *, all_scores: bool = False) -> Decision:
        """Stateless pairwise verdict through the same cascade and guards as ``ingest``."""
        return self.compare_pairs([(a, b)], all_scores=all_scores)[0]

    def compare_pairs(self, pairs: Sequence[tuple[Article | str, Article | str]], *, progress: bool = False,
                      all_scores: bool = False, batch_size: int = 512) -> list[Decision]:
        """``compare`` for many pairs, with the embedder called in batches."""
        feats = [(self._features(a), self._features(b)) for a, b in pairs]
        out: list[Decision] = []
        bar = tqdm(total=len(feats), disable=not progress, unit="pair", desc="compare")
        for start in range(0, len(feats), batch_size):
            chunk = feats[start : start + batch_size]
            vec: dict[str, np.ndarray] = {}
            if self.embedder is not None:
                texts = list(dict.fromkeys(self._embed_text(f) for pair in chunk for f in pair))
                if texts:
                    vec = dict(zip(texts, self._encode(texts), strict=True))
            for fa, fb in chunk:
                def vectors(fa: ItemFeatures = fa, fb: ItemFeatures = fb,
                            vec: dict[str, np.ndarray] = vec) -> tuple[np.ndarray, np.ndarray] | None:
                    if not vec:
                        return None
                    return vec[self._embed_text(fa)], vec[self._embed_text(fb)]
                out.append(self.cascade.pair(fa, fb, self.state.ngram, vectors, all_scores=all_scores))
            bar.update(len(chunk))
        bar.close()
        return out

    def dedupe(self, records: Sequence[str | Mapping[str, Any]], *, text_field: str = "text", kind: str = "passage",
               threshold: float | None = None) -> PassageDedupeResult | DedupeResult:
        """Drop near-duplicate texts or records (e.g. retrieved RAG chunks); stores nothing.

        ``kind="passage"`` (chunks, article bodies): ``service.passages`` decides, and the result
        (``PassageDedupeResult``) holds the kept records and the dropped ones with why.
        ``kind="headline"``: the headline cascade and guards, as ``ingest`` (a ``DedupeResult``).
        Records are strings or mappings with a ``text_field``; ``threshold`` overrides the
        embedding-stage threshold for this call. It reads neither the candidate state nor the
        store, so it may run beside an ingest in another thread (the HTTP service does).
        """
        if kind == "passage":
            return self.passages.dedupe(records, text_field=text_field, threshold=threshold)
        if kind != "headline":
            raise ValueError(f"kind must be 'passage' or 'headline', got {kind!r}")
        from service.passages import texts_of

        return self._dedupe_headlines(texts_of(records, text_field)[0], threshold=threshold)

    @property
    def passages(self) -> PassageDeduper:
        """The passage path (``service.passages.PassageDeduper``), built on first use."""
        if self._passages is None:
            from service.passages import PassageDeduper

            encode = self._encode if self.embedder is not None else None
            self._passages = PassageDeduper.with_default_guards(encode) if self.guards is not None \
                else PassageDeduper(encode)
        return self._passages

    def _dedupe_headlines(self, texts: Sequence[str], *, threshold: float | None = None) -> DedupeResult:
        """Each text is matched, in order, against the groups formed so far, through the same
        cascade and guards as ``ingest``."""
        if not isinstance(texts, (list, tuple)) or not all(isinstance(t, str) for t in texts):
            raise ValueError("texts must be a list of strings")
        config = self.config if threshold is None else self.config.replace(embedding_threshold=threshold)
        # An explicit threshold is a cosine threshold: the caller re-thresholds plain similarity.
        scorer = self.scorer if threshold is None or self.scorer is None else CosineScorer(threshold)
        cascade = Cascade(config, self.guards, scorer, verifier=self.verifier)
        state = self._new_state(config)  # headlines only: no body on either side, no encoder needed
        feats = [ItemFeatures.build(t, "", "und", 0.0) for t in texts]
        # The cascade's principle holds here too: only chunks the cheap passes cannot settle
        # against earlier chunks are embedded, in one batch.
        vecs = self._prefetch_vectors(feats, state, cascade)
        decisions: list[Decision] = []
        dup: list[int | None] = []
        for i, f in enumerate(feats):
            text = cascade.embed_text(f)

            def vector_fn(text: str = text) -> np.ndarray | None:
                if self.embedder is None:
                    return None
                if text not in vecs:
                    vecs[text] = self._encode([text])[0]
                return vecs[text]

            if f.empty:
                decisions.append(Decision(False, "none", None, ["empty text"]))
                dup.append(None)
                continue
            m = cascade.match(f, state, vector_fn, None)
            if m.decision.same and m.cluster_id is not None:
                state.put(Entry(i, i, m.cluster_id, f, None, None))
                dup.append(state.reps[m.cluster_id])
            else:
                state.put(Entry(i, i, i, f, None, None))
                state.set_rep(i, i)
                vec = vector_fn()
                if vec is not None:
                    state.set_cluster_vector(i, i, vec)
                dup.append(None)
            decisions.append(m.decision)
        return _group(dup, decisions)

    # reading ---------------------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Store and index counts. ``copy_groups`` and ``indexed_copy_groups`` are the copy groups
        stored and in the candidate index; ``clusters`` and ``indexed_clusters`` are their
        deprecated aliases (the store's table name), removed in the next release."""
        counts = self.store.counts()
        return {
            **counts,
            "copy_groups": counts.get("clusters", 0),
            "indexed_documents": len(self.state.entries),
            "indexed_copy_groups": len(self.state.reps),
            "indexed_clusters": len(self.state.reps),
            "vector_index": len(self.state.vectors) if self.state.vectors is not None else 0,
            "counters": dict(self.counters),
            "model": self.model_name,
            "embedding_cache": _cache_stats(self.embedder),
        }


def _index_path(store: Store, suffix: str = ".faiss") -> Path | None:
    """``<db file><suffix>`` beside a SQLite file store; None for in-memory and server stores.

    ``.faiss`` is the vector index, ``.state.npz`` the state snapshot (``service.snapshot``).
    """
    path = getattr(store, "path", None)
    if not path or path == ":memory:":
        return None
    return Path(f"{path}{suffix}")


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


def _load_url_rules(config: EngineConfig) -> UrlRules:
    rules = UrlRules.default()
    if config.url_rules:
        rules = rules.merged(UrlRules.from_file(Path(config.url_rules)))
    return rules
