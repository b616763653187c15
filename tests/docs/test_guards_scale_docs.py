"""Figures that docs/guards.md and docs/scale.md print, checked against the code that makes them.

- docs/guards.md's Python example: every line ``expr  # <a Python literal>`` says what ``expr``
  gives (it said ``['quantity']`` while the number guard vetoed the pair too).
- docs/scale.md's search floors are ``SearchPlan.for_engine``'s (it said 0.43 with the verifier on
  after the rescue's anchored floor moved the search down to 0.28).
"""

from __future__ import annotations

import ast
import re

from tests.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"


def _python_block(page: str, after: str) -> str:
    start = page.index("```python\n", page.index(after)) + len("```python\n")
    return page[start:page.index("```", start)]


def test_the_guards_example_prints_what_its_comments_say() -> None:
    block = _python_block((DOCS / "guards.md").read_text("utf-8"), "# Guards")
    scope: dict[str, object] = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  #")
        try:
            expected = ast.literal_eval(comment.strip())
        except (ValueError, SyntaxError):
            exec(line, scope)
            continue
        assert eval(code, scope) == expected, line
        checked += 1
    assert checked >= 1


def test_the_search_floors_on_the_scale_page_are_the_plans() -> None:
    from service.batch.neighbours import FLOOR_MARGIN, SearchPlan
    from service.config import EngineConfig

    page = " ".join((DOCS / "scale.md").read_text("utf-8").split())
    m = re.search(r"The search stage keeps pairs down to ([\d.]+) under the lowest cosine the engine reads "
                  r"\(([\d.]+) with USE; ([\d.]+) with the verifier on, (?:where )?below ([\d.]+) (?:it keeps )?only", page)
    assert m is not None, "the sentence on the search floors moved: update this test"
    off = SearchPlan.for_engine(EngineConfig.of(verifier=False).for_model("use"))
    on = SearchPlan.for_engine(EngineConfig().for_model("use"))
    assert float(m[1]) == FLOOR_MARGIN
    assert (float(m[2]), float(m[3]), float(m[4])) == (off.floor, on.floor, on.same_language_floor)
