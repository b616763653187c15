"""FAISS candidate index for cross-lingual near-duplicate search.

Only items that survive the cheap passes (URL, hashes, n-grams, MinHash) are embedded and
searched here, by cosine similarity: vectors are L2-normalised, the index scores by inner
product.  The index is exact (``IndexFlatIP``, float32) while it is small and switches once,
automatically, to HNSW over compressed vectors when it grows past ``exact_until`` items.

Ids are int64 document ids chosen by the caller; times are float epoch seconds.  Internally
every added vector gets a *position* (its faiss row number); ids map to positions, and
removal only tombstones a position, because faiss HNSW cannot really delete.  Tombstones are
filtered out of every search with an ``IDSelectorBitmap`` and reclaimed by :meth:`compact`,
which runs by itself when they exceed ``compact_ratio`` of the rows.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.standard_normal((5, 8)).astype(np.float32)
>>> idx = VectorIndex(8)
>>> idx.add(np.array([10, 11, 12, 13, 14]), x, np.array([0.0, 10.0, 20.0, 30.0, 40.0]))
>>> len(idx), idx.kind
(5, 'flat')
>>> [i for i, _ in idx.search(x[2], k=2)[0]][0]   # a stored item finds itself first
12
>>> round(idx.search(x[2], k=1)[0][0][1], 4)       # score is the cosine
1.0
>>> [i for i, _ in idx.search(x[2], k=5, window=(15.0, 35.0))[0]]   # only t in [15, 35]
[12, 13]
>>> idx.search(x[2], k=1, exclude={12})[0][0][0] != 12
True
>>> idx.expire(before=15.0), len(idx)
(2, 3)

Input policy (documented choice): vectors are always copied to float32 and L2-normalised;
a vector whose norm is (near) zero or that holds NaN/inf is rejected with ``ValueError``,
as is a dimension or length mismatch.  A batch that repeats an id keeps its *last* row,
the same rule as re-adding an id later (the new vector and time replace the old ones).

The object is not thread-safe: the engine holds one lock around it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import struct
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO, Literal

import faiss
import numpy as np

from index.files import PendingFile, write_together
from index.idmap import DenseIdMap

__all__ = ["VectorIndex"]

Storage = Literal["float32", "float16", "sq8"]

_SQ_TYPES: dict[str, int] = {
    "float16": faiss.ScalarQuantizer.QT_fp16,
    "sq8": faiss.ScalarQuantizer.QT_8bit,
}

# A vector is renormalised when its norm is off by more than this; float32 rounding of a
# 512-d unit vector is ~1e-7, so anything beyond 1e-4 really was unnormalised.
_NORM_TOL = 1e-4
# Below this norm there is no direction to keep (an all-zero embedding from an empty text).
_MIN_NORM = 1e-6

# SQ8 learns a per-dimension [min, max] (faiss RS_minmax) from the live rows when it is built:
# all of them at the flat->HNSW switch (~exact_until rows), an even sample of at most this many
# at a compaction.  Measured only with the switch-time training (20k rows, default exact_until):
# recall@10 0.992 at 30k and 0.958 at 100k (ef 64), vs 0.9996 / 0.966 for untrained float16,
# so the range fit costs <1 point; larger samples were not tried.
_SQ_TRAIN_SAMPLE = 100_000

# Windowed search: when the in-window live items are this few, they are scored directly from
# their decoded vectors (reconstruct_batch: ~2 us a 512-d SQ8 row on the shared 2-core box,
# 0.5-1 ms for 256) instead of a faiss scan that checks every row's bitmap bit.
_DIRECT_SCORE_MAX = 256

# Windowed search walks the HNSW graph (with a bitmap IDSelector) only when the window holds
# more than exact_scan_limit live items AND at least this fraction of all rows; otherwise it
# scans the in-window codes exactly (faiss flat scan with the bitmap, which skips non-members).
# HNSW walks non-members for navigation but only keeps members, so it needs efSearch ~
# ef_search / fraction, and that gets slow and lossy fast.  Measured on 50k clustered 512-d
# SQ8 rows, 100 queries, k=10, on the shared 2-core box (load ~14, so absolute times are
# inflated; the ratios are the point):
#   window 2%  (1k items):  exact scan recall 0.993 p50  0.9 ms | graph ef 1024 0.826, 88 ms
#   window 10% (5k items):  exact scan recall 0.990 p50  1.5 ms | graph ef  640 0.884, 59 ms
#   window 30% (15k items): exact scan recall 0.993 p50 19.2 ms | graph ef  214 0.956, 27 ms
_GRAPH_MIN_FRACTION = 0.25
# efSearch for a filtered graph walk is ef_search / fraction, capped here (= 64 / 0.25).
_FILTER_EF_CAP = 256

# Positions appended since the last merge into the time-sorted arrays are scanned linearly
# by windowed searches; merging costs O(n), so it is batched this many at a time.
_PENDING_MAX = 8192

# Searches with fewer queries than this run on one OpenMP thread: on a shared 2-core box the
# OpenMP fork/join of a single-query search measured 10+ ms of spin, against ~0.3 ms of work.
_PARALLEL_MIN_QUERIES = 8

# add() batches below this many rows run single-threaded (HNSW parallelises over rows).
_PARALLEL_MIN_ADD = 256

_MAGIC = b"SSVIDX\x00\x01"
_FORMAT = 1
_ALIGN = 64


@contextlib.contextmanager
def _omp_threads(n: int) -> Iterator[None]:
    """Run a block with ``n`` OpenMP threads (faiss's setting is process-global)."""
    prev = faiss.omp_get_max_threads()
    if n != prev:
        faiss.omp_set_num_threads(n)
    try:
        yield
    finally:
        if n != prev:
            faiss.omp_set_num_threads(prev)


def _as_float_matrix(vectors: Any, dim: int, what: str) -> np.ndarray:
    """Validate and return a C-contiguous float32 copy of ``vectors``, unit-normalised.

    >>> _as_float_matrix([[3.0, 4.0]], 2, "vectors")
    array([[0.6, 0.8]], dtype=float32)
    """
    x = np.array(vectors, dtype=np.float32, copy=True)
    if x.ndim == 1 and x.shape[0] == dim:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array of shape (n, {dim}); got shape {x.shape}")
    if x.shape[1] != dim:
        raise ValueError(f"{what} has dimension {x.shape[1]}; this index holds dimension {dim}")
    if x.size and not np.isfinite(x).all():
        bad = np.flatnonzero(~np.isfinite(x).all(axis=1))
        raise ValueError(f"{what} has NaN or inf values in rows {bad[:10].tolist()}")
    norms = np.linalg.norm(x, axis=1)
    if x.size and (norms < _MIN_NORM).any():
        bad = np.flatnonzero(norms < _MIN_NORM)
        raise ValueError(f"{what} has zero-norm rows {bad[:10].tolist()}; cannot normalise")
    off = np.abs(norms - 1.0) > _NORM_TOL
    if off.any():
        x[off] /= norms[off, None]
    return np.ascontiguousarray(x)


class VectorIndex:
    """Cosine k-NN over normalised vectors, exact while small, HNSW past ``exact_until``.

    Parameters (the recall-relevant ones are measured in bench/vector_index_bench.py and
    tests/test_vector_index.py):

    - ``exact_until``: live items kept in an exact ``IndexFlatIP`` (float32).  Crossing it
      rebuilds once into HNSW.  A compaction that leaves fewer than half of it live goes back
      to flat (hysteresis, so a remove/add at the boundary does not flip-flop).
    - ``hnsw_m``: HNSW links per node (level 0 keeps 2*M int32 links: 128 B/item at M=16;
      each +M costs ~8 B/item).  At 100k items (SQ8, ef 64) M=32 measured recall@10 0.985
      vs 0.958 for M=16, at 925 vs 797 B/item estimated and the same add time (within the
      noise of the shared box).  The default stays 16 (the engine contract); for indexes past
      ~100k items prefer ``hnsw_m=32, ef_search=128`` (0.989 at 100k).
    - ``ef_search``: HNSW search beam.  Recall@10 against exact float32 search, SQ8 storage,
      M=16, clustered 512-d synthetic data (bench/vector_index_bench.py, N/30 centres, queries
      = items + 0.02 noise), on the shared 2-core box:

      ====  =========  ==========  ==========  ==================
      ef    30k items  100k items  300k items  100k p50 (load ~15)
      ====  =========  ==========  ==========  ==================
      32    0.983      0.894       --          0.56 ms
      64    0.992      0.958       0.763       0.92 ms
      128   --         0.981       0.857       1.71 ms
      256   --         0.982       --          (noisy)
      ====  =========  ==========  ==========  ==================

      Recall at fixed ef falls fast as this data set grows.  Probable cause (not verified):
      its 30-item clusters are islands in a flat sea (cross-cluster cosines ~0), a bad case
      for HNSW greedy routing; real embeddings form more of a continuum, but that is not
      measured yet.  Past ~100k items raise ef_search to 128 or more, and re-measure on real
      embeddings.  Windowed searches (the engine's normal case) usually take the exact scan
      (see exact_scan_limit) and do not depend on the graph: 2% windows measured 0.98-0.99.
    - ``storage``: HNSW vector codes.  ``sq8`` (1 byte/dim, default): ~800 B/item estimated
      at 512-d (512 codes + 128 graph + id/time/dict bookkeeping), 1.33 KB/item RSS growth at
      100k (includes allocator slack and the transient flat stage).  ``float16`` (2 bytes/dim)
      lifts the ceiling (30k: 0.9996 at ef 64) for +512 B/item.  ``float32`` (4 bytes/dim)
      is over the 1.5 KB/item budget at 512-d.  SQ8 ranges are trained once, on the live items
      at the flat->HNSW switch (and again at each compaction); later values outside the
      trained range are clipped.
    - ``ef_construction``: HNSW build beam (faiss default 40); build speed ~2.5k items/s on 2
      idle cores at 30k, and it dominates add() time.
    - ``exact_scan_limit``: a windowed search whose window holds at most this many live items
      (or under a quarter of the rows) scores them exactly instead of walking the graph.
    - ``compact_ratio``: tombstoned rows, as a fraction of all rows, that trigger a compaction.
    - ``chunk_size``: rows per faiss call in add/rebuild/search, bounding temporary memory.
    - ``threads``: OpenMP threads for batch work (default ``min(2, cpu_count)``).

    >>> idx = VectorIndex(4, exact_until=3)
    >>> idx.add(np.arange(4), np.eye(4), np.zeros(4))
    >>> idx.kind
    'hnsw'
    """

    def __init__(
        self,
        dim: int,
        *,
        exact_until: int = 20_000,
        hnsw_m: int = 16,
        ef_search: int = 64,
        storage: Storage = "sq8",
        ef_construction: int = 40,
        exact_scan_limit: int = 20_000,
        compact_ratio: float = 0.25,
        chunk_size: int = 65_536,
        threads: int | None = None,
    ) -> None:
        if not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ValueError(f"dim must be a positive int; got {dim!r}")
        if storage not in ("float32", "float16", "sq8"):
            raise ValueError(f"storage must be 'float32', 'float16' or 'sq8'; got {storage!r}")
        for name, value in (
            ("exact_until", exact_until),
            ("hnsw_m", hnsw_m),
            ("ef_search", ef_search),
            ("ef_construction", ef_construction),
            ("chunk_size", chunk_size),
        ):
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive int; got {value!r}")
        if exact_scan_limit < 0:
            raise ValueError(f"exact_scan_limit must be >= 0; got {exact_scan_limit!r}")
        if not 0.0 < compact_ratio < 1.0:
            raise ValueError(f"compact_ratio must be in (0, 1); got {compact_ratio!r}")
        self.dim = int(dim)
        self.exact_until = int(exact_until)
        self.hnsw_m = int(hnsw_m)
        self.ef_search = int(ef_search)
        self.storage: Storage = storage
        self.ef_construction = int(ef_construction)
        self.exact_scan_limit = int(exact_scan_limit)
        self.compact_ratio = float(compact_ratio)
        self.chunk_size = int(chunk_size)
        self.threads = int(threads) if threads else max(1, min(2, os.cpu_count() or 1))

        self._kind = "flat"
        self._index: faiss.Index = faiss.IndexFlatIP(self.dim)
        self._storage_index: faiss.Index = self._index
        self._reset_rows(0)

    # ------------------------------------------------------------------ bookkeeping

    def _reset_rows(self, capacity: int) -> None:
        cap = max(64, -(-capacity // 8) * 8)
        self._n = 0  # rows (positions) used, live or tombstoned
        self._n_alive = 0
        self._ids = np.zeros(cap, dtype=np.int64)
        self._times = np.zeros(cap, dtype=np.float64)
        self._alive = np.zeros(cap, dtype=bool)
        self._bits = np.zeros(cap // 8, dtype=np.uint8)  # packed _alive, for IDSelectorBitmap
        self._pos = DenseIdMap()  # id -> position (cluster ids are sequential: 4 bytes each)
        # Time-sorted (time, position) of rows [0, _merged); rows [_merged, _n) are pending.
        self._ts_t = np.zeros(0, dtype=np.float64)
        self._ts_p = np.zeros(0, dtype=np.int64)
        self._merged = 0

    def _ensure_capacity(self, extra: int) -> None:
        need = self._n + extra
        cap = self._ids.shape[0]
        if need <= cap:
            return
        new_cap = max(need, cap * 2)
        new_cap = -(-new_cap // 8) * 8
        for name in ("_ids", "_times", "_alive"):
            old = getattr(self, name)
            arr = np.zeros(new_cap, dtype=old.dtype)
            arr[: self._n] = old[: self._n]
            setattr(self, name, arr)
        bits = np.zeros(new_cap // 8, dtype=np.uint8)
        bits[: self._bits.shape[0]] = self._bits
        self._bits = bits

    def _repack_bits(self, positions: np.ndarray) -> None:
        """Refresh the packed bitmap bytes that hold ``positions``."""
        if positions.size == 0:
            return
        if positions.size == 1:  # the streaming case: one byte, without np.unique
            b = int(positions[0]) >> 3
            self._bits[b] = np.packbits(self._alive[8 * b : 8 * b + 8], bitorder="little")[0]
            return
        byte_idx = np.unique(positions >> 3)
        rows = self._alive.reshape(-1, 8)[byte_idx]
        self._bits[byte_idx] = np.packbits(rows, axis=1, bitorder="little")[:, 0]

    def _kill(self, positions: np.ndarray) -> None:
        positions = positions[self._alive[positions]]
        if positions.size == 0:
            return
        for p in self._ids[positions].tolist():
            self._pos.discard(p)
        self._alive[positions] = False
        self._n_alive -= int(positions.size)
        self._repack_bits(positions)

    def _merge_pending(self) -> None:
        """Fold rows [_merged, _n) into the time-sorted arrays (O(n) copy)."""
        if self._merged == self._n:
            return
        new_p = np.arange(self._merged, self._n, dtype=np.int64)
        new_t = self._times[self._merged : self._n]
        order = np.argsort(new_t, kind="stable")
        new_p, new_t = new_p[order], new_t[order]
        at = np.searchsorted(self._ts_t, new_t, side="right")
        self._ts_t = np.insert(self._ts_t, at, new_t)
        self._ts_p = np.insert(self._ts_p, at, new_p)
        self._merged = self._n

    def _window_positions(self, lo: float, hi: float) -> np.ndarray:
        """Live positions with lo <= time <= hi (unsorted)."""
        if self._n - self._merged > _PENDING_MAX:
            self._merge_pending()
        a = np.searchsorted(self._ts_t, lo, side="left")
        b = np.searchsorted(self._ts_t, hi, side="right")
        pos = self._ts_p[a:b]
        if self._merged < self._n:
            t = self._times[self._merged : self._n]
            extra = np.flatnonzero((t >= lo) & (t <= hi)) + self._merged
            pos = np.concatenate([pos, extra])
        return pos[self._alive[pos]]

    # ------------------------------------------------------------------ faiss helpers

    def _new_faiss(self, kind: str) -> faiss.Index:
        if kind == "flat":
            return faiss.IndexFlatIP(self.dim)
        if self.storage == "float32":
            index = faiss.IndexHNSWFlat(self.dim, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        else:
            index = faiss.IndexHNSWSQ(
                self.dim, _SQ_TYPES[self.storage], self.hnsw_m, faiss.METRIC_INNER_PRODUCT
            )
        index.hnsw.efConstruction = self.ef_construction
        index.hnsw.efSearch = self.ef_search
        return index

    def _set_index(self, index: faiss.Index, kind: str) -> None:
        self._index = index
        self._kind = kind
        self._storage_index = index if kind == "flat" else faiss.downcast_index(index.storage)

    def _decode(self, positions: np.ndarray) -> np.ndarray:
        """Stored (dequantised) vectors of ``positions`` as float32 (n, dim)."""
        if positions.size == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._storage_index.reconstruct_batch(np.ascontiguousarray(positions, dtype=np.int64))

    def _append(self, ids: np.ndarray, x: np.ndarray, times: np.ndarray) -> None:
        """Append rows (ids already free) to faiss and the bookkeeping arrays."""
        m = ids.shape[0]
        self._ensure_capacity(m)
        start = self._n
        # Small (streaming) adds stay on one thread, for the same fork/join reason as search.
        with _omp_threads(self.threads if m >= _PARALLEL_MIN_ADD else 1):
            self._index.add(x)
        if self._index.ntotal != start + m:  # pragma: no cover - faiss invariant
            raise RuntimeError("faiss row count out of sync with the id map")
        sl = slice(start, start + m)
        self._ids[sl] = ids
        self._times[sl] = times
        self._alive[sl] = True
        self._n = start + m
        self._n_alive += m
        for i, p in zip(ids.tolist(), range(start, start + m), strict=True):
            self._pos.set(i, p)
        self._repack_bits(np.arange(start, start + m, dtype=np.int64))

    def _rebuild(self, kind: str) -> None:
        """Re-encode the live rows into a fresh ``kind`` index (drops tombstones)."""
        live = np.flatnonzero(self._alive[: self._n])
        old_ids = self._ids[live].copy()
        old_times = self._times[live].copy()
        # Hold the old index itself: its storage is owned by it and dies with it.
        old_index, old_storage = self._index, self._storage_index
        new = self._new_faiss(kind)
        if not new.is_trained:
            # Train the SQ ranges on an even sample of the live rows (see _SQ_TRAIN_SAMPLE).
            step = max(1, live.size // _SQ_TRAIN_SAMPLE)
            sample = old_storage.reconstruct_batch(np.ascontiguousarray(live[::step]))
            with _omp_threads(self.threads):
                new.train(sample)
            del sample
        self._reset_rows(live.size)
        self._set_index(new, kind)
        for s in range(0, live.size, self.chunk_size):
            chunk = live[s : s + self.chunk_size]
            x = old_storage.reconstruct_batch(np.ascontiguousarray(chunk))
            self._append(old_ids[s : s + self.chunk_size], x, old_times[s : s + self.chunk_size])
        self._merge_pending()
        del old_index

    def _target_kind(self) -> str:
        if self._kind == "flat":
            return "hnsw" if self._n_alive > self.exact_until else "flat"
        return "flat" if self._n_alive <= self.exact_until // 2 else "hnsw"

    def _maybe_compact(self) -> None:
        dead = self._n - self._n_alive
        if dead and dead > self.compact_ratio * self._n:
            self.compact()

    # ------------------------------------------------------------------ public API

    def __len__(self) -> int:
        return self._n_alive

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, (int, np.integer)) and self._pos.get(int(doc_id)) >= 0

    @property
    def kind(self) -> str:
        """``"flat"`` (exact) or ``"hnsw"`` (approximate)."""
        return self._kind

    @property
    def tombstones(self) -> int:
        """Rows removed but not yet compacted away."""
        return self._n - self._n_alive

    def add(self, ids: np.ndarray, vectors: np.ndarray, times: np.ndarray) -> None:
        """Add (or replace) items.  Validation happens before anything is changed.

        >>> idx = VectorIndex(2)
        >>> idx.add(np.array([1, 1]), np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([5.0, 6.0]))
        >>> len(idx), idx.get([1]).astype(float).round(3).tolist()    # repeated id: the last row wins
        (1, [[0.0, 1.0]])
        >>> idx.add(np.array([2]), np.array([[1.0, 0.0, 0.0]]), np.array([0.0]))
        Traceback (most recent call last):
        ...
        ValueError: vectors has dimension 3; this index holds dimension 2
        """
        ids_arr = np.asarray(ids)
        if ids_arr.ndim == 0:
            ids_arr = ids_arr[None]
        if ids_arr.ndim != 1:
            raise ValueError(f"ids must be 1-D; got shape {ids_arr.shape}")
        if ids_arr.size and not np.issubdtype(ids_arr.dtype, np.integer):
            raise ValueError(f"ids must be integers; got dtype {ids_arr.dtype}")
        ids_arr = ids_arr.astype(np.int64, copy=False)
        x = _as_float_matrix(vectors, self.dim, "vectors")
        t = np.asarray(times, dtype=np.float64)
        if t.ndim == 0:
            t = t[None]
        if t.ndim != 1:
            raise ValueError(f"times must be 1-D; got shape {t.shape}")
        if not (ids_arr.shape[0] == x.shape[0] == t.shape[0]):
            raise ValueError(
                f"length mismatch: {ids_arr.shape[0]} ids, {x.shape[0]} vectors, {t.shape[0]} times"
            )
        if not np.isfinite(t).all():
            raise ValueError("times must be finite epoch seconds")
        if ids_arr.size == 0:
            return
        # Keep the last occurrence of a repeated id, like a later re-add would. (One row, the
        # streaming case, cannot repeat.)
        if ids_arr.size > 1:
            _, last_rev = np.unique(ids_arr[::-1], return_index=True)
            if last_rev.size != ids_arr.size:
                keep = np.sort(ids_arr.size - 1 - last_rev)
                ids_arr, x, t = ids_arr[keep], x[keep], t[keep]

        for s in range(0, ids_arr.size, self.chunk_size):
            cid = ids_arr[s : s + self.chunk_size]
            old = [p for p in map(self._pos.get, cid.tolist()) if p >= 0]
            if old:
                self._kill(np.asarray(old, dtype=np.int64))
            self._append(cid, x[s : s + self.chunk_size], t[s : s + self.chunk_size])
            if self._kind == "flat" and self._target_kind() == "hnsw":
                self._rebuild("hnsw")
        self._maybe_compact()

    def remove(self, ids: Iterable[int]) -> int:
        """Remove ids; returns how many were present.

        >>> idx = VectorIndex(2)
        >>> idx.add(np.array([1, 2]), np.eye(2), np.zeros(2))
        >>> idx.remove([2, 3]), len(idx)
        (1, 1)
        """
        pos = [p for p in (self._pos.get(int(i)) for i in ids) if p >= 0]
        if not pos:
            return 0
        self._kill(np.unique(np.asarray(pos, dtype=np.int64)))
        self._maybe_compact()
        return len(set(pos))

    def expire(self, before: float) -> int:
        """Drop items with ``time < before``; returns how many were dropped."""
        if not math.isfinite(before):
            raise ValueError(f"before must be finite; got {before!r}")
        self._merge_pending()
        cut = int(np.searchsorted(self._ts_t, before, side="left"))
        if cut == 0:
            return 0
        gone = self._ts_p[:cut]
        gone = gone[self._alive[gone]]
        self._kill(gone)
        # Dead rows leave the time order for good; copy so the old buffer is freed.
        self._ts_t = self._ts_t[cut:].copy()
        self._ts_p = self._ts_p[cut:].copy()
        self._maybe_compact()
        return int(gone.size)

    def compact(self) -> None:
        """Rebuild without tombstones (HNSW: a full graph rebuild, ~minutes per 1M rows)."""
        if self._n == self._n_alive and self._kind == self._target_kind():
            return
        self._rebuild(self._target_kind())

    def get(self, ids: Iterable[int] | np.ndarray) -> np.ndarray:
        """Stored vectors for ``ids`` (dequantised, float32, shape (n, dim)); KeyError if absent.

        >>> idx = VectorIndex(2)
        >>> idx.add(np.array([7]), np.array([[3.0, 4.0]]), np.array([0.0]))
        >>> idx.get([7]).astype(float).round(3).tolist()
        [[0.6, 0.8]]
        """
        if isinstance(ids, (int, np.integer)):
            ids = [ids]
        elif not isinstance(ids, np.ndarray):
            ids = list(ids)  # sets, generators
        id_list = np.asarray(ids, dtype=np.int64).reshape(-1).tolist()
        pos = np.asarray([self._pos.get(i) for i in id_list], dtype=np.int64)
        if pos.size and int(pos.min()) < 0:
            raise KeyError(f"id {id_list[int(np.argmin(pos))]} is not in the index")
        return self._decode(pos)

    def search(
        self,
        vectors: np.ndarray,
        k: int = 10,
        *,
        window: tuple[float, float] | None = None,
        exclude: set[int] | None = None,
    ) -> list[list[tuple[int, float]]]:
        """k nearest live items per query, best first, as ``(id, cosine)``.

        ``window=(lo, hi)`` restricts hits to items with ``lo <= time <= hi``; ``exclude``
        drops ids (e.g. the query's own).  A 1-D vector is one query.  Scores come from the
        stored vectors, so with ``sq8`` they are the cosine to the dequantised vector
        (measured |error| < 0.01).

        Windowed search stays correct when the window holds a small part of the index: the
        in-window items are scored exactly (a faiss scan of their codes) unless they are both
        more than ``exact_scan_limit`` and at least a quarter of the rows; only then does HNSW
        run, with a bitmap of the in-window rows and efSearch scaled up by their rarity.
        """
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive int; got {k!r}")
        q = _as_float_matrix(vectors, self.dim, "vectors")
        nq = q.shape[0]
        if window is not None:
            lo, hi = float(window[0]), float(window[1])
            if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
                raise ValueError(f"window must be finite (lo, hi) with lo <= hi; got {window!r}")
        if nq == 0 or self._n_alive == 0:
            return [[] for _ in range(nq)]

        excl_pos = np.zeros(0, dtype=np.int64)
        if exclude:
            excl_pos = np.asarray([p for p in (self._pos.get(int(i)) for i in exclude) if p >= 0], dtype=np.int64)

        threads = self.threads if nq >= _PARALLEL_MIN_QUERIES else 1
        if window is None:
            if self._n_alive == self._n and excl_pos.size == 0:
                return self._search_index(q, k, None, None, threads)
            bits = self._bits
            if excl_pos.size:
                bits = bits.copy()
                # ufunc.at, not `bits[i] &= m`: several excluded rows can share one byte.
                np.bitwise_and.at(bits, excl_pos >> 3, ~(np.uint8(1) << (excl_pos & 7).astype(np.uint8)))
            members = self._n_alive - excl_pos.size
            return self._search_index(q, k, bits, members / self._n, threads)

        cand = self._window_positions(lo, hi)
        if excl_pos.size:
            cand = cand[~np.isin(cand, excl_pos)]
        if cand.size == 0:
            return [[] for _ in range(nq)]
        if cand.size <= _DIRECT_SCORE_MAX:
            return self._score_direct(q, k, cand)
        mask = np.zeros(self._bits.shape[0] * 8, dtype=bool)
        mask[cand] = True
        bits = np.packbits(mask, bitorder="little")
        fraction = cand.size / self._n
        if self._kind == "flat" or cand.size <= self.exact_scan_limit or fraction < _GRAPH_MIN_FRACTION:
            return self._search_flat_storage(q, k, bits, threads)
        return self._search_index(q, k, bits, fraction, threads)

    # ------------------------------------------------------------------ search paths

    def _results(self, dist: np.ndarray, lab: np.ndarray) -> list[list[tuple[int, float]]]:
        out: list[list[tuple[int, float]]] = []
        for drow, lrow in zip(dist, lab, strict=True):
            ok = lrow >= 0
            out.append(list(zip(self._ids[lrow[ok]].tolist(), drow[ok].astype(float).tolist(), strict=True)))
        return out

    def _score_direct(self, q: np.ndarray, k: int, cand: np.ndarray) -> list[list[tuple[int, float]]]:
        scores = q @ self._decode(cand).T
        kk = min(k, cand.size)
        if q.shape[0] == 1:
            # One query (every streaming ingest): the same ranking on the one row, without the
            # take_along_axis / per-row bookkeeping of the batched path below.
            row = scores[0]
            top = np.argpartition(-row, kk - 1)[:kk]
            top = top[np.argsort(-row[top], kind="stable")]
            return [list(zip(self._ids[cand[top]].tolist(), row[top].astype(float).tolist(), strict=True))]
        top = np.argpartition(-scores, kk - 1, axis=1)[:, :kk]
        top_s = np.take_along_axis(scores, top, axis=1)
        order = np.argsort(-top_s, axis=1, kind="stable")
        return self._results(
            np.take_along_axis(top_s, order, axis=1), cand[np.take_along_axis(top, order, axis=1)]
        )

    def _search_flat_storage(
        self, q: np.ndarray, k: int, bits: np.ndarray, threads: int
    ) -> list[list[tuple[int, float]]]:
        """Exact scan of the stored codes, restricted to the bitmap's rows."""
        sel = faiss.IDSelectorBitmap(bits.shape[0], faiss.swig_ptr(bits))
        params = faiss.SearchParameters(sel=sel)
        out: list[list[tuple[int, float]]] = []
        with _omp_threads(threads):
            for s in range(0, q.shape[0], self.chunk_size):
                dist, lab = self._storage_index.search(q[s : s + self.chunk_size], k, params=params)
                out.extend(self._results(dist, lab))
        return out

    def _search_index(
        self, q: np.ndarray, k: int, bits: np.ndarray | None, fraction: float | None, threads: int
    ) -> list[list[tuple[int, float]]]:
        """Search the main index, optionally restricted to the bitmap's rows."""
        sel = None
        if bits is not None:
            sel = faiss.IDSelectorBitmap(bits.shape[0], faiss.swig_ptr(bits))
        if self._kind == "flat":
            params = faiss.SearchParameters()
        else:
            params = faiss.SearchParametersHNSW()
            ef = max(self.ef_search, k)
            if fraction is not None and fraction < 1.0:
                ef = max(ef, min(_FILTER_EF_CAP, math.ceil(ef / max(fraction, 1e-9))))
            params.efSearch = ef
        if sel is not None:
            params.sel = sel
        out: list[list[tuple[int, float]]] = []
        with _omp_threads(threads):
            for s in range(0, q.shape[0], self.chunk_size):
                dist, lab = self._index.search(q[s : s + self.chunk_size], k, params=params)
                out.extend(self._results(dist, lab))
        return out

    # ------------------------------------------------------------------ persistence

    def _params(self) -> dict[str, Any]:
        return {
            "dim": self.dim,
            "exact_until": self.exact_until,
            "hnsw_m": self.hnsw_m,
            "ef_search": self.ef_search,
            "storage": self.storage,
            "ef_construction": self.ef_construction,
            "exact_scan_limit": self.exact_scan_limit,
            "compact_ratio": self.compact_ratio,
            "chunk_size": self.chunk_size,
        }

    def save(self, path: Path | str, *, meta: Mapping[str, Any]) -> None:
        """Write the index atomically (tmp file in the same folder, fsync, ``os.replace``).

        ``meta`` must be JSON-serialisable, e.g. ``{"model": name, "dim": d, "cursor": seq}``;
        :meth:`load` returns it so the caller can tell a stale file from a current one.
        """
        write_together([self.pending_file(path, meta=meta)])

    def pending_file(self, path: Path | str, *, meta: Mapping[str, Any]) -> PendingFile:
        """The file :meth:`save` writes, with everything copied out of the index now: it can be
        written later, from another thread, while the index keeps changing (``index.files``).

        File layout: 8-byte magic, u64 header length, JSON header (params, meta, sections
        with offset/length/crc32), then 64-byte-aligned raw sections: ids, times, alive,
        and the faiss index serialised by faiss.
        """
        try:
            meta_json = json.loads(json.dumps(dict(meta)))
        except (TypeError, ValueError) as e:
            raise ValueError(f"meta must be JSON-serialisable: {e}") from None
        n = self._n
        blobs: list[tuple[str, str, memoryview]] = [
            ("ids", "<i8", memoryview(self._ids[:n].copy()).cast("B")),
            ("times", "<f8", memoryview(self._times[:n].copy()).cast("B")),
            ("alive", "|b1", memoryview(self._alive[:n].view(np.uint8).copy()).cast("B")),
            ("faiss", "|u1", memoryview(faiss.serialize_index(self._index)).cast("B")),
        ]
        params, kind = self._params(), self._kind

        def write(f: BinaryIO) -> None:  # checksums and layout here: off the caller's thread
            sections = []
            offset = 0
            for name, dtype, mv in blobs:
                sections.append(
                    {"name": name, "dtype": dtype, "offset": offset, "nbytes": mv.nbytes, "crc32": zlib.crc32(mv)}
                )
                offset += -(-mv.nbytes // _ALIGN) * _ALIGN
            header = json.dumps(
                {
                    "format": _FORMAT,
                    "kind": kind,
                    "rows": n,
                    "params": params,
                    "meta": meta_json,
                    "sections": sections,
                    "byteorder": sys.byteorder,
                }
            ).encode()
            head_len = len(_MAGIC) + 8 + len(header)
            data_start = -(-head_len // _ALIGN) * _ALIGN
            f.write(_MAGIC + struct.pack("<Q", len(header)) + header)
            f.write(b"\0" * (data_start - head_len))
            for sec, (_, _, mv) in zip(sections, blobs, strict=True):
                f.seek(data_start + sec["offset"])
                f.write(mv)
            f.truncate(data_start + offset)

        return PendingFile(path, write)

    @classmethod
    def load(
        cls, path: Path | str, *, expect: Mapping[str, Any] | None = None
    ) -> tuple[VectorIndex, dict[str, Any]]:
        """Load a file written by :meth:`save`; returns ``(index, meta)``.

        Raises ``FileNotFoundError`` when absent and ``ValueError`` when corrupt (bad magic,
        truncated, checksum mismatch, inconsistent rows) or stale: a newer/older format, or a
        key of ``expect`` (e.g. ``{"model": ..., "dim": ...}``) whose saved meta value differs.
        Either way the caller rebuilds from the store.
        """
        path = Path(path)
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            buf = bytearray(size)
            with memoryview(buf) as mv_all:
                got = f.readinto(mv_all)
        if got != size:
            raise ValueError(f"{path}: short read ({got} of {size} bytes)")
        mv = memoryview(buf)
        if size < len(_MAGIC) + 8 or bytes(mv[: len(_MAGIC)]) != _MAGIC:
            raise ValueError(f"{path}: not a samestory vector index (bad magic)")
        (hlen,) = struct.unpack("<Q", mv[len(_MAGIC) : len(_MAGIC) + 8])
        head_end = len(_MAGIC) + 8 + hlen
        if head_end > size:
            raise ValueError(f"{path}: corrupt header (length {hlen} past end of file)")
        try:
            header = json.loads(bytes(mv[len(_MAGIC) + 8 : head_end]))
            fmt = header["format"]
            params = dict(header["params"])
            meta = dict(header["meta"])
            rows = int(header["rows"])
            kind = header["kind"]
            sections = {s["name"]: s for s in header["sections"]}
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path}: corrupt header: {e}") from None
        if fmt != _FORMAT:
            raise ValueError(f"{path}: stale index format {fmt} (this code reads {_FORMAT})")
        if header.get("byteorder", "little") != sys.byteorder:
            raise ValueError(f"{path}: written on a {header.get('byteorder')}-endian machine")
        if expect:
            diff = {key: (meta.get(key), val) for key, val in expect.items() if meta.get(key) != val}
            if diff:
                raise ValueError(f"{path}: stale index, meta differs (saved, expected): {diff}")
        data_start = -(-head_end // _ALIGN) * _ALIGN
        arrays: dict[str, np.ndarray] = {}
        for name in ("ids", "times", "alive", "faiss"):
            sec = sections.get(name)
            if sec is None:
                raise ValueError(f"{path}: corrupt, section {name!r} missing")
            a, nb = data_start + int(sec["offset"]), int(sec["nbytes"])
            if a < data_start or a + nb > size:
                raise ValueError(f"{path}: truncated, section {name!r} runs past end of file")
            chunk = mv[a : a + nb]
            if zlib.crc32(chunk) != sec["crc32"]:
                raise ValueError(f"{path}: corrupt, checksum mismatch in section {name!r}")
            arrays[name] = np.frombuffer(
                buf, dtype=np.dtype(sec["dtype"]), count=nb // np.dtype(sec["dtype"]).itemsize, offset=a
            )
        if kind not in ("flat", "hnsw"):
            raise ValueError(f"{path}: corrupt, unknown kind {kind!r}")
        if not (arrays["ids"].size == arrays["times"].size == arrays["alive"].size == rows):
            raise ValueError(f"{path}: corrupt, row arrays disagree with rows={rows}")
        try:
            index = faiss.deserialize_index(arrays.pop("faiss"))
        except RuntimeError as e:
            raise ValueError(f"{path}: corrupt faiss index: {e}") from None
        if index.d != params.get("dim") or index.ntotal != rows:
            raise ValueError(
                f"{path}: corrupt, faiss index d={index.d} ntotal={index.ntotal} disagrees with header"
            )

        try:
            self = cls(**params)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: stale index parameters {params}: {e}") from None
        self._reset_rows(rows)
        self._set_index(index, kind)
        alive = arrays["alive"].astype(bool)
        self._ids[:rows] = arrays["ids"]
        self._times[:rows] = arrays["times"]
        self._alive[:rows] = alive
        self._n = rows
        live = np.flatnonzero(alive)
        self._n_alive = int(live.size)
        if np.unique(self._ids[live]).size != live.size:
            raise ValueError(f"{path}: corrupt, duplicate live ids")
        self._pos.rebuild(self._ids[live], live)
        nbytes = self._bits.shape[0]
        self._bits[:] = np.packbits(self._alive[: nbytes * 8], bitorder="little")
        order = live[np.argsort(self._times[live], kind="stable")]
        self._ts_t = self._times[order].copy()
        self._ts_p = order.astype(np.int64)
        self._merged = rows
        del buf, mv
        return self, meta

    @classmethod
    def load_or_build(
        cls,
        path: Path | str,
        *,
        expect: Mapping[str, Any],
        build: Callable[[], tuple[VectorIndex, Mapping[str, Any]]],
    ) -> tuple[VectorIndex, dict[str, Any], bool]:
        """Load ``path``, or when it is missing/stale/corrupt call ``build()`` and save.

        ``build`` replays the store into a fresh index and returns ``(index, meta)``.
        Returns ``(index, meta, rebuilt)``.  A cursor newer than the file's is the caller's
        to replay (add the events after ``meta["cursor"]``).
        """
        try:
            index, meta = cls.load(path, expect=expect)
            return index, meta, False
        except (FileNotFoundError, ValueError):
            index, built_meta = build()
            meta = dict(built_meta)
            index.save(path, meta=meta)
            return index, meta, True

    # ------------------------------------------------------------------ accounting

    def memory_bytes(self) -> int:
        """Estimated resident bytes: faiss codes and graph, row arrays, the id dict.

        The id dict is costed at 104 B/entry (CPython 3.10-3.12 on 64-bit: ~40 B of table
        plus two 28-32 B int objects); faiss sizes are read off its vectors.
        """
        total = 0
        st = self._storage_index
        total += int(st.ntotal) * int(getattr(st, "code_size", 4 * self.dim))
        if self._kind == "hnsw":
            h = self._index.hnsw
            total += int(h.neighbors.size()) * 4 + int(h.levels.size()) * 4 + int(h.offsets.size()) * 8
        total += self._ids.nbytes + self._times.nbytes + self._alive.nbytes + self._bits.nbytes
        total += self._ts_t.nbytes + self._ts_p.nbytes
        total += self._pos.nbytes
        return total

    def __repr__(self) -> str:
        return (
            f"VectorIndex(dim={self.dim}, kind={self._kind!r}, storage={self.storage!r}, "
            f"items={self._n_alive}, tombstones={self.tombstones})"
        )
