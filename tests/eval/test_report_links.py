"""The links eval/report.py writes into eval/RESULTS.md point at sections that exist.

The report is generated, so a section moved out of docs/ (into research/notes/) breaks its links
in the generator, not only in the committed file: the links are checked where they are made, and
the committed file must carry the register section the generator renders now.
"""

from __future__ import annotations

import re
from pathlib import Path

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


def _slot_section(out_dir: Path) -> list[str]:
    """The slot-veto section (the generator's fixed links to docs/) of a one-pair report."""
    from eval.data import Pair, Side
    from eval.pairs import Prediction, evaluate
    from eval.report import SAMESTORY, MethodRun, Report, SetReport, _slot_veto_section

    pairs = [Pair("p0", Side("a", "en"), Side("b", "en"), 0, "k")]
    preds = [Prediction("p0", False, 0.9, "ngram", ("who",), 0.0)]
    rep = SetReport("s", False, pairs_total=1, pairs=pairs,
                    runs={SAMESTORY: MethodRun(evaluate(SAMESTORY, pairs, preds), preds, 0.0)})
    return _slot_veto_section(Report({}, [rep], [SAMESTORY], {}), out_dir)


def test_every_fixed_link_in_the_generator_resolves_from_where_the_report_is(tmp_path: Path) -> None:
    """From eval/ (the committed report) or any folder of the checkout the links resolve; a report
    written outside the checkout (/tmp, an installed package) names the files unlinked, as a
    relative link from there would point at nothing."""
    targets = [t for line in _slot_section(RESULTS.parent) for t in _LINK.findall(line)]
    assert "../docs/guards.md#slots-who-where-which-number" in targets
    assert _broken(targets, RESULTS.parent) == []
    deeper = REPO_ROOT / "var" / "reports" / "mine"
    targets = [t for line in _slot_section(deeper) for t in _LINK.findall(line)]
    assert targets and all(t.startswith("../../../") for t in targets) and _broken(targets, deeper) == []
    outside = "\n".join(_slot_section(tmp_path))
    assert "`docs/guards.md`" in outside and _LINK.findall(outside) == []
    register = "\n".join(_xling_section(tmp_path))
    assert "`use_cos`" in register and _LINK.findall(register) == []


def test_the_committed_report_carries_the_register_as_rendered_now() -> None:
    """A row added to research/xling/approaches.json, or a link moved, shows in eval/RESULTS.md."""
    section = "\n".join(_xling_section()).strip()
    assert section in RESULTS.read_text(encoding="utf-8")
