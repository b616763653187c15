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
