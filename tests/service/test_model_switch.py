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
        assert not caplog.records
        with Deduper.open(db, model=Letters("letters-b"), config=config) as d:
            assert d.stats()["vector_index"] == 0  # as before: not searched by the embedding stage
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["the store's documents were embedded with letters-a, not letters-b: the embedding stage "
                        "cannot find them (translations and paraphrases of them are missed); open the store with "
                        "that model"]
