"""Two Korean feeds of same-theme events (tests/data/theme_feed_a.jsonl: 89 hand-written headlines
of two days, 30 stories; theme_feed_b.jsonl: 80 headlines, 29 stories; gold copy and story labels).
Each theme holds two to four *different* events of one day that share most of their words: four
firms' third-quarter earnings, three bills passed in one sitting, fires in three cities, two towns
selected in one pilot programme. They were written by a helper that did not read the repository,
before any engine change was tried on them (research/notes/stories.md, "Same-theme Korean events").

The copy level holds on them. The story level only partly: Korean headlines name their firms and
towns in Hangul, which the story anchors do not read, and same-theme headlines of one day reach
centroid cosines of 0.45-0.6, where the story model (fitted on UCI and NTREX) joins them. The
story veto's subject check (service/guards/storyveto.py) keeps apart the events whose headlines
lead with different subjects (story ARI about 0.5 -> 0.68-0.70); events that share a subject or
have none ("지역의사제 도입법 본회의 통과" / "전세사기특별법 개정안 본회의 통과") still join. The
strict xfail below is that known gap; it fails loudly once a change fixes it, so the bar moves up.
"""

from __future__ import annotations

import pytest

from eval.feed import FeedReport, score_feed
from tests.paths import DATA_DIR

FEEDS = ("theme_feed_a.jsonl", "theme_feed_b.jsonl")


@pytest.fixture(scope="module")
def reports() -> dict[str, FeedReport]:
    return {name: score_feed(DATA_DIR / name) for name in FEEDS}


def test_copies_of_same_theme_events_stay_in_their_own_copy_groups(reports: dict[str, FeedReport]) -> None:
    for name, report in reports.items():
        for how, scores in (("streamed", report.streamed), ("settled", report.settled)):
            # A: 1.000 / 0.900; B: 0.941 / 1.000 (one pair of another outlet's near-copy merged).
            assert scores.copy_precision is not None and scores.copy_precision >= 0.94, (name, how, scores)
            assert scores.copy_recall is not None and scores.copy_recall >= 0.9, (name, how, scores)


def test_events_led_by_different_subjects_stay_apart(reports: dict[str, FeedReport]) -> None:
    for name, report in reports.items():
        for how, scores in (("streamed", report.streamed), ("settled", report.settled)):
            # A 0.695 / 0.695, B 0.680 / 0.680; about 0.5 without the subject check of the story veto.
            assert scores.story_ari >= 0.65, (name, how, scores)


@pytest.mark.xfail(strict=True, reason="same-theme Korean events without distinct subjects join one story (ARI about 0.7)")
def test_same_theme_korean_events_stay_in_stories_of_their_own(reports: dict[str, FeedReport]) -> None:
    for name, report in reports.items():
        for how, scores in (("streamed", report.streamed), ("settled", report.settled)):
            assert scores.story_ari >= 0.8, (name, how, scores)
