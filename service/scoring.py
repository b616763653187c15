"""How the embedding stage turns a candidate pair into a score it can threshold.

The stage takes any :class:`EmbeddingScorer` (a ``Protocol``); the engine's is
:class:`CosineScorer`, the cosine of the two embeddings against ``embedding_threshold``. A learned
Korean-English pair scorer was tried behind the same interface and stayed off (it never gained on
every set in the engine; research/xling/pairscorer, research/notes/xling.md "In the engine").

>>> import numpy as np
>>> from index.features import ItemFeatures
>>> s = CosineScorer(0.625)
>>> item = ItemFeatures.build("Fed raises rates", "", "en", 0.0)
>>> [round(x.score, 2) for x in s.score(item, np.array([1.0, 0.0]), [item, item],
...                                      np.array([[1.0, 0.0], [0.6, 0.8]]), ("", []))]
[1.0, 0.6]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from index.features import ItemFeatures


@dataclass(frozen=True)
class Scored:
    score: float  # what is compared with the threshold
    cosine: float

    def describe(self, threshold: float, learned: bool) -> str:
        if learned:
            return f"p(same story) {self.score:.3f} >= {threshold:.4f} (cosine {self.cosine:.3f})"
        return f"cosine {self.cosine:.3f} >= {threshold}"


class EmbeddingScorer(Protocol):
    """Scores an item's vector against candidates' vectors. ``threshold``: a candidate scoring at
    least this is proposed; ``floor``: candidates below this cosine are not scored at all (a
    learned scorer may lift a pair above its threshold on other evidence, so its floor can sit
    below the threshold); ``learned``: the score is a probability, not the cosine (reasons say so)."""

    name: str
    threshold: float
    floor: float
    learned: bool

    def score(self, item: ItemFeatures, item_vec: np.ndarray, others: list[ItemFeatures],
              other_vecs: np.ndarray, texts: tuple[str, list[str]]) -> list[Scored]: ...


class CosineScorer:
    """Plain cosine against ``threshold``."""

    name = "cosine"
    learned = False

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self.floor = threshold  # a cosine below the threshold can never be proposed

    def score(self, item: ItemFeatures, item_vec: np.ndarray, others: list[ItemFeatures],
              other_vecs: np.ndarray, texts: tuple[str, list[str]]) -> list[Scored]:
        cos = np.asarray(other_vecs, dtype=np.float32) @ np.asarray(item_vec, dtype=np.float32)
        return [Scored(float(c), float(c)) for c in cos]


def make_scorer(cosine_threshold: float) -> EmbeddingScorer:
    """The engine's scorer: :class:`CosineScorer` at ``cosine_threshold``."""
    return CosineScorer(cosine_threshold)
