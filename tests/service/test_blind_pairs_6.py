"""The sixth blind hand-written set (tests/data/blind_pairs_6.md): 170 headline pairs written on
2026-12-07 before any scoring, by a writer who read neither the engine's code, its rules, its notes,
the other hand-written sets nor /work/shared/eval-data (only the descriptions of blind sets 3, 4 and
5, for the shape and the kinds used before). Kept as written: no rule is to be tuned on it (a frame
written from one of its pairs makes that pair no longer blind; say so here if it happens).

Spent as classes (not as pairs): its first scoring found six kinds no rule knew (a unit or scale, a
comparison base, suspect / victim, casualties, rank or medal, the side of a stake deal); the tenth
frames pass wrote its own invented pairs for them (tests/data/frame_pairs_10.jsonl), so their
figures below are no longer blind measures."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "blind_pairs_6.jsonl"


def test_the_sixth_blind_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 170
    assert Counter(r["label"] for r in recs) == {1: 70, 0: 100}
    assert Counter(r["kind"] for r in recs) == {"copy_same_lang": 44, "copy_xl": 26, "unit_scale": 9,
                                                "comparison_base": 9, "stake_side": 9, "rank_place": 9,
                                                "suspect_victim": 8, "custody": 8, "cohort_swap": 8,
                                                "index_swap": 8, "no_casualties": 8, "outcome": 6,
                                                "who_where_which": 6, "follow_up": 6, "number_date": 6}


@pytest.mark.heavy
def test_the_shipped_engine_on_the_sixth_blind_pairs() -> None:
    """Measured on its first scoring (`samestory eval pairs tests/data/blind_pairs_6.jsonl`, verifier
    on, at 14947f1): 40 false merges of 100 different reports, 34 of them in kinds no earlier set had
    (a unit or scale changed, % against %p or per month against per year, 8 of 9; another comparison
    base, year on year against month on month, 8 of 9; suspect against victim 7 of 8; no casualties
    against casualties 5 of 8; another rank or medal 4 of 9; buying against selling a stake 3 of 9;
    another age cohort 1 of 8; custody, arrest against release, 1 of 8; another index 0 of 8) and one
    each of outcome, who / where / which and follow-up (numbers and dates 0 of 6); 26 at the n-gram
    stage, 13 at the embedding stage, 1 MinHash. Copies: 27 of 70 (same-language rewordings 9 of 44:
    the verifier refused 26, 6 fell below the cosine threshold, 3 a guard; Korean-English 18 of 26:
    5 below every threshold, the verifier refused 3). After the tenth frames pass (written from its
    own invented pairs for those classes) and the tenth mend: 22 false merges (a unit or scale 5,
    a comparison base 4, casualties 4, suspect / victim 2, stake side 2, cohort, custody, outcome,
    who / where / which and follow-up 1 each), the same 27 copies.
    The test holds those figures: fewer false merges or more copies are progress (tighten the
    bounds), the reverse a regression."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 22 and sum(found.values()) >= 27, (found, false_merges)
