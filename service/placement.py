"""Each decision in one place (issue 37): where an item goes at the copy level, and where a copy
group goes at the story level, decided without writing anything, then applied to the in-memory
candidate state or story tracker.

Every path that groups items goes through these functions: the engine's ingest
(``service.copy_level``, ``service.story_level``, whose ``Recorder`` then writes the store rows),
settling's replays (``service.settle.replay_copies``, ``service.settle.replay``), the stateless
headline dedupe (``service.stateless``) and the story evaluation (``eval.stories``). A decision
is a placement; applying one updates memory only; the store is the recorder's.

>>> from service.stories import StoryEvidence, StoryTracker
>>> t = StoryTracker(threshold=0.5, window_days=3.0)
>>> ev = lambda title, time: StoryEvidence.build(title, "", "en", time, None)
>>> placed = stream_stories(t, [("a", ev("Fed raises rates by 25 basis points", 0.0)),
...                             ("b", ev("Fed raises rates by 25 basis points again", 60.0))])
>>> placed["a"].story == placed["b"].story
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from service.doctable import Entry
from service.stories import Move, StoryEvidence, StoryMatch, StoryTracker
from service.types import Decision

if TYPE_CHECKING:
    import numpy as np

    from index.features import ItemFeatures
    from service.cascade import Cascade, Confirm, Match
    from service.corrections import Correction
    from service.state import CandidateState

# A must-link lookup (``Constraints.story_of``): the story a story was merged into, and the chain
# of editors' merges that leads there (empty: the story itself).
Redirect = Callable[[int], "tuple[int, list[Correction]]"]
Group = TypeVar("Group", bound=Hashable)  # a copy group's key: a store id, or an evaluation's unit


# the copy level ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CopyPlacement:
    """Where the copy level puts one item: the copy group it joins (None: it founds one), the
    decision (the cascade's, or the editors' where they overrule it), and the document it matched
    (None for the report a group is founded on). ``vector``: the item's copy-level vector when the
    decision embedded it (it becomes the group's when the item founds one). ``apart``: why a
    founded group must open a story of its own (``CopyLevel.disputed_twins``). Settling's replay
    reports each item's placement with ``group`` filled in (a held group's stored id, or a
    replayed group's id from ``service.settle.REPLAY_IDS`` up)."""

    group: int | None
    decision: Decision
    matched: int | None = None
    vector: np.ndarray | None = field(default=None, compare=False, repr=False)
    apart: str | None = None

    @property
    def joins(self) -> bool:
        return self.group is not None

    @classmethod
    def of(cls, match: Match, vector: np.ndarray | None = None) -> CopyPlacement:
        """The placement a cascade match says: join the group it names when it says "same"."""
        if match.decision.same and match.cluster_id is not None:
            return cls(match.cluster_id, match.decision, match.matched_doc, vector)
        return cls(None, match.decision, None, vector)


def place_copy(cascade: Cascade, state: CandidateState, f: ItemFeatures, vector_of: Callable[[], np.ndarray | None],
               window: tuple[float, float] | None, *, confirm: Confirm | None = None) -> CopyPlacement:
    """The copy decision for one item against ``state`` (cheapest stage first, the guards, the body
    check ``confirm``): join the copy group the cascade's match names, or found one. ``vector_of``
    gives the item's copy-level vector, asked at most once and only when a stage needs it.
    Reads the state, changes nothing; ``enter_copy`` applies the placement."""
    vector: list[np.ndarray | None] = []

    def vector_fn() -> np.ndarray | None:
        if not vector:
            vector.append(vector_of())
        return vector[0]

    m = cascade.match(f, state, vector_fn, window, confirm=confirm)
    return CopyPlacement.of(m, vector[0] if vector else None)


def enter_copy(state: CandidateState, placement: CopyPlacement, *, doc_id: int, version_id: int, features: ItemFeatures,
               url: str | None, source: str | None, new_group: Callable[[], int], vector: np.ndarray | None) -> int:
    """Apply a copy placement to the candidate state: the item joins its group, or founds one (its
    id from ``new_group``: the store's, or a replay's own), the item its anchor and ``vector`` (the
    item's copy-level vector, if it has one) the group's. Returns the group."""
    if placement.group is not None:
        state.put(Entry(doc_id, version_id, placement.group, features, url, source))
        return placement.group
    group = new_group()
    state.put(Entry(doc_id, version_id, group, features, url, source))
    state.set_rep(group, doc_id)
    if vector is not None:
        state.set_cluster_vector(group, doc_id, vector)
    return group


# the story level ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class StoryPlacement:
    """Where the story level puts one item of a copy group, decided and not yet applied.

    A group's first item is a story decision (``first``): ``story`` is the story it joins (after an
    editor's merge, the story that one was merged into), None for a new story; ``part`` is whose
    evidence the item joins in the tracker (the story that matched; a merged story's keeps
    drawing its own event). A later item follows its group (``first`` False): ``story`` is its
    group's story and ``part`` its group's evidence part, and with ``recheck`` its group's story
    is rechecked with it (``StoryTracker.recheck``). ``score`` and ``reason``: the decision's (a
    new story's reason says why no story was joined); ``match``: the tracker's own decision."""

    group: Hashable
    evidence: StoryEvidence
    first: bool
    story: int | None
    part: int | None
    score: float | None = None
    reason: str = ""
    pinned: bool = False
    recheck: bool = True
    match: StoryMatch | None = None


def place_story(tracker: StoryTracker, group: Hashable, ev: StoryEvidence, *, apart: str | None = None,
                redirect: Redirect | None = None) -> StoryPlacement:
    """The story decision for a new copy group whose first item is ``ev``: the best open story or a
    new one (``StoryTracker.match``). ``apart``: a new story, for that reason (an identical copy of
    two groups an editor told apart). ``redirect``: editors' merges (must-link): a story merged
    into another is never joined, the group goes where it was merged, with the reason. Changes
    nothing (the tracker counts the vetoes it made)."""
    m = tracker.match(ev)
    if apart is not None:
        m = StoryMatch(None, m.score, m.features, apart)
    story_id, reason = m.story_id, m.reason
    if story_id is not None and redirect is not None:
        target, chain = redirect(story_id)
        if chain:
            reason = "; ".join([reason, *(c.must_link_reason() for c in chain)])
            story_id = target
    # A group placed by an editor's merge (must-link) or kept apart is never moved.
    pinned = apart is not None or (m.story_id is not None and story_id != m.story_id)
    # Evidence goes to the part that matched (a merged story's keeps drawing its own event).
    part = m.story_id if m.story_id is not None and apart is None else story_id
    if m.story_id is None:
        return StoryPlacement(group, ev, True, None, None, None, f"new story ({reason})", pinned, match=m)
    return StoryPlacement(group, ev, True, story_id, part, round(m.score, 6), reason, pinned, match=m)


def follow_story(group: Hashable, ev: StoryEvidence, story: int, *, part: int | None = None,
                 recheck: bool = True) -> StoryPlacement:
    """A later item of a placed copy group: it follows its group to ``story`` (its evidence into
    ``part``, by default the story's), and with ``recheck`` the group's story is rechecked."""
    return StoryPlacement(group, ev, False, story, story if part is None else part, recheck=recheck)


def enter_story(tracker: StoryTracker, placement: StoryPlacement,
                allocate: Callable[[], int] | None = None) -> tuple[int, list[Move]]:
    """Apply a story placement to the tracker: a first item opens its new story (the id from
    ``allocate``: the store's; else the tracker's own) or joins its story, and the stories around
    it are revised (unless pinned); a later item joins its group's story and rechecks it. Returns
    the story the placement put the group in and the moves the tracker's revisions made (which
    may move this group too: the last move of a group is where it is)."""
    p, group = placement, placement.group
    if not p.first:
        assert p.part is not None and p.story is not None
        tracker.add(p.part, p.evidence, unit=group, settle=False)
        if p.recheck:
            tracker.recheck(group, p.evidence)
        return p.story, tracker.take_moves()
    story = p.story
    if story is None:
        story = allocate() if allocate is not None else tracker.new_story_id()
    tracker.add(story if p.part is None else p.part, p.evidence, unit=group, settle=not p.pinned)
    if p.pinned and group in tracker.units:
        tracker.units[group].pinned = True
    return story, tracker.take_moves()


@dataclass
class Placed:
    """Where a stream put one copy group in the end: its story, and the score and reason of the
    decision that put it there (its first item's, or the revision that moved it)."""

    story: int
    score: float
    reason: str


def stream_stories(tracker: StoryTracker, items: Iterable[tuple[Group, StoryEvidence]]) -> dict[Group, Placed]:
    """Stream ``(group, evidence)`` items (in the order given) through ``tracker`` as the engine
    streams a feed: a copy group's first item is placed (``place_story``, with revision when the
    tracker revises), later members follow their group and recheck it (``follow_story``). Returns
    each group's final placement; ``tracker`` is left holding the stories (new ones get the
    tracker's own ids)."""
    placed: dict[Group, Placed] = {}
    for group, ev in items:
        if group not in placed:
            p = place_story(tracker, group, ev)
            assert p.match is not None
            story, moves = enter_story(tracker, p)
            placed[group] = Placed(story, p.match.score, p.match.reason)
        else:
            _, moves = enter_story(tracker, follow_story(group, ev, placed[group].story))
        for mv in moves:  # the tracker's units are the groups streamed
            placed[mv.unit] = Placed(mv.target, mv.score, mv.reason)  # type: ignore[index]
    return placed
