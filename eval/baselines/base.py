"""What every baseline offers the harness: a verdict per pair and a clustering of a stream.

A baseline is a faithful re-implementation of one method, run exactly as its write-up runs
it. The two questions the harness asks map onto the methods like this:

* ``pair_verdicts(pairs)``: "would the method put ``a`` and ``b`` together when the pair is
  processed?" Streaming methods (seed 001, embed-everything) see ``a`` and then ``b`` in a
  fresh state. Batch methods (seed 000's in-batch IDF, seed 003's K-means) are run once over
  a batch made of all the texts of the pairs handed in (both sides, each distinct text once),
  and a pair is together when the method's batch output puts its two texts together.
* ``cluster(items)``: ingest the items in order (streaming) or as one batch, and return one
  cluster label per item.

Each verdict also carries the method's own score (``-inf`` where a gate rules the pair out),
so average precision can be computed for baselines the same way as for samestory.

>>> Verdict(True, 0.9)
Verdict(same=True, score=0.9)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from eval.data import Side

NEG_INF = float("-inf")


@dataclass(frozen=True)
class Verdict:
    """A baseline's answer for one pair: merged or not, and the method's similarity score."""

    same: bool
    score: float


@runtime_checkable
class Baseline(Protocol):
    """The common protocol. ``name`` is the report's row label, ``description`` one line of how."""

    name: str
    description: str

    def pair_verdicts(self, pairs: Sequence[tuple[Side, Side]], progress: bool = False) -> list[Verdict]:
        """One verdict per pair, in order."""
        ...

    def cluster(self, items: Sequence[Side], progress: bool = False) -> list[int]:
        """One cluster label per item, in order."""
        ...


def unique_texts(pairs: Sequence[tuple[Side, Side]]) -> list[str]:
    """The distinct texts of both sides, in first-seen order: the batch a batch method runs on.

    >>> unique_texts([(Side("x", "en"), Side("y", "en")), (Side("y", "en"), Side("z", "en"))])
    ['x', 'y', 'z']
    """
    seen: dict[str, None] = {}
    for a, b in pairs:
        seen.setdefault(a.text, None)
        seen.setdefault(b.text, None)
    return list(seen)


class UnionFind:
    """Connected components over item indexes (used where a method emits duplicate *pairs*).

    >>> uf = UnionFind(4); uf.union(0, 2); uf.labels()
    [0, 1, 0, 3]
    """

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri != rj:
            # The smaller root wins so labels are the first member's index (stable, readable).
            self.parent[max(ri, rj)] = min(ri, rj)

    def labels(self) -> list[int]:
        return [self.find(i) for i in range(len(self.parent))]
