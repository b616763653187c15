"""Settling the story level: the open stories re-decided in publication order (issue 17).

A streaming story decision depends on the order items arrive in: the first copy group of an
event that arrives founds its story, and a group that arrives before the members it fits best
joins something else. Settling replays the story decisions of every live item of the open
stories through a fresh :class:`~service.stories.StoryTracker`, in *publication order* (time,
then the text's content hash, so that the same items give the same order however they
arrived), each copy group placed by its first item there, later members following, with
revision as in streaming. Copy groups are not touched: a copy group is the same report in every
order (``tests/test_stories.py``), and the story level is a function of them once settled.

Items without a publication time have no order of their own (their time is when they were first
seen, their arrival), so they are replayed after the timed ones, *copy group by copy group* in
the order of each group's smallest content hash, a group's members together (``settle_order``).
Copy groups do not depend on arrival order (``tests/test_stories.py``), so an untimed feed then
settles to one story level whatever order it came in. On NTREX dev (no times; copy groups
identical in file order and shuffles 1-3) that is story ARI 0.948 in every order, against 0.973 /
0.959 / 0.958 / 0.923 streamed; replaying the items one by one in content-hash order, the
groups' members interleaved, gave 0.923 (docs/stories.md, "Settling").

These are the pure parts: the order, the replay and keeping story ids. The engine reads the
store, embeds the items that have no story vector and stores the moves
(``Deduper.settle_stories``); ``samestory settle`` and ``POST /v1/settlements`` call it.

>>> from service.stories import StoryEvidence, StoryTracker
>>> ev = lambda title, t: StoryEvidence.build(title, "", "en", t, None)
>>> items = [SettleItem(2, 20, ev("Fed raises rates by 25 basis points again", 60.0), "b"),
...          SettleItem(1, 10, ev("Fed raises rates by 25 basis points", 0.0), "a")]
>>> [i.doc_id for i in publication_order(items)]
[1, 2]
>>> untimed = [SettleItem(4, 30, ev("Volcano erupts", 0.0), "c", timed=False),
...            SettleItem(3, 40, ev("Volcano erupts in Iceland", 0.0), "d", timed=False),
...            SettleItem(5, 40, ev("Vulkan bricht aus", 0.0), "a", timed=False)]
>>> [i.doc_id for i in settle_order([*untimed, *items])]
[1, 2, 5, 3, 4]
>>> placed = replay(StoryTracker(threshold=0.5, window_days=3.0), publication_order(items))
>>> placed[10].story == placed[20].story
True
>>> keep_ids({10: 7, 20: 8}, {10: 1, 20: 1}, {10: 3, 20: 1})
{1: 7}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from service.stories import StoryEvidence, StoryTracker


@dataclass(frozen=True)
class SettleItem:
    """One live item of an open story: its document, its copy group, its story evidence (whose
    ``time`` is what it counts at in its story), its text's content hash (the tie-break) and
    whether it has a publication time."""

    doc_id: int
    group: int
    evidence: StoryEvidence
    content_hash: str
    timed: bool = True  # False: no publication time (``evidence.time`` is when it was first seen)


@dataclass
class Placement:
    """Where the replay put one copy group: its story (the replay's own id), and the score and
    reason of the decision that put it there (its first item's, or the revision that moved it)."""

    story: int
    score: float
    reason: str


@dataclass
class SettleReport:
    """What one settling did. ``items``: those replayed; ``untimed``: how many of them have no
    publication time (replayed after the timed ones, ``settle_order``); ``held``: items of copy groups older than
    the settling's ``hours``, kept where they are as context; ``moved``: copy groups whose story
    changed; ``skipped``: why nothing was done (None: it ran)."""

    items: int = 0
    untimed: int = 0
    held: int = 0
    groups: int = 0
    stories_before: int = 0
    stories_after: int = 0
    moved: int = 0
    new_stories: int = 0
    embedded: int = 0
    seconds: float = 0.0
    skipped: str | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "seconds": round(self.seconds, 3)}


def publication_order(items: Iterable[SettleItem]) -> list[SettleItem]:
    """The items by publication time, then content hash, then document id: an order that depends
    on the items, not on when they arrived (for items with a publication time; ``settle_order``
    puts those without one after them)."""
    return sorted(items, key=lambda i: (i.evidence.time, i.content_hash, i.doc_id))


def settle_order(items: Iterable[SettleItem]) -> list[SettleItem]:
    """The order a settling replays ``items`` in, which depends on the items, not on their arrival:
    the timed ones in publication order (``publication_order``), then those without a publication
    time copy group by copy group, the groups in the order of their smallest content hash, each
    group's members together by content hash. Without a time the only order an item has is its
    arrival; ordering by copy groups gives one story level for one set of copy groups, however
    they arrived (NTREX dev's copy groups are the same in every order). Groups, not items: in the streamed feed a report and its
    copies arrive close together and the group is placed and then grows; interleaving the
    groups' members by hash alone scored lower on NTREX dev (module docstring)."""
    items = list(items)
    untimed = [i for i in items if not i.timed]
    hashes: dict[int, list[str]] = {}
    for it in untimed:
        hashes.setdefault(it.group, []).append(it.content_hash)
    # A group's sorted hashes (its smallest first); the group id breaks a tie of two groups of
    # identical texts only (an editor's cannot-link keeps such twins apart).
    key = {g: tuple(sorted(h)) for g, h in hashes.items()}
    return [*publication_order(i for i in items if i.timed),
            *sorted(untimed, key=lambda i: (key[i.group], i.group, i.content_hash, i.doc_id))]


def hold(tracker: StoryTracker, items: Sequence[SettleItem], stories: Mapping[int, int]) -> None:
    """Put ``items`` (in the order given) into ``tracker`` as fixed context: each in its copy
    group's stored story (``stories``, by group), never revised. The replay that follows can join
    those stories but moves none of their groups (``Deduper.settle_stories(hours=...)``)."""
    for it in items:
        tracker.add(stories[it.group], it.evidence, unit=it.group, settle=False)
        unit = tracker.units.get(it.group)
        if unit is not None:
            unit.pinned = True


def replay(tracker: StoryTracker, items: Sequence[SettleItem]) -> dict[int, Placement]:
    """Stream ``items`` (in the order given) through ``tracker`` as the engine streams a feed: a
    copy group's first item is matched and placed (with revision when the tracker revises), later
    members follow their group and recheck it (``StoryTracker.recheck``). Returns each group's
    final placement; ``tracker`` is left holding the replayed stories."""
    placed: dict[int, Placement] = {}
    for it in items:
        if it.group not in placed:
            m = tracker.match(it.evidence)
            story = tracker.add(m.story_id, it.evidence, unit=it.group)
            placed[it.group] = Placement(story, m.score, m.reason)
        else:
            tracker.add(placed[it.group].story, it.evidence, unit=it.group, settle=False)
            tracker.recheck(it.group, it.evidence)
        for mv in tracker.take_moves():
            placed[int(mv.unit)] = Placement(mv.target, mv.score, mv.reason)  # type: ignore[call-overload]
    return placed


def keep_ids(before: Mapping[int, int], after: Mapping[int, int], weight: Mapping[int, int],
             taken: Iterable[int] = ()) -> dict[int, int]:
    """Which existing story id each replayed story keeps: greedily by the number of items
    (``weight`` per group) the two share, largest first, each id used once, so a story that
    settled where it was keeps its id and readers' links stay valid. Replayed stories left out get
    new ids. ``before`` and ``after`` map each group to its story before and in the replay;
    ``taken``: ids no replayed story may take (the held stories', which keep their own)."""
    shared: Counter[tuple[int, int]] = Counter()
    for g, new in after.items():
        if g in before:
            shared[(new, before[g])] += weight.get(g, 1)
    out: dict[int, int] = {}
    used: set[int] = set(taken)
    for (new, old), _ in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0])):
        if new not in out and old not in used:
            out[new] = old
            used.add(old)
    return out
