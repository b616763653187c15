"""Markdown as GitHub reads it: headings' anchors and links' targets, for the doc tests."""

from __future__ import annotations

import re
from pathlib import Path

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
    """The anchors of the headings in ``path`` (as GitHub makes them), fenced code left out."""
    out, fenced = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(github_anchor(line.lstrip("#")))
    return out


def links(path: Path) -> list[str]:
    """The targets of the Markdown links in ``path``, fenced code left out."""
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            out.extend(_LINK.findall(line))
    return out
