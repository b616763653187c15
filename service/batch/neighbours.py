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
from collections.abc import Iterable, Mapping, Sequence
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
    vectors per list on average; ``nprobe >= nlist`` is exact. ``same_language_floor``: pairs
    below it are kept only where the verifier's rescue may read them (:func:`rescue_may_read`);
    None keeps every pair at or above ``floor``."""

    floor: float
    nprobe: int = NPROBE
    list_size: int = LIST_SIZE
    same_language_floor: float | None = None

    @classmethod
    def for_engine(cls, config: Any, **kw: Any) -> SearchPlan:
        """The floors for an engine config resolved for its model (``EngineConfig.for_model``).

        >>> from service.config import EngineConfig
        >>> p = SearchPlan.for_engine(EngineConfig().for_model("use"))  # the rescue's anchored floor: 0.30
        >>> p.floor, p.same_language_floor  # below 0.53, other-language pairs only
        (0.28, 0.53)
        >>> p = SearchPlan.for_engine(EngineConfig.of(verifier=False).for_model("use"))  # slot-confirmed: 0.55
        >>> p.floor, p.same_language_floor
        (0.53, None)
        """
        floor = float(config.copy.embedding_threshold)
        # The slot-confirmed band (service/guards/confirm.py) merges some pairs below the
        # threshold; the decide step must see them too. Looser than needed with guards off: more
        # pairs, same decisions.
        if config.copy.slot_confirm_threshold is not None:
            floor = min(floor, float(config.copy.slot_confirm_threshold))
        # The pair verifier's rescue (Cascade._rescue_hits) reads other-language hits down to
        # CopyConfig.rescue_floor (verifier_anchored_floor, 0.30 for USE; verifier_floor 0.45 when
        # that is None), below both: a floor above it hid those hits from the
        # decide step, and on the 20,000-item equivalence corpus 664 items landed in other copy
        # groups than streaming put them in (research/notes/scale.md, "late embeds"). Only
        # other-language pairs are read there (Cascade.rescue_band, anchored_band), so below the floor above
        # (0.53 for USE) a pair is kept only where the rescue may read it: 217,097 pairs at 0.43
        # for all, against 40,745 at 0.53 (research/notes/scale.md, eighteenth session). A search
        # that gets such a hit goes to the engine's own index (CandidateVectors.band_floor): the
        # dropped same-language pairs could have pushed it out of the top embedding_k. The split
        # is the floor above, not a calibrated value: raised, it would drop same-language pairs
        # the slot-confirmed band or a proposal reads; lowered, more pairs and fewer searches
        # sent to the index, the same decisions.
        if config.copy.verifier and config.copy.rescue_floor < floor:
            return cls(round(config.copy.rescue_floor - FLOOR_MARGIN, 6), **kw,
                       same_language_floor=round(floor - FLOOR_MARGIN, 6))
        return cls(round(floor - FLOOR_MARGIN, 6), **kw)


# Language bits of a node (``language_bits``): one per primary language met; languages past the
# 63rd share the top bit, which then counts as "maybe another language" against anything.
_OVERFLOW = np.int64(1) << np.int64(62)


def language_bits(langs_of_nodes: Sequence[Iterable[str]]) -> np.ndarray:
    """An int64 bit set per node of the primary languages (``cascade.primary_lang``) of the
    items behind it; "und" sets no bit, as ``other_language`` never tells "und" apart.

    >>> language_bits([["en"], ["ko", "en"], ["und"], []]).tolist()
    [1, 3, 0, 0]
    """
    bit: dict[str, int] = {}
    out = np.zeros(len(langs_of_nodes), np.int64)
    for i, langs in enumerate(langs_of_nodes):
        for lang in sorted(langs):  # sorted: the same bits whatever order a set iterates in
            if lang in ("", "und"):
                continue
            b = bit.setdefault(lang, min(len(bit), 62))
            out[i] |= np.int64(1) << np.int64(b)
    return out


def rescue_may_read(bits_a: np.ndarray, bits_b: np.ndarray) -> np.ndarray:
    """Per pair of nodes: some item behind one and some item behind the other are in different
    languages in ``cascade.other_language``'s sense (both known, not equal).

    Only such a pair is kept below the same-language floor. A bodied item's headline is a node
    too (``plan.with_headlines``): for an item without a body the embedding stage re-scores the
    hits whose anchor has a body headline with headline (``EmbeddingStage._headline_scores``),
    and a bodied item searches with its headline; a same-language score below the floor is read
    by nothing there either (not a proposal, not in the rescue), so the pair of a bare text and
    a headline follows the same rule.

    >>> bits = language_bits([["en"], ["en"], ["ko"], ["en", "ko"], ["und"]])
    >>> rescue_may_read(bits[[0, 0, 0, 3, 0]], bits[[1, 2, 3, 3, 4]]).tolist()
    [False, True, True, True, False]
    """
    a, b = np.asarray(bits_a, np.int64), np.asarray(bits_b, np.int64)
    # equal bit sets still hold two languages when a has two bits (or the shared overflow bit)
    several = ((a & (a - 1)) != 0) | ((a & _OVERFLOW) != 0)
    return (a != 0) & (b != 0) & ((a != b) | several)


def node_languages(feats: Mapping[str, np.ndarray], texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per embedded text (a node of the search): the language bits of every item the decide step
    may search with that vector or find a copy group by, and whether an item without a body has
    that text (searches with it, or anchors a group with it: ``bare``).

    A copy group's vector is its anchor's text's, and an item searches with its own text's; a
    bodied item also searches with its headline's (``EmbeddingStage._headline_scores``), so its
    language counts for the node of that text too. Every item counts, not only those embedded
    ahead: one the plan settled may be embedded late, and its vector is then the node's.

    >>> f = {"embed_text": np.array(["a", "a", "b. x", "c"], dtype=object),
    ...      "primary_lang": np.array(["en", "ko", "ko", "en"], dtype=object),
    ...      "bodied": np.array([False, False, True, False]), "headline": np.array(["", "", "c", ""], dtype=object)}
    >>> bits, bare = node_languages(f, ["a", "b. x", "c"])
    >>> bits.tolist(), bare.tolist()
    ([3, 2, 3], [True, False, True])
    """
    node = {t: i for i, t in enumerate(texts)}
    langs: list[set[str]] = [set() for _ in texts]
    bare = np.zeros(len(texts), bool)
    for text, lang, body, head in zip(feats["embed_text"], feats["primary_lang"], feats["bodied"], feats["headline"],
                                      strict=True):
        i = node.get(str(text))
        if i is not None:
            langs[i].add(str(lang))
            bare[i] |= not body
        j = node.get(str(head)) if body else None
        if j is not None:
            langs[j].add(str(lang))
    return language_bits(langs), bare


def headline_links(feats: Mapping[str, np.ndarray], texts: Sequence[str]) -> dict[str, np.ndarray]:
    """``full`` -> ``head``: for each bodied item whose text is a node, that node and its
    headline's node (-1 where the headline is no node: embedded late, if ever), one row per
    distinct link; what ``CandidateVectors`` reads to tell which bodied groups a bare search may
    re-score headline with headline.

    >>> f = {"embed_text": np.array(["a. x", "a. x", "b. y", "c"], dtype=object),
    ...      "bodied": np.array([True, True, True, False]), "headline": np.array(["a", "a", "b", ""], dtype=object)}
    >>> {k: v.tolist() for k, v in headline_links(f, ["a. x", "a", "b. y", "c"]).items()}
    {'full': [0, 2], 'head': [1, -1]}
    """
    node = {t: i for i, t in enumerate(texts)}
    links: dict[tuple[int, int], None] = {}
    for text, body, head in zip(feats["embed_text"], feats["bodied"], feats["headline"], strict=True):
        i = node.get(str(text)) if body else None
        if i is not None:
            links[(i, node.get(str(head), -1))] = None
    full = np.asarray([a for a, _ in links], np.int64)
    return {"full": full, "head": np.asarray([b for _, b in links], np.int64)}


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
    (True on the vector's nearest list, where it is stored; it probes all of them); ``langs``
    (``node_languages``) comes along when the batch has it."""
    nodes = np.asarray(batch["node"], np.int64)
    nlist, dim = centroids.shape
    probe = max(1, min(nprobe, nlist))
    extra = [c for c in ("langs",) if c in batch]
    if not len(nodes):
        return {"list": np.zeros(0, np.int64), "node": nodes, "vector": _objects([]), "home": np.zeros(0, bool),
                **{c: np.asarray(batch[c])[:0] for c in extra}}
    x = _matrix(batch["vector"], dim)
    scores = x @ centroids.T
    top = np.argsort(-scores, axis=1, kind="stable")[:, :probe]
    home = np.zeros(top.shape, bool)
    home[:, 0] = True
    return {"list": top.reshape(-1).astype(np.int64), "node": np.repeat(nodes, probe),
            "vector": np.repeat(np.asarray(batch["vector"], dtype=object), probe),
            "home": home.reshape(-1), **{c: np.repeat(np.asarray(batch[c]), probe) for c in extra}}


def search_list(group: Batch, *, floor: float, same_language_floor: float | None = None) -> Batch:
    """Pairs ``(a, b)``, ``a < b``, with cosine >= ``floor`` between a vector stored in this list
    (``home``) and any vector that probes it; ``cosine`` beside them. Every row of ``group`` shares
    one ``list``. With ``same_language_floor`` and the ``langs`` column, a pair below that floor
    is kept only where :func:`rescue_may_read` it."""
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
    if same_language_floor is not None and "langs" in group:
        cos = sims[qi, mi]
        langs = np.asarray(group["langs"], np.int64)
        hi = np.flatnonzero(home)
        keep &= (cos >= same_language_floor) | rescue_may_read(langs[qi], langs[hi[mi]])
    a, b, cos = a[keep], b[keep], sims[qi[keep], mi[keep]]
    return {"a": np.minimum(a, b), "b": np.maximum(a, b), "cosine": cos.astype(np.float32)}


def unique_pairs(pairs: Batch) -> Batch:
    """One row per pair (a pair found from both lists, or from two lists, comes out more than once)."""
    if not len(pairs["a"]):
        return pairs
    _, first = np.unique(np.stack([pairs["a"], pairs["b"]], axis=1), axis=0, return_index=True)
    return {c: v[np.sort(first)] for c, v in pairs.items()}


def search_all(nodes: np.ndarray, vectors: np.ndarray, *, floor: float, nlist: int, nprobe: int,
               seed: int = 0, same_language_floor: float | None = None, langs: np.ndarray | None = None
               ) -> Batch:
    """The whole stage in one process (what the local executor runs, and the reference the Ray
    one is tested against): train, assign, group by list, search each list. ``langs`` (per node,
    ``node_languages``) with ``same_language_floor``: see :func:`search_list`."""
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    centroids = train_centroids(x, nlist, seed=seed)
    cols: Batch = {"node": np.asarray(nodes, np.int64), "vector": _objects([r.tobytes() for r in x])}
    if langs is not None:
        cols.update(langs=np.asarray(langs, np.int64))
    rows = assign_lists(cols, centroids=centroids, nprobe=nprobe)
    order = np.argsort(rows["list"], kind="stable")
    sorted_lists = rows["list"][order]
    bounds = np.flatnonzero(sorted_lists[1:] != sorted_lists[:-1]) + 1
    parts = [search_list({c: v[idx] for c, v in rows.items()}, floor=floor, same_language_floor=same_language_floor)
             for idx in np.split(order, bounds) if len(idx)]
    if not parts:
        return {"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64), "cosine": np.zeros(0, np.float32)}
    return unique_pairs({c: np.concatenate([p[c] for p in parts]) for c in parts[0]})
