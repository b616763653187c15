"""PostgreSQL store: the shared mode for many collectors (``postgresql://user@host:port/db``).

Several engine processes may open the same database. Correctness under concurrency rests on
two mechanisms:

1. Every write transaction starts with ``pg_advisory_xact_lock`` on a key derived from the
   store's schema, so the decide-and-write step of all engines sharing this store is
   serialised (the lock is released by COMMIT/ROLLBACK, so a crashed worker cannot leave it
   held). Inside the lock the engine first replays the ``changes`` feed (``StateRestart.catch_up``)
   and the connection runs READ COMMITTED, so every statement sees everything committed before
   the lock was granted: an engine never decides against a stale candidate index (staleness
   at decision time is zero; what it costs is that decisions are not parallel across workers).
2. UNIQUE constraints on (channel, doc_key) and (document_id, content_hash) remain the last
   line of defence; a violation surfaces as :class:`DuplicateKeyError`.

Because the lock serialises writers, ``changes.seq`` values are also committed in increasing
order, which is what makes "replay everything after my cursor" complete.

The schema is the one SQLite uses (``service.store.sql``), with ``BIGSERIAL`` keys and
``BYTEA`` vectors. Choose a schema other than ``public`` with the libpq ``options`` parameter,
e.g. ``postgresql://u@h/db?options=-csearch_path%3Dmyschema``; the advisory-lock key follows
the schema, so stores in different schemas do not block each other.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:
    import psycopg
    from psycopg import errors as pg_errors
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise ModuleNotFoundError(
        "the PostgreSQL store needs psycopg 3: pip install 'samestory[postgres]'", name=exc.name) from exc

from service.store.base import DuplicateKeyError, StoreOpenError
from service.store.sql import SQLStoreBase

# First half of the two-int advisory-lock key: a constant that says "samestory" so our locks
# cannot collide with another application's single-key locks. The second half is the schema.
LOCK_CLASS = 0x5A3E

_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s, hashtext(coalesce(current_schema(), '')))"


def to_pyformat(sql: str) -> str:
    """Convert the shared ``?`` placeholders to psycopg's ``%s`` (escaping literal ``%`` first).

    >>> to_pyformat("SELECT x FROM t WHERE a = ? AND b LIKE '5%'")
    "SELECT x FROM t WHERE a = %s AND b LIKE '5%%'"
    """
    return re.sub(r"\?", "%s", sql.replace("%", "%%"))


class PostgresUnavailable(StoreOpenError, ConnectionError):
    """The server cannot be reached, or refuses us (wrong password, no such database)."""


class PostgresStore(SQLStoreBase):
    """A store in one PostgreSQL schema, safe to share between processes (see module docstring).

    The connection runs in autocommit mode outside :meth:`transaction`, so reads never hold a
    snapshot open. One connection is used per store; a thread lock keeps statements of other
    threads out of an open transaction.
    """

    def __init__(self, url: str, *, connect_timeout: float = 10.0) -> None:
        self.url = url
        self._dsn = url
        self._connect_timeout = connect_timeout
        self._lock = threading.RLock()
        self._depth = 0
        self._sql: dict[str, str] = {}
        self._conn = self._connect()
        # Both statements always return one row (psycopg types fetchone() as "a row or None").
        schema = self._conn.execute("SELECT current_schema()").fetchone()
        if schema is None or schema[0] is None:
            path_row = self._conn.execute("SHOW search_path").fetchone()
            path = path_row[0] if path_row is not None else "?"
            self._conn.close()
            raise StoreOpenError(f"{_redact(url)}: no schema of the search_path ({path}) exists; create it "
                                 "(CREATE SCHEMA name) or name an existing one in ?options=-csearch_path%3Dname")
        with self.transaction():
            # Under the advisory lock, so two processes creating the schema at once do not race
            # on the catalog (CREATE TABLE IF NOT EXISTS is not concurrency-safe in PostgreSQL).
            self._install_schema(pk="BIGSERIAL PRIMARY KEY", blob="BYTEA", where=_redact(url))

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self._dsn, autocommit=True, connect_timeout=max(1, int(self._connect_timeout)))
        except psycopg.OperationalError as exc:
            why = " ".join(str(exc).split())  # libpq's message spans lines; the operator gets one
            raise PostgresUnavailable(f"cannot connect to PostgreSQL at {_redact(self._dsn)}: {why}") from exc

    def _ensure_connection(self) -> None:
        """Reconnect after the server dropped us, but never in the middle of a transaction."""
        if self._depth == 0 and (self._conn.closed or self._conn.broken):
            self._conn = self._connect()

    def _exec(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        query = self._sql.get(sql)
        if query is None:
            query = self._sql[sql] = to_pyformat(sql)
        with self._lock:
            self._ensure_connection()
            try:
                # Client-side cursor: the whole result is fetched here, so reading it after the
                # lock is released is safe.
                return self._conn.execute(query, params)
            except pg_errors.UniqueViolation as exc:
                raise DuplicateKeyError(str(exc).strip()) from exc

    @contextmanager
    def _outer_transaction(self) -> Iterator[None]:
        """Every write transaction holds the store-wide advisory lock until it commits."""
        self._ensure_connection()
        with self._conn.transaction():
            self._conn.execute(_LOCK_SQL, (LOCK_CLASS,))
            yield

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _redact(url: str) -> str:
    """The URL without its password, for error messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)
