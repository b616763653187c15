"""The eighth frames set (tests/data/frame_pairs_8.jsonl, hand-written 2026-12-07 before scoring):
an opposite outcome said with constructions other than the usual verb pair, in Korean, English and
Korean-English (score lines, elections, trials, deals, launches, votes, host bids and tenders,
auditions, exams, strikes averted or gone ahead, recalls); another member of one team, affiliate of
one group, place inside one city or province, product of one maker. Copies: the same outcome, member,
place or product in other words or the other language."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "frame_pairs_8.jsonl"
# Different reports the guards let through: a recall widened against one ended (no axis reads
# "expanded" / "ends" of a recall) and two product lines named by kind ("OLED TV" / "gram laptop"),
# both of which the engine refuses below the encoder's floor.
KNOWN_MISSES: set[str] = {"frames8/outcome/28", "frames8/which/4"}
# Copies the guards veto: none.
KNOWN_VETOES: set[str] = set()


def test_the_eighth_frame_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 100
    assert Counter(r["label"] for r in recs) == {1: 45, 0: 55}
    assert all(r["id"].startswith(f"frames8/{r['kind']}/") for r in recs)


def test_the_guards_refuse_the_new_frames_and_no_copy() -> None:
    """Before these rules the guards let 25 of the 55 different pairs through (24 outcomes in other
    words, one product line) and vetoed no copy; now 2 and none."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert vetoed == KNOWN_VETOES, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_eighth_frame_pairs() -> None:
    """Measured (research/notes/guards.md, "Frames pass 8"): 8 false merges of 55 and 27 copies of
    45 before; 0 false merges and 27 copies after. The 18 copies missed are the encoder's (cosine
    0.44-0.65: places and members across languages, "시공권 따내" / "wins contract") and the
    verifier's (score lines and elections reworded); no guard vetoes them."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) == 0 and sum(found.values()) >= 27, (found, false_merges)
