"""Approximate cosine top-k over numbered rows whose vectors keep changing (issue 37).

The story level asks, per item, for the open stories whose centroids are nearest to the item's
vector. A centroid moves every time its story takes a member, so the index must replace one
row's vector cheaply; an HNSW graph cannot (faiss HNSW has no delete: tombstone and re-insert,
~0.4 ms an insert at 512-d, as much as the exact product it would save). An inverted file can:
each row lives in the list of its nearest coarse centroid, and replacing it is an O(1) removal
(faiss's hashtable direct map swaps the list's last entry into its slot) plus one assignment
(``nlist`` dot products) and an append. A search scores the coarse centroids, then the rows of
the ``nprobe`` nearest lists, exactly (flat lists: float32 inner products), and only rows the
caller allows (a bitmap: the stories open to the item).

The coarse centroids are trained (spherical k-means) on the rows present at :meth:`build`; the
caller rebuilds once :attr:`stale` (as many rows added since as were trained on), so the lists
follow the data as it grows or turns over. Rows are the caller's numbers (``StoryCentroids``'s
row indices), which are also the faiss ids.

>>> rng = np.random.default_rng(0)
>>> x = rng.standard_normal((600, 16)).astype(np.float32)
>>> ivf = RowIVF(16, list_size=100, nprobe=6)   # 6 lists: every list probed, so exact
>>> ivf.build(np.arange(600), x)
>>> allowed = np.ones(600, dtype=bool)
>>> exact = np.argsort(-(x @ x[7]) / np.linalg.norm(x, axis=1), kind="stable")[:5]
>>> ivf.search(x[7], 5, allowed).tolist() == exact.tolist()
True
>>> ivf.set(np.array([7]), -x[7:8]); int(ivf.search(x[7], 1, allowed)[0]) != 7
True
>>> allowed[:300] = False; bool((ivf.search(x[7], 5, allowed) >= 300).all())
True
"""

from __future__ import annotations

import faiss
import numpy as np

from index.vector_search import omp_threads

__all__ = ["LIST_SIZE", "NPROBE", "RowIVF"]

# Rows per inverted list (nlist = rows / LIST_SIZE at build) and lists probed per search. A
# search scores about nlist + NPROBE * LIST_SIZE rows. Measured on the bench stream's story
# centroids (research/notes/scale.md, "Approximate nearest-story search"): see the notes for
# the recall of the top 12 at each nprobe; fewer probes or longer lists trade recall for time.
LIST_SIZE = 256
NPROBE = 16
# k-means on the build's rows: at most this many rows a list (an even sample) and this many
# iterations. faiss advises >= 39 points a centroid; the rows' assignment to lists uses the
# trained centroids whatever their quality, so this moves only how even the lists are (cost).
_TRAIN_PER_LIST = 64
_TRAIN_ITERATIONS = 10


def _unit(vectors: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), np.float32(1e-9))


class RowIVF:
    """Cosine top-k over numbered rows (vectors normalised on the way in), updatable per row."""

    def __init__(self, dim: int, *, list_size: int = LIST_SIZE, nprobe: int = NPROBE) -> None:
        if list_size < 1 or nprobe < 1:
            raise ValueError(f"list_size and nprobe must be >= 1; got {list_size}, {nprobe}")
        self.dim, self.list_size, self.nprobe = dim, list_size, nprobe
        self.index: faiss.IndexIVFFlat | None = None
        self._quantizer: faiss.IndexFlatIP | None = None
        self.trained_rows = 0
        self.added_since = 0  # rows added (not replaced) since the build

    def __len__(self) -> int:
        return 0 if self.index is None else int(self.index.ntotal)

    @property
    def nlist(self) -> int:
        return 0 if self.index is None else int(self.index.nlist)

    @property
    def stale(self) -> bool:
        """Whether the lists were trained on fewer rows than have been added since."""
        return self.index is None or self.added_since > self.trained_rows

    def build(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        """Train the coarse centroids on ``vectors`` (an even sample) and add them as ``rows``."""
        x = _unit(vectors)
        n = x.shape[0]
        nlist = max(1, round(n / self.list_size))
        sample = x[:: max(1, n // (nlist * _TRAIN_PER_LIST))]
        quantizer = faiss.IndexFlatIP(self.dim)
        index = faiss.IndexIVFFlat(quantizer, self.dim, nlist, faiss.METRIC_INNER_PRODUCT)
        index.cp.niter = _TRAIN_ITERATIONS
        index.cp.spherical = True
        index.cp.max_points_per_centroid = _TRAIN_PER_LIST
        index.cp.min_points_per_centroid = 1  # a small build: no warning, lists a little uneven
        index.set_direct_map_type(faiss.DirectMap.Hashtable)
        with omp_threads(1):
            index.train(sample)
            index.add_with_ids(x, np.ascontiguousarray(rows, dtype=np.int64))
        self._quantizer = quantizer  # faiss does not own it: it must live as long as the index
        self.index, self.trained_rows, self.added_since = index, n, 0

    def set(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        """Add ``rows`` with ``vectors``, replacing the vectors of rows already present."""
        assert self.index is not None, "build first"
        ids = np.ascontiguousarray(rows, dtype=np.int64)
        if ids.size == 0:
            return
        with omp_threads(1):
            present = self.index.remove_ids(faiss.IDSelectorArray(ids.size, faiss.swig_ptr(ids)))
            self.index.add_with_ids(_unit(vectors), ids)
        self.added_since += ids.size - int(present)

    def remove(self, rows: np.ndarray) -> None:
        assert self.index is not None, "build first"
        ids = np.ascontiguousarray(rows, dtype=np.int64)
        if ids.size:
            with omp_threads(1):
                self.index.remove_ids(faiss.IDSelectorArray(ids.size, faiss.swig_ptr(ids)))

    def search(self, vector: np.ndarray, k: int, allowed: np.ndarray, *, nprobe: int | None = None) -> np.ndarray:
        """The (up to) ``k`` rows nearest to ``vector`` by cosine among those in the probed lists
        whose ``allowed[row]`` is true, best first. Fewer than ``k`` when the probed lists hold
        fewer allowed rows (the caller decides what to do then)."""
        assert self.index is not None, "build first"
        bits = np.packbits(allowed, bitorder="little")
        params = faiss.SearchParametersIVF()
        params.sel = faiss.IDSelectorBitmap(bits.size, faiss.swig_ptr(bits))  # n: bytes
        params.nprobe = min(nprobe or self.nprobe, self.nlist)
        q = _unit(np.asarray(vector).reshape(1, -1))
        # One query: on one OpenMP thread (index.vector_search.PARALLEL_MIN_QUERIES: the fork/join
        # of a single-query search cost 10+ ms of spin on the shared 2-core box).
        with omp_threads(1):
            _, labels = self.index.search(q, k, params=params)
        out = labels[0]
        return out[out >= 0]
