"""The memory layout of a :class:`~index.vectors.VectorIndex`: one row per faiss position.

Every vector added to the faiss index gets a *position* (its faiss row number). This module
keeps, per position, the caller's document id, its time and whether it is still alive, the
alive flags packed into a bitmap (what faiss's ``IDSelectorBitmap`` filters with), the id ->
position map, and the positions in time order for windowed searches. It knows nothing of
faiss: the index appends to faiss and records the rows here, in step.

>>> import numpy as np
>>> rows = VectorRows(0)
>>> rows.append(np.array([10, 11, 12]), np.array([5.0, 1.0, 3.0]))
0
>>> rows.kill(np.array([rows.pos.get(11)]))
>>> rows.n, rows.n_alive, int(rows.bits[0])     # positions 0 and 2 alive: bits 0b101
(3, 2, 5)
>>> sorted(rows.window_positions(2.0, 6.0).tolist())   # times 5.0 and 3.0
[0, 2]
"""

from __future__ import annotations

import numpy as np

from index.idmap import DenseIdMap

__all__ = ["PENDING_MAX", "VectorRows"]

# Positions appended since the last merge into the time-sorted arrays are scanned linearly
# by windowed searches; merging costs O(n), so it is batched this many at a time.
PENDING_MAX = 8192


class VectorRows:
    """Per-position ids, times and alive flags (plus their bitmap), the id map and the time order.

    Capacity grows by doubling, rounded up to a multiple of 8 so that the packed bitmap always
    covers whole bytes of ``alive``.
    """

    def __init__(self, capacity: int) -> None:
        cap = max(64, -(-capacity // 8) * 8)
        self.n = 0  # rows (positions) used, live or tombstoned
        self.n_alive = 0
        self.ids = np.zeros(cap, dtype=np.int64)
        self.times = np.zeros(cap, dtype=np.float64)
        self.alive = np.zeros(cap, dtype=bool)
        self.bits = np.zeros(cap // 8, dtype=np.uint8)  # packed alive, for IDSelectorBitmap
        self.pos = DenseIdMap()  # id -> position (cluster ids are sequential: 4 bytes each)
        # Time-sorted (time, position) of rows [0, merged); rows [merged, n) are pending.
        self.ts_t = np.zeros(0, dtype=np.float64)
        self.ts_p = np.zeros(0, dtype=np.int64)
        self.merged = 0

    @classmethod
    def restore(cls, ids: np.ndarray, times: np.ndarray, alive: np.ndarray) -> VectorRows:
        """Rows as saved (every position, live or not); ``ValueError`` on duplicate live ids."""
        n = int(ids.size)
        self = cls(n)
        self.ids[:n] = ids
        self.times[:n] = times
        self.alive[:n] = alive
        self.n = n
        live = np.flatnonzero(alive)
        self.n_alive = int(live.size)
        if np.unique(self.ids[live]).size != live.size:
            raise ValueError("duplicate live ids")
        self.pos.rebuild(self.ids[live], live)
        nbytes = self.bits.shape[0]
        self.bits[:] = np.packbits(self.alive[: nbytes * 8], bitorder="little")
        order = live[np.argsort(self.times[live], kind="stable")]
        self.ts_t = self.times[order].copy()
        self.ts_p = order.astype(np.int64)
        self.merged = n
        return self

    def ensure_capacity(self, extra: int) -> None:
        need = self.n + extra
        cap = self.ids.shape[0]
        if need <= cap:
            return
        new_cap = max(need, cap * 2)
        new_cap = -(-new_cap // 8) * 8
        for name in ("ids", "times", "alive"):
            old = getattr(self, name)
            arr = np.zeros(new_cap, dtype=old.dtype)
            arr[: self.n] = old[: self.n]
            setattr(self, name, arr)
        bits = np.zeros(new_cap // 8, dtype=np.uint8)
        bits[: self.bits.shape[0]] = self.bits
        self.bits = bits

    def repack_bits(self, positions: np.ndarray) -> None:
        """Refresh the packed bitmap bytes that hold ``positions``."""
        if positions.size == 0:
            return
        if positions.size == 1:  # the streaming case: one byte, without np.unique
            b = int(positions[0]) >> 3
            self.bits[b] = np.packbits(self.alive[8 * b : 8 * b + 8], bitorder="little")[0]
            return
        byte_idx = np.unique(positions >> 3)
        rows = self.alive.reshape(-1, 8)[byte_idx]
        self.bits[byte_idx] = np.packbits(rows, axis=1, bitorder="little")[:, 0]

    def append(self, ids: np.ndarray, times: np.ndarray) -> int:
        """Record rows for ``ids`` (already free) at the next positions; returns the first one."""
        m = ids.shape[0]
        self.ensure_capacity(m)
        start = self.n
        sl = slice(start, start + m)
        self.ids[sl] = ids
        self.times[sl] = times
        self.alive[sl] = True
        self.n = start + m
        self.n_alive += m
        for i, p in zip(ids.tolist(), range(start, start + m), strict=True):
            self.pos.set(i, p)
        self.repack_bits(np.arange(start, start + m, dtype=np.int64))
        return start

    def kill(self, positions: np.ndarray) -> None:
        """Tombstone ``positions`` (those already dead are skipped)."""
        positions = positions[self.alive[positions]]
        if positions.size == 0:
            return
        for p in self.ids[positions].tolist():
            self.pos.discard(p)
        self.alive[positions] = False
        self.n_alive -= int(positions.size)
        self.repack_bits(positions)

    def merge_pending(self) -> None:
        """Fold rows [merged, n) into the time-sorted arrays (O(n) copy)."""
        if self.merged == self.n:
            return
        new_p = np.arange(self.merged, self.n, dtype=np.int64)
        new_t = self.times[self.merged : self.n]
        order = np.argsort(new_t, kind="stable")
        new_p, new_t = new_p[order], new_t[order]
        at = np.searchsorted(self.ts_t, new_t, side="right")
        self.ts_t = np.insert(self.ts_t, at, new_t)
        self.ts_p = np.insert(self.ts_p, at, new_p)
        self.merged = self.n

    def window_positions(self, lo: float, hi: float) -> np.ndarray:
        """Live positions with lo <= time <= hi (unsorted)."""
        if self.n - self.merged > PENDING_MAX:
            self.merge_pending()
        a = np.searchsorted(self.ts_t, lo, side="left")
        b = np.searchsorted(self.ts_t, hi, side="right")
        pos = self.ts_p[a:b]
        if self.merged < self.n:
            t = self.times[self.merged : self.n]
            extra = np.flatnonzero((t >= lo) & (t <= hi)) + self.merged
            pos = np.concatenate([pos, extra])
        return pos[self.alive[pos]]

    def expire(self, before: float) -> int:
        """Tombstone every live row with ``time < before``; returns how many."""
        self.merge_pending()
        cut = int(np.searchsorted(self.ts_t, before, side="left"))
        if cut == 0:
            return 0
        gone = self.ts_p[:cut]
        gone = gone[self.alive[gone]]
        self.kill(gone)
        # Dead rows leave the time order for good; copy so the old buffer is freed.
        self.ts_t = self.ts_t[cut:].copy()
        self.ts_p = self.ts_p[cut:].copy()
        return int(gone.size)

    @property
    def nbytes(self) -> int:
        """Bytes of the row arrays, the time order and the id map."""
        return (self.ids.nbytes + self.times.nbytes + self.alive.nbytes + self.bits.nbytes
                + self.ts_t.nbytes + self.ts_p.nbytes + self.pos.nbytes)
