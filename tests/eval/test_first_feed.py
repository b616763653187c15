"""The first real feed (issue 36): tests/data/first_feed.jsonl, 24 hand-written items with gold
copy and story labels, scored by eval.feed in file order (streamed) and after settling.

Copy groups: syndicated copies under other outlets' suffixes, a Korean report with a body and its
bare English translation, and same-frame K-pop headlines about other members must all land right
(pairwise precision >= 0.95 and recall >= 0.85). Stories: the 8-hours-later update joins its
story, and same-frame headlines about other people or matches stay in stories of their own
(ARI >= 0.90). Both streamed in file order and settled (issue 36)."""

from __future__ import annotations

from eval.feed import score_feed
from tests.paths import DATA_DIR

FEED = DATA_DIR / "first_feed.jsonl"


def test_first_feed_copy_groups_and_stories_streamed_and_settled() -> None:
    report = score_feed(FEED)
    assert report.items == 24
    for name, scores in (("streamed", report.streamed), ("settled", report.settled)):
        assert scores.copy_precision is not None and scores.copy_recall is not None
        assert scores.copy_precision >= 0.95, (name, scores)
        assert scores.copy_recall >= 0.85, (name, scores)
        assert scores.story_ari >= 0.90, (name, scores)
