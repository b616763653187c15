"""The fourth blind hand-written set (tests/data/blind_pairs_4.md): 170 headline pairs written on
2026-12-07 before any scoring, by a writer who read neither the engine's code, its rules, its notes,
the other hand-written sets nor /work/shared/eval-data. Kept as written: no rule is to be tuned on
it (a frame written from one of its pairs makes that pair no longer blind; say so here if it
happens).

Spent as classes (not as pairs): its first scoring found five kinds no rule knew (a modality, an
instrument, a time frame, a competition, a denial); the seventh frames pass then wrote its own
invented pairs for those five (tests/data/frame_pairs_7.jsonl, research/notes/guards.md), so their
figures below are no longer blind measures."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "blind_pairs_4.jsonl"


def test_the_fourth_blind_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 170
    assert Counter(r["label"] for r in recs) == {1: 70, 0: 100}
    assert Counter(r["kind"] for r in recs) == {"copy_same_lang": 44, "copy_xl": 26, "number_date": 12,
                                                "who_where_which": 12, "outcome": 12, "role_swap": 8,
                                                "follow_up": 10, "same_topic_other_event": 8,
                                                "time_frame": 8, "modality": 8, "denial": 7,
                                                "instrument_swap": 8, "competition_swap": 7}


@pytest.mark.heavy
def test_the_shipped_engine_on_the_fourth_blind_pairs() -> None:
    """Measured on its first scoring (`samestory eval pairs tests/data/blind_pairs_4.jsonl`, verifier
    on, at a6f4b18): 28 false merges of 100 different reports, nearly all in the five kinds no
    earlier set had (a modality 8 of 8: "considers" / "decides"; another instrument 6 of 8: stocks /
    bonds; a time frame 5 of 8: a quarter / the year so far; another competition 4 of 7: a cup final
    / a league game; a denial 0 of 7), and in the older kinds outcome 3 of 12, follow-up 1 of 10, who
    / where / which 1 of 12 (numbers and dates, role swaps and other events of one topic 0 of 28).
    Copies: 14 of 70 (same-language rewordings 3 of 44: the verifier refused 29 and 20 fell below
    the cosine threshold; Korean-English 11 of 26). After the sixth and seventh frames passes: 8
    false merges (time frame 2, outcome 2, modality, instrument, follow-up and who / where / which 1
    each), the same 14 copies; after the ninth frames pass (its own invented pairs), 7. The test holds those figures: fewer false merges
    or more copies are progress (tighten the bounds), the reverse a regression."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 7 and sum(found.values()) >= 14, (found, false_merges)
