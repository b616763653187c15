"""Store back-ends, chosen by a small factory from a URL (datasketch's storage-config style)."""

from __future__ import annotations

from service.store.base import DuplicateKeyError, Store
from service.store.sqlite import SQLiteStore


def open_store(url: str) -> Store:
    """Open a store from ``url``.

    - ``:memory:`` - an in-process SQLite database (tests, stateless evaluation);
    - ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` or a bare ``*.db`` path - SQLite;
    - ``postgresql://user@host:port/dbname`` - PostgreSQL (needs the ``postgres`` extra).

    >>> open_store("mysql://x")
    Traceback (most recent call last):
    ...
    ValueError: unsupported store URL 'mysql://x': use ':memory:', 'sqlite:///PATH' or 'postgresql://...'
    """
    if not isinstance(url, str) or not url:
        raise ValueError("store URL must be a non-empty string")
    if url == ":memory:":
        return SQLiteStore(":memory:")
    if url.startswith("sqlite:///"):
        return SQLiteStore(url[len("sqlite:///") :])
    if url.startswith(("postgresql://", "postgres://")):
        from service.store.postgres import PostgresStore

        return PostgresStore(url)
    if "://" not in url and url.endswith((".db", ".sqlite", ".sqlite3")):
        return SQLiteStore(url)
    raise ValueError(f"unsupported store URL {url!r}: use ':memory:', 'sqlite:///PATH' or 'postgresql://...'")


__all__ = ["DuplicateKeyError", "SQLiteStore", "Store", "open_store"]
