"""Threshold sweeps in the spirit of seed 000: how many items remain and how P/R move per threshold.

Seed 000 swept its 3-gram threshold down (0.45 / 0.40 / 0.35 / 0.30) and watched 100 items
collapse to 84 / 83 / 81 / 77, inspecting every merge. Here the engine itself is re-run at
each threshold (``EngineConfig`` with the stage's threshold replaced), so every row is what
samestory would really decide there, earlier cascade stages and guards included:

* over a pair file: precision / recall / F1 of the verdicts, and "items remaining" = the number
  of groups the distinct texts of the pairs fall into when every merged pair is joined;
* over a cluster file: the items are ingested into a fresh store at each threshold; items
  remaining = predicted clusters, plus pairwise P/R/F1 and ARI against the gold clusters.

>>> default_thresholds("ngram")[:3]
[0.2, 0.25, 0.3]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from eval.baselines.base import UnionFind
from eval.data import ClusterItem, Pair
from eval.metrics import cluster_scores, confusion

STAGE_FIELDS = {"ngram": "ngram_threshold", "embedding": "embedding_threshold", "minhash": "minhash_threshold"}


def default_thresholds(stage: str) -> list[float]:
    """The grid swept when none is given (a range around the engine's default for the stage)."""
    if stage == "ngram":
        return [0.20, 0.25, 0.30, 0.35, 0.40, 0.45, 0.50]
    if stage == "minhash":
        return [0.40, 0.50, 0.60, 0.70, 0.80, 0.90]
    if stage == "embedding":
        # 0.625: the shipped USE threshold (config.md), so the default curve shows where it stands.
        return [0.45, 0.50, 0.55, 0.60, 0.625, 0.65, 0.70, 0.75, 0.80, 0.85]
    raise ValueError(f"unknown stage {stage!r}; choose one of {', '.join(STAGE_FIELDS)}")


@dataclass(frozen=True)
class SweepRow:
    """The outcome at one threshold.

    ``false_merges`` (pair sweeps) counts the false merges by what made them: a stage's name, or
    ``"<stage> below threshold"`` for a merge of the swept stage under its threshold (a verifier or
    slot rescue). Only the swept stage's merges at or above the threshold go away as it rises, so
    calibrate can say when no threshold can reach a precision floor.
    """

    threshold: float
    items: int
    items_remaining: int
    merged: int
    precision: float | None
    recall: float | None
    f1: float | None
    ari: float | None = None
    false_merges: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def groups_remaining(pairs: Sequence[Pair], same: Sequence[bool]) -> tuple[int, int]:
    """(distinct texts, groups after joining every merged pair).

    >>> from eval.data import Side
    >>> ps = [Pair("1", Side("a", "en"), Side("b", "en"), 1, "k"), Pair("2", Side("b", "en"), Side("c", "en"), 0, "k")]
    >>> groups_remaining(ps, [True, False])
    (3, 2)
    """
    index: dict[str, int] = {}
    for p in pairs:
        index.setdefault(p.a.text, len(index))
        index.setdefault(p.b.text, len(index))
    uf = UnionFind(len(index))
    for p, s in zip(pairs, same, strict=True):
        if s:
            uf.union(index[p.a.text], index[p.b.text])
    return len(index), len(set(uf.labels()))


def _sweep(stage: str, thresholds: Sequence[float],
           row_at: Callable[[float, dict[str, float]], SweepRow]) -> list[SweepRow]:
    """One row per threshold: ``row_at(t, overrides)`` re-runs the engine with ``stage``'s threshold at t."""
    field_name = STAGE_FIELDS[stage]
    return [row_at(t, {field_name: t}) for t in thresholds]


def sweep_pairs(pairs: Sequence[Pair], stage: str, thresholds: Sequence[float], guards: bool = True,
                model: str = "use", progress: bool = False) -> list[SweepRow]:
    """Re-run ``compare`` over ``pairs`` at every threshold of ``stage``."""
    from eval.engine import compare_pairs

    labels = [p.label for p in pairs]

    def row_at(t: float, overrides: dict[str, float]) -> SweepRow:
        decisions = compare_pairs(pairs, guards=guards, model=model, overrides=overrides, progress=progress)
        same = [bool(d.same) for d in decisions]
        conf = confusion(labels, same)
        n, remaining = groups_remaining(pairs, same)
        made_by = Counter(merge_cause(d.stage, d.score, stage, t)
                          for d, label in zip(decisions, labels, strict=True) if d.same and not label)
        return SweepRow(t, n, remaining, sum(same), conf.precision, conf.recall, conf.f1,
                        false_merges=dict(sorted(made_by.items())))

    return _sweep(stage, thresholds, row_at)


def merge_cause(decided_by: str, score: float | None, stage: str, threshold: float) -> str:
    """What made a merge, as :attr:`SweepRow.false_merges` counts it.

    >>> merge_cause("embedding", 0.70, "embedding", 0.9), merge_cause("exact", 1.0, "embedding", 0.9)
    ('embedding below threshold', 'exact')
    """
    if decided_by == stage and score is not None and score < threshold:
        return f"{stage} below threshold"
    return decided_by


def sweep_clusters(items: Sequence[ClusterItem], stage: str, thresholds: Sequence[float], guards: bool = True,
                   model: str = "use", progress: bool = False) -> list[SweepRow]:
    """Ingest ``items`` into a fresh store at every threshold of ``stage``."""
    from eval.engine import ingest_clusters

    gold = [it.cluster for it in items]

    def row_at(t: float, overrides: dict[str, float]) -> SweepRow:
        labels = ingest_clusters(items, guards=guards, model=model, overrides=overrides, progress=progress)
        s = cluster_scores(gold, labels)
        return SweepRow(t, len(items), s.predicted_clusters, len(items) - s.predicted_clusters,
                        s.pairwise_precision, s.pairwise_recall, s.pairwise_f1, s.ari)

    return _sweep(stage, thresholds, row_at)


def calibration_grid(stage: str) -> list[float]:
    """The finer grid ``eval calibrate`` searches by default (``default_thresholds`` is for reading).

    >>> g = calibration_grid("embedding"); (g[0], g[-1], len(g))
    (0.4, 0.9, 21)
    """
    ranges = {"ngram": (0.20, 0.60, 0.025), "minhash": (0.40, 0.95, 0.025), "embedding": (0.40, 0.90, 0.025)}
    if stage not in ranges:
        raise ValueError(f"unknown stage {stage!r}; choose one of {', '.join(STAGE_FIELDS)}")
    lo, hi, step = ranges[stage]
    n = round((hi - lo) / step)
    return [round(lo + i * step, 3) for i in range(n + 1)]


# Fewer labelled positives, or negatives, than this in a pair file, and calibrate recommends no
# threshold. At the shipped 0.97 precision floor one false merge among 30 merges already misses
# the floor (29/30 = 0.967), so under ~30 a single pair decides the threshold; below ~30 negatives
# the false merges the floor guards against are barely sampled. 3 exported corrections once gave
# embedding_threshold = 0.575 (issue 38). Raising it asks editors for more corrections before a
# recommendation; lowering it lets a handful of pairs move the engine's threshold.
MIN_CALIBRATION_LABELS = 30


def sample_warnings(name: str, pairs: Sequence[Pair]) -> list[str]:
    """Why ``pairs`` are too few to calibrate on (one sentence each), or [].

    >>> from eval.data import Side
    >>> sample_warnings("corrections", [Pair(str(i), Side("x", "en"), Side("y", "en"), i % 2, "k") for i in range(3)])
    ['corrections: 1 positive pair(s) < 30: too few to calibrate on', 'corrections: 2 negative pair(s) < 30: too few to calibrate on']
    """
    positives = sum(p.label == 1 for p in pairs)
    counts = (("positive", positives), ("negative", len(pairs) - positives))
    return [f"{name}: {n} {what} pair(s) < {MIN_CALIBRATION_LABELS}: too few to calibrate on"
            for what, n in counts if n < MIN_CALIBRATION_LABELS]


def lowest_meeting(rows_per_file: Sequence[Sequence[SweepRow]], floors: Sequence[float]) -> int | None:
    """Index of the lowest threshold at which every file's precision reaches its floor, or None.

    The rows of every file must be over the same ascending thresholds. A file that merges no
    pair at a threshold has no false merge there, so it meets any floor. The lowest such
    threshold merges the most (recall is highest) while every precision floor holds: the rule
    the engine's shipped thresholds follow (issue 3).

    >>> r = lambda t, p: SweepRow(t, 10, 5, 5, p, 0.5, 0.5)
    >>> lowest_meeting([[r(0.5, 0.90), r(0.6, 0.97), r(0.7, 0.99)], [r(0.5, 0.95), r(0.6, 0.95), r(0.7, 1.0)]],
    ...                [0.97, 0.95])
    1
    >>> lowest_meeting([[r(0.5, 0.90)]], [0.99]) is None
    True
    """
    if len(rows_per_file) != len(floors) or not rows_per_file:
        raise ValueError("one floor per file, and at least one file")
    grids = [[r.threshold for r in rows] for rows in rows_per_file]
    if any(g != grids[0] for g in grids) or grids[0] != sorted(grids[0]):
        raise ValueError("every file must be swept over the same ascending thresholds")
    for i in range(len(grids[0])):
        if all(_meets(rows[i].precision, floor) for rows, floor in zip(rows_per_file, floors, strict=True)):
            return i
    return None


def highest_same_recall(rows_per_file: Sequence[Sequence[SweepRow]], floors: Sequence[float], lowest: int) -> int:
    """Index of the highest threshold from ``lowest`` up (``lowest_meeting``'s answer) through which
    every file still meets its floor at the same recall as at ``lowest``.

    Recall counts whole pairs, so the same recall is the same number of true merges: a higher
    threshold there buys nothing by going lower, and over-splitting is the safe failure (a lower
    one only lets in merges a precision sample did not see). The recommendation is this one.

    >>> r = lambda t, p, rec: SweepRow(t, 10, 5, 5, p, rec, 0.5)
    >>> highest_same_recall([[r(0.4, 1.0, 0.5), r(0.5, 1.0, 0.5), r(0.6, 1.0, 0.4)]], [0.97], 0)
    1
    >>> highest_same_recall([[r(0.4, 1.0, 0.5), r(0.5, 0.9, 0.5)]], [0.97], 0)
    0
    """
    def same(a: float | None, b: float | None) -> bool:
        return a == b if a is None or b is None else abs(a - b) < 1e-9

    best = lowest
    for i in range(lowest + 1, len(rows_per_file[0])):
        if not all(_meets(rows[i].precision, floor) and same(rows[i].recall, rows[lowest].recall)
                   for rows, floor in zip(rows_per_file, floors, strict=True)):
            break
        best = i
    return best


# Recall that moves by no more than this across the whole grid is flat: the threshold is not what
# limits the merges on those pairs. Calibrated on two `eval calibrate --sample 300` embedding runs
# (USE): UCI dev, whose positives are story-level pairs, not copies, 0.026..0.020 over 0.4..0.9
# (one of its 151 positive pairs), and koen-news-park, whose recall the threshold does move,
# 0.786..0.755. Higher: a threshold that moves recall a little is called flat; lower: one pair's
# change on a large file is enough to keep the warning quiet.
FLAT_RECALL_SPREAD = 0.01


def flat_recall(name: str, rows: Sequence[SweepRow], stage: str) -> str | None:
    """A one-line warning when recall is flat across the whole sweep of one file, else None.

    >>> r = lambda t, rec: SweepRow(t, 10, 5, 5, 1.0, rec, 0.5)
    >>> flat_recall("uci", [r(0.4, 0.026), r(0.9, 0.020)], "embedding")  # doctest: +NORMALIZE_WHITESPACE
    'uci: recall is flat (0.020..0.026) from 0.4 to 0.9: the embedding threshold is not what limits merges on these pairs (story-level pairs, not copies?)'
    >>> flat_recall("news", [r(0.4, 0.786), r(0.9, 0.755)], "embedding") is None
    True
    """
    recalls = [r.recall for r in rows if r.recall is not None]
    if len(rows) < 2 or len(recalls) < len(rows) or max(recalls) - min(recalls) > FLAT_RECALL_SPREAD:
        return None
    return (f"{name}: recall is flat ({min(recalls):.3f}..{max(recalls):.3f}) from {rows[0].threshold} to "
            f"{rows[-1].threshold}: the {stage} threshold is not what limits merges on these pairs "
            "(story-level pairs, not copies?)")


def unreachable_floors(names: Sequence[str], rows_per_file: Sequence[Sequence[SweepRow]], floors: Sequence[float],
                       stage: str) -> list[str]:
    """Why no threshold met the floors, one sentence per file below its floor at the grid's top.

    A false merge the swept stage made at or above the top threshold would go with a higher one
    (widen the grid); one another stage made, or the stage below its threshold (a rescue), stays
    at every threshold, and "widen --thresholds" would send the operator on a useless search.

    >>> r = SweepRow(0.9, 10, 5, 5, 0.9, 0.5, 0.6, false_merges={"embedding below threshold": 3, "exact": 1})
    >>> unreachable_floors(["tatoeba"], [[r]], [0.97], "embedding")
    ['tatoeba: precision 0.900 < 0.97 at 0.9; its 4 false merge(s) there were made by: embedding below threshold 3, exact 1, which a higher embedding threshold does not undo: lower its floor, or read them with eval pairs --predictions']
    """
    out = []
    for name, rows, floor in zip(names, rows_per_file, floors, strict=True):
        top = rows[-1]
        if _meets(top.precision, floor):
            continue
        fixed = {k: n for k, n in top.false_merges.items() if k != stage}
        said = f"{name}: precision {top.precision:.3f} < {floor} at {top.threshold}"
        if not fixed:
            out.append(f"{said}; widen --thresholds above {top.threshold} or lower its floor")
            continue
        causes = ", ".join(f"{k} {n}" for k, n in fixed.items())
        out.append(f"{said}; its {sum(top.false_merges.values())} false merge(s) there were made by: {causes}, "
                   f"which a higher {stage} threshold does not undo: lower its floor, or read them with "
                   "eval pairs --predictions")
    return out


def _meets(precision: float | None, floor: float) -> bool:
    """A precision reaches its floor; None (no pair merged, so no false merge) reaches any."""
    return precision is None or precision >= floor
