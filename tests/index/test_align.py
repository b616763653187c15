"""index.align: monotonic sentence alignment with 1-1, 1-2, 2-1 and skip beads.

Orthonormal basis vectors stand for sentences, so every similarity is known exactly: 1 for the
same sentence, 0 for unrelated ones, 1/sqrt(2) between a sentence and the sum of it and another.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from index.align import Alignment, align

E = np.eye(8, dtype=np.float32)


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def kinds(al: Alignment) -> list[str]:
    return [b.kind for b in al.beads]


def test_identical_passages_align_one_to_one_fully() -> None:
    al = align(E[:4], E[:4], [5, 10, 20, 40], [6, 9, 21, 39])
    assert kinds(al) == ["1-1"] * 4
    assert al.score == pytest.approx(1.0)
    assert (al.coverage_a, al.coverage_b, al.coverage) == (1.0, 1.0, 1.0)
    assert [(b.a_start, b.b_start) for b in al.beads] == [(0, 0), (1, 1), (2, 2), (3, 3)]


def test_a_split_sentence_is_one_bead_one_to_two() -> None:
    # The translator split sentence 0 into two: its vector is the sum of the two halves.
    a = np.stack([unit(E[0] + E[1]), E[2]])
    b = E[:3]
    al = align(a, b, [20, 10], [10, 10, 10])
    assert kinds(al) == ["1-2", "1-1"]
    first = al.beads[0]
    assert (first.a_start, first.a_end, first.b_start, first.b_end) == (0, 1, 0, 2)
    assert first.similarity == pytest.approx(1.0)
    assert al.score == pytest.approx(1.0) and al.coverage == 1.0


def test_two_joined_sentences_are_one_bead_two_to_one() -> None:
    a = E[:3]
    b = np.stack([E[0], unit(E[1] + E[2])])
    al = align(a, b, [10, 10, 10], [10, 20])
    assert kinds(al) == ["1-1", "2-1"]
    assert al.score == pytest.approx(1.0)


def test_a_new_sentence_cannot_ride_along_in_a_merge() -> None:
    # b's second sentence is unrelated to a's only one: below merge_floor, so no 1-2 bead
    # (the merged vector would still have cosine 0.71 with a[0]); it is a 0-1 skip instead.
    al = align(E[:1], E[[0, 5]], [10], [10, 30])
    assert kinds(al) == ["1-1", "0-1"]
    assert al.coverage_a == 1.0
    assert al.coverage_b == pytest.approx(10 / 40)
    # A skipped sentence counts 0, weighted by its length: (1 * (10 + 10)) / (10 + 40).
    assert al.score == pytest.approx(20 / 50)


def test_lowering_merge_floor_to_zero_lets_the_merge_through() -> None:
    al = align(E[:1], E[[0, 5]], [10], [10, 30], merge_floor=0.0)
    assert kinds(al) == ["1-2"]
    assert al.beads[0].similarity == pytest.approx(1 / np.sqrt(2), abs=1e-6)
    # The merged bead (0.71) clears min_bead: every character counts as covered.
    assert al.coverage == 1.0


def test_a_shared_half_window_scores_and_covers_in_proportion() -> None:
    al = align(E[:4], E[2:6], [10] * 4, [10] * 4)
    assert kinds(al).count("1-1") == 2
    assert al.score == pytest.approx(0.5)
    assert al.coverage_a == pytest.approx(0.5) and al.coverage_b == pytest.approx(0.5)


def test_the_alignment_is_monotonic_so_swapped_sentences_align_only_once() -> None:
    al = align(E[:2], E[[1, 0]], [10, 10], [10, 10])
    assert kinds(al).count("1-1") == 1
    assert al.coverage == pytest.approx(0.5)


def test_a_weak_bead_counts_in_the_score_but_not_in_the_coverage() -> None:
    b = unit(0.3 * E[0] + np.sqrt(1 - 0.09) * E[1])   # cosine 0.3 with E[0]
    al = align(E[:1], b[None, :], [10], [10])
    assert kinds(al) == ["1-1"]
    assert al.score == pytest.approx(0.3, abs=1e-6)
    assert al.coverage == 0.0
    assert align(E[:1], b[None, :], [10], [10], min_bead=0.25).coverage == 1.0


def test_opposed_sentences_are_skipped_rather_than_aligned() -> None:
    al = align(E[:1], -E[:1], [10], [10])
    assert sorted(kinds(al)) == ["0-1", "1-0"]
    assert all(b.similarity is None for b in al.beads)
    assert (al.score, al.coverage) == (0.0, 0.0)


def test_an_empty_side_aligns_nothing() -> None:
    empty = np.zeros((0, 8), np.float32)
    assert align(empty, E[:2], [], [10, 10]) == Alignment(0.0, 0.0, 0.0, ())
    assert align(E[:2], empty, [10, 10], []) == Alignment(0.0, 0.0, 0.0, ())


def test_one_weight_per_sentence_is_required() -> None:
    with pytest.raises(ValueError, match="one weight per sentence"):
        align(E[:2], E[:2], [10], [10, 10])
    with pytest.raises(ValueError, match="one weight per sentence"):
        align(E[:2], E[:2], [10, 10], [10, 10, 10])


@st.composite
def passages(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, list[int], list[int]]:
    """Two passages of 1-6 sentences drawn from 6 orthonormal or mixed directions."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    basis = rng.standard_normal((6, 16))

    def pick(k: int) -> np.ndarray:  # k sentences, each a noisy copy of one of the six directions
        return np.stack([unit(basis[rng.integers(0, 6)] + 0.3 * rng.standard_normal(16)) for _ in range(k)])

    wa = draw(st.lists(st.integers(1, 80), min_size=n, max_size=n))
    wb = draw(st.lists(st.integers(1, 80), min_size=m, max_size=m))
    return pick(n), pick(m), wa, wb


@settings(max_examples=60, deadline=None)
@given(passages())
def test_beads_tile_both_passages_in_order(case: tuple[np.ndarray, np.ndarray, list[int], list[int]]) -> None:
    a, b, wa, wb = case
    al = align(a, b, wa, wb)
    ia = ib = 0
    for bead in al.beads:
        assert bead.kind in {"1-1", "1-2", "2-1", "1-0", "0-1"}
        assert (bead.a_start, bead.b_start) == (ia, ib)
        assert (bead.similarity is None) == (bead.kind in {"1-0", "0-1"})
        ia, ib = bead.a_end, bead.b_end
    assert (ia, ib) == (len(a), len(b))
    assert 0.0 <= al.coverage_a <= 1.0 and 0.0 <= al.coverage_b <= 1.0
    # Skips score 0 and the DP never takes a bead worse than skipping both sides.
    assert 0.0 <= al.score <= 1.0 + 1e-6


@settings(max_examples=40, deadline=None)
@given(passages())
def test_swapping_the_sides_mirrors_the_scores(case: tuple[np.ndarray, np.ndarray, list[int], list[int]]) -> None:
    a, b, wa, wb = case
    ab, ba = align(a, b, wa, wb), align(b, a, wb, wa)
    assert ab.score == pytest.approx(ba.score, abs=1e-5)
