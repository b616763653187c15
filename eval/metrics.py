"""Metrics: pair confusion counts, ranking metrics of a score, and clustering agreement.

Conventions (chosen so a number in the report always means one thing):

* A ratio whose denominator is zero is ``None`` (JSON ``null``, shown as "–"), never 0 or 1.
  A kind made only of negatives (``xl_hard_negative``) has no recall; reporting 0 there would
  read as "missed everything". Its useful number is :attr:`Confusion.false_merge_rate`.
* Scores may be ``-inf``: a pair a guard blocked can never merge whatever the threshold, so it
  ranks below every finite score. The PR curve, average precision and ARI are scikit-learn's
  (``precision_recall_curve``, ``average_precision_score``, ``adjusted_rand_score``): ties
  enter the ranking together. B-cubed and the pairwise cluster scores are computed here.

Worked example::

    >>> c = confusion([1, 1, 0, 0, 1], [True, False, True, False, True])
    >>> (c.tp, c.fp, c.tn, c.fn), round(c.precision, 3), round(c.recall, 3), round(c.f1, 3)
    ((2, 1, 1, 1), 0.667, 0.667, 0.667)
    >>> average_precision([1, 0, 1], [0.9, 0.8, 0.1])
    0.8333333333333333
    >>> round(adjusted_rand_index(["a", "a", "b", "b"], [1, 1, 2, 2]), 3)
    1.0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np


def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


def _f1(p: float, r: float) -> float:
    """The harmonic mean of precision and recall; 0.0 when both are 0."""
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


@dataclass(frozen=True)
class Confusion:
    """Counts of one set of pair verdicts against gold labels (positive = 'the same')."""

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def pairs(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def positives(self) -> int:
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        return self.fp + self.tn

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        """2tp / (2tp + fp + fn): 0.0 when nothing was merged correctly, None without positives.

        Written this way (not from P and R) so a method that merges nothing scores F1 0 instead
        of "undefined": its recall is 0, whatever its (undefined) precision.
        """
        if self.positives == 0:
            return None
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn)

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.tp + self.tn, self.pairs)

    @property
    def false_merge_rate(self) -> float | None:
        """Share of gold-different pairs that were merged: fp / (fp + tn)."""
        return _ratio(self.fp, self.fp + self.tn)

    def __add__(self, other: Confusion) -> Confusion:
        return Confusion(self.tp + other.tp, self.fp + other.fp, self.tn + other.tn, self.fn + other.fn)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "pairs": self.pairs, "precision": self.precision, "recall": self.recall,
                "f1": self.f1, "accuracy": self.accuracy, "false_merge_rate": self.false_merge_rate}


def confusion(labels: Sequence[int], predictions: Sequence[bool]) -> Confusion:
    """Count tp/fp/tn/fn; ``labels`` are 0/1, ``predictions`` are 'merged?' verdicts."""
    if len(labels) != len(predictions):
        raise ValueError(f"{len(labels)} labels but {len(predictions)} predictions")
    tp = fp = tn = fn = 0
    for y, p in zip(labels, predictions, strict=True):
        if y not in (0, 1):
            raise ValueError(f"labels must be 0 or 1, got {y!r}")
        if p and y:
            tp += 1
        elif p:
            fp += 1
        elif y:
            fn += 1
        else:
            tn += 1
    return Confusion(tp, fp, tn, fn)


# ---------------------------------------------------------------------------------------------
# Ranking metrics of a continuous score


@dataclass(frozen=True)
class PRCurve:
    """Precision and recall at each distinct score threshold, highest threshold first.

    Point i is "merge every pair with score >= thresholds[i]".
    """

    thresholds: list[float]
    precision: list[float]
    recall: list[float]


def _ranked(labels: Sequence[int], scores: Sequence[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(y, ranks, values)``: 0/1 labels, each score's dense rank, and the distinct scores in rank order.

    scikit-learn refuses infinite scores; a blocked pair's ``-inf`` must still rank below every
    finite score (and its ties stay ties), so the library sees the ranks and the thresholds
    are mapped back through ``values``.
    """
    if len(labels) != len(scores):
        raise ValueError(f"{len(labels)} labels but {len(scores)} scores")
    x = np.asarray(scores, dtype=np.float64)
    if np.isnan(x).any():
        raise ValueError("scores contain NaN; use -inf for 'can never merge'")
    values, ranks = np.unique(x, return_inverse=True)
    return np.fromiter((1 if y else 0 for y in labels), np.int64, len(labels)), ranks, values


def pr_curve(labels: Sequence[int], scores: Sequence[float]) -> PRCurve:
    """Precision/recall at every distinct score (ties enter together): scikit-learn's
    ``precision_recall_curve``, highest threshold first, without its closing (P=1, R=0) point.

    >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.9, 0.5, 0.1])
    >>> c.thresholds, c.precision, c.recall
    ([0.9, 0.5, 0.1], [0.5, 0.6666666666666666, 0.5], [0.5, 1.0, 1.0])
    >>> pr_curve([0, 1], [float("-inf"), 0.2]).thresholds     # a blocked pair ranks last
    [0.2, -inf]
    """
    from sklearn.metrics import precision_recall_curve

    y, ranks, values = _ranked(labels, scores)
    if y.size == 0:
        return PRCurve([], [], [])
    if not y.any():  # no positives: every threshold merges only negatives
        return PRCurve(values[::-1].tolist(), [0.0] * values.size, [0.0] * values.size)
    precision, recall, at = precision_recall_curve(y, ranks)
    return PRCurve(values[at.astype(np.int64)[::-1]].tolist(), precision[-2::-1].tolist(), recall[-2::-1].tolist())


def average_precision(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Step-wise AP = sum over thresholds of (R_k - R_{k-1}) * P_k: scikit-learn's
    ``average_precision_score``.

    ``None`` when there are no positives (AP is undefined).

    >>> average_precision([1, 1, 0], [0.3, 0.2, 0.1])
    1.0
    >>> average_precision([0, 1], [0.9, 0.1])
    0.5
    """
    from sklearn.metrics import average_precision_score

    y, ranks, _ = _ranked(labels, scores)
    if not y.any():
        return None
    return float(average_precision_score(y, ranks))


def recall_at_precision(labels: Sequence[int], scores: Sequence[float], min_precision: float) -> float | None:
    """The highest recall of any finite threshold whose precision is >= ``min_precision``.

    0.0 when no threshold reaches that precision; ``None`` when there are no positives. A
    ``-inf`` threshold is not a real operating point (blocked pairs never merge), so it is skipped.

    >>> recall_at_precision([1, 1, 0, 1], [0.9, 0.8, 0.7, 0.6], 0.95)
    0.6666666666666666
    >>> recall_at_precision([0, 1], [0.9, 0.1], 0.99)
    0.0
    """
    if not any(labels):
        return None
    curve = pr_curve(labels, scores)
    best = 0.0
    for t, p, r in zip(curve.thresholds, curve.precision, curve.recall, strict=True):
        if math.isfinite(t) and p >= min_precision:
            best = max(best, r)
    return best


def threshold_at_precision(labels: Sequence[int], scores: Sequence[float], min_precision: float) -> float | None:
    """The lowest finite threshold whose precision is >= ``min_precision`` (None if none)."""
    if not any(labels):
        return None
    curve = pr_curve(labels, scores)
    best: float | None = None
    best_r = -1.0
    for t, p, r in zip(curve.thresholds, curve.precision, curve.recall, strict=True):
        if math.isfinite(t) and p >= min_precision and r > best_r:
            best, best_r = t, r
    return best


# ---------------------------------------------------------------------------------------------
# Clustering agreement between a gold and a predicted partition of the same items


def _comb2(n: int) -> int:
    return n * (n - 1) // 2


@dataclass(frozen=True)
class ClusterScores:
    """Agreement of a predicted clustering with the gold one (items in the same order)."""

    items: int
    gold_clusters: int
    predicted_clusters: int
    pairwise_precision: float | None
    pairwise_recall: float | None
    pairwise_f1: float | None
    bcubed_precision: float
    bcubed_recall: float
    bcubed_f1: float
    ari: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _contingency(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> tuple[Counter, Counter, Counter]:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predicted labels")
    if not gold:
        raise ValueError("no items to score")
    cells = Counter(zip(gold, predicted, strict=True))
    return cells, Counter(gold), Counter(predicted)


class PRF(NamedTuple):
    """Precision, recall and F1 of one clustering score (unpacks as a 3-tuple)."""

    precision: float | None
    recall: float | None
    f1: float | None


class BCubed(NamedTuple):
    """B-cubed precision, recall and F1: always defined, as every item has a cluster in both."""

    precision: float
    recall: float
    f1: float


def pairwise_scores(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> PRF:
    """Precision/recall/F1 over item pairs: a pair is positive when both items share a cluster.

    >>> pairwise_scores(["a", "a", "a", "b"], [1, 1, 2, 2])
    PRF(precision=0.5, recall=0.3333333333333333, f1=0.4)
    """
    cells, g, p = _contingency(gold, predicted)
    together = sum(_comb2(n) for n in cells.values())
    pred_pairs = sum(_comb2(n) for n in p.values())
    gold_pairs = sum(_comb2(n) for n in g.values())
    # F1 = 2|both| / (|pred| + |gold|): 0.0 (not undefined) when nothing was put together.
    f1 = None if gold_pairs == 0 else 2 * together / (pred_pairs + gold_pairs)
    return PRF(_ratio(together, pred_pairs), _ratio(together, gold_pairs), f1)


def bcubed(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> BCubed:
    """B-cubed precision/recall/F1 (Bagga & Baldwin 1998), averaged over items.

    Item precision = |its predicted cluster ∩ its gold cluster| / |its predicted cluster|.

    >>> [round(x, 4) for x in bcubed(["a", "a", "a", "b"], [1, 1, 2, 2])]
    [0.75, 0.6667, 0.7059]
    """
    cells, g, p = _contingency(gold, predicted)
    n = len(gold)
    prec = sum(c * c / p[pc] for (_gc, pc), c in cells.items()) / n
    rec = sum(c * c / g[gc] for (gc, _pc), c in cells.items()) / n
    return BCubed(prec, rec, _f1(prec, rec))


def adjusted_rand_index(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """Hubert & Arabie's ARI (scikit-learn's ``adjusted_rand_score``); 1.0 for identical
    partitions, ~0 for chance agreement.

    When both partitions are trivial in the same way (all singletons, or one cluster) the
    index is 0/0; scikit-learn returns 1.0 there, because the partitions agree.

    >>> round(adjusted_rand_index(["a", "a", "b", "b"], [1, 2, 1, 2]), 6)
    -0.5
    """
    from sklearn.metrics import adjusted_rand_score

    _contingency(gold, predicted)  # the same length checks and messages as the other scores
    return float(adjusted_rand_score(_codes(gold), _codes(predicted)))


def _codes(labels: Sequence[Hashable]) -> np.ndarray:
    """Cluster labels of any hashable kind (tuples too) as ints, which scikit-learn accepts."""
    index: dict[Hashable, int] = {}
    return np.fromiter((index.setdefault(x, len(index)) for x in labels), np.int64, len(labels))


def cluster_scores(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> ClusterScores:
    """All clustering metrics at once."""
    pp, pr, pf = pairwise_scores(gold, predicted)
    bp, br, bf = bcubed(gold, predicted)
    return ClusterScores(items=len(gold), gold_clusters=len(set(gold)), predicted_clusters=len(set(predicted)),
                         pairwise_precision=pp, pairwise_recall=pr, pairwise_f1=pf,
                         bcubed_precision=bp, bcubed_recall=br, bcubed_f1=bf,
                         ari=adjusted_rand_index(gold, predicted))
