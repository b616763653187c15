"""research/verifier_stack.py: the halves that cross-fit the stack and its features."""

from __future__ import annotations

import numpy as np

from models.verifier_data import Pair
from research.verifier_stack import features, halves


def test_a_pair_falls_in_the_same_half_whichever_way_round_and_halves_are_mixed() -> None:
    pairs = [Pair(f"text {i}", f"other {i}", i % 2, "set/kind", 0) for i in range(200)]
    swapped = [Pair(p.b, p.a, p.label, p.source, p.fold) for p in pairs]
    h = halves(pairs)
    assert np.array_equal(h, halves(swapped))
    assert 60 < int(h.sum()) < 140  # both halves hold a fair share


def test_features_are_the_cosine_the_logit_of_p_and_their_product() -> None:
    x = features(np.array([0.5, 0.9]), np.array([0.5, 0.9]))
    assert x.shape == (2, 3)
    assert np.allclose(x[:, 0], [0.5, 0.9]) and np.allclose(x[:, 1], [0.0, np.log(9.0)])
    assert np.allclose(x[:, 2], x[:, 0] * x[:, 1])
    assert np.isfinite(features(np.array([0.1]), np.array([1.0]))).all()  # P = 1 is clipped, not inf
