"""The sharded vector search stage (``service.batch.neighbours``) and the decide step's search
answered from its pairs (``service.batch.candidates``): exact where it claims to be, and the same
hits as the engine's own index above the floor."""

from __future__ import annotations

import numpy as np
import pytest

from bench.batch_search import exact_pairs
from index.vectors import VectorIndex
from service.batch.candidates import CandidateVectors, Neighbours
from service.batch.neighbours import FLOOR_MARGIN, SearchPlan, search_all, train_centroids
from service.config import EngineConfig


def _clustered(n: int, dim: int = 32, centres: int = 20, noise: float = 0.35, seed: int = 0) -> np.ndarray:
    """Unit vectors around a few centres: many pairs above a 0.6 floor, many below."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centres, dim))
    x = c[rng.integers(0, centres, n)] + noise * rng.normal(size=(n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _pairs(p: dict[str, np.ndarray]) -> set[tuple[int, int]]:
    return set(zip(p["a"].tolist(), p["b"].tolist(), strict=True))


def test_probing_every_list_is_exact_and_fewer_probes_find_a_subset() -> None:
    x = _clustered(600)
    exact = exact_pairs(x, 0.6)
    assert len(exact) > 1000
    full = _pairs(search_all(np.arange(len(x)), x, floor=0.6, nlist=8, nprobe=8))
    assert full == exact
    one = _pairs(search_all(np.arange(len(x)), x, floor=0.6, nlist=8, nprobe=1))
    assert one <= exact
    assert len(one) >= 0.5 * len(exact)  # the nearest list already holds most close pairs


def test_centroids_are_trained_on_a_sample_and_unit_length() -> None:
    c = train_centroids(_clustered(5000), 10)
    assert c.shape == (10, 32)
    assert np.allclose(np.linalg.norm(c, axis=1), 1.0, atol=1e-5)


def test_floor_sits_below_the_engine_threshold() -> None:
    cfg = EngineConfig().for_model("use")
    assert SearchPlan.for_engine(cfg).floor < cfg.copy.embedding_threshold


@pytest.mark.parametrize("verifier", [True, False])
def test_floor_sits_below_every_band_the_engine_reads_hits_from(verifier: bool) -> None:
    """The verifier's rescue reads other-language hits down to verifier_floor; without the
    verifier the lowest band is the slot-confirmed one. A floor above either hides hits that
    streaming would merge (664 items in other copy groups at 20,000 with the verifier on)."""
    cfg = EngineConfig.of(verifier=verifier).for_model("use")
    lowest = min(cfg.copy.embedding_threshold, cfg.copy.slot_confirm_threshold,
                 *([cfg.copy.verifier_floor] if verifier else []))
    assert SearchPlan.for_engine(cfg).floor < lowest
    assert SearchPlan.for_engine(cfg).floor == pytest.approx(lowest - FLOOR_MARGIN)


def test_searches_answered_from_pairs_equal_the_index_above_the_floor() -> None:
    """A replay like the engine's: groups get vectors over time (some the stage never saw),
    expire and are replaced; every query's hits at or above the floor are the index's own."""
    rng = np.random.default_rng(1)
    x = _clustered(400)
    floor = 0.6
    seen = 300  # the stage saw the first 300 vectors; the rest are "embedded late"
    pairs = search_all(np.arange(seen), x[:seen], floor=floor, nlist=4, nprobe=4)
    nb = Neighbours.build(x[:seen], pairs, dim=x.shape[1])
    plain, wrapped = VectorIndex(x.shape[1]), CandidateVectors(VectorIndex(x.shape[1]), nb, floor=floor)
    times = np.sort(rng.uniform(0, 100, len(x)))
    compared = 0
    for i in rng.permutation(len(x)):
        q = x[i].reshape(1, -1)
        window = (times[i] - 20, times[i] + 20)
        want = plain.search(q, 8, window=window)[0]
        if i < seen:  # answered from the pairs: the hits at or above the floor (a late one: all of them)
            want = [(g, s) for g, s in want if s >= floor]
        got = wrapped.search(q, 8, window=window)[0]
        assert [g for g, _ in got] == [g for g, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-6)
        compared += bool(want)
        if rng.random() < 0.5:  # this item founds a group (id i) with its vector
            for idx in (plain, wrapped):
                idx.add(np.array([i]), q, np.array([times[i]]))
        if rng.random() < 0.05:
            for idx in (plain, wrapped):
                idx.expire(times[i] - 30)
    assert compared > 50
    assert wrapped.answered > 0 and wrapped.fell_back > 0  # late vectors use the index's own search


def test_exact_scores_sends_a_search_without_hits_to_the_index() -> None:
    x = _clustered(50)
    nb = Neighbours.build(x, search_all(np.arange(50), x, floor=0.99, nlist=1, nprobe=1), dim=x.shape[1])
    plain = VectorIndex(x.shape[1])
    plain.add(np.arange(1, 50), x[1:], np.zeros(49))
    for exact, want in ((False, [[]]), (True, plain.search(x[:1], 8))):
        wrapped = CandidateVectors(VectorIndex(x.shape[1]), nb, floor=0.99, exact_scores=exact)
        wrapped.add(np.arange(1, 50), x[1:], np.zeros(49))
        assert wrapped.search(x[:1], 8) == want
        assert wrapped.for_score == int(exact)


@pytest.mark.parametrize("window", [None, (0.0, 1.0)])
def test_a_search_whose_hits_tie_is_the_indexs_own(window: tuple[float, float] | None) -> None:
    """Groups whose anchors share one vector (the same text in two groups) score equal; the
    engine proposes them in the order its index returns them, which the pairs cannot rebuild
    (faiss's order of equals), so such a search is the wrapped index's: same groups, same order."""
    x = _clustered(400)
    same = [3, 40, 41, 250, 399]  # five groups with one vector
    x[same] = x[3]
    nb = Neighbours.build(x, search_all(np.arange(len(x)), x, floor=0.5, nlist=1, nprobe=1), dim=x.shape[1])
    plain, wrapped = VectorIndex(x.shape[1]), CandidateVectors(VectorIndex(x.shape[1]), nb, floor=0.5)
    for idx in (plain, wrapped):
        idx.add(np.arange(len(x)), x, np.linspace(0.0, 1.0, len(x)))
    for k in (2, 3, 8):  # the tie inside the hits, and at the k-th place
        assert wrapped.search(x[3:4], k, window=window) == plain.search(x[3:4], k, window=window)
    assert wrapped.for_ties == 3 and wrapped.answered == 0
    other = next(i for i in range(len(x)) if i not in same)
    assert wrapped.search(x[other : other + 1], 8, window=window)[0][0][0] == other
    assert wrapped.for_ties == 3 and wrapped.answered == 1  # no tie: answered from the pairs
