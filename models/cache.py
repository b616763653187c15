"""A bounded LRU in front of any embedder, keyed by ``(kind, text)``: the exact text the model sees.

News feeds repeat themselves: the same headline arrives from many outlets, re-crawls and
updates, and each exact repeat is embedded once. Case and spacing variants are *not* folded
together: the model does not see them alike (USE gives cosine 0.27 between a headline and its
ALL-CAPS form), so a cache that handed back the first-seen variant's vector made decisions
depend on arrival order (issue 17: the Fed / 연준 pair fell from 0.48 to 0.16 once the caps form
had been seen). Exact repeats are the bulk of a feed's repeats; the exact-hash stage settles
case variants before the embedding stage anyway.

>>> import numpy as np
>>> class Len:
...     name, dim = "len", 2
...     def encode(self, texts, *, kind="passage", batch_size=64):
...         return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
>>> emb = CachedEmbedder(Len(), maxsize=10)
>>> _ = emb.encode(["Fed raises rates", "Fed raises rates", "FED  raises rates!"])
>>> emb.calls, emb.hits
(2, 1)
>>> _ = emb.encode(["FED  raises rates!"])
>>> emb.calls, emb.hits
(2, 2)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from cachetools import LRUCache

from models.base import Embedder, Kind, check_batch_size, check_kind, check_texts, l2_normalize
from models.shared_cache import SharedVectorCache


class CachedEmbedder:
    """LRU-cached wrapper; same ``name``/``dim`` as the wrapped embedder.

    Counters: ``calls`` is the number of texts actually sent to the inner model, ``hits``
    the number served without it (from the cache or as a duplicate within one call).

    A vector returned for a text is always the model's vector of that very text, so the
    decisions made with it do not depend on which variants were seen before.
    """

    def __init__(self, inner: Embedder, maxsize: int = 50_000, *, shared: SharedVectorCache | None = None) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be a positive int, got {maxsize!r}")
        if isinstance(inner, CachedEmbedder):
            raise ValueError("inner is already a CachedEmbedder; wrapping twice would double the memory")
        self.inner = inner
        self.name: str = inner.name
        self.dim: int = inner.dim
        self.maxsize = maxsize
        self.calls = 0
        self.hits = 0
        # Second level, shared with other processes (models.shared_cache): read for the keys the
        # LRU misses, written with what the model embeds. Its hits count in ``hits`` too.
        self.shared = shared
        # cachetools' LRU: ``get`` and assignment mark a key most recent, assignment past
        # ``maxsize`` evicts the least recent. It is not thread-safe by itself: ``_lock`` guards it.
        self._lru: LRUCache[tuple[str, str], np.ndarray] = LRUCache(maxsize)
        # Held only around dictionary work, never while the model runs, so concurrent callers
        # still overlap their model time (at worst a text in flight twice is embedded twice).
        self._lock = threading.Lock()

    @staticmethod
    def key(text: str, kind: Kind = "passage") -> tuple[str, str]:
        """The cache key of ``text``: the text itself, as the model will see it.

        >>> CachedEmbedder.key("Fed: Rate +0.25%!")
        ('passage', 'Fed: Rate +0.25%!')
        >>> CachedEmbedder.key("FED: RATE +0.25%!") == CachedEmbedder.key("Fed: Rate +0.25%!")
        False
        """
        return (kind, text)

    def __len__(self) -> int:
        return len(self._lru)

    def clear(self) -> None:
        """Drop every cached vector (counters are kept)."""
        with self._lock:
            self._lru.clear()

    def forget(self, texts: Iterable[str], match: Callable[[str], bool] | None = None) -> int:
        """Drop the vectors of these exact texts (both kinds) and of every cached text ``match``
        accepts, here and in the shared cache (erasure: ``Deduper.delete_document(id, erase=True)``).
        Returns how many local entries went; counters are kept.

        >>> import numpy as np
        >>> class Len:
        ...     name, dim = "len", 2
        ...     def encode(self, texts, *, kind="passage", batch_size=64):
        ...         return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
        >>> emb = CachedEmbedder(Len())
        >>> _ = emb.encode(["Fed raises rates", "Fed raises rates. Body", "ECB holds"])
        >>> emb.forget(["Fed raises rates"], match=lambda t: t.startswith("Fed")), len(emb)
        (2, 1)
        """
        kinds: tuple[Kind, ...] = ("passage", "query")
        exact = {self.key(t, k) for t in texts for k in kinds}
        with self._lock:
            gone = [k for k in self._lru if k in exact or (match is not None and match(k[1]))]
            for k in gone:
                del self._lru[k]
        if self.shared is not None:
            delete = getattr(self.shared, "delete_many", None)
            if delete is not None:
                delete(sorted(exact | set(gone)))
        return len(gone)

    def encode(self, texts: Sequence[str], *, kind: Kind = "passage", batch_size: int = 64) -> np.ndarray:
        """Embed ``texts``, sending each distinct uncached key to the inner model once."""
        items = check_texts(texts)
        check_kind(kind)
        check_batch_size(batch_size)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        keys = [self.key(t, kind) for t in items]
        todo: dict[tuple[str, str], list[int]] = {}
        with self._lock:
            for i, k in enumerate(keys):
                vec = self._lru.get(k)
                if vec is not None:
                    out[i] = vec
                    self.hits += 1
                elif k in todo:
                    todo[k].append(i)
                    self.hits += 1
                else:
                    todo[k] = [i]
        if todo and self.shared is not None:
            found = self.shared.get_many(list(todo))
            got = {k: v for k, v in zip(list(todo), found, strict=True) if v is not None}
            if got:
                with self._lock:
                    for k, vec in got.items():
                        rows = todo.pop(k)
                        out[rows] = vec
                        self.hits += 1
                        self._remember(k, vec)
        if todo:
            first = [items[rows[0]] for rows in todo.values()]
            vecs = l2_normalize(self.inner.encode(first, kind=kind, batch_size=batch_size))
            with self._lock:
                self.calls += len(first)
                for (k, rows), vec in zip(todo.items(), vecs, strict=True):
                    out[rows] = vec
                    self._remember(k, vec)
            if self.shared is not None:
                self.shared.set_many(list(zip(todo, vecs, strict=True)))
        return out

    def cached(self, texts: Sequence[str], kind: Kind = "passage") -> dict[str, np.ndarray]:
        """The vectors this cache holds of ``texts`` (the local LRU only), counted as hits; the
        rest go to the model through :meth:`remember_many` (``service.ahead``)."""
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for t in texts:
                vec = self._lru.get(self.key(t, kind))
                if vec is not None and t not in out:
                    out[t] = vec
                    self.hits += 1
        return out

    def remember_many(self, texts: Sequence[str], vectors: np.ndarray, kind: Kind = "passage") -> np.ndarray:
        """Keep the inner model's ``vectors`` of ``texts`` (distinct, none cached), as ``encode``
        would have, and return them as ``encode`` would have (L2-normalised here)."""
        vecs = l2_normalize(vectors)
        keys = [self.key(t, kind) for t in texts]
        with self._lock:
            self.calls += len(texts)
            for k, vec in zip(keys, vecs, strict=True):
                self._remember(k, vec)
        if self.shared is not None:
            self.shared.set_many(list(zip(keys, vecs, strict=True)))
        return vecs

    def _remember(self, key: tuple[str, str], vec: np.ndarray) -> None:
        """Put ``vec`` in the LRU (caller holds the lock), evicting the least recently used."""
        # A private read-only copy: callers may mutate the array they get back.
        stored = np.array(vec, dtype=np.float32, copy=True)
        stored.flags.writeable = False
        self._lru[key] = stored

    def __repr__(self) -> str:
        shared = f", shared={self.shared!r}" if self.shared is not None else ""
        return (f"CachedEmbedder({self.inner!r}, size={len(self)}/{self.maxsize}, calls={self.calls}, "
                f"hits={self.hits}{shared})")
