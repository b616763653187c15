"""Every relative link in the README, the changelog, docs/ and research/notes/ points at a file that exists, and at a heading
that exists when it names one: docs that drift from the tree fail here, not in a reader's hands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "bench" / "RESULTS.md", ROOT / "eval" / "RESULTS.md",
        *sorted((ROOT / "research" / "notes").glob("*.md"))]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")


def github_anchor(heading: str) -> str:
    """GitHub's heading slug: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens.

    >>> github_anchor("Results — out-of-fold, all three sets jointly (USE)")
    'results--out-of-fold-all-three-sets-jointly-use'
    >>> github_anchor("`/v1/dedupe` beside ingestion")
    'v1dedupe-beside-ingestion'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings_of(path: Path) -> set[str]:
    out, fenced = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(github_anchor(line.lstrip("#")))
    return out


def _links(path: Path) -> list[str]:
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            out.extend(_LINK.findall(line))
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for target in _links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in headings_of(dest):
            broken.append(f"{target} (no such heading)")
    assert not broken, broken
