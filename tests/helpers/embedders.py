"""Stand-in embedders for tests that need vectors but no model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Counting:
    """A deterministic fake model that records every text it is asked to embed."""

    name = "counting"
    dim = 4

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str], *, kind: str = "passage", batch_size: int = 64) -> np.ndarray:
        self.seen.extend(texts)
        rng = [np.random.default_rng(abs(hash((kind, t))) % 2**32).normal(size=4) for t in texts]
        v = np.array(rng, dtype=np.float32).reshape(len(texts), 4)
        return v / np.linalg.norm(v, axis=1, keepdims=True)
