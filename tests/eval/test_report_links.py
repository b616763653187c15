"""The links eval/report.py writes into eval/RESULTS.md point at sections that exist.

The report is generated, so a section moved out of docs/ (into research/notes/) breaks its links
in the generator, not only in the committed file: the links are checked where they are made, and
the committed file must carry the register section the generator renders now.
"""

from __future__ import annotations

import re
from pathlib import Path

from eval import report
from eval.report import _xling_section
from tests.helpers.markdown import headings_of
from tests.paths import REPO_ROOT

RESULTS = REPO_ROOT / "eval" / "RESULTS.md"
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _broken(targets: list[str], base: Path) -> list[str]:
    """The relative targets (from the folder ``base``) whose file or heading does not exist."""
    out = []
    for target in targets:
        file_part, _, anchor = target.partition("#")
        dest = (base / file_part).resolve()
        if not dest.is_file():
            out.append(f"{target} (no such file)")
        elif anchor and anchor not in headings_of(dest):
            out.append(f"{target} (no such heading)")
    return out


def test_the_register_rows_link_to_sections_of_the_research_notes() -> None:
    targets = [t for line in _xling_section() for t in _LINK.findall(line)]
    assert targets and all(t.startswith("../research/notes/xling.md#") for t in targets), targets
    assert _broken(targets, RESULTS.parent) == []


def test_every_fixed_link_in_the_generator_resolves_from_eval() -> None:
    source = Path(report.__file__).read_text(encoding="utf-8")
    targets = [t for t in _LINK.findall(source) if "{" not in t and not t.startswith(("http:", "https:"))]
    assert "../docs/guards.md#slots-who-where-which-number" in targets
    assert _broken(targets, RESULTS.parent) == []


def test_the_committed_report_carries_the_register_as_rendered_now() -> None:
    """A row added to research/xling/approaches.json, or a link moved, shows in eval/RESULTS.md."""
    section = "\n".join(_xling_section()).strip()
    assert section in RESULTS.read_text(encoding="utf-8")
