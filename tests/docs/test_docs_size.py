"""The user docs stay short (issue 38): the README at most 10 KB, the docs folder's pages under
100 KB together. Measurements and experiments belong in research/notes, which has no bound."""

from __future__ import annotations

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def test_the_readme_is_at_most_10_kb() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= 10 * 1024, f"README.md is {size} bytes; move detail to docs/ or research/notes/"


def test_the_docs_pages_are_under_100_kb_together() -> None:
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert len(pages) >= 10  # a glob that found nothing would pass the bound
    sizes = {p.name: len(p.read_bytes()) for p in pages}
    assert sum(sizes.values()) < 100 * 1024, sizes


def test_the_lab_notes_are_kept_not_deleted() -> None:
    notes = ROOT / "research" / "notes"
    for name in ("stories.md", "xling.md", "guards.md", "bench-history.md", "readme-history.md"):
        assert (notes / name).stat().st_size > 5_000, name
