"""Embedding cache, registry and CLI: everything that needs no torch."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models.base import Embedder
from models.cache import CachedEmbedder
from models.cli import register
from models.registry import default_cache_dir, load_embedder, models_dir
from models.use import USEEmbedder
from tests.helpers.embedders import Counting
from tests.paths import REPO_ROOT

REPO = REPO_ROOT


def test_exact_repeats_are_embedded_once_and_variants_get_their_own_vector() -> None:
    inner = Counting()
    emb = CachedEmbedder(inner, maxsize=100)
    assert isinstance(emb, Embedder) and emb.name == "counting" and emb.dim == 4
    v = emb.encode(["Fed raises rates", "FED  raises rates!", "Fed raises rates", "ECB holds"])
    assert inner.seen == ["Fed raises rates", "FED  raises rates!", "ECB holds"]
    assert (emb.calls, emb.hits) == (3, 1)
    np.testing.assert_array_equal(v[0], v[2])
    assert not np.array_equal(v[0], v[1])
    again = emb.encode(["ECB holds", "ecb holds"])
    assert (emb.calls, emb.hits) == (4, 2)
    np.testing.assert_array_equal(again[0], v[3])


def test_a_variant_gets_the_same_vector_whatever_was_seen_first() -> None:
    """Issue 17: the cache once handed back the first-seen variant's vector, so the vector (and
    every decision made with it) depended on arrival order."""
    texts = ["Fed raises rates", "FED RAISES RATES", "fed  raises rates"]
    seen_first = {}
    for order in (texts, texts[::-1], [texts[1], texts[0], texts[2]]):
        emb = CachedEmbedder(Counting())
        for t in order:
            emb.encode([t])
        out = emb.encode(texts)
        for t, row in zip(texts, out, strict=True):
            expected = Counting().encode([t])[0]
            np.testing.assert_allclose(row, expected, rtol=1e-6)
            seen_first.setdefault(t, row)
            np.testing.assert_array_equal(row, seen_first[t])


def test_kind_is_part_of_the_key() -> None:
    inner = Counting()
    emb = CachedEmbedder(inner)
    emb.encode(["x"], kind="query")
    emb.encode(["x"], kind="passage")
    assert emb.calls == 2 and emb.hits == 0


def test_punctuation_only_texts_do_not_collide() -> None:
    emb = CachedEmbedder(Counting())
    emb.encode(["?!", "..."])
    assert emb.calls == 2


def test_lru_evicts_least_recently_used() -> None:
    inner = Counting()
    emb = CachedEmbedder(inner, maxsize=2)
    emb.encode(["a"])
    emb.encode(["b"])
    emb.encode(["a"])  # refresh a; b is now the oldest
    emb.encode(["c"])  # evicts b
    assert len(emb) == 2
    emb.encode(["a"])
    assert emb.calls == 3
    emb.encode(["b"])
    assert emb.calls == 4


def test_results_do_not_alias_the_cache() -> None:
    emb = CachedEmbedder(Counting())
    first = emb.encode(["x"])
    first[:] = 0
    np.testing.assert_allclose(np.linalg.norm(emb.encode(["x"]), axis=1), 1.0, rtol=1e-6)


def test_cache_matches_uncached_use() -> None:
    use = USEEmbedder()
    cached = CachedEmbedder(use)
    texts = ["삼성전자 실적 발표", "Samsung earnings", "삼성전자 실적 발표"]
    np.testing.assert_allclose(cached.encode(texts), use.encode(texts), atol=1e-6)
    assert cached.calls == 2 and cached.hits == 1
    assert cached.encode([]).shape == (0, 512)


def test_cache_validates_arguments() -> None:
    with pytest.raises(ValueError, match="maxsize"):
        CachedEmbedder(Counting(), maxsize=0)
    emb = CachedEmbedder(Counting())
    with pytest.raises(ValueError, match="already a CachedEmbedder"):
        CachedEmbedder(emb)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a single str"):
        emb.encode("text")
    with pytest.raises(ValueError, match="kind"):
        emb.encode(["x"], kind="doc")  # type: ignore[arg-type]


def test_registry_use_and_errors(tmp_path: Path) -> None:
    emb = load_embedder("use", cache_dir=tmp_path)
    assert isinstance(emb, CachedEmbedder) and emb.name == "use-multilingual-v3" and emb.dim == 512
    assert isinstance(load_embedder("use", cache_size=0), USEEmbedder)
    with pytest.raises(ValueError, match=r"unknown model spec 'labse'; valid: 'use', 'e5-small'"):
        load_embedder("labse")
    with pytest.raises(ValueError, match="unknown model spec 'st:'"):
        load_embedder("st:")
    with pytest.raises(ValueError, match="unknown device"):
        load_embedder("use", device="tpu")
    with pytest.raises(ValueError, match="cache_size"):
        load_embedder("use", cache_size=-1)
    with pytest.raises(ValueError, match="does not exist"):
        load_embedder(f"onnx:{tmp_path / 'missing'}")


def test_default_cache_dir_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SAMESTORY_CACHE", str(tmp_path))
    assert default_cache_dir() == tmp_path
    assert models_dir() == tmp_path / "models"
    monkeypatch.delenv("SAMESTORY_CACHE")
    assert default_cache_dir() == Path.home() / ".cache" / "samestory"


def test_cli_registers_models_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="samestory")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["models", "--cache-dir", str(tmp_path), "build", "e5-small", "--out", "x", "--no-onnx"])
    assert (args.model, args.out, args.no_onnx) == ("e5-small", "x", True)
    args = parser.parse_args(["models", "--cache-dir", str(tmp_path), "list"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "models") in out and "e5-small" in out
    with pytest.raises(SystemExit):
        parser.parse_args(["models", "build", "bge-m3"])


def test_default_install_stays_torch_free() -> None:
    code = ("import sys, models, models.cli, models.registry, models.onnx_backend, models.e5_build;"
            "e = models.load_embedder('use'); e.encode(['x']);"
            "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, timeout=120)
