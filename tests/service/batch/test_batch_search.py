"""The sharded vector search stage (``service.batch.neighbours``) and the decide step's search
answered from its pairs (``service.batch.candidates``): exact where it claims to be, and the same
hits as the engine's own index above the floor."""

from __future__ import annotations

import numpy as np
import pytest

from bench.batch_search import exact_pairs
from index.vectors import VectorIndex
from service.batch.candidates import CandidateVectors, Neighbours
from service.batch.neighbours import (
    FLOOR_MARGIN,
    SearchPlan,
    language_bits,
    node_languages,
    rescue_may_read,
    search_all,
    train_centroids,
)
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
    """The verifier's rescue reads other-language hits down to its floor (the anchored one,
    0.30, below verifier_floor); without the verifier the lowest band is the slot-confirmed one.
    A floor above either hides hits that streaming would merge (664 items in other copy groups at
    20,000 with the verifier on)."""
    cfg = EngineConfig.of(verifier=verifier).for_model("use")
    lowest = min(cfg.copy.embedding_threshold, cfg.copy.slot_confirm_threshold,
                 *([cfg.copy.rescue_floor] if verifier else []))
    assert not verifier or lowest == cfg.copy.verifier_anchored_floor
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
    # headlines only: no group has a body (a stranger that may have one sends searches to the index)
    plain = VectorIndex(x.shape[1])
    wrapped = CandidateVectors(VectorIndex(x.shape[1]), nb, floor=floor, bodied=lambda g: False)
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


def _fan(cosines: list[float], dim: int = 16) -> np.ndarray:
    """A query (row 0, e0) and one vector per cosine, each at exactly that cosine to the query
    and in its own direction besides (so they are far from one another)."""
    x = np.zeros((len(cosines) + 1, dim), np.float32)
    x[0, 0] = 1.0
    for i, c in enumerate(cosines, start=1):
        x[i, 0], x[i, i] = c, np.sqrt(1.0 - c * c)
    return x


def test_below_the_same_language_floor_only_pairs_the_rescue_may_read_are_kept() -> None:
    """With the verifier on the stage's floor is 0.43 for the rescue's other-language hits; a
    same-language pair below 0.53 is dropped, as nothing reads it (a bodied item's text and its
    headline alike: a same-language headline score below 0.53 is no proposal either)."""
    x = _fan([0.60, 0.50, 0.50, 0.40])
    langs = language_bits([["en"], ["en"], ["en"], ["ko"], ["ko"]])
    pairs = search_all(np.arange(len(x)), x, floor=0.43, nlist=1, nprobe=1, same_language_floor=0.53, langs=langs)
    got = {p for p in _pairs(pairs) if 0 in p}
    # 1: above 0.53, same language, kept; 2: same language at 0.50, dropped; 3: Korean at 0.50,
    # kept; 4: below 0.43
    assert got == {(0, 1), (0, 3)}
    unfiltered = _pairs(search_all(np.arange(len(x)), x, floor=0.43, nlist=1, nprobe=1))
    assert _pairs(pairs) <= unfiltered and (0, 2) in unfiltered


def test_node_languages_count_every_item_behind_a_text() -> None:
    """Two items with one text (an English and a Korean feed's) make the node bilingual, so its
    pair with an English node is kept; a bodied item's language counts for its headline's node.
    A node is bare where an item without a body has its text."""
    feats = {"embed_text": np.array(["same", "same", "en only", "ko head. body", "ko head"], dtype=object),
             "primary_lang": np.array(["en", "ko", "en", "ko", "en"], dtype=object),
             "bodied": np.array([False, False, False, True, False]),
             "headline": np.array(["", "", "", "ko head", ""], dtype=object)}
    bits, bare = node_languages(feats, ["same", "en only", "ko head", "ko head. body"])
    assert rescue_may_read(bits[[0]], bits[[1]]).tolist() == [True]
    assert rescue_may_read(bits[[2]], bits[[1]]).tolist() == [True]  # "ko head" is searched by a ko item
    assert bare.tolist() == [True, True, True, False]
    en = language_bits([["en"], ["en"]])
    assert rescue_may_read(en[[0]], en[[1]]).tolist() == [False]


def test_a_search_with_a_hit_below_the_same_language_floor_is_the_indexs_own() -> None:
    """Dropped same-language groups can push an other-language hit out of the top k that the
    rescue reads: here eight English groups at 0.50 rank above a Korean one at 0.46, which the
    pairs alone would put in the top 8. Such a search goes to the wrapped index."""
    x = _fan([0.70] + [0.50] * 8 + [0.46])
    langs = language_bits([["en"]] * 10 + [["ko"]])
    pairs = search_all(np.arange(len(x)), x, floor=0.43, nlist=1, nprobe=1, same_language_floor=0.53,
                       langs=langs)
    assert {p for p in _pairs(pairs) if 0 in p} == {(0, 1), (0, 10)}
    nb = Neighbours.build(x, pairs, dim=x.shape[1])
    plain = VectorIndex(x.shape[1])
    wrapped = CandidateVectors(VectorIndex(x.shape[1]), nb, floor=0.43, band_floor=0.53)
    for idx in (plain, wrapped):
        idx.add(np.arange(1, len(x)), x[1:], np.zeros(len(x) - 1))
    want = plain.search(x[:1], 8)
    assert 10 not in [g for g, _ in want[0]]  # streaming's top 8 holds no Korean hit
    assert wrapped.search(x[:1], 8) == want and wrapped.for_band == 1 and wrapped.answered == 0
    # one Korean hit fewer: the search has nothing below 0.53 and is answered from the pairs
    wrapped.remove([10])
    assert wrapped.search(x[:1], 8) == [[(1, pytest.approx(0.70, abs=1e-6))]]
    assert wrapped.for_band == 1 and wrapped.answered == 1


def test_a_bare_search_whose_top_k_may_hold_a_bodied_group_below_the_floor_is_the_indexs_own() -> None:
    """For an item without a body the engine re-scores each hit of its top k whose anchor has a
    body headline with headline, however low the hit's own cosine. Here the bodied group's text
    (headline plus lead) is at 0.30 to the query, below the stage's floor, and its headline at
    0.90: the engine's top 8 holds it and reads it as a copy; the pairs alone would not return
    it. Such a search goes to the wrapped index; one whose top k is full above the floor, or
    whose bodied neighbour's headline is far, is answered from the pairs."""
    # nodes: 0 the bare query, 1 a group's text at 0.70, 2 a bodied group's text at 0.30,
    # 3 that group's headline at 0.90, 4 another bodied text at 0.30 whose headline (5) is far
    x = _fan([0.70, 0.30, 0.90, 0.30, 0.20])
    pairs = search_all(np.arange(len(x)), x, floor=0.43, nlist=1, nprobe=1)
    assert {p for p in _pairs(pairs) if 0 in p} == {(0, 1), (0, 3)}
    links = {"full": np.array([2, 4]), "head": np.array([3, 5])}
    bare = np.array([True, True, False, False, False, False])
    nb = Neighbours.build(x, pairs, dim=x.shape[1], headlines=links, bare=bare)
    plain = VectorIndex(x.shape[1])
    wrapped = CandidateVectors(VectorIndex(x.shape[1]), nb, floor=0.43, bodied=lambda g: False)
    for idx in (plain, wrapped):  # groups 11 (node 1) and 14 (node 4)
        idx.add(np.array([11, 14]), x[[1, 4]], np.zeros(2))
    # the far-headline bodied group alone: nothing the engine would re-score is missing
    assert wrapped.search(x[:1], 8) == [[(11, pytest.approx(0.70, abs=1e-6))]]
    assert wrapped.answered == 1 and wrapped.for_headlines == 0
    for idx in (plain, wrapped):
        idx.add(np.array([12]), x[2:3], np.zeros(1))
    want = plain.search(x[:1], 8)
    assert 12 in [g for g, _ in want[0]]  # streaming's top 8 holds the bodied group at 0.30
    assert wrapped.search(x[:1], 8) == want and wrapped.for_headlines == 1
    # outside the window, or a top k full above the floor: answered from the pairs
    assert wrapped.search(x[:1], 8, window=(1.0, 2.0)) == [[]] and wrapped.for_headlines == 1
    assert wrapped.search(x[:1], 1) == [[(11, pytest.approx(0.70, abs=1e-6))]] and wrapped.for_headlines == 1
    # a query no bare item searches with (a bodied item's own text) reads no re-scored hit
    other = CandidateVectors(VectorIndex(x.shape[1]), Neighbours.build(x, pairs, dim=x.shape[1], headlines=links,
                                                                       bare=np.zeros(len(x), bool)),
                             floor=0.43, bodied=lambda g: False)
    other.add(np.array([11, 12]), x[1:3], np.zeros(2))
    assert other.search(x[:1], 8) == [[(11, pytest.approx(0.70, abs=1e-6))]] and other.for_headlines == 0


def test_a_stranger_with_a_body_sends_a_bare_search_to_the_index() -> None:
    """A group whose vector the stage never saw (a text embedded late) has no headline node to
    tell whether a bare search may re-score it: if its anchor has a body, the search is the
    index's while its top k is not full."""
    x = _fan([0.70, 0.30])
    nb = Neighbours.build(x[:2], {"a": np.array([0]), "b": np.array([1])}, dim=x.shape[1],
                          headlines={"full": np.zeros(0, np.int64), "head": np.zeros(0, np.int64)},
                          bare=np.ones(2, bool))
    for bodied, fell in ((False, 0), (True, 1)):
        wrapped = CandidateVectors(VectorIndex(x.shape[1]), nb, floor=0.43, bodied=lambda g, b=bodied: b)
        wrapped.add(np.array([11, 12]), x[1:3], np.zeros(2))  # 12: a stranger, at 0.30
        got = wrapped.search(x[:1], 8)
        assert wrapped.for_headlines == fell
        assert [g for g, _ in got[0]] == ([11, 12] if bodied else [11])
