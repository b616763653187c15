"""What every part of the engine reads: the store, the configuration, the encoder, the cascade,
the candidate state (through ``restart``) and the editors' constraints, in one object.

The engine (``service.engine.Deduper``) is a facade over collaborators that each do one job: the
copy level (``service.copy_level``), the story level (``service.story_level``), settling
(``service.settling``) and the stateless comparisons (``service.stateless``). They share one
:class:`EngineContext`, so a warm-up that replaces the candidate state, or an editor's correction
that replaces the constraints, is seen by all of them at once.
"""

from __future__ import annotations

import threading
import time as _time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from index.features import ItemFeatures
from index.urls import UrlRules
from models.base import Embedder
from service.ahead import vectors_ahead
from service.cascade import Cascade
from service.config import EngineConfig
from service.corrections import Constraints, load_constraints
from service.representative import Candidate
from service.restart import StateRestart
from service.scoring import EmbeddingScorer, make_scorer
from service.state import CandidateState
from service.store import Store

if TYPE_CHECKING:
    from models.verifier import LazyVerifier, PairVerifierLike
    from service.guards import GuardSet
    from service.passages import PassageDeduper


@dataclass(eq=False)
class EngineContext:
    """The engine's shared parts (``build`` makes them as the engine always has)."""

    store: Store
    config: EngineConfig
    embedder: Embedder | None
    model_name: str | None
    guards: GuardSet | None
    url_rules: UrlRules
    scorer: EmbeddingScorer | None
    verifier: PairVerifierLike | None
    cascade: Cascade
    counters: Counter[str]
    restart: StateRestart
    # Editors' must-/cannot-link constraints (service.corrections), consulted at story decisions.
    # ``service.corrections.attach`` replaces them: read them here each time.
    constraints: Constraints
    encode_lock: threading.Lock = field(default_factory=threading.Lock)
    _passages: PassageDeduper | None = None  # built on first use by ``passages``

    @classmethod
    def build(cls, store: Store, *, embedder: Embedder | None, config: EngineConfig | None, guards: GuardSet | None,
              url_rules: UrlRules | None, verifier: PairVerifierLike | None) -> EngineContext:
        model_name = embedder.name if embedder is not None else None
        config = (config or EngineConfig()).for_model(model_name)
        url_rules = url_rules or load_url_rules(config)
        scorer = make_embedding_scorer(config, embedder, model_name)
        # The pair verifier (EngineConfig.copy.verifier, issue 35): one per engine, its artefact read on
        # first use (or at warm_verifier). A verifier passed in is used whatever the config says.
        if verifier is None and config.copy.verifier:
            verifier = engine_verifier(config)
        # "checkpoints" is counted by the background writer: created here, so that thread never
        # adds a key while a reader copies the counters.
        counters: Counter[str] = Counter(checkpoints=0)
        cascade = Cascade(config, guards, scorer, verifier=verifier, counters=counters)
        restart = StateRestart(store, config, new_state(config, embedder), counters=counters, model_name=model_name,
                               index_path=index_path(store), snapshot_path=index_path(store, ".state.npz"))
        ctx = cls(store, config, embedder, model_name, guards, url_rules, scorer, verifier, cascade, counters, restart,
                  load_constraints(store))
        if embedder is not None:
            cascade.use_encoder(ctx.encode)
        return ctx

    @property
    def state(self) -> CandidateState:
        """The candidate state the cascade searches (a warm-up replaces it: read it here each time)."""
        return self.restart.state

    def new_state(self, config: EngineConfig | None = None) -> CandidateState:
        return new_state(config or self.config, self.embedder)

    def catch_up(self, limit: int | None = None) -> int:
        """Replay other writers' changes into the state (``StateRestart.catch_up``)."""
        return self.restart.catch_up(limit)

    # embedding --------------------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        # The HTTP service runs dedupe beside ingestion (Service.call_stateless): both count here.
        if self.embedder is None:
            raise RuntimeError("this engine has no embedder (model=None)")
        self.count_encoder(len(texts))
        return np.asarray(self.embedder.encode(list(texts)), dtype=np.float32)

    def count_encoder(self, texts: int) -> None:
        """One call of the encoder with ``texts`` texts, in the engine's counters."""
        with self.encode_lock:
            self.counters["encoder_texts"] += texts
            self.counters["encoder_calls"] += 1

    def encode_batches(self, texts: Sequence[str], progress: bool) -> np.ndarray:
        """``texts`` (at least one) embedded 256 at a time, with a progress bar: settling's bulk
        embedding, which streaming never needed."""
        return np.concatenate([self.encode(texts[k:k + 256]) for k in
                               tqdm(range(0, len(texts), 256), desc="embedding", unit="batch", disable=not progress)])

    def embed_text(self, f: ItemFeatures) -> str:
        return self.cascade.embed_text(f)

    def unsettled_texts(self, feats: list[ItemFeatures], state: CandidateState | None = None,
                        cascade: Cascade | None = None) -> list[str]:
        """The distinct texts to embed of the items the cheap stages cannot settle
        (``Cascade.cheaply_unsettled``: against the state and the earlier items of the same batch,
        where syndicated copies often arrive together), in the items' order."""
        if self.embedder is None or len(feats) < 2:
            return []
        cascade = cascade or self.cascade
        state = self.state if state is None else state
        return list(dict.fromkeys(cascade.embed_text(feats[i]) for i in cascade.cheaply_unsettled(feats, state)))

    def prefetch_vectors(self, feats: list[ItemFeatures], state: CandidateState | None = None,
                         cascade: Cascade | None = None) -> dict[str, np.ndarray]:
        """Embed, in one batch, the items the cheap stages cannot settle (``unsettled_texts``)."""
        need = self.unsettled_texts(feats, state, cascade)
        return dict(zip(need, self.encode(need), strict=True)) if need else {}

    def encode_ahead(self, feats: list[ItemFeatures]) -> Mapping[str, np.ndarray]:
        """The texts ``prefetch_vectors`` would embed, with their vectors: the ingest's batches.
        With the encoder in a process of its own they arrive while the batch is decided
        (``service.ahead``); otherwise they are embedded now, in one call."""
        return vectors_ahead(self.embedder, self.encode, self.unsettled_texts(feats), self.count_encoder)

    @property
    def passages(self) -> PassageDeduper:
        """The passage path (``service.passages.PassageDeduper``), built on first use."""
        if self._passages is None:
            from service.passages import PassageDeduper

            encode = self.encode if self.embedder is not None else None
            passage = self.config.passage  # the [engine.passage] settings (service.config.PassageConfig)
            self._passages = PassageDeduper.with_default_guards(encode, passage) if self.guards is not None \
                else PassageDeduper(encode, config=passage)
        return self._passages

    # warming single parts up (``Deduper.warm_up`` rebuilds the state; these load what a first
    # request would otherwise wait for, and record the seconds in ``restart.warmup_report``) ----------
    def warm_encoder(self) -> float:
        """Load the model and run it once on a short text, so the first request does not pay for it.

        The bundled USE reads its weights on first use (~1.5 s here), which a server would
        otherwise add to its first ingest or dedupe. Not counted in ``counters`` (no item was
        embedded). Returns the seconds it took (0.0 without a model); the service's start-up
        records it in ``warmup_report["encoder_s"]``.
        """
        if self.embedder is None:
            return 0.0
        embedder = self.embedder
        return self._timed_warm_up("encoder_s", lambda: embedder.encode(["samestory warm-up"]))

    def warm_guards(self) -> float:
        """Run the guards once on a Korean-English pair, so the first request does not pay for
        loading them: the Korean analyser (kiwipiepy) loads on first use, 2.4 s on a fresh server
        (issue 36), and the slot tables are read then too. Returns the seconds it took (0.0 with
        guards off); the service's start-up records it in ``warmup_report["guards_s"]``."""
        if self.guards is None:
            return 0.0
        from service.guards import GuardInput

        guards = self.guards
        ko, en = "한국은행, 기준금리 연 3.50%로 동결", "Bank of Korea holds key rate at 3.50%"
        return self._timed_warm_up("guards_s", lambda: guards.check(GuardInput(title=ko, text=ko, lang="ko"),
                                                                    GuardInput(title=en, text=en, lang="en")))

    def warm_verifier(self) -> float:
        """Load the pair verifier and run it once, so the first request does not pay for reading
        its artefact and tokenizer (a few seconds). Returns the seconds it took (0.0 with the
        verifier off); the service's start-up records it in ``warmup_report["verifier_s"]``."""
        if self.verifier is None:
            return 0.0
        verifier = self.verifier
        return self._timed_warm_up("verifier_s", lambda: verifier.score(["한국은행, 기준금리 연 3.50%로 동결"],
                                                                        ["Bank of Korea holds key rate at 3.50%"]))

    def _timed_warm_up(self, key: str, run: Callable[[], object]) -> float:
        """Run one part's warm-up; record its seconds in ``restart.warmup_report[key]``."""
        t0 = _time.perf_counter()
        run()
        seconds = _time.perf_counter() - t0
        self.restart.warmup_report[key] = round(seconds, 3)
        return seconds

    def rep_candidate(self, doc_id: int) -> Candidate | None:
        """The displayed representative as ``better`` compares it (from memory, else the store)."""
        if doc_id in self.state.entries:
            e = self.state.entries[doc_id]
            return Candidate(e.doc_id, e.url, e.source, e.features.time)
        doc = self.store.get_document(doc_id)
        if doc is None:
            return None
        return Candidate(doc.id, doc.url, doc.source, doc.published_at if doc.published_at is not None
                         else doc.first_seen)


def engine_verifier(config: EngineConfig, path: Path | str | None = None) -> LazyVerifier:
    """The pair verifier as the engine runs it, loaded on first use: the artefact at ``path``
    (default the shipped one), its layers as an fp32 ONNX graph (the same P as the numpy layers
    within 1e-5, 1.6-1.9x faster: ``python -m bench.verifier_backends``; int8 is faster still but
    moves P, so not here), on ``operations.verifier_threads`` threads."""
    from models.verifier import LazyVerifier

    return LazyVerifier(path, threads=config.operations.verifier_threads, backend="onnx")


def new_state(config: EngineConfig, embedder: Embedder | None) -> CandidateState:
    return CandidateState(config, embedder.dim if embedder is not None else None)


def make_embedding_scorer(config: EngineConfig, embedder: Embedder | None,
                          model_name: str | None) -> EmbeddingScorer | None:
    """The embedding stage's scorer; None without a model (``for_model`` gave a model its threshold)."""
    cosine = config.copy.embedding_threshold
    if embedder is None or cosine is None:
        return None
    return make_scorer(cosine)


def index_path(store: Store, suffix: str = ".faiss") -> Path | None:
    """``<db file><suffix>`` beside a SQLite file store; None for in-memory and server stores.

    ``.faiss`` is the vector index, ``.state.npz`` the state snapshot (``service.snapshot``).
    """
    path = getattr(store, "path", None)
    if not path or path == ":memory:":
        return None
    return Path(f"{path}{suffix}")


def load_url_rules(config: EngineConfig) -> UrlRules:
    rules = UrlRules.default()
    if config.operations.url_rules:
        rules = rules.merged(UrlRules.from_file(Path(config.operations.url_rules)))
    return rules
