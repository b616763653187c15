"""Fast tests of the embedding post-processing experiment (research/xling/postproc.py).

Synthetic vectors only (no eval data): a "Korean" and an "English" view of the same latent
sentences, one shifted by a language offset and one rotated, so that each post-processing has
a case it must fix and the plain cosine does not.
"""

from __future__ import annotations

import numpy as np
import pytest

from research.xling.data import PairSet
from research.xling.postproc import center, fit_cca, oof_scores, summarise, top_directions
from research.xling.train import recall_at_precision

N, D = 400, 16


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _pairset(ko: np.ndarray, en: np.ndarray, seed: int = 0) -> PairSet:
    """N positives (ko[i], en[i]) and N negatives (ko[i], en[j != i]), one group per Korean text."""
    rng = np.random.default_rng(seed)
    shift = rng.integers(1, N, size=N)
    neg = (np.arange(N) + shift) % N
    texts = [f"ko{i}" for i in range(N)] + [f"en{i}" for i in range(N)]
    a_idx = np.r_[np.arange(N), np.arange(N)]
    b_idx = np.r_[N + np.arange(N), N + neg]
    return PairSet(
        name="synthetic", ids=[str(i) for i in range(2 * N)],
        kinds=["xl_translation"] * N + ["xl_random_negative"] * N,
        labels=np.r_[np.ones(N, int), np.zeros(N, int)], groups=[f"g{i}" for i in range(N)] * 2,
        a_idx=a_idx, b_idx=b_idx, a_lang=["ko"] * (2 * N), b_lang=["en"] * (2 * N), texts=texts,
        text_lang=["ko"] * N + ["en"] * N, emb={"use": np.concatenate([ko, en]).astype(np.float32)},
    )


def test_center_removes_a_language_offset() -> None:
    rng = np.random.default_rng(1)
    z = rng.normal(size=(N, D))
    off_ko, off_en = 3 * rng.normal(size=D), 3 * rng.normal(size=D)
    ko, en = _unit(z + off_ko), _unit(z + off_en)
    plain = np.einsum("ij,ij->i", ko, en).mean()
    ck = center(ko, np.ones(N, bool), ko.mean(0), en.mean(0))
    ce = center(en, np.zeros(N, bool), ko.mean(0), en.mean(0))
    centred = np.einsum("ij,ij->i", ck, ce).mean()
    assert centred > 0.9 and plain < 0.5, (centred, plain)
    assert np.allclose(np.linalg.norm(ck, axis=1), 1.0)


def test_top_directions_are_the_principal_axes() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(500, 4)) * np.array([10.0, 1.0, 1.0, 1.0])
    basis = top_directions(x, 1)
    assert basis.shape == (1, 4)
    assert abs(abs(basis[0, 0]) - 1.0) < 0.01
    with pytest.raises(ValueError, match="dims must be"):
        top_directions(x, 0)


def test_fit_cca_validates_its_inputs() -> None:
    a = np.zeros((10, 4))
    with pytest.raises(ValueError, match="row-aligned"):
        fit_cca(a, np.zeros((9, 4)), dims=2)
    with pytest.raises(ValueError, match="dims must be"):
        fit_cca(a, a, dims=5)
    with pytest.raises(ValueError, match="reg must be"):
        fit_cca(a, a, dims=2, reg=-1.0)


def test_oof_cca_recovers_a_rotated_space_and_plain_is_the_cosine() -> None:
    rng = np.random.default_rng(3)
    d = 64  # the smallest CCA variant keeps 64 canonical directions
    z = rng.normal(size=(N, d))
    rot = np.linalg.qr(rng.normal(size=(d, d)))[0]
    ps = _pairset(_unit(z), _unit(z @ rot + 0.1 * rng.normal(size=(N, d))))
    plain, cca = oof_scores([ps], "plain")[0], oof_scores([ps], "cca64")[0]
    assert np.allclose(plain, ps.cos("use"))
    assert recall_at_precision(cca, ps.labels, 0.99)[0] > 0.95
    assert recall_at_precision(plain, ps.labels, 0.99)[0] < 0.5
    with pytest.raises(ValueError, match="unknown variant"):
        oof_scores([ps], "cca16")


def test_summarise_reports_both_framings() -> None:
    rng = np.random.default_rng(4)
    z = _unit(rng.normal(size=(N, D)))
    ps = _pairset(z, _unit(z + 0.3 * rng.normal(size=(N, D))))
    ps.name = "ntrex128-kor-eng"  # one of the sets issue 3 sets a precision floor for
    out = summarise([ps], oof_scores([ps], "lang"))
    assert set(out) == {"all", "hard_random"}
    row = out["all"]["ntrex128-kor-eng"]
    assert row["issue3_p"] >= 0.97 and 0.0 <= row["r_at_p99"] <= row["r_at_p97"] <= 1.0
