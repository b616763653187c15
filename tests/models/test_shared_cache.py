"""The embedding cache shared by several processes (models/shared_cache.py), against the real Redis.

Two ``CachedEmbedder`` objects with separate Redis clients stand for two worker processes. Their
fake models give *different* vectors for the same text, so a vector that one worker gets equal to
the other's can only have come through Redis.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pytest

from models.cache import CachedEmbedder
from models.registry import load_embedder
from models.shared_cache import RedisVectorCache, open_shared_cache
from service.config import EngineConfig
from service.engine import Deduper
from service.store import open_store
from service.types import Article


class Worker:
    """A fake model whose vectors depend on the worker's seed: two workers never agree by chance."""

    name = "fake-model"
    dim = 8

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str], *, kind: str = "passage", batch_size: int = 64) -> np.ndarray:
        self.seen.extend(texts)
        rows = [np.random.default_rng([self.seed, len(t), sum(map(ord, t))]).normal(size=self.dim) for t in texts]
        v = np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def _worker(url: str, prefix: str, seed: int, **kw: object) -> CachedEmbedder:
    model = Worker(seed)
    return CachedEmbedder(model, maxsize=100, shared=open_shared_cache(url, model.name, model.dim, prefix=prefix, **kw))


TEXTS = ["Fed raises rates by a quarter point", "연준, 기준금리 0.25%p 인상", "ECB holds rates"]


@pytest.mark.redis
def test_a_second_worker_reads_what_the_first_embedded(redis_prefix: tuple[str, str]) -> None:
    url, prefix = redis_prefix
    a, b = _worker(url, prefix, seed=1), _worker(url, prefix, seed=2)
    va = a.encode(TEXTS)
    assert a.calls == 3 and a.shared is not None and a.shared.misses == 3
    vb = b.encode(list(TEXTS))
    assert b.calls == 0 and b.inner.seen == []  # type: ignore[attr-defined]
    assert np.array_equal(va, vb)
    assert b.shared is not None and b.shared.hits == 3 and b.hits == 3
    # Now in b's own LRU too: no second round trip.
    b.encode(TEXTS[:1])
    assert b.shared.hits == 3 and b.hits == 4


@pytest.mark.redis
def test_models_and_kinds_do_not_share_vectors(redis_prefix: tuple[str, str]) -> None:
    url, prefix = redis_prefix
    a = _worker(url, prefix, seed=1)
    a.encode(TEXTS)
    other = Worker(3)
    other.name = "another-model"
    c = CachedEmbedder(other, maxsize=10, shared=open_shared_cache(url, other.name, other.dim, prefix=prefix))
    c.encode(TEXTS)
    assert c.calls == 3
    b = _worker(url, prefix, seed=2)
    b.encode(TEXTS, kind="query")  # e5's "query: " and "passage: " vectors differ
    assert b.calls == 3


@pytest.mark.redis
def test_values_have_a_ttl_and_a_malformed_one_is_a_miss(redis_prefix: tuple[str, str]) -> None:
    import redis

    url, prefix = redis_prefix
    a = _worker(url, prefix, seed=1, ttl_s=3600)
    a.encode(TEXTS[:1])
    assert isinstance(a.shared, RedisVectorCache)
    key = a.shared.redis_key(CachedEmbedder.key(TEXTS[0]))
    client = redis.Redis.from_url(url)
    assert 0 < client.ttl(key) <= 3600
    client.set(key, b"not a vector")
    b = _worker(url, prefix, seed=2)
    b.encode(TEXTS[:1])
    assert b.calls == 1 and b.shared is not None and b.shared.misses == 1
    assert len(client.get(key)) == 8 * 4  # overwritten with b's vector


def test_an_unreachable_server_slows_down_but_never_fails(caplog: pytest.LogCaptureFixture) -> None:
    model = Worker(1)
    shared = open_shared_cache("redis://127.0.0.1:1/0", model.name, model.dim, retry_s=60.0)
    emb = CachedEmbedder(model, maxsize=10, shared=shared)
    with caplog.at_level(logging.WARNING, logger="samestory.models"):
        v = emb.encode(TEXTS)
    assert v.shape == (3, 8) and emb.calls == 3
    assert shared is not None and shared.errors == 1  # the read failed; the write was skipped
    assert "embedding locally" in caplog.text
    emb.encode(["something new"])  # within retry_s: the server is not tried again
    assert shared.errors == 1 and emb.calls == 4


def test_inputs_are_validated() -> None:
    with pytest.raises(ValueError, match="unsupported embedding cache URL"):
        open_shared_cache("http://127.0.0.1:6379", "m", 4)
    with pytest.raises(ValueError, match="dim must be"):
        RedisVectorCache(None, "m", 0)
    with pytest.raises(ValueError, match="model_name"):
        RedisVectorCache(None, "", 4)
    with pytest.raises(ValueError, match="ttl_s"):
        RedisVectorCache(None, "m", 4, ttl_s=0)
    with pytest.raises(ValueError, match="cache_size must be >= 1"):
        load_embedder("use", cache_size=0, shared_cache="redis://127.0.0.1:6379/0")
    assert open_shared_cache("  ", "m", 4) is None


@pytest.mark.redis
def test_two_engines_decide_alike_and_the_second_embeds_nothing(redis_prefix: tuple[str, str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    url, prefix = redis_prefix
    monkeypatch.setenv("SAMESTORY_EMBEDDING_CACHE", url)
    config = EngineConfig.load(embedding_threshold=0.9)
    assert config.operations.embedding_cache == url
    stream = [Article(title=t, url=f"https://news.example/{i}") for i, t in
              enumerate([*TEXTS, "Samsung posts record profit", "ECB HOLDS RATES"])]
    results, stats = [], []
    for seed in (1, 2):
        engine = Deduper(open_store(":memory:"), embedder=_worker(url, prefix, seed=seed), config=config)
        results.append([(r.status, r.cluster_id, r.decision.stage) for r in engine.ingest_many(stream)])
        stats.append(engine.stats()["embedding_cache"])
        engine.close()
    assert results[0] == results[1]
    assert stats[0]["model_texts"] > 0 and stats[1]["model_texts"] == 0
    assert stats[1]["shared_hits"] == stats[0]["model_texts"]


def test_open_wires_the_configured_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # No server needed: connecting is lazy, and nothing is embedded here.
    monkeypatch.setenv("SAMESTORY_EMBEDDING_CACHE", "redis://127.0.0.1:6379/15")
    engine = Deduper.open(":memory:", model="use")
    try:
        assert isinstance(engine.ctx.embedder, CachedEmbedder)
        assert isinstance(engine.ctx.embedder.shared, RedisVectorCache)
        assert engine.stats()["embedding_cache"] == {"hits": 0, "model_texts": 0, "shared_hits": 0,
                                                     "shared_misses": 0, "shared_errors": 0}
    finally:
        engine.close()


@pytest.mark.redis
def test_metrics_report_the_cache_counts(redis_prefix: tuple[str, str]) -> None:
    from fastapi.testclient import TestClient

    from service.api import Settings, create_app

    url, prefix = redis_prefix
    engine = Deduper(open_store(":memory:"), embedder=_worker(url, prefix, seed=1),
                     config=EngineConfig.of(embedding_threshold=0.9))
    with TestClient(create_app(Settings(db=":memory:", model=None), engine=engine)) as client:
        arts = [{"title": t, "url": f"https://news.example/{i}"} for i, t in enumerate(TEXTS)]
        assert client.post("/v1/articles", json={"articles": arts}).status_code == 200
        text = client.get("/metrics").text
    engine.close()
    assert 'samestory_embedding_cache{count="model_texts"} 3.0' in text
    assert 'samestory_embedding_cache{count="shared_misses"} 3.0' in text
    assert 'samestory_embedding_cache{count="shared_errors"} 0.0' in text
