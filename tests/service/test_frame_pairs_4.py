"""The fourth frames set (tests/data/frame_pairs_4.jsonl, hand-written 2026-12-07 before scoring):
figures in words against digits, temperatures and other signed figures, passive and other-voice
roles, role frames across languages and in Title Case, Korean product and model names, places no
gazetteer holds, outcome flips, follow-ups; copies with the same figure in words and in digits, the
same role in another voice or language, the frame's words in other senses."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "frame_pairs_4.jsonl"
# Different reports the guards let through; the encoder or the verifier refuses each (the engine
# test below): orders of magnitude one apart ("수십" / "hundreds": fuzzy, as translators round them), a sign against no sign ("-0.2%" / "0.2%"), a suit lost across languages (LG엔솔 /
# LG Energy Solution), a Title-Case role swap with its second party after "From", Korean product
# names and product kinds no table knows (그램 프로 / 올레드 에보, 냉장고 / 세탁기), neighbouring
# counties in two scripts (청송 / Yeongyang), two players in two scripts no table aligns (a raid's
# follow-up is refused since the follow-ups pass: polarity case_step; 증원 확정 / 증원 무산 since the ninth
# frames pass: measures family course, a decision against a plan fallen through).
KNOWN_MISSES = {
    "frame4/number/7",
    "frame4/signed/8",
    "frame4/role/9",
    "frame4/role/11",
    "frame4/which/2",
    "frame4/which/5",
    "frame4/where/2",
    "frame4/who/1",
}


def test_the_fourth_frame_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 93
    assert Counter(r["label"] for r in recs) == {1: 41, 0: 52}
    assert all(r["id"].startswith(f"frame4/{r['kind']}/") for r in recs)


def test_the_guards_refuse_the_new_frames_and_no_copy() -> None:
    """Before these rules the guards let 32 of the 52 different pairs through and vetoed 2 copies
    ("한국, 일본에 1-2 패배" / "일본, 한국에 2-1 승리" read as a role swap, 양평군 / 양평 as two names);
    now 9 and none (10 before the follow-ups pass)."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert not vetoed, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_fourth_frame_pairs() -> None:
    """Measured (research/notes/guards.md, "Frames pass 4"): 14 false merges of 52 and 22 copies of 41
    before; 0 false merges and 27 copies after. The copies missed are the verifier's and the encoder's
    (passive roles, figures in words, short Korean-English headlines)."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) == 0 and sum(found.values()) >= 27, (found, false_merges)
