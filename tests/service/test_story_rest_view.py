"""``StoryTracker._rest_view``: the story without one unit, read from the story and the unit's
parts, scores every item as the story rebuilt without the unit does (``_rest``), which the
revision used to rebuild for each unit of each neighbouring story (issue 37)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from service.stories import StoryEvidence, StoryTracker, _UnitParts

WORDS = ["fed", "rates", "Seoul", "Kospi", "quake", "toll", "Samsung", "chip", "3.5%", "4,000", "BOK", "vote"]


def _evidence(rng: random.Random, t: float, dim: int = 8) -> StoryEvidence:
    title = " ".join(rng.sample(WORDS, 4))
    vec = None if rng.random() < 0.2 else np.asarray([rng.gauss(0, 1) for _ in range(dim)], dtype=np.float32)
    if vec is not None:
        vec /= np.linalg.norm(vec)
    return StoryEvidence.build(title, "", rng.choice(["en", "ko"]), t, vec)


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
