"""A store reopened with another encoder says that its documents' vectors are not this model's
(the eighth new user's tour): the embedding stage cannot find them, and nothing else told."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pytest

from models.base import check_texts, l2_normalize
from service import Deduper, EngineConfig


class Letters:
    """A tiny encoder of one's own through the documented protocol: letter counts."""

    dim = 26

    def __init__(self, name: str) -> None:
        self.name = name

    def encode(self, texts: Sequence[str], *, kind: str = "passage", batch_size: int = 64) -> np.ndarray:
        rows = np.zeros((len(check_texts(texts)), self.dim), np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                if "a" <= ch <= "z":
                    rows[i, ord(ch) - 97] += 1
        return l2_normalize(rows)


def test_reopening_with_another_model_warns_once_and_the_same_model_not(tmp_path, caplog: pytest.LogCaptureFixture) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    config = EngineConfig.of(embedding_threshold=0.9)
    with Deduper.open(db, model=Letters("letters-a"), config=config) as d:
        d.ingest({"title": "Incheon airport opens fourth runway", "url": "https://a.example/1"})
    with caplog.at_level(logging.WARNING, logger="samestory"):
        with Deduper.open(db, model=Letters("letters-a"), config=config) as d:
            assert d.stats()["vector_index"] == 1
        # INFO records may pass too where an earlier test in this worker set samestory.engine's level
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        with Deduper.open(db, model=Letters("letters-b"), config=config) as d:
            assert d.stats()["vector_index"] == 0  # as before: not searched by the embedding stage
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["the store's documents were embedded with letters-a, not letters-b: the embedding stage "
                        "cannot find them (translations and paraphrases of them are missed); open the store with "
                        "that model"]


def test_the_warning_is_not_repeated_by_replays_of_another_writers_changes(tmp_path,
                                                                           caplog: pytest.LogCaptureFixture) -> None:
    """Each replay of another writer's changes read them again and warned again (the warm-up's
    chunks of 2,000 as well): one line per write of a long-running worker."""
    db = f"sqlite:///{tmp_path / 's.db'}"
    config = EngineConfig.of(embedding_threshold=0.9)
    with Deduper.open(db, model=Letters("letters-a"), config=config) as d:
        d.ingest({"title": "Incheon airport opens fourth runway", "url": "https://a.example/1"})
    with caplog.at_level(logging.WARNING, logger="samestory"), \
            Deduper.open(db, model=Letters("letters-b"), config=config) as b, \
            Deduper.open(db, model=Letters("letters-a"), config=config) as a:
        for i, (ta, tb) in enumerate([("Volcano erupts in Iceland", "Fed holds rates steady"),
                                      ("Rain expected in Busan tomorrow", "Seoul stocks close higher")]):
            a.ingest({"title": ta, "url": f"https://a.example/a{i}"})
            b.ingest({"title": tb, "url": f"https://b.example/b{i}"})
    said = [r.getMessage().split(":")[0] for r in caplog.records if r.levelno == logging.WARNING]
    assert said == ["the store's documents were embedded with letters-a, not letters-b",
                    "the store's documents were embedded with letters-b, not letters-a"]
