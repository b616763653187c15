"""The follow-ups set (tests/data/followup_pairs.jsonl, hand-written 2026-12-07 before scoring): a
first report against its follow-up or update (casualty updates, next steps of a criminal case, a
bill, a deal or a plan, reactions, investigations, the n-th day of a strike or a search, corrections,
an event to come against one held, a service restored), which are one story but not one report;
copies that look like follow-ups (syndication tags that say nothing new, rewordings, translations,
the same figure stated twice, a headline against the headline and its lead)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.labelled_pairs import guard_misses, read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "followup_pairs.jsonl"
# Follow-ups the guards let through. Reactions (condemns / 규탄 / 반발 / "vows response" / "slides
# after") and the correcting side of a correction ("corrects ... figure", bare 정정, "retract") are
# words on one side only: a polarity axis cannot compare them, and a one-sided marker reads them in
# other senses ("market corrects", 정정당당) or where a translation words them otherwise ("retract"
# vetoed a Park copy, koen-news-park/pos/dev/118). Also a schedule announced against its end (일정
# 발표 / 마무리), a meeting to come in English ("to meet ... next week" / "meet"), "to unveil" / 공개
# (Korean writes 공개 for both), a plane crash against its black box (the crash's noun is on both
# sides). The encoder or the verifier refuses each but three (the engine test below).
KNOWN_MISSES = {
    "followup/next_step/4",
    "followup/reaction/1",
    "followup/reaction/2",
    "followup/reaction/3",
    "followup/reaction/4",
    "followup/reaction/5",
    "followup/reaction/6",
    "followup/reaction/7",
    "followup/investigation/1",
    "followup/correction/3",
    "followup/correction/4",
    "followup/correction/5",
    "followup/scheduled/2",
    "followup/scheduled/5",
}


def test_the_followup_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 104
    assert Counter(r["label"] for r in recs) == {1: 46, 0: 58}
    assert all(r["id"].startswith(f"followup/{r['kind']}/") for r in recs)
    assert all((r["label"] == 1) == r["kind"].startswith("copy_") for r in recs)


def test_the_guards_refuse_the_followups_and_no_copy() -> None:
    """Before the follow-ups pass the guards let 46 of the 58 follow-ups through and vetoed 4 copies
    ("$5 bln" read as $5, "BREAKING NEWS:" and "N. Korea" read as names, "Singer Kim Gun-mo" as one
    name, 위메프 / Wemakeprice unaligned); now 14 and none."""
    missed, vetoed = guard_misses(read_pairs(PAIRS))
    assert missed == KNOWN_MISSES, missed
    assert not vetoed, vetoed


@pytest.mark.heavy
def test_the_shipped_engine_on_the_followup_pairs() -> None:
    """Measured (research/notes/guards.md, "Follow-ups pass"): 17 false merges of 58 and 29 copies of
    46 before; 3 false merges (a reaction across languages, "to meet next week" / "meet", "to unveil"
    / 공개) and 32 copies after. The copies missed are the verifier's and the encoder's (headline
    against headline and lead, "사흘째" / "3일째", short Korean-English headlines)."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) <= 3 and sum(found.values()) >= 32, (found, false_merges)
