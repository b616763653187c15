"""docs/architecture.md stays true: every file or folder it names in backticks exists, and it
names the files the import-direction test relies on."""

from __future__ import annotations

import re

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
DOC = ROOT / "docs" / "architecture.md"
# A backticked repository path: a folder with a slash, or a file with an extension.
_PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]*)`")


def named_paths(text: str) -> list[str]:
    """The repository paths a Markdown text names in backticks.

    >>> named_paths("see `service/engine.py` and `research/xling/`, not `samestory ...` or `POST /v1/articles`")
    ['service/engine.py', 'research/xling/']
    """
    return [p for p in _PATH.findall(text) if not p.startswith("/")]


def test_every_path_in_the_architecture_page_exists() -> None:
    paths = named_paths(DOC.read_text(encoding="utf-8"))
    assert len(paths) >= 30  # the page names the files of every step; a regex slip would find none
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


def test_the_request_path_starts_at_the_articles_router() -> None:
    text = DOC.read_text(encoding="utf-8")
    first_step = next(line for line in text.splitlines() if line.startswith("| 2 |"))
    assert "service/api/routers/articles.py" in first_step
    route = (ROOT / "service" / "api" / "routers" / "articles.py").read_text(encoding="utf-8")
    assert '@router.post("/articles"' in route and 'prefix="/v1"' in route
