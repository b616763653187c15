"""Schema migrations: a store written by the previous release opens, upgrades and keeps its rows.

``tests/fixtures/store-v1.db`` was written by commit 3f5ab5e (schema version 1, before
migrations existed) with ``samestory ingest tests/fixtures/store-v1.jsonl --model none``:
4 documents (one with two versions), 5 observations, 3 clusters.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from service.store import StoreOpenError, migrations, open_store
from service.store.migrations import LATEST_VERSION, STEPS, Step
from tests.paths import FIXTURES_DIR

FIXTURE = FIXTURES_DIR / "store-v1.db"
V1_COUNTS = {"documents": 4, "versions": 5, "observations": 5, "clusters": 3, "live_documents": 4}
# After the upgrade: the same rows, and one story per copy group (migration step 4).
UPGRADED_COUNTS = {**V1_COUNTS, "stories": 3}


@pytest.fixture
def v1_store(tmp_path) -> Path:
    path = tmp_path / "store.db"
    shutil.copy(FIXTURE, path)
    return path


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])


def test_the_fixture_is_a_version_1_store(v1_store):
    # Read from a copy: even a read-only open of a WAL database leaves -shm/-wal files beside it.
    with sqlite3.connect(v1_store) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "schema_migrations" not in tables and "documents" in tables


def test_v1_sqlite_store_upgrades_and_keeps_its_rows(v1_store):
    store = open_store(f"sqlite:///{v1_store}")
    assert store.schema_report == {"from": 1, "to": LATEST_VERSION, "applied": [s.name for s in STEPS[1:]]}
    assert store.counts() == UPGRADED_COUNTS
    doc = store.get_document(1)
    assert doc.url == "https://a.example/fed" and [v.title for v in store.versions_of(1)] == [
        "Fed raises rates by a quarter point"] * 2
    assert [m.document_id for m in store.members_of(doc.cluster_id)] == [1, 2]
    assert [c.id for c in store.list_clusters(10, 0)] == [3, 2, 1]  # most recently updated first
    log = store._all("SELECT version, applied_at FROM schema_migrations ORDER BY version")
    assert [v for v, _ in log] == [s.version for s in STEPS]
    assert log[0][1] is None and all(at is not None for _, at in log[1:])  # v1 predates the log
    assert store._one("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'clusters_recent'")
    store.close()
    assert _version(v1_store) == LATEST_VERSION
    again = open_store(f"sqlite:///{v1_store}")
    assert again.schema_report == {"from": LATEST_VERSION, "to": LATEST_VERSION, "applied": []}
    again.close()


def test_the_engine_carries_on_from_an_upgraded_store(v1_store):
    from service.engine import Deduper
    from service.types import Article

    engine = Deduper.open(f"sqlite:///{v1_store}", model=None)
    try:
        again = engine.ingest(Article(title="ECB holds rates steady in March", url="https://c.example/ecb",
                                      body="The European Central Bank left rates unchanged."))
        assert again.status == "reobserved" and again.document_id == 4
        edited = engine.ingest(Article(title="ECB holds rates steady in March", url="https://c.example/ecb",
                                       body="The European Central Bank left rates unchanged, again."))
        assert edited.status == "new_version" and edited.document_id == 4
        assert len(engine.store.versions_of(4)) == 2
    finally:
        engine.close()


def test_a_failed_upgrade_leaves_the_old_version(v1_store, monkeypatch):
    def broken(db):
        db.exec("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("step 3 failed")

    monkeypatch.setattr(migrations, "STEPS", [*STEPS, Step(LATEST_VERSION + 1, "broken", broken)])
    monkeypatch.setattr(migrations, "LATEST_VERSION", LATEST_VERSION + 1)
    with pytest.raises(RuntimeError, match="step 3 failed"):
        open_store(f"sqlite:///{v1_store}")
    assert _version(v1_store) == 1  # every step of the upgrade rolled back together
    with sqlite3.connect(v1_store) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "half_done" not in tables and "schema_migrations" not in tables


def test_a_newer_store_is_refused_in_one_line(v1_store):
    with sqlite3.connect(v1_store) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreOpenError) as err:
        open_store(f"sqlite:///{v1_store}")
    assert str(err.value) == (f"{v1_store}: store schema version 99 is newer than this samestory knows "
                              f"({LATEST_VERSION}); upgrade samestory instead")


def test_not_a_database_is_one_line(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("not a database, just notes\n" * 100)
    with pytest.raises(StoreOpenError, match=r"^cannot open SQLite store .*notes\.db: file is not a database$"):
        open_store(f"sqlite:///{path}")


def test_steps_are_numbered_in_order():
    assert [s.version for s in STEPS] == list(range(1, LATEST_VERSION + 1))
    assert len({s.name for s in STEPS}) == len(STEPS)


@pytest.mark.postgres
def test_v1_postgres_store_upgrades_and_keeps_its_rows(pg_url, monkeypatch):
    # A version-1 store as the previous release made it: only step 1 known.
    with monkeypatch.context() as m:
        m.setattr(migrations, "STEPS", STEPS[:1])
        m.setattr(migrations, "LATEST_VERSION", 1)
        old = open_store(pg_url)
        assert old.schema_report == {"from": 0, "to": 1, "applied": [STEPS[0].name]}
        with old.transaction():
            doc = old.insert_document("rss", "https://a.example/x", "https://a.example/x", None, None, 1.0)
            old.insert_version(doc, "h1", "Fed raises rates", "", "en", 1.0)
            cluster = old.create_cluster(doc, 1.0)
            old.set_membership(doc, cluster, 1.0, "none", None, None, {"same": False})
        old.close()
    store = open_store(pg_url)
    assert store.schema_report == {"from": 1, "to": LATEST_VERSION, "applied": [s.name for s in STEPS[1:]]}
    assert store.counts()["documents"] == 1 and store.versions_of(doc)[0].title == "Fed raises rates"
    assert [c.id for c in store.list_clusters(5, 0)] == [cluster]
    assert store._one("SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'clusters_recent'")
    assert int(store._one("SELECT value FROM meta WHERE key = 'schema_version'")[0]) == LATEST_VERSION
    store.close()


@pytest.mark.postgres
def test_postgres_missing_database_or_schema_is_one_line(pg_url):
    from tests.helpers.pg import PG_URL, with_schema

    with pytest.raises(StoreOpenError) as err:
        open_store(with_schema(PG_URL, "no_such_schema_i23"))
    assert "no schema of the search_path" in str(err.value) and "\n" not in str(err.value)
    base = PG_URL.rsplit("/", 1)[0]
    with pytest.raises(StoreOpenError) as err:
        open_store(f"{base}/no_such_database_i23")
    assert 'database "no_such_database_i23" does not exist' in str(err.value) and "\n" not in str(err.value)


def _v4_store_with_a_correction(url: str, monkeypatch) -> None:
    """A version-4 store (before withdrawals) as the previous release left it: two copies of one
    report in one copy group and story, and an editor's "not the same" between them."""
    with monkeypatch.context() as m:
        m.setattr(migrations, "STEPS", STEPS[:4])
        m.setattr(migrations, "LATEST_VERSION", 4)
        old = open_store(url)
        with old.transaction():
            story, now = old.create_story(1.0), 1.0
            docs = []
            for i in (1, 2):
                doc = old.insert_document("rss", f"https://a.example/{i}", f"https://a.example/{i}", None, None, now)
                old.insert_version(doc, "h1", "Fed raises rates by 25 basis points", "", "en", now)
                docs.append(doc)
            cluster = old.create_cluster(docs[0], now)
            old.set_cluster_story(cluster, story, None, "founded", now)
            for doc in docs:
                old.set_membership(doc, cluster, now, "exact", 1.0, None, {"same": True})
                old.record_change(doc, now)
            old._insert("INSERT INTO editor_corrections (kind, doc_a, doc_b, story_from, story_to, who, at, note)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ("not_same", docs[0], docs[1], None, None, "alice", now, None))
        old.close()


def _withdraws_after_the_upgrade(url: str) -> None:
    from service.corrections import Editor, list_corrections
    from service.engine import Deduper

    store = open_store(url)
    assert store.schema_report["applied"] == [s.name for s in STEPS[4:]]
    engine = Deduper(store, embedder=None)
    [c] = list_corrections(engine.store)
    assert c.withdrawn is None and engine.ctx.constraints.cannot  # in force until withdrawn
    Editor(engine).withdraw(c.id, who="bob")
    assert [x.withdrawn.who for x in list_corrections(engine.store)] == ["bob"] and not engine.ctx.constraints
    engine.close()


def test_a_v4_sqlite_store_upgrades_to_withdrawals(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'v4.db'}"
    _v4_store_with_a_correction(url, monkeypatch)
    _withdraws_after_the_upgrade(url)


@pytest.mark.postgres
def test_a_v4_postgres_store_upgrades_to_withdrawals(pg_url, monkeypatch):
    _v4_store_with_a_correction(pg_url, monkeypatch)
    _withdraws_after_the_upgrade(pg_url)
