"""research.xling.pairscorer.engine_scorer: the learned Korean-English pair scorer behind the
engine's scorer protocol (moved out of the product in issue 37).

Tested twice: with a recording stand-in (what it hands the model: which pairs take the
Korean-English path, which the same-language one) and with the packaged artefact (same-language
pairs fall back to the engine's plain cosine threshold).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from index.features import ItemFeatures
from research.xling.pairscorer.engine_scorer import XLING_FLOOR, LearnedScorer, learned_scorer


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
    """Stands in for ``research.xling.pairscorer.PairScorer``: records the batch, answers fixed probabilities."""

    name = "fake"
    threshold = 0.9

    def __init__(self) -> None:
        self.mono_cos_threshold = -1.0
        self.batches: list[Any] = []

    def score(self, pairs: Any) -> np.ndarray:
        self.batches.append(pairs)
        return np.linspace(0.1, 0.9, len(pairs.a_texts)).astype(np.float32)


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
    scorer = learned_scorer(0.70)
    assert isinstance(scorer, LearnedScorer) and scorer.name.startswith("xling:")
    assert scorer.floor == XLING_FLOOR < scorer.threshold
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
    assert learned_scorer(0.7, threshold=0.5).threshold == 0.5
