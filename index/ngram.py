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
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np


def idf_weight(df: int, n_docs: int) -> float:
    """Seed 000's weight: log(1 + N / (1 + df))."""
    return math.log1p(n_docs / (1 + df))


@dataclass(slots=True)
class _Doc:
    lead: str
    time: float
    slots: np.ndarray  # int32 slots of the document's grams in the frequency table


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
        self.max_bucket = max_bucket
        self._buckets: dict[str, list[int]] = defaultdict(list)
        # One record per indexed document (bucket key, time, gram slots): a single dict entry
        # and a slotted object cost less than one dict per attribute.
        self._docs: dict[int, _Doc] = {}
        # Document frequencies live in a dense array indexed by a slot per gram id, so a whole
        # bucket is scored with a few vectorised operations instead of a Python loop per gram.
        self._slot: dict[int, int] = {}
        self._df = np.zeros(1024, dtype=np.int64)
        self._packed: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # bucket cache

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id: int) -> bool:
        return doc_id in self._docs

    def _slots_of(self, grams: np.ndarray) -> np.ndarray:
        slots = np.empty(grams.size, dtype=np.int32)
        for i, g in enumerate(grams.tolist()):
            slot = self._slot.get(g)
            if slot is None:
                slot = self._slot[g] = len(self._slot)
                if slot >= self._df.size:
                    self._df = np.concatenate([self._df, np.zeros(self._df.size, dtype=np.int64)])
            slots[i] = slot
        return slots

    def add(self, doc_id: int, lead: str, grams: np.ndarray, time: float) -> None:
        self.remove(doc_id)
        self._buckets[lead].append(doc_id)
        self._packed.pop(lead, None)
        slots = self._slots_of(grams)
        self._docs[doc_id] = _Doc(lead, time, slots)
        np.add.at(self._df, slots, 1)

    def remove(self, doc_id: int) -> None:
        doc = self._docs.pop(doc_id, None)
        if doc is None:
            return
        lead = doc.lead
        self._packed.pop(lead, None)
        bucket = self._buckets.get(lead)
        if bucket is not None:
            bucket.remove(doc_id)
            if not bucket:
                del self._buckets[lead]
        np.subtract.at(self._df, doc.slots, 1)

    def sort_buckets(self) -> None:
        """Order every bucket by time (oldest first), as if the documents had arrived in order.

        The ``max_bucket`` cap keeps the newest members, so a state rebuilt out of order (a warm
        restart reads newest first) must be put back in order.
        """
        for bucket in self._buckets.values():
            bucket.sort(key=lambda d: self._docs[d].time)
        self._packed.clear()

    def export_arrays(self) -> dict[str, np.ndarray]:
        """The index as flat arrays (for a state snapshot; see ``restore_arrays``).

        Slots are handed out in insertion order and never reused, so the vocabulary in dict
        order is the slot table. Documents are listed bucket by bucket, each bucket in order.
        """
        doc_ids = [d for bucket in self._buckets.values() for d in bucket]
        parts = [self._docs[d].slots for d in doc_ids]
        return {
            "vocab": np.fromiter(self._slot.keys(), dtype=np.int64, count=len(self._slot)),
            "df": self._df[: len(self._slot)].astype(np.int32),
            "doc_ids": np.array(doc_ids, dtype=np.int64),
            "slot_offsets": np.cumsum([0, *(p.size for p in parts)], dtype=np.int64),
            "slots": np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32),
        }

    def restore_arrays(self, arrays: Mapping[str, np.ndarray],
                       doc_info: Callable[[int], tuple[str, float]]) -> None:
        """Load what ``export_arrays`` wrote into this (empty) index, without hashing a gram.

        ``doc_info(doc_id)`` gives the document's bucket key and time, which the snapshot keeps
        once per document rather than once per index.
        """
        if self._docs:
            raise ValueError("restore_arrays needs an empty index")
        vocab, df = arrays["vocab"], arrays["df"]
        if vocab.size != df.size:
            raise ValueError(f"vocab has {vocab.size} grams but df has {df.size}")
        self._slot = dict(zip(vocab.tolist(), range(vocab.size), strict=True))
        self._df = np.zeros(max(1024, 2 * vocab.size), dtype=np.int64)
        self._df[: df.size] = df
        slots, offsets = arrays["slots"], arrays["slot_offsets"].tolist()
        for i, doc_id in enumerate(arrays["doc_ids"].tolist()):
            lead, time = doc_info(doc_id)
            self._buckets[lead].append(doc_id)
            self._docs[doc_id] = _Doc(lead, time, slots[offsets[i] : offsets[i + 1]])

    def expire(self, before: float) -> int:
        old = [d for d, doc in self._docs.items() if doc.time < before]
        for d in old:
            self.remove(d)
        return len(old)

    def weights(self, grams: np.ndarray, extra: np.ndarray | None = None) -> dict[int, float]:
        """IDF weights for ``grams`` (and ``extra``), counting the query itself as one document."""
        n_docs = len(self._docs) + 1 + self.min_docs
        out: dict[int, float] = {}
        query = set(grams.tolist())
        for arr in (grams, extra):
            if arr is None:
                continue
            for g in arr.tolist():
                if g not in out:
                    out[g] = idf_weight(self._doc_freq(g) + (1 if g in query else 0), n_docs)
        return out

    def _doc_freq(self, gram: int) -> int:
        slot = self._slot.get(gram)
        return 0 if slot is None else int(self._df[slot])

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
        members, concat, offsets = self._pack(lead)
        if not members:
            return []
        n_docs = len(self._docs) + 1 + self.min_docs
        # The query counts as one document: its grams' frequencies are one higher.
        q_slots = np.array([self._slot.get(g, -1) for g in grams.tolist()], dtype=np.int64)
        q_df = np.where(q_slots >= 0, self._df[np.maximum(q_slots, 0)], 0) + 1
        w_query = float(np.log1p(n_docs / (1.0 + q_df)).sum())
        in_query = np.isin(concat, q_slots[q_slots >= 0])
        w = np.log1p(n_docs / (1.0 + self._df[concat] + in_query))
        inter = np.add.reduceat(w * in_query, offsets)
        union = w_query + np.add.reduceat(w, offsets) - inter
        scores = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        out = []
        for doc_id, s in zip(members, scores.tolist(), strict=True):
            if exclude and doc_id in exclude:
                continue
            if window is not None and not (window[0] <= self._docs[doc_id].time <= window[1]):
                continue
            if s >= min_score:
                out.append((doc_id, s))
        out.sort(key=lambda x: -x[1])
        return out

    def _pack(self, lead: str) -> tuple[list[int], np.ndarray, np.ndarray]:
        """The newest ``max_bucket`` members of a bucket with their slots concatenated (cached)."""
        packed = self._packed.get(lead)
        if packed is None:
            # A document without grams can score nothing; leaving it out keeps every segment non-empty.
            members = np.array([d for d in self._buckets[lead][-self.max_bucket :] if self._docs[d].slots.size],
                               dtype=np.int64)
            parts = [self._docs[int(d)].slots for d in members]
            lengths = np.array([p.size for p in parts], dtype=np.int64)
            offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
            packed = (members, np.concatenate(parts) if parts else np.zeros(0, np.int32), offsets)
            self._packed[lead] = packed
        members, concat, offsets = packed
        return members.tolist(), concat, offsets
