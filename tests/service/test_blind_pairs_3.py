"""The third blind hand-written set (tests/data/blind_pairs_3.md): 170 headline pairs written on
2026-12-07 before any scoring, by a writer who read neither the engine's code, its rules, its notes,
the other hand-written sets nor /work/shared/eval-data. Kept as written: no rule is to be tuned on
it (a frame written from one of its pairs makes that pair no longer blind; say so here if it
happens).

Spent as classes (not as pairs): its first scoring found two kinds no rule knew, a swapped measure
("operating profit" / "sales", exports / imports) and a swapped scope (men / women, nationwide /
the capital region); a frames pass then wrote its own invented pairs for those two classes
(research/notes/guards.md), so their figures below are no longer blind measures."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "blind_pairs_3.jsonl"


def test_the_third_blind_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 170
    assert Counter(r["label"] for r in recs) == {1: 70, 0: 100}
    assert Counter(r["kind"] for r in recs) == {"copy_same_lang": 44, "copy_xl": 26, "number_date": 14,
                                                "who_where_which": 14, "outcome": 12, "role_swap": 10,
                                                "follow_up": 12, "same_topic_other_event": 10,
                                                "metric_swap": 10, "direction_flip": 9, "scope_swap": 9}


@pytest.mark.heavy
def test_the_shipped_engine_on_the_third_blind_pairs() -> None:
    """Measured on its first scoring (`samestory eval pairs tests/data/blind_pairs_3.jsonl`, verifier
    on, at 2ba44e8): 17 false merges of 100 different reports (a swapped measure 9 of 10, a swapped
    scope 6 of 9, an outcome 1 of 12, a follow-up 1 of 12; numbers and dates, who / where / which,
    role swaps, flipped directions and other events of one topic 0 of 57) and 27 copies of 70
    (Korean-English 18 of 26, same-language rewordings 9 of 44). After the measures and scopes pass
    (written from its own invented pairs, research/notes/guards.md): 9 false merges (a swapped
    measure 4 of 10, a swapped scope 3 of 9), the same 27 copies; after the follow-ups pass, 28
    copies (a "(LEAD)" tag no longer read as a name); after the tenth mend (aliases written from its
    own invented pairs), 29. The test holds those figures:
    fewer false merges or more copies are progress (tighten the bounds), the reverse a regression."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 9 and sum(found.values()) >= 29, (found, false_merges)
