"""The search paths of a :class:`~index.vectors.VectorIndex`, and the rules that pick one.

Four ways to answer a query, cheapest for its case: score a few in-window rows directly from
their decoded vectors; scan the stored codes exactly, restricted to a bitmap of rows; walk the
main index (flat, or the HNSW graph with efSearch raised for a sparse bitmap); and, unfiltered,
the main index as it is. Each returns, per query, ``(id, cosine)`` best first.

>>> import faiss, numpy as np
>>> index = faiss.IndexFlatIP(2)
>>> index.add(np.eye(2, dtype=np.float32))
>>> ids = np.array([70, 71])
>>> search_index(index, "flat", np.array([[0.6, 0.8]], np.float32), 1, ids, bits=None, fraction=None,
...              threads=1, ef_search=64, chunk_size=1024)
[[(71, 0.800000011920929)]]
>>> score_direct(np.array([[0.6, 0.8]], np.float32), 2, np.array([0, 1]), np.eye(2, dtype=np.float32), ids)
[[(71, 0.800000011920929), (70, 0.6000000238418579)]]
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

import faiss
import numpy as np

__all__ = ["DIRECT_SCORE_MAX", "GRAPH_MIN_FRACTION", "PARALLEL_MIN_QUERIES", "BitmapParams", "Hits", "omp_threads",
           "score_direct", "search_codes", "search_index"]

Hits = list[list[tuple[int, float]]]

# Windowed search: when the in-window live items are this few, they are scored directly from
# their decoded vectors (reconstruct_batch: ~2 us a 512-d SQ8 row on the shared 2-core box,
# 0.5-1 ms for 256) instead of a faiss scan that checks every row's bitmap bit.
DIRECT_SCORE_MAX = 256

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
GRAPH_MIN_FRACTION = 0.25
# efSearch for a filtered graph walk is ef_search / fraction, capped here (= 64 / 0.25).
FILTER_EF_CAP = 256

# Searches with fewer queries than this run on one OpenMP thread: on a shared 2-core box the
# OpenMP fork/join of a single-query search measured 10+ ms of spin, against ~0.3 ms of work.
PARALLEL_MIN_QUERIES = 8


@contextlib.contextmanager
def omp_threads(n: int) -> Iterator[None]:
    """Run a block with ``n`` OpenMP threads (faiss's setting is process-global)."""
    prev = faiss.omp_get_max_threads()
    if n != prev:
        faiss.omp_set_num_threads(n)
    try:
        yield
    finally:
        if n != prev:
            faiss.omp_set_num_threads(prev)


def _results(dist: np.ndarray, lab: np.ndarray, ids: np.ndarray) -> Hits:
    out: Hits = []
    for drow, lrow in zip(dist, lab, strict=True):
        ok = lrow >= 0
        out.append(list(zip(ids[lrow[ok]].tolist(), drow[ok].astype(float).tolist(), strict=True)))
    return out


def _chunked(index: faiss.Index, q: np.ndarray, k: int, ids: np.ndarray, params: faiss.SearchParameters,
             threads: int, chunk_size: int) -> Hits:
    """``index.search`` over ``chunk_size`` queries at a time (bounded temporary memory)."""
    out: Hits = []
    with omp_threads(threads):
        for s in range(0, q.shape[0], chunk_size):
            dist, lab = index.search(q[s : s + chunk_size], k, params=params)
            out.extend(_results(dist, lab, ids))
    return out


def score_direct(q: np.ndarray, k: int, cand: np.ndarray, decoded: np.ndarray, ids: np.ndarray) -> Hits:
    """Top ``k`` of the positions ``cand`` (their stored vectors ``decoded``) by inner product."""
    scores = q @ decoded.T
    kk = min(k, cand.size)
    if q.shape[0] == 1:
        # One query (every streaming ingest): the same ranking on the one row, without the
        # take_along_axis / per-row bookkeeping of the batched path below.
        row = scores[0]
        top = np.argpartition(-row, kk - 1)[:kk]
        top = top[np.argsort(-row[top], kind="stable")]
        return [list(zip(ids[cand[top]].tolist(), row[top].astype(float).tolist(), strict=True))]
    top = np.argpartition(-scores, kk - 1, axis=1)[:, :kk]
    top_s = np.take_along_axis(scores, top, axis=1)
    order = np.argsort(-top_s, axis=1, kind="stable")
    return _results(np.take_along_axis(top_s, order, axis=1), cand[np.take_along_axis(top, order, axis=1)], ids)


class BitmapParams:
    """Search parameters restricting a search to a bitmap's rows, built once per bitmap array.

    The selector reads the bitmap in place, so a bitmap updated in place (``VectorRows.bits``, as
    rows are added and killed) needs no new one; building the selector and its parameters through
    the faiss wrappers cost ~40 us a search, about a tenth of a 5,000-row scan (issue 37).
    ``of(bits)`` answers the parameters of that very array (kept alive here, so ``is`` is sound).
    """

    def __init__(self) -> None:
        self._held: tuple[np.ndarray, faiss.IDSelector, faiss.SearchParameters] | None = None

    def of(self, bits: np.ndarray) -> faiss.SearchParameters:
        held = self._held
        if held is None or held[0] is not bits:
            sel = faiss.IDSelectorBitmap(bits.shape[0], faiss.swig_ptr(bits))
            held = self._held = (bits, sel, faiss.SearchParameters(sel=sel))
        return held[2]


def search_codes(storage: faiss.Index, q: np.ndarray, k: int, ids: np.ndarray, *, bits: np.ndarray,
                 threads: int, chunk_size: int, params: faiss.SearchParameters | None = None) -> Hits:
    """Exact scan of the stored codes, restricted to the bitmap's rows (``params``: a
    :class:`BitmapParams`' parameters of ``bits``, else built here)."""
    sel = None  # held here while the search runs
    if params is None:
        sel = faiss.IDSelectorBitmap(bits.shape[0], faiss.swig_ptr(bits))
        params = faiss.SearchParameters(sel=sel)
    return _chunked(storage, q, k, ids, params, threads, chunk_size)


def search_index(index: faiss.Index, kind: str, q: np.ndarray, k: int, ids: np.ndarray, *,
                 bits: np.ndarray | None, fraction: float | None, threads: int, ef_search: int,
                 chunk_size: int) -> Hits:
    """Search the main index (``kind`` "flat" or "hnsw"), optionally restricted to the bitmap's rows."""
    sel = None
    if bits is not None:
        sel = faiss.IDSelectorBitmap(bits.shape[0], faiss.swig_ptr(bits))
    if kind == "flat":
        params = faiss.SearchParameters()
    else:
        params = faiss.SearchParametersHNSW()
        ef = max(ef_search, k)
        if fraction is not None and fraction < 1.0:
            ef = max(ef, min(FILTER_EF_CAP, math.ceil(ef / max(fraction, 1e-9))))
        params.efSearch = ef
    if sel is not None:
        params.sel = sel
    return _chunked(index, q, k, ids, params, threads, chunk_size)
