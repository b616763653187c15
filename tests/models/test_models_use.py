"""The bundled USE back-end honours the Embedder protocol; length-sorted batching keeps order."""

from __future__ import annotations

import numpy as np
import pytest

from models.base import Embedder, encode_sorted
from models.use import USEEmbedder

TEXTS = [
    "Samsung Electronics posts record third-quarter operating profit",
    "삼성전자, 3분기 영업이익 사상 최대",
    "Fed raises rates",
    "",
    "한국은행 기준금리 동결",
    "The Bank of Korea kept its base rate unchanged on Thursday, citing household debt.",
]


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return USEEmbedder()


def test_protocol_conformance(use: USEEmbedder) -> None:
    assert isinstance(use, Embedder)
    assert use.name == "use-multilingual-v3"
    assert use.dim == 512
    v = use.encode(TEXTS)
    assert v.dtype == np.float32 and v.shape == (len(TEXTS), 512)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert use.encode([]).shape == (0, 512)
    assert use.encode([], kind="query").dtype == np.float32


def test_kind_is_ignored_by_use(use: USEEmbedder) -> None:
    np.testing.assert_array_equal(use.encode(TEXTS[:2], kind="query"), use.encode(TEXTS[:2], kind="passage"))


def test_cross_lingual_sanity(use: USEEmbedder) -> None:
    v = use.encode(["Bank of Korea holds base rate", "한국은행 기준금리 동결", "Apple unveils a new iPhone"])
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_sorted_batching_returns_rows_in_input_order(use: USEEmbedder) -> None:
    one_by_one = np.vstack([use.encode([t]) for t in TEXTS])
    for batch_size in (1, 2, 4, 64):
        np.testing.assert_allclose(use.encode(TEXTS, batch_size=batch_size), one_by_one, atol=1e-5)


def test_encode_sorted_groups_by_length_and_restores_order() -> None:
    seen: list[list[str]] = []

    def fake(batch: list[str]) -> np.ndarray:
        seen.append(batch)
        return np.array([[len(t), 1.0] for t in batch])

    texts = ["aaa", "b", "cccccc", "dd", "eeeee", "f"]
    out = encode_sorted(texts, 2, fake, 2)
    assert seen == [["cccccc", "eeeee"], ["aaa", "dd"], ["b", "f"]]  # longest first, stable
    ratio = out[:, 0] / out[:, 1]
    np.testing.assert_allclose(ratio, [len(t) for t in texts], rtol=1e-5)


def test_encode_sorted_rejects_wrong_shapes() -> None:
    with pytest.raises(RuntimeError, match="shape"):
        encode_sorted(["a", "b"], 8, lambda b: np.zeros((1, 3)), 3)


@pytest.mark.parametrize(("texts", "match"), [
    ("a single string", "not a single str"),
    (["ok", None], r"texts\[1\] must be str, got NoneType"),
    ([b"bytes"], r"texts\[0\] must be str, got bytes"),
    (42, "sequence of str"),
])
def test_bad_texts_raise_precise_value_errors(use: USEEmbedder, texts: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        use.encode(texts)  # type: ignore[arg-type]


def test_bad_kind_batch_size_and_device(use: USEEmbedder) -> None:
    with pytest.raises(ValueError, match="kind must be"):
        use.encode(["x"], kind="document")  # type: ignore[arg-type]
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="batch_size"):
            use.encode(["x"], batch_size=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="CPU-only"):
        USEEmbedder(device="cuda")
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        USEEmbedder(device="gpu")


def test_blas_threads_default_to_one_and_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # One BLAS thread by default: a second one spin-waits on a shared machine (models.use).
    monkeypatch.delenv("SAMESTORY_USE_THREADS", raising=False)
    assert USEEmbedder().threads == 1 and USEEmbedder(threads=2).threads == 2
    monkeypatch.setenv("SAMESTORY_USE_THREADS", "2")
    assert USEEmbedder().threads == 2
    monkeypatch.setenv("SAMESTORY_USE_THREADS", "two")
    with pytest.raises(ValueError, match="SAMESTORY_USE_THREADS"):
        USEEmbedder()
