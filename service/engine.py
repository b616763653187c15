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

import logging
import threading
import time as _time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from index.exact import ExactIndex
from index.features import ItemFeatures
from index.ngram import GatedNgramIndex
from index.urls import InvalidUrlError, UrlRules
from service.cascade import Cascade, Match
from service.config import EngineConfig
from service.representative import Candidate, better, rank
from service.restart import DAY, StateRestart
from service.scoring import CosineScorer, make_scorer
from service.state import CandidateState, Entry
from service.store import Store, open_store
from service.store.base import DocumentRow
from service.stories import StoryEvidence, StoryTracker, story_text
from service.types import Article, ArticleError, Decision, IngestResult

log = logging.getLogger("samestory.engine")



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


class Deduper(StateRestart):
    """Decides, for each incoming item, whether it copies something already seen.

    Use :meth:`open` rather than the constructor. The embedder is any object with
    ``encode(texts) -> float32 (n, dim)`` L2-normalised rows, ``dim`` and ``name``
    (see ``models.base.Embedder``); ``model=None`` runs the cheap passes only.
    """

    def __init__(self, store: Store, *, embedder: Any = None, config: EngineConfig | None = None,
                 guards: Any = True, url_rules: UrlRules | None = None, warm: bool = True) -> None:
        self.embedder = embedder
        self.model_name = getattr(embedder, "name", None)
        self.config = (config or EngineConfig()).for_model(self.model_name)
        self.store = store
        if guards is True:
            from service.guards import GuardSet

            guards = GuardSet.default()
        elif guards is False:
            guards = None
        self.guards = guards
        self.url_rules = url_rules or _load_url_rules(self.config)
        self.scorer = make_scorer(self.config.embedding_scorer, self.model_name,
                                  cosine_threshold=self.config.embedding_threshold,
                                  threshold=self.config.xling_threshold) if embedder is not None else None
        self.cascade = Cascade(self.config, self.guards, self.scorer)
        self.state = CandidateState(self.config, getattr(embedder, "dim", None) if embedder is not None else None)
        # "checkpoints" is counted by the background writer: created here, so that thread never
        # adds a key while a reader copies the counters.
        self.counters: Counter[str] = Counter(checkpoints=0)
        self.cursor = 0
        self.index_path = _index_path(store)
        self.snapshot_path = _index_path(store, ".state.npz")
        self._max_time = 0.0
        self._since_expiry = 0
        self._vectors_loaded = False  # True only while warm-up uses a persisted vector index
        self._checkpoint_cursor = 0  # the change cursor of the last snapshot written or loaded
        self.checkpoint_seconds: list[float] = []  # how long each checkpoint held up its caller
        self.checkpoint_write_seconds: list[float] = []  # how long each took to write (background)
        self._writer: threading.Thread | None = None
        self._encode_lock = threading.Lock()
        # False after a warm-up that timed out or failed: the state then lacks part of the store,
        # and must not be saved as if it were whole (the next start would trust it).
        self._state_complete = True
        self.warmup_report: dict[str, Any] = {}
        # Editors' must-/cannot-link constraints (service.corrections), consulted before a merge.
        from service.corrections import load_constraints

        self.constraints: Any = load_constraints(store)
        self._passages: Any = None  # service.passages.PassageDeduper, built by ``passages``
        # The story level (service/stories.py): open stories' evidence, and each copy group's story.
        self.stories = self._new_tracker()
        self.group_story: dict[int, int] = {}
        if warm:
            self.warm_up()
        else:  # no history read: the state is whole only if there is no history
            self._state_complete = self.store.max_change() == 0

    # construction -------------------------------------------------------------------------------
    @classmethod
    def open(cls, db: str = ":memory:", *, model: Any = "use", config: EngineConfig | None = None,
             guards: Any = True, device: str = "cpu") -> Deduper:
        """Open an engine on ``db`` (``:memory:``, ``sqlite:///PATH``, ``postgresql://...``).

        ``model`` is an embedder spec for ``models.registry.load_embedder`` ("use", "e5-small",
        "st:PATH", "onnx:DIR"), an embedder object, or None for the cheap passes only.
        """
        config = config or EngineConfig.load()
        embedder = model
        if isinstance(model, str):
            from models.registry import load_embedder

            embedder = load_embedder(model, device=device, shared_cache=config.embedding_cache)
        return cls(open_store(db), embedder=embedder, config=config, guards=guards)

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
                                    a.published_at.timestamp() if a.published_at else now) for a, _ in chunk]
        prefetched = self._prefetch_vectors(feats)
        results = []
        try:
            with self.store.transaction():
                self._catch_up()
                for (article, key), f in zip(chunk, feats, strict=True):
                    results.append(self._ingest_one(article, key, f, now, prefetched))
                last = self.store.max_change()
            self.cursor = max(self.cursor, last)
        except BaseException:
            # The transaction rolled back; the in-memory state may hold its writes. Rebuild it.
            self.warm_up()
            raise
        self._max_time = max([self._max_time, *(f.time for f in feats)])
        self._since_expiry += len(chunk)
        if self._since_expiry >= 5_000:
            self._since_expiry = 0
            self._expire()
        every = self.config.snapshot_every
        if every and self.snapshot_path is not None and self.cursor - self._checkpoint_cursor >= every:
            self.checkpoint(wait=False)
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
        return dropped

    def _prefetch_vectors(self, feats: list[ItemFeatures], state: CandidateState | None = None,
                          config: EngineConfig | None = None) -> dict[str, np.ndarray]:
        """Embed, in one batch, the items the cheap passes cannot settle.

        Each item is checked against the current state and against the earlier items of the
        same batch (syndicated copies often arrive together). An item that a later stage of an
        earlier batch item settles has then been embedded for nothing; that is rare and far
        cheaper than one encoder call per item.
        """
        if self.embedder is None or len(feats) < 2:
            return {}
        cfg = config or self.config
        state = self.state if state is None else state
        window = cfg.window_days * DAY
        # Earlier items of this batch are checked by the two passes that settle most copies
        # (exact and gated n-grams); a MinHash index per batch would cost more than it saves.
        batch_exact, batch_ngram = ExactIndex(), GatedNgramIndex()
        need = []
        for i, f in enumerate(feats):
            w = (f.time - window, f.time + window)
            settled = (
                any(d in state.entries for k in (f.content_key, f.title_key) for d in state.exact.lookup(k))
                or bool(state.ngram.candidates(f.lead, f.grams, window=w, min_score=cfg.ngram_threshold))
                or any(s >= cfg.minhash_threshold for _, s in state.minhash.candidates(f.grams, window=w)[:1])
                or bool(batch_exact.lookup(f.content_key) or batch_exact.lookup(f.title_key))
                or bool(batch_ngram.candidates(f.lead, f.grams, window=w, min_score=cfg.ngram_threshold))
            )
            batch_exact.add(i, [f.content_key, f.title_key])
            batch_ngram.add(i, f.lead, f.grams, f.time)
            if not settled:
                need.append(self._embed_text(f))
        need = list(dict.fromkeys(need))
        if not need:
            return {}
        vecs = self._encode(need)
        return dict(zip(need, vecs, strict=True))

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
        match: Match = self.cascade.match(f, state, vector_fn, window)
        if self.constraints:
            match = self.constraints.review(match, state)
        doc_id = store.insert_document(article.channel, key, article.url, article.source, published, now)
        version_id = store.insert_version(doc_id, chash, article.title, article.body, article.lang or "und", now)
        decision = match.decision
        entry = Entry(doc_id, version_id, 0, f, article.url, article.source)
        if vector is not None and self.model_name:
            store.save_vector(version_id, self.model_name, np.asarray(vector, dtype=np.float32).tobytes())
        if decision.same and match.cluster_id is not None:
            # Joined through the cluster's anchor (or an exact copy of a member): the evidence
            # compared never moves. The displayed representative follows seed 000's rules apart.
            cluster_id = match.cluster_id
            entry.cluster_id = cluster_id
            store.set_membership(doc_id, cluster_id, now, decision.stage, decision.score, match.matched_doc,
                                 decision.to_dict())
            state.put(entry)
            status = "duplicate"
            cluster = store.get_cluster(cluster_id)
            rep = cluster.representative_id if cluster is not None else match.matched_doc
            duplicate_of = rep
            cur = self._rep_candidate(rep) if rep is not None else None
            if cur is not None:
                why = better(Candidate(doc_id, article.url, article.source, f.time), cur, self.url_rules)
                if why is not None:
                    store.set_representative(cluster_id, rep, doc_id, why, now)
                    store.record_change(rep, now)
                    rep = doc_id
            # A copy joins its group's story; its evidence (words, names, its vector) joins too.
            story_id = self.group_story.get(cluster_id)
            if story_id is None and cluster is not None:
                story_id = cluster.story_id
            ev = self._story_evidence(article, f, vector, version_id)
            if story_id is None:  # a group from before stories existed: give it one now
                story_id = self._place_group(cluster_id, ev, now)
            else:
                self.stories.add(story_id, ev)
                self.group_story[cluster_id] = story_id
                store.touch_story(story_id, now)
        else:
            cluster_id = store.create_cluster(doc_id, now)
            entry.cluster_id = cluster_id
            store.set_membership(doc_id, cluster_id, now, decision.stage, decision.score, None, decision.to_dict())
            state.put(entry)
            state.set_rep(cluster_id, doc_id)
            if vector is not None:
                state.set_cluster_vector(cluster_id, doc_id, vector)
            rep, status, duplicate_of = doc_id, "new", None
            story_id = self._place_group(cluster_id, self._story_evidence(article, f, vector, version_id), now)
        store.record_change(doc_id, now)
        obs = store.insert_observation(doc_id, version_id, article.channel, article.url, article.source, article.id,
                                       now, status, decision.to_dict())
        return IngestResult(obs, doc_id, version_id, cluster_id, rep, status, duplicate_of, decision,  # type: ignore[arg-type]
                            id=article.id, story_id=story_id,
                            matched_copy=match.matched_doc if decision.same else None)

    # stories ---------------------------------------------------------------------------------------------
    def _new_tracker(self) -> StoryTracker:
        veto = None
        if self.config.story_slot_veto and self.guards is not None:
            from service.guards.storyveto import SlotVeto

            veto = SlotVeto.from_guards(self.guards)
        return StoryTracker(threshold=self.config.story_threshold, window_days=self.config.story_window_days,
                            veto=veto)

    def _story_evidence(self, article: Article, f: ItemFeatures, vector: np.ndarray | None, version_id: int,
                        *, embed: bool = True) -> StoryEvidence:
        """The item's story evidence. Its vector is the copy level's when both read the same text
        (headlines); an article with a body is embedded again on more of its body (``story_text``),
        and that vector is stored for warm restarts. Copies bring their vectors too: a story's
        evidence is every member's, as the story score was calibrated (a translation that joined
        its original's group is the story's cross-language evidence)."""
        text = story_text(article.title, article.body)
        story_vec = None
        if self.embedder is not None:
            if text == self._embed_text(f):
                story_vec = vector
            elif embed:
                story_vec = self._encode([text])[0]
                if self.model_name:
                    self.store.save_vector(version_id, f"{self.model_name}#story", story_vec.tobytes())
        return StoryEvidence.build(article.title, article.body, article.lang or "und", f.time, story_vec)

    def _place_group(self, cluster_id: int, ev: StoryEvidence, now: float) -> int:
        """The story decision for a new copy group: join the best open story or open one."""
        m = self.stories.match(ev)
        story_id = m.story_id if m.story_id is not None else self.store.create_story(now)
        self.stories.add(story_id, ev)
        self.group_story[cluster_id] = story_id
        self.store.set_cluster_story(cluster_id, story_id, round(m.score, 6) if m.story_id is not None else None,
                                     m.reason if m.story_id is not None else f"new story ({m.reason})", now)
        return story_id

    def _warm_stories(self) -> int:
        """Rebuild the open stories from the store: every live item of the last ``story_window_days``
        (before the newest item's time), oldest first, with its stored vectors."""
        self.stories = self._new_tracker()
        self.group_story = {}
        rows = list(self.store.live_documents(0.0 if not self.config.story_window_days else
                                              _time.time() - max(self.config.warmup_days,
                                                                 self.config.story_window_days) * DAY))
        rows.sort(key=lambda r: r[0].id)
        if not rows:
            return 0
        vectors: dict[int, bytes] = {}
        story_vectors: dict[int, bytes] = {}
        if self.model_name and self.embedder is not None:
            ids = [v.id for _, v in rows]
            vectors = self.store.load_vectors(ids, self.model_name)
            story_vectors = self.store.load_vectors(ids, f"{self.model_name}#story")
        stories_of: dict[int, int | None] = {}
        added = 0
        for doc, ver in rows:
            if doc.cluster_id is None:
                continue
            if doc.cluster_id not in stories_of:
                c = self.store.get_cluster(doc.cluster_id)
                stories_of[doc.cluster_id] = c.story_id if c is not None else None
            story_id = stories_of[doc.cluster_id]
            if story_id is None:
                continue
            t = doc.published_at if doc.published_at is not None else doc.first_seen
            raw = story_vectors.get(ver.id)
            if raw is None and story_text(ver.title, ver.body) == self.cascade.embed_text(
                    ItemFeatures.build(ver.title, ver.body, ver.lang, t, content_sha=ver.content_hash)):
                raw = vectors.get(ver.id)
            vec = np.frombuffer(raw, dtype=np.float32) if raw is not None else None
            self.stories.add(story_id, StoryEvidence.build(ver.title, ver.body, ver.lang, t, vec))
            self.group_story[doc.cluster_id] = story_id
            added += 1
        self.stories.next_id = 1 + max(self.stories.stories, default=0)
        return added

    def warm_up(self) -> dict[str, Any]:
        report = super().warm_up()
        self.warmup_report["story_items"] = self._warm_stories()
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
            obs = store.insert_observation(doc.id, ver.id, article.channel, article.url, article.source, article.id,
                                           now, "reobserved", decision.to_dict())
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
            if self.state.reps.get(doc.cluster_id) == doc.id and self.embedder is not None:
                vec = self._encode([self._embed_text(f)])[0]
                store.save_vector(version_id, self.model_name, vec.tobytes())
                self.state.set_cluster_vector(doc.cluster_id, doc.id, vec)
        store.record_change(doc.id, now)
        obs = store.insert_observation(doc.id, version_id, article.channel, article.url, article.source, article.id,
                                       now, "new_version", decision.to_dict())
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
                    new_rep = max(cands, key=lambda c: (rank(c, self.url_rules), -c.doc_id)).doc_id
                    self.store.set_representative(doc.cluster_id, document_id, new_rep,
                                                  "previous representative deleted", now)
                    self.store.record_change(new_rep, now)
            self.store.record_change(document_id, now)
            last = self.store.max_change()
        self.cursor = max(self.cursor, last)
        return True

    # stateless ----------------------------------------------------------------------------------------
    def _features(self, item: Article | str) -> ItemFeatures:
        a = item if isinstance(item, Article) else Article(title=item)
        t = a.published_at.timestamp() if a.published_at else 0.0
        return ItemFeatures.build(a.title, a.body, a.lang or "und", t)

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

    def dedupe(self, records: Sequence[Any], *, text_field: str = "text", kind: str = "passage",
               threshold: float | None = None) -> Any:
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
    def passages(self) -> Any:
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
        cascade = Cascade(config, self.guards, scorer)
        state = CandidateState(config, getattr(self.embedder, "dim", None) if self.embedder is not None else None)
        feats = [ItemFeatures.build(t, "", "und", 0.0) for t in texts]
        # The cascade's principle holds here too: only chunks the cheap passes cannot settle
        # against earlier chunks are embedded, in one batch.
        vecs = self._prefetch_vectors(feats, state, config)
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
        counts = self.store.counts()
        return {
            **counts,
            "indexed_documents": len(self.state.entries),
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
        rules = rules.merged(UrlRules.from_file(config.url_rules))
    return rules
