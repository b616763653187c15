"""``python -m bench.tables``: the method names it prints beside the figures."""

from __future__ import annotations

import re

from bench.tables import NAMES


def test_the_samestory_row_claims_no_guard_count() -> None:
    # It said "six guards" while the engine runs ten (docs/concepts.md, "Guards"); bench/RESULTS.md
    # names them "cascade + guards + store". A count here goes stale with every guard added.
    assert not re.search(r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten) guards\b", NAMES["samestory"])
    assert "guards" in NAMES["samestory"]
