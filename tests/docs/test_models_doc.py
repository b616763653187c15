"""docs/models.md's example of the pair verifier is one the verifier decides."""

from __future__ import annotations

import re
import shlex

from service import Deduper
from tests.paths import REPO_ROOT


def test_the_verifier_example_is_refused_by_the_verifier() -> None:
    page = (REPO_ROOT / "docs" / "models.md").read_text("utf-8")
    section = page[page.index("## The pair verifier"):]
    command = re.search(r"^samestory compare .+$", section, re.M)
    assert command is not None
    a, b = shlex.split(command.group(0))[2:]
    # The example stood under the verifier's heading but the polarity guard refused it first
    # (completes vs scraps): a reader running it saw no verifier at all.
    with Deduper.open(":memory:", model=None) as d:
        decision = d.compare(a, b)
    assert not decision.same and decision.blocked_by == ["verifier"]
    assert any(r.startswith("verifier: ") and " < 0.50" in r for r in decision.reasons)
