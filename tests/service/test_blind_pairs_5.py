"""The fifth blind hand-written set (tests/data/blind_pairs_5.md): 170 headline pairs written on
2026-12-07 before any scoring, by a writer who read neither the engine's code, its rules, its notes,
the other hand-written sets nor /work/shared/eval-data (only the descriptions of blind sets 3 and 4,
for the shape and the kinds used before). Kept as written: no rule is to be tuned on it (a frame
written from one of its pairs makes that pair no longer blind; say so here if it happens).

Spent as classes (not as pairs): its first scoring found five kinds no rule knew (forecast / actual,
partial / full, record matched / broken, preliminary / final release, plan / reversal); the ninth
frames pass wrote its own invented pairs for them (tests/data/frame_pairs_9.jsonl), so their
figures below are no longer blind measures."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "blind_pairs_5.jsonl"


def test_the_fifth_blind_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 170
    assert Counter(r["label"] for r in recs) == {1: 70, 0: 100}
    assert Counter(r["kind"] for r in recs) == {"copy_same_lang": 44, "copy_xl": 26, "forecast_actual": 10,
                                                "reversal": 10, "partial_full": 10, "record_tie_break": 9,
                                                "round_swap": 10, "alert_level": 9, "counterpart_swap": 9,
                                                "release_vintage": 9, "outcome": 6, "who_where_which": 6,
                                                "follow_up": 6, "number_date": 6}


@pytest.mark.heavy
def test_the_shipped_engine_on_the_fifth_blind_pairs() -> None:
    """Measured on its first scoring (`samestory eval pairs tests/data/blind_pairs_5.jsonl`, verifier
    on, at 2b84221): 33 false merges of 100 different reports, all in kinds no earlier set had (a
    forecast against the actual figure 8 of 10, a partial against a full action 7 of 10, a record
    matched against broken 5 of 9, a preliminary against a final release 5 of 9, a plan against its
    reversal 5 of 10, another alert level 1 of 9) and follow-ups 2 of 6; another round of a series,
    another counterpart, outcome, who / where / which, numbers and dates 0 of 50. Copies: 23 of 70
    (same-language rewordings 11 of 44: the verifier refused 23, 6 fell below the cosine threshold,
    4 a guard; Korean-English 12 of 26: 9 below every threshold, the verifier refused 4, a guard 1).
    After the ninth frames pass (written from its own invented pairs for the five new kinds, which
    are spent as classes, not as pairs): 13 false merges (forecast / actual 3, partial / full 3,
    preliminary / final release 3, reversal 2, follow-up 2), the same 23 copies.
    The test holds those figures: fewer false merges or more copies are progress (tighten the
    bounds), the reverse a regression."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 13 and sum(found.values()) >= 23, (found, false_merges)
