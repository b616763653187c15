"""SQLite store: the embedded default (``sqlite:///var/samestory.db`` or ``:memory:``)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service.store.base import DuplicateKeyError, StoreOpenError
from service.store.sql import SQLStoreBase


class SQLiteStore(SQLStoreBase):
    """One SQLite file in WAL mode.

    Durability: ``synchronous=FULL`` means a transaction that returned from COMMIT survives a
    SIGKILL and a power cut; results are only handed back after that commit.
    Several processes may open the same file: ``BEGIN IMMEDIATE`` serialises writers, and each
    engine replays the ``changes`` feed at the start of its transaction.

    >>> store = SQLiteStore(":memory:")
    >>> with store.transaction():
    ...     doc = store.insert_document("rss", "https://a.example/x", None, None, None, 0.0)
    >>> store.get_document(doc).channel
    'rss'
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self.url = "sqlite:///" + self.path if self.path != ":memory:" else ":memory:"
        if self.path != ":memory:":
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # a file where a folder should be, no permission: one line, not a traceback
                raise StoreOpenError(f"cannot open SQLite store {self.path}: cannot create its folder "
                                     f"{Path(self.path).parent}: {exc.strerror or exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=60.0)
            self._conn.execute("PRAGMA foreign_keys = ON")
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            with self.transaction():
                self._install_schema(pk="INTEGER PRIMARY KEY AUTOINCREMENT", blob="BLOB", where=self.path)
        except sqlite3.Error as exc:  # not a database, no permission, a locked file: one line, not a traceback
            raise StoreOpenError(f"cannot open SQLite store {self.path}: {exc}") from exc

    def _exec(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        try:
            return self._conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc):
                raise DuplicateKeyError(str(exc)) from exc
            raise

    def erase_document(self, document_id: int, now: float,
                       redact: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
        """``SQLStoreBase.erase_document`` with ``secure_delete`` on: the pages the old texts leave are
        zeroed, not left in the file's free list (some SQLite builds have it off by default; with it
        off, an erased 9 KB body left 203 copies of its marker word in the file, tests/service/test_erase.py)."""
        was = self._conn.execute("PRAGMA secure_delete").fetchone()[0]
        self._conn.execute("PRAGMA secure_delete = ON")
        try:
            return super().erase_document(document_id, now, redact)
        finally:
            self._conn.execute(f"PRAGMA secure_delete = {int(was)}")

    @contextmanager
    def _outer_transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()
