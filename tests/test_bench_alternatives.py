"""The benchmark's alternatives run for real on a handful of items (no eval data needed)."""

from __future__ import annotations

import pytest

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
