"""The story level's cost follows the open stories, not every story ever made (issue 37).

``StoryCentroids.nearest`` keeps its last product and multiplies again only the rows changed
since; ``StoryCentroids.compact`` drops the rows of removed stories; the engine closes, for good,
stories older than what a warm restart reads (``StoryLevel.expire``).
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from index.blas import one_blas_thread
from service.engine import Deduper
from service.stories import DAY, PRUNE_EVERY, Story, StoryCentroids, StoryEvidence, StoryTable, StoryTracker


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).isoformat()


def _story(sid: int, vec: np.ndarray, t: float = 0.0) -> Story:
    s = Story(sid, t, t)
    s.add(StoryEvidence.build(f"headline {sid}", "", "en", t, vec))
    return s


def _fresh_nearest(table: StoryTable, vector: np.ndarray, k: int) -> list[int]:
    """The nearest story ids as a centroid matrix built now from the whole table ranks them."""
    c = StoryCentroids()
    table.changed.update(table)
    c.refresh(table)
    rows = c.open_rows(0.0, 10 * DAY)
    return [int(c.ids[r]) for r in c.nearest(rows, vector, k)]


def test_a_patched_product_ranks_as_a_full_one_and_multiplies_only_changed_rows() -> None:
    rng = np.random.default_rng(7)
    table, c = StoryTable(), StoryCentroids()
    for sid in range(1, 203):
        table[sid] = _story(sid, rng.standard_normal(16).astype(np.float32))
    q = rng.standard_normal(16).astype(np.float32)
    c.refresh(table)
    first = c.nearest(c.open_rows(0.0, DAY), q, 12)
    assert c._last is not None and c._last[0] is q
    # Two stories change and three are added: asked with the same vector, only those five rows
    # (in blocks of four) are multiplied again.
    for sid in (5, 150):
        table[sid].add(StoryEvidence.build("more", "", "en", 0.0, 3 * q))
    for sid in (203, 204, 205):
        table[sid] = _story(sid, (q + 0.01 * rng.standard_normal(16)).astype(np.float32))
    c.refresh(table)
    before = c._last[1].copy()
    got = [int(c.ids[r]) for r in c.nearest(c.open_rows(0.0, DAY), q, 12)]
    assert got == _fresh_nearest(table, q, 12)
    assert {5, 150, 203, 204, 205} <= set(got)  # the changed stories moved up to the top
    prod = c._last[1]
    changed = {c.row_of[s] for s in (5, 150, 203, 204, 205)}
    same = [r for r in range(before.size) if r not in changed]
    assert np.array_equal(prod[same], before[same])
    assert c.sums is not None
    full = c.sums[: c.rows] @ q
    assert np.allclose(prod, full, rtol=1e-6, atol=1e-6)
    assert [int(c.ids[r]) for r in first] != got


def test_the_product_skips_closed_rows_and_gives_each_asked_row_a_full_products_value() -> None:
    rng = np.random.default_rng(11)
    table, c = StoryTable(), StoryCentroids()
    now = 10 * DAY
    for sid in range(1, 2_001):  # closed by now: kept for late items, never asked for by a new one
        table[sid] = _story(sid, rng.standard_normal(512).astype(np.float32), 0.0)
    for sid in (17, 1_303):  # two old stories a late item reopened: open, with rows among the closed
        table[sid].add(StoryEvidence.build("later", "", "en", now, rng.standard_normal(512).astype(np.float32)))
    for sid in range(2_001, 3_001):
        table[sid] = _story(sid, rng.standard_normal(512).astype(np.float32), now)
    c.refresh(table)
    q = rng.standard_normal(512).astype(np.float32)
    rows = c.open_rows(now, DAY)
    assert rows.size == 1_002 and {int(c.ids[r]) for r in rows[:2]} == {17, 1_303}
    got = c.nearest(rows, q, 12)
    assert c.sums is not None and c._last is not None
    with one_blas_thread():
        full = c.sums[: c.rows] @ q
    prod = c._last[1]
    assert np.array_equal(prod[rows], full[rows])  # bit for bit, the outliers' rows included
    assert np.isfinite(prod).sum() < 1_100  # not the 2,000 closed rows
    assert list(got) == list(rows[np.argsort(-(full[rows] / c.norms[rows]), kind="stable")[:12]])
    # A late item asks, with the same vector, for rows the product skipped: they are filled in.
    late = c.open_rows(0.0, DAY)
    c.nearest(late, q, 12)
    assert np.array_equal(c._last[1][late], full[late])


def test_compaction_drops_dead_rows_and_keeps_the_answers() -> None:
    rng = np.random.default_rng(3)
    table, c = StoryTable(), StoryCentroids()
    for sid in range(1, 10_001):
        table[sid] = _story(sid, rng.standard_normal(8).astype(np.float32))
    c.refresh(table)
    for sid in range(1, 9_001):  # 9,000 of 10,000 removed: dead rows outnumber live ones
        del table[sid]
    q = rng.standard_normal(8).astype(np.float32)
    c.refresh(table)
    assert c.rows == len(table) == 1_000 and c.sums is not None and c.sums.shape[0] == 1_000
    assert sorted(c.row_of) == sorted(table)
    got = [int(c.ids[r]) for r in c.nearest(c.open_rows(0.0, DAY), q, 12)]
    assert got == _fresh_nearest(table, q, 12)
    table[10_001] = _story(10_001, q)  # a row added after a compaction is found
    c.refresh(table)
    assert int(c.ids[c.nearest(c.open_rows(0.0, DAY), q, 1)[0]]) == 10_001


def test_the_tracker_closes_old_stories_and_the_engine_forgets_their_groups() -> None:
    d = Deduper.open(":memory:", model=None)
    words = ["volcano", "glacier", "harbour", "senate", "orchard", "tunnel", "comet", "lantern", "canyon", "meadow",
             "quarry", "violin", "falcon", "marble", "beacon", "saddle", "thunder", "cobalt", "prairie", "walnut",
             "engine", "lagoon", "summit", "ferry", "velvet", "ribbon", "cactus", "anchor", "pepper", "timber"]
    day0 = 1_700_000_000.0
    results = []
    for i in range(30):  # one report every 12 hours for 15 days, each of another event (no shared word)
        when = day0 + i * DAY / 2
        results.append(d.ingest({"title": f"{words[i].title()} news", "url": f"https://a.example/{i}", "published_at": _iso(when)}))
    before = len(d.story_level.stories)
    newest = day0 + 14.5 * DAY
    closed = d.story_level.expire(newest)
    horizon = newest - max(d.config.operations.warmup_days, 2 * d.config.story.window_days) * DAY
    assert closed > 0 and len(d.story_level.stories) == before - closed
    assert all(s.last_time >= horizon for s in d.story_level.stories.stories.values())
    assert set(d.story_level.group_story.values()) <= set(d.story_level.stories.stories)
    assert d.ctx.counters["expired_stories"] == closed
    assert d.story_level.expire(newest) == 0  # nothing more to close
    # A late copy of a closed story's report (day 7, in the copy window) still joins its copy group
    # and the group's stored story, which it opens again with its own evidence (as after a restart).
    assert results[14].story_id not in d.story_level.stories.stories
    r = d.ingest({"title": f"{words[14].title()} news", "url": "https://b.example/14", "published_at": _iso(day0 + 7.2 * DAY)})
    assert r.status == "duplicate" and r.cluster_id == results[14].cluster_id
    assert r.story_id is not None and r.story_id == results[14].story_id
    assert d.story_level.stories.stories[r.story_id].size == 1
    d.close()


def test_no_story_window_closes_nothing() -> None:
    t = StoryTracker(threshold=0.5, window_days=1.0)
    assert t.expire(0.0) == 0
    d = Deduper.open(":memory:", model=None, config=None)
    d.ctx.config = d.config.replace(story_window_days=0.0)
    assert d.story_level.expire(1_800_000_000.0) == 0
    d.close()


def test_a_late_item_whose_story_the_prune_closes_is_added_and_forgotten() -> None:
    # Found by the 1,000,000-item run: the prune (every PRUNE_EVERY units) ran right after a unit
    # was registered and closed its story when the item was published more than two windows
    # before the newest one; the tracker then looked the unit up again (KeyError), which the
    # engine's rebuild hit once more: no item could be ingested after it.
    rng = np.random.default_rng(5)
    t = StoryTracker(threshold=0.7, window_days=3.0, revise=True)
    newest = 30 * DAY
    for unit in range(PRUNE_EVERY - 2):
        ev = StoryEvidence.build(f"report {unit}", "", "en", newest - (unit % 5) * 3600.0,
                                 rng.standard_normal(8).astype(np.float32))
        t.add(None, ev, unit=unit, settle=False)
    old = t.add(None, StoryEvidence.build("old report", "", "en", DAY, rng.standard_normal(8).astype(np.float32)),
                unit="old", settle=False)
    late = StoryEvidence.build("old report, late copy", "", "en", 1.5 * DAY, rng.standard_normal(8).astype(np.float32))
    assert len(t.units) == PRUNE_EVERY - 1
    assert t.add(old, late, unit="late", settle=True) == old  # the PRUNE_EVERY-th unit: the prune runs
    assert "late" not in t.units and "old" not in t.units and t.stories[old].log == []
    assert t.stories[old].last_time == 1.5 * DAY  # its evidence counts; the story is closed for good
