"""The revision's per-story unit bound (``StoryTracker._nearer_own``, issue 37): the units of a
neighbouring story worth scoring against a changed story are those the centroid prefilter lets
through, at most ``REVISE_UNITS`` of them (those that gain most towards the changed story), in
log order; the units listed from the story's parts are the log's, in the same order; and a
revision looks only at a story's latest ``REVISE_RECENT`` units."""

from __future__ import annotations

import random

import numpy as np

from service.stories import (
    REVISE_PREFILTER,
    REVISE_RECENT,
    REVISE_UNITS,
    StoryEvidence,
    StoryTracker,
    _UnitParts,
)


def _unit_vec(rng: random.Random, dim: int = 8) -> np.ndarray:
    v = np.asarray([rng.gauss(0, 1) for _ in range(dim)], dtype=np.float32)
    return v / np.linalg.norm(v)


def _story(n_units: int, seed: int = 0) -> tuple[StoryTracker, int]:
    rng = random.Random(seed)
    tracker = StoryTracker(threshold=0.7, window_days=3.0, revise=True)
    sid = None
    for i in range(n_units * 2):  # two members per unit, interleaved
        ev = StoryEvidence.build(f"headline {i}", "", "en", 60.0 * i, _unit_vec(rng))
        sid = tracker.add(sid, ev, unit=i % n_units, settle=False)
    assert sid is not None
    return tracker, sid


def _gain(tracker: StoryTracker, sid: int, parts: _UnitParts, cx: np.ndarray) -> dict[object, float]:
    """Each unit's gain towards ``cx``, unit by unit, as the prefilter reads it."""
    s = tracker.stories[sid]
    out = {}
    for u in tracker._units_in(s):
        assert s.vec_sum is not None and u.lead.vector is not None
        own = s.vec_sum - parts.vec[u.key]
        out[u.key] = float(cx @ u.lead.vector) - float(own @ u.lead.vector) / float(np.linalg.norm(own))
    return out


def test_units_from_the_parts_are_the_logs_in_order() -> None:
    tracker, sid = _story(7)
    s = tracker.stories[sid]
    assert [u.key for u in tracker._units_in(s, _UnitParts(s))] == [u.key for u in tracker._units_in(s)]


def test_a_small_story_keeps_every_unit_past_the_prefilter_in_log_order() -> None:
    tracker, sid = _story(6)
    s = tracker.stories[sid]
    parts = _UnitParts(s)
    cx = _unit_vec(random.Random(9))
    gain = _gain(tracker, sid, parts, cx)
    kept = [u.key for u in tracker._nearer_own(tracker._units_in(s), s, parts, cx)]
    assert kept == [k for k, g in gain.items() if g >= -REVISE_PREFILTER]


def test_a_large_story_gives_at_most_the_bound_those_that_gain_most() -> None:
    tracker, sid = _story(REVISE_UNITS + 14, seed=3)
    s = tracker.stories[sid]
    parts = _UnitParts(s)
    cx = s.centroid()  # every unit is near its own story's centroid: most pass the prefilter
    assert cx is not None
    gain = _gain(tracker, sid, parts, cx)
    passing = [k for k, g in gain.items() if g >= -REVISE_PREFILTER]
    assert len(passing) > REVISE_UNITS
    kept = [u.key for u in tracker._nearer_own(tracker._units_in(s), s, parts, cx)]
    best = sorted(passing, key=lambda k: -gain[k])[:REVISE_UNITS]
    assert len(kept) == REVISE_UNITS
    assert kept == [k for k in gain if k in set(best)]  # the best, in log order


def test_a_revision_looks_only_at_the_latest_units_of_a_large_story() -> None:
    assert REVISE_RECENT is not None
    tracker, sid = _story(REVISE_RECENT + 9, seed=5)
    s = tracker.stories[sid]
    parts = _UnitParts(s)
    every = [u.key for u in tracker._units_in(s, parts)]
    latest = [u.key for u in tracker._units_in(s, parts, recent=REVISE_RECENT)]
    assert latest == every[-REVISE_RECENT:]  # the latest to appear, in log order
    assert [u.key for u in tracker._units_in(s, recent=REVISE_RECENT)] == latest  # from the log alike
    assert [u.key for u in tracker._units_in(s, parts, recent=len(every) + 1)] == every


def test_the_prefilter_over_the_latest_units_reads_the_same_rows_as_one_by_one() -> None:
    assert REVISE_RECENT is not None
    tracker, sid = _story(REVISE_RECENT + 9, seed=6)
    s = tracker.stories[sid]
    parts = _UnitParts(s)
    cx = _unit_vec(random.Random(11))
    gain = _gain(tracker, sid, parts, cx)
    units = tracker._units_in(s, parts, recent=REVISE_RECENT)  # a run of rows, not from the first
    kept = [u.key for u in tracker._nearer_own(units, s, parts, cx)]
    passing = [u.key for u in units if gain[u.key] >= -REVISE_PREFILTER]
    best = set(sorted(passing, key=lambda k: -gain[k])[:REVISE_UNITS])
    assert kept == [u.key for u in units if u.key in best]
