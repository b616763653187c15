"""How the embedding stage turns a candidate pair into a score it can threshold.

Two scorers behind one small interface:

- :class:`CosineScorer`: the cosine of the two embeddings against ``embedding_threshold``;
- :class:`LearnedScorer`: the calibrated Korean-English pair scorer of ``models.xling``
  (USE cosine, hubness of both sides, and lexical evidence the model misses: numbers,
  Latin-script tokens, names, length ratio), thresholded on its probability. Same-language
  pairs fall back to the plain cosine threshold: the scorer was trained on translations only.

The learned scorer was fitted on USE-multilingual v3 vectors; with any other embedder the
engine uses the cosine scorer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from index.features import ItemFeatures

log = logging.getLogger("samestory.scoring")

# The embedder the packaged xling scorer was trained on (models/xling, docs/xling.md).
XLING_MODEL = "use-multilingual-v3"
_XLING_LANGS = frozenset({"ko", "en"})


@dataclass(frozen=True)
class Scored:
    score: float  # what is compared with the threshold
    cosine: float

    def describe(self, threshold: float, learned: bool) -> str:
        if learned:
            return f"p(same story) {self.score:.3f} >= {threshold:.4f} (cosine {self.cosine:.3f})"
        return f"cosine {self.cosine:.3f} >= {threshold}"


class EmbeddingScorer(Protocol):
    name: str
    threshold: float
    learned: bool

    def score(self, item: ItemFeatures, item_vec: np.ndarray, others: list[ItemFeatures],
              other_vecs: np.ndarray, texts: tuple[str, list[str]]) -> list[Scored]: ...


class CosineScorer:
    """Plain cosine against ``threshold``."""

    name = "cosine"
    learned = False

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def score(self, item: ItemFeatures, item_vec: np.ndarray, others: list[ItemFeatures],
              other_vecs: np.ndarray, texts: tuple[str, list[str]]) -> list[Scored]:
        cos = np.asarray(other_vecs, dtype=np.float32) @ np.asarray(item_vec, dtype=np.float32)
        return [Scored(float(c), float(c)) for c in cos]


class LearnedScorer:
    """The packaged ``models.xling.PairScorer``; its threshold is on a calibrated probability."""

    name = "xling"
    learned = True

    def __init__(self, scorer: Any, *, cosine_threshold: float, threshold: float | None = None) -> None:
        self.scorer = scorer
        # Same-language pairs get the engine's cosine threshold, so there is one source of truth.
        scorer.mono_cos_threshold = cosine_threshold
        self.threshold = float(threshold if threshold is not None else scorer.threshold)
        self.name = f"xling:{scorer.name}"

    def score(self, item: ItemFeatures, item_vec: np.ndarray, others: list[ItemFeatures],
              other_vecs: np.ndarray, texts: tuple[str, list[str]]) -> list[Scored]:
        if not others:
            return []
        vecs = np.asarray(other_vecs, dtype=np.float32)
        v = np.asarray(item_vec, dtype=np.float32)
        cos = vecs @ v
        a_langs, b_langs = [], []
        for o in others:
            # Anything but a Korean-English pair takes the same-language (cosine) path.
            if {item.lang, o.lang} == _XLING_LANGS:
                a_langs.append(item.lang)
                b_langs.append(o.lang)
            else:
                a_langs.append("mono")
                b_langs.append("mono")
        n = len(others)
        from models.xling import PairBatch

        p = self.scorer.score(PairBatch([texts[0]] * n, texts[1], a_langs, b_langs, cos,
                                        emb_use=(np.repeat(v[None, :], n, axis=0), vecs)))
        return [Scored(float(pi), float(ci)) for pi, ci in zip(p, cos, strict=True)]


def make_scorer(kind: str, model_name: str | None, *, cosine_threshold: float,
                threshold: float | None = None) -> EmbeddingScorer:
    """``kind`` "xling" (the packaged learned scorer, USE only) or "cosine"."""
    if kind not in ("xling", "cosine"):
        raise ValueError(f"unknown embedding scorer {kind!r}: use 'xling' or 'cosine'")
    if kind == "xling":
        if model_name == XLING_MODEL:
            from models.xling import PairScorer

            return LearnedScorer(PairScorer.load(), cosine_threshold=cosine_threshold, threshold=threshold)
        log.warning("the xling scorer was trained on %s vectors, not %s: using plain cosine", XLING_MODEL, model_name)
    return CosineScorer(cosine_threshold)
