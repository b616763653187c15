"""Tests for index/ngram.py: the gated n-gram index's scores against their definition."""

from __future__ import annotations

import numpy as np

from index.ngram import GatedNgramIndex


def test_candidates_mark_the_query_slots_as_np_isin_does() -> None:
    """``candidates`` marks the query's slots with a flag array, not ``np.isin`` (issue 37): every
    score equals, bit for bit, the one the ``np.isin`` mask gives through the same sums, grams the
    index has never seen and members sharing no gram included."""
    rng = np.random.default_rng(7)
    idx = GatedNgramIndex(min_docs=5)
    for d in range(1, 120):
        grams = np.unique(rng.integers(0, 400, rng.integers(3, 40))).astype(np.uint32)
        idx.add(d, "lead" if d % 4 else "other", grams, float(d))
    for _ in range(20):
        q = np.unique(rng.integers(0, 500, rng.integers(1, 30))).astype(np.uint32)
        members, _times, concat, offsets = idx._pack("lead")
        n_docs = len(idx) + 1 + idx.min_docs
        q_slots = idx._slot_of.lookup(q).astype(np.int64)
        q_df = np.where(q_slots >= 0, idx._df[np.maximum(q_slots, 0)], 0) + 1
        w_query = float(np.log1p(n_docs / (1.0 + q_df)).sum())
        in_query = np.isin(concat, q_slots[q_slots >= 0])
        w = np.log1p(n_docs / (1.0 + idx._df[concat] + in_query))
        inter = np.add.reduceat(w * in_query, offsets)
        union = w_query + np.add.reduceat(w, offsets) - inter
        want = dict(zip(members.tolist(), np.divide(inter, union, out=np.zeros_like(inter), where=union > 0).tolist(),
                        strict=True))
        assert dict(idx.candidates("lead", q)) == want


def test_candidates_split_is_the_windowed_search_and_the_hits_outside_it() -> None:
    """``candidates_split`` (one scoring, issue 37) answers what two searches answered: the windowed
    ``candidates``, and the unwindowed one's hits outside the window at or above the floor, in its
    order (ties in bucket order); with a ``max_bucket`` cap, many equal scores and removals."""
    rng = np.random.default_rng(11)
    idx = GatedNgramIndex(min_docs=5, max_bucket=40)
    pool = [np.unique(rng.integers(0, 60, rng.integers(2, 12))).astype(np.uint32) for _ in range(15)]
    for d in range(1, 200):
        idx.add(d, "lead" if d % 5 else "other", pool[int(rng.integers(0, len(pool)))], float(rng.integers(0, 100)))
        if d % 17 == 0:
            idx.remove(int(rng.integers(1, d)))
    checked = 0
    for _ in range(60):
        q = pool[int(rng.integers(0, len(pool)))] if rng.random() < 0.5 else \
            np.unique(rng.integers(0, 70, rng.integers(1, 12))).astype(np.uint32)
        lo = float(rng.integers(0, 90))
        window, floor = (lo, lo + float(rng.integers(0, 30))), float(rng.choice([0.0, 0.2, 0.3, 0.5]))
        inside, beyond = idx.candidates_split("lead", q, window, floor)
        times = dict(zip(*[a.tolist() for a in idx._pack("lead")[:2]], strict=True))
        assert inside == idx.candidates("lead", q, window=window)
        assert beyond() == [(d, s) for d, s in idx.candidates("lead", q)
                            if s >= floor and not window[0] <= times[d] <= window[1]]
        checked += bool(beyond())
    assert checked > 10
    assert idx.candidates_split("none", pool[0], (0.0, 1.0), 0.3)[0] == []
    assert idx.candidates_split("none", pool[0], (0.0, 1.0), 0.3)[1]() == []
