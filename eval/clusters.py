"""Cluster evaluation: ingest a cluster file's items in order, compare predicted with gold clusters.

samestory's labels come from ingesting every item, in file order, into a fresh in-memory store
(``Deduper.ingest``; the cluster id of each result). Baselines cluster the same items their own
way (see :mod:`eval.baselines.base`). Scores: pairwise precision/recall/F1 over item pairs,
B-cubed and the adjusted Rand index (:mod:`eval.metrics`).

>>> from eval.data import ClusterItem
>>> items = [ClusterItem("1", "g1", "x", "en"), ClusterItem("2", "g1", "y", "en"), ClusterItem("3", "g2", "z", "en")]
>>> r = evaluate("toy", items, [7, 7, 9])
>>> r.scores.pairwise_f1, r.scores.ari
(1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eval.baselines.base import Baseline
from eval.data import ClusterItem, Side
from eval.metrics import ClusterScores, cluster_scores


@dataclass(frozen=True)
class ClusterResult:
    """A method's clustering of one cluster file, scored against the gold clusters."""

    method: str
    scores: ClusterScores

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, **self.scores.to_dict()}


def evaluate(method: str, items: Sequence[ClusterItem], labels: Sequence[Any]) -> ClusterResult:
    if len(items) != len(labels):
        raise ValueError(f"{len(items)} items but {len(labels)} predicted labels")
    return ClusterResult(method, cluster_scores([it.cluster for it in items], list(labels)))


def predict_samestory(items: Sequence[ClusterItem], guards: bool = True, model: str = "use",
                      overrides: dict[str, float] | None = None, progress: bool = False,
                      level: str = "copy", settle: bool = False) -> list[int]:
    """samestory's copy group (``level="copy"``) or story (``"story"``) id for every item, ingested
    in order (with its time when it has one) into a fresh store; ``settle``: the level once
    settled (``Deduper.settle``: both levels re-decided in publication order)."""
    from eval.engine import ingest_clusters

    return ingest_clusters(items, guards=guards, model=model, overrides=overrides, progress=progress, level=level,
                           settle=settle)


def story_baselines(model: str = "use", tokenizer: str = "okt") -> list[Baseline]:
    """The story level's baselines (issue 17): seed 000's greedy representatives, seed 003's
    K-means, and a plain streaming centroid clustering of the same embedder's vectors."""
    from eval.baselines.centroid import CentroidStream
    from eval.baselines.seed000 import Seed000
    from eval.baselines.seed003 import Seed003

    return [Seed000(), Seed003(tokenizer=tokenizer), CentroidStream(model=model)]


def predict_baseline(baseline: Baseline, items: Sequence[ClusterItem], progress: bool = False) -> list[int]:
    return baseline.cluster([Side(it.text, it.lang) for it in items], progress=progress)
