"""A restarted engine holds the stories the running one held (the thirteenth tour).

A correction at the same URL (a new version) keeps its copy group and story and brings no story
evidence of its own while streaming; a warm restart read the latest version instead (its words,
and no vector unless it represented its copy group), so the same feed placed later items in other
stories after a restart (300 invented items, a restart after 76: 56 stories against 54).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.config import EngineConfig
from service.engine import Deduper
from service.store import open_store
from service.stories import StoryTracker
from tests.helpers.embedders import Counting

BODY = ("A fire broke out at a logistics warehouse in Busan on Monday, forcing 340 residents to evacuate. "
        "Firefighters deployed 37 vehicles. The cause is under investigation.")
ORIGINAL = {"title": "Fire at Busan warehouse forces 340 to evacuate", "body": BODY,
            "url": "https://a.example/fire", "published_at": "2026-12-07T00:30:00Z", "lang": "en"}
# The same report at another outlet, later: it becomes the group's representative ("newer").
COPY = {**ORIGINAL, "url": "https://b.example/wire/fire", "published_at": "2026-12-07T00:40:00Z"}
# The original outlet corrects its body: a new version of a document that does not represent its group.
CORRECTED = {**ORIGINAL, "body": BODY.replace("340 residents", "430 residents")
             + " Correction: an earlier version misstated the number of evacuees."}
FOLLOW_UP = {"title": "Busan warehouse fire put out after nine hours", "url": "https://a.example/fire-2",
             "body": "Firefighters put out the warehouse fire in Busan after nine hours. Two were treated for smoke.",
             "published_at": "2026-12-07T03:30:00Z", "lang": "en"}


# The fake encoder's vectors are random: no embedding match (0.99), no verifier to load.
CONFIG = EngineConfig.of(embedding_threshold=0.99, verifier=False)


def _evidence(tracker: StoryTracker) -> dict[str, Any]:
    """What the story level decides from: every story's counts, times, kept members and vectors."""
    stories = {}
    for sid, s in tracker.stories.items():
        stories[sid] = (s.size, s.first_time, s.last_time, dict(s.words), dict(s.anchors), dict(s.langs),
                        [m.headline for m in s.members], len(s.kept),
                        None if s.vec_sum is None else np.round(s.vec_sum, 5).tolist())
    return {"stories": stories, "docs": tracker.docs, "df": {k: v for k, v in tracker.df.items() if v}}


def _stores(tmp_path: Path, pg_url: str | None) -> str:
    return pg_url if pg_url is not None else f"sqlite:///{tmp_path / 'store.db'}"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_restart_reads_the_story_evidence_the_stream_kept_for_a_corrected_document(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> None:
    db = _stores(tmp_path, request.getfixturevalue("pg_url") if backend == "postgres" else None)
    embedder = Counting()  # one instance: its vectors are the same for the same text in this process
    live = Deduper(open_store(db), embedder=embedder, config=CONFIG)
    try:
        first = live.ingest(ORIGINAL)
        copy = live.ingest(COPY)
        assert copy.status == "duplicate" and copy.representative_id == copy.document_id
        fix = live.ingest(CORRECTED)
        assert fix.status == "new_version" and fix.copy_group_id == first.copy_group_id
        assert fix.story_id == first.story_id
        restarted = Deduper(open_store(db), embedder=embedder, config=CONFIG)
        try:
            # What every later story decision reads; before, the restart held the correction's words
            # ("misstated", "430") and no vector for the corrected document.
            assert _evidence(restarted.story_level.stories) == _evidence(live.story_level.stories)
        finally:
            restarted.close()
    finally:
        live.close()


def test_a_settling_reads_the_first_version_as_the_stream_did(tmp_path: Path) -> None:
    """Settling replays the stories over the versions the stream read, then reads them back: the
    live tracker after it is what a restart reads."""
    db = f"sqlite:///{tmp_path / 'store.db'}"
    embedder = Counting()
    live = Deduper(open_store(db), embedder=embedder, config=CONFIG)
    try:
        for item in (ORIGINAL, COPY, CORRECTED, FOLLOW_UP):
            live.ingest(item)
        live.settle()
        restarted = Deduper(open_store(db), embedder=embedder, config=CONFIG)
        try:
            assert _evidence(restarted.story_level.stories) == _evidence(live.story_level.stories)
            words = set().union(*(s.words for s in restarted.story_level.stories.stories.values()))
            assert "misstated" not in words and "340" in words
        finally:
            restarted.close()
    finally:
        live.close()


@pytest.mark.parametrize("revise", [True, False])
@pytest.mark.parametrize("gone", ["ORIGINAL", "COPY", "FOLLOW_UP"])
def test_a_deleted_document_leaves_the_live_stories_as_a_restart_reads_them(tmp_path: Path, gone: str,
                                                                             revise: bool) -> None:
    """A privacy deletion: the document's words and vector stop counting in its story at once,
    not at the next restart or settling; its group's lead, or its story when it was the last
    member, goes too. Without revision (no log to take it out of) the story is read from the store."""
    db = f"sqlite:///{tmp_path / 'store.db'}"
    embedder = Counting()
    config = CONFIG.replace(story_revise=revise)
    live = Deduper(open_store(db), embedder=embedder, config=config)
    try:
        ids = {name: live.ingest(item).document_id
               for name, item in (("ORIGINAL", ORIGINAL), ("COPY", COPY), ("FOLLOW_UP", FOLLOW_UP))}
        before = _evidence(live.story_level.stories)
        assert live.delete_document(ids[gone])
        after = _evidence(live.story_level.stories)
        assert after != before and after["docs"] == before["docs"] - 1
        restarted = Deduper(open_store(db), embedder=embedder, config=config)
        try:
            assert _evidence(restarted.story_level.stories) == after
            leads = {k: u.lead.headline for k, u in restarted.story_level.stories.units.items()}
            assert {k: u.lead.headline for k, u in live.story_level.stories.units.items()} == leads
        finally:
            restarted.close()
    finally:
        live.close()


def test_a_deletion_on_one_worker_leaves_the_other_workers_stories_too(tmp_path: Path) -> None:
    """Two workers on one store: the one that did not delete reads the deletion at its next
    change-feed replay and drops the document's evidence there as well."""
    db = f"sqlite:///{tmp_path / 'store.db'}"
    embedder = Counting()
    a = Deduper(open_store(db), embedder=embedder, config=CONFIG)
    b = Deduper(open_store(db), embedder=embedder, config=CONFIG)
    try:
        a.ingest(ORIGINAL)
        copy = b.ingest(COPY)  # b's replay takes in a's item first
        a.ingest(FOLLOW_UP)
        assert a.delete_document(copy.document_id)
        b.ingest({"title": "Unrelated: Seoul subway Line 2 resumes after signal fault", "url": "https://d.example/x",
                  "published_at": "2026-12-07T05:00:00Z", "lang": "en"})  # b's replay reads the deletion
        a.ingest({"title": "Unrelated: Seoul subway Line 2 resumes after signal fault", "url": "https://d.example/x",
                  "published_at": "2026-12-07T05:00:00Z", "lang": "en"})  # a's replay reads b's item
        assert _evidence(b.story_level.stories) == _evidence(a.story_level.stories)
        restarted = Deduper(open_store(db), embedder=embedder, config=CONFIG)
        try:
            assert _evidence(restarted.story_level.stories) == _evidence(b.story_level.stories)
        finally:
            restarted.close()
    finally:
        a.close()
        b.close()
