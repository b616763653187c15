"""Append-only numpy columns: grown by half, compacted when dead rows outnumber live ones.

The candidate state's row stores (``index.ngram``, ``index.minhash``, ``service.doctable``)
append a row per document and leave a dead row behind on every removal or replacement; this
module holds the two rules they share, written once.

>>> a = np.arange(4)
>>> room(a, 3) is a                  # already long enough: the same array
True
>>> room(a, 5).tolist()              # at least half as long again, zero-padded
[0, 1, 2, 3, 0, 0]
>>> room(np.array(["x"], dtype=object), 3).tolist()   # object columns pad with None
['x', None, None]
>>> too_many_dead(rows=10_000, live=2_000), too_many_dead(rows=5_000, live=2_000)
(True, False)
"""

from __future__ import annotations

import numpy as np

__all__ = ["COMPACT_SLACK", "room", "too_many_dead"]

# Dead rows tolerated beyond the live count before a compaction (amortised O(1) per removal;
# the slack keeps a small store from compacting on every other delete). Memory only: a
# compaction renumbers rows but changes no answer, so moving it trades RSS against rebuilds.
COMPACT_SLACK = 4096


def room(a: np.ndarray, size: int) -> np.ndarray:
    """``a``, or a padded copy at least half as long again, so that ``a[:size]`` exists.

    Growing by half, not by double, keeps the spare capacity of these per-gram and per-row
    arrays under a third of what they hold; each element is still copied O(1) times on average.
    Numeric columns are padded with zeros, object columns with ``None``.
    """
    if size <= a.size:
        return a
    cap = max(size, a.size + a.size // 2)
    grown = np.empty(cap, dtype=a.dtype) if a.dtype == object else np.zeros(cap, dtype=a.dtype)
    grown[: a.size] = a
    return grown


def too_many_dead(rows: int, live: int) -> bool:
    """Whether ``rows`` appended rows, ``live`` of them alive, are due a compaction."""
    return rows - live > live + COMPACT_SLACK
