"""research/guard_ablation.py: which guard-vetoed pairs the verifier would have merged, by guard."""

from __future__ import annotations

import numpy as np

from research.guard_ablation import ablate
from service.cascade import Cascade
from service.config import EngineConfig


class Stub:
    """P(same) from a table of (first, second) texts in the engine's reading order."""

    def __init__(self, table: dict[tuple[str, str], float]) -> None:
        self.table = table

    def score(self, a: list[str], b: list[str]) -> np.ndarray:
        return np.array([self.table[(x, y)] for x, y in zip(a, b, strict=True)], dtype=np.float32)


def _row(i: str, a: str, b: str, label: int) -> dict:
    return {"id": i, "a": {"text": a, "lang": "en"}, "b": {"text": b, "lang": "en"}, "label": label}


def test_only_pairs_the_guards_alone_kept_apart_count_and_the_verifier_decides_them() -> None:
    rows = {r["id"]: r for r in (
        _row("1", "Fed raises rates", "Fed raises rates again", 1),   # who alone, P 0.9: a copy found
        _row("2", "Fed cuts rates", "Fed raises rates", 0),            # polarity alone, P 0.1: still apart
        _row("3", "Fed cuts rates by 1", "Fed cuts rates by 2", 0),    # number and time: not counted
        _row("4", "Fed holds", "Fed holds!", 0))}                      # merged already: not counted
    preds = [
        {"id": "1", "same": False, "stage": "ngram", "blocked_by": ["who"], "scores": {}},
        {"id": "2", "same": False, "stage": "ngram", "blocked_by": ["polarity"], "scores": {}},
        {"id": "3", "same": False, "stage": "ngram", "blocked_by": ["number", "time"], "scores": {}},
        {"id": "4", "same": True, "stage": "exact", "blocked_by": [], "scores": {}}]
    stub = Stub({("Fed raises rates", "Fed raises rates again"): 0.9, ("Fed cuts rates", "Fed raises rates"): 0.1})
    # the engine's thresholds: merge 0.5, rescue 0.6, embedding 0.625 (USE)
    cascade = Cascade(EngineConfig().for_model("use-multilingual-v3"), None, verifier=stub)
    out = ablate(rows, preds, cascade)
    assert dict(out["who"]) == {"vetoed_pos": 1, "tp_gain": 1}
    assert dict(out["polarity"]) == {"vetoed_neg": 1}
    assert set(out) == {"who", "polarity"}
