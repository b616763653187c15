"""``index.row_ivf.RowIVF``: an inverted file over numbered rows whose vectors change (issue 37)."""

from __future__ import annotations

import numpy as np
import pytest

from index.row_ivf import RowIVF


def _clustered(rng: np.random.Generator, n: int, dim: int, centres: int) -> np.ndarray:
    """Vectors around ``centres`` random directions, as news centroids gather around topics."""
    c = rng.standard_normal((centres, dim)).astype(np.float32)
    x = c[rng.integers(0, centres, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _exact(x: np.ndarray, allowed: np.ndarray, q: np.ndarray, k: int) -> list[int]:
    rows = np.flatnonzero(allowed)
    sims = x[rows] @ q
    return rows[np.argsort(-sims, kind="stable")[:k]].tolist()


def test_probing_every_list_is_the_exact_search() -> None:
    rng = np.random.default_rng(1)
    x = _clustered(rng, 2_000, 32, 40)
    ivf = RowIVF(32, list_size=200, nprobe=64)  # 10 lists, all probed
    ivf.build(np.arange(2_000), x)
    allowed = rng.random(2_000) < 0.7
    for q in x[:50]:
        assert ivf.search(q, 12, allowed).tolist() == _exact(x, allowed, q, 12)


def test_few_probes_find_most_of_the_top_k_and_only_allowed_rows() -> None:
    rng = np.random.default_rng(2)
    x = _clustered(rng, 6_000, 32, 60)
    ivf = RowIVF(32, list_size=200, nprobe=6)  # 30 lists, 6 probed
    ivf.build(np.arange(6_000), x)
    allowed = rng.random(6_000) < 0.8
    found = wanted = 0
    for q in x[:200]:
        got = ivf.search(q, 12, allowed)
        assert allowed[got].all()
        exact = _exact(x, allowed, q, 12)
        found += len(set(got.tolist()) & set(exact))
        wanted += len(exact)
        assert int(got[0]) == exact[0]  # the item's own cluster's best is always found
    assert found / wanted >= 0.9


def test_replaced_and_removed_rows_are_searched_with_their_new_vectors() -> None:
    rng = np.random.default_rng(3)
    x = _clustered(rng, 1_000, 16, 20)
    ivf = RowIVF(16, list_size=100, nprobe=10)  # every list probed: exact
    ivf.build(np.arange(1_000), x)
    everything = np.ones(1_000, dtype=bool)
    q = x[0]
    ivf.set(np.array([500, 999]), np.stack([q, -q]))  # 500 now points at q; 999 away from it
    top = ivf.search(q, 3, everything).tolist()
    assert top[:2] == [0, 500] or top[:2] == [500, 0]
    assert 999 not in ivf.search(q, 1_000, everything).tolist()[:900]
    ivf.remove(np.array([500]))
    assert 500 not in ivf.search(q, 1_000, everything).tolist()
    assert len(ivf) == 999
    assert not ivf.stale
    ivf.set(np.arange(1_000, 2_001), _clustered(rng, 1_001, 16, 20))  # more added than trained on
    assert ivf.stale


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        RowIVF(8, list_size=0)
