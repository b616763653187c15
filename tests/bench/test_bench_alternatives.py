"""The benchmark's alternatives run for real on a handful of items (no eval data needed)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out

ITEMS = [
    ("Fed raises interest rates by 25 basis points", "en"),
    ("Samsung Electronics posts record third-quarter profit", "en"),
    ("Fed raises interest rates by 25 basis points", "en"),  # an identical copy
    ("Heavy rain floods roads in Seoul", "en"),
]


@pytest.fixture(scope="module")
def use():
    from models.use import USEEmbedder

    return USEEmbedder()


def test_semhash_with_samestorys_encoder_groups_the_copy(use) -> None:
    pytest.importorskip("semhash", reason="the bench extra (semhash) is not installed")
    from bench.alternatives import semhash_dedupe

    labels = semhash_dedupe(ITEMS, use, 0.9)
    assert labels[2] == labels[0] == 0
    assert len({labels[0], labels[1], labels[3]}) == 3


def test_seed001_groups_the_identical_copy_only() -> None:
    from bench.alternatives import seed001

    labels = seed001(ITEMS)
    assert labels[2] == labels[0]
    assert len({labels[0], labels[1], labels[3]}) == 3


def test_embed_all_groups_the_copy_and_reports_progress_per_batch(use) -> None:
    from bench.alternatives import embed_all

    done: list[int] = []
    labels, texts = embed_all(ITEMS, use, 0.9, batch_size=2, progress=done.append)
    assert labels[2] == labels[0] == 0 and len({labels[0], labels[1], labels[3]}) == 3
    assert texts == 4 and done == [2, 4]


def test_the_encoder_limit_is_measured_on_the_texts_the_engine_sent(use) -> None:
    from bench.harness import RecordingEmbedder, measure_encoder

    rec = RecordingEmbedder(use)
    assert rec.encode([t for t, _ in ITEMS[:2]]).shape == (2, use.dim)
    assert rec.texts == [ITEMS[0][0], ITEMS[1][0]] and rec.name == use.name and rec.dim == use.dim
    out = measure_encoder(use, rec.texts * 3, call_size=4, window=2)
    assert out["texts"] == 6 and out["texts_per_s"] > 0
    assert [w["stored"] for w in out["windows"]] == [4, 6]
