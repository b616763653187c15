"""Erasure (privacy): ``Deduper.delete_document(id, erase=True)`` and ``DELETE /v1/documents/{id}?erase=true``.

An invented feed: a report carried by three outlets (one copy group), the first with a marker word in
its title, URL and caller id, and a follow-up report of the same event (another copy group, same
story). After the first is erased, no row of any table, no stored reason, no embedding cache entry and
no state file beside the store holds the marker; the other documents keep their words; a new copy
of the erased text is matched by nothing of the erased document, before and after a reopen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from models.base import Embedder
from models.cache import CachedEmbedder
from service.engine import Deduper
from service.store import open_store
from service.types import Article

MARK = "vexlorn"  # the erased document's own word: in no other item of the feed
BODY = "A fire broke out at a chemical plant in Donghae on Monday, injuring 12 workers, officials said."
TITLE = "Fire at Donghae chemical plant injures 12 workers"


def feed() -> list[Article]:
    return [
        Article(title=f"{TITLE} - Vexlorn Daily", body=BODY, url=f"https://b.example/{MARK}-fire", source="b",
                id=f"caller-{MARK}", published_at="2026-12-07T09:00:00Z"),
        Article(title=TITLE, body=BODY, url="https://a.example/fire-1", source="a", id="a-1",
                published_at="2026-12-07T09:05:00Z"),
        Article(title=TITLE, body="", url="https://c.example/3", source="c", published_at="2026-12-07T09:10:00Z"),
        Article(title="Police open probe into Donghae chemical plant fire that injured 12 workers",
                body="Police opened an investigation into the cause of a fire at a chemical plant in Donghae on "
                     "Monday that injured 12 workers.", url="https://d.example/4", source="d",
                published_at="2026-12-07T11:00:00Z"),
    ]


@pytest.fixture(scope="module")
def use_model() -> Embedder:
    from models.registry import load_embedder

    emb = load_embedder("use", cache_size=1)
    return emb.inner if isinstance(emb, CachedEmbedder) else emb


def engine(db: str, model: Embedder) -> Deduper:
    return Deduper(open_store(db), embedder=CachedEmbedder(model))


def text_cells(store: Any) -> Iterator[tuple[str, str, str]]:
    """(table, column, value) of every text cell of every table of a SQL store."""
    if store.url.startswith("postgresql"):
        tables = [r[0] for r in store._all("SELECT table_name FROM information_schema.tables"
                                            " WHERE table_schema = current_schema()")]
    else:
        tables = [r[0] for r in store._all("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        cur = store._exec(f"SELECT * FROM {table}")
        names = [d[0] for d in cur.description]
        for row in cur.fetchall():
            for name, value in zip(names, row, strict=True):
                if isinstance(value, (bytes, bytearray, memoryview)):
                    value = bytes(value).decode("utf-8", "replace")
                if isinstance(value, str):
                    yield table, name, value


def holding(store: Any, word: str = MARK) -> list[tuple[str, str, str]]:
    return [c for c in text_cells(store) if word in c[2].casefold()]


def check_erased(d: Deduper, first: int) -> None:
    store = d.store
    assert holding(store) == []
    doc = store.get_document(first)
    assert doc is not None and doc.deleted and doc.erased_at is not None and doc.url is None
    assert [(v.title, v.body) for v in store.versions_of(first)] == [("", "")]
    obs = store.observations_of(first)
    assert len(obs) == 1 and obs[0].url is None and obs[0].caller_id is None and obs[0].status  # kept
    assert store.load_vectors([v.id for v in store.versions_of(first)], d.ctx.model_name or "") == {}
    assert not store.vector_models([v.id for v in store.versions_of(first)])


def check_others_intact(d: Deduper, ids: list[int], before: dict[int, list[tuple[str, str]]]) -> None:
    for i in ids[1:]:
        doc = d.store.get_document(i)
        assert doc is not None and not doc.deleted and doc.url and doc.erased_at is None
        assert [(v.title, v.body) for v in d.store.versions_of(i)] == before[i]


def check_not_matched_by(d: Deduper, first: int, url: str) -> int:
    """A new copy of the erased text: whatever it matches, it is not the erased document (its id)."""
    r = d.ingest(Article(title=f"{TITLE} - Vexlorn Daily", body=BODY, url=url, source="e"))
    assert r.decision.to_dict().get("matched_id") != first
    mention = re.compile(rf"(?:document |anchor |#){first}(?!\d)")
    assert not any(mention.search(reason) for reason in r.decision.reasons), r.decision.reasons
    return r.document_id


def test_erase_leaves_no_word_of_the_document_in_store_caches_or_state_files(tmp_path: Path,
                                                                           use_model: Embedder) -> None:
    db = f"sqlite:///{tmp_path}/store.db"
    d = engine(db, use_model)
    results = d.ingest_many(feed())
    ids = [r.document_id for r in results]
    # the feed is what the test says it is: one copy group of three, a follow-up in its story
    assert [r.cluster_id for r in results[:3]] == [results[0].cluster_id] * 3
    assert results[3].cluster_id != results[0].cluster_id and results[3].story_id == results[0].story_id
    assert holding(d.store)  # the marker is there before
    others = {i: [(v.title, v.body) for v in d.store.versions_of(i)] for i in ids}
    d.checkpoint()
    cache = d.ctx.embedder
    assert isinstance(cache, CachedEmbedder)
    # what the model read of it (the headline drops the outlet's name): its text, shared by its copies
    its_texts = [k for k in cache._lru if k[1].startswith(TITLE)]
    others_texts = [k for k in cache._lru if k[1].startswith("Police")]
    assert its_texts and others_texts

    assert d.delete_document(ids[0], erase=True) is True
    check_erased(d, ids[0])
    check_others_intact(d, ids, others)
    assert not any(k in cache._lru for k in its_texts) and all(k in cache._lru for k in others_texts)
    for path in (tmp_path / "store.db.state.npz", tmp_path / "store.db.faiss"):
        assert not path.exists() or MARK.encode() not in path.read_bytes().lower()
    # other members' reasons against it keep stage, score and guard names, not its words
    doc2 = d.store.observations_of(ids[1])[0].decision
    assert doc2["stage"] == results[1].decision.stage and doc2["score"] == results[1].decision.score
    assert "guard who: [erased]" in doc2["reasons"]
    # deletion semantics hold: the group keeps its two others, the representative moved, same story
    group = d.store.get_cluster(results[0].cluster_id)
    assert group is not None and group.representative_id in ids[1:3]
    assert [m.document_id for m in d.store.members_of(group.id)] == ids[1:3]
    assert d.stats()["live_documents"] == 3
    # the group's vector in the index is a remaining member's stored one (as a restart reads it)
    vectors, cid = d.ctx.state.vectors, results[0].cluster_id
    assert vectors is not None
    if cid in vectors:
        live = [d.store.get_document(i).latest_version_id for i in ids[1:3]]
        stored = d.store.load_vectors(live, d.ctx.model_name or "")
        assert any(np.allclose(vectors.get([cid])[0], np.frombuffer(v, np.float32), atol=1e-2)
                   for v in stored.values())
    assert d.delete_document(ids[0], erase=True) is False  # already erased
    assert d.delete_document(ids[0]) is False
    copy = check_not_matched_by(d, ids[0], "https://e.example/1")
    assert d.delete_document(copy, erase=True)  # the copy holds the words again: erased as well
    check_erased(d, copy)
    d.close()

    d = engine(db, use_model)  # a warm restart reads the files written at close, or the store
    check_erased(d, ids[0])
    copy = check_not_matched_by(d, ids[0], "https://e.example/2")
    assert d.delete_document(copy, erase=True)
    check_erased(d, copy)
    d.close()
    for path in (tmp_path / "store.db.state.npz", tmp_path / "store.db.faiss"):
        assert not path.exists() or MARK.encode() not in path.read_bytes().lower()


def test_a_deleted_document_can_still_be_erased(use_model: Embedder) -> None:
    d = engine(":memory:", use_model)
    ids = [r.document_id for r in d.ingest_many(feed())]
    assert d.delete_document(ids[0])
    assert holding(d.store)  # deletion hides, it does not erase
    assert d.delete_document(ids[0], erase=True) is True
    check_erased(d, ids[0])
    check_not_matched_by(d, ids[0], "https://e.example/3")
    with pytest.raises(TypeError, match="erase must be a bool"):
        d.delete_document(ids[1], erase="yes")  # type: ignore[arg-type]
    d.close()


@pytest.mark.postgres
def test_erase_on_postgresql(pg_url: str, use_model: Embedder) -> None:
    d = engine(pg_url, use_model)
    ids = [r.document_id for r in d.ingest_many(feed())]
    others = {i: [(v.title, v.body) for v in d.store.versions_of(i)] for i in ids}
    assert d.delete_document(ids[0], erase=True)
    check_erased(d, ids[0])
    check_others_intact(d, ids, others)
    d.close()
    d = engine(pg_url, use_model)
    check_erased(d, ids[0])
    check_not_matched_by(d, ids[0], "https://e.example/4")
    d.close()


@pytest.mark.redis
def test_erase_drops_the_shared_cache_entries(redis_prefix: tuple[str, str], use_model: Embedder) -> None:
    from models.shared_cache import open_shared_cache

    url, prefix = redis_prefix
    shared = open_shared_cache(url, use_model.name, use_model.dim, prefix=prefix)
    assert shared is not None
    d = Deduper(open_store(":memory:"), embedder=CachedEmbedder(use_model, shared=shared))
    ids = [r.document_id for r in d.ingest_many(feed())]
    texts = [k for k in d.ctx.embedder._lru if k[1].startswith(TITLE)]  # type: ignore[attr-defined]
    assert texts and all(v is not None for v in shared.get_many(texts))
    kept = [k for k in d.ctx.embedder._lru if "Police" in k[1]]  # type: ignore[attr-defined]
    assert d.delete_document(ids[0], erase=True)
    assert shared.get_many(texts) == [None] * len(texts)
    assert all(v is not None for v in shared.get_many(kept))  # another report's vectors stay
    d.close()


def test_http_delete_with_erase(make_client: Any) -> None:
    client = make_client(feed())
    assert client.get("/v1/documents/1").json()["versions"][0]["title"].endswith("Vexlorn Daily")
    r = client.delete("/v1/documents/1", params={"erase": "true"})
    assert r.status_code == 200, r.text
    assert r.json()["erased"] is True and r.json()["deleted"] is True
    view = client.get("/v1/documents/1", params={"include_deleted": "true"}).json()
    assert MARK not in json.dumps(view, ensure_ascii=False).casefold()
    assert client.delete("/v1/documents/1", params={"erase": "true"}).status_code == 404
    # a plain delete first, an erase after: the erase still runs
    assert client.delete("/v1/documents/2").json()["erased"] is False
    assert client.delete("/v1/documents/2", params={"erase": "true"}).json()["erased"] is True
    assert "erase" in json.dumps(client.get("/openapi.json").json()["paths"]["/v1/documents/{document_id}"])


def test_cli_documents_delete_erase(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli import main

    db = f"sqlite:///{tmp_path}/cli.db"
    d = Deduper(open_store(db), embedder=None)
    ids = [r.document_id for r in d.ingest_many(feed())]
    d.close()
    assert main(["documents", "delete", str(ids[1]), "--db", db, "--model", "none"]) == 0
    assert capsys.readouterr().out.strip() == f"document {ids[1]} deleted"
    assert main(["documents", "delete", str(ids[0]), "--erase", "--db", db, "--model", "none"]) == 0
    assert capsys.readouterr().out.strip() == f"document {ids[0]} erased"
    with pytest.raises(SystemExit, match=f"document {ids[0]} is already erased"):
        main(["documents", "delete", str(ids[0]), "--erase", "--db", db, "--model", "none"])
    assert main(["documents", "delete", str(ids[1]), "--erase", "--db", db, "--model", "none"]) == 0
    store = open_store(db)
    assert holding(store) == [] and store.get_document(ids[1]).erased_at is not None
    store.close()
    assert not (tmp_path / "cli.db.faiss").exists()
    assert MARK.encode() not in (tmp_path / "cli.db.state.npz").read_bytes().lower()


def test_a_version_5_store_gains_erased_at_and_can_erase(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from service.store import migrations

    url = f"sqlite:///{tmp_path}/v5.db"
    with monkeypatch.context() as m:  # the store as the previous release left it
        m.setattr(migrations, "STEPS", migrations.STEPS[:5])
        m.setattr(migrations, "LATEST_VERSION", 5)
        old = open_store(url)
        with old.transaction():
            doc = old.insert_document("rss", f"https://a.example/{MARK}", f"https://a.example/{MARK}", None, None, 1.0)
            old.insert_version(doc, "h1", f"Vexlorn Daily: {TITLE}", BODY, "en", 1.0)
            old.insert_observation(doc, 1, "rss", f"https://a.example/{MARK}", "a", "c-1", 1.0, "new", {"same": False})
            old.set_membership(doc, old.create_cluster(doc, 1.0), 1.0, "new", None, None, {"same": False})
            old.record_change(doc, 1.0)
        old.close()
    d = Deduper(open_store(url), embedder=None)
    assert d.store.schema_report["applied"] == [migrations.STEPS[5].name]
    assert d.store.get_document(doc).erased_at is None and holding(d.store)
    assert d.delete_document(doc, erase=True)
    check_erased(d, doc)
    d.close()


def test_the_sqlite_file_keeps_no_bytes_of_an_erased_body(tmp_path: Path) -> None:
    """SQLite leaves a freed page's old bytes in the file unless ``secure_delete`` is on, which
    builds differ on: the erasure turns it on for itself (off here, 203 copies of the word stayed)."""
    db = tmp_path / "raw.db"
    d = Deduper(open_store(f"sqlite:///{db}"), embedder=None)
    items = feed()
    long_body = items[0].body + f" The {MARK} report continues here at length." * 200  # overflow pages
    items[0] = Article(title=items[0].title, body=long_body, url=items[0].url, id=items[0].id)
    ids = [r.document_id for r in d.ingest_many(items)]
    d.close()
    d = Deduper(open_store(f"sqlite:///{db}"), embedder=None)
    d.store._conn.execute("PRAGMA secure_delete = OFF")  # type: ignore[attr-defined]  # a build without it
    assert d.delete_document(ids[0], erase=True)
    assert d.store._conn.execute("PRAGMA secure_delete").fetchone()[0] == 0  # type: ignore[attr-defined]
    d.close()
    leftover = {p.name: p.read_bytes().lower().count(MARK.encode()) for p in tmp_path.iterdir()}
    assert set(leftover.values()) == {0}, leftover


def test_a_deletion_that_rolls_back_leaves_memory_as_the_store(use_model: Embedder,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's part of an erasure fails: its transaction rolls back, and the memory the deletion
    had already changed (the document out of the candidate state) is rebuilt from the store, as an
    ingest's is; before, the document stayed live in the store but gone from memory."""
    d = engine(":memory:", use_model)
    ids = [r.document_id for r in d.ingest_many(feed())]

    def fail(*args: Any, **kwargs: Any) -> int:
        raise RuntimeError("the store went away")

    monkeypatch.setattr(d.store, "erase_document", fail)
    with pytest.raises(RuntimeError, match="went away"):
        d.delete_document(ids[0], erase=True)
    doc = d.store.get_document(ids[0])
    assert doc is not None and not doc.deleted
    assert ids[0] in d.ctx.state.entries
    monkeypatch.undo()
    assert d.delete_document(ids[0], erase=True)
    check_erased(d, ids[0])
    d.close()


def test_another_engine_on_the_store_drops_the_erased_documents_vector(tmp_path: Path, use_model: Embedder) -> None:
    """Two engines on one store (two workers): the one that did not erase catches up, and its copy
    group's vector stops being the erased founder's own (it kept it when the founder went: a
    restart reads a live member's); before, it kept the erased text's vector in memory."""
    db = str(tmp_path / "two.db")
    a = engine(db, use_model)
    ids = [r.document_id for r in a.ingest_many(feed())]
    b = engine(db, use_model)
    first = a.store.get_document(ids[0])
    assert first is not None and first.cluster_id is not None and first.latest_version_id is not None
    cid, model = first.cluster_id, a.ctx.model_name or ""
    own = np.frombuffer(a.store.load_vectors([first.latest_version_id], model)[first.latest_version_id],
                        dtype=np.float32)
    assert b.ctx.state.vectors is not None
    assert np.allclose(b.ctx.state.vectors.get([cid])[0], own)  # the founder's vector is the group's
    assert a.delete_document(ids[0], erase=True)
    with b.store.transaction():
        b.ctx.catch_up()
    for d in (a, b):  # a live member's stored vector, or none (the copies matched without embedding)
        vectors = d.ctx.state.vectors
        assert vectors is not None
        assert cid not in vectors or not np.allclose(vectors.get([cid])[0], own)
    check_not_matched_by(b, ids[0], "https://e.example/9")
    b.close()
    a.close()
