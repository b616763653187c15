"""bench/story_index.py: the cached vectors, the copy-level recall shadow and the decision comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.story_index import CachedEmbedder, Timed, VectorShadow, compare
from index.vectors import VectorIndex


class _Toy:
    name, dim = "toy", 4

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: list[str], *, kind: str = "passage", batch_size: int = 64) -> np.ndarray:
        self.calls += len(texts)
        out = np.array([[len(t), t.count("a"), 1.0, float(kind == "query")] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_the_cache_serves_every_text_once_and_survives_a_restart(tmp_path: Path) -> None:
    toy = _Toy()
    path = tmp_path / "v.npz"
    cached = CachedEmbedder(toy, path)
    first = cached.encode(["abc", "aa", "abc"])
    assert toy.calls == 2 and cached.dim == 4
    cached.save()
    again = CachedEmbedder(_Toy(), path)
    assert np.array_equal(again.encode(["abc", "aa", "abc"]), first)
    assert again._embedder.calls == 0
    assert cached.encode([]).shape == (0, 4)


def test_the_shadow_measures_recall_past_the_flat_stage_and_restores_the_index() -> None:
    search = Timed(VectorIndex, "search")
    shadow = VectorShadow(search, floor=0.5)
    try:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((300, 16)).astype(np.float32)
        idx = VectorIndex(16, exact_until=100)
        idx.add(np.arange(300), x, np.zeros(300))
        idx.remove([5])
        assert idx.kind == "hnsw"
        for q in x[:20]:
            hits = idx.search(q, 5, window=(0.0, 1.0))[0]
            assert 5 not in {i for i, _ in hits}
        fig = shadow.figures()
        assert fig["calls"] == 20 and fig["recall_at_k"] is not None and fig["recall_at_k"] > 0.9
        assert fig["above_floor"] >= 19  # each stored query finds itself (cosine 1) above the floor
    finally:
        shadow.restore()
        search.restore()
    assert VectorIndex.add.__qualname__ == "VectorIndex.add"
    assert VectorIndex.search.__qualname__ == "VectorIndex.search"


def test_compare_counts_items_and_pairs_apart() -> None:
    a = {"decisions": [(1, 10, "new", "x"), (1, 10, "duplicate", "exact"), (2, 11, "new", "x")],
         "final_story": [10, 10, 11]}
    b = {"decisions": [(1, 10, "new", "x"), (1, 12, "duplicate", "exact"), (2, 11, "new", "x")],
         "final_story": [10, 10, 11]}
    got = compare(a, b)
    assert got["identical"] is False and got["items_differing"] == 1
    assert got["copy_pair_agreement"] == 1.0 and got["final_story_pair_agreement"] == 1.0
    assert abs(got["story_pair_agreement"] - 2 / 3) < 1e-9


def test_the_sampler_keeps_each_windows_stacks_and_the_table_folds_them() -> None:
    import time

    from bench.stack_table import table
    from bench.story_index import Sampler

    sampler = Sampler(0.001, keep_stacks=True)
    try:
        for _ in range(2):
            end = time.process_time() + 0.05
            while time.process_time() < end:
                pass
            sampler.take()
    finally:
        sampler.stop()
    assert len(sampler.windows) == 2 and all(sum(w.values()) > 0 for w in sampler.windows)
    lines = table([{"stored": 1, "cpu_ms_per_item": 2.0}, {"stored": 2, "cpu_ms_per_item": 4.0}],
                  sampler.windows, None, 500)
    assert lines[0].split()[1:] == ["1", "2"]
    assert "test_the_sampler_keeps_each_windows_stacks_and_the_table_folds_them" in "\n".join(lines)
