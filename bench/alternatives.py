"""The alternatives samestory is benchmarked against, each run over the same stream.

Each alternative takes the stream's titles (and langs) in order and returns one cluster label
per item (the index of the item that founded its cluster), so the harness scores every method
with the same recall / false-merge code and times it the same way.

* ``embed-all``: every item embedded with samestory's own encoder, FAISS search for the best
  earlier kept item (samestory's ``index.vectors.VectorIndex``: flat, then HNSW-SQ8, exactly
  the index the engine uses), duplicate when cosine >= samestory's embedding threshold. This is
  what semhash does, streamed.
* ``semhash``: the ``semhash`` package itself (``SemHash.from_records(...).self_deduplicate``)
  with samestory's encoder plugged in as its model, at the same threshold. Batch, not streaming.
* ``seed001``: ``eval.baselines.seed001.Seed001.cluster`` (normalise, MD5 exact,
  MinHashLSH 0.85 / 128 perms over word sets), reused as is: it is already streaming.
* ``seed000``: the seed 000 pass alone, streamed: lead-token gate + IDF-weighted char-3-gram
  Jaccard >= 0.30 against earlier representatives. The eval baseline of the same name computes
  IDF over a whole batch and compares every bucket member, which is quadratic in a hot bucket
  ("The ..."), so it cannot run at 100k; this version uses the engine's own
  ``index.ngram.GatedNgramIndex`` (IDF over what has been seen, the newest 2,000 bucket
  members) and no guards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

ALTERNATIVES = ("embed-all", "semhash", "seed001", "seed000")

Labeller = Callable[[Sequence[tuple[str, str]]], list[int]]
Progress = Callable[[int], None]  # called with the number of items done, for per-window timing


def embed_all(items: Sequence[tuple[str, str]], embedder: Any, threshold: float, *,
              batch_size: int = 256, exact_until: int = 20_000,
              progress: Progress | None = None) -> tuple[list[int], int]:
    """Embed everything; each item joins its most similar earlier kept item if cosine >= threshold.

    Returns (labels, encoder texts). The batch is searched against the index in one call, then
    walked in order against the kept items of the same batch (they are not yet in the index).
    ``progress`` is called after every batch.
    """
    from index.vectors import VectorIndex

    index = VectorIndex(embedder.dim, exact_until=exact_until)
    labels: list[int] = []
    for start in range(0, len(items), batch_size):
        texts = [t for t, _ in items[start:start + batch_size]]
        vecs = np.asarray(embedder.encode(texts), dtype=np.float32)
        hits = index.search(vecs, 1) if len(index) else [[] for _ in texts]
        kept: list[int] = []
        for j, v in enumerate(vecs):
            best, score = (hits[j][0] if hits[j] else (-1, -1.0))
            if kept:
                sims = vecs[kept] @ v
                k = int(np.argmax(sims))
                if sims[k] > score:
                    best, score = start + kept[k], float(sims[k])
            if score >= threshold:
                labels.append(labels[best])
            else:
                labels.append(start + j)
                kept.append(j)
        if kept:
            ids = np.array([start + j for j in kept], dtype=np.int64)
            index.add(ids, vecs[kept], np.zeros(len(kept), dtype=np.float64))
        if progress is not None:
            progress(len(labels))
    return labels, len(items)


class _SemHashEncoder:
    """samestory's embedder behind the ``encode(sentences, **kw)`` method semhash calls."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def encode(self, sentences: Sequence[str], **_: Any) -> np.ndarray:
        return np.asarray(self.embedder.encode(list(sentences)), dtype=np.float32)


def semhash_dedupe(items: Sequence[tuple[str, str]], embedder: Any, threshold: float) -> list[int]:
    """The semhash package with samestory's encoder (raises ImportError when it is not installed)."""
    from semhash import SemHash

    records = [{"id": str(i), "text": t} for i, (t, _) in enumerate(items)]
    sh = SemHash.from_records(records, columns=["text"], model=_SemHashEncoder(embedder))
    result = sh.self_deduplicate(threshold=threshold)
    labels = list(range(len(items)))
    for dup in result.filtered:
        labels[int(dup.record["id"])] = int(dup.duplicate_of["id"])
    # Point every member at its root (semhash's canonical may itself be a filtered record).
    for i in range(len(labels)):
        j = labels[i]
        while labels[j] != j:
            j = labels[j]
        labels[i] = j
    return labels


def _ticking(items: Sequence[Any], progress: Progress | None, every: int) -> Iterator[Any]:
    """``items``, calling ``progress(i)`` before item ``i`` whenever ``i`` is a multiple of ``every``:
    a streaming method that takes an iterable is timed per window without touching its code."""
    for i, item in enumerate(items):
        if progress is not None and i and i % every == 0:
            progress(i)
        yield item


def seed001(items: Sequence[tuple[str, str]], *, progress: Progress | None = None, every: int = 1_000) -> list[int]:
    """Seed 001 streaming (eval.baselines.seed001, unchanged: it is fed through :func:`_ticking`)."""
    from eval.baselines.seed001 import Seed001
    from eval.data import Side

    return Seed001().cluster(_ticking([Side(t, lang) for t, lang in items], progress, every))  # type: ignore[arg-type]


def seed000(items: Sequence[tuple[str, str]], threshold: float = 0.30, *, progress: Progress | None = None,
            every: int = 1_000) -> list[int]:
    """Seed 000's gated IDF 3-gram pass alone, streamed over representatives (no guards)."""
    from index.features import gram_ids
    from index.ngram import GatedNgramIndex
    from index.text import char_ngrams, lead_token

    index = GatedNgramIndex()
    labels: list[int] = []
    for i, (text, _) in enumerate(_ticking(items, progress, every)):
        grams = gram_ids(char_ngrams(text, 3))
        lead = lead_token(text)
        hits = index.candidates(lead, grams, min_score=threshold)
        if hits:
            labels.append(labels[hits[0][0]])
        else:
            labels.append(i)
            index.add(i, lead, grams, 0.0)
    return labels
