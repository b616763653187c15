"""The first real feed (issue 36): tests/data/first_feed.jsonl, 24 hand-written items with gold
copy and story labels, scored by eval.feed in file order (streamed) and after settling.

Only the copy level is asserted here: syndicated copies under other outlets' suffixes, a Korean
report with a body and its bare English translation, and same-frame K-pop headlines about other
members must all land right. Pairwise precision >= 0.95 and recall >= 0.85 (issue 36)."""

from __future__ import annotations

from pathlib import Path

from eval.feed import score_feed

FEED = Path(__file__).parent / "data" / "first_feed.jsonl"


def test_first_feed_copy_groups_streamed_and_settled() -> None:
    report = score_feed(FEED)
    assert report.items == 24
    for name, scores in (("streamed", report.streamed), ("settled", report.settled)):
        assert scores.copy_precision is not None and scores.copy_recall is not None
        assert scores.copy_precision >= 0.95, (name, scores)
        assert scores.copy_recall >= 0.85, (name, scores)
