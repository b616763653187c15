"""service.scoring: the embedding stage's scorer protocol and the engine's cosine scorer."""

from __future__ import annotations

import numpy as np

from index.features import ItemFeatures
from service.scoring import CosineScorer, Scored, make_scorer


def item(title: str, lang: str) -> ItemFeatures:
    return ItemFeatures.build(title, "", lang, 0.0)


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


def test_make_scorer_is_the_cosine_scorer_with_its_floor_at_the_threshold() -> None:
    scorer = make_scorer(0.83)
    assert isinstance(scorer, CosineScorer) and scorer.threshold == scorer.floor == 0.83
