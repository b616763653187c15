"""Document id -> row, as one int32 array offset by a base id, with a dict for outliers.

Store ids are sequential, and the documents a candidate index holds at one time (a time
window) form a run of them, so a dense array costs 4 bytes per id in that run, where a Python
``dict`` costs ~100 (an entry and two int objects) per document. An id far outside the run
(a caller's own numbering, a hash) goes to a small overflow dict instead, so one odd id can
never make the array huge.

>>> m = DenseIdMap()
>>> m.set(1000, 0); m.set(1002, 1); m.set(990, 2); m.set(10**12, 3)
>>> m.get(1002), m.get(990), m.get(10**12), m.get(1001), m.get(5)
(1, 2, 3, -1, -1)
>>> m.discard(1002); m.get(1002)
-1
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping

import numpy as np

# The dense array may span at most max(_MIN_SPAN, _SPARSITY * ids held) ids; beyond, the
# outlying ids go to the dict. At 8 the array costs at most 32 bytes per id held.
_MIN_SPAN = 1 << 20
_SPARSITY = 8


class DenseIdMap:
    """id -> non-negative int (a row, or with ``wide=True`` any int64, e.g. another id)."""

    def __init__(self, *, wide: bool = False) -> None:
        self._dtype = np.int64 if wide else np.int32
        self._base = 0
        self._rows = np.full(0, -1, self._dtype)
        self._count = 0  # ids held, dense and overflow
        self._overflow: dict[int, int] = {}

    def __len__(self) -> int:
        return self._count

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, rows) of every id held, dense ones in id order, then the overflow."""
        dense = np.flatnonzero(self._rows >= 0)
        ids = np.concatenate([dense + self._base, np.fromiter(self._overflow, np.int64, len(self._overflow))])
        rows = np.concatenate([self._rows[dense].astype(np.int64),
                               np.fromiter(self._overflow.values(), np.int64, len(self._overflow))])
        return ids, rows

    @property
    def nbytes(self) -> int:
        return int(self._rows.nbytes) + 100 * len(self._overflow)

    def get_many(self, doc_ids: np.ndarray) -> np.ndarray:
        """``get`` of every id at once, as int64 (-1 where absent).

        >>> m = DenseIdMap(); m.set(10, 0); m.set(12, 1); m.set(10**9, 2)
        >>> m.get_many(np.array([12, 10**9, 11, 10])).tolist()
        [1, 2, -1, 0]
        """
        ids = np.asarray(doc_ids, dtype=np.int64)
        out = np.full(ids.size, -1, np.int64)
        i = ids - self._base
        dense = (i >= 0) & (i < self._rows.size)
        out[dense] = self._rows[i[dense]]
        if self._overflow:
            rest = np.flatnonzero(~dense)
            out[rest] = [self._overflow.get(d, -1) for d in ids[rest].tolist()]
        return out

    def _limit(self) -> int:
        return max(_MIN_SPAN, _SPARSITY * (self._count + 1))

    def get(self, doc_id: int) -> int:
        i = doc_id - self._base
        if 0 <= i < self._rows.size:
            return int(self._rows[i])
        if self._overflow:
            return self._overflow.get(doc_id, -1)
        return -1

    def set(self, doc_id: int, row: int) -> None:
        if row < 0:
            raise ValueError(f"row must be >= 0, got {row}")
        if self._rows.size == 0 and not self._overflow:
            self._base = doc_id
        i = doc_id - self._base
        if 0 <= i < self._rows.size:
            self._count += int(self._rows[i] < 0)
            self._rows[i] = row
            return
        if doc_id in self._overflow:
            self._overflow[doc_id] = row
            return
        self._count += 1
        if i < 0 and self._rows.size - i <= self._limit():  # below the base: shift the array down
            grow = max(-i, self._rows.size // 2)
            self._rows = np.concatenate([np.full(grow, -1, self._dtype), self._rows])
            self._base -= grow
            self._rows[doc_id - self._base] = row
        elif i >= self._rows.size and i < self._limit():
            grown = np.full(min(max(i + 1, 2 * self._rows.size, 1024), self._limit()), -1, self._dtype)
            grown[: self._rows.size] = self._rows
            self._rows = grown
            self._rows[i] = row
        else:
            self._overflow[doc_id] = row
            if len(self._overflow) > max(1024, self._count // 2):
                self._recentre()  # the first id was an outlier: centre the array on the bulk

    def _recentre(self) -> None:
        self.rebuild(*self.items())

    def discard(self, doc_id: int) -> None:
        i = doc_id - self._base
        if 0 <= i < self._rows.size:
            self._count -= int(self._rows[i] >= 0)
            self._rows[i] = -1
        elif self._overflow.pop(doc_id, None) is not None:
            self._count -= 1

    def rebuild(self, ids: np.ndarray, rows: np.ndarray) -> None:
        """Map exactly ``ids[k] -> rows[k]`` (ids distinct), sized to their range."""
        ids = np.asarray(ids, dtype=np.int64)
        rows = np.asarray(rows, dtype=np.int64)
        self._overflow, self._count = {}, int(ids.size)
        if ids.size == 0:
            self._base, self._rows = 0, np.full(0, -1, self._dtype)
            return
        limit = self._limit()
        lo, hi = int(ids.min()), int(ids.max())
        if hi - lo >= limit:  # centre the array on the bulk of the ids; the rest overflow
            lo = max(lo, int(np.median(ids)) - limit // 2)
            hi = lo + limit - 1
        inside = (ids >= lo) & (ids <= hi)
        lo = self._base = int(ids[inside].min())
        self._rows = np.full(int(ids[inside].max()) - lo + 1, -1, self._dtype)
        self._rows[ids[inside] - lo] = rows[inside]
        self._overflow = dict(zip(ids[~inside].tolist(), rows[~inside].tolist(), strict=True))


class IdDict(MutableMapping[int, int]):
    """A ``dict[int, int]`` of non-negative values over a :class:`DenseIdMap`: the candidate
    state's cluster id -> representative map (cluster ids are sequential store ids).

    >>> reps = IdDict(); reps[5] = 50; reps.update({6: 60})
    >>> reps, reps.get(7), 6 in reps, len(reps)
    ({5: 50, 6: 60}, None, True, 2)
    >>> reps == {5: 50, 6: 60}
    True
    """

    def __init__(self) -> None:
        self._map = DenseIdMap(wide=True)

    def __getitem__(self, key: int) -> int:
        v = self._map.get(int(key)) if isinstance(key, (int, np.integer)) else -1
        if v < 0:
            raise KeyError(key)
        return v

    def get(self, key: int, default: int | None = None) -> int | None:  # type: ignore[override]
        v = self._map.get(int(key)) if isinstance(key, (int, np.integer)) else -1
        return default if v < 0 else v

    def __contains__(self, key: object) -> bool:
        return isinstance(key, (int, np.integer)) and self._map.get(int(key)) >= 0

    def __setitem__(self, key: int, value: int) -> None:
        if value < 0:
            raise ValueError(f"values must be >= 0, got {value}")
        self._map.set(int(key), int(value))

    def __delitem__(self, key: int) -> None:
        if key not in self:
            raise KeyError(key)
        self._map.discard(int(key))

    def __iter__(self) -> Iterator[int]:
        return iter(self._map.items()[0].tolist())

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(key, value)`` as two int64 arrays, without a Python object per item."""
        return self._map.items()

    def __len__(self) -> int:
        return len(self._map)

    def __repr__(self) -> str:
        ids, values = self._map.items()
        return repr(dict(zip(ids.tolist(), values.tolist(), strict=True)))

    @property
    def nbytes(self) -> int:
        return self._map.nbytes
