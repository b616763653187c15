"""Short texts without a publication time join a story only at ``UNTIMED_THRESHOLD``
(``StoryTracker.threshold_for``): with neither a time nor a body, a close score is as often a
neighbouring question on the same topic as the same one (ParaKQC dev, research/notes/stories.md)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from service.stories import UNTIMED_THRESHOLD, StoryEvidence, StoryTracker


def _near(rng: np.random.Generator, base: np.ndarray, noise: float) -> np.ndarray:
    v = base + noise * rng.standard_normal(base.shape[0]).astype(np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32)


def _tracker(base: np.ndarray) -> tuple[StoryTracker, int]:
    tracker = StoryTracker(threshold=0.7, window_days=3.0)
    first = StoryEvidence.build("메일함 안 읽은 메일 전부 읽음으로 표시해줘", "", "ko", 0.0, base, timed=False)
    return tracker, tracker.add(None, first, unit="a", settle=False)


def test_only_short_untimed_items_get_the_higher_threshold() -> None:
    tracker = StoryTracker(threshold=0.7, window_days=3.0)
    short = StoryEvidence.build("알람 맞춰줘", "", "ko", 0.0, None, timed=False)
    assert tracker.threshold_for(short) == max(0.7, UNTIMED_THRESHOLD) > 0.7
    assert tracker.threshold_for(replace(short, timed=True)) == 0.7
    article = StoryEvidence.build("국민투표 실시", "유권자들은 일요일에 투표한다.", "ko", 0.0, None, timed=False)
    assert article.long and tracker.threshold_for(article) == 0.7


def test_an_untimed_question_scoring_between_the_thresholds_starts_its_own_story() -> None:
    rng = np.random.default_rng(4)
    base = _near(rng, np.ones(64, dtype=np.float32), 0.0)
    tracker, sid = _tracker(base)
    story = tracker.stories[sid]
    between = None
    for noise in np.linspace(0.02, 0.6, 60):
        ev = StoryEvidence.build("메일함 안 읽은 메일 모두 읽음 처리해줘", "", "ko", 0.0, _near(rng, base, float(noise)),
                                 timed=False)
        p = tracker.fit(ev, story)
        if 0.7 <= p < UNTIMED_THRESHOLD:
            between = ev
            break
    assert between is not None, "no score fell between the two thresholds"
    m = tracker.match(between)
    assert m.story_id is None and "without a publication time" in m.reason, m.reason
    # The same item with its publication time joins at the story threshold.
    timed = replace(between, timed=True)
    assert tracker.fit(timed, story) >= 0.7
    assert tracker.match(timed).story_id == sid


def test_an_untimed_near_copy_still_joins() -> None:
    rng = np.random.default_rng(6)
    base = _near(rng, np.ones(64, dtype=np.float32), 0.0)
    tracker, sid = _tracker(base)
    ev = StoryEvidence.build("메일함 안 읽은 메일 전부 읽음으로 표시해 줘", "", "ko", 0.0, _near(rng, base, 0.001),
                             timed=False)
    m = tracker.match(ev)
    assert m.score >= UNTIMED_THRESHOLD and m.story_id == sid, m.reason
