"""The second blind hand-written set (tests/data/blind_pairs_2.md): 170 headline pairs written on
2026-12-06 before any scoring, by a writer who read neither the engine's code, its rules, its notes,
the other hand-written sets nor the first blind set. Kept as written: no rule is to be tuned on it
(a frame written from one of its pairs makes that pair no longer blind; say so here if it happens).

Spent: `blind2/number_date/8` (a Korean score, "2-1" / "3-1", which kiwipiepy reads as one serial
token: the number guard now reads its two numbers, a bug fix made after its first scoring)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "blind_pairs_2.jsonl"


def test_the_second_blind_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 170
    assert Counter(r["label"] for r in recs) == {1: 70, 0: 100}
    assert Counter(r["kind"] for r in recs) == {"copy_same_lang": 35, "copy_xl": 35, "number_date": 20,
                                                "who_where_which": 25, "outcome": 25, "role_swap": 15,
                                                "follow_up": 15}


@pytest.mark.heavy
def test_the_shipped_engine_on_the_second_blind_pairs() -> None:
    """Measured on its first scoring (`samestory eval pairs tests/data/blind_pairs_2.jsonl`, verifier
    on, at 6daeb9e): 15 false merges of 100 different reports (outcome 8 of 25, who / where / which
    3 of 25, follow-up 3 of 15, numbers and dates 1 of 20, role swap 0 of 15) and 27 copies of 70
    (Korean-English 20 of 35, same-language rewordings 7 of 35, 16 of those refused by the pair
    verifier). After the Korean score fix (the spent pair, module docstring): 14 false merges, 27
    copies; after the follow-ups pass of 2026-12-07 (written from its own invented pairs), 13 false
    merges; after the sixth and seventh frames passes (their own invented pairs), 12 (outcome 6,
    who / where / which 3, follow-up 3). The Korean-English figures read alike of 2026-12-07
    (index/readalike.py, written from koen-news-park's fold-0 misses: +5 copies there) cost it one
    copy: "four LNG carriers" read as "4" against "4척" moved the verifier's P from 0.63 to 0.56,
    under the rescue threshold (26 copies). The test holds those figures: fewer false merges or more copies are progress (tighten
    the bounds), the reverse a regression."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 12 and sum(found.values()) >= 26, (found, false_merges)
