"""``StoryTracker._rest_view``: the story without one unit, read from the story and the unit's
parts, scores every item as the story rebuilt without the unit does (``_rest``), which the
revision used to rebuild for each unit of each neighbouring story (issue 37)."""

from __future__ import annotations

import random

import pytest

from service.stories import StoryTracker, _UnitParts
from tests.helpers.stories import random_evidence as _evidence


@pytest.mark.parametrize("seed", range(5))
def test_the_view_scores_as_the_rebuilt_story(seed: int) -> None:
    rng = random.Random(seed)
    tracker = StoryTracker(threshold=0.7, window_days=3.0, revise=True)
    sid = None
    for i in range(40):  # one story of up to 40 members in 12 units, some of several members
        unit = rng.randrange(12)
        sid = tracker.add(sid, _evidence(rng, 60.0 * i), unit=unit, settle=False)
    story = tracker.stories[sid]
    parts = _UnitParts(story)
    probes = [_evidence(rng, 60.0 * rng.randrange(50)) for _ in range(10)]
    for u in tracker._units_in(story):
        rebuilt, view = tracker._rest(u), tracker._rest_view(story, u, parts)
        assert rebuilt is not None
        assert (view.size, view.first_time, view.last_time) == (rebuilt.size, rebuilt.first_time, rebuilt.last_time)
        assert [m.headline for m in view.members] == [m.headline for m in rebuilt.members]
        for ev in probes:
            a, b = tracker.features(ev, rebuilt), tracker.features(ev, view)
            assert a == pytest.approx(b, abs=1e-6)  # the vector sum: float32 rounding (subtracted, not re-added)
            assert tracker.fit(ev, rebuilt) == pytest.approx(tracker.fit(ev, view), abs=1e-5)
