"""Pair evaluation: run a method over labelled pairs and score its verdicts, overall and per kind.

A method's output is one :class:`Prediction` per pair. ``rank_score`` is the number AP and
recall@precision rank by:

* samestory: the embedding cosine (``Decision.scores["embedding"]``), and ``-inf`` for a pair a
  guard blocked, because such a pair can never merge whatever the threshold. Where the engine
  gave no embedding score the verdict itself is used (``+inf`` merged, ``-inf`` not). So AP
  measures how well the cosine separates the pairs *given the guards*; the decision columns
  (precision, recall, F1) measure the whole cascade.
* baselines: the method's own score (MinHash Jaccard, weighted 3-gram Jaccard, count cosine,
  embedding cosine), ``-inf`` where the method's gate rules the pair out.

Kinds are reported separately; the pooled row of a set mixes kinds whose labels mean
different things (translation vs same story vs STS >= 4), so read it with the per-kind rows.

>>> from eval.data import Side
>>> ps = [Pair("1", Side("a", "en"), Side("b", "en"), 1, "k"), Pair("2", Side("c", "en"), Side("d", "en"), 0, "k")]
>>> preds = [Prediction("1", True, 0.9, "embedding", (), 0.9), Prediction("2", True, 0.7, "embedding", (), 0.7)]
>>> r = evaluate("toy", ps, preds)
>>> r.confusion.tp, r.confusion.fp, r.average_precision, r.by_kind["k"].confusion.precision
(1, 1, 1.0, 0.5)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.baselines.base import Baseline
from eval.data import Pair
from eval.metrics import Confusion, average_precision, confusion, recall_at_precision

INF = float("inf")


@dataclass(frozen=True)
class Prediction:
    """One method's decision on one pair."""

    id: str
    same: bool
    score: float | None
    stage: str
    blocked_by: tuple[str, ...]
    rank_score: float
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``--predictions`` line: ``{"id", "same", "score", "stage", "blocked_by"}`` (+ scores)."""
        return {"id": self.id, "same": self.same,
                "score": None if self.score is None or not math.isfinite(self.score) else round(self.score, 6),
                "stage": self.stage, "blocked_by": list(self.blocked_by),
                "scores": {k: round(float(v), 6) for k, v in self.scores.items()}}


@dataclass(frozen=True)
class KindMetrics:
    """Counts and ranking metrics of one kind (or of the whole set)."""

    confusion: Confusion
    average_precision: float | None
    recall_at_p95: float | None
    recall_at_p99: float | None

    def to_dict(self) -> dict[str, Any]:
        return {**self.confusion.to_dict(), "average_precision": self.average_precision,
                "recall_at_p95": self.recall_at_p95, "recall_at_p99": self.recall_at_p99}


@dataclass(frozen=True)
class PairResult:
    """A method's pair metrics over one pair set: overall and per kind."""

    method: str
    overall: KindMetrics
    by_kind: dict[str, KindMetrics]

    @property
    def confusion(self) -> Confusion:
        return self.overall.confusion

    @property
    def average_precision(self) -> float | None:
        return self.overall.average_precision

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: pairs, tp, fp, tn, fn, precision, recall, f1, AP, R@P, by_kind."""
        return {"method": self.method, **self.overall.to_dict(),
                "by_kind": {k: v.to_dict() for k, v in sorted(self.by_kind.items())}}


def _kind_metrics(labels: list[int], preds: list[Prediction]) -> KindMetrics:
    conf = confusion(labels, [p.same for p in preds])
    ranks = [p.rank_score for p in preds]
    # AP needs both classes; a kind of only negatives has no ranking to score.
    both = 0 < sum(labels) < len(labels)
    return KindMetrics(conf,
                       average_precision(labels, ranks) if both else None,
                       recall_at_precision(labels, ranks, 0.95) if both else None,
                       recall_at_precision(labels, ranks, 0.99) if both else None)


def evaluate(method: str, pairs: Sequence[Pair], preds: Sequence[Prediction]) -> PairResult:
    """Score ``preds`` (in the order of ``pairs``) against the gold labels."""
    if len(pairs) != len(preds):
        raise ValueError(f"{len(pairs)} pairs but {len(preds)} predictions")
    for p, q in zip(pairs, preds, strict=True):
        if p.id != q.id:
            raise ValueError(f"prediction for {q.id!r} is aligned with pair {p.id!r}")
    overall = _kind_metrics([p.label for p in pairs], list(preds))
    kinds: dict[str, tuple[list[int], list[Prediction]]] = {}
    for p, q in zip(pairs, preds, strict=True):
        ls, qs = kinds.setdefault(p.kind, ([], []))
        ls.append(p.label)
        qs.append(q)
    return PairResult(method, overall, {k: _kind_metrics(ls, qs) for k, (ls, qs) in kinds.items()})


def predictions_from_decisions(pairs: Sequence[Pair], decisions: Sequence[Any]) -> list[Prediction]:
    """samestory ``Decision`` objects to :class:`Prediction` (see the module doc for rank_score)."""
    out: list[Prediction] = []
    for p, d in zip(pairs, decisions, strict=True):
        blocked = tuple(d.blocked_by)
        scores = {k: float(v) for k, v in (d.scores or {}).items()}
        if blocked:
            rank = -INF
        elif "embedding" in scores:
            rank = scores["embedding"]
        else:
            rank = INF if d.same else -INF
        out.append(Prediction(p.id, bool(d.same), None if d.score is None else float(d.score), str(d.stage),
                              blocked, rank, scores))
    return out


def predict_samestory(pairs: Sequence[Pair], guards: bool = True, model: str = "use",
                      overrides: dict[str, float] | None = None, progress: bool = False) -> list[Prediction]:
    """samestory's verdicts on ``pairs`` (``compare`` semantics: cascade and, if on, guards)."""
    from eval.engine import compare_pairs

    return predictions_from_decisions(pairs, compare_pairs(pairs, guards=guards, model=model,
                                                           overrides=overrides, progress=progress))


def predict_baseline(baseline: Baseline, pairs: Sequence[Pair], progress: bool = False) -> list[Prediction]:
    """A baseline's verdicts; ``stage`` is the baseline's name, ``score`` its own similarity."""
    verdicts = baseline.pair_verdicts([(p.a, p.b) for p in pairs], progress=progress)
    return [Prediction(p.id, v.same, v.score if math.isfinite(v.score) else None, baseline.name, (), v.score)
            for p, v in zip(pairs, verdicts, strict=True)]


def write_predictions(path: str | Path, preds: Sequence[Prediction]) -> None:
    """One JSON line per pair: ``{"id", "same", "score", "stage", "blocked_by", "scores"}``."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for q in preds:
            fh.write(json.dumps(q.to_dict(), ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class PairError:
    """One wrong verdict, cited by id and numbers only (eval texts never leave the data folder)."""

    id: str
    kind: str
    label: int
    stage: str
    blocked_by: tuple[str, ...]
    scores: dict[str, float]


def errors(pairs: Sequence[Pair], preds: Sequence[Prediction], k: int = 10) -> tuple[list[PairError], list[PairError]]:
    """The ``k`` worst wrong merges and wrong splits.

    Wrong merges: highest embedding cosine first (the most confident mistakes; a threshold
    cannot fix them, a guard might). Wrong splits: guard-blocked ones first (a guard that
    vetoed a gold-same pair is the most actionable finding), then the highest cosine first
    (near misses a lower threshold would catch).
    """
    def emb(q: Prediction) -> float:
        return q.scores.get("embedding", q.rank_score if math.isfinite(q.rank_score) else -1.0)

    merged, split = [], []
    for p, q in zip(pairs, preds, strict=True):
        err = PairError(p.id, p.kind, p.label, q.stage, q.blocked_by, q.scores)
        if q.same and not p.label:
            merged.append((emb(q), err))
        elif not q.same and p.label:
            split.append((bool(q.blocked_by), emb(q), err))
    merged.sort(key=lambda t: -t[0])
    split.sort(key=lambda t: (not t[0], -t[1]))
    return [e for _, e in merged[:k]], [e for _, _, e in split[:k]]
