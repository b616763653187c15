"""The USE-tail fine-tuning experiment (research/xling/usetail.py): no eval data needed."""

from __future__ import annotations

import numpy as np
import pytest

from research.xling.usetail import TAIL, _backend, _use_tail_weights, fit_tail, pooled_features, tail_forward

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out

TEXTS = ["Samsung posts record third-quarter profit", "삼성전자, 3분기 영업이익 사상 최대", "a",
         "Fed raises rates by 25 basis points " * 12]


@pytest.fixture(scope="module")
def backend():
    return _backend()


def test_pooled_features_and_the_tail_give_back_use(backend) -> None:
    from models.use import USEEmbedder

    m = pooled_features(TEXTS, backend, batch_tokens=64)  # a small budget: several micro-batches
    v = tail_forward(m, _use_tail_weights(backend))
    u = USEEmbedder(threads=1).encode(TEXTS)
    assert m.shape == (4, 512) and np.allclose((v * u).sum(axis=1), 1.0, atol=1e-5)


def test_fit_tail_pulls_translations_together(backend) -> None:
    pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    init = _use_tail_weights(backend)
    ko = rng.normal(size=(64, 512)).astype(np.float32)
    en = (ko + 0.8 * rng.normal(size=(64, 512))).astype(np.float32)
    before = np.einsum("ij,ij->i", tail_forward(ko, init), tail_forward(en, init)).mean()
    hard = [en[(i + 1) % 64 : (i + 1) % 64 + 1] for i in range(64)]
    w = fit_tail(ko, en, hard, init, epochs=30, lr=1e-3, batch=16, scale=20.0, anchor=0.0, seed=0)
    after = np.einsum("ij,ij->i", tail_forward(ko, w), tail_forward(en, w)).mean()
    assert set(w) == set(TAIL) and after > before
    # With a strong pull towards USE's weights the tail barely moves.
    w_anchored = fit_tail(ko, en, hard, init, epochs=2, lr=1e-4, batch=16, scale=20.0, anchor=10.0, seed=0)
    assert max(float(np.abs(w_anchored[k] - init[k]).max()) for k in TAIL) < 1e-2
