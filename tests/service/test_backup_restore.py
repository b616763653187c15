"""Backing up a SQLite store as docs/operations.md says (the thirteenth tour): SQLite's online
backup (`sqlite3 DB '.backup F'`) of a store an engine is writing holds every acknowledged item,
and an engine opened on it (no `.faiss` or `.state.npz` beside it) keeps the same copy groups and
stories; a `cp` of the file alone misses what is still in its `-wal` file."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from service.engine import Deduper
from tests.paths import REPO_ROOT

ITEMS = [
    {"title": "Fire at Busan warehouse forces 340 to evacuate", "url": "https://a.example/1"},
    {"title": "FIRE AT BUSAN WAREHOUSE FORCES 340 TO EVACUATE", "url": "https://b.example/1"},
    {"title": "Busan warehouse fire put out after nine hours", "url": "https://a.example/2"},
    {"title": "Daegu subway Line 2 halted, resumes after 3 hours", "url": "https://c.example/3"},
]


def _partition(d: Deduper, docs: list[int]) -> list[tuple[int, int | None, int | None]]:
    out = []
    for doc_id in docs:
        doc = d.store.get_document(doc_id)
        assert doc is not None and doc.cluster_id is not None
        cluster = d.store.get_cluster(doc.cluster_id)
        out.append((doc_id, doc.cluster_id, cluster.story_id if cluster else None))
    return out


def test_an_online_backup_restores_every_item_and_the_same_groups(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    live = Deduper.open(f"sqlite:///{path}", model=None)
    try:
        docs = [live.ingest(item).document_id for item in ITEMS]
        assert live.delete_document(docs[1])  # a privacy deletion must survive the backup
        before = _partition(live, [docs[0], docs[2], docs[3]])
        backup = tmp_path / "backup.db"
        src, dst = sqlite3.connect(path), sqlite3.connect(backup)
        src.backup(dst)  # what `sqlite3 DB '.backup F'` runs
        dst.close(), src.close()
        shutil.copyfile(path, tmp_path / "cp.db")  # the file alone, while the engine holds it open
    finally:
        live.close()
    raw = sqlite3.connect(tmp_path / "cp.db")
    try:
        rows = raw.execute("SELECT count(*) FROM documents").fetchone()[0]
    except sqlite3.DatabaseError:
        rows = 0
    raw.close()
    assert rows < len(ITEMS), "a cp of a store being written holds what its -wal file has not handed back yet"
    restored = Deduper.open(f"sqlite:///{backup}", model=None)
    try:
        assert _partition(restored, [docs[0], docs[2], docs[3]]) == before
        gone = restored.store.get_document(docs[1])
        assert gone is not None and gone.deleted
        assert restored.ingest(ITEMS[0]).status == "reobserved"
    finally:
        restored.close()


def test_the_operations_page_says_how_to_back_up() -> None:
    page = (REPO_ROOT / "docs" / "operations.md").read_text("utf-8")
    assert "'.backup F'" in page and "`cp` misses `DB-wal`" in page
