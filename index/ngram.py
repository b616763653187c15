"""Subject-gated, IDF-weighted character 3-gram Jaccard (seed 000).

Items are bucketed by the lead token of their title and compared only inside their bucket:
the gate carries the precision (different subjects never merge here), which is why the
threshold can be as low as 0.30, and it turns the all-pairs comparison into a near-linear one.

IDF is computed over everything the index has seen (the stored history within the window plus
the item being scored), not over one small batch: seed 000 notes that a three-item batch makes
any gram in two items "common". ``min_docs`` adds pseudo-documents that contain no gram, so
weights are stable while the index is still small.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np


def idf_weight(df: int, n_docs: int) -> float:
    """Seed 000's weight: log(1 + N / (1 + df))."""
    return math.log1p(n_docs / (1 + df))


class GatedNgramIndex:
    """Buckets of documents by lead token, with document frequencies for IDF.

    >>> from index.features import gram_ids
    >>> from index.text import char_ngrams
    >>> idx = GatedNgramIndex()
    >>> idx.add(1, "진천군", gram_ids(char_ngrams("진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수")), 0.0)
    >>> hits = idx.candidates("진천군", gram_ids(char_ngrams("진천군 온디바이스 AI기반 스마트돌봄 본격화")))
    >>> [(doc, round(score, 2)) for doc, score in hits]
    [(1, 0.43)]
    >>> idx.candidates("증평군", gram_ids(char_ngrams("증평군 온디바이스 AI기반 스마트돌봄 본격화")))
    []
    """

    def __init__(self, *, min_docs: int = 50, max_bucket: int = 300) -> None:
        if min_docs < 0:
            raise ValueError(f"min_docs must be >= 0, got {min_docs}")
        self.min_docs = min_docs
        # A lead token shared by hundreds of live items ("US", "Update", "속보") is no subject; only
        # the newest max_bucket representatives are scored so one hot bucket cannot stall ingestion
        # (copies arrive close in time; older ones are still reachable through MinHash and FAISS).
        # Scoring a member costs ~10 us, so 300 bounds this pass at ~3 ms per item.
        self.max_bucket = max_bucket
        self._buckets: dict[str, list[int]] = defaultdict(list)
        self._grams: dict[int, np.ndarray] = {}
        self._lead: dict[int, str] = {}
        self._time: dict[int, float] = {}
        self._df: dict[int, int] = defaultdict(int)

    def __len__(self) -> int:
        return len(self._grams)

    def __contains__(self, doc_id: int) -> bool:
        return doc_id in self._grams

    def add(self, doc_id: int, lead: str, grams: np.ndarray, time: float) -> None:
        self.remove(doc_id)
        self._buckets[lead].append(doc_id)
        self._grams[doc_id] = grams
        self._lead[doc_id] = lead
        self._time[doc_id] = time
        for g in grams.tolist():
            self._df[g] += 1

    def remove(self, doc_id: int) -> None:
        grams = self._grams.pop(doc_id, None)
        if grams is None:
            return
        lead = self._lead.pop(doc_id)
        self._time.pop(doc_id, None)
        bucket = self._buckets.get(lead)
        if bucket is not None:
            bucket.remove(doc_id)
            if not bucket:
                del self._buckets[lead]
        for g in grams.tolist():
            left = self._df[g] - 1
            if left > 0:
                self._df[g] = left
            else:
                del self._df[g]

    def expire(self, before: float) -> int:
        old = [d for d, t in self._time.items() if t < before]
        for d in old:
            self.remove(d)
        return len(old)

    def weights(self, grams: np.ndarray, extra: np.ndarray | None = None) -> dict[int, float]:
        """IDF weights for ``grams`` (and ``extra``), counting the query itself as one document."""
        n_docs = len(self._grams) + 1 + self.min_docs
        out: dict[int, float] = {}
        query = set(grams.tolist())
        for arr in (grams, extra):
            if arr is None:
                continue
            for g in arr.tolist():
                if g not in out:
                    out[g] = idf_weight(self._df.get(g, 0) + (1 if g in query else 0), n_docs)
        return out

    def score(self, a: np.ndarray, b: np.ndarray) -> float:
        """IDF-weighted Jaccard of two gram-id arrays, with the index's current document frequencies."""
        if a.size == 0 or b.size == 0:
            return 0.0
        w = self.weights(a, b)
        inter = np.intersect1d(a, b, assume_unique=True).tolist()
        union = np.union1d(a, b).tolist()
        denom = sum(w[g] for g in union)
        return sum(w[g] for g in inter) / denom if denom > 0 else 0.0

    def candidates(self, lead: str, grams: np.ndarray, *, window: tuple[float, float] | None = None,
                   min_score: float = 0.0, exclude: set[int] | None = None) -> list[tuple[int, float]]:
        """Documents in ``lead``'s bucket, best first, with their weighted-Jaccard score."""
        bucket = self._buckets.get(lead)
        if not bucket or grams.size == 0:
            return []
        members = bucket[-self.max_bucket :]
        # The IDF weights depend only on the index and the query, so they are computed once per
        # query here and shared by every member, instead of rebuilt for each member by score().
        # Same values, same summation order as score(): the results are identical.
        n_docs = len(self._grams) + 1 + self.min_docs
        w = self.weights(grams)
        out = []
        for doc_id in members:
            if exclude and doc_id in exclude:
                continue
            if window is not None and not (window[0] <= self._time[doc_id] <= window[1]):
                continue
            other = self._grams[doc_id]
            if other.size == 0:
                s = 0.0
            else:
                for g in other.tolist():
                    if g not in w:
                        w[g] = idf_weight(self._df.get(g, 0), n_docs)
                inter = np.intersect1d(grams, other, assume_unique=True).tolist()
                denom = sum(w[g] for g in np.union1d(grams, other).tolist())
                s = sum(w[g] for g in inter) / denom if denom > 0 else 0.0
            if s >= min_score:
                out.append((doc_id, s))
        out.sort(key=lambda x: -x[1])
        return out
