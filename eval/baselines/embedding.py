"""Embed-everything: one embedding per text, one cosine threshold, no cascade and no guards.

This is what semhash-style semantic dedup does: every item is embedded and an item is a
duplicate of an earlier kept item when their cosine is >= the threshold. It uses the same
embedder as samestory (``models.registry.load_embedder("use")``) and, by default, samestory's
own embedding threshold, so the gap between this row and samestory's is what the cascade and
the guards add or cost, not a different model or a different operating point.

Pair verdict: cosine(a, b) >= threshold (streaming: ``a`` is kept, then ``b`` is checked).
Clusters: each item joins the kept representative it is most similar to if that cosine is >=
the threshold, else it becomes a new representative (semhash keeps the first of a duplicate
group and drops the later ones).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from eval.baselines.base import Verdict, unique_texts
from eval.data import Side

Encoder = Callable[[list[str]], np.ndarray]


def make_encoder(embedder: Any) -> Encoder:
    """Wrap whatever the registry returns into ``list[str] -> (n, d)`` L2-normalised rows.

    Registry embedders expose ``encode``; a bare callable is accepted too, so the tests can
    pass a tiny fake model.
    """
    fn = getattr(embedder, "encode", None) or getattr(embedder, "embed", None) or embedder
    if not callable(fn):
        raise TypeError(f"{type(embedder).__name__} has no encode()/embed() and is not callable")

    def encode(texts: list[str]) -> np.ndarray:
        vecs = np.asarray(fn(texts), dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape[0] != len(texts):
            raise ValueError(f"embedder returned shape {vecs.shape} for {len(texts)} texts")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.where(norms == 0, 1.0, norms)

    return encode


def load_default_encoder(model: str = "use") -> Encoder:
    """samestory's embedder from the model registry (the harness's per-process cached copy)."""
    from eval.engine import load_embedder

    return make_encoder(load_embedder(model))


class EmbedEverything:
    """Cosine >= threshold on the embedder's vectors; nothing else."""

    def __init__(self, threshold: float, encoder: Encoder | None = None, model: str = "use",
                 batch_size: int = 256) -> None:
        self.threshold = threshold
        self.model = model
        self._encoder = encoder
        self.batch_size = batch_size
        self.name = f"embed-everything ({model}, cosine >= {threshold:g})"
        self.description = (f"the same embedder ({model}) on every item, a single cosine threshold "
                            f"{threshold:g}, no cascade, no guards (semhash-style)")

    def _embed(self, texts: Sequence[str], progress: bool) -> np.ndarray:
        if self._encoder is None:
            self._encoder = load_default_encoder(self.model)
        chunks = []
        for start in tqdm(range(0, len(texts), self.batch_size), desc="embed-everything",
                          disable=not progress, leave=False):
            chunks.append(self._encoder(list(texts[start:start + self.batch_size])))
        return np.vstack(chunks) if chunks else np.zeros((0, 1), dtype=np.float32)

    def pair_verdicts(self, pairs: Sequence[tuple[Side, Side]], progress: bool = False) -> list[Verdict]:
        texts = unique_texts(pairs)
        index = {t: i for i, t in enumerate(texts)}
        vecs = self._embed(texts, progress)
        out: list[Verdict] = []
        for a, b in pairs:
            s = float(vecs[index[a.text]] @ vecs[index[b.text]])
            out.append(Verdict(s >= self.threshold, s))
        return out

    def cluster(self, items: Sequence[Side], progress: bool = False) -> list[int]:
        vecs = self._embed([it.text for it in items], progress)
        reps: list[int] = []
        labels: list[int] = []
        for i in range(len(items)):
            if reps:
                sims = vecs[reps] @ vecs[i]
                best = int(np.argmax(sims))
                if sims[best] >= self.threshold:
                    labels.append(labels[reps[best]])
                    continue
            reps.append(i)
            labels.append(i)
        return labels
