"""A map from 32-bit ids to int32 values: one sorted pair of numpy arrays plus a small dict.

The n-gram index maps every gram id it has seen to a slot in its frequency table. As a Python
``dict`` that cost ~100 bytes per gram (two int objects and an entry), about 160 bytes per
indexed document on the benchmark stream. Here the bulk of the map is two sorted arrays
(8 bytes a gram, no load factor) searched with ``np.searchsorted``; new ids go to a small
``dict`` first, merged into the arrays once it holds ``merge_at`` of them, so an insert costs
O(1) amortised and the dict never holds more than ``merge_at`` ids (a log-structured merge
with one level). A whole title's grams are looked up with a few vectorised calls.

An open-addressing table in numpy was tried first: fewer bytes than a dict, but each lookup
needed several rounds of numpy calls on small arrays (~35 us a title against ~6 us for the
dict); this layout measured ~12 us.

>>> import numpy as np
>>> m = U32Map()
>>> m.insert_new(np.array([10, 2**32 - 1, 0], dtype=np.uint32), np.array([0, 1, 2], dtype=np.int32))
>>> m.lookup(np.array([0, 10, 7, 2**32 - 1], dtype=np.uint32)).tolist()
[2, 0, -1, 1]
>>> len(m)
3
"""

from __future__ import annotations

import numpy as np

# New ids wait in the dict until there are this many (~6 MB of dict at most), then merge into
# the sorted arrays with one O(n) pass: a 1M-gram vocabulary pays ~10 ms per 64k new grams.
_MERGE_AT = 65_536


class U32Map:
    """uint32 key -> int32 value (>= 0); ``lookup`` answers -1 for a missing key."""

    def __init__(self, *, merge_at: int = _MERGE_AT) -> None:
        if merge_at < 1:
            raise ValueError(f"merge_at must be >= 1, got {merge_at}")
        self.merge_at = merge_at
        self._keys = np.zeros(0, dtype=np.uint32)  # sorted
        self._vals = np.zeros(0, dtype=np.int32)
        self._recent: dict[int, int] = {}

    def __len__(self) -> int:
        return int(self._keys.size) + len(self._recent)

    @property
    def nbytes(self) -> int:
        return int(self._keys.nbytes + self._vals.nbytes) + 100 * len(self._recent)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Values of ``keys`` (uint32 array), -1 where a key is absent."""
        keys = np.asarray(keys, dtype=np.uint32)
        if self._keys.size:
            at = np.minimum(np.searchsorted(self._keys, keys), self._keys.size - 1)
            found = self._keys[at] == keys
            out = np.where(found, self._vals[at], -1).astype(np.int32)
        else:
            found = np.zeros(keys.size, dtype=bool)
            out = np.full(keys.size, -1, dtype=np.int32)
        if self._recent:
            miss = np.flatnonzero(~found)
            if miss.size:
                # One list comprehension over plain ints: indexing numpy scalars one at a time
                # cost ~0.5 us a key, which made the dict part most of a title's lookup.
                get = self._recent.get
                out[miss] = [get(k, -1) for k in keys[miss].tolist()]
        return out

    def insert_new(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add keys known to be absent and distinct (the caller looked them up first)."""
        keys = np.asarray(keys, dtype=np.uint32)
        values = np.asarray(values, dtype=np.int32)
        if keys.size != values.size:
            raise ValueError(f"{keys.size} keys but {values.size} values")
        if values.size and int(values.min()) < 0:
            raise ValueError("values must be >= 0 (-1 answers a missing key)")
        if keys.size >= self.merge_at:  # a bulk load: straight into the arrays
            self._merge(keys, values)
            return
        self._recent.update(zip(keys.tolist(), values.tolist(), strict=True))
        if len(self._recent) >= self.merge_at:
            recent, self._recent = self._recent, {}
            self._merge(np.fromiter(recent.keys(), np.uint32, len(recent)),
                        np.fromiter(recent.values(), np.int32, len(recent)))

    def _merge(self, keys: np.ndarray, values: np.ndarray) -> None:
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
        at = np.searchsorted(self._keys, keys)
        self._keys = np.insert(self._keys, at, keys)
        self._vals = np.insert(self._vals, at, values)

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """(keys, values) of every entry, in no particular order."""
        rk = np.fromiter(self._recent.keys(), np.uint32, len(self._recent))
        rv = np.fromiter(self._recent.values(), np.int32, len(self._recent))
        return np.concatenate([self._keys, rk]), np.concatenate([self._vals, rv])
