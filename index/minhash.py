"""MinHash LSH over character 3-grams (seed 001, datasketch) for candidates across the history.

Unlike the subject-gated pass it has no bucket key, so it finds near-identical titles whose
lead token differs ("[속보] 연준..." / "연준..."); the subject guard still vets every merge it
proposes. Candidates are verified with the exact Jaccard of the gram sets before they count.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

import numpy as np
from datasketch import MinHash, MinHashLSH
from datasketch.lsh import _optimal_param

# 32-bit CRC gram ids are hashed directly: the MinHash permutation is applied to these ints,
# so no per-gram SHA-1 is needed (datasketch's default hashes bytes).


def _identity_hash(value: int) -> int:
    return int(value)


@lru_cache(maxsize=32)
def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """datasketch's (bands, rows) for equal false-positive and false-negative weights.

    datasketch integrates numerically to find these on every ``MinHashLSH(...)``; the engine
    creates a short-lived index per ingest batch, so the answer is computed once and reused.
    """
    return _optimal_param(threshold, num_perm, 0.5, 0.5)


class MinHashIndex:
    """datasketch ``MinHashLSH`` keyed by document id.

    >>> from index.features import gram_ids
    >>> from index.text import char_ngrams
    >>> idx = MinHashIndex(threshold=0.5)
    >>> idx.add(7, gram_ids(char_ngrams("Fed raises rates by 25 basis points today")), 0.0)
    >>> [d for d, _ in idx.candidates(gram_ids(char_ngrams("Fed raises rates by 25 basis points now")))]
    [7]
    """

    def __init__(self, *, threshold: float = 0.5, num_perm: int = 128, seed: int = 1) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        if num_perm < 16:
            raise ValueError(f"num_perm must be >= 16, got {num_perm}")
        self.threshold = threshold
        self.num_perm = num_perm
        self.seed = seed
        self._lsh = MinHashLSH(threshold=threshold, num_perm=num_perm, params=lsh_params(threshold, num_perm))
        self._grams: dict[int, np.ndarray] = {}
        self._time: dict[int, float] = {}
        self._template = MinHash(num_perm=num_perm, seed=seed, hashfunc=_identity_hash)
        # The same item is hashed for the query and again when it is added: keep recent signatures.
        self._recent: OrderedDict[bytes, MinHash] = OrderedDict()

    def __len__(self) -> int:
        return len(self._grams)

    def __contains__(self, doc_id: int) -> bool:
        return doc_id in self._grams

    def minhash(self, grams: np.ndarray) -> MinHash:
        key = grams.tobytes()
        m = self._recent.get(key)
        if m is None:
            m = self._template.copy()
            m.update_batch(grams.tolist())
            self._recent[key] = m
            if len(self._recent) > 1024:
                self._recent.popitem(last=False)
        return m

    def add(self, doc_id: int, grams: np.ndarray, time: float) -> None:
        if grams.size == 0:
            return
        self.remove(doc_id)
        self._lsh.insert(doc_id, self.minhash(grams))
        self._grams[doc_id] = grams
        self._time[doc_id] = time

    def remove(self, doc_id: int) -> None:
        if self._grams.pop(doc_id, None) is not None:
            self._time.pop(doc_id, None)
            self._lsh.remove(doc_id)

    def expire(self, before: float) -> int:
        old = [d for d, t in self._time.items() if t < before]
        for d in old:
            self.remove(d)
        return len(old)

    def candidates(self, grams: np.ndarray, *, window: tuple[float, float] | None = None,
                   exclude: set[int] | None = None) -> list[tuple[int, float]]:
        """LSH hits verified by exact Jaccard of the gram sets, best first."""
        if grams.size == 0 or not self._grams:
            return []
        out = []
        for doc_id in self._lsh.query(self.minhash(grams)):
            if exclude and doc_id in exclude:
                continue
            if window is not None and not (window[0] <= self._time[doc_id] <= window[1]):
                continue
            out.append((doc_id, jaccard(grams, self._grams[doc_id])))
        out.sort(key=lambda x: -x[1])
        return out


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Plain Jaccard of two sorted unique id arrays."""
    if a.size == 0 and b.size == 0:
        return 0.0
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / (a.size + b.size - inter)
