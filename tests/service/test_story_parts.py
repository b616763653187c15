"""The revision's bookkeeping kept exact (issue 37): ``Story.built`` is ``Story.add`` member by
member in one pass per field; a story's per-unit parts (``_UnitParts``) kept as the log grows, and
less a unit that moved out (``without``), are what reading the log again gives, matrices included."""

from __future__ import annotations

import random

import numpy as np
import pytest

from service.stories import Story, StoryTracker, _UnitParts
from tests.helpers.stories import random_evidence as _evidence


def _fields(s: Story) -> tuple[object, ...]:
    vec = None if s.vec_sum is None else (s.vec_sum.dtype, s.vec_sum.tobytes())
    return (s.id, s.first_time, s.last_time, s.size, vec, [(v.tobytes(), lang) for v, lang in s.kept],
            [id(m) for m in s.members], list(s.words.items()), list(s.anchors.items()), list(s.langs.items()))


def _parts_fields(p: _UnitParts) -> tuple[object, ...]:
    mats = p.matrices()
    n = len(p.row)
    return (list(p.count.items()), {k: list(c.items()) for k, c in p.words.items()},
            {k: list(c.items()) for k, c in p.anchors.items()}, {k: v.tobytes() for k, v in p.vec.items()},
            list(p.nvecs.items()), p.nvec, p.by_time, list(p.row.items()), {k: id(ev) for k, ev in p.first.items()},
            None if mats is None else (mats[0][:n].tobytes(), mats[1][:n].tobytes()))


@pytest.mark.parametrize("n", [1, 5, 8, 9, 40])
def test_built_is_add_member_by_member(n: int) -> None:
    rng = random.Random(n)
    evs = [_evidence(rng, 60.0 * rng.randrange(100)) for _ in range(n)]
    one_by_one = Story(7, evs[0].time, evs[0].time)
    for ev in evs:
        one_by_one.add(ev)
    assert _fields(Story.built(7, evs)) == _fields(one_by_one)  # bit for bit, key order too


def _tracker(seed: int) -> tuple[StoryTracker, int]:
    rng = random.Random(seed)
    tracker = StoryTracker(threshold=0.7, window_days=3.0, revise=True)
    sid = None
    for i in range(30):
        sid = tracker.add(sid, _evidence(rng, 60.0 * i), unit=rng.randrange(10), settle=False)
    assert sid is not None
    return tracker, sid


@pytest.mark.parametrize("seed", range(4))
def test_parts_kept_as_the_log_grows_are_the_logs(seed: int) -> None:
    tracker, sid = _tracker(seed)
    s = tracker.stories[sid]
    kept = tracker._parts(s)
    assert kept.matrices() is not None  # built now, then kept up to date by each add
    rng = random.Random(seed + 100)
    for i in range(12):
        tracker.add(sid, _evidence(rng, 3000.0 + i), unit=rng.randrange(14), settle=False)
    assert tracker._parts(s) is kept
    assert _parts_fields(kept) == _parts_fields(_UnitParts(s))


@pytest.mark.parametrize("seed", range(4))
def test_parts_without_a_unit_are_the_rests(seed: int) -> None:
    tracker, sid = _tracker(seed)
    s = tracker.stories[sid]
    for u in tracker._units_in(s):
        parts = _UnitParts(s)
        if seed % 2:
            parts.matrices()  # with and without the matrices built
        rest = tracker._rest(u)
        assert rest is not None
        assert _parts_fields(parts.without(u.key)) == _parts_fields(_UnitParts(rest))


def test_a_move_leaves_the_source_with_current_parts() -> None:
    tracker, sid = _tracker(1)
    s = tracker.stories[sid]
    tracker._parts(s).matrices()
    u = tracker._units_in(s)[0]
    tracker._move(u, tracker.new_story_id(), 0.9, "test")
    src = tracker.stories[sid]
    assert src is not s and src.parts is not None and src.parts[0] == (id(src.log), len(src.log))
    assert _parts_fields(src.parts[1]) == _parts_fields(_UnitParts(src))
    assert _fields(src) == _fields(Story.built(sid, [ev for _, ev in src.log]))


def _nearer_own_stacked(units: list, s: Story, parts: _UnitParts, cx: np.ndarray) -> list:
    """``_nearer_own`` as it was before the parts kept their matrices: every unit's vectors stacked."""
    from service.stories import REVISE_PREFILTER, REVISE_UNITS

    with_vec = [u for u in units if u.lead.vector is not None]
    if not with_vec:
        return units
    assert s.vec_sum is not None
    leads = np.stack([u.lead.vector for u in with_vec])
    zero = np.zeros_like(s.vec_sum)
    own = s.vec_sum - np.stack([parts.vec.get(u.key, zero) for u in with_vec])
    norms = np.sqrt(np.einsum("ij,ij->i", own, own, dtype=np.float64))
    safe = np.where(norms > 0, norms, 1.0)
    gain = (leads @ cx).astype(np.float64) - np.einsum("ij,ij->i", own, leads, dtype=np.float64) / safe
    idx = np.flatnonzero((norms == 0) | (gain >= -REVISE_PREFILTER))
    if idx.size > REVISE_UNITS:
        idx = np.sort(idx[np.argsort(-gain[idx], kind="stable")[:REVISE_UNITS]])
    kept = {id(with_vec[i]) for i in idx}
    return [u for u in units if u.lead.vector is None or id(u) in kept]


@pytest.mark.parametrize("seed", range(6))
def test_the_prefilter_on_the_parts_matrices_keeps_what_the_stacks_kept(seed: int) -> None:
    rng = random.Random(seed)
    tracker = StoryTracker(threshold=0.7, window_days=3.0, revise=True)
    sid = None
    for i in range(120):  # up to 40 units, most past the prefilter towards the story's own centroid
        sid = tracker.add(sid, _evidence(rng, 60.0 * i), unit=rng.randrange(40), settle=False)
    assert sid is not None
    s = tracker.stories[sid]
    parts = tracker._parts(s)
    units = tracker._units_in(s, parts)
    for cx in [s.centroid(), _evidence(rng, 0.0).vector, _evidence(rng, 0.0).vector]:
        if cx is None:
            continue
        cx = cx / np.linalg.norm(cx)
        want = [u.key for u in _nearer_own_stacked(units, s, parts, cx)]
        assert [u.key for u in tracker._nearer_own(units, s, parts, cx)] == want  # every row: a view
        some = units[::2]  # a subset of the rows: taken by index
        assert ([u.key for u in tracker._nearer_own(some, s, parts, cx)]
                == [u.key for u in _nearer_own_stacked(some, s, parts, cx)])
