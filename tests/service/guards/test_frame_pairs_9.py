"""The ninth frames set (tests/data/frame_pairs_9.jsonl, hand-written 2026-12-07 before scoring): a
forecast against the actual figure, a partial against a full action, a record tied against broken, one
release of a statistic against another (advance / preliminary / final), a plan against its reversal,
another alert level, and follow-ups; copies of each in other words or the other language; and 222
ordinary copies (kind self_copy) that use these words the ordinary way: the pass's copy-side
self-check."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "frame_pairs_9.jsonl"
# Different reports the guards let through: a preliminary against a revised reading (English
# "preliminary" and "revised" each stand for two releases, so they share one), a results date against
# the results, and a poll's favourite against the winner (no member of either frame reads them).
KNOWN_MISSES: set[str] = {"frames9/release/6", "frames9/follow_up/4", "frames9/follow_up/5"}
# Copies the guards veto, all older than this pass: the who guard's subjects ("Lee" / 이, 공매도 /
# Korea, Korea / 한반도, Seoul / 코스피, Lee / 이재명) and a launch postponed read as held (발사, 연기 after a
# comma).
KNOWN_VETOES: set[str] = {"frames9/partial_copy/7", "frames9/partial_copy/8", "frames9/self_copy/63",
                          "frames9/self_copy/98", "frames9/self_copy/139", "frames9/self_copy/142",
                          "frames9/self_copy/166"}


def test_the_ninth_frame_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 342
    assert Counter(r["label"] for r in recs) == {1: 273, 0: 69}
    assert Counter(r["kind"] for r in recs)["self_copy"] == 222
    assert all(r["id"].startswith(f"frames9/{r['kind']}/") for r in recs)
    assert all((r["label"] == 1) == (r["kind"] == "self_copy" or r["kind"].endswith("_copy")) for r in recs)


def test_the_guards_refuse_the_ninth_frames_and_no_new_copy() -> None:
    """Before these rules the guards let 61 of the 69 different pairs through and vetoed 13 copies
    (2 of the 51 copies of the frames, 10 of the 222 ordinary ones, on main at 8c2155d); now 3 and 7,
    none of them by the new families (the 5 freed: a plan withdrawn read as a plan, three aliases)."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert vetoed == KNOWN_VETOES, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_ninth_frame_pairs() -> None:
    """Measured (research/notes/guards.md, "Frames pass 9"): 44 false merges of 69 and 196 copies of
    273 before (forecast 10, record 9, partial 8, reversal 7, release 5, alert 4, follow-up 1); 1 false
    merge (release/6) and 198 copies after (2 ordinary copies freed from the guards: a plan
    withdrawn, an alias). The copies missed are the encoder's and the verifier's."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 1 and sum(found.values()) >= 198, (found, false_merges)
