"""Store schema migrations: an ordered list of upgrade steps, applied at open, recorded in the store.

The schema of a store is what steps 1..N of :data:`STEPS` built; N is kept in ``meta``
(``schema_version``) and each step applied is a row of ``schema_migrations`` (version, name,
when). Opening a store (``SQLiteStore``, ``PostgresStore``) runs :func:`upgrade` inside the
store's exclusive write transaction (``BEGIN IMMEDIATE`` / the PostgreSQL advisory lock), so:

- a new store gets every step, in order;
- an older store gets the steps it lacks, all in one transaction: an upgrade that fails half-way
  leaves the store at its old version, never in between;
- two processes opening the same old store at once upgrade it once (the second waits for the
  lock, then finds nothing to do);
- a store newer than this code (a downgrade) is refused with a one-line error, not written to.

Adding a schema change is appending one step: a function that takes a :class:`Schema` (``exec``,
the dialect's types, ``has_table``/``has_column`` for steps that must not repeat themselves) and
an entry ``Step(N + 1, "what it adds", function)`` at the end of :data:`STEPS`. Write portable SQL
(``{pk}`` for an auto-increment key, ``{blob}`` for bytes, ``BIGINT``, ``DOUBLE PRECISION``,
``TEXT``), test it by opening an older store (``tests/service/store/test_store_migrations.py``),
and never edit or reorder a step that has shipped: stores in the field have already run it.

>>> from service.store.sqlite import SQLiteStore
>>> store = SQLiteStore(":memory:")
>>> store.schema_report == {"from": 0, "to": LATEST_VERSION, "applied": [s.name for s in STEPS]}
True
>>> versions = store._all("SELECT version FROM schema_migrations ORDER BY version")
>>> [row[0] for row in versions] == [s.version for s in STEPS]
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from service.store.base import StoreOpenError


class _Executor(Protocol):
    url: str

    def _exec(self, sql: str, params: tuple[Any, ...] = ()) -> Any: ...
    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any: ...


@dataclass(frozen=True)
class Schema:
    """What a step sees: the store's connection and its dialect."""

    store: _Executor
    dialect: str  # "sqlite" or "postgresql"
    pk: str  # auto-increment primary key type
    blob: str  # binary type

    def exec(self, sql: str) -> None:
        """Run one or more ``;``-separated statements, with ``{pk}`` and ``{blob}`` filled in."""
        for stmt in sql.format(pk=self.pk, blob=self.blob).split(";"):
            if stmt.strip():
                self.store._exec(stmt)

    def has_table(self, table: str) -> bool:
        if self.dialect == "sqlite":
            sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        else:
            sql = ("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema()"
                   " AND table_name = ?")
        return self.store._one(sql, (table,)) is not None

    def has_column(self, table: str, column: str) -> bool:
        if self.dialect == "sqlite":
            return any(row[1] == column for row in self.store._exec(f"PRAGMA table_info({table})").fetchall())
        return self.store._one(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name = ? AND column_name = ?", (table, column)) is not None


@dataclass(frozen=True)
class Step:
    version: int
    name: str
    apply: Callable[[Schema], None]


# Version 1: the schema as it shipped before migrations existed (commit 3f5ab5e). Frozen.
_V1 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id {pk},
    channel TEXT NOT NULL,
    doc_key TEXT,
    url TEXT,
    source TEXT,
    cluster_id BIGINT,
    latest_version_id BIGINT,
    published_at DOUBLE PRECISION,
    first_seen DOUBLE PRECISION NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    UNIQUE (channel, doc_key)
);
CREATE TABLE IF NOT EXISTS versions (
    id {pk},
    document_id BIGINT NOT NULL REFERENCES documents(id),
    content_hash TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    lang TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    UNIQUE (document_id, content_hash)
);
CREATE TABLE IF NOT EXISTS observations (
    id {pk},
    document_id BIGINT NOT NULL REFERENCES documents(id),
    version_id BIGINT NOT NULL REFERENCES versions(id),
    channel TEXT NOT NULL,
    url TEXT,
    source TEXT,
    caller_id TEXT,
    observed_at DOUBLE PRECISION NOT NULL,
    status TEXT NOT NULL,
    decision TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS observations_document ON observations (document_id);
CREATE TABLE IF NOT EXISTS clusters (
    id {pk},
    representative_id BIGINT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS memberships (
    document_id BIGINT PRIMARY KEY REFERENCES documents(id),
    cluster_id BIGINT NOT NULL REFERENCES clusters(id),
    joined_at DOUBLE PRECISION NOT NULL,
    stage TEXT NOT NULL,
    score DOUBLE PRECISION,
    matched_id BIGINT,
    decision TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memberships_cluster ON memberships (cluster_id);
CREATE TABLE IF NOT EXISTS cluster_events (
    id {pk},
    cluster_id BIGINT NOT NULL REFERENCES clusters(id),
    old_representative BIGINT,
    new_representative BIGINT NOT NULL,
    reason TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS cluster_events_cluster ON cluster_events (cluster_id);
CREATE TABLE IF NOT EXISTS vectors (
    version_id BIGINT NOT NULL REFERENCES versions(id),
    model TEXT NOT NULL,
    vec {blob} NOT NULL,
    PRIMARY KEY (version_id, model)
);
CREATE TABLE IF NOT EXISTS changes (
    seq {pk},
    document_id BIGINT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_first_seen ON documents (first_seen);
"""


def _v1_base(db: Schema) -> None:
    db.exec(_V1)


def _v2_clusters_recent_index(db: Schema) -> None:
    # GET /v1/clusters and `samestory clusters` page by "most recently updated first"; without
    # this index every page sorts the whole clusters table.
    db.exec("CREATE INDEX IF NOT EXISTS clusters_recent ON clusters (updated_at DESC, id DESC)")


def _v3_editor_corrections(db: Schema) -> None:
    # Editors' corrections (split, merge, not the same) with who and when (service/corrections.py).
    db.exec("""CREATE TABLE IF NOT EXISTS editor_corrections (
    id {pk},
    kind TEXT NOT NULL,
    doc_a BIGINT NOT NULL,
    doc_b BIGINT NOT NULL,
    story_from BIGINT,
    story_to BIGINT,
    who TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    note TEXT
);
CREATE INDEX IF NOT EXISTS editor_corrections_docs ON editor_corrections (doc_a, doc_b)""")


def _v4_stories(db: Schema) -> None:
    # Two levels (issue 17): a ``stories`` table, and each copy group's (cluster's) story with the
    # score and reason that put it there. Every existing copy group becomes a story of its own: the
    # one decision an older store supports without re-reading its texts; new items then join those
    # stories by the story score (service/stories.py).
    db.exec("CREATE TABLE IF NOT EXISTS stories (id {pk}, created_at DOUBLE PRECISION NOT NULL, "
            "updated_at DOUBLE PRECISION NOT NULL)")
    for column, kind in (("story_id", "BIGINT"), ("story_score", "DOUBLE PRECISION"), ("story_reason", "TEXT")):
        if not db.has_column("clusters", column):
            db.exec(f"ALTER TABLE clusters ADD COLUMN {column} {kind}")
    db.exec("INSERT INTO stories (id, created_at, updated_at) SELECT id, created_at, updated_at FROM clusters "
            "WHERE story_id IS NULL")
    db.exec("UPDATE clusters SET story_id = id, story_reason = 'schema upgrade: one story per copy group' "
            "WHERE story_id IS NULL")
    db.exec("CREATE INDEX IF NOT EXISTS clusters_story ON clusters (story_id)")
    if db.dialect == "postgresql":
        # Rows inserted with explicit ids: the sequence must continue after them.
        db.exec("SELECT setval(pg_get_serial_sequence('stories', 'id'), "
                "(SELECT COALESCE(MAX(id), 0) + 1 FROM stories), false)")


def _v5_correction_withdrawals(db: Schema) -> None:
    # An editor's withdrawal of a correction (service/corrections.py, Editor.withdraw): who, when,
    # why. A row of its own, so the correction's row is never rewritten (its history stays), and one
    # per correction at most (UNIQUE: withdrawing twice is refused).
    db.exec("""CREATE TABLE IF NOT EXISTS correction_withdrawals (
    id {pk},
    correction_id BIGINT NOT NULL UNIQUE REFERENCES editor_corrections(id),
    who TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    note TEXT
)""")


def _v6_erasure(db: Schema) -> None:
    # Erasure (``Deduper.delete_document(id, erase=True)``): when a document's texts, URLs and vectors
    # were blanked. NULL: never erased (a deleted document may still be erased later).
    if not db.has_column("documents", "erased_at"):
        db.exec("ALTER TABLE documents ADD COLUMN erased_at DOUBLE PRECISION")


STEPS: list[Step] = [
    Step(1, "base schema: documents, versions, observations, clusters, memberships, events, vectors, changes",
         _v1_base),
    Step(2, "index clusters by (updated_at, id) for the most-recent-first listing", _v2_clusters_recent_index),
    Step(3, "editor_corrections: editors' splits, merges and 'not the same' pairs, with who and when",
         _v3_editor_corrections),
    Step(4, "stories: the event level above copy groups (stories table; clusters.story_id, story_score, "
            "story_reason)", _v4_stories),
    Step(5, "correction_withdrawals: editors' withdrawals of corrections (undo), with who and when",
         _v5_correction_withdrawals),
    Step(6, "documents.erased_at: when a document's texts, URLs and vectors were erased (privacy)", _v6_erasure),
]
LATEST_VERSION = STEPS[-1].version

_BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at DOUBLE PRECISION
)
"""


def upgrade(store: _Executor, *, pk: str, blob: str, where: str, target: int | None = None) -> dict[str, Any]:
    """Bring ``store`` to ``target`` (default: the latest version); call inside its write transaction.

    Returns ``{"from": old version, "to": new version, "applied": [step names]}``. ``target`` is
    for tests that need an older store. Raises :class:`StoreOpenError` for a store newer than
    this code or one with tables but no version.
    """
    target = LATEST_VERSION if target is None else target
    if [s.version for s in STEPS] != list(range(1, len(STEPS) + 1)):
        raise AssertionError("migration steps must be numbered 1, 2, 3, ... in order")
    db = Schema(store, "sqlite" if pk.startswith("INTEGER") else "postgresql", pk, blob)
    db.exec(_BOOKKEEPING)
    row = store._one("SELECT value FROM meta WHERE key = 'schema_version'")
    if row is None:
        if db.has_table("documents"):
            raise StoreOpenError(f"{where}: has samestory tables but no schema version; not touching it")
        current = 0
    else:
        current = int(row[0])
    if current > LATEST_VERSION:
        raise StoreOpenError(f"{where}: store schema version {current} is newer than this samestory knows "
                             f"({LATEST_VERSION}); upgrade samestory instead")
    if current >= 1 and store._one("SELECT 1 FROM schema_migrations WHERE version = 1") is None:
        # A store from before this log: its steps ran, but when is unknown.
        for step in STEPS[:current]:
            store._exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, NULL)",
                        (step.version, step.name))
    applied = []
    for step in STEPS[current:target]:
        step.apply(db)
        store._exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (step.version, step.name, time.time()))
        applied.append(step.name)
    new = max(current, min(target, LATEST_VERSION))
    if row is None:
        store._exec("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(new),))
    elif applied:
        store._exec("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(new),))
    return {"from": current, "to": new, "applied": applied}
