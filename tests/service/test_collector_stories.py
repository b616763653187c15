"""Two collectors on one SQLite file: each places its new copy groups against the stories the
other made (the seventh tour), and an item its story level already read is not read twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.engine import Deduper
from service.store import open_store

FIRST = {"title": "Tesla recalls 3 million cars over autopilot", "url": "https://a.example/tesla",
         "published_at": "2026-12-07T07:14:00Z"}
UPDATE = {"title": "Tesla recalls 2 million cars over autopilot", "url": "https://b.example/tesla",
          "published_at": "2026-12-07T07:20:00Z"}
OTHER = {"title": "Bank of Korea holds key rate at 2.5%", "url": "https://c.example/bok",
         "published_at": "2026-12-07T07:30:00Z"}


def test_a_collector_joins_the_story_another_collector_made(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'one.db'}"
    a = Deduper(open_store(db), embedder=None)
    b = Deduper(open_store(db), embedder=None)
    try:
        ra = a.ingest(FIRST)
        rb = b.ingest(UPDATE)
        assert rb.cluster_id != ra.cluster_id and rb.story_id == ra.story_id, rb.to_dict()
    finally:
        a.close()
        b.close()


def test_an_item_written_between_the_two_reads_of_a_warm_up_counts_once(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """B's warm-up reads the candidate state, then the stories; A's item written in between is in
    B's stories and not in its state, so B's next change-feed replay brings it again: before, its
    evidence was added a second time (the session's review: a one-item story of size 2)."""
    db = f"sqlite:///{tmp_path / 'one.db'}"
    a = Deduper(open_store(db), embedder=None)
    b = Deduper(open_store(db), embedder=None)
    try:
        warm = b.story_level.warm
        written: list[int] = []

        def warm_after_a_write() -> int:
            written.append(a.ingest(FIRST).story_id)  # type: ignore[arg-type]
            return warm()

        monkeypatch.setattr(b.story_level, "warm", warm_after_a_write)
        b.warm_up()
        monkeypatch.undo()
        sid = written[0]
        assert b.story_level.stories.stories[sid].size == 1
        b.ingest(OTHER)  # its transaction replays A's write
        assert b.story_level.stories.stories[sid].size == 1
        assert b.ingest(UPDATE).story_id == sid
        assert b.story_level.stories.stories[sid].size == 2
    finally:
        a.close()
        b.close()
