"""The tenth mend set (tests/data/mend_pairs_10.jsonl, hand-written 2026-12-07 and committed before
scoring): copies the guards vetoed because a name on one side had no counterpart the alias tables
knew on the other, near misses where the name differs for real, and hedges:

* ``alias`` / ``alias_apart``: 안보리 / "UN Security Council" / UNSC, 맨시티 / "Man City" / "Manchester
  City", 라인야후 / "LY Corp" / "LINE Yahoo", 주한미군 / USFK and 주한 대사, 우리금융 / "Woori Financial",
  동양생명 / "Tongyang Life", 잉글랜드 프로축구 프리미어리그; against 유엔총회 / "UN General Assembly", the
  Human Rights Council, "Man United", 우리은행, 주일미군 / USFJ, Naver, ABL Life, Bundesliga, Championship;
* ``hedge_apart`` / ``hedge``: a hedge ("could halt") against the act stated ("생산 중단"), another
  report; and a hedge worded in both languages (수도, 우려, 가능성), a copy;
* ``self_copy``: 113 ordinary copies (ko-ko, en-en, ko-en headlines of every section), the copy-side
  self-check: no mend may veto one that passed before."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "mend_pairs_10.jsonl"
# Different reports the guards let through (before the mend 14): Man City against Liverpool (12; 리버풀
# is no name across scripts), 주한 중국대사 / "South Korean ambassador to China" (25: the two countries are
# named on both sides, the direction is not read), 라인야후 / Kakao (32: Kakao, the headline's first
# word, is weak), and four hedges against the act stated where no marker reads the act (결항될 수도 /
# "grounds", "could force" / 제한급수, "may shut" / 가동 중단, "could disrupt" / 차질): the engine decides.
KNOWN_MISSES: set[str] = {f"mend10/alias_apart/{n}" for n in (12, 25, 32)} | {
    f"mend10/hedge_apart/{n}" for n in (3, 4, 5, 6)}
# Copies the guards veto, all vetoed before the mend too (28 before: 24 alias copies, 1 hedge, 3
# self-check): 한중관계 glued against "South Korea" (alias/35), 물가상승률's 상승 against "falls"
# (self_copy/48), 한미 against "South Korea-US" (self_copy/101).
KNOWN_VETOES: set[str] = {"mend10/alias/35", "mend10/self_copy/48", "mend10/self_copy/101"}


def test_the_tenth_mend_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 223
    assert Counter(r["label"] for r in recs) == {1: 177, 0: 46}
    assert Counter(r["kind"] for r in recs) == {"self_copy": 113, "alias": 60, "alias_apart": 40,
                                                "hedge_apart": 6, "hedge": 4}
    assert all(r["id"].startswith(f"mend10/{r['kind']}/") for r in recs)


def test_the_guards_on_the_tenth_mend_pairs() -> None:
    """Before the mend the guards let 14 of the 46 different pairs through and vetoed 28 of the 177
    copies (25 of the 64 alias and hedge copies, 3 of the 113 self-check copies); now 7 and 3."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert vetoed == KNOWN_VETOES, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_tenth_mend_pairs() -> None:
    """Measured (`samestory eval pairs tests/data/mend_pairs_10.jsonl`, research/notes/guards.md "Mend
    10"): 7 false merges of 46 and 112 copies of 177 before; 3 and 120 after (no copy lost). The three
    are 주한 중국대사 / "South Korean ambassador to China" (alias_apart/25) and two hedges against the act
    stated ("may shut" / 가동 중단, "could disrupt" / 차질: hedge_apart/5, 6), merged before too."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 3 and sum(found.values()) >= 120, (found, false_merges)
