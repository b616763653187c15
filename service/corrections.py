"""Editors' corrections in story terms: split a member off, merge two stories, mark a pair "not the same".

A story (``service/stories.py``, issue 17) holds copy groups (the cascade's clusters), and each
group its members. Each correction is one row of ``editor_corrections`` (who: the API key's
name, when, the document pair it stands for, the stories it left and went to), written in the
same transaction as the changes it makes, so it is wholly applied or not at all and survives a
restart like any write. Nothing is deleted: a member taken out of its copy group keeps its
previous membership decision inside its new one (``decision["previous"]``), a group moved to
another story says so in its story reason, and observations keep the engine's original verdict.

- **split** a member off: it leaves its copy group (when the group has other members) and its
  story, for a new group in a new story; a member alone in its group takes the group along.
- **merge** two stories: every copy group of one moves into the other (groups are not merged:
  copies and their events are different questions).
- **not the same**: when the two documents share a copy group, the second leaves it and the
  story as in a split; when they share a story in different groups, the second's group moves to
  a new story; otherwise the pair is only recorded.

They constrain later decisions, new items' included:

- **must-link** (a merge): the merged story's evidence joins the story it went into, so a new
  item that would have joined it joins that story; a worker whose memory still holds the merged
  story (it loaded before the merge) redirects its story decision there, with the reason
  (``StoryLevel.place``), and rebuilds the stories a newer correction touched;
- **cannot-link** (a split, "not the same"): the split-off member's evidence leaves the story it
  left, so new copies and look-alikes of it follow it to its own story (a new copy joins its
  copy group, whose story is its story); a new item identical to members on both sides joins
  neither (``CopyLevel.disputed_twins``: an earlier such item's group, else a group and story of
  its own); and an editor's later merge of the two documents' stories is refused, naming the
  pair (withdraw the correction instead). The engine never
  merges two existing copy groups or stories on its own (a new item joins one group, a new group
  one story), so no later item can bring a cannot-linked pair back together.

An editor may **withdraw** one (undo, :meth:`Editor.withdraw`): the withdrawal is a row of its own
(``correction_withdrawals``, migration step 5: who, when, note), the correction stays listed,
marked withdrawn, no longer constrains and is no labelled pair, and what it moved is placed
again by the engine's settling scoped to it.

And they are labelled pairs (:func:`labelled_pairs`) in the eval-data pair format, so
``samestory eval calibrate`` can re-fit the thresholds on an editor's judgement.

The table is part of the store's schema (migration step 3, ``service/store/migrations.py``).

>>> from service.engine import Deduper
>>> from service.types import Article
>>> d = Deduper.open(":memory:", model=None)
>>> a = d.ingest(Article(title="Fed raises rates by 0.25%p", url="https://a.example/1"))
>>> b = d.ingest(Article(title="Fed raises rates by 0.25%p", url="https://b.example/2"))
>>> (b.cluster_id, b.story_id) == (a.cluster_id, a.story_id)
True
>>> c = Editor(d).split(b.document_id, who="alice")
>>> (c.kind, c.doc_a, c.story_from, c.who)
('split', 2, 1, 'alice')
>>> moved = d.store.get_cluster(d.store.get_document(b.document_id).cluster_id)
>>> (moved.id != a.cluster_id, moved.story_id == c.story_to != a.story_id)
(True, True)
>>> [p["label"] for p in labelled_pairs(d.store)]
[0]
>>> d.close()
"""

from __future__ import annotations

import time as _time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from service.representative import Candidate, better
from service.types import utc_iso

KINDS = ("split", "merge", "not_same")
# The pair label each kind stands for in the eval-data format: 1 = the same story.
LABELS = {"split": 0, "merge": 1, "not_same": 0}

_COLS = ("c.id, c.kind, c.doc_a, c.doc_b, c.story_from, c.story_to, c.who, c.at, c.note, w.who, w.at, w.note"
         " FROM editor_corrections c LEFT JOIN correction_withdrawals w ON w.correction_id = c.id")


class CorrectionError(ValueError):
    """A correction that cannot be applied (no such document, nothing to split, a cannot-link)."""


class CorrectionTargetMissing(CorrectionError):
    """A correction naming a document or story that does not exist (or a deleted document): the
    HTTP API's 404, where any other ``CorrectionError`` is a 409."""


@dataclass(frozen=True)
class Withdrawal:
    """An editor's withdrawal of a correction (undo): who, when, and the note. A row of its own
    (``correction_withdrawals``, migration step 5): the correction's row is never rewritten."""

    who: str
    at: float
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"who": self.who, "at": iso(self.at), "note": self.note}


@dataclass(frozen=True)
class Correction:
    """One editor's correction. ``doc_a``/``doc_b`` is the labelled pair it stands for:
    split: (the member split off, the representative of the group it left, else of the story's
    first other group); merge: (the kept story's first group's representative, the merged
    story's); not_same: the two documents. ``story_from`` is the story the change left (split,
    merge, a not_same that moved a member) and ``story_to`` the one it went to."""

    id: int
    kind: str
    doc_a: int
    doc_b: int
    story_from: int | None
    story_to: int | None
    who: str
    at: float
    note: str | None = None
    withdrawn: Withdrawal | None = None  # withdrawn (undone): no longer a constraint nor a labelled pair

    @property
    def label(self) -> int:
        return LABELS[self.kind]

    def must_link_reason(self) -> str:
        return f"editor: story {self.story_from} was merged into story {self.story_to} by {self.who} at {iso(self.at)} (must-link)"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "doc_a": self.doc_a, "doc_b": self.doc_b,
                "story_from": self.story_from, "story_to": self.story_to, "who": self.who,
                "at": iso(self.at), "note": self.note, "label": self.label,
                "withdrawn": None if self.withdrawn is None else self.withdrawn.to_dict()}

    def describe(self) -> str:
        """What it did, in the words of the pages and the CLI.

        >>> Correction(3, "merge", 1, 2, 9, 4, "bob", 0.0).describe()
        'merge of story 9 into story 4'
        """
        if self.kind == "merge":
            return f"merge of story {self.story_from} into story {self.story_to}"
        if self.kind == "split":
            return f"split of document {self.doc_a} off story {self.story_from}"
        return f"documents {self.doc_a} and {self.doc_b} marked not the same"


def iso(t: float | None) -> str | None:
    """Epoch seconds as ISO 8601 in UTC, as every JSON answer gives a time (``service.types.utc_iso``).

    >>> iso(0.0)
    '1970-01-01T00:00:00Z'
    """
    return utc_iso(t)


# storage ---------------------------------------------------------------------------------------------
def _row(r: Any) -> Correction:
    withdrawn = None if r[9] is None else Withdrawal(r[9], float(r[10]), r[11])
    return Correction(int(r[0]), r[1], int(r[2]), int(r[3]), None if r[4] is None else int(r[4]),
                      None if r[5] is None else int(r[5]), r[6], float(r[7]), r[8], withdrawn)


def list_corrections(store: Any, *, limit: int | None = None) -> list[Correction]:
    """Every correction, oldest first (the last ``limit`` when given), withdrawn ones included."""
    rows = store._all(f"SELECT {_COLS} ORDER BY c.id")
    out = [_row(r) for r in rows]
    return out[-limit:] if limit else out


def get_correction(store: Any, correction_id: int) -> Correction | None:
    row = store._one(f"SELECT {_COLS} WHERE c.id = ?", (correction_id,))
    return None if row is None else _row(row)


def _insert(store: Any, kind: str, doc_a: int, doc_b: int, story_from: int | None, story_to: int | None,
            who: str, now: float, note: str | None) -> Correction:
    cid = store._insert(
        "INSERT INTO editor_corrections (kind, doc_a, doc_b, story_from, story_to, who, at, note)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (kind, doc_a, doc_b, story_from, story_to, who, now, note))
    return Correction(cid, kind, doc_a, doc_b, story_from, story_to, who, now, note)


# constraints: the engine's hook -------------------------------------------------------------------
@dataclass
class Constraints:
    """Must-link (merged stories) and cannot-link (document pairs) from the corrections that are
    not withdrawn."""

    merged_into: dict[int, tuple[int, Correction]] = field(default_factory=dict)
    cannot: dict[frozenset[int], Correction] = field(default_factory=dict)
    last_id: int = 0
    last_withdrawal: int = 0  # the newest withdrawal read (``refresh`` lifts the newer ones)
    live: dict[int, Correction] = field(default_factory=dict, repr=False)  # what the maps are made of, by id
    # The store they were read from: ``refresh`` reads the corrections other workers made since.
    store: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_corrections(cls, corrections: list[Correction]) -> Constraints:
        out = cls()
        for c in corrections:
            out.add(c)
        return out

    def add(self, c: Correction) -> None:
        self.last_id = max(self.last_id, c.id)
        if c.withdrawn is None:
            self.live[c.id] = c
            self._constrain(c)

    def _constrain(self, c: Correction) -> None:
        if c.kind == "merge" and c.story_from is not None and c.story_to is not None:
            self.merged_into[c.story_from] = (c.story_to, c)
        elif c.kind in ("split", "not_same"):
            self.cannot[frozenset((c.doc_a, c.doc_b))] = c

    def lift(self, correction_id: int) -> Correction | None:
        """A withdrawn correction no longer constrains: the maps are rebuilt from the others, so an
        earlier merge of the same story (or correction of the same pair) holds again. Returns the
        correction lifted (None: it was not in force here)."""
        c = self.live.pop(correction_id, None)
        if c is not None:
            self.merged_into.clear()
            self.cannot.clear()
            for other in sorted(self.live.values(), key=lambda x: x.id):
                self._constrain(other)
        return c

    def __bool__(self) -> bool:
        return bool(self.merged_into or self.cannot)

    def corrections(self) -> list[Correction]:
        """Every correction that constrains (the latest merge of a story, every cannot-link pair), by id."""
        return sorted([*(c for _, c in self.merged_into.values()), *self.cannot.values()], key=lambda c: c.id)

    def pinned(self, group_of: dict[int, int], story_of_group: dict[int, int] | None = None) -> tuple[set[int], int]:
        """The copy groups a settling must hold where they are to honour the corrections, and how
        many corrections that is. ``group_of``: the replay's documents' copy groups;
        ``story_of_group``: their stories (the story level), else None (the copy level).

        Held: every group holding a document a correction names (the split-off member and the
        group it left; a "not the same" pair) and, at the story level, every group of a story a
        correction left or went to (a merged story's groups stay together: must-link). Each held
        group keeps its copy group and story; replayed ones may join them, as new items may, but no
        replay moves them, so a split is not undone (cannot-link) and a merge not taken apart."""
        stories: set[int] = set()
        groups: set[int] = set()
        count = 0
        for c in self.corrections():
            docs = [group_of[d] for d in (c.doc_a, c.doc_b) if d in group_of]
            named = {self.story_of(s)[0] for s in (c.story_from, c.story_to) if s is not None}
            touched = set(docs)
            if story_of_group is not None:
                touched |= {g for g, s in story_of_group.items() if s in named}
            if touched:
                count += 1
                groups |= touched
                stories |= named
        return groups, count

    def refresh(self) -> list[Correction]:
        """The corrections written or withdrawn since ours were read (by another worker), now added
        or lifted (one query on the two primary keys when nothing changed)."""
        if self.store is None:
            return []
        newest, withdrawn = _newest(self.store)
        fresh: list[Correction] = []
        if newest > self.last_id:
            fresh = [_row(r) for r in self.store._all(f"SELECT {_COLS} WHERE c.id > ? ORDER BY c.id", (self.last_id,))]
            for c in fresh:
                self.add(c)
        if withdrawn > self.last_withdrawal:
            lifted = [_row(r) for r in self.store._all(f"SELECT {_COLS} WHERE w.id > ? ORDER BY c.id",
                                                       (self.last_withdrawal,))]
            for c in lifted:
                if self.lift(c.id) is not None:
                    fresh.append(c)
            self.last_withdrawal = withdrawn
        return fresh

    def story_of(self, story: int) -> tuple[int, list[Correction]]:
        """Follow merges from ``story`` to the story that holds it now (and the merges followed)."""
        chain: list[Correction] = []
        seen = {story}
        while story in self.merged_into:
            story, c = self.merged_into[story]
            chain.append(c)
            if story in seen:  # a merge cycle cannot be made through Editor.merge; stop rather than loop
                break
            seen.add(story)
        return story, chain

    def cannot_link(self, docs_a: list[int], docs_b: list[int]) -> Correction | None:
        """The cannot-link correction between any document of ``docs_a`` and one of ``docs_b``."""
        if not self.cannot:
            return None
        set_a, set_b = set(docs_a), set(docs_b)
        for pair, c in self.cannot.items():
            x, y = tuple(pair) if len(pair) == 2 else (next(iter(pair)),) * 2
            if (x in set_a and y in set_b) or (y in set_a and x in set_b):
                return c
        return None


def _newest(store: Any) -> tuple[int, int]:
    """The newest correction's and the newest withdrawal's ids (0: none)."""
    row = store._one("SELECT (SELECT MAX(id) FROM editor_corrections), (SELECT MAX(id) FROM correction_withdrawals)")
    return (0, 0) if row is None else (int(row[0] or 0), int(row[1] or 0))


def load_constraints(store: Any) -> Constraints:
    _, withdrawn = _newest(store)  # before the list: a withdrawal between the two is lifted again, harmlessly
    out = Constraints.from_corrections(list_corrections(store))
    out.last_withdrawal = withdrawn
    out.store = store
    return out


def attach(engine: Any) -> Constraints:
    """Load the store's corrections into ``engine.ctx.constraints`` (what ``StoryLevel.place`` consults)."""
    engine.ctx.constraints = load_constraints(engine.store)
    return engine.ctx.constraints


# applying corrections -----------------------------------------------------------------------------
class Editor:
    """Applies corrections through an engine: the store rows and the engine's in-memory state
    change together (moved documents are replayed through the engine's change feed, and the
    stories they touched are rebuilt in the story tracker)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.placed_again: tuple[Any, Any] | None = None  # the last withdrawal's settling reports
        if getattr(engine.ctx, "constraints", None) is None:
            attach(engine)

    @property
    def store(self) -> Any:
        return self.engine.store

    def _doc(self, document_id: int) -> Any:
        doc = self.store.get_document(document_id)
        if doc is None:
            raise CorrectionTargetMissing(f"document {document_id} does not exist")
        if doc.deleted:
            raise CorrectionTargetMissing(f"document {document_id} was deleted")
        if doc.cluster_id is None:
            raise CorrectionError(f"document {document_id} is in no story")
        return doc

    def _story_of(self, doc: Any) -> int:
        cluster = self.store.get_cluster(doc.cluster_id)
        if cluster is None or cluster.story_id is None:
            raise CorrectionError(f"document {doc.id} is in no story")
        return int(cluster.story_id)

    def _group_docs(self, group_id: int) -> list[int]:
        return [m.document_id for m in self.store.members_of(group_id)]

    def _live_groups(self, story_id: int) -> list[Any]:
        """The story's copy groups that have live members (a group whose members were all deleted,
        or moved to other groups by a settling, stays a row in its story, empty)."""
        return [c for c in self.store.clusters_of_story(story_id) if self.store.members_of(c.id)]

    def _story_docs(self, story_id: int) -> list[int]:
        return [d for c in self.store.clusters_of_story(story_id) for d in self._group_docs(c.id)]

    def _decision(self, reason: str, previous: Any, matched: int | None) -> dict[str, Any]:
        return {"same": matched is not None, "stage": "editor", "score": None, "reasons": [reason],
                "blocked_by": [], "matched_id": matched, "scores": {}, "guards": [],
                "previous": None if previous is None else {
                    "cluster_id": previous.cluster_id, "stage": previous.stage, "score": previous.score,
                    "matched_id": previous.matched_id, "decision": previous.decision}}

    def _best_rep(self, doc_ids: list[int]) -> tuple[int, str]:
        """The representative among ``doc_ids`` by the engine's own rule (original over syndicator,
        direct over redirect, newest), and the reason."""
        rules = self.engine.ctx.url_rules
        cands = []
        for i in doc_ids:
            doc = self.store.get_document(i)
            t = doc.published_at if doc.published_at is not None else doc.first_seen
            cands.append(Candidate(doc.id, doc.url, doc.source, t))
        best, why = cands[0], "the only member left"
        for c in cands[1:]:
            reason = better(c, best, rules)
            if reason is not None:
                best, why = c, reason
        return best.doc_id, why

    def _apply(self, changed: list[int]) -> None:
        """Record the changes and replay them into the engine (inside the open transaction)."""
        now = _time.time()
        for doc_id in dict.fromkeys(changed):
            self.store.record_change(doc_id, now)
        self.engine.ctx.catch_up()

    def _fix_vectors(self, groups: list[int]) -> None:
        """A copy group whose anchor changed must not keep the old anchor's vector in the
        candidate index (a later translation of the split-off article would otherwise join the
        group it was taken out of): replace it with the new anchor's stored vector, or drop it."""
        state = self.engine.ctx.state
        if state.vectors is None:
            return
        import numpy as np

        for group in groups:
            state.vectors.remove([group])
            rep = state.reps.get(group)
            model = self.engine.ctx.model_name
            if rep is None or not model:
                continue
            doc = self.store.get_document(rep)
            vec = self.store.load_vectors([doc.latest_version_id], model).get(doc.latest_version_id)
            if vec is not None:
                state.set_cluster_vector(group, rep, np.frombuffer(vec, dtype=np.float32))

    def _transaction(self) -> Any:
        return _EngineTransaction(self.engine)

    def _done(self, c: Correction, stories: list[int]) -> Correction:
        self.engine.story_level.restory(stories)
        self.engine.ctx.constraints.add(c)
        return c

    def split(self, document_id: int, *, who: str, note: str | None = None) -> Correction:
        """Take ``document_id`` out of its copy group and its story, into a new group in a new
        story (cannot-link with the representative of the group, else the story, it left)."""
        with self._transaction():
            doc = self._doc(document_id)
            return self._split(doc, who, note, kind="split", other=None, keep_group=False)

    def _split(self, doc: Any, who: str, note: str | None, *, kind: str, other: int | None,
               keep_group: bool) -> Correction:
        """Move ``doc`` to a new story: alone, in a new copy group (``keep_group`` False and its
        group has other members), else with its whole copy group."""
        store, now = self.store, _time.time()
        group = doc.cluster_id
        story = self._story_of(doc)
        groups = [c.id for c in self._live_groups(story)]
        group_docs = self._group_docs(group)
        leave_group = not keep_group and group_docs != [doc.id]
        if not leave_group and groups == [group]:
            what = f"document {doc.id} is the only member" if group_docs == [doc.id] else \
                f"document {doc.id}'s copy group is the only copy group"
            raise CorrectionError(f"{what} of story {story}: nothing to split")
        why = split_reason(who, doc.id, story)
        new_story = store.create_story(now)
        if leave_group:
            rep_before = store.get_cluster(group).representative_id
            previous = next((m for m in store.members_of(group) if m.document_id == doc.id), None)
            moved = store.create_cluster(doc.id, now)
            store.set_representative(moved, doc.id, doc.id, why, now)
            store.set_membership(doc.id, moved, now, "editor", None, None, self._decision(why, previous, None))
            changed = [doc.id]
            pair = rep_before
            if rep_before == doc.id:
                new_rep, reason = self._best_rep([d for d in group_docs if d != doc.id])
                store.set_representative(group, doc.id, new_rep, f"previous representative split off by editor "
                                         f"{who} ({reason})", now)
                changed.append(new_rep)
                pair = new_rep
        else:
            moved, changed = group, []
            pair = next(c.representative_id for c in self._live_groups(story) if c.id != group)
        store.set_cluster_story(moved, new_story, None, why, now)
        a, b = (doc.id, pair) if other is None else (other, doc.id)  # not_same keeps the editor's order
        c = _insert(store, kind, a, b, story, new_story, who, now, note)
        if changed:
            self._apply(changed)
            self._fix_vectors([group, moved])
        return self._done(c, [story, new_story])

    def not_same(self, doc_a: int, doc_b: int, *, who: str, note: str | None = None) -> Correction:
        """Mark two documents "not the same": when they share a copy group, ``doc_b`` leaves it
        and the story; when they share a story, ``doc_b``'s copy group moves to a new story."""
        if doc_a == doc_b:
            raise CorrectionError(f"a document is always the same as itself (document {doc_a})")
        with self._transaction():
            a, b = self._doc(doc_a), self._doc(doc_b)
            if self._story_of(a) == self._story_of(b):
                return self._split(b, who, note, kind="not_same", other=a.id, keep_group=a.cluster_id != b.cluster_id)
            c = _insert(self.store, "not_same", a.id, b.id, None, None, who, _time.time(), note)
            self.engine.ctx.constraints.add(c)
            return c

    def merge(self, into_story: int, from_story: int, *, who: str, note: str | None = None) -> Correction:
        """Move every copy group of ``from_story`` into ``into_story`` (must-link), unless an
        editor marked a pair across them "not the same" (cannot-link)."""
        if into_story == from_story:
            raise CorrectionError(f"story {into_story} cannot be merged into itself")
        store = self.store
        with self._transaction():
            for sid in (into_story, from_story):
                if store.get_story(sid) is None:
                    raise CorrectionTargetMissing(f"story {sid} does not exist")
            src_groups = store.clusters_of_story(from_story)
            into_live, src_live = self._live_groups(into_story), self._live_groups(from_story)
            into_docs, src_docs = self._story_docs(into_story), self._story_docs(from_story)
            if not src_docs:
                raise CorrectionError(f"story {from_story} has no members left to merge")
            if not into_docs:
                raise CorrectionError(f"story {into_story} has no members left to merge into")
            veto = self.engine.ctx.constraints.cannot_link(into_docs, src_docs)
            if veto is not None:
                # Name the correction the editor made: after a split, "marked not the same" named
                # something nobody did, and "split them first" read as the split just made.
                what = (f"document {veto.doc_a} was split off from document {veto.doc_b}" if veto.kind == "split"
                        else f"documents {veto.doc_a} and {veto.doc_b} were marked not the same")
                raise CorrectionError(f"{what} by {veto.who} at {iso(veto.at)} (correction {veto.id}), which a "
                                      f"merge does not undo: withdraw that correction (Undo on the corrections list), or "
                                      f"split one of the two off its story first")
            now = _time.time()
            why = merge_reason(who, from_story, into_story)
            # The merged story keeps its row (and the corrections name it) with no groups left.
            for g in src_groups:
                store.set_cluster_story(g.id, into_story, None, why, now)
            c = _insert(store, "merge", into_live[0].representative_id, src_live[0].representative_id,
                        from_story, into_story, who, now, note)
            return self._done(c, [into_story, from_story])

    def withdraw(self, correction_id: int, *, who: str, note: str | None = None) -> Correction:
        """Withdraw (undo) a correction: the withdrawal is recorded (who, when, the note; the
        correction's row stays, marked withdrawn), the correction no longer constrains (its
        must-link or cannot-link is lifted), and the documents it moved are placed again as the
        engine places them without it, by its own settling (``Settling.settle_copies`` and
        ``settle_stories``) scoped to them: a split document's copy group and the group it left are
        replayed at the copy level, then every copy group of the stories involved at the story
        level, everything else held as context (a withdrawn split's document rejoins the group and
        story the cascade and the story score give it; a withdrawn merge's groups go back to the
        merged story first, and the stories stay apart unless the story score joins them). The
        result is what settling the store with the remaining corrections gives. A merge whose
        story was merged on later is refused until that later merge is withdrawn. The settlings'
        reports are in ``placed_again`` (copies, stories)."""
        store = self.store
        with self._transaction():
            self.engine.story_level.sync_corrections()  # other workers' corrections and withdrawals first
            c = get_correction(store, correction_id)
            if c is None:
                raise CorrectionTargetMissing(f"correction {correction_id} does not exist")
            if c.withdrawn is not None:
                raise CorrectionError(f"correction {c.id} ({c.describe()}) was already withdrawn by "
                                      f"{c.withdrawn.who} at {iso(c.withdrawn.at)}")
            constraints = self.engine.ctx.constraints
            later = constraints.merged_into.get(c.story_to) if c.kind == "merge" and c.story_to is not None else None
            if later is not None:
                # A later merge moved the merged groups on with its own reason: which of them came
                # from c.story_from is no longer known here, and the later merge's must-link would
                # hold them where they are (review of the 29th session: they stayed merged).
                raise CorrectionError(f"correction {c.id} ({c.describe()}) cannot be withdrawn while story "
                                      f"{c.story_to} is merged on into story {later[0]} (correction {later[1].id}): "
                                      f"withdraw that correction first")
            docs = {d: store.get_document(d) for d in dict.fromkeys((c.doc_a, c.doc_b))}
            live = [d for d, doc in docs.items() if doc is not None and not doc.deleted and doc.cluster_id is not None]
            if not live:
                raise CorrectionError(f"correction {c.id} ({c.describe()}) names documents {c.doc_a} and {c.doc_b}, "
                                      f"which were deleted: nothing is left to place again")
            now = _time.time()
            wid = store._insert("INSERT INTO correction_withdrawals (correction_id, who, at, note) VALUES (?, ?, ?, ?)",
                                (c.id, who, now, note))
            constraints.lift(c.id)
            constraints.last_withdrawal = max(constraints.last_withdrawal, wid)
            stories = {constraints.story_of(s)[0] for s in (c.story_from, c.story_to) if s is not None}
            if c.kind == "merge" and c.story_from is not None:
                self._unmerge(c, who, now)
                stories.add(c.story_from)
            stories |= {self._story_of(docs[d]) for d in live}
            copy_docs = [] if c.kind == "merge" else [m for d in live for m in self._group_docs(docs[d].cluster_id)]
            story_docs = {d for sid in stories for d in self._story_docs(sid)} | set(live)
            settling = self.engine.settling
            try:
                copies = settling.settle_copies(scope=set(copy_docs)) if copy_docs else None
                placed = settling.settle_stories(scope=story_docs)
            except ValueError as exc:  # settling on another model than the store's
                raise CorrectionError(f"correction {c.id} cannot be withdrawn here: {exc}") from exc
            self.placed_again = (copies, placed)
            return replace(c, withdrawn=Withdrawal(who, now, note))

    def _unmerge(self, c: Correction, who: str, now: float) -> None:
        """A withdrawn merge's copy groups back to the story they were merged from (those still
        where the merge put them, with its reason), before the stories are settled."""
        merged = merge_reason(c.who, c.story_from, c.story_to)
        back = f"editor {who} withdrew correction {c.id} ({c.describe()}): back in story {c.story_from}"
        for g in self.store.clusters_of_story(self.engine.ctx.constraints.story_of(c.story_to)[0]):
            if g.story_score is None and g.story_reason == merged:
                self.store.set_cluster_story(g.id, c.story_from, None, back, now)


class _EngineTransaction:
    """The store's write transaction with the engine caught up first (other writers' changes), the
    way ingest does it; the engine's cursor moves past our own changes when it commits. On an error
    the transaction rolls back and the engine's state is rebuilt from the store, as ingest does."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._ctx: Any = None

    def __enter__(self) -> None:
        self._ctx = self.engine.store.transaction()
        self._ctx.__enter__()
        try:
            self.engine.ctx.catch_up()
        except BaseException as exc:
            self._ctx.__exit__(type(exc), exc, exc.__traceback__)
            raise

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        suppressed = bool(self._ctx.__exit__(kind, exc, tb))
        if exc is not None and not isinstance(exc, CorrectionError):
            self.engine.warm_up()  # the rolled-back writes may be in memory
            attach(self.engine)
        elif exc is not None:
            attach(self.engine)  # a refused correction may have added nothing, but reload to be sure
        return suppressed


def merge_reason(who: str, from_story: int | None, into_story: int | None) -> str:
    """The reason a merge writes on the copy groups it moves, which ``StoryLevel.evidence_part``
    reads back and a withdrawal finds them by (:meth:`Editor._unmerge`): keep the three together."""
    return f"editor {who} merged story {from_story} into story {into_story}"


def split_reason(who: str, document_id: int, story: int) -> str:
    """The reason a split writes on the document and, when it leaves its copy group, on the new
    group's representative event (which :func:`copy_level_splits` reads back: keep the two together)."""
    return f"editor {who} split document {document_id} off story {story}"


# labelled pairs for calibration ------------------------------------------------------------------------
LEVELS = ("copy", "story")


def copy_level_splits(store: Any) -> set[tuple[int, str, float]]:
    """(document, reason, time) of every split that took a document out of a copy group with other
    members: the new group's representative event, written at the correction's own time. One
    scan of the events, however many corrections there are."""
    rows = store._all("SELECT new_representative, reason, at FROM cluster_events WHERE reason LIKE ?",
                      ("editor % split document % off story %",))
    return {(int(r[0]), str(r[1]), float(r[2])) for r in rows}


def correction_level(c: Correction, copy_splits: set[tuple[int, str, float]]) -> str:
    """What the correction's pair label is about, ``copy`` or ``story``.

    copy: a split (or "not the same") that took a document out of a copy group: label 0, the
    two are not the same report. story: a merge of two stories (label 1: the same event, which
    says nothing about copies), a split of a whole copy group off its story, or "not the same"
    across copy groups or stories (label 0: not the same event). Calibrating the copy level
    (eval pairs, sweep, calibrate) reads copy rows only.
    """
    if c.kind == "merge" or c.story_from is None:
        return "story"
    moved = c.doc_a if c.kind == "split" else c.doc_b  # _split: not_same moves its second document
    return "copy" if (moved, split_reason(c.who, moved, c.story_from), float(c.at)) in copy_splits else "story"

def _side(store: Any, doc_id: int) -> dict[str, Any] | None:
    doc = store.get_document(doc_id)
    if doc is None or doc.latest_version_id is None:
        return None
    ver = store.get_version(doc.latest_version_id)
    if ver is None:
        return None
    # The headline, as eval pairs carry one text per side (and the pages show titles): an editor
    # judged the stories by it.
    text = ver.title.strip() or ver.body.strip()[:500]
    return {"text": text, "lang": ver.lang or "und"} if text else None


def labelled_pairs(store: Any) -> Iterator[dict[str, Any]]:
    """The corrections as labelled pairs in the eval-data pair format (``eval.data.load_pairs``):
    ``{"id", "a": {"text", "lang"}, "b": {...}, "label", "kind", "level", "meta"}`` (``level``: see
    :func:`correction_level`); a pair whose document has no text left is skipped. The latest correction of a pair wins (an editor may change their mind); a withdrawn one is none."""
    latest: dict[frozenset[int], Correction] = {}
    for c in list_corrections(store):
        if c.withdrawn is None:  # a withdrawn correction is no judgement
            latest[frozenset((c.doc_a, c.doc_b))] = c
    copy_splits = copy_level_splits(store) if latest else set()
    for c in sorted(latest.values(), key=lambda x: x.id):
        a, b = _side(store, c.doc_a), _side(store, c.doc_b)
        if a is None or b is None:
            continue
        yield {"id": f"editor/{c.kind}/{c.id}", "a": a, "b": b, "label": c.label, "kind": f"editor_{c.kind}",
               "level": correction_level(c, copy_splits),
               "meta": {"correction": c.id, "who": c.who, "at": iso(c.at), "documents": [c.doc_a, c.doc_b],
                        "stories": [c.story_from, c.story_to], "note": c.note}}
