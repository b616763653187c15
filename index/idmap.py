"""Document id -> row, as one int32 array offset by the smallest id held.

Store ids are sequential, and the documents a candidate index holds at one time (a time
window) form a run of them, so a dense array costs 4 bytes per id in that run, where a Python
``dict`` costs ~100 (an entry and two int objects) per document.

>>> m = DenseIdMap()
>>> m.set(1000, 0); m.set(1002, 1); m.set(990, 2)
>>> m.get(1002), m.get(990), m.get(1001), m.get(5)
(1, 2, -1, -1)
>>> m.discard(1002); m.get(1002)
-1
"""

from __future__ import annotations

import numpy as np

# A map spanning more ids than this is refused: 4 bytes an id, 8 GB at the limit.
MAX_SPAN = 1 << 31


class DenseIdMap:
    def __init__(self) -> None:
        self._base = 0
        self._rows = np.full(0, -1, np.int32)

    @property
    def nbytes(self) -> int:
        return int(self._rows.nbytes)

    def get(self, doc_id: int) -> int:
        i = doc_id - self._base
        if 0 <= i < self._rows.size:
            return int(self._rows[i])
        return -1

    def set(self, doc_id: int, row: int) -> None:
        if self._rows.size == 0:
            self._base = doc_id
        i = doc_id - self._base
        if i < 0:  # below the base: shift the map down (rare: ids mostly grow)
            grow = max(-i, self._rows.size // 2)
            if self._rows.size + grow >= MAX_SPAN:
                raise ValueError(f"document id {doc_id} is too far below the ids held (from {self._base})")
            self._rows = np.concatenate([np.full(grow, -1, np.int32), self._rows])
            self._base -= grow
            i = doc_id - self._base
        elif i >= self._rows.size:
            if i >= MAX_SPAN:
                raise ValueError(f"document id {doc_id} is too far above the ids held (from {self._base})")
            grown = np.full(max(i + 1, 2 * self._rows.size, 1024), -1, np.int32)
            grown[: self._rows.size] = self._rows
            self._rows = grown
        self._rows[i] = row

    def discard(self, doc_id: int) -> None:
        i = doc_id - self._base
        if 0 <= i < self._rows.size:
            self._rows[i] = -1

    def rebuild(self, ids: np.ndarray, rows: np.ndarray) -> None:
        """Map exactly ``ids[k] -> rows[k]`` (ids distinct), sized to their range."""
        ids = np.asarray(ids, dtype=np.int64)
        if ids.size == 0:
            self._base, self._rows = 0, np.full(0, -1, np.int32)
            return
        lo, hi = int(ids.min()), int(ids.max())
        if hi - lo >= MAX_SPAN:
            raise ValueError(f"document ids span {hi - lo}, beyond the {MAX_SPAN} one map holds")
        self._base = lo
        self._rows = np.full(hi - lo + 1, -1, np.int32)
        self._rows[ids - lo] = rows
