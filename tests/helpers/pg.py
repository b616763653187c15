"""The tests' PostgreSQL server (``$SAMESTORY_PG_URL``) and URLs that select one schema on it.

The fixtures that make and drop schemas (``pg_schema``, ``pg_url``) are in ``tests/conftest.py``.
"""

from __future__ import annotations

import os
from urllib.parse import quote

PG_URL = os.environ.get("SAMESTORY_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


def with_schema(url: str, schema: str) -> str:
    """``url`` with libpq ``options`` selecting ``schema`` as the search path."""
    return f"{url}{'&' if '?' in url else '?'}options={quote(f'-csearch_path={schema}')}"
