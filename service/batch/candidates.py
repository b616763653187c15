"""The decide step's vector search, answered from the candidate pairs of the sharded search stage.

The engine asks its copy-group vector index for the ``k`` nearest groups of each new item
(``service.cascade``, stage 4) and keeps only hits at or above its floor (the cosine threshold,
or the slot-confirmed band's). :class:`CandidateVectors` wraps that index and
answers the same question from the pairs the search stage found (every embedded text's
neighbours with cosine >= the stage's floor, a little below the engine's): the groups whose
vector is one of the query's neighbours (or the query's own vector), plus every group whose
vector the stage never saw (a text the decide step embedded late, or one a ``--into`` store held
before), are scored exactly against the query from the index's own stored vectors, by the
index's own direct-scoring function, restricted to the window, best first.

Why the answer is the engine's: every group vector with cosine >= the stage's floor is among
those scored (the stage found the pair; or the vector is one it never saw, and is scored
anyway), so the hits at or above the floor, and the top ``k`` of them, are the exact search's.
Hits below the floor are not returned; the engine drops them anyway (its floor is higher), and
an item with none keeps no nearest-cosine score (``score`` null where streaming reports the
cosine of a group too far to merge: docs/scale.md). A query the stage never saw (embedded late)
falls back to the wrapped index's own search; so does, with ``exact_scores``, a search the
pairs answer with no hit (then even that score is streaming's), a search whose hits tie
(:data:`TIE_EPS`: two groups with one vector), as only the wrapped index knows the order in which
streaming gets equals back, and a bare item's search whose top ``k`` may hold a bodied group below
the floor (``_headline_gap``: the engine re-scores those headline with headline).

>>> from index.vectors import VectorIndex
>>> v = np.eye(3, dtype=np.float32)
>>> nb = Neighbours.build(v, {"a": np.array([0]), "b": np.array([1])}, dim=3)
>>> idx = CandidateVectors(VectorIndex(3), nb, floor=0.5)
>>> idx.add(np.array([7, 8]), v[:2], np.zeros(2))
>>> idx.search(v[0].reshape(1, -1), 8, window=(-1.0, 1.0)), idx.answered, idx.fell_back
([[(7, 1.0)]], 1, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import pairwise
from typing import Any

import numpy as np

from index.vector_search import Hits, score_direct
from index.vectors import VectorIndex, _as_float_matrix

# Two hits whose cosines differ by at most this are a tie. Groups whose anchors have the same
# vector (the same text in two groups: copies the verifier or a guard kept apart) score equal, and
# the engine proposes equal hits in the order its index returns them; faiss's order of equals
# (its heap's, neither insertion order nor a sort) cannot be rebuilt from the candidates alone,
# so a search whose hits tie is the wrapped index's own. 1e-5 is far above the float32 rounding
# by which this module's scores (numpy) and faiss's differ (< 2e-7 on the 20,000-item corpus,
# research/notes/scale.md) and far below the gaps between distinct hits: wider, more searches go
# to the wrapped index (time, same answers); under the rounding, equals could come back in
# another order than streaming's and an item join the other of two same-text groups.
TIE_EPS = 1e-5


def _ties(scored: list[tuple[int, float]]) -> bool:
    """Two neighbours in ``scored`` (best first) within :data:`TIE_EPS` of each other.

    >>> _ties([(1, 0.9), (2, 0.8)]), _ties([(1, 0.9), (2, 0.9 - 1e-7)]), _ties([(1, 0.9)])
    (False, True, False)
    """
    return any(a[1] - b[1] <= TIE_EPS for a, b in pairwise(scored))


class Neighbours:
    """Each embedded vector's neighbours (node ids), and the node of a vector.

    A vector is found by the hash of its bytes, then checked against the stored row (a hash
    collision finds no node rather than a wrong one), so the lookup table costs a few dozen
    bytes a vector, not a second copy of the vectors.
    """

    def __init__(self, vectors: np.ndarray, node_of: dict[int, int], indptr: np.ndarray, indices: np.ndarray,
                 headlines: Mapping[str, np.ndarray] | None = None, bare: np.ndarray | None = None) -> None:
        self.vectors = vectors
        self._node_of = node_of
        self.indptr = indptr
        self.indices = indices
        # A bodied text's node by its headline's node (``neighbours.headline_links``), and the
        # bodied nodes whose headline is no node (embedded late): what a bare search may re-score.
        self.bodied_of_head: dict[int, list[int]] = {}
        self.headless: list[int] = []
        if headlines is not None:
            for full, head in zip(headlines["full"].tolist(), headlines["head"].tolist(), strict=True):
                if head < 0:
                    self.headless.append(full)
                else:
                    self.bodied_of_head.setdefault(head, []).append(full)
        # per node, an item without a body has its text (``neighbours.node_languages``); None:
        # every node may be a bare item's (the safe side)
        self.bare = bare

    @classmethod
    def build(cls, vectors: np.ndarray, pairs: Mapping[str, np.ndarray], *, dim: int,
              headlines: Mapping[str, np.ndarray] | None = None, bare: np.ndarray | None = None) -> Neighbours:
        """From the vectors (row i = node i) and the stage's pairs (``a``, ``b``: node ids), both
        ways; ``headlines`` and ``bare``: the plan's ``headline_links`` and ``node_languages``.

        >>> nb = Neighbours.build(np.eye(3, dtype=np.float32), {"a": np.array([0]), "b": np.array([2])}, dim=3)
        >>> nb.of(0).tolist(), nb.of(1).tolist(), nb.of(2).tolist(), nb.node(np.eye(3, dtype=np.float32)[1])
        ([2], [], [0], 1)
        """
        x = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, dim)
        node_of: dict[int, int] = {}
        for i, row in enumerate(x):
            node_of.setdefault(hash(row.tobytes()), i)
        a = np.asarray(pairs["a"], np.int64)
        b = np.asarray(pairs["b"], np.int64)
        src, dst = np.concatenate([a, b]), np.concatenate([b, a])
        order = np.argsort(src, kind="stable")
        indptr = np.zeros(len(x) + 1, np.int64)
        np.add.at(indptr, src + 1, 1)
        return cls(x, node_of, np.cumsum(indptr), dst[order], headlines, bare)

    def searched_bare(self, node: int) -> bool:
        """An item without a body may search with this node's vector."""
        return self.bare is None or bool(self.bare[node])

    def bodied_near(self, node: int) -> list[int]:
        """The bodied nodes whose headline is this node or one of its neighbours (cosine at or
        above the stage's floor), and those whose headline is no node."""
        out = list(self.headless)
        for head in (node, *self.of(node).tolist()):
            out.extend(self.bodied_of_head.get(head, ()))
        return out

    def node(self, vector: np.ndarray) -> int | None:
        """The node whose vector is exactly ``vector`` (float32), or None."""
        row = np.ascontiguousarray(vector, dtype=np.float32).reshape(-1)
        i = self._node_of.get(hash(row.tobytes()))
        if i is None or row.shape != self.vectors[i].shape or not np.array_equal(self.vectors[i], row):
            return None
        return i

    def of(self, node: int) -> np.ndarray:
        return self.indices[self.indptr[node] : self.indptr[node + 1]]

    @property
    def pairs(self) -> int:
        return len(self.indices) // 2


class CandidateVectors:
    """A :class:`~index.vectors.VectorIndex` whose single-query searches are answered from
    :class:`Neighbours`; everything else (adds, removals, expiry, ``get``) is the wrapped index's."""

    def __init__(self, inner: VectorIndex, neighbours: Neighbours, *, floor: float, exact_scores: bool = False,
                 band_floor: float | None = None, bodied: Callable[[int], bool] | None = None) -> None:
        self.inner = inner
        self.neighbours = neighbours
        self.floor = floor  # the search stage's cosine floor: hits below it are not returned
        # The stage's same-language floor (SearchPlan.same_language_floor): below it the pairs
        # hold only those the verifier's rescue may read, so a search with a hit there goes to the
        # wrapped index. Its own top k can differ: a same-language group the stage dropped may
        # rank above that hit and push it out of the k the rescue reads, which the pairs cannot
        # know. A search with no hit below it is the index's above it, and the rescue reads none
        # of what was dropped (same language, and no body on either side: neither a proposal nor
        # in the slot-confirmed band, below 0.53 for USE).
        self.band_floor = band_floor
        # True: a search the pairs answer with no hit goes to the wrapped index too, so that the
        # item's score (the nearest group's cosine, far below any threshold) is streaming's; it
        # changes no decision, and costs streaming's search for every item no group came near
        self.exact_scores = exact_scores
        # Whether a group's anchor has a body (``EmbeddingStage.stored_has_body``), asked of the
        # groups whose vector the stage never saw; None: any of them may have one.
        self.bodied = bodied
        self.groups_of: dict[int, set[int]] = {}  # node -> group ids whose vector it is
        self.node_of_group: dict[int, int] = {}
        # groups whose vector the stage never saw: scored on every search (few: late texts)
        self.strangers: set[int] = set(inner._rows.ids[: inner._rows.n][inner._rows.alive[: inner._rows.n]].tolist())
        self.answered = 0  # searches answered from the pairs
        self.fell_back = 0  # searches of a vector the stage never saw: the wrapped index's own
        self.for_score = 0  # searches with no hit from the pairs, sent to the wrapped index (exact_scores)
        self.for_ties = 0  # searches whose hits tie, sent to the wrapped index (its order of equals is streaming's)
        self.for_band = 0  # searches with a hit below band_floor, sent to the wrapped index (see above)
        self.for_headlines = 0  # searches whose top k may hold a bodied group below the floor (_headline_gap)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __len__(self) -> int:
        return len(self.inner)

    def __contains__(self, group: object) -> bool:
        return group in self.inner

    def add(self, ids: np.ndarray, vectors: np.ndarray, times: np.ndarray) -> None:
        ids_arr = np.asarray(ids, np.int64).reshape(-1)
        raw = np.asarray(vectors, dtype=np.float32).reshape(len(ids_arr), -1)
        self.inner.add(ids_arr, raw, times)
        for group, row in zip(ids_arr.tolist(), raw, strict=True):
            old = self.node_of_group.pop(group, None)
            if old is not None:
                self.groups_of[old].discard(group)
            self.strangers.discard(group)
            node = self.neighbours.node(row)
            if node is None:
                self.strangers.add(group)
            else:
                self.node_of_group[group] = node
                self.groups_of.setdefault(node, set()).add(group)

    def remove(self, ids: Iterable[int]) -> int:
        return self.inner.remove(ids)

    def search(self, vectors: np.ndarray, k: int = 10, *, window: tuple[float, float] | None = None,
               exclude: set[int] | None = None) -> Hits:
        raw = np.asarray(vectors, dtype=np.float32)
        node = self.neighbours.node(raw) if raw.size == self.dim else None
        if node is None or exclude:
            self.fell_back += 1
            return self.inner.search(vectors, k, window=window, exclude=exclude)
        groups: set[int] = set(self.groups_of.get(node, ()))
        for nb in self.neighbours.of(node).tolist():
            groups.update(self.groups_of.get(nb, ()))
        groups.update(self.strangers)
        rows = self.inner._rows
        pos = np.asarray(sorted(p for p in (rows.pos.get(g) for g in groups) if p >= 0 and rows.alive[p]), np.int64)
        if window is not None and pos.size:
            t = rows.times[pos]
            pos = pos[(t >= window[0]) & (t <= window[1])]
        hits: list[tuple[int, float]] = []
        scored: list[tuple[int, float]] = []
        if pos.size:
            q = _as_float_matrix(raw, self.dim, "vectors")
            # one beyond k: a tie at the k-th place decides which group is returned at all
            scored = score_direct(q, k + 1, pos, self.inner._decode(pos), rows.ids)[0]
            hits = [(g, s) for g, s in scored[:k] if s >= self.floor]
        if self.band_floor is not None and hits and hits[-1][1] < self.band_floor:
            self.for_band += 1
            return self.inner.search(vectors, k, window=window)
        if len(hits) < k and self._headline_gap(node, {g for g, _ in hits}, window):
            self.for_headlines += 1
            return self.inner.search(vectors, k, window=window)
        if hits and _ties(scored[: len(hits) + 1]):
            self.for_ties += 1
            return self.inner.search(vectors, k, window=window)
        self.answered += 1
        if not hits and self.exact_scores:
            self.for_score += 1
            return self.inner.search(vectors, k, window=window)
        return [hits]

    def _headline_gap(self, node: int, hit_groups: set[int], window: tuple[float, float] | None) -> bool:
        """A group the search stage cannot place may be in streaming's top k.

        For an item without a body the embedding stage re-scores every hit of its top k whose
        anchor has a body headline with headline (``EmbeddingStage._headline_scores``), however
        low the hit's own cosine (the anchor's headline plus lead against a bare headline), and
        may merge on that score. The pairs hold only hits at or above the floor; below it, a
        top k that is not full (fewer than k hits) is filled by groups the pairs do not rank. So
        the search goes to the wrapped index where such a group may be among them: one whose
        anchor's text is bodied and whose headline is the query's neighbour (headline cosine at
        or above the floor; the engine reads only re-scored hits at or above its own, higher,
        floor), is alive in the window and is not a hit; or a bodied group the stage never saw.
        """
        if not self.neighbours.searched_bare(node):
            return False
        groups = {g for full in self.neighbours.bodied_near(node) for g in self.groups_of.get(full, ())}
        groups.update(g for g in self.strangers if self.bodied is None or self.bodied(g))
        groups -= hit_groups
        if not groups:
            return False
        rows = self.inner._rows
        for g in groups:
            p = rows.pos.get(g)
            if p is None or p < 0 or not rows.alive[p]:
                continue
            if window is None or window[0] <= rows.times[p] <= window[1]:
                return True
        return False
