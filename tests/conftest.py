"""Shared fixtures.

PostgreSQL: ``pg_url`` gives each test a fresh schema on the server named by
``SAMESTORY_PG_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``) and drops it
afterwards. When the server is unreachable the test skips, unless
``SAMESTORY_REQUIRE_POSTGRES=1`` (CI, see ``.ci/run``), where it fails instead.

Redis: ``redis_url`` gives each test its own key prefix on the server named by
``SAMESTORY_REDIS_URL`` (default ``redis://127.0.0.1:6379/15``) and deletes those keys
afterwards; unreachable means skip, or fail under ``SAMESTORY_REQUIRE_REDIS=1`` (CI).

HTTP: ``make_client(**settings)`` builds a ``TestClient`` on an in-memory engine with the cheap
passes (no embedder) and the default guards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.helpers.pg import PG_URL, with_schema

REQUIRE_PG = os.environ.get("SAMESTORY_REQUIRE_POSTGRES") == "1"

_pg_problem: list[str | None] = []  # memo: None when reachable, else why not


def _pg_unavailable() -> str | None:
    if not _pg_problem:
        try:
            import psycopg

            with psycopg.connect(PG_URL, connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            _pg_problem.append(None)
        except Exception as exc:  # ImportError or any connection failure: report, do not guess
            _pg_problem.append(f"PostgreSQL at {PG_URL} is unavailable: {type(exc).__name__}: {exc}".strip())
    return _pg_problem[0]


@pytest.fixture
def pg_schema() -> Iterator[Callable[[], str]]:
    """A factory of fresh schemas (URLs); every schema it made is dropped after the test."""
    problem = _pg_unavailable()
    if problem:
        if REQUIRE_PG:
            pytest.fail(f"{problem} (SAMESTORY_REQUIRE_POSTGRES=1: PostgreSQL tests must not skip)")
        pytest.skip(problem)
    import psycopg

    made: list[str] = []

    def make() -> str:
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        made.append(name)
        return with_schema(PG_URL, name)

    yield make
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        for name in made:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture
def pg_url(pg_schema: Callable[[], str]) -> str:
    """The URL of one fresh, empty schema."""
    return pg_schema()


REDIS_URL = os.environ.get("SAMESTORY_REDIS_URL", "redis://127.0.0.1:6379/15")
REQUIRE_REDIS = os.environ.get("SAMESTORY_REQUIRE_REDIS") == "1"


@pytest.fixture
def redis_prefix() -> Iterator[tuple[str, str]]:
    """(server URL, a fresh key prefix); every key under the prefix is deleted after the test."""
    try:
        import redis

        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.ping()
    except Exception as exc:  # ImportError or any connection failure
        problem = f"Redis at {REDIS_URL} is unavailable: {type(exc).__name__}: {exc}"
        if REQUIRE_REDIS:
            pytest.fail(f"{problem} (SAMESTORY_REQUIRE_REDIS=1: Redis tests must not skip)")
        pytest.skip(problem)
    prefix = f"samestory-test:{uuid.uuid4().hex[:12]}"
    yield REDIS_URL, prefix
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture
def make_client() -> Iterator[Callable[..., Any]]:
    """``make_client(feed=(), **settings) -> TestClient`` on an in-memory engine (model none, default
    guards) that has ingested ``feed``."""
    from fastapi.testclient import TestClient

    from service.api import Settings, create_app
    from service.engine import Deduper
    from service.store import open_store

    opened: list[tuple[Any, Any]] = []

    def make(feed: Any = (), **settings: Any) -> TestClient:
        engine = Deduper(open_store(":memory:"), embedder=None)
        engine.ingest_many(list(feed))  # items the test reads back, ingested before the app starts
        app = create_app(Settings(**{"db": ":memory:", "model": None, **settings}), engine=engine)
        client = TestClient(app)
        client.__enter__()  # runs the lifespan
        opened.append((client, engine))
        return client

    yield make
    for client, engine in opened:
        client.__exit__(None, None, None)
        engine.close()
