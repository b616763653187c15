"""Every relative link in the README, the changelog, docs/ and research/notes/ points at a file that exists, and at a heading
that exists when it names one: docs that drift from the tree fail here, not in a reader's hands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.markdown import headings_of, links
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "bench" / "RESULTS.md", ROOT / "eval" / "RESULTS.md",
        *sorted((ROOT / "research" / "notes").glob("*.md"))]
@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for target in links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in headings_of(dest):
            broken.append(f"{target} (no such heading)")
    assert not broken, broken
