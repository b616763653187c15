"""A second-level embedding cache that several samestory processes share (Redis).

The local LRU (``models.cache.CachedEmbedder``) saves an encoder call when one process sees a
text again. Many collectors on one PostgreSQL store see the *same* syndicated headline too, each
in its own process, and each would embed it: with a shared cache the first one does, the others
read the vector. It also serves a fleet of API replicas answering RAG ``/v1/dedupe`` calls over
the same popular chunks.

Keys are ``<prefix>:<model name>:<dim>:<kind>:exact:<sha1 of the exact text>``, so two models (or two
dimensions of one name) never read each other's vectors; values are the float32 bytes of the
L2-normalised vector, with a time to live (``ttl_s``). The cache is an accelerator and never a
source of truth: a value of the wrong length is a miss, and an unreachable or failing server
makes every lookup a miss (and every write a no-op) for ``retry_s`` seconds, logged once, so an
outage of the cache slows ingestion down to the encoder's pace but never fails it.

Back-ends are chosen by :func:`open_shared_cache` from a URL: ``redis://``, ``rediss://`` or
``unix://`` (the ``redis`` extra: ``pip install 'samestory[redis]'``).

>>> open_shared_cache(None, "use-multilingual-v3", 512) is None
True
>>> open_shared_cache("memcached://x", "m", 4)
Traceback (most recent call last):
...
ValueError: unsupported embedding cache URL 'memcached://x': use redis://, rediss:// or unix://
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

log = logging.getLogger("samestory.models")

__all__ = ["DEFAULT_TTL_S", "RedisVectorCache", "SharedVectorCache", "open_shared_cache"]

#: How long a shared vector lives. News repeats within days (the engine's candidate window is 7
#: days), so 7 days keeps every re-sent headline's vector while bounding the server's memory.
DEFAULT_TTL_S = 7 * 86_400
#: After a server error, how long lookups skip the server before trying again.
DEFAULT_RETRY_S = 30.0


class SharedVectorCache(Protocol):
    """What ``CachedEmbedder`` needs of a shared cache: batched get and set by cache key."""

    def get_many(self, keys: Sequence[tuple[str, str]]) -> list[np.ndarray | None]: ...

    def set_many(self, items: Sequence[tuple[tuple[str, str], np.ndarray]]) -> None: ...


class RedisVectorCache:
    """Vectors of one model in Redis (``MGET`` to read, one pipelined ``SET ... EX`` to write).

    ``client`` is a ``redis.Redis`` (or anything with ``mget`` and ``pipeline``); use
    :func:`open_shared_cache` to build one from a URL. Counters: ``hits``, ``misses``,
    ``errors`` (server failures, each followed by ``retry_s`` seconds without the server).
    """

    def __init__(self, client: Any, model_name: str, dim: int, *, prefix: str = "samestory:emb",
                 ttl_s: int = DEFAULT_TTL_S, retry_s: float = DEFAULT_RETRY_S) -> None:
        if not model_name:
            raise ValueError("model_name must be a non-empty str: it keeps two models' vectors apart")
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise ValueError(f"dim must be a positive int, got {dim!r}")
        if isinstance(ttl_s, bool) or not isinstance(ttl_s, int) or ttl_s < 1:
            raise ValueError(f"ttl_s must be a positive int (seconds), got {ttl_s!r}")
        if retry_s < 0:
            raise ValueError(f"retry_s must be >= 0, got {retry_s!r}")
        self.client = client
        self.model_name = model_name
        self.dim = dim
        self.ttl_s = ttl_s
        self.retry_s = retry_s
        self._namespace = f"{prefix}:{model_name}:{dim}"
        self._down_until = 0.0
        self.hits = self.misses = self.errors = 0

    def redis_key(self, key: tuple[str, str]) -> str:
        """The server key of a ``CachedEmbedder`` key ``(kind, exact text)``.

        ``exact`` marks the key scheme: keys once made from normalised texts (before issue 17)
        are never read back as the vector of an exact text.

        >>> RedisVectorCache(None, "use", 2).redis_key(("passage", "fed raises rates"))
        'samestory:emb:use:2:passage:exact:456fe4bdb14ee7f06a26aad86ce272c01e33a499'
        """
        kind, text = key
        return f"{self._namespace}:{kind}:exact:{hashlib.sha1(text.encode('utf-8', 'surrogatepass')).hexdigest()}"

    def _available(self) -> bool:
        return time.monotonic() >= self._down_until

    def _failed(self, exc: Exception, what: str) -> None:
        self.errors += 1
        self._down_until = time.monotonic() + self.retry_s
        log.warning("shared embedding cache %s failed (%s: %s); embedding locally for %.0f s",
                    what, type(exc).__name__, exc, self.retry_s)

    def get_many(self, keys: Sequence[tuple[str, str]]) -> list[np.ndarray | None]:
        """One vector or None per key (None for a miss, a malformed value or a server failure)."""
        if not keys:
            return []
        if not self._available():
            self.misses += len(keys)
            return [None] * len(keys)
        try:
            raw = self.client.mget([self.redis_key(k) for k in keys])
        except Exception as exc:  # any client or server failure: the cache only accelerates
            self._failed(exc, "read")
            self.misses += len(keys)
            return [None] * len(keys)
        out: list[np.ndarray | None] = []
        width = self.dim * 4
        for value in raw:
            if isinstance(value, (bytes, bytearray)) and len(value) == width:
                out.append(np.frombuffer(bytes(value), dtype=np.float32).copy())
                self.hits += 1
            else:  # absent, or written by something else: embed it again and overwrite
                out.append(None)
                self.misses += 1
        return out

    def set_many(self, items: Sequence[tuple[tuple[str, str], np.ndarray]]) -> None:
        """Store each (key, vector) with the time to live; a server failure is logged, not raised."""
        if not items or not self._available():
            return
        try:
            pipe = self.client.pipeline(transaction=False)
            for key, vec in items:
                v = np.ascontiguousarray(vec, dtype=np.float32)
                if v.shape != (self.dim,):
                    raise ValueError(f"vector of shape {v.shape} for a {self.dim}-d cache")
                pipe.set(self.redis_key(key), v.tobytes(), ex=self.ttl_s)
            pipe.execute()
        except ValueError:
            raise
        except Exception as exc:
            self._failed(exc, "write")

    def delete_many(self, keys: Sequence[tuple[str, str]]) -> None:
        """Delete these keys' vectors (erasure); a server failure is logged and counted, not raised:
        the vectors then expire with their time to live (``ttl_s``)."""
        if not keys:
            return
        try:
            self.client.delete(*[self.redis_key(k) for k in keys])
        except Exception as exc:  # any client or server failure
            self._failed(exc, "delete")

    def __repr__(self) -> str:
        return (f"RedisVectorCache({self._namespace!r}, hits={self.hits}, misses={self.misses}, "
                f"errors={self.errors})")


def open_shared_cache(url: str | None, model_name: str, dim: int, *, ttl_s: int = DEFAULT_TTL_S,
                      retry_s: float = DEFAULT_RETRY_S, prefix: str = "samestory:emb") -> RedisVectorCache | None:
    """The shared cache named by ``url`` for one model, or None when ``url`` is empty.

    Connecting is lazy (the first lookup connects), so a server that is down at start-up delays
    nothing: lookups miss until it is back.
    """
    if url is None or not url.strip():
        return None
    url = url.strip()
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"unsupported embedding cache URL {url!r}: use redis://, rediss:// or unix://")
    try:
        import redis
    except ImportError as exc:
        raise RuntimeError("a redis:// embedding cache needs the redis client: pip install 'samestory[redis]'") from exc
    # Short timeouts: a slow cache must cost less than the encoder call it would save.
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    return RedisVectorCache(client, model_name, dim, prefix=prefix, ttl_s=ttl_s, retry_s=retry_s)
