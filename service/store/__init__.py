"""Store back-ends, chosen by a small factory from a URL (datasketch's storage-config style)."""

from __future__ import annotations

from pathlib import Path

from service.store.base import DuplicateKeyError, Store, StoreOpenError
from service.store.sqlite import SQLiteStore


def sqlite_path(url: str) -> str | None:
    """The file a SQLite store URL names (``:memory:`` included), or None for other back-ends.

    >>> sqlite_path("sqlite:///var/s.db"), sqlite_path("x.db"), sqlite_path("postgresql://h/db")
    ('var/s.db', 'x.db', None)
    """
    if url == ":memory:":
        return url
    if url.startswith("sqlite:///"):
        return url[len("sqlite:///") :]
    if "://" not in url and url.endswith((".db", ".sqlite", ".sqlite3")):
        return url
    return None


def require_existing(url: str) -> None:
    """Raise ``FileNotFoundError`` when ``url`` names a SQLite file that does not exist (read-only
    commands: a mistyped path must be an error, not a new empty store); other URLs pass."""
    path = sqlite_path(url)
    if path is not None and path != ":memory:" and not Path(path).is_file():
        raise FileNotFoundError(f"no SQLite store at {path}")


def open_store(url: str, *, must_exist: bool = False) -> Store:
    """Open a store from ``url``.

    - ``:memory:`` - an in-process SQLite database (tests, stateless evaluation);
    - ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` or a bare ``*.db`` path - SQLite;
    - ``postgresql://user@host:port/dbname`` - PostgreSQL (needs the ``postgres`` extra).

    A SQLite file is created when missing, unless ``must_exist`` (see :func:`require_existing`).

    >>> open_store("mysql://x")
    Traceback (most recent call last):
    ...
    service.store.base.StoreOpenError: unsupported store URL 'mysql://x': use ':memory:', 'sqlite:///PATH' or 'postgresql://...'
    """
    if not isinstance(url, str) or not url:
        raise StoreOpenError("store URL must be a non-empty string")
    if must_exist:
        require_existing(url)
    path = sqlite_path(url)
    if path is not None:
        return SQLiteStore(path)
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from service.store.postgres import PostgresStore
        except ModuleNotFoundError as exc:  # the default install has no psycopg: say how to get it
            raise StoreOpenError(f"{exc}" if "samestory[postgres]" in str(exc) else
                                 f"the PostgreSQL store needs psycopg 3 ({exc}): pip install 'samestory[postgres]'"
                                 ) from exc
        return PostgresStore(url)
    raise StoreOpenError(f"unsupported store URL {url!r}: use ':memory:', 'sqlite:///PATH' or 'postgresql://...'")


__all__ = ["DuplicateKeyError", "SQLiteStore", "Store", "StoreOpenError", "open_store", "require_existing",
           "sqlite_path"]
