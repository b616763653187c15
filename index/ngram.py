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
from array import array
from collections import defaultdict
from collections.abc import Callable, Mapping

import numpy as np

from index.growable import room, too_many_dead
from index.hashmap import U32Map
from index.idmap import DenseIdMap


def idf_weight(df: int, n_docs: int) -> float:
    """Seed 000's weight: log(1 + N / (1 + df))."""
    return math.log1p(n_docs / (1 + df))


def _id_array() -> array[int]:
    return array("q")


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
        # Members as array('q'): 8 bytes each, where a list also held an int object (~32 more).
        self._buckets: dict[str, array[int]] = defaultdict(_id_array)
        # One row per indexed document, column-wise: id, bucket key, time, and where its gram
        # slots lie in one int32 arena. (A slotted object and a slot array per document cost
        # ~250 bytes more per representative.) Replacing or removing a document leaves a dead
        # row; _compact rebuilds the rows once dead ones outnumber live ones.
        self._rows = DenseIdMap()
        self._n = self._live = 0
        self._doc = np.zeros(256, np.int64)
        self._time = np.zeros(256, np.float64)
        self._lead = np.empty(256, dtype=object)  # interned strings: one pointer a row
        self._start = np.zeros(256, np.int64)
        self._len = np.zeros(256, np.int32)
        self._arena = np.zeros(4096, np.int32)
        self._arena_n = 0
        # Document frequencies live in a dense array indexed by a slot per gram id, so a whole
        # bucket is scored with a few vectorised operations instead of a Python loop per gram.
        # Slots are handed out in order of first sight and never reused; _vocab lists the gram
        # id of each slot, _slot_of maps back (a numpy hash map: 16-32 bytes a gram).
        self._slot_of = U32Map()
        self._vocab = np.zeros(1024, np.uint32)
        self._df = np.zeros(1024, dtype=np.int32)  # counts of live documents: < 2**31
        self._packed: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}  # bucket cache

    def __len__(self) -> int:
        return self._live

    def __contains__(self, doc_id: int) -> bool:
        return self._rows.get(doc_id) >= 0

    def _slots_of(self, grams: np.ndarray) -> np.ndarray:
        """Slots of ``grams`` (ids, repeats allowed), handing new grams the next free slots in
        order of first appearance (so a batch numbers them as one-by-one adds would)."""
        slots = self._slot_of.lookup(grams)
        new = np.flatnonzero(slots < 0)
        if new.size:
            # A dict numbers the distinct new ids in order of first appearance in one pass
            # (np.unique + argsort + searchsorted did the same in ~6 calls of fixed overhead).
            unseen = grams[new].tolist()
            n_vocab = len(self._slot_of)
            fresh = {g: n_vocab + i for i, g in enumerate(dict.fromkeys(unseen))}
            k = len(fresh)
            uniq = np.fromiter(fresh, dtype=np.uint32, count=k)
            self._slot_of.insert_new(uniq, np.arange(n_vocab, n_vocab + k, dtype=np.int32))
            self._vocab = room(self._vocab, n_vocab + k)
            self._vocab[n_vocab : n_vocab + k] = uniq
            self._df = room(self._df, n_vocab + k)
            slots[new] = [fresh[g] for g in unseen]
        return slots

    def _slots_at(self, row: int) -> np.ndarray:
        s = int(self._start[row])
        return self._arena[s : s + int(self._len[row])]

    def _append_row(self, doc_id: int, lead: str, time: float, slots: np.ndarray) -> None:
        row = self._n
        if row == self._doc.size:
            for name in ("_doc", "_time", "_lead", "_start", "_len"):
                setattr(self, name, room(getattr(self, name), row + 1))
        self._arena = room(self._arena, self._arena_n + slots.size)
        self._arena[self._arena_n : self._arena_n + slots.size] = slots
        self._doc[row], self._time[row], self._lead[row] = doc_id, time, lead
        self._start[row], self._len[row] = self._arena_n, slots.size
        self._arena_n += slots.size
        self._n += 1
        self._live += 1
        self._rows.set(doc_id, row)

    def _time_of(self, doc_id: int) -> float:
        return float(self._time[self._rows.get(doc_id)])

    def add(self, doc_id: int, lead: str, grams: np.ndarray, time: float) -> None:
        self.remove(doc_id)
        self._buckets[lead].append(doc_id)
        self._packed.pop(lead, None)
        slots = self._slots_of(grams)
        self._append_row(doc_id, lead, time, slots)
        np.add.at(self._df, slots, 1)

    def add_many(self, docs: list[tuple[int, str, np.ndarray, float]]) -> None:
        """``add`` for each (doc_id, lead, grams, time) in order, with one vocabulary lookup for
        the whole batch (new grams get slots in order of first appearance, as one by one)."""
        if not docs:
            return
        for doc_id, *_ in docs:
            self.remove(doc_id)
        grams = [np.asarray(g, dtype=np.uint32) for _, _, g, _ in docs]
        slots = self._slots_of(np.concatenate(grams))
        offsets = np.cumsum([0, *(g.size for g in grams)])
        for i, (doc_id, lead, _, time) in enumerate(docs):
            self._buckets[lead].append(doc_id)
            self._packed.pop(lead, None)
            self._append_row(doc_id, lead, time, slots[offsets[i] : offsets[i + 1]])
        np.add.at(self._df, slots, 1)

    def remove(self, doc_id: int) -> None:
        row = self._rows.get(doc_id)
        if row < 0:
            return
        lead = self._lead[row]
        self._packed.pop(lead, None)
        bucket = self._buckets.get(lead)
        if bucket is not None:
            bucket.remove(doc_id)
            if not bucket:
                del self._buckets[lead]
        np.subtract.at(self._df, self._slots_at(row), 1)
        self._rows.discard(doc_id)
        self._lead[row] = None
        self._live -= 1
        if too_many_dead(self._n, self._live):
            self._compact()

    def _compact(self) -> None:
        """Rebuild the rows and the slot arena from the live rows only."""
        keep = np.flatnonzero(self._lead[: self._n] != None)  # noqa: E711 - elementwise on an object array
        lens = self._len[keep].astype(np.int64)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64) if keep.size else np.zeros(0, np.int64)
        gather = np.repeat(self._start[keep] - starts, lens) + np.arange(int(lens.sum()))
        self._arena = np.concatenate([self._arena[gather], np.zeros(max(4096, gather.size // 4), np.int32)])
        self._arena_n = int(gather.size)
        for name, values in (("_doc", self._doc[keep]), ("_time", self._time[keep]), ("_lead", self._lead[keep]),
                             ("_start", starts), ("_len", self._len[keep])):
            col = getattr(self, name)
            size = max(256, keep.size + keep.size // 4)
            new = np.empty(size, dtype=col.dtype) if col.dtype == object else np.zeros(size, col.dtype)
            new[: keep.size] = values
            setattr(self, name, new)
        self._n = self._live = int(keep.size)
        self._rows.rebuild(self._doc[: self._n], np.arange(self._n, dtype=np.int32))

    def sort_buckets(self) -> None:
        """Order every bucket by time (oldest first), as if the documents had arrived in order.

        The ``max_bucket`` cap keeps the newest members, so a state rebuilt out of order (a warm
        restart reads newest first) must be put back in order.
        """
        for bucket in self._buckets.values():
            bucket[:] = array("q", sorted(bucket, key=self._time_of))
        self._packed.clear()

    def export_arrays(self) -> dict[str, np.ndarray]:
        """The index as flat arrays (for a state snapshot; see ``restore_arrays``).

        Slots are handed out in insertion order and never reused, so the vocabulary in dict
        order is the slot table. Documents are listed bucket by bucket, each bucket in order.
        """
        buckets = [np.frombuffer(b, dtype=np.int64) for b in self._buckets.values() if len(b)]
        doc_ids = np.concatenate(buckets) if buckets else np.zeros(0, np.int64)
        del buckets  # views of the bucket arrays: they could not grow while these live
        rows = self._rows.get_many(doc_ids)
        lens = self._len[rows].astype(np.int64)
        offsets = np.zeros(doc_ids.size + 1, np.int64)
        np.cumsum(lens, out=offsets[1:])
        # One gather over the arena: row k's run starts at _start[row] and lands at offsets[k].
        gather = np.repeat(self._start[rows] - offsets[:-1], lens) + np.arange(int(offsets[-1]))
        n_vocab = len(self._slot_of)
        return {
            "vocab": self._vocab[:n_vocab].astype(np.int64),
            "df": self._df[:n_vocab].astype(np.int32),
            "doc_ids": doc_ids,
            "slot_offsets": offsets,
            "slots": self._arena[gather].astype(np.int32),
        }

    def restore_arrays(self, arrays: Mapping[str, np.ndarray],
                       doc_info: Callable[[int], tuple[str, float]]) -> None:
        """Load what ``export_arrays`` wrote into this (empty) index, without hashing a gram.

        ``doc_info(doc_id)`` gives the document's bucket key and time, which the snapshot keeps
        once per document rather than once per index.
        """
        if self._live or self._n:
            raise ValueError("restore_arrays needs an empty index")
        vocab, df = arrays["vocab"], arrays["df"]
        if vocab.size != df.size:
            raise ValueError(f"vocab has {vocab.size} grams but df has {df.size}")
        if vocab.size and (int(vocab.min()) < 0 or int(vocab.max()) >= 1 << 32):
            raise ValueError("vocab holds ids outside 32 bits")
        self._slot_of = U32Map()
        self._slot_of.insert_new(vocab.astype(np.uint32), np.arange(vocab.size, dtype=np.int32))
        # Sized to what is loaded plus a little: new rows grow the arrays by half when needed.
        self._vocab = np.zeros(max(1024, vocab.size + vocab.size // 8), np.uint32)
        self._vocab[: vocab.size] = vocab
        self._df = np.zeros(self._vocab.size, dtype=np.int32)
        self._df[: df.size] = df
        slots, offsets = arrays["slots"], arrays["slot_offsets"]
        doc_ids = arrays["doc_ids"]
        if offsets.size != doc_ids.size + 1 or (offsets.size and int(offsets[-1]) != slots.size):
            raise ValueError("slot offsets do not match the documents and slots")
        n = doc_ids.size
        cap = max(256, n + n // 8)
        self._doc, self._time = np.zeros(cap, np.int64), np.zeros(cap, np.float64)
        self._lead, self._start, self._len = np.empty(cap, dtype=object), np.zeros(cap, np.int64), np.zeros(cap, np.int32)
        self._doc[:n] = doc_ids
        self._start[:n] = offsets[:-1]
        self._len[:n] = np.diff(offsets)
        self._arena = np.zeros(max(4096, slots.size + slots.size // 8), np.int32)
        self._arena[: slots.size] = slots
        self._arena_n = int(slots.size)
        for row, doc_id in enumerate(doc_ids.tolist()):
            lead, time = doc_info(doc_id)
            self._buckets[lead].append(doc_id)
            self._lead[row], self._time[row] = lead, time
        self._n = self._live = n
        self._rows.rebuild(doc_ids, np.arange(n, dtype=np.int32))

    def expire(self, before: float) -> int:
        n = self._n
        old = self._doc[:n][(self._lead[:n] != None) & (self._time[:n] < before)].tolist()  # noqa: E711
        for d in old:
            self.remove(d)
        return len(old)

    def weights(self, grams: np.ndarray, extra: np.ndarray | None = None) -> dict[int, float]:
        """IDF weights for ``grams`` (and ``extra``), counting the query itself as one document."""
        n_docs = self._live + 1 + self.min_docs
        ids = np.asarray(grams, dtype=np.uint32) if extra is None else np.union1d(grams, extra).astype(np.uint32)
        slots = self._slot_of.lookup(ids)
        df = np.where(slots >= 0, self._df[np.maximum(slots, 0)], 0) + np.isin(ids, grams)
        return {g: idf_weight(int(d), n_docs) for g, d in zip(ids.tolist(), df.tolist(), strict=True)}

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
        scored = self._score_bucket(lead, grams)
        if scored is None:
            return []
        members, times, scores = scored
        keep = scores >= min_score
        if window is not None:
            keep &= (times >= window[0]) & (times <= window[1])
        return self._listed(members, scores, keep, exclude)

    def candidates_split(self, lead: str, grams: np.ndarray, window: tuple[float, float], floor: float
                         ) -> tuple[list[tuple[int, float]], Callable[[], list[tuple[int, float]]]]:
        """One scoring of ``lead``'s bucket, two answers: ``candidates(lead, grams, window=window)``,
        and a function that lists the members outside the window scoring at or above ``floor``,
        best first (bucket order among equal scores, as ``candidates`` without a window lists
        them). The second list is built only when asked for (an item with no candidate in any
        stage names one as its reason): it reads the scores already computed."""
        scored = self._score_bucket(lead, grams)
        if scored is None:
            return [], list
        members, times, scores = scored
        inside = (times >= window[0]) & (times <= window[1])
        return (self._listed(members, scores, inside, None),
                lambda: self._listed(members, scores, ~inside & (scores >= floor), None))

    @staticmethod
    def _listed(members: np.ndarray, scores: np.ndarray, keep: np.ndarray,
                exclude: set[int] | None) -> list[tuple[int, float]]:
        hits = np.flatnonzero(keep)
        out = [(d, s) for d, s in zip(members[hits].tolist(), scores[hits].tolist(), strict=True)
               if not (exclude and d in exclude)]
        out.sort(key=lambda x: -x[1])  # stable: equal scores keep bucket order
        return out

    def _score_bucket(self, lead: str, grams: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The newest ``max_bucket`` members of ``lead``'s bucket (``_pack``), their times, and each
        one's weighted-Jaccard score against ``grams``; None when there is nothing to score."""
        bucket = self._buckets.get(lead)
        if not bucket or grams.size == 0:
            return None
        members, times, concat, offsets = self._pack(lead)
        if not members.size:
            return None
        n_docs = self._live + 1 + self.min_docs
        # The query counts as one document: its grams' frequencies are one higher.
        q_slots = self._slot_of.lookup(grams).astype(np.int64)
        q_df = np.where(q_slots >= 0, self._df[np.maximum(q_slots, 0)], 0) + 1
        w_query = float(np.log1p(n_docs / (1.0 + q_df)).sum())
        # Which members' slots the query holds, by a lookup in a flag per slot: the same mask as
        # ``np.isin(concat, known)``, whose fixed cost (range checks, a table or a sort) was ~70 us
        # of a ~100 us call on the bench stream's ~700-slot buckets (issue 37). A fresh array per
        # call, not a kept one: lazily zeroed pages cost a few us, and no state is shared.
        flags = np.zeros(self._df.size, dtype=bool)
        flags[q_slots[q_slots >= 0]] = True
        in_query = flags[concat]
        w = np.log1p(n_docs / (1.0 + self._df[concat] + in_query))
        inter = np.add.reduceat(w * in_query, offsets)
        union = w_query + np.add.reduceat(w, offsets) - inter
        scores = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        return members, times, scores

    def _pack(self, lead: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The newest ``max_bucket`` members of a bucket, their times, and their slots
        concatenated with each member's offset (cached until the bucket changes)."""
        packed = self._packed.get(lead)
        if packed is None:
            # A document without grams can score nothing; leaving it out keeps every segment non-empty.
            rows = [self._rows.get(d) for d in self._buckets[lead][-self.max_bucket :]]
            rows = [r for r in rows if self._len[r]]
            parts = [self._slots_at(r) for r in rows]
            lengths = np.array([p.size for p in parts], dtype=np.int64)
            offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
            packed = (self._doc[rows], self._time[rows],
                      np.concatenate(parts) if parts else np.zeros(0, np.int32), offsets)
            self._packed[lead] = packed
        return packed
