"""Issue 3: only survivors of the cheap passes are embedded, and translations end in one cluster."""

from __future__ import annotations

import shutil

import pytest

from models.registry import load_embedder
from service.config import EngineConfig
from service.engine import Deduper
from service.store import open_store
from service.types import Article

KO = "삼성전자, 3분기 영업이익 사상 최대"
EN = "Samsung Electronics posts record third-quarter operating profit"


@pytest.fixture(scope="module")
def use():
    return load_embedder("use", cache_size=0)


def engine(use):
    # The stage on its own: the pair verifier (on by default) is tested in test_verifier_engine.py.
    return Deduper(open_store(":memory:"), embedder=use, config=EngineConfig.of(verifier=False))


@pytest.mark.parametrize("first, second", [(KO, EN), (EN, KO)])
def test_translation_joins_cluster_in_either_order(use, first, second):
    d = engine(use)
    a = d.ingest(Article(title=first, url="https://a.example/1"))
    b = d.ingest(Article(title=second, url="https://b.example/1"))
    assert b.status == "duplicate" and b.cluster_id == a.cluster_id
    assert b.decision.stage == "embedding" and b.decision.score >= d.config.copy.embedding_threshold


def test_same_language_rewording_missed_by_ngrams_is_caught(use):
    d = engine(use)
    a = d.ingest(Article(title="Apple unveils new iPhone with faster chip and better camera"))
    b = d.ingest(Article(title="New iPhone from Apple gets a faster chip and an improved camera"))
    assert b.decision.scores.get("ngram", 0.0) < d.config.copy.ngram_threshold
    assert b.status == "duplicate" and b.decision.stage == "embedding" and b.cluster_id == a.cluster_id


def test_unrelated_items_stay_apart(use):
    d = engine(use)
    a = d.ingest(Article(title=KO))
    b = d.ingest(Article(title="서울 아침 최저기온 영하 10도, 올겨울 들어 가장 추워"))
    assert b.status == "new" and b.cluster_id != a.cluster_id


def test_items_settled_early_are_never_embedded(use):
    d = engine(use)
    d.ingest(Article(title=KO, url="https://a.example/1"))
    calls = d.ctx.counters["encoder_texts"]
    d.ingest(Article(title=KO, url="https://a.example/1"))  # re-observation: url stage
    d.ingest(Article(title=KO + " - 한국경제", url="https://b.example/1"))  # exact title after suffix strip
    d.ingest(Article(title="삼성전자 3분기 영업이익 사상최대", url="https://c.example/1"))  # ngram
    assert d.ctx.counters["encoder_texts"] == calls
    d.ingest(Article(title=EN, url="https://d.example/1"))  # needs the embedding stage
    assert d.ctx.counters["encoder_texts"] == calls + 1
    assert d.stats()["counters"]["stage_embedding"] >= 1


def test_batch_ingest_embeds_only_survivors(use):
    d = engine(use)
    batch = [Article(title=KO), Article(title=KO), Article(title=KO.replace(" ", "")), Article(title=EN)]
    results = d.ingest_many(batch)
    assert len({r.cluster_id for r in results}) == 1
    # KO is the first of its kind and EN has no cheap match: two texts embedded, not four.
    assert d.ctx.counters["encoder_texts"] == 2


def test_vector_index_is_persisted_next_to_the_store_and_rebuilt_when_stale(use, tmp_path):
    db = f"sqlite:///{tmp_path}/s.db"
    d = Deduper(open_store(db), embedder=use)
    d.ingest(Article(title=KO, url="https://a.example/1"))
    d.close()
    assert (tmp_path / "s.db.faiss").exists()
    d2 = Deduper(open_store(db), embedder=use)
    assert d2.restart.warmup_report["vector_index"] == "file"
    r = d2.ingest(Article(title=EN, url="https://b.example/1"))
    assert r.status == "duplicate" and r.decision.stage == "embedding"
    # A crash leaves both files behind the store: the next start loads them and replays the
    # changes since (the new document, stored vector included, and the cluster it joined).
    d2.store.close()
    shutil.copy(tmp_path / "s.db", tmp_path / "crashed.db")
    d3 = Deduper(open_store(db), embedder=use)
    assert d3.restart.warmup_report["vector_index"] == "file" and d3.restart.warmup_report["replayed"] == 2
    later = Article(title="Samsung reports all-time high operating profit in the third quarter", url="https://c.example/1")
    r3 = d3.ingest(later)
    assert r3.cluster_id == r.cluster_id
    d3.close()
    # Without the files the same store is rebuilt from its stored vectors, to the same decision.
    d4 = Deduper(open_store(f"sqlite:///{tmp_path}/crashed.db"), embedder=use)
    assert d4.restart.warmup_report["vector_index"] == "store" and d4.restart.warmup_report["state"] == "store"
    assert d4.ingest(later).cluster_id == r.cluster_id
    d4.close()


def test_cosine_scorer_is_the_default(use):
    assert Deduper(open_store(":memory:"), embedder=use).ctx.scorer.name == "cosine"


def test_stateless_dedupe_embeds_only_what_the_cheap_passes_leave(use):
    d = engine(use)
    texts = [KO, KO, "삼성전자 3분기 영업이익 사상최대", EN, "서울 아침 최저기온 영하 10도"]
    res = d.dedupe(texts, kind="headline")  # headlines: the headline cascade
    assert res.keep == [0, 4]
    assert res.clusters == [[0, 1, 2, 3], [4]]
    assert d.ctx.counters["encoder_texts"] == 3  # KO, EN and the weather line; the copies never reach the model
    assert d.store.counts()["documents"] == 0  # stateless
    stricter = res.rethreshold(0.99)
    assert [3] in stricter.clusters  # the translation was an embedding-stage merge
