"""An open-addressing hash map from 32-bit ids to int32 values, in two numpy arrays.

The n-gram index maps every gram id it has seen to a slot in its frequency table. As a Python
``dict`` that cost ~100 bytes per gram (two int objects and an entry), about 160 bytes per
indexed document on the benchmark stream; here a gram costs 8 bytes per table cell at a load
of at most one half, so 16-32 bytes, and a whole title's grams are looked up in one
vectorised probe loop instead of a Python call per gram.

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

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# Past this load the table doubles: linear probing stays at ~1.5 probes per hit up to one half.
_MAX_LOAD = 0.5


class U32Map:
    """uint32 key -> int32 value (>= 0); ``lookup`` answers -1 for a missing key."""

    def __init__(self, capacity: int = 1024) -> None:
        bits = max(4, int(np.ceil(np.log2(max(16, capacity / _MAX_LOAD)))))
        self._alloc(bits)
        self._n = 0

    def _alloc(self, bits: int) -> None:
        self._bits = bits
        self._mask = (1 << bits) - 1
        self._keys = np.zeros(1 << bits, dtype=np.uint32)
        self._vals = np.full(1 << bits, -1, dtype=np.int32)  # -1: empty cell

    def __len__(self) -> int:
        return self._n

    @property
    def nbytes(self) -> int:
        return int(self._keys.nbytes + self._vals.nbytes)

    def _home(self, keys: np.ndarray) -> np.ndarray:
        return ((keys.astype(np.uint64) * _GOLDEN) >> np.uint64(64 - self._bits)).astype(np.int64)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Values of ``keys`` (uint32 array), -1 where a key is absent."""
        keys = np.asarray(keys, dtype=np.uint32)
        out = np.full(keys.size, -1, dtype=np.int32)
        pending = np.arange(keys.size)
        pos = self._home(keys)
        while pending.size:
            p = pos[pending]
            vals = self._vals[p]
            hit = (vals >= 0) & (self._keys[p] == keys[pending])
            out[pending[hit]] = vals[hit]
            go_on = (vals >= 0) & ~hit  # an occupied cell holding another key: probe the next one
            pending = pending[go_on]
            pos[pending] = (pos[pending] + 1) & self._mask
        return out

    def insert_new(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add keys known to be absent and distinct (the caller looked them up first)."""
        keys = np.asarray(keys, dtype=np.uint32)
        values = np.asarray(values, dtype=np.int32)
        if keys.size != values.size:
            raise ValueError(f"{keys.size} keys but {values.size} values")
        if values.size and int(values.min()) < 0:
            raise ValueError("values must be >= 0 (-1 marks an empty cell)")
        if self._n + keys.size > _MAX_LOAD * (1 << self._bits):
            self._grow(self._n + keys.size)
        self._place(keys, values)
        self._n += int(keys.size)

    def _place(self, keys: np.ndarray, values: np.ndarray) -> None:
        pending = np.arange(keys.size)
        pos = self._home(keys)
        while pending.size:
            p = pos[pending]
            free = self._vals[p] < 0
            # Of several keys aiming at one free cell, the first takes it; the rest probe on.
            cand = pending[free]
            cells, first = np.unique(pos[cand], return_index=True)
            winners = cand[first]
            self._keys[cells] = keys[winners]
            self._vals[cells] = values[winners]
            placed = np.zeros(keys.size, dtype=bool)
            placed[winners] = True
            pending = pending[~placed[pending]]
            # Losers of a race retry the same cell (now taken) and then move on, like the rest.
            pos[pending] = np.where(self._vals[pos[pending]] >= 0, (pos[pending] + 1) & self._mask, pos[pending])

    def _grow(self, need: int) -> None:
        occupied = self._vals >= 0
        keys, vals = self._keys[occupied], self._vals[occupied]
        bits = self._bits
        while need > _MAX_LOAD * (1 << bits):
            bits += 1
        self._alloc(bits)
        self._place(keys, vals)

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """(keys, values) of every entry, in no particular order."""
        occupied = self._vals >= 0
        return self._keys[occupied].copy(), self._vals[occupied].copy()
