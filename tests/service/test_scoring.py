"""service.scoring: the embedding stage's two scorers and the factory that picks one.

The learned scorer is tested twice: with a recording stand-in (what it hands the model: which
pairs take the Korean-English path, which the same-language one) and with the packaged
``models.xling`` artefact (the contract the module doc states: same-language pairs fall back to
the engine's plain cosine threshold).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest

from index.features import ItemFeatures
from service.scoring import XLING_MODEL, CosineScorer, LearnedScorer, Scored, make_scorer


def item(title: str, lang: str) -> ItemFeatures:
    return ItemFeatures.build(title, "", lang, 0.0)


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def with_cosine(base: np.ndarray, cos: float, rng: np.random.Generator) -> np.ndarray:
    """A unit vector whose cosine with the unit vector ``base`` is exactly ``cos``."""
    other = np.asarray(rng.standard_normal(base.shape[0]))
    other = other - float(np.dot(other, base)) * base
    other = other / np.linalg.norm(other)
    return (cos * base + np.sqrt(1.0 - cos * cos) * other).astype(np.float32)


class RecordingModel:
    """Stands in for ``models.xling.PairScorer``: records the batch, answers fixed probabilities."""

    name = "fake"
    threshold = 0.9

    def __init__(self) -> None:
        self.mono_cos_threshold = -1.0
        self.batches: list[Any] = []

    def score(self, pairs: Any) -> np.ndarray:
        self.batches.append(pairs)
        return np.linspace(0.1, 0.9, len(pairs.a_texts)).astype(np.float32)


def test_scored_describe_names_the_quantity_compared() -> None:
    s = Scored(score=0.95, cosine=0.81234)
    assert s.describe(0.94, learned=True) == "p(same story) 0.950 >= 0.9400 (cosine 0.812)"
    assert s.describe(0.8, learned=False) == "cosine 0.812 >= 0.8"


def test_cosine_scorer_scores_are_the_dot_products() -> None:
    scorer = CosineScorer(0.8)
    assert (scorer.name, scorer.threshold, scorer.learned) == ("cosine", 0.8, False)
    v = np.array([1.0, 0.0, 0.0])
    others = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-1.0, 0.0, 0.0]])  # float64 in: cast, not refused
    feats = [item("a", "en")] * 3
    out = scorer.score(item("q", "en"), v, feats, others, ("q", ["a", "b", "c"]))
    assert [round(s.score, 6) for s in out] == [1.0, 0.6, -1.0]
    assert all(s.score == s.cosine for s in out)
    assert all(isinstance(s.score, float) for s in out)


def test_cosine_scorer_with_no_candidates_scores_nothing() -> None:
    out = CosineScorer(0.8).score(item("q", "en"), np.ones(4, np.float32), [], np.zeros((0, 4), np.float32),
                                  ("q", []))
    assert out == []


def test_learned_scorer_takes_its_threshold_from_the_model_unless_overridden() -> None:
    model = RecordingModel()
    scorer = LearnedScorer(model, cosine_threshold=0.77)
    assert scorer.threshold == 0.9 and scorer.learned and scorer.name == "xling:fake"
    # One source of truth: the engine's cosine threshold is pushed into the model for same-language pairs.
    assert model.mono_cos_threshold == 0.77
    assert LearnedScorer(RecordingModel(), cosine_threshold=0.7, threshold=0.5).threshold == 0.5


def test_learned_scorer_routes_only_korean_english_pairs_to_the_model() -> None:
    model = RecordingModel()
    scorer = LearnedScorer(model, cosine_threshold=0.7)
    rng = np.random.default_rng(0)
    q = unit(rng.standard_normal(8))
    vecs = np.stack([with_cosine(q, c, rng) for c in (0.9, 0.5, 0.3, 0.1)])
    others = [item("삼성 실적", "ko"), item("Samsung profit", "en"), item("???", "und"), item("삼성 이익", "ko")]
    out = scorer.score(item("Samsung earnings", "en"), q, others, vecs,
                       ("Samsung earnings", ["삼성 실적", "Samsung profit", "???", "삼성 이익"]))
    (batch,) = model.batches
    assert list(batch.a_langs) == ["en", "mono", "mono", "en"]
    assert list(batch.b_langs) == ["ko", "mono", "mono", "ko"]
    assert list(batch.a_texts) == ["Samsung earnings"] * 4
    assert list(batch.b_texts) == ["삼성 실적", "Samsung profit", "???", "삼성 이익"]
    np.testing.assert_allclose(batch.cos_use, [0.9, 0.5, 0.3, 0.1], atol=1e-5)
    # The hubness columns get the query vector once per pair and the candidates' vectors.
    emb_a, emb_b = batch.emb_use
    assert emb_a.shape == (4, 8) and np.allclose(emb_a, q[None, :])
    assert np.array_equal(emb_b, vecs)
    # The model's probabilities become the scores; the cosines ride along for the explanation.
    np.testing.assert_allclose([s.score for s in out], np.linspace(0.1, 0.9, 4), atol=1e-6)
    np.testing.assert_allclose([s.cosine for s in out], [0.9, 0.5, 0.3, 0.1], atol=1e-5)


def test_learned_scorer_with_no_candidates_does_not_call_the_model() -> None:
    model = RecordingModel()
    assert LearnedScorer(model, cosine_threshold=0.7).score(item("q", "en"), np.ones(4), [], np.zeros((0, 4)),
                                                            ("q", [])) == []
    assert model.batches == []


def test_packaged_model_same_language_pairs_follow_the_cosine_threshold() -> None:
    scorer = make_scorer("xling", XLING_MODEL, cosine_threshold=0.70)
    assert isinstance(scorer, LearnedScorer) and scorer.name.startswith("xling:")
    rng = np.random.default_rng(1)
    q = unit(rng.standard_normal(512))
    cosines = [0.95, 0.72, 0.68, 0.30]
    vecs = np.stack([with_cosine(q, c, rng) for c in cosines])
    others = [item(f"Fed raises rates {i}", "en") for i in range(4)]
    out = scorer.score(item("Fed raises rates", "en"), q, others, vecs,
                       ("Fed raises rates", [f"Fed raises rates {i}" for i in range(4)]))
    assert [s.score >= scorer.threshold for s in out] == [c >= 0.70 for c in cosines]
    assert all(0.0 <= s.score <= 1.0 for s in out)
    # Monotone in the cosine on this path.
    assert [s.score for s in out] == sorted((s.score for s in out), reverse=True)


def test_packaged_model_threshold_override_is_applied() -> None:
    scorer = make_scorer("xling", XLING_MODEL, cosine_threshold=0.7, threshold=0.5)
    assert scorer.threshold == 0.5


def test_make_scorer_cosine_and_unknown_kinds() -> None:
    scorer = make_scorer("cosine", XLING_MODEL, cosine_threshold=0.83)
    assert isinstance(scorer, CosineScorer) and scorer.threshold == 0.83
    with pytest.raises(ValueError, match="unknown embedding scorer 'learned'"):
        make_scorer("learned", XLING_MODEL, cosine_threshold=0.8)


@pytest.mark.parametrize("model_name", ["multilingual-e5-small", None])
def test_make_scorer_falls_back_to_cosine_for_another_embedder(model_name: str | None,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="samestory.scoring"):
        scorer = make_scorer("xling", model_name, cosine_threshold=0.81)
    assert isinstance(scorer, CosineScorer) and scorer.threshold == 0.81
    assert any("using plain cosine" in r.getMessage() for r in caplog.records)
