"""The register of cross-lingual approaches (research/xling/approaches.json) and its report section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.report import XLING_GOALS, _xling_section
from research.xling.approaches import APPROACHES_FILE, load_approaches
from tests.helpers.markdown import headings_of
from tests.paths import REPO_ROOT

DOC = REPO_ROOT / "research" / "notes" / "xling.md"


def test_every_row_links_to_a_section_of_the_write_up() -> None:
    anchors = headings_of(DOC)
    rows = load_approaches()
    assert len({r.name for r in rows}) == len(rows)
    missing = [(r.name, r.section) for r in rows if r.section not in anchors]
    assert not missing


def test_the_shipped_and_default_rows_are_there() -> None:
    status = {r.name: r.status for r in load_approaches()}
    assert status["use_cos"].startswith("engine default")
    assert status["stacked_use"].startswith("shipped opt-in")


def test_bad_rows_are_precise_errors(tmp_path: Path) -> None:
    data = json.loads(APPROACHES_FILE.read_text(encoding="utf-8"))
    bad = tmp_path / "a.json"
    row = dict(data["rows"][0])
    del row["cost"]
    bad.write_text(json.dumps({"rows": [row]}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 0 lacks \['cost'\]"):
        load_approaches(bad)
    row = dict(data["rows"][0], r_at_p99=[0.5, 1.5, 0.1])
    bad.write_text(json.dumps({"rows": [row]}), encoding="utf-8")
    with pytest.raises(ValueError, match="r_at_p99 must be 3 numbers"):
        load_approaches(bad)
    bad.write_text(json.dumps({"rows": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="non-empty 'rows'"):
        load_approaches(bad)


def test_report_section_has_one_line_per_row_and_the_goals() -> None:
    lines = _xling_section()
    rows = load_approaches()
    table = [ln for ln in lines if ln.startswith("| [`")]
    assert len(table) == len(rows)
    assert " / ".join(f"{g:.2f}" for g in XLING_GOALS) in lines[2]
    assert "(fold 0 only" in next(ln for ln in table if "e5_ft" in ln)
