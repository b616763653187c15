"""A batch's vectors, embedded ahead of its decisions where the encoder runs in a process of its own.

The cheap stages settle most items of an ingest batch without a vector; the rest
(``Cascade.cheaply_unsettled``) are embedded before the batch is decided. In the engine's own
process that is one call and a wait: nothing is decided until its last vector is done, and the
bundled encoder holds the GIL for most of its time (numpy on small matrices and a Python
tokenizer), so a thread beside the decisions would not overlap with them. With the encoder in a
child process (``operations.encoder_process``, ``models.process``) the batch's texts are sent at
once and come back in small batches, in the items' order, while the engine decides the earlier
items; it waits only when it reaches an item whose vector has not arrived.

>>> import numpy as np
>>> vectors = vectors_ahead(None, lambda texts: np.array([[float(len(t))] for t in texts]), ["a", "bb"])
>>> sorted(vectors), vectors["bb"].tolist()
(['a', 'bb'], [2.0])
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

from models.base import Embedder
from models.cache import CachedEmbedder
from models.process import Streamed


class _Either(Mapping[str, np.ndarray]):
    """The vectors the cache already held, then the ones still coming from the child."""

    def __init__(self, known: dict[str, np.ndarray], coming: Mapping[str, np.ndarray]) -> None:
        self._known, self._coming = known, coming

    def __contains__(self, text: object) -> bool:
        return text in self._known or text in self._coming

    def __getitem__(self, text: str) -> np.ndarray:
        return self._known[text] if text in self._known else self._coming[text]

    def __iter__(self) -> Iterator[str]:
        yield from self._known
        yield from self._coming

    def __len__(self) -> int:
        return len(self._known) + len(self._coming)


def vectors_ahead(embedder: Embedder | None, encode: Callable[[Sequence[str]], np.ndarray],
                  texts: Sequence[str], count: Callable[[int], None] | None = None) -> Mapping[str, np.ndarray]:
    """``texts`` (distinct) and their vectors: streamed from ``embedder``'s child process when
    it runs in one (behind the engine's cache or not; an embedder that streams has ``submit``, as
    ``models.process.ProcessEmbedder``), else ``encode(texts)`` now, in one call. ``count(n)`` is
    told how many texts were sent to the child (the engine's encoder counters)."""
    if not texts:
        return {}
    cache = embedder if isinstance(embedder, CachedEmbedder) else None
    inner = cache.inner if cache is not None else embedder
    submit: Callable[[list[str]], Streamed] | None = getattr(inner, "submit", None)
    if submit is None:
        return dict(zip(texts, encode(texts), strict=True))
    known = cache.cached(texts) if cache is not None else {}
    rest = [t for t in texts if t not in known]
    coming = submit(rest)
    if cache is not None:
        coming.on_batch = cache.remember_many
    if count is not None and rest:
        count(len(rest))
    return _Either(known, coming) if known else coming
