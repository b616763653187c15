"""The store contract, run on SQLite and PostgreSQL alike (PostgreSQL marked ``postgres``)."""

from __future__ import annotations

import os

import pytest

from service.store import DuplicateKeyError, open_store

# psycopg comes with the "postgres" extra; without it these tests skip, or fail in CI (see conftest).
if os.environ.get("SAMESTORY_REQUIRE_POSTGRES") != "1":
    pytest.importorskip("psycopg")

from service.store.postgres import PostgresStore, to_pyformat


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'contract.db'}"
    return request.getfixturevalue("pg_url")


def test_placeholder_conversion():
    assert to_pyformat("a = ? AND b LIKE '%x'") == "a = %s AND b LIKE '%%x'"


def test_store_contract(store_url):
    store = open_store(store_url)
    with store.transaction():
        d1 = store.insert_document("rss", "https://a.example/1", "https://a.example/1?x", "a", 100.0, 1.0)
        v1 = store.insert_version(d1, "h1", "Title", "Body", "en", 1.0)
        c1 = store.create_cluster(d1, 1.0)
        store.set_membership(d1, c1, 1.0, "none", None, None, {"same": False})
        store.insert_observation(d1, v1, "rss", "https://a.example/1?x", "a", "caller-1", 1.0, "new", {"k": "ü"})
        store.save_vector(v1, "m", b"\x00\x01\xff")
        seq = store.record_change(d1, 1.0)
    assert store.find_document("rss", "https://a.example/1").id == d1
    assert store.find_document("other", "https://a.example/1") is None
    assert store.get_document(d1).latest_version_id == v1 and store.get_document(d1).cluster_id == c1
    assert store.find_version(d1, "h1").title == "Title"
    assert store.load_vectors([v1, v1 + 999], "m") == {v1: b"\x00\x01\xff"}
    assert store.observations_of(d1)[0].decision == {"k": "ü"}
    assert store.changes_since(0) == [(seq, d1)] and store.max_change() == seq
    assert [c.id for c in store.list_clusters(10, 0)] == [c1]
    assert [m.document_id for m in store.members_of(c1)] == [d1]
    assert store.cluster_events(c1)[0].reason == "first member"
    assert [(d.id, v.id) for d, v in store.live_documents(0.0)] == [(d1, v1)]
    assert store.counts() == {"documents": 1, "versions": 1, "observations": 1, "clusters": 1, "stories": 0,
                              "live_documents": 1}
    # Stories (schema 2): a copy group is put in a story with the decision's score and reason.
    with store.transaction():
        s1 = store.create_story(1.0)
        store.set_cluster_story(c1, s1, 0.75, "story: test", 2.0)
    assert store.get_story(s1).updated_at == 2.0 and [s.id for s in store.list_stories(10, 0)] == [s1]
    assert [(c.id, c.story_id, c.story_score, c.story_reason) for c in store.clusters_of_story(s1)] == [
        (c1, s1, 0.75, "story: test")]

    # Uniqueness is the database's: same (channel, key) or same (document, content hash) fail.
    with pytest.raises(DuplicateKeyError), store.transaction():
        store.insert_document("rss", "https://a.example/1", None, None, None, 2.0)
    with pytest.raises(DuplicateKeyError), store.transaction():
        store.insert_version(d1, "h1", "T", "B", "en", 2.0)
    # A failed transaction leaves nothing behind and the store usable.
    with pytest.raises(RuntimeError), store.transaction():
        store.insert_document("rss", "https://a.example/2", None, None, None, 2.0)
        raise RuntimeError("boom")
    assert store.find_document("rss", "https://a.example/2") is None
    with store.transaction():
        store.mark_deleted(d1, 3.0)
    assert store.counts()["live_documents"] == 0
    store.close()
    # Re-opening an existing schema is idempotent.
    again = open_store(store_url)
    assert again.get_document(d1).deleted is True
    again.close()


@pytest.mark.postgres
def test_open_store_selects_postgres_and_redacts_password(pg_url):
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    store.close()
    with pytest.raises(ConnectionError) as err:
        PostgresStore("postgresql://postgres:s3cret@127.0.0.1:1/test", connect_timeout=1)
    assert "s3cret" not in str(err.value) and "***" in str(err.value)


@pytest.mark.postgres
def test_reconnects_after_the_server_drops_the_connection(pg_url):
    import psycopg

    store = open_store(pg_url)
    pid = store._conn.info.backend_pid
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(psycopg.OperationalError):
        store.counts()  # the statement in flight fails ...
    assert store.counts()["documents"] == 0  # ... and the next one runs on a new connection
    store.close()
