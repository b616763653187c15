"""The second frames set (tests/data/frame_pairs_2.jsonl, hand-written 2026-12-07 before scoring):
elections, attempts, markets entered or left, output expanded or cut, jobs, listings, net buying,
allowed / blocked, strikes, alive / dead / injured, hospital, search, fires, trials, earnings and
surpluses, highs and lows, warnings, trading halts, resignations kept; who / where / which swaps;
follow-ups; copies in other words and in other senses (service/rules/guards/polarity.toml)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "frame_pairs_2.jsonl"
# Different reports the guards let through (the encoder and the verifier refuse both): a who swap
# across languages whose names are not aligned ("BTS's Jimin" / "블랙핑크 로제") and two chip model
# codes the which / version slots do not read (B300 / H200); and "16-year high" / "16-year low": an
# N-year high or low names no asset, and as direction terms they vetoed a UCI same-story copy (one
# index at a 32-month high, sterling at a one-month low), so they are not listed.
KNOWN_MISSES = {"frame2/who/7", "frame2/which/4", "frame2/outcome/19"}
# The copy the who guard refused on raw text ("(LEAD)" and "- Yonhap" read as names),
# frame2/syndication/3, passes since the follow-ups pass: "LEAD" is a tag (slots.updates.toml).
KNOWN_COPY_VETOES: set[str] = set()


def test_the_second_frame_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 108
    assert Counter(r["label"] for r in recs) == {1: 39, 0: 69}
    assert all(r["id"].startswith(f"frame2/{r['kind']}/") for r in recs)


def test_the_guards_refuse_the_new_frames_and_no_further_copy() -> None:
    """Before these rules the guards refused 17 of the 69 different pairs (the who / where / which
    swaps and one follow-up) and vetoed 3 copies; now 66 and 1 (KEPCO and 대법 aliases;
    0 since the follow-ups pass)."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert vetoed == KNOWN_COPY_VETOES, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_second_frame_pairs() -> None:
    """Measured (research/notes/guards.md, "Frames pass 2"): 25 false merges of 69 and 23 copies of 39
    before; 0 false merges and 24 copies after (the KEPCO alias). The copies missed are the encoder's and the verifier's."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) == 0 and sum(found.values()) >= 24, (found, false_merges)
