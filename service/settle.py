"""Settling: the open copy groups and stories re-decided in publication order (issue 17).

Both levels are streaming decisions, and both depend on the order items arrive in.

**Copy groups.** A copy group is matched through its anchor, the report it was founded on. In a
shuffled feed that is whichever report of the group arrived first, not the earliest published:
a copy within ``copy_gap_hours`` of a middle report but not of the original joins in one order
and not in another, and the groups' stories follow. Settling first replays the copy decisions of
the open window's items in publication order (time, then content hash; items without a
publication time after them, by content hash: an order of the items alone, where their arrival
is the only other) through the engine's own cascade and guards, over a fresh candidate state
(:func:`replay_copies`). Each group is then what a feed in that order forms, its anchor its
earliest report, whatever order the items came in. Groups with a member outside the open window
(or, with ``hours``, older than it) are held as they are: the replayed items may join them, and
they lose no member.

**Stories.** Then the story decisions of every live item of the open stories are replayed
through a fresh :class:`~service.stories.StoryTracker`, in publication order, each copy group
placed by its first item there, later members following, with revision as in streaming. Items
without a publication time have no order of their own (their time is when they were first
seen), so they are replayed after the timed ones, *copy group by copy group* in the order of
each group's smallest content hash, a group's members together, and a missed translation at once
after its partner (``settle_order``, ``translation_partners``). On NTREX dev (no times; copy
groups identical in file order and shuffles 1-3) that is story ARI 0.959 in every order (0.948
without the partners), against 0.973 / 0.959 / 0.958 / 0.923 streamed; replaying the items one by
one in content-hash order, the groups' members interleaved, gave 0.923 (docs/stories.md, "Settling").

These are the pure parts: the orders, the two replays and keeping ids. The engine reads the
store, embeds what has no vector and stores the moves (``Deduper.settle``, ``settle_copies``,
``settle_stories``); ``samestory settle`` and ``POST /v1/settlements`` call it.

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

import functools
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from service.config import DAY
from service.placement import Placed, enter_copy, place_copy, stream_stories
from service.stories import StoryEvidence, StoryTracker
from service.types import Decision

if TYPE_CHECKING:
    import numpy as np

    from index.features import ItemFeatures
    from service.cascade import Cascade, Confirm
    from service.state import CandidateState

# Replayed copy groups get ids from here up while the replay runs (the store's own ids are
# chosen after, ``keep_ids``): far above any store id, so a replayed group and a held one
# never share an id in the replay's candidate state.
REPLAY_IDS = 1 << 40


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
    # When it was published (else first seen), where that differs from ``evidence.time``: a re-run
    # counts at its anchor's time in its story (``Deduper._story_time``) but is replayed where it
    # was published, after its anchor, as streaming met it. None: ``evidence.time``.
    published: float | None = None

    @property
    def order_time(self) -> float:
        return self.evidence.time if self.published is None else self.published


@dataclass(frozen=True)
class CopyItem:
    """One live item replayed at the copy level: its document and version, the copy group the
    store has it in, its features (``time``: its publication, else when it was first seen), where
    it came from, and its body
    and language (the body check, ``EngineConfig.copy.body_passages``)."""

    doc_id: int
    version_id: int
    group: int
    features: ItemFeatures
    url: str | None = None
    source: str | None = None
    body: str = ""
    lang: str = "und"
    timed: bool = True  # False: no publication time (``features.time`` is when it was first seen)


@dataclass(frozen=True)
class ReplayedCopy:
    """Where the copy replay put one item in the end: its group (a held group's stored id, or a
    replayed group's id from ``REPLAY_IDS`` up), the cascade's decision, and the document it
    matched (None for the report a group was founded on)."""

    group: int
    decision: Decision
    matched: int | None = None


@dataclass
class CopySettleReport:
    """What the copy level of one settling did. ``items``: replayed; ``held``: items of groups
    kept as they are (a member outside the open window, or older than ``hours``); ``groups_before``/``groups_after``: the replayed items' copy groups before
    and after; ``moved``: documents now in another copy group; ``anchors``: groups whose anchor
    changed; ``skipped``: why nothing was done (None: it ran)."""

    items: int = 0
    held: int = 0
    groups_before: int = 0
    groups_after: int = 0
    moved: int = 0
    anchors: int = 0
    new_groups: int = 0
    embedded: int = 0
    seconds: float = 0.0
    skipped: str | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    corrected: int = 0  # editors' corrections honoured: the groups they name held as they are

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "seconds": round(self.seconds, 3)}


def copy_order(items: Iterable[CopyItem]) -> list[CopyItem]:
    """The copy replay's order, which depends on the items, not on when they arrived: the timed
    ones by publication time, then content hash, then document id; then those without a
    publication time by content hash (their time, when they were first seen, is their arrival).
    On ParaKQC's dev sample (untimed question sets, whose streamed copy groups differ by arrival
    order) this gives one set of copy groups and stories in file order and shuffles 1-3."""
    return sorted(items, key=lambda i: (not i.timed, i.features.time if i.timed else 0.0, i.features.content_sha,
                                        i.doc_id))


def replay_copies(cascade: Cascade, state: CandidateState, items: Sequence[CopyItem], *,
                  vector_of: Callable[[CopyItem], np.ndarray | None],
                  confirm_of: Callable[[CopyItem], Confirm | None], window_days: float,
                  held_docs: Callable[[int], list[int]] | None = None,
                  adjust: Callable[..., Any] | None = None) -> dict[int, ReplayedCopy]:
    """Stream ``items`` (in the order given) through ``cascade`` over ``state`` as the engine's
    ingest does: a match joins the group it names (in the state: a held group, or one this replay
    founded), anything else founds a group, the item its anchor (and its vector the group's).
    ``vector_of`` gives an item's copy-level vector (asked only when the cascade needs it),
    ``confirm_of`` its body check. ``adjust(features, placement, docs_of, name)`` may overrule a
    placement (``copy_level.disputed_twins``: an editor's cannot-link), ``docs_of`` giving a
    group's documents (``held_docs`` for a held group, the replay's for one it founded).
    Returns each item's placement, by document id."""
    placed: dict[int, ReplayedCopy] = {}
    ids = itertools.count(REPLAY_IDS)

    def docs_of(group: int) -> list[int]:
        if group < REPLAY_IDS:
            return held_docs(group) if held_docs is not None else []
        return [d for d, r in placed.items() if r.group == group]

    def name(group: int) -> str:
        return str(group) if group < REPLAY_IDS else f"(new, founded by document {docs_of(group)[0]})"

    for it in items:
        f = it.features
        window = (f.time - window_days * DAY, f.time + window_days * DAY)
        p = place_copy(cascade, state, f, functools.partial(vector_of, it), window, confirm=confirm_of(it))
        if adjust is not None:
            p = adjust(f, p, docs_of, name)
        group = enter_copy(state, p, doc_id=it.doc_id, version_id=it.version_id, features=f, url=it.url,
                           source=it.source, new_group=ids.__next__, vector=p.vector)
        placed[it.doc_id] = ReplayedCopy(group, p.decision, p.matched)
    return placed


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
    copies: CopySettleReport | None = None
    # Editors' corrections honoured: the groups they name, and their stories' groups, held there.
    corrected: int = 0  # the copy level's part (None: copy groups were kept)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "seconds": round(self.seconds, 3),
                "copies": None if self.copies is None else self.copies.to_dict()}


def publication_order(items: Iterable[SettleItem]) -> list[SettleItem]:
    """The items by publication time, then content hash, then document id: an order that depends
    on the items, not on when they arrived (for items with a publication time; ``settle_order``
    puts those without one after them)."""
    return sorted(items, key=lambda i: (i.order_time, i.content_hash, i.doc_id))


def settle_order(items: Iterable[SettleItem]) -> list[SettleItem]:
    """The order a settling replays ``items`` in, which depends on the items, not on their arrival:
    the timed ones in publication order (``publication_order``), then those without a publication
    time copy group by copy group, the groups in the order of their smallest content hash, each
    group's members together by content hash. Without a time the only order an item has is its
    arrival; ordering by copy groups gives one story level for one set of copy groups, however
    they arrived (NTREX dev's copy groups are the same in every order). Groups, not items: in the streamed feed a report and its
    copies arrive close together and the group is placed and then grows; interleaving the
    groups' members by hash alone scored lower on NTREX dev (module docstring). A group in one
    language only follows its translation partner at once (``translation_partners``)."""
    items = list(items)
    untimed = [i for i in items if not i.timed]
    hashes: dict[int, list[str]] = {}
    for it in untimed:
        hashes.setdefault(it.group, []).append(it.content_hash)
    # A group's sorted hashes (its smallest first); the group id breaks a tie of two groups of
    # identical texts only (an editor's cannot-link keeps such twins apart).
    key = {g: tuple(sorted(h)) for g, h in hashes.items()}
    for a, b in translation_partners(untimed).items():
        # A missed translation is replayed at once after its partner, at the earlier group's
        # place (a feed brings an article and its translation together; the next group in hash
        # order would be any other, often another outlet's write-up of the same event).
        first, second = sorted((a, b), key=lambda g: (key[g], g))
        key[second] = (*key[first], _AFTER)
    return [*publication_order(i for i in items if i.timed),
            *sorted(untimed, key=lambda i: (key[i.group], i.group, i.content_hash, i.doc_id))]


# Sorts after every content hash (hex digits): the partner's key is its group's key, then this.
_AFTER = "~"
# Rows of one language's leads multiplied at a time in ``translation_partners`` (memory only:
# rows x the other languages' leads float32 products).
_PARTNER_CHUNK = 2048


def translation_partners(items: Sequence[SettleItem]) -> dict[int, int]:
    """Pairs of copy groups that look like one article split in two by its language: each group
    holds items in one language only, and each is the other's nearest group among those in other
    languages only (by the story vector of its lead, the member first by content hash). Returns
    each pair once, the smaller group id first.

    The pairs change the settling's order, never a decision: the story score decides whether the
    second joins the first's story. It is for articles whose translation the copy level missed
    (NTREX dev: 2 of 93 articles, "Arrest made in shooting death of LSU's Sims" and its Korean
    translation, cosine 0.63). Replayed apart, another outlet's write-up of the same event could
    join the first while it was a story of one copy group, whose centroid is its member, so the
    score's "a member far closer than the centroid counts against" had nothing to work on; the
    translation then found a member of its own language closer than the centroid and was kept out
    (settled story ARI 0.948 against 0.973 streamed in file order, where each translation follows
    its source). Mutual nearest, not any nearest: a group both of whose neighbours are closer to
    something else is left in its place. A tie is broken by content hash, so the pairs depend on
    the items alone.

    >>> from service.stories import StoryEvidence
    >>> import numpy as np
    >>> v = lambda *x: np.array(x, dtype=np.float32) / np.linalg.norm(x)
    >>> it = lambda doc, group, lang, vec, h: SettleItem(
    ...     doc, group, StoryEvidence.build("t", "", lang, 0.0, vec), h, timed=False)
    >>> translation_partners([it(1, 10, "en", v(1, 0), "a"), it(2, 11, "ko", v(0.9, 0.3), "b"),
    ...                       it(3, 12, "ko", v(0.3, 0.9), "c"), it(4, 13, "en", v(0, 1), "d")])
    {10: 11, 12: 13}
    """
    import numpy as np

    langs: dict[int, set[str]] = {}
    lead: dict[int, SettleItem] = {}
    for it in items:
        langs.setdefault(it.group, set()).add(it.evidence.lang)
        if it.group not in lead or (it.content_hash, it.doc_id) < (lead[it.group].content_hash, lead[it.group].doc_id):
            lead[it.group] = it
    by_lang: dict[str, list[int]] = {}
    for g, ls in langs.items():
        if len(ls) == 1 and lead[g].evidence.vector is not None:
            by_lang.setdefault(next(iter(ls)), []).append(g)
    if len(by_lang) < 2:
        return {}
    nearest: dict[int, int] = {}
    for lang, gs in by_lang.items():
        others = [g for other, ogs in by_lang.items() if other != lang for g in ogs]
        # by content hash: the first of equal cosines wins, whatever the ids
        others.sort(key=lambda g: (lead[g].content_hash, g))
        b = np.stack([lead[g].evidence.vector for g in others]).astype(np.float32)  # type: ignore[misc]
        for start in range(0, len(gs), _PARTNER_CHUNK):
            chunk = gs[start:start + _PARTNER_CHUNK]
            a = np.stack([lead[g].evidence.vector for g in chunk]).astype(np.float32)  # type: ignore[misc]
            for g, j in zip(chunk, np.argmax(a @ b.T, axis=1), strict=True):
                nearest[g] = others[int(j)]
    return {g: h for g, h in nearest.items() if nearest.get(h) == g and g < h}


def hold(tracker: StoryTracker, items: Sequence[SettleItem], stories: Mapping[int, int]) -> None:
    """Put ``items`` (in the order given) into ``tracker`` as fixed context: each in its copy
    group's stored story (``stories``, by group), never revised. The replay that follows can join
    those stories but moves none of their groups (``Deduper.settle_stories(hours=...)``)."""
    for it in items:
        tracker.add(stories[it.group], it.evidence, unit=it.group, settle=False)
        unit = tracker.units.get(it.group)
        if unit is not None:
            unit.pinned = True


def replay(tracker: StoryTracker, items: Sequence[SettleItem]) -> dict[int, Placed]:
    """Stream ``items`` (in the order given) through ``tracker`` as the engine streams a feed
    (``service.placement.stream_stories``): a copy group's first item is matched and placed (with
    revision when the tracker revises), later members follow their group and recheck it
    (``StoryTracker.recheck``). Returns each group's final placement; ``tracker`` is left holding
    the replayed stories."""
    return stream_stories(tracker, ((it.group, it.evidence) for it in items))


def keep_ids(before: Mapping[int, int], after: Mapping[int, int], weight: Mapping[int, float],
             taken: Iterable[int] = ()) -> dict[int, int]:
    """Which existing id each replayed story (or copy group) keeps: greedily by the items the two
    share (``weight`` per unit, 1 when absent), largest first, each id used once, so a story that
    settled where it was keeps its id and readers' links stay valid. Replayed ones left out get
    new ids. ``before`` and ``after`` map each unit (a copy group; for the copy level, a
    document) to its id before and in the replay; ``taken``: ids none may take (the held ones')."""
    shared: dict[tuple[int, int], float] = {}
    for g, new in after.items():
        if g in before:
            shared[(new, before[g])] = shared.get((new, before[g]), 0.0) + weight.get(g, 1)
    out: dict[int, int] = {}
    used: set[int] = set(taken)
    for (new, old), _ in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0])):
        if new not in out and old not in used:
            out[new] = old
            used.add(old)
    return out
