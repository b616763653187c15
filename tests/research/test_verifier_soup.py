"""The weight average of verifier artefacts: the mean of each tensor, the parts named in the meta."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.verifier_train import write_artefact
from research.verifier_soup import main, soup


def _artefact(path: Path, value: float, seed: int) -> Path:
    meta = {"format": 1, "layers": 1, "threshold": 0.9, "trained": {"seed": seed, "steps": 10, "continues": [{"x": 1}]}}
    return write_artefact(path, {"w": np.full((2, 3), value), "b": np.arange(3) * value}, meta)


def test_soup_is_the_mean_of_each_tensor_with_the_parts_in_the_meta(tmp_path: Path) -> None:
    a, b = _artefact(tmp_path / "a.npz", 1.0, 1), _artefact(tmp_path / "b.npz", 2.0, 2)
    tensors, meta = soup([a, b])
    assert np.allclose(tensors["w"], 1.5) and np.allclose(tensors["b"], [0, 1.5, 3])
    assert tensors["w"].dtype == np.float16
    assert [p["artefact"] for p in meta["trained"]["soup"]] == ["a.npz", "b.npz"]
    assert [p["seed"] for p in meta["trained"]["soup"]] == [1, 2]
    assert meta["threshold"] == 0.9 and meta["layers"] == 1
    assert main([str(tmp_path / "m.npz"), str(a), str(b)]) == 0
    with np.load(tmp_path / "m.npz") as z:
        assert np.allclose(z["w"], 1.5)
        assert json.loads(str(z["meta"]))["trained"]["soup"][1]["artefact"] == "b.npz"


def test_soup_refuses_artefacts_of_other_shapes(tmp_path: Path) -> None:
    a = _artefact(tmp_path / "a.npz", 1.0, 1)
    c = write_artefact(tmp_path / "c.npz", {"w": np.ones((2, 3))}, {"trained": {}})
    with pytest.raises(ValueError, match="other tensors"):
        soup([a, c])
