"""The sharded vector search: candidate pairs among the embedded texts, by IVF lists searched in parallel.

Streaming ingest searches each new item's vector against every copy group's vector. A batch
knows all vectors up front, so the search becomes one stage of the plan, a self-join of the
embedded texts with a cosine floor:

1. :func:`train_centroids` - spherical k-means on a sample of the vectors, once, on the driver
   (the coarse quantizer of a FAISS IVF index);
2. :func:`assign_lists` - per vector (``map_batches``): its ``nprobe`` nearest centroids; the
   nearest is its *home* list, where it is stored;
3. group by list (the shuffle), then :func:`search_list` - in each inverted list, every vector
   that probes it against every vector stored in it; pairs with cosine >= ``floor`` come out.

A pair (a, b) is found when b's home is among a's probes or a's home among b's: the union of
both directions. ``nprobe == nlist`` makes it exact (every pair is compared); below that it is
an approximation whose recall against exact search is measured (``bench.batch_search``). The
decide step (``service.batch.candidates``) consumes the pairs instead of searching itself.

>>> rng = np.random.default_rng(0)
>>> v = rng.normal(size=(6, 8)).astype(np.float32); v[1] = v[0] + 0.01; v[4] = v[3] + 0.01
>>> v /= np.linalg.norm(v, axis=1, keepdims=True)
>>> pairs = search_all(np.arange(6), v, floor=0.9, nlist=2, nprobe=2)
>>> sorted(zip(pairs["a"].tolist(), pairs["b"].tolist()))
[(0, 1), (3, 4)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import faiss
import numpy as np

Batch = dict[str, np.ndarray]

# Vectors stored per inverted list, on average, when the caller does not say: a query costs
# about nprobe x LIST_SIZE inner products (0.5M multiply-adds per probed list at 512 dims), and
# a list group held by one task is LIST_SIZE x (1 + nprobe) vectors. Fewer, larger lists raise
# recall at a fixed nprobe and the cost per item with it.
LIST_SIZE = 1024
# Lists each vector probes when the caller does not say. Measured on the 20,000-item dev corpus
# (12,616 embedded texts, 13 lists; docs/scale.md, "The sharded vector search"): of the 11,662
# pairs at or above the USE threshold, nprobe 4 missed 40, 8 missed 3, 13 (all) none. A missed
# pair can leave a copy apart from its group (or put it with another group it also matches above
# the threshold), so the default probes 16: exact up to 16 lists (~16k embedded texts), and
# twice the probes that missed 3 in 11,662 beyond. As the lists grow (the same vectors cut into
# 25 to 395 lists, bench.batch_search --list-size 512,...,32) 16 probes kept 0.9989-1 of those
# pairs, flat from 99 to 395 lists; 32 probes ~0.9999 at twice the search cost.
NPROBE = 16
# K-means sees at most this many vectors per centroid (faiss's own default cap is 256): the
# centroids only route, so a sample trains them as well as the whole corpus would.
TRAIN_PER_LIST = 64


# The stage's cosine floor sits this far below the engine's (its cosine threshold): the decide step re-scores every pair from the index's stored vectors,
# which differ from the stage's float32 vectors by rounding, and by up to 0.01 once the engine's
# index stores SQ8 codes (past exact_until groups; index.vectors). A larger margin only makes
# more pairs; a margin under those errors could lose a pair the engine would have merged.
FLOOR_MARGIN = 0.02


@dataclass(frozen=True)
class SearchPlan:
    """How the stage searches: ``floor`` (cosine), ``nprobe`` lists per vector, ``list_size``
    vectors per list on average; ``nprobe >= nlist`` is exact."""

    floor: float
    nprobe: int = NPROBE
    list_size: int = LIST_SIZE

    @classmethod
    def for_engine(cls, config: Any, **kw: Any) -> SearchPlan:
        """The floor for an engine config resolved for its model (``EngineConfig.for_model``).

        >>> from service.config import EngineConfig
        >>> SearchPlan.for_engine(EngineConfig().for_model("use")).floor  # the verifier's rescue: 0.45
        0.43
        >>> SearchPlan.for_engine(EngineConfig.of(verifier=False).for_model("use")).floor  # slot-confirmed: 0.55
        0.53
        """
        floor = float(config.copy.embedding_threshold)
        # The slot-confirmed band (service/guards/confirm.py) merges some pairs below the
        # threshold; the decide step must see them too. Looser than needed with guards off: more
        # pairs, same decisions.
        if config.copy.slot_confirm_threshold is not None:
            floor = min(floor, float(config.copy.slot_confirm_threshold))
        # The pair verifier's rescue (Cascade._rescue_hits) reads other-language hits down to
        # verifier_floor (0.45 for USE), below both: a floor above it hid those hits from the
        # decide step, and on the 20,000-item equivalence corpus 664 items landed in other copy
        # groups than streaming put them in (research/notes/scale.md, "late embeds"). The cost:
        # about 3.8 times the pairs there (40,745 at 0.53, 154,196 at 0.43).
        if config.copy.verifier:
            floor = min(floor, float(config.copy.verifier_floor))
        return cls(round(floor - FLOOR_MARGIN, 6), **kw)


def _objects(values: list[bytes]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _matrix(column: np.ndarray, dim: int) -> np.ndarray:
    """float32 rows from a column of vector bytes."""
    if not len(column):
        return np.zeros((0, dim), np.float32)
    return np.frombuffer(b"".join(column), dtype=np.float32).reshape(len(column), dim)


def lists_for(n: int, list_size: int = LIST_SIZE) -> int:
    """How many inverted lists for ``n`` vectors: ``n / list_size``, at least one.

    >>> lists_for(0), lists_for(12_500), lists_for(10_000_000)
    (1, 13, 9766)
    """
    return max(1, math.ceil(n / max(1, list_size)))


def train_centroids(vectors: np.ndarray, nlist: int, *, seed: int = 0) -> np.ndarray:
    """``nlist`` unit centroids from an even sample of ``vectors`` (spherical k-means, trained once).

    >>> c = train_centroids(np.eye(4, dtype=np.float32), 2)
    >>> c.shape, bool(np.allclose(np.linalg.norm(c, axis=1), 1))
    ((2, 4), True)
    """
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    nlist = max(1, min(nlist, len(x)))
    if nlist == 1:
        c = x.mean(axis=0, keepdims=True) if len(x) else np.ones((1, x.shape[1]), np.float32)
        return (c / max(float(np.linalg.norm(c)), 1e-12)).astype(np.float32)
    step = max(1, len(x) // (TRAIN_PER_LIST * nlist))
    km = faiss.Kmeans(x.shape[1], nlist, niter=20, seed=seed, spherical=True,
                      max_points_per_centroid=TRAIN_PER_LIST)
    km.train(np.ascontiguousarray(x[::step]))
    return np.ascontiguousarray(km.centroids, dtype=np.float32)


def assign_lists(batch: Batch, *, centroids: np.ndarray, nprobe: int) -> Batch:
    """One row per (vector, probed list): ``list``, ``node``, ``vector`` (bytes) and ``home``
    (True on the vector's nearest list, where it is stored; it probes all of them)."""
    nodes = np.asarray(batch["node"], np.int64)
    nlist, dim = centroids.shape
    probe = max(1, min(nprobe, nlist))
    if not len(nodes):
        return {"list": np.zeros(0, np.int64), "node": nodes, "vector": _objects([]), "home": np.zeros(0, bool)}
    x = _matrix(batch["vector"], dim)
    scores = x @ centroids.T
    top = np.argsort(-scores, axis=1, kind="stable")[:, :probe]
    home = np.zeros(top.shape, bool)
    home[:, 0] = True
    return {"list": top.reshape(-1).astype(np.int64), "node": np.repeat(nodes, probe),
            "vector": np.repeat(np.asarray(batch["vector"], dtype=object), probe),
            "home": home.reshape(-1)}


def search_list(group: Batch, *, floor: float) -> Batch:
    """Pairs ``(a, b)``, ``a < b``, with cosine >= ``floor`` between a vector stored in this list
    (``home``) and any vector that probes it; ``cosine`` beside them. Every row of ``group`` shares
    one ``list``."""
    empty: Batch = {"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64), "cosine": np.zeros(0, np.float32)}
    nodes = np.asarray(group["node"], np.int64)
    home = np.asarray(group["home"], bool)
    if not home.any() or len(nodes) < 2:
        return empty
    dim = len(group["vector"][0]) // 4
    q = _matrix(group["vector"], dim)
    sims = q @ q[home].T
    qi, mi = np.nonzero(sims >= floor)
    a, b = nodes[qi], nodes[home][mi]
    keep = a != b
    a, b, cos = a[keep], b[keep], sims[qi[keep], mi[keep]]
    return {"a": np.minimum(a, b), "b": np.maximum(a, b), "cosine": cos.astype(np.float32)}


def unique_pairs(pairs: Batch) -> Batch:
    """One row per pair (a pair found from both lists, or from two lists, comes out more than once)."""
    if not len(pairs["a"]):
        return pairs
    _, first = np.unique(np.stack([pairs["a"], pairs["b"]], axis=1), axis=0, return_index=True)
    return {c: v[np.sort(first)] for c, v in pairs.items()}


def search_all(nodes: np.ndarray, vectors: np.ndarray, *, floor: float, nlist: int, nprobe: int,
               seed: int = 0) -> Batch:
    """The whole stage in one process (what the local executor runs, and the reference the Ray
    one is tested against): train, assign, group by list, search each list."""
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    centroids = train_centroids(x, nlist, seed=seed)
    rows = assign_lists({"node": np.asarray(nodes, np.int64), "vector": _objects([r.tobytes() for r in x])},
                        centroids=centroids, nprobe=nprobe)
    order = np.argsort(rows["list"], kind="stable")
    sorted_lists = rows["list"][order]
    bounds = np.flatnonzero(sorted_lists[1:] != sorted_lists[:-1]) + 1
    parts = [search_list({c: v[idx] for c, v in rows.items()}, floor=floor) for idx in np.split(order, bounds)
             if len(idx)]
    if not parts:
        return {"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64), "cosine": np.zeros(0, np.float32)}
    return unique_pairs({c: np.concatenate([p[c] for p in parts]) for c in parts[0]})
