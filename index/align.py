"""Monotonic sentence alignment of two passages (the Bertalign / bitext-mining idea).

One vector for a whole chunk cannot tell a translation from an overlapping window in the
other language: both are about the same thing, and on the rag-chunks-ntrex dev pairs the
whole-chunk USE cosine of translations (5th percentile 0.65) and of windows that share half
their sentences (95th percentile 0.73) overlap. Sentence by sentence they differ: a translation
has a counterpart for every sentence, in order, while an overlapping window has counterparts
for the shared half only. :func:`align` finds the best monotonic alignment of the two sentence
sequences with beads of 1-1, 1-2, 2-1 sentences (a translator splits or joins sentences) and
1-0 / 0-1 (a sentence with no counterpart), by dynamic programming over the sentence
similarity matrix, and reports

* ``score``: the character-weighted mean similarity of the beads, a sentence with no
  counterpart counting 0, so new sentences pull it down in proportion to their length;
* ``coverage_a`` / ``coverage_b``: the share of each side's characters in beads whose
  similarity reaches ``min_bead``: how much of each passage has a counterpart at all.

>>> import numpy as np
>>> e = np.eye(4, dtype=np.float32)
>>> al = align(e[:3], e[:3], [10, 10, 10], [10, 10, 10])
>>> round(al.score, 3), al.coverage_a, [b.kind for b in al.beads]
(1.0, 1.0, ['1-1', '1-1', '1-1'])
>>> al = align(e[:3], e[1:4], [10, 10, 10], [10, 10, 10])   # shifted window: two of three shared
>>> round(al.score, 3), round(al.coverage_b, 3)
(0.667, 0.667)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_NEG = -1e18


@dataclass(frozen=True)
class Bead:
    """Sentences ``a[a_start:a_end]`` aligned with ``b[b_start:b_end]``; ``similarity`` is None for a skip."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    similarity: float | None

    @property
    def kind(self) -> str:
        return f"{self.a_end - self.a_start}-{self.b_end - self.b_start}"


@dataclass(frozen=True)
class Alignment:
    """The best monotonic alignment and its scores (see the module doc)."""

    score: float
    coverage_a: float
    coverage_b: float
    beads: tuple[Bead, ...]

    @property
    def coverage(self) -> float:
        """The smaller of the two coverages: both passages must be accounted for."""
        return min(self.coverage_a, self.coverage_b)


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(n == 0, 1.0, n)


def align(a: np.ndarray, b: np.ndarray, a_weights: Sequence[float], b_weights: Sequence[float], *,
          min_bead: float = 0.40, merge_floor: float = 0.20) -> Alignment:
    """Align sentence vectors ``a`` (n, d) and ``b`` (m, d), L2-normalised rows.

    ``*_weights`` are the sentences' lengths (characters); a 2-sentence side of a bead is
    represented by the normalised sum of its two vectors, and is allowed only when each of its
    two sentences has at least ``merge_floor`` similarity with the other side: otherwise a
    new sentence could ride along with a shared one (the sum of an unrelated vector and a
    matching one still has cosine 0.71 with the match). ``min_bead`` and ``merge_floor`` are
    set by the caller's calibration (``service.passages.PassageConfig``).
    """
    n, m = len(a), len(b)
    if n != len(a_weights) or m != len(b_weights):
        raise ValueError("one weight per sentence is needed on each side")
    if n == 0 or m == 0:
        return Alignment(0.0, 0.0, 0.0, ())
    wa = [float(w) for w in a_weights]
    wb = [float(w) for w in b_weights]
    s11 = (a @ b.T).tolist()
    a2 = _unit(a[:-1] + a[1:]) if n > 1 else np.zeros((0, a.shape[1]), a.dtype)
    b2 = _unit(b[:-1] + b[1:]) if m > 1 else np.zeros((0, b.shape[1]), b.dtype)
    s12 = (a @ b2.T).tolist()   # a[i] with b[j], b[j+1]
    s21 = (a2 @ b.T).tolist()   # a[i], a[i+1] with b[j]
    best = [[_NEG] * (m + 1) for _ in range(n + 1)]
    back: list[list[tuple[int, int, float | None]]] = [[(0, 0, None)] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for i in range(n + 1):
        row = best[i]
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            top, how = _NEG, (0, 0, None)
            if i and j:
                v = best[i - 1][j - 1] + s11[i - 1][j - 1] * (wa[i - 1] + wb[j - 1])
                if v > top:
                    top, how = v, (1, 1, s11[i - 1][j - 1])
                if j > 1 and min(s11[i - 1][j - 2], s11[i - 1][j - 1]) >= merge_floor:
                    sim = s12[i - 1][j - 2]
                    v = best[i - 1][j - 2] + sim * (wa[i - 1] + wb[j - 2] + wb[j - 1])
                    if v > top:
                        top, how = v, (1, 2, sim)
                if i > 1 and min(s11[i - 2][j - 1], s11[i - 1][j - 1]) >= merge_floor:
                    sim = s21[i - 2][j - 1]
                    v = best[i - 2][j - 1] + sim * (wa[i - 2] + wa[i - 1] + wb[j - 1])
                    if v > top:
                        top, how = v, (2, 1, sim)
            if i and best[i - 1][j] > top:
                top, how = best[i - 1][j], (1, 0, None)
            if j and row[j - 1] > top:
                top, how = row[j - 1], (0, 1, None)
            row[j] = top
            back[i][j] = how
    beads: list[Bead] = []
    i, j = n, m
    while i or j:
        di, dj, sim = back[i][j]
        beads.append(Bead(i - di, i, j - dj, j, sim))
        i, j = i - di, j - dj
    beads.reverse()
    total_a, total_b = sum(wa), sum(wb)
    cov_a = sum(sum(wa[x.a_start : x.a_end]) for x in beads if x.similarity is not None and x.similarity >= min_bead)
    cov_b = sum(sum(wb[x.b_start : x.b_end]) for x in beads if x.similarity is not None and x.similarity >= min_bead)
    return Alignment(best[n][m] / (total_a + total_b), cov_a / total_a if total_a else 0.0,
                     cov_b / total_b if total_b else 0.0, tuple(beads))
