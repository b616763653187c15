"""SQL shared by the SQLite and PostgreSQL stores (placeholders written as ``?``)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from service.store.base import (
    ClusterEventRow,
    ClusterRow,
    DocumentRow,
    MembershipRow,
    ObservationRow,
    StoryRow,
    VersionRow,
)
from service.store.migrations import LATEST_VERSION, upgrade

# The schema is built and upgraded by the ordered steps of service.store.migrations.
SCHEMA_VERSION = LATEST_VERSION

_CLUSTER_COLS = "id, representative_id, created_at, updated_at, story_id, story_score, story_reason"


def _cluster(row: Any) -> ClusterRow:
    return ClusterRow(int(row[0]), int(row[1]), row[2], row[3], None if row[4] is None else int(row[4]), row[5],
                      row[6])


_DOC_COLS = ("id, channel, doc_key, url, source, cluster_id, latest_version_id, published_at, first_seen, deleted,"
             " erased_at")
_VER_COLS = "id, document_id, content_hash, title, body, lang, created_at"
# A copy group or story that holds members: a group whose every member moved to another group (an
# editor's split withdrawn, a settling) and a story left with no such group (merged into another, its
# split withdrawn) keep their rows, which corrections and decisions name, but are not listed or counted.
# Members that were deleted still hold their group (its listing shows it without a representative).
_GROUP_HELD = "EXISTS (SELECT 1 FROM memberships m WHERE m.cluster_id = clusters.id)"
_STORY_HELD = ("EXISTS (SELECT 1 FROM clusters c JOIN memberships m ON m.cluster_id = c.id"
               " WHERE c.story_id = stories.id)")
# What a warm-up reads (both the rebuild and the snapshot's window filter): one clause, so they agree.
_LIVE_SINCE = "d.deleted = 0 AND (d.first_seen >= ? OR d.published_at >= ?)"


def _doc(row: Any) -> DocumentRow:
    return DocumentRow(int(row[0]), row[1], row[2], row[3], row[4], None if row[5] is None else int(row[5]),
                       None if row[6] is None else int(row[6]), row[7], row[8], bool(row[9]),
                       row[10])


def _names(decision: dict[str, Any], document_id: int) -> bool:
    """Whether a stored decision was made against ``document_id`` (matched it, or a reason names it)."""
    if decision.get("matched_id") == document_id:
        return True
    mention = re.compile(rf"(?:document |anchor |#){document_id}(?!\d)")
    return any(isinstance(r, str) and mention.search(r) for r in decision.get("reasons", ()))


def _ver(row: Any) -> VersionRow:
    return VersionRow(int(row[0]), int(row[1]), row[2], row[3], row[4], row[5], row[6])


class SQLStoreBase:
    """Dialect-neutral queries; subclasses provide the connection, ``_exec`` and ``_outer_transaction``.

    Subclasses set ``_lock`` (a ``threading.RLock``) and ``_depth = 0`` before the first transaction.
    """

    url: str
    _lock: threading.RLock
    _depth: int

    def _outer_transaction(self) -> AbstractContextManager[None]:
        """Begin, commit (or roll back) one database transaction: the dialect's part."""
        raise NotImplementedError

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; re-entrant within a thread (an inner one joins the outer)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            with self._outer_transaction():
                self._depth = 1
                try:
                    yield
                finally:
                    self._depth = 0

    # dialect hooks ---------------------------------------------------------------------------
    def _exec(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        raise NotImplementedError

    def _insert(self, sql: str, params: tuple[Any, ...]) -> int:
        row = self._exec(sql + " RETURNING id", params).fetchone()
        return int(row[0])

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return self._exec(sql, params).fetchone()

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return list(self._exec(sql, params).fetchall())

    def _install_schema(self, *, pk: str, blob: str, where: str) -> None:
        """Create a new store's tables, or bring an older store's up to date (inside a transaction)."""
        self.schema_report = upgrade(self, pk=pk, blob=blob, where=where)

    # documents and versions --------------------------------------------------------------------
    def find_document(self, channel: str, doc_key: str) -> DocumentRow | None:
        row = self._one(f"SELECT {_DOC_COLS} FROM documents WHERE channel = ? AND doc_key = ?", (channel, doc_key))
        return _doc(row) if row else None

    def insert_document(self, channel: str, doc_key: str | None, url: str | None, source: str | None,
                        published_at: float | None, now: float) -> int:
        return self._insert(
            "INSERT INTO documents (channel, doc_key, url, source, published_at, first_seen) VALUES (?, ?, ?, ?, ?, ?)",
            (channel, doc_key, url, source, published_at, now),
        )

    def find_version(self, document_id: int, content_hash: str) -> VersionRow | None:
        row = self._one(f"SELECT {_VER_COLS} FROM versions WHERE document_id = ? AND content_hash = ?",
                        (document_id, content_hash))
        return _ver(row) if row else None

    def insert_version(self, document_id: int, content_hash: str, title: str, body: str, lang: str,
                       now: float) -> int:
        vid = self._insert(
            "INSERT INTO versions (document_id, content_hash, title, body, lang, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (document_id, content_hash, title, body, lang, now),
        )
        self._exec("UPDATE documents SET latest_version_id = ? WHERE id = ?", (vid, document_id))
        return vid

    def insert_observation(self, document_id: int, version_id: int, channel: str, url: str | None,
                           source: str | None, caller_id: str | None, now: float, status: str,
                           decision: dict[str, Any]) -> int:
        return self._insert(
            "INSERT INTO observations (document_id, version_id, channel, url, source, caller_id, observed_at, status,"
            " decision) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (document_id, version_id, channel, url, source, caller_id, now, status,
             json.dumps(decision, ensure_ascii=False)),
        )

    def get_document(self, document_id: int) -> DocumentRow | None:
        row = self._one(f"SELECT {_DOC_COLS} FROM documents WHERE id = ?", (document_id,))
        return _doc(row) if row else None

    def get_version(self, version_id: int) -> VersionRow | None:
        row = self._one(f"SELECT {_VER_COLS} FROM versions WHERE id = ?", (version_id,))
        return _ver(row) if row else None

    def versions_of(self, document_id: int) -> list[VersionRow]:
        return [_ver(r) for r in self._all(f"SELECT {_VER_COLS} FROM versions WHERE document_id = ? ORDER BY id",
                                           (document_id,))]

    def observations_of(self, document_id: int) -> list[ObservationRow]:
        rows = self._all(
            "SELECT id, document_id, version_id, channel, url, source, caller_id, observed_at, status, decision"
            " FROM observations WHERE document_id = ? ORDER BY id", (document_id,))
        return [ObservationRow(int(r[0]), int(r[1]), int(r[2]), r[3], r[4], r[5], r[6], r[7], r[8], json.loads(r[9]))
                for r in rows]

    def mark_deleted(self, document_id: int, now: float) -> None:
        self._exec("UPDATE documents SET deleted = 1 WHERE id = ?", (document_id,))

    def release_document_key(self, document_id: int) -> None:
        """Free a deleted document's (channel, key) for a new document (its url stays)."""
        self._exec("UPDATE documents SET doc_key = NULL WHERE id = ?", (document_id,))

    def erase_document(self, document_id: int, now: float,
                       redact: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
        """See ``Store.erase_document``: the rows stay (ids, counts, times, channel, source, status,
        stage and score), their words go. A content hash is the text's fingerprint: it becomes
        ``erased:<version id>`` (unique per document, as the constraint wants)."""
        self._exec("DELETE FROM vectors WHERE version_id IN (SELECT id FROM versions WHERE document_id = ?)",
                   (document_id,))
        self._exec("UPDATE versions SET title = '', body = '', content_hash = 'erased:' || CAST(id AS TEXT)"
                   " WHERE document_id = ?", (document_id,))
        self._exec("UPDATE documents SET url = NULL, doc_key = NULL, deleted = 1, erased_at = ? WHERE id = ?",
                   (now, document_id))
        self._exec("UPDATE observations SET url = NULL, caller_id = NULL WHERE document_id = ?", (document_id,))
        # Decisions that name it: its own, and others' whose matched document or reasons name it (a
        # LIKE narrows the scan; the exact test is ``_names``, on the parsed decision).
        like = (f'%"matched_id": {document_id},%', f"%document {document_id}%", f"%anchor {document_id}%",
                f"%#{document_id}%")
        where = "document_id = ? OR " + " OR ".join("decision LIKE ?" for _ in like)
        rewritten = 0
        for table, key in (("observations", "id"), ("memberships", "document_id")):
            for row in self._all(f"SELECT {key}, document_id, decision FROM {table} WHERE {where}",
                                 (document_id, *like)):
                decision = json.loads(row[2])
                own = int(row[1]) == document_id
                if not own and not _names(decision, document_id):
                    continue
                new = redact(decision)
                if new != decision:
                    self._exec(f"UPDATE {table} SET decision = ? WHERE {key} = ?",
                               (json.dumps(new, ensure_ascii=False), row[0]))
                    rewritten += not own
        return rewritten

    # clusters ----------------------------------------------------------------------------------
    def create_cluster(self, representative_id: int, now: float) -> int:
        cid = self._insert("INSERT INTO clusters (representative_id, created_at, updated_at) VALUES (?, ?, ?)",
                           (representative_id, now, now))
        self._exec("INSERT INTO cluster_events (cluster_id, old_representative, new_representative, reason, at)"
                   " VALUES (?, ?, ?, ?, ?)", (cid, None, representative_id, "first member", now))
        return cid

    def get_cluster(self, cluster_id: int) -> ClusterRow | None:
        row = self._one(f"SELECT {_CLUSTER_COLS} FROM clusters WHERE id = ?", (cluster_id,))
        return _cluster(row) if row else None

    def set_membership(self, document_id: int, cluster_id: int, now: float, stage: str, score: float | None,
                       matched_id: int | None, decision: dict[str, Any]) -> None:
        payload = json.dumps(decision, ensure_ascii=False)
        self._exec("DELETE FROM memberships WHERE document_id = ?", (document_id,))
        self._exec("INSERT INTO memberships (document_id, cluster_id, joined_at, stage, score, matched_id, decision)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?)", (document_id, cluster_id, now, stage, score, matched_id, payload))
        self._exec("UPDATE documents SET cluster_id = ? WHERE id = ?", (cluster_id, document_id))
        self._exec("UPDATE clusters SET updated_at = ? WHERE id = ?", (now, cluster_id))

    def set_representative(self, cluster_id: int, old: int | None, new: int, reason: str, now: float) -> None:
        self._exec("UPDATE clusters SET representative_id = ?, updated_at = ? WHERE id = ?", (new, now, cluster_id))
        self._exec("INSERT INTO cluster_events (cluster_id, old_representative, new_representative, reason, at)"
                   " VALUES (?, ?, ?, ?, ?)", (cluster_id, old, new, reason, now))

    def members_of(self, cluster_id: int) -> list[MembershipRow]:
        rows = self._all(
            "SELECT m.document_id, m.cluster_id, m.joined_at, m.stage, m.score, m.matched_id, m.decision"
            " FROM memberships m JOIN documents d ON d.id = m.document_id"
            " WHERE m.cluster_id = ? AND d.deleted = 0 ORDER BY m.document_id", (cluster_id,))
        return [MembershipRow(int(r[0]), int(r[1]), r[2], r[3], r[4], None if r[5] is None else int(r[5]),
                              json.loads(r[6])) for r in rows]

    def cluster_events(self, cluster_id: int) -> list[ClusterEventRow]:
        rows = self._all("SELECT id, cluster_id, old_representative, new_representative, reason, at"
                         " FROM cluster_events WHERE cluster_id = ? ORDER BY id", (cluster_id,))
        return [ClusterEventRow(int(r[0]), int(r[1]), None if r[2] is None else int(r[2]), int(r[3]), r[4], r[5])
                for r in rows]

    def list_clusters(self, limit: int, offset: int) -> list[ClusterRow]:
        """Copy groups that hold members (``_GROUP_HELD``), most recently updated first."""
        rows = self._all(f"SELECT {_CLUSTER_COLS} FROM clusters WHERE {_GROUP_HELD}"
                         " ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?", (limit, offset))
        return [_cluster(r) for r in rows]

    # stories -------------------------------------------------------------------------------------
    def create_story(self, now: float) -> int:
        return self._insert("INSERT INTO stories (created_at, updated_at) VALUES (?, ?)", (now, now))

    def set_cluster_story(self, cluster_id: int, story_id: int, score: float | None, reason: str,
                          now: float) -> None:
        """Put a copy group in a story, with the story decision's score and reason."""
        self._exec("UPDATE clusters SET story_id = ?, story_score = ?, story_reason = ? WHERE id = ?",
                   (story_id, score, reason, cluster_id))
        self._exec("UPDATE stories SET updated_at = ? WHERE id = ?", (now, story_id))

    def touch_story(self, story_id: int, now: float) -> None:
        self._exec("UPDATE stories SET updated_at = ? WHERE id = ?", (now, story_id))

    def get_story(self, story_id: int) -> StoryRow | None:
        row = self._one("SELECT id, created_at, updated_at FROM stories WHERE id = ?", (story_id,))
        return StoryRow(int(row[0]), row[1], row[2]) if row else None

    def list_stories(self, limit: int, offset: int) -> list[StoryRow]:
        """Stories that hold members (``_STORY_HELD``), most recently updated first."""
        rows = self._all(f"SELECT id, created_at, updated_at FROM stories WHERE {_STORY_HELD}"
                         " ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?", (limit, offset))
        return [StoryRow(int(r[0]), r[1], r[2]) for r in rows]

    def clusters_of_story(self, story_id: int) -> list[ClusterRow]:
        rows = self._all(f"SELECT {_CLUSTER_COLS} FROM clusters WHERE story_id = ? ORDER BY id", (story_id,))
        return [_cluster(r) for r in rows]

    # vectors, change feed, warm-up ---------------------------------------------------------------
    def save_vector(self, version_id: int, model: str, vector: bytes) -> None:
        self._exec("DELETE FROM vectors WHERE version_id = ? AND model = ?", (version_id, model))
        self._exec("INSERT INTO vectors (version_id, model, vec) VALUES (?, ?, ?)", (version_id, model, vector))

    def record_change(self, document_id: int, now: float) -> int:
        return self._insert_seq("INSERT INTO changes (document_id, at) VALUES (?, ?)", (document_id, now))

    def _insert_seq(self, sql: str, params: tuple[Any, ...]) -> int:
        row = self._exec(sql + " RETURNING seq", params).fetchone()
        return int(row[0])

    def changes_since(self, seq: int, limit: int | None = None) -> list[tuple[int, int]]:
        sql = "SELECT seq, document_id FROM changes WHERE seq > ? ORDER BY seq"
        params: tuple[Any, ...] = (seq,)
        if limit is not None:
            sql, params = sql + " LIMIT ?", (seq, int(limit))
        return [(int(r[0]), int(r[1])) for r in self._all(sql, params)]

    def max_change(self) -> int:
        row = self._one("SELECT MAX(seq) FROM changes")
        return int(row[0]) if row and row[0] is not None else 0

    def live_documents(self, since: float) -> Iterator[tuple[DocumentRow, VersionRow]]:
        """Non-deleted documents first seen or published since ``since``, newest first, with their latest version."""
        cols = ", ".join(f"d.{c.strip()}" for c in _DOC_COLS.split(",")) + ", " + \
            ", ".join(f"v.{c.strip()}" for c in _VER_COLS.split(","))
        cur = self._exec(
            f"SELECT {cols} FROM documents d JOIN versions v ON v.id = d.latest_version_id"
            f" WHERE {_LIVE_SINCE} ORDER BY d.id DESC",
            (since, since))
        while True:
            rows = cur.fetchmany(2_000)
            if not rows:
                break
            for r in rows:
                yield _doc(r[:11]), _ver(r[11:])

    def first_versions(self, document_ids: Collection[int] | None = None) -> dict[int, VersionRow]:
        """The first version of each of these documents (None: of every one) that has more than one:
        what the story level read when the document arrived (a new version leaves its story as it is)."""
        many = "SELECT MIN(id) FROM versions{} GROUP BY document_id HAVING COUNT(*) > 1"
        if document_ids is None:
            rows = self._all(f"SELECT {_VER_COLS} FROM versions WHERE id IN ({many.format('')})")
        else:
            ids, rows = sorted(set(document_ids)), []
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                inner = many.format(f" WHERE document_id IN ({', '.join('?' for _ in chunk)})")
                rows += self._all(f"SELECT {_VER_COLS} FROM versions WHERE id IN ({inner})", tuple(chunk))
        return {v.document_id: v for v in map(_ver, rows)}

    def live_document_ids(self, since: float) -> set[int]:
        """Ids of the documents ``live_documents(since)`` yields, without reading their rows."""
        return {int(r[0]) for r in self._all(f"SELECT d.id FROM documents d WHERE {_LIVE_SINCE}", (since, since))}

    def load_vectors(self, version_ids: list[int], model: str) -> dict[int, bytes]:
        out: dict[int, bytes] = {}
        for start in range(0, len(version_ids), 500):
            chunk = version_ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            for r in self._all(f"SELECT version_id, vec FROM vectors WHERE model = ? AND version_id IN ({marks})",
                               (model, *chunk)):
                out[int(r[0])] = bytes(r[1])
        return out

    def vector_models(self, version_ids: list[int]) -> set[str]:
        out: set[str] = set()
        for start in range(0, len(version_ids), 500):
            chunk = version_ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            out.update(str(r[0]) for r in self._all(
                f"SELECT DISTINCT model FROM vectors WHERE version_id IN ({marks})", tuple(chunk)))
        return out

    def counts(self) -> dict[str, int]:
        out = {}
        held = {"clusters": _GROUP_HELD, "stories": _STORY_HELD}  # empty ones are not counted
        for table in ("documents", "versions", "observations", "clusters", "stories"):
            where = f" WHERE {held[table]}" if table in held else ""
            out[table] = int(self._one(f"SELECT COUNT(*) FROM {table}{where}")[0])
        out["live_documents"] = int(self._one("SELECT COUNT(*) FROM documents WHERE deleted = 0")[0])
        return out
