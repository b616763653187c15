"""A Korean feed with Latin names (tests/data/acronym_feed.jsonl: 63 hand-written headlines of one
day, 17 stories, gold copy and story labels). Korean headlines name most things in Hangul, so the
Latin words among them (AI, LG, SK, KT, KT&G, Fed) are their only anchors: different events that
share one (an AI traffic-signal rollout and an AI search launch; KT's 5G and KT&G's buyback) must
stay in stories of their own, and each event's outlets still join one story. Streamed in file
order and settled. The feed was written for ``UNREAD_NAME_IDF`` (service/stories.py), so this
guards against a regression; it is not an unseen measurement."""

from __future__ import annotations

from eval.feed import score_feed
from tests.paths import DATA_DIR

FEED = DATA_DIR / "acronym_feed.jsonl"


def test_korean_stories_that_share_a_latin_name_stay_apart() -> None:
    report = score_feed(FEED)
    assert report.items == 63
    for name, scores in (("streamed", report.streamed), ("settled", report.settled)):
        assert scores.copy_precision is not None and scores.copy_precision >= 0.95, (name, scores)
        # 0.867 with the shared Latin name counted as full evidence (two pairs of stories merged).
        assert scores.story_ari >= 0.95, (name, scores)
