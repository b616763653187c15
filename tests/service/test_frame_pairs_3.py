"""The third frames set (tests/data/frame_pairs_3.jsonl, hand-written 2026-12-07 before scoring):
who / where / which changes (transliterated names, Korean short names, Hanja abbreviations),
numbers and dates in other notations, role swaps (Korean particles too), follow-ups; copies in
other words, other notations, the passive voice, syndication tags and words in other senses."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "frame_pairs_3.jsonl"
# Different reports the guards let through; the encoder or the verifier refuses each (the engine
# test below). Names no table knows in two scripts or a team behind a possessive (who/9, which/8,
# which/9: "그램 프로" / "올레드 에보"); a place pair no gazetteer holds (Hualien / Taitung); figures
# in words ("a tenth" / 20%, "by half" / 30%) or in degrees ("minus 15C" / "영하 12도"); a role frame
# with no name before the verb ("North Korean patrol boat fires on ..."), one across languages
# ("wins a deal from Pfizer" / "화이자, ...로부터 수주") and one Korean merger ("A, B 흡수합병": no
# particle to read); a launch scheduled / lifted off. The fourth frames pass (tests/data/
# frame_pairs_4.jsonl) refuses four more: "a tenth" / 20 %, "by half" / 30 %, "minus 15C" / "영하 12도" and the merger.
KNOWN_MISSES = {
    "frame3/who/9",
    "frame3/where/6",
    "frame3/which/8",
    "frame3/which/9",
    "frame3/role/12",
    "frame3/role/15",
    "frame3/follow_up/10",
}
# The copy the who guard refused on raw text ("(LEAD)" and "- Yonhap" read as names),
# frame3/syndication/2, passes since the follow-ups pass: "LEAD" is a tag (slots.updates.toml).
KNOWN_COPY_VETOES: set[str] = set()


def test_the_third_frame_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 111
    assert Counter(r["label"] for r in recs) == {1: 40, 0: 71}
    assert all(r["id"].startswith(f"frame3/{r['kind']}/") for r in recs)


def test_the_guards_refuse_the_new_frames_and_no_further_copy() -> None:
    """Before these rules the guards let 24 of the 71 different pairs through and vetoed 3 copies
    (a range "9-10 trillion won" read as 9, Pfizer / 화이자, the syndication tags); now 7 and 1
    (11 after the third pass; the fourth pass's rules refuse four more; the follow-ups pass passes the
    copy)."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert vetoed == KNOWN_COPY_VETOES, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_third_frame_pairs() -> None:
    """Measured (research/notes/guards.md, "Frames pass 3"): 9 false merges of 71 and 27 copies of 40
    before; 0 false merges and 29 copies after. The copies missed are the encoder's and the verifier's
    (passive roles, figures in words, short Korean-English headlines)."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) == 0 and sum(found.values()) >= 29, (found, false_merges)
