"""Stand-ins for the engine's encoder and pair verifier, so that every cosine and probability in a
test is fixed (tests/service/test_verifier_engine.py, test_anchored_rescue.py).

``TableEmbedder`` reads :data:`VECTORS`, a table the test modules fill with their texts (any other
text gets a vector of its own, nearly orthogonal to the rest); ``FakeVerifier`` is a
``PairVerifierLike`` whose P comes from a table of unordered pairs.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

DIM = 16
# text -> unit vector; shared by the modules that use TableEmbedder (distinct texts each)
VECTORS: dict[str, np.ndarray] = {}


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def other_vector(text: str) -> np.ndarray:
    """A vector of its own for any text not in the table (nearly orthogonal to the rest)."""
    v = np.random.default_rng(zlib.crc32(text.encode())).normal(size=DIM)
    v[:3] = 0.0
    return unit(v)


class TableEmbedder:
    name = "table"
    dim = DIM

    def encode(self, texts: Sequence[str], **kwargs: object) -> np.ndarray:
        return np.stack([VECTORS.get(t.strip(), other_vector(t.strip())) for t in texts]).reshape(len(texts), DIM)


class FakeVerifier:
    """P(same) from a table of unordered pairs (``default`` otherwise); records every call."""

    def __init__(self, table: dict[frozenset[str], float] | None = None, default: float = 0.99,
                 threshold: float = 0.5) -> None:
        self.table, self.default, self._threshold = table or {}, default, threshold
        self.calls: list[list[tuple[str, str]]] = []

    @property
    def threshold(self) -> float:
        return self._threshold

    def score(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        self.calls.append(list(zip(a, b, strict=True)))
        return np.array([self.table.get(frozenset((x, y)), self.default) for x, y in zip(a, b, strict=True)],
                        dtype=np.float32)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [p for call in self.calls for p in call]
