"""The cascade: cheap stages first, each able to settle an item; guards vet every proposed merge.

Used in two ways with the same stage functions and the same guards:
- ``match``: a new item against the candidate state (ingest and stateless dedupe);
- ``pair``: two items against each other (``compare`` and labelled-pair evaluation).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np

from index.features import ItemFeatures
from index.minhash import jaccard
from index.ngram import GatedNgramIndex
from service.config import EngineConfig
from service.scoring import CosineScorer, EmbeddingScorer, Scored
from service.state import CandidateState
from service.types import Decision, GuardVerdict

if TYPE_CHECKING:
    from service.guards import GuardInput, GuardSet

VectorFn = Callable[[], "np.ndarray | None"]


@dataclass
class Match:
    decision: Decision
    cluster_id: int | None = None
    matched_doc: int | None = None


@dataclass
class _Trace:
    """Evidence gathered while walking the stages for one item."""

    reasons: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)
    guards: list[GuardVerdict] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    tried: set[int] = field(default_factory=set)
    best: tuple[str, float] | None = None

    def saw(self, stage: str, score: float) -> None:
        self.scores[stage] = max(score, self.scores.get(stage, float("-inf")))
        if self.best is None or score > self.best[1]:
            self.best = (stage, score)


def guard_input(f: ItemFeatures) -> GuardInput:
    from service.guards import GuardInput

    published = datetime.fromtimestamp(f.time, tz=timezone.utc) if f.time else None
    return GuardInput(title=f.title, text=f.guard_text(), lang=f.lang, published_at=published)


class Cascade:
    def __init__(self, config: EngineConfig, guards: GuardSet | None, scorer: EmbeddingScorer | None = None) -> None:
        self.config = config
        self.guards = guards
        self.scorer: EmbeddingScorer = scorer or CosineScorer(config.embedding_threshold)

    def embed_text(self, f: ItemFeatures) -> str:
        return f.embed_text(self.config.embed_body_lead)

    # guards ----------------------------------------------------------------------------------------
    def vet(self, a: ItemFeatures, b: ItemFeatures) -> tuple[bool, list[GuardVerdict]]:
        """(allowed, verdicts). With guards off every merge is allowed."""
        if self.guards is None:
            return True, []
        verdicts = self.guards.check(guard_input(a), guard_input(b))
        return not any(v.blocked for v in verdicts), verdicts

    def confirm_band(self, cosine: float | None) -> bool:
        """The cosine lies in the slot-confirmation band: at or above ``slot_confirm_threshold``,
        below the embedding threshold (``EngineConfig``; empty with guards off or no value)."""
        low = self.config.slot_confirm_threshold
        high = self.config.embedding_threshold
        return (self.guards is not None and low is not None and high is not None and cosine is not None
                and low <= cosine < high)

    def slot_confirm(self, a: ItemFeatures, b: ItemFeatures) -> tuple[bool, str, list[GuardVerdict]]:
        """(confirmed, evidence, verdicts): every guard passes and every slot aligns
        (``service/guards/confirm.py``). Call only for a pair in :meth:`confirm_band`."""
        assert self.guards is not None
        ga, gb = guard_input(a), guard_input(b)
        if not self.guards.confirmable(ga, gb):  # same language: no need to ask every guard
            return False, "slots: not a Korean-English pair", []
        verdicts = self.guards.check(ga, gb)
        c = self.guards.confirm(ga, gb, verdicts)
        return c.confirmed, c.evidence, verdicts

    def _propose(self, trace: _Trace, stage: str, score: float, reason: str, new: ItemFeatures,
                 other: ItemFeatures) -> bool:
        allowed, verdicts = self.vet(new, other)
        if allowed:
            trace.reasons.append(reason)
            trace.reasons.extend(f"guard {v.evidence}" for v in verdicts if v.decided and v.evidence)
            trace.guards = verdicts
            return True
        blocking = [v for v in verdicts if v.blocked]
        trace.reasons.append(f"{reason}, vetoed: " + "; ".join(v.evidence or v.guard for v in blocking))
        for v in blocking:
            if v.guard not in trace.blocked_by:
                trace.blocked_by.append(v.guard)
        trace.guards = verdicts
        return False

    # one item against the candidate state ----------------------------------------------------------
    def match(self, f: ItemFeatures, state: CandidateState, vector_fn: VectorFn,
              window: tuple[float, float] | None, *, exclude_doc: int | None = None) -> Match:
        cfg = self.config
        trace = _Trace()
        entries = state.entries

        def settle(stage: str, score: float, doc: int) -> Match:
            cluster = entries.cluster_of(doc)
            return Match(Decision(True, stage, score, trace.reasons, trace.blocked_by, matched_id=doc,
                                  scores=trace.scores, guards=trace.guards), cluster, doc)

        def in_window(doc: int) -> bool:
            return window is None or window[0] <= entries.time_of(doc) <= window[1]

        # 1. exact: identical normalised title+body, then identical title. Any member counts.
        for key, what in ((f.content_key, "same normalised title and body"), (f.title_key, "same normalised title")):
            for doc in state.exact.lookup(key):
                if doc == exclude_doc or doc not in entries or not in_window(doc):
                    continue
                cluster = entries.cluster_of(doc)
                if cluster in trace.tried:
                    continue
                trace.tried.add(cluster)
                trace.saw("exact", 1.0)
                if self._propose(trace, "exact", 1.0, f"exact: {what} as document {doc}", f, entries.features(doc)):
                    return settle("exact", 1.0, doc)

        def walk(stage: str, hits: Iterable[tuple[int, float]], threshold: float,
                 describe: Callable[[int, float], str]) -> Match | None:
            """Propose each representative above ``threshold``, best first, until a guard lets one through."""
            for doc, score in hits:
                trace.saw(stage, score)
                if score < threshold:
                    break
                cluster = entries.cluster_of(doc)
                if doc == exclude_doc or cluster in trace.tried:
                    continue
                trace.tried.add(cluster)
                if self._propose(trace, stage, score, describe(doc, score), f, entries.features(doc)):
                    return settle(stage, score, doc)
            return None

        # 2. subject-gated IDF-weighted 3-gram Jaccard against representatives in the same bucket.
        # An empty lead token buckets with other empty keys (seed 000): the gate steps aside.
        found = walk("ngram", state.ngram.candidates(f.lead, f.grams, window=window), cfg.ngram_threshold,
                     lambda doc, s: f"ngram: weighted 3-gram Jaccard {s:.3f} >= {cfg.ngram_threshold} "
                                    f"with representative {doc} (lead '{f.lead}')")
        if found:
            return found

        # 3. MinHash LSH across the history, verified by exact Jaccard.
        found = walk("minhash", state.minhash.candidates(f.grams, window=window), cfg.minhash_threshold,
                     lambda doc, s: f"minhash: 3-gram Jaccard {s:.3f} >= {cfg.minhash_threshold} with representative {doc}")
        if found:
            return found

        # 4. Embedding: only survivors get here. The index holds one vector per cluster.
        last_stage = "minhash"
        if state.vectors is not None:
            last_stage = "embedding"
            vec = vector_fn()
            if vec is not None and len(state.vectors):
                hits = state.vectors.search(vec.reshape(1, -1), cfg.embedding_k, window=window)[0]
                # A learned scorer may lift a pair above its threshold on lexical evidence, so it
                # sees every hit above a low cosine floor; plain cosine needs no floor.
                floor = cfg.embedding_floor if self.scorer.learned else cfg.embedding_threshold
                if self.confirm_band(cfg.slot_confirm_threshold):  # hits in the slot-confirmed band too
                    floor = min(floor, cfg.slot_confirm_threshold)  # type: ignore[type-var]
                clusters = [c for c, s in hits if c in state.reps and s >= floor]
                reps = [state.reps[c] for c in clusters]
                if reps:
                    rep_feats = [entries.features(r) for r in reps]
                    scored = self.scorer.score(f, vec, rep_feats, state.vectors.get(clusters),
                                               (self.embed_text(f), [self.embed_text(rf) for rf in rep_feats]))
                    by_doc = dict(zip(reps, scored, strict=True))
                    for sc in scored:
                        trace.scores["cosine"] = max(sc.cosine, trace.scores.get("cosine", float("-inf")))
                    ranked = sorted(((r, sc.score) for r, sc in by_doc.items()), key=lambda x: -x[1])
                    t = self.scorer.threshold
                    found = walk("embedding", ranked, t,
                                 lambda doc, s: f"embedding: {by_doc[doc].describe(t, self.scorer.learned)} with cluster "
                                                f"{entries.cluster_of(doc)} (representative {doc})")
                    if found:
                        return found
                    found = self._confirm_hits(trace, f, by_doc, entries, exclude_doc, settle)
                    if found:
                        return found
                elif hits:
                    trace.saw("embedding", hits[0][1] if not self.scorer.learned else 0.0)
                    trace.scores["cosine"] = hits[0][1]
        stage, score = trace.best if trace.best else (last_stage, None)
        if not trace.reasons:
            trace.reasons.append("no candidate above any stage's threshold")
        return Match(Decision(False, stage if trace.blocked_by else last_stage,
                              score if trace.blocked_by else trace.scores.get(last_stage),
                              trace.reasons, trace.blocked_by, scores=trace.scores, guards=trace.guards))

    def _confirm_hits(self, trace: _Trace, f: ItemFeatures, by_doc: dict[int, Scored], entries: Any,
                      exclude_doc: int | None, settle: Callable[[str, float, int], Match]) -> Match | None:
        """The embedding hits no stage took whose cosine is in the slot-confirmed band, best
        first: the first one whose slots all align (and every guard passes) is the match."""
        for doc, sc in sorted(by_doc.items(), key=lambda x: -x[1].cosine):
            if not self.confirm_band(sc.cosine):
                continue
            cluster = entries.cluster_of(doc)
            if doc == exclude_doc or cluster in trace.tried:
                continue
            trace.tried.add(cluster)
            ok, why, verdicts = self.slot_confirm(f, entries.features(doc))
            if ok:
                trace.reasons.append(f"embedding: cosine {sc.cosine:.3f} >= {self.config.slot_confirm_threshold} "
                                     f"(slot-confirmed band, below {self.config.embedding_threshold}) with cluster "
                                     f"{cluster} (representative {doc}), {why}")
                trace.reasons.extend(f"guard {v.evidence}" for v in verdicts if v.decided and v.evidence)
                trace.guards = verdicts
                return settle("embedding", sc.cosine, doc)
        return None

    # two items against each other -----------------------------------------------------------------
    def pair(self, a: ItemFeatures, b: ItemFeatures, idf: GatedNgramIndex,
             vectors: Callable[[], tuple[np.ndarray, np.ndarray] | None], *, all_scores: bool = False) -> Decision:
        """The same stages as ``match``, applied to one pair (stateless ``compare``)."""
        cfg = self.config
        scores: dict[str, float] = {}
        proposal: tuple[str, float, str] | None = None
        if a.content_key == b.content_key or a.title_key == b.title_key:
            scores["exact"] = 1.0
            what = "title and body" if a.content_key == b.content_key else "title"
            proposal = ("exact", 1.0, f"exact: same normalised {what}")
        else:
            scores["exact"] = 0.0
        if proposal is None or all_scores:
            gated = a.lead == b.lead
            s = idf.score(a.grams, b.grams) if gated else 0.0
            scores["ngram"] = s
            if proposal is None and gated and s >= cfg.ngram_threshold:
                proposal = ("ngram", s, f"ngram: weighted 3-gram Jaccard {s:.3f} >= {cfg.ngram_threshold} (lead '{a.lead}')")
        if proposal is None or all_scores:
            s = jaccard(a.grams, b.grams)
            scores["minhash"] = s
            if proposal is None and s >= cfg.minhash_threshold:
                proposal = ("minhash", s, f"minhash: 3-gram Jaccard {s:.3f} >= {cfg.minhash_threshold}")
        if proposal is None or all_scores:
            pair_vecs = vectors()
            if pair_vecs is not None:
                va, vb = pair_vecs
                sc = self.scorer.score(a, va, [b], vb.reshape(1, -1), (self.embed_text(a), [self.embed_text(b)]))[0]
                scores["embedding"] = sc.score
                scores["cosine"] = sc.cosine
                t = self.scorer.threshold
                if proposal is None and sc.score >= t:
                    proposal = ("embedding", sc.score, f"embedding: {sc.describe(t, self.scorer.learned)}")
        if proposal is None and self.confirm_band(scores.get("cosine")):
            cos = scores["cosine"]
            ok, why, verdicts = self.slot_confirm(a, b)
            if ok:
                reasons = [f"embedding: cosine {cos:.3f} >= {self.config.slot_confirm_threshold} (slot-confirmed "
                           f"band, below {self.config.embedding_threshold}), {why}"]
                reasons += [f"guard {v.evidence}" for v in verdicts if v.decided and v.evidence]
                return Decision(True, "embedding", cos, reasons, scores=scores, guards=verdicts)  # type: ignore[arg-type]
        if proposal is None:
            last = "embedding" if "embedding" in scores else "minhash"
            return Decision(False, last, scores.get(last), ["no stage reached its threshold"], scores=scores)
        stage, score, reason = proposal
        allowed, verdicts = self.vet(a, b)
        reasons = [reason]
        if allowed:
            reasons += [f"guard {v.evidence}" for v in verdicts if v.decided and v.evidence]
            return Decision(True, stage, score, reasons, scores=scores, guards=verdicts)  # type: ignore[arg-type]
        blocking = [v for v in verdicts if v.blocked]
        reasons.append("vetoed: " + "; ".join(v.evidence or v.guard for v in blocking))
        return Decision(False, stage, score, reasons, [v.guard for v in blocking], scores=scores,  # type: ignore[arg-type]
                        guards=verdicts)
