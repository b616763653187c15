"""The tenth frames set (tests/data/frame_pairs_10.jsonl, hand-written 2026-12-07 before scoring): a
figure's unit or period, its comparison base, the suspect against the victim, no casualties against
casualties, a medal or a place, the other side of a stake deal, an age cohort and custody; copies of
each in other notations or the other language; and 236 ordinary copies (kind self_copy) that use these
words the ordinary way: the pass's copy-side self-check."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "frame_pairs_10.jsonl"
# Different reports the guards let through: "percentage point" against "percent" in English (the
# quantity guard holds them apart in Korean only: English writes "percent" of a point move, and so do
# translations of it), 30대 against "in their 40s" (no cross-lingual cohort reading), and a driver
# released against arrested ("release" is too common a verb to read as custody alone).
KNOWN_MISSES: set[str] = {"frames10/unit/3", "frames10/cohort/3", "frames10/custody/2"}
# Copies the guards veto, all older than this pass: the who guard's names (안세영 / "An Se-young" twice,
# D램 / DRAM, K팝 / K-pop, 지리산 / "Mt. Jiri", 이 대통령 / "President Lee").
KNOWN_VETOES: set[str] = {"frames10/rank_copy/1", "frames10/self_copy/53", "frames10/self_copy/81",
                          "frames10/self_copy/83", "frames10/self_copy/110", "frames10/self_copy/132"}


def test_the_tenth_frame_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 356
    assert Counter(r["label"] for r in recs) == {1: 284, 0: 72}
    assert Counter(r["kind"] for r in recs)["self_copy"] == 236
    assert all(r["id"].startswith(f"frames10/{r['kind']}/") for r in recs)
    assert all((r["label"] == 1) == (r["kind"] == "self_copy" or r["kind"].endswith("_copy")) for r in recs)


def test_the_guards_refuse_the_tenth_frames_and_no_new_copy() -> None:
    """Before these rules the guards let 53 of the 72 different pairs through (base 11, casualty 11,
    role 9, unit 9, stake 6, rank 5, cohort 1, custody 1) and vetoed 6 copies (all the who guard's, on
    main at 47d5d8e); now 3 and the same 6."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert vetoed == KNOWN_VETOES, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_tenth_frame_pairs() -> None:
    """Measured (research/notes/guards.md, "Frames pass 10"): 40 false merges of 72 and 212 copies of
    284 before (base 9, unit 9, role 7, casualty 6, rank 4, stake 4, custody 1); 2 false merges
    (unit/3, custody/2) and 212 copies after. The copies missed are the encoder's, the verifier's and
    the who guard's (6, older)."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 2 and sum(found.values()) >= 212, (found, false_merges)
