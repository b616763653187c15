"""The state snapshot (service/snapshot.py): a warm restart that loads what a rebuild would compute.

All texts are invented for these tests.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from service.config import EngineConfig
from service.engine import Deduper
from service.state import CandidateState
from service.store import open_store
from service.types import Article

SUBJECTS = ["진천군", "증평군", "Samsung", "Hyundai", "서울시", "Kakao", "Naver", "부산시", "LG", "SK"]
TOPICS = ["AI 돌봄 사업 착수", "3분기 영업이익 발표", "new battery plant opens", "지하철 요금 인상 검토",
          "cloud outage apology", "반도체 투자 확대", "quarterly dividend raised", "청년 주거 지원 확대"]


def _stream(n: int, seed: int) -> list[Article]:
    """Originals, syndicated copies with outlet suffixes, respaced copies, re-crawls and new versions."""
    rng = random.Random(seed)
    items: list[Article] = []
    for i in range(n):
        roll = rng.random()
        if items and roll < 0.2:
            src = rng.choice(items)
            items.append(Article(title=f"{src.title} - Daily {rng.randint(1, 9)}", body=src.body,
                                 url=f"https://copy{i}.example/n/{i}", published_at=src.published_at))
        elif items and roll < 0.3:
            src = rng.choice(items)
            items.append(Article(title=src.title.replace(" ", "", 1), url=f"https://re{i}.example/{i}",
                                 published_at=src.published_at))
        elif items and roll < 0.35:
            src = rng.choice(items)
            items.append(Article(title=src.title, body=src.body, url=src.url, published_at=src.published_at))
        elif items and roll < 0.4:
            src = rng.choice(items)
            items.append(Article(title=src.title, body=f"{src.body} 정정: {rng.randint(1, 99)}명", url=src.url,
                                 published_at=src.published_at))
        else:
            subject, topic = rng.choice(SUBJECTS), rng.choice(TOPICS)
            day = 20 + rng.randint(0, 6)
            items.append(Article(title=f"{subject} {topic} {rng.randint(1, 500)}",
                                 body=f"{subject} said on day {day} that {topic} affects {rng.randint(2, 900)} people.",
                                 url=f"https://news{i % 7}.example/a/{i}",
                                 published_at=f"2026-11-{day}T0{rng.randint(0, 9)}:00:00Z"))
    return items


def _engine(db: Path, **config: object) -> Deduper:
    return Deduper(open_store(f"sqlite:///{db}"), embedder=None, config=EngineConfig.of(**config))


def _snapshot(db: Path) -> Path:
    return Path(f"{db}.state.npz")


@pytest.fixture()
def stored(tmp_path: Path) -> Path:
    db = tmp_path / "s.db"
    e = _engine(db)
    e.ingest_many(_stream(400, seed=1))
    doomed = next(iter(e.ctx.state.entries))
    assert e.delete_document(doomed)
    e.close()
    assert _snapshot(db).exists()
    return db


def _twins(stored: Path, tmp_path: Path) -> tuple[Deduper, Deduper]:
    """The same store opened twice: once from the snapshot, once rebuilt from the rows."""
    dirs = [tmp_path / "snap", tmp_path / "rebuild"]
    for d in dirs:
        d.mkdir()
        shutil.copy(stored, d / "s.db")
    shutil.copy(_snapshot(stored), dirs[0] / "s.db.state.npz")
    return _engine(dirs[0] / "s.db"), _engine(dirs[1] / "s.db")


def _assert_same_state(a: CandidateState, b: CandidateState) -> None:
    assert a.entries.keys() == b.entries.keys()
    for doc, ea in a.entries.items():
        eb = b.entries[doc]
        fa, fb = ea.features, eb.features
        assert (ea.version_id, ea.cluster_id, ea.url, ea.source) == (eb.version_id, eb.cluster_id, eb.url, eb.source)
        assert (fa.title, fa.body_lead_text, fa.lang, fa.time, fa.title_key, fa.content_key, fa.content_sha,
                fa.lead) == (fb.title, fb.body_lead_text, fb.lang, fb.time, fb.title_key, fb.content_key,
                             fb.content_sha, fb.lead)
        assert np.array_equal(fa.grams, fb.grams)
    assert a.reps == b.reps
    assert {k: sorted(v) for k, v in a.ngram._buckets.items()} == {k: sorted(v) for k, v in b.ngram._buckets.items()}
    for doc in a.reps.values():  # same document frequencies, seen through each index's own slots
        grams = a.entries[doc].features.grams
        assert a.ngram.weights(grams) == b.ngram.weights(grams)
        assert a.minhash.candidates(grams) == b.minhash.candidates(grams)
    for e in a.entries.values():
        for key in (e.features.title_key, e.features.content_key):
            assert sorted(a.exact.lookup(key)) == sorted(b.exact.lookup(key))


def test_snapshot_state_equals_the_rebuilt_state(stored, tmp_path):
    snap, rebuilt = _twins(stored, tmp_path)
    assert snap.restart.warmup_report["state"] == "snapshot" and rebuilt.restart.warmup_report["state"] == "store"
    assert snap.restart.warmup_report["replayed"] == 0 and len(snap.ctx.state.entries) > 300
    _assert_same_state(snap.ctx.state, rebuilt.ctx.state)
    snap.close()
    rebuilt.close()


@pytest.mark.heavy  # issue 38: many seconds
def test_snapshot_engine_decides_as_the_rebuilt_one(stored, tmp_path):
    snap, rebuilt = _twins(stored, tmp_path)
    follow_up = _stream(400, seed=1)[::3] + _stream(150, seed=2)
    for x, y in zip(snap.ingest_many(follow_up), rebuilt.ingest_many(follow_up), strict=True):
        assert (x.status, x.cluster_id, x.decision.stage, x.decision.score) == (
            y.status, y.cluster_id, y.decision.stage, y.decision.score)
    snap.close()
    rebuilt.close()


def _crash(db: Path, articles: list[Article], chunk_size: int = 256, **config: object) -> Deduper:
    """Ingest, delete and close the store without ``close()``: the snapshot stays behind the store."""
    writer = _engine(db, **config)
    results = writer.ingest_many(articles, chunk_size=chunk_size)
    assert writer.delete_document(next(r.document_id for r in reversed(results) if r.status == "new"))
    writer.restart.wait_for_checkpoint()  # the crash comes after the last checkpoint is on disk
    writer.store.close()
    return writer


@pytest.mark.heavy  # issue 38: many seconds
def test_after_a_crash_the_snapshot_is_loaded_and_the_changes_since_are_replayed(stored, tmp_path):
    # New documents, new versions and re-crawls of stored ones, copies that change
    # representatives, and a deletion, all after the snapshot was taken.
    _crash(stored, _stream(400, seed=1)[::4] + _stream(120, seed=3))
    snap, rebuilt = _twins(stored, tmp_path)
    assert snap.restart.warmup_report["state"] == "snapshot" and rebuilt.restart.warmup_report["state"] == "store"
    assert 100 < snap.restart.warmup_report["replayed"] < 400 and snap.restart.warmup_report["replay_pending"] == 0
    _assert_same_state(snap.ctx.state, rebuilt.ctx.state)
    follow_up = _stream(400, seed=1)[1::5] + _stream(100, seed=4)
    for x, y in zip(snap.ingest_many(follow_up), rebuilt.ingest_many(follow_up), strict=True):
        assert (x.status, x.cluster_id, x.decision.stage, x.decision.score) == (
            y.status, y.cluster_id, y.decision.stage, y.decision.score)
    snap.close()
    rebuilt.close()


@pytest.mark.heavy  # issue 38: many seconds
def test_checkpoints_bound_what_a_crash_leaves_to_replay(tmp_path):
    db = tmp_path / "c.db"
    writer = _crash(db, _stream(600, seed=5), chunk_size=50, snapshot_every=150)
    assert writer.ctx.counters["checkpoints"] >= 3  # one per 150 changes (checked after each chunk)
    again = _engine(db, snapshot_every=150)
    report = again.restart.warmup_report
    # at most the changes since the last checkpoint: under 150 plus one chunk of 50, and the deletion
    assert report["state"] == "snapshot" and 0 < report["replayed"] <= 150 + 50 + 1
    rebuilt = _engine(db, state_snapshot=False)
    _assert_same_state(again.ctx.state, rebuilt.ctx.state)
    again.store.close()
    rebuilt.store.close()
    off = _engine(tmp_path / "off.db", snapshot_every=0)
    off.ingest_many(_stream(300, seed=5))
    assert off.ctx.counters["checkpoints"] == 0 and not _snapshot(tmp_path / "off.db").exists()
    off.store.close()


@pytest.mark.heavy  # issue 38: many seconds
def test_a_replay_cut_short_is_finished_by_the_first_write(stored, tmp_path):
    _crash(stored, _stream(200, seed=6))
    bounded = _engine(stored, warmup_timeout_s=0.0)
    report = bounded.restart.warmup_report
    assert report["state"] == "snapshot" and report["timed_out"] and report["replay_pending"] > 0
    late = Article(title="늦게 도착한 완전히 다른 소식", url="https://late.example/2")
    bounded.ingest(late)  # catches up on the whole feed before deciding
    assert bounded.restart.cursor == bounded.store.max_change()
    bounded.store.close()
    rebuilt = _engine(stored, state_snapshot=False)
    _assert_same_state(bounded.ctx.state, rebuilt.ctx.state)
    rebuilt.store.close()


@pytest.mark.heavy  # issue 38: many seconds
def test_a_snapshot_too_far_behind_or_ahead_of_the_store_is_not_used(stored, tmp_path):
    behind = tmp_path / "behind.db"
    shutil.copy(stored, behind)
    shutil.copy(_snapshot(stored), _snapshot(behind))
    _crash(behind, _stream(1500, seed=7))  # more changes than the snapshot holds documents
    e = _engine(behind)
    assert e.restart.warmup_report["state"] == "store" and e.restart.warmup_report["replayed"] == 0
    e.store.close()
    # A snapshot of a store that has since been replaced by an older copy (a restored backup).
    ahead = tmp_path / "ahead.db"
    fresh = _engine(ahead)
    fresh.ingest(Article(title="백업에서 되살린 저장소의 첫 소식", url="https://restored.example/1"))
    fresh.store.close()
    shutil.copy(_snapshot(behind) if _snapshot(behind).exists() else _snapshot(stored), _snapshot(ahead))
    e2 = _engine(ahead)
    assert e2.restart.warmup_report["state"] == "store" and len(e2.ctx.state.entries) == 1
    e2.store.close()


def test_another_setting_or_a_damaged_file_rebuilds(stored):
    other = _engine(stored, minhash_lsh_threshold=0.5)
    assert other.restart.warmup_report["state"] == "store"
    other.close()  # writes a snapshot under the new setting
    _snapshot(stored).write_bytes(b"not a snapshot")
    damaged = _engine(stored)
    assert damaged.restart.warmup_report["state"] == "store" and len(damaged.ctx.state.entries) > 300
    damaged.close()


def test_a_partial_state_is_never_saved(stored):
    _snapshot(stored).unlink()
    bounded = _engine(stored, warmup_timeout_s=0.0)
    assert bounded.restart.warmup_report["timed_out"] is True
    bounded.close()
    assert not _snapshot(stored).exists()
    cold = Deduper(open_store(f"sqlite:///{stored}"), embedder=None, warm=False)
    cold.close()  # never read the history: saving would hide it from the next start
    assert not _snapshot(stored).exists()


def test_the_warmup_window_applies_to_the_snapshot_too(stored):
    # warmup_days=0 reads nothing from the store; the snapshot must not bring history back.
    zero = _engine(stored, warmup_days=0.0)
    assert zero.restart.warmup_report["state"] == "snapshot" and len(zero.ctx.state.entries) == 0
    assert not zero.ctx.state.reps and len(zero.ctx.state.ngram) == 0 and len(zero.ctx.state.minhash) == 0
    zero.store.close()


def test_snapshot_can_be_turned_off(stored, monkeypatch):
    monkeypatch.setenv("SAMESTORY_STATE_SNAPSHOT", "0")
    off = Deduper(open_store(f"sqlite:///{stored}"), embedder=None, config=EngineConfig.load())
    assert off.restart.warmup_report["state"] == "store"
    _snapshot(stored).unlink()
    off.close()
    assert not _snapshot(stored).exists()


def test_a_snapshot_that_cannot_be_written_does_not_fail_the_close(stored, monkeypatch):
    from index.files import PendingFile

    def full_disk(self: PendingFile) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(PendingFile, "write", full_disk)
    _snapshot(stored).unlink()
    e = _engine(stored)
    e.ingest(Article(title="디스크가 가득 찬 날의 새 소식", url="https://full.example/1"))
    assert e.checkpoint() is False
    e.close()  # no exception; the store is closed and the item is kept
    assert sorted(p.name for p in stored.parent.iterdir() if ".tmp" in p.name) == []
    again = _engine(stored)
    assert again.restart.warmup_report["state"] == "store" and len(again.ctx.state.entries) > 300
    again.close()


def test_a_background_checkpoint_writes_the_state_of_its_call_not_later_changes(tmp_path):
    from service.snapshot import load_snapshot, snapshot_stamp

    db = tmp_path / "bg.db"
    e = _engine(db, snapshot_every=0)
    e.ingest_many(_stream(300, seed=8))
    at, docs = e.restart.cursor, set(e.ctx.state.entries)
    assert e.checkpoint(wait=False) is True  # copied now, written by a thread
    e.ingest_many(_stream(200, seed=9))  # the state moves on while the files are written
    e.restart.wait_for_checkpoint()
    assert e.ctx.counters["checkpoints"] == 1 and len(e.restart.checkpoint_write_seconds) == 1
    assert snapshot_stamp(_snapshot(db), e.config) == (at, len(docs))
    loaded = load_snapshot(_snapshot(db), e.config, cursor=at)
    assert loaded is not None and set(loaded.entries) == docs
    e.store.close()


def test_the_warmup_report_counts_copy_groups_under_their_name(tmp_path: Path) -> None:
    """``samestory stats`` showed ``warmup.clusters`` only, the one place without the
    ``copy_groups`` name. The ``clusters`` alias it kept (in stats and the ``engine ready`` log
    line) is gone: nothing read it."""
    db = f"sqlite:///{tmp_path / 'w.db'}"
    e = Deduper.open(db, model=None)
    e.ingest(Article(title="Fed raises rates by a quarter point", url="https://a.example/1"))
    e.ingest(Article(title="Korean Air completes its merger with Asiana", url="https://b.example/1"))
    e.close()
    again = Deduper.open(db, model=None)
    warmup = again.restart.warmup_report
    assert warmup["copy_groups"] == 2 and "clusters" not in warmup
    again.close()
