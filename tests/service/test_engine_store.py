"""Engine behaviour around the store: bad input, warm restart, crash safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service.engine import Deduper
from service.store import open_store
from service.types import Article, ArticleError
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def cheap_engine(db: str = ":memory:") -> Deduper:
    return Deduper(open_store(db), embedder=None)


@pytest.mark.parametrize("kwargs, message", [
    (dict(title="", body=""), "non-empty title or body"),
    (dict(title="   ", body="\n"), "non-empty title or body"),
    (dict(title=123), "title must be a string"),
    (dict(title="ok", url="ftp://x.example/a"), "invalid url"),
    (dict(title="ok", url="not a url"), "invalid url"),
    (dict(title="bad \udcff bytes"), "not valid UTF-8"),
    (dict(title="x" * 10_000_000), "the limit is"),
    (dict(title="ok", published_at="yesterday"), "ISO-8601"),
])
def test_bad_input_is_rejected_and_stores_nothing(kwargs, message):
    engine = cheap_engine()
    with pytest.raises(ArticleError, match=message):
        engine.ingest_many([Article(title="a good item"), {**kwargs}] if "url" not in kwargs else
                           [Article(title="a good item"), Article(**kwargs)])
    assert engine.store.counts()["observations"] == 0


def test_unknown_fields_are_ignored_and_title_or_body_required():
    # The rule of every way in (HTTP's ArticleIn, samestory ingest, samestory batch).
    assert Article.from_dict({"title": "x", "colour": "red"}) == Article(title="x")
    with pytest.raises(ArticleError, match=r"^an article needs a non-empty title or body$"):
        Article.from_dict({"titel": "typo"})


def test_warm_restart_decides_exactly_as_before(tmp_path):
    db = f"sqlite:///{tmp_path}/s.db"
    first = cheap_engine(db)
    r1 = first.ingest(Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://a.example/1"))
    first.close()
    second = cheap_engine(db)
    assert second.restart.warmup_report["documents"] == 1
    r2 = second.ingest(Article(title="진천군 온디바이스 AI기반 스마트돌봄 본격화", url="https://b.example/2"))
    assert r2.status == "duplicate" and r2.cluster_id == r1.cluster_id and r2.decision.stage == "ngram"
    r3 = second.ingest(Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://a.example/1"))
    assert r3.status == "reobserved"
    second.close()


def test_warm_up_is_bounded_in_time(tmp_path):
    db = f"sqlite:///{tmp_path}/s.db"
    e = cheap_engine(db)
    e.ingest_many([Article(title=f"item number {i} about topic {i * 7}") for i in range(50)])
    e.close()
    # the bound is the rebuild's (tests/service/test_snapshot.py: the other path)
    Path(f"{tmp_path}/s.db.state.npz").unlink()
    from service.config import EngineConfig

    bounded = Deduper(open_store(db), embedder=None, config=EngineConfig.of(warmup_timeout_s=0.0))
    assert bounded.restart.warmup_report["timed_out"] is True
    bounded.close()


def test_delete_removes_from_indices_keeps_rows():
    e = cheap_engine()
    r = e.ingest(Article(title="Fed raises rates", url="https://a.example/1"))
    assert e.delete_document(r.document_id)
    again = e.ingest(Article(title="Fed raises rates", url="https://b.example/1"))
    assert again.status == "new"
    assert e.store.get_document(r.document_id).deleted
    assert e.delete_document(r.document_id) is False


@pytest.mark.heavy  # issue 38: many seconds
def test_kill_mid_ingest_keeps_every_acknowledged_item(tmp_path):
    feed = tmp_path / "feed.jsonl"
    items = [{"id": str(i), "title": f"뉴스 {i}: 지역 {i % 17} 소식 {i * 31}", "url": f"https://n.example/{i}"}
             for i in range(400)]
    feed.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8")
    db = f"sqlite:///{tmp_path}/kill.db"
    cmd = [sys.executable, "-m", "service.cli", "ingest", str(feed), "--db", db, "--model", "none", "--json",
           "--chunk-size", "5"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    acked = []
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while len(acked) < 60 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acked.append(json.loads(line))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(acked) >= 60, "the ingest should have acknowledged items before the kill"
    engine = cheap_engine(db)
    by_id = {x["id"]: x for x in items}
    for r in acked:
        doc = engine.store.get_document(r["document_id"])
        assert doc is not None and doc.url == by_id[r["id"]]["url"]
        again = engine.ingest(Article.from_dict(by_id[r["id"]]))
        assert again.status == "reobserved" and again.document_id == r["document_id"]
    engine.close()


def test_memory_is_bounded_by_the_window_store_keeps_everything():
    from service.config import EngineConfig

    e = Deduper(open_store(":memory:"), embedder=None, config=EngineConfig.of(window_days=1))
    old = e.ingest(Article(title="지난달 진천군 스마트돌봄 착수", published_at="2026-10-01T00:00:00Z"))
    e.ingest(Article(title="오늘 증평군 온디바이스 공모 선정", published_at="2026-11-20T00:00:00Z"))
    assert e.copy_level.expire() == 1
    assert old.document_id not in e.ctx.state.entries
    assert e.store.get_document(old.document_id) is not None
    # a copy of the expired item published now is outside the window anyway: a new story
    again = e.ingest(Article(title="지난달 진천군 스마트돌봄 착수", published_at="2026-11-20T01:00:00Z"))
    assert again.status == "new"


def test_config_from_env_is_typed(monkeypatch):
    from service.config import EngineConfig

    monkeypatch.setenv("SAMESTORY_STORY_THRESHOLD", "0.9")
    monkeypatch.setenv("SAMESTORY_EMBEDDING_K", "4")
    monkeypatch.setenv("SAMESTORY_URL_RULES", "/tmp/rules.toml")
    c = EngineConfig.load()
    assert (c.story.threshold, c.copy.embedding_k, c.operations.url_rules) == (0.9, 4, "/tmp/rules.toml")
    monkeypatch.setenv("SAMESTORY_NGRAM_THRESHOLD", "high")
    with pytest.raises(ValueError, match="SAMESTORY_NGRAM_THRESHOLD"):
        EngineConfig.load()


def test_warm_up_restores_bucket_order_so_the_newest_representatives_are_scored(tmp_path):
    db = f"sqlite:///{tmp_path}/s.db"
    e = cheap_engine(db)
    for i in range(5):
        e.ingest(Article(title=f"속보 사건 {i}번째 완전히 다른 소식 {i * 97}", published_at=f"2026-11-2{i}T00:00:00Z"))
    e.close()
    Path(f"{tmp_path}/s.db.state.npz").unlink()  # the rebuild reads newest first; the snapshot keeps order
    again = cheap_engine(db)
    bucket = again.ctx.state.ngram._buckets["속보"]
    times = [again.ctx.state.entries[d].features.time for d in bucket]
    assert times == sorted(times)


def test_embedding_threshold_is_calibrated_per_model():
    from service.config import CALIBRATED_EMBEDDING_THRESHOLDS, EngineConfig

    assert EngineConfig().for_model("use-multilingual-v3").copy.embedding_threshold == 0.625
    assert EngineConfig().for_model("e5-small").copy.embedding_threshold == CALIBRATED_EMBEDDING_THRESHOLDS["e5-small"]
    assert EngineConfig.of(embedding_threshold=0.8).for_model("st:/models/x").copy.embedding_threshold == 0.8
    with pytest.raises(ValueError, match="no calibrated embedding threshold for model 'st:/models/x'"):
        EngineConfig().for_model("st:/models/x")

    class Toy:
        name, dim = "toy", 4

    with pytest.raises(ValueError, match="set embedding_threshold"):
        Deduper(open_store(":memory:"), embedder=Toy())


def test_a_copy_outside_the_window_says_so():
    # Its reason was "no candidate above any stage's threshold", as for an item nothing resembles.
    from service.config import EngineConfig

    e = Deduper(open_store(":memory:"), embedder=None, config=EngineConfig.of(window_days=1))
    e.ingest(Article(title="Fed raises rates by a quarter point", url="https://a.example/1",
                     published_at="2026-01-01T00:00:00Z"))
    late = e.ingest(Article(title="Fed raises rates by a quarter point", url="https://b.example/1",
                            published_at="2026-01-02T12:00:00Z"))
    assert late.status == "new"
    assert late.decision.reasons == ["a candidate outside the window: exact: same normalised title as "
                                     f"document {late.document_id - 1}, 1.5 days apart (window_days 1)"]
    near = e.ingest(Article(title="Fed raises rates by a quarter point, stocks fall", url="https://c.example/1",
                            published_at="2026-01-04T00:00:00Z"))
    assert near.status == "new" and near.decision.reasons[0].startswith(
        "a candidate outside the window: ngram: weighted 3-gram Jaccard ")
    other = e.ingest(Article(title="Quake hits Turkey", url="https://d.example/1", published_at="2026-01-04T01:00:00Z"))
    assert other.decision.reasons == ["no candidate above any stage's threshold"]
    e.close()


def test_deleting_an_aged_out_representative_promotes_a_member_from_the_store():
    # The live members were looked up in memory only: once the copy group had aged out of memory
    # (twice the window behind the newest item), deleting its representative left it with none.
    e = cheap_engine()
    first = e.ingest(Article(title="Fed raises rates by a quarter point", url="https://a.example/1",
                             published_at="2026-01-01T00:00:00Z"))
    copy = e.ingest(Article(title="Fed raises rates by a quarter point", url="https://b.example/1",
                            published_at="2026-01-01T01:00:00Z"))
    assert copy.cluster_id == first.cluster_id and copy.status == "duplicate"
    e.ingest(Article(title="Quake hits Turkey", url="https://c.example/1", published_at="2026-03-01T00:00:00Z"))
    assert e.copy_level.expire() >= 2  # both members are gone from memory, not from the store
    rep = e.store.get_cluster(first.cluster_id).representative_id
    other = ({first.document_id, copy.document_id} - {rep}).pop()
    assert e.delete_document(rep)
    assert e.store.get_cluster(first.cluster_id).representative_id == other


def test_an_archive_out_of_publication_order_keeps_what_its_later_records_can_match(monkeypatch):
    """Eleventh tour: `samestory batch` over an invented 2024-2025 archive, one outlet's file in
    date order and then another's with exact copies of 100 of its reports: 95 of the 100 copies came
    back `new` ("no candidate above any stage's threshold"). Every 5,000 items the engine forgot what
    lay two windows behind the newest item seen (late 2025), though the call still held items of
    2024 to decide. It now forgets only what no item still to come in the call can match."""
    import service.copy_level as copy_level

    monkeypatch.setattr(copy_level, "EXPIRE_EVERY", 4)  # 5,000 items in production
    e = cheap_engine()
    dates = ["2024-01-05", "2024-06-05", "2025-01-05", "2025-06-05"]
    titles = ["청주 공장 화재로 12명 부상", "한국은행, 기준금리 연 3.5%로 동결", "3월 수출 593억달러 증가",
              "LG 트윈스, 두산 베어스에 5-2 승리"]
    archive = [Article(title=t, url=f"https://a.example/{i}", published_at=f"{d}T09:00:00Z")
               for i, (t, d) in enumerate(zip(titles, dates, strict=True))]
    copies = [Article(title=a.title, url=f"https://b.example/{i}", published_at=a.published_at)
              for i, a in enumerate(archive[:2])]
    out = e.ingest_many([*archive, *copies], chunk_size=2)
    assert [r.status for r in out] == ["new"] * 4 + ["duplicate"] * 2
    assert [r.cluster_id for r in out[4:]] == [r.cluster_id for r in out[:2]]
    # between calls the engine knows no item to come: memory is bounded by the window as before
    assert e.copy_level.expire() >= 3
