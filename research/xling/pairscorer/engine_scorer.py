"""The pair scorer behind the engine's ``EmbeddingScorer`` protocol (``service.scoring``).

It shipped opt-in (``embedding_scorer = "xling"``) until issue 37 moved it here: on sampled dev
pairs in the engine no threshold of it gained on every set (research/notes/xling.md, "In the
engine"). To try it in an engine from a source checkout, put it in place of the stage's scorer::

    from research.xling.pairscorer.engine_scorer import learned_scorer
    d = Deduper.open(":memory:")
    scorer = learned_scorer(d.config.copy.embedding_threshold)
    d.ctx.cascade.scorer = d.ctx.cascade.stages[-1].scorer = scorer   # the embedding stage is the last

Same-language pairs keep the engine's cosine threshold (the scorer was trained on translations).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from index.features import ItemFeatures
from service.scoring import Scored

# The embedder the scorer was trained on (docs of research/notes/xling.md).
XLING_MODEL = "use-multilingual-v3"
_XLING_LANGS = frozenset({"ko", "en"})
# Hits below this cosine are not shown to the scorer: at its threshold no dev translation pair
# below it was accepted (research/notes/xling.md). Lower: more scorer work per item; higher:
# low-cosine translations are never scored.
XLING_FLOOR = 0.30


class LearnedScorer:
    """A ``PairScorer``; its threshold is on a calibrated probability."""

    name = "xling"
    learned = True

    def __init__(self, scorer: Any, *, cosine_threshold: float, threshold: float | None = None,
                 floor: float = XLING_FLOOR) -> None:
        self.scorer = scorer
        # Same-language pairs get the engine's cosine threshold, so there is one source of truth.
        scorer.mono_cos_threshold = cosine_threshold
        self.threshold = float(threshold if threshold is not None else scorer.threshold)
        self.floor = floor
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
        from research.xling.pairscorer.scorer import PairBatch

        p = self.scorer.score(PairBatch([texts[0]] * n, texts[1], a_langs, b_langs, cos,
                                        emb_use=(np.repeat(v[None, :], n, axis=0), vecs)))
        return [Scored(float(pi), float(ci)) for pi, ci in zip(p, cos, strict=True)]


def learned_scorer(cosine_threshold: float, threshold: float | None = None) -> LearnedScorer:
    """The packaged scorer (``research/xling/pairscorer/scorer.npz``), for USE-multilingual v3 vectors."""
    from research.xling.pairscorer.scorer import PairScorer

    return LearnedScorer(PairScorer.load(), cosine_threshold=cosine_threshold, threshold=threshold)
