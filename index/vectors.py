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

Each job in its own module: this one holds the index's policy (validation, the flat->HNSW
switch, tombstones and compaction); ``index.vector_rows`` the per-position memory layout,
``index.vector_search`` the search paths, ``index.vector_file`` the file format.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import faiss
import numpy as np

from index import vector_file
from index.files import PendingFile, write_together
from index.vector_rows import VectorRows
from index.vector_search import (
    DIRECT_SCORE_MAX,
    GRAPH_MIN_FRACTION,
    PARALLEL_MIN_QUERIES,
    BitmapParams,
    Hits,
    omp_threads,
    score_direct,
    search_codes,
    search_index,
)

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

# add() batches below this many rows run single-threaded (HNSW parallelises over rows).
_PARALLEL_MIN_ADD = 256

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
    tests/index/test_vector_index.py):

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
        self._rows = VectorRows(0)
        # The exact scan's parameters over the rows' own alive bitmap (``search``'s whole-window case).
        self._alive_params = BitmapParams()

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
        start = self._rows.n
        # Small (streaming) adds stay on one thread, for the same fork/join reason as search.
        with omp_threads(self.threads if m >= _PARALLEL_MIN_ADD else 1):
            self._index.add(x)
        if self._index.ntotal != start + m:  # pragma: no cover - faiss invariant
            raise RuntimeError("faiss row count out of sync with the id map")
        self._rows.append(ids, times)

    def _rebuild(self, kind: str) -> None:
        """Re-encode the live rows into a fresh ``kind`` index (drops tombstones)."""
        live = np.flatnonzero(self._rows.alive[: self._rows.n])
        old_ids = self._rows.ids[live].copy()
        old_times = self._rows.times[live].copy()
        # Hold the old index itself: its storage is owned by it and dies with it.
        old_index, old_storage = self._index, self._storage_index
        new = self._new_faiss(kind)
        if not new.is_trained:
            # Train the SQ ranges on an even sample of the live rows (see _SQ_TRAIN_SAMPLE).
            step = max(1, live.size // _SQ_TRAIN_SAMPLE)
            sample = old_storage.reconstruct_batch(np.ascontiguousarray(live[::step]))
            with omp_threads(self.threads):
                new.train(sample)
            del sample
        self._rows = VectorRows(live.size)
        self._set_index(new, kind)
        for s in range(0, live.size, self.chunk_size):
            chunk = live[s : s + self.chunk_size]
            x = old_storage.reconstruct_batch(np.ascontiguousarray(chunk))
            self._append(old_ids[s : s + self.chunk_size], x, old_times[s : s + self.chunk_size])
        self._rows.merge_pending()
        del old_index

    def _target_kind(self) -> str:
        if self._kind == "flat":
            return "hnsw" if self._rows.n_alive > self.exact_until else "flat"
        return "flat" if self._rows.n_alive <= self.exact_until // 2 else "hnsw"

    def _maybe_compact(self) -> None:
        dead = self._rows.n - self._rows.n_alive
        if dead and dead > self.compact_ratio * self._rows.n:
            self.compact()

    # ------------------------------------------------------------------ public API

    def __len__(self) -> int:
        return self._rows.n_alive

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, (int, np.integer)) and self._rows.pos.get(int(doc_id)) >= 0

    @property
    def kind(self) -> str:
        """``"flat"`` (exact) or ``"hnsw"`` (approximate)."""
        return self._kind

    @property
    def tombstones(self) -> int:
        """Rows removed but not yet compacted away."""
        return self._rows.n - self._rows.n_alive

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
            old = [p for p in map(self._rows.pos.get, cid.tolist()) if p >= 0]
            if old:
                self._rows.kill(np.asarray(old, dtype=np.int64))
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
        pos = [p for p in (self._rows.pos.get(int(i)) for i in ids) if p >= 0]
        if not pos:
            return 0
        self._rows.kill(np.unique(np.asarray(pos, dtype=np.int64)))
        self._maybe_compact()
        return len(set(pos))

    def expire(self, before: float) -> int:
        """Drop items with ``time < before``; returns how many were dropped."""
        if not math.isfinite(before):
            raise ValueError(f"before must be finite; got {before!r}")
        self._rows.merge_pending()
        if self._rows.ts_t.size == 0 or self._rows.ts_t[0] >= before:
            return 0  # nothing is older: no change, no compaction check
        gone = self._rows.expire(before)
        self._maybe_compact()
        return gone

    def compact(self) -> None:
        """Rebuild without tombstones (HNSW: a full graph rebuild, ~minutes per 1M rows)."""
        if self._rows.n == self._rows.n_alive and self._kind == self._target_kind():
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
            id_list = [int(ids)]
        else:  # arrays, lists, sets, generators
            id_list = np.asarray(ids if isinstance(ids, np.ndarray) else list(ids), dtype=np.int64).reshape(-1).tolist()
        pos = np.asarray([self._rows.pos.get(i) for i in id_list], dtype=np.int64)
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
    ) -> Hits:
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
        if nq == 0 or self._rows.n_alive == 0:
            return [[] for _ in range(nq)]

        excl_pos = np.zeros(0, dtype=np.int64)
        if exclude:
            excl_pos = np.asarray([p for p in (self._rows.pos.get(int(i)) for i in exclude) if p >= 0], dtype=np.int64)

        threads = self.threads if nq >= PARALLEL_MIN_QUERIES else 1
        if window is None:
            if self._rows.n_alive == self._rows.n and excl_pos.size == 0:
                return self._search_index(q, k, None, None, threads)
            bits = self._rows.bits
            if excl_pos.size:
                bits = bits.copy()
                # ufunc.at, not `bits[i] &= m`: several excluded rows can share one byte.
                np.bitwise_and.at(bits, excl_pos >> 3, ~(np.uint8(1) << (excl_pos & 7).astype(np.uint8)))
            members = self._rows.n_alive - excl_pos.size
            return self._search_index(q, k, bits, members / self._rows.n, threads)

        cand = self._rows.window_positions(lo, hi)
        if excl_pos.size:
            cand = cand[~np.isin(cand, excl_pos)]
        if cand.size == 0:
            return [[] for _ in range(nq)]
        if cand.size <= DIRECT_SCORE_MAX:
            return score_direct(q, k, cand, self._decode(cand), self._rows.ids)
        params = None
        if cand.size == self._rows.n_alive:
            # Every live row is in the window (a stream within one window, the bench's case): the
            # rows' own alive bitmap is that mask, packed already (faiss only reads it), and its
            # search parameters are kept from one search to the next.
            bits = self._rows.bits
            params = self._alive_params.of(bits)
        else:
            mask = np.zeros(self._rows.bits.shape[0] * 8, dtype=bool)
            mask[cand] = True
            bits = np.packbits(mask, bitorder="little")
        fraction = cand.size / self._rows.n
        if self._kind == "flat" or cand.size <= self.exact_scan_limit or fraction < GRAPH_MIN_FRACTION:
            return search_codes(self._storage_index, q, k, self._rows.ids, bits=bits, threads=threads,
                                chunk_size=self.chunk_size, params=params)
        return self._search_index(q, k, bits, fraction, threads)

    def _search_index(self, q: np.ndarray, k: int, bits: np.ndarray | None, fraction: float | None,
                      threads: int) -> Hits:
        return search_index(self._index, self._kind, q, k, self._rows.ids, bits=bits, fraction=fraction,
                            threads=threads, ef_search=self.ef_search, chunk_size=self.chunk_size)

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
        written later, from another thread, while the index keeps changing (``index.files``;
        the layout is ``index.vector_file``'s).
        """
        n, rows = self._rows.n, self._rows
        return vector_file.pending_file(path, self._params(), meta, self._kind, rows.ids[:n], rows.times[:n],
                                        rows.alive[:n], self._index)

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
        saved = vector_file.read(path, expect=expect)
        try:
            self = cls(**saved.params)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: stale index parameters {saved.params}: {e}") from None
        try:
            self._rows = VectorRows.restore(saved.ids, saved.times, saved.alive)
        except ValueError as e:
            raise ValueError(f"{path}: corrupt, {e}") from None
        self._set_index(saved.index, saved.kind)
        return self, saved.meta

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
        total += self._rows.nbytes
        return total

    def __repr__(self) -> str:
        return (
            f"VectorIndex(dim={self.dim}, kind={self._kind!r}, storage={self.storage!r}, "
            f"items={self._rows.n_alive}, tombstones={self.tombstones})"
        )
