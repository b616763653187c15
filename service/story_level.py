"""The story level of the engine: which story each copy group is in, and the open stories'
evidence (``service.stories.StoryTracker``), kept in step with the store.

A new copy group is placed in the best open story or opens one (``place``); a copy brings its
evidence to its group's story (``join``); the tracker's revisions are stored as moves
(``apply``, the rows written by ``service.recorder.Recorder``); editors' corrections are honoured (must-link, cannot-link, ``sync_corrections``,
``restory``); a warm restart reads the open stories back from the store (``warm``).
"""

from __future__ import annotations

import re
import time as _time
from collections.abc import Iterable
from typing import Any

import numpy as np

from index.features import ItemFeatures
from service.config import DAY
from service.context import EngineContext
from service.placement import StoryPlacement, enter_story, follow_story, place_story
from service.recorder import Recorder
from service.store.base import ClusterRow, DocumentRow
from service.stories import StoryEvidence, StoryTracker, story_text
from service.types import Article

# The story reason service.corrections.Editor.merge gives each copy group it moves (merge_reason).
_MERGED_RE = re.compile(r"merged story (\d+) into story \d+$")


class StoryLevel:
    """The open stories' evidence (``stories``) and each copy group's story (``group_story``)."""

    def __init__(self, ctx: EngineContext, recorder: Recorder) -> None:
        self.ctx = ctx
        self.recorder = recorder  # the store writes of what is placed (service.recorder)
        self.stories = self.new_tracker()
        self.group_story: dict[int, int] = {}
        # The versions whose evidence ``warm`` and ``take_in`` read from the store, with their story
        # time: a replay may bring an item the stories already hold but the candidate state does
        # not (written between the two reads of a warm-up, or older than the state's window and
        # within the stories'), and its evidence must not count twice. Pruned with the stories.
        self.read_versions: dict[int, float] = {}

    def new_tracker(self) -> StoryTracker:
        veto = None
        if self.ctx.config.story.slot_veto and self.ctx.guards is not None:
            from service.guards.storyveto import SlotVeto

            veto = SlotVeto.from_guards(self.ctx.guards)
        tracker = StoryTracker(threshold=self.ctx.config.story.threshold, window_days=self.ctx.config.story.window_days,
                               veto=veto, revise=self.ctx.config.story.revise)
        tracker.allocate = lambda: self.recorder.new_story(_time.time())
        return tracker

    def evidence(self, article: Article, f: ItemFeatures, vector: np.ndarray | None, version_id: int,
                 *, embed: bool = True, cluster_id: int | None = None) -> StoryEvidence:
        """The item's story evidence. Its vector is the copy level's when both read the same text
        (headlines); an article with a body is embedded again on more of its body (``story_text``),
        and that vector is stored for warm restarts. Copies bring their vectors too: a story's
        evidence is every member's, as the story score was calibrated (a translation that joined
        its original's group is the story's cross-language evidence)."""
        text = story_text(article.title, article.body)
        story_vec = None
        if self.ctx.embedder is not None:
            # A copy a cheap stage settled has no copy-level vector and brings its words and names
            # only (embedding such copies too gained story ARI in file order only, for a third more
            # encoder work: research/notes/stories.md "Copies' story vectors").
            if text == self.ctx.embed_text(f):
                story_vec = vector
            elif embed:
                story_vec = self.ctx.encode([text])[0]
                self.recorder.vector(version_id, story_vec, kind="#story")
        time = f.time if cluster_id is None else self.story_time(cluster_id, f.time)
        return StoryEvidence.build(article.title, article.body, article.lang or "und", time, story_vec,
                                   timed=article.published_at is not None)

    def join(self, cluster_id: int, cluster: ClusterRow | None, article: Article, f: ItemFeatures,
             vector: np.ndarray | None, version_id: int) -> StoryPlacement:
        """The story placement of a copy that joined copy group ``cluster_id`` (``cluster``, its stored
        row): it follows its group (or, for a group from before stories existed, its group is
        placed now). Decides; ``apply`` applies it."""
        # A copy joins its group's story; its evidence (words, names, its vector) joins too. The
        # store says which story (an editor on another worker may have moved the group since).
        story_id = cluster.story_id if cluster is not None else None
        if story_id is None:
            story_id = self.group_story.get(cluster_id)
        elif self.group_story.get(cluster_id, story_id) != story_id:
            self.sync_corrections()
        ev = self.evidence(article, f, vector, version_id, cluster_id=cluster_id)
        if story_id is None:  # a group from before stories existed: give it one now
            return self.place(cluster_id, ev)
        # A group's second whole article may show that the group's story was wrong
        # (StoryTracker.recheck); the move is stored like a revision's.
        return follow_story(cluster_id, ev, story_id,
                            part=self.evidence_part(cluster) or story_id if cluster is not None else story_id,
                            recheck=self.revising)

    def story_time(self, cluster_id: int | None, time: float) -> float:
        """The time a copy group's member counts at in its story: its own, except for a re-run, a
        member published more than ``copy_gap_hours`` from the group's anchor (only the same words
        may join that far: ``Cascade.too_far``), which counts at the anchor's time. A re-run
        repeats the anchor's report; on its own time it would stretch its story's span to another
        day, and that day's coverage of another event would join the story with no gap to pay
        (UCI dev: a "Titanfall" headline re-run 27 h later bridged two gold stories; docs/stories.md
        "Re-runs"). 0 (``copy_gap_hours`` off) or no time: the member's own time."""
        gap = self.ctx.config.copy.copy_gap_hours * 3600.0
        anchor = self.ctx.state.reps.get(cluster_id) if cluster_id is not None else None
        if not gap or not time or anchor is None or anchor not in self.ctx.state.entries:
            return time
        anchor_time = self.ctx.state.entries.time_of(anchor)
        return anchor_time if anchor_time and abs(time - anchor_time) > gap else time

    def place(self, cluster_id: int, ev: StoryEvidence, *, apart: str | None = None) -> StoryPlacement:
        """The story decision for a new copy group (``service.placement.place_story``): join the best
        open story or open one. A story an editor merged into another is never joined: the group
        goes where it was merged (must-link), with the reason. ``apart``
        (``CopyLevel.disputed_twins``): a new story, for that reason. Decides and writes nothing
        (the editors' corrections other workers made are read first); ``apply`` applies it."""
        self.sync_corrections()
        return place_story(self.stories, cluster_id, ev, apart=apart, redirect=self.ctx.constraints.story_of)

    def apply(self, placement: StoryPlacement, now: float) -> int:
        """Apply a story placement to the open stories (``service.placement.enter_story``) and record
        it (``Recorder.story``): a new story's row, the group's story with the decision's score and
        reason (or the story touched, for a copy following its group), and the moves the
        revisions made. Returns the group's story."""
        group = int(placement.group)  # type: ignore[call-overload]
        if placement.first:
            self.stories.revise = self.revising
        story, moves = enter_story(self.stories, placement, allocate=lambda: self.recorder.new_story(now))
        self.group_story[group] = story
        for mv in moves:
            self.group_story[int(mv.unit)] = mv.target  # type: ignore[call-overload]
        self.recorder.story(placement, story, moves, now)
        return self.group_story[group]

    @property
    def revising(self) -> bool:
        """Story membership is revised (``EngineConfig.story.revise``) unless the store holds
        editors' corrections: a revision must never undo an editor's split or merge."""
        return self.ctx.config.story.revise and not self.ctx.constraints

    def sync_corrections(self) -> None:
        """Read the corrections other workers made or withdrew since ours were loaded (one query on
        the two tables' primary keys) and rebuild the stories they touched, so their evidence is the store's."""
        fresh = self.ctx.constraints.refresh()
        touched = [s for c in fresh for s in (c.story_from, c.story_to) if s is not None]
        if touched:
            self.restory(touched)

    def stored_evidence(self, rows: list[tuple[DocumentRow, Any]]) -> list[tuple[DocumentRow, StoryEvidence]]:
        """Story evidence of stored items, oldest document first, from their stored vectors (the
        story vector, else the copy level's when both read the same text); no encoder call."""
        rows = sorted(rows, key=lambda r: r[0].id)
        vectors: dict[int, bytes] = {}
        story_vectors: dict[int, bytes] = {}
        if rows and self.ctx.model_name and self.ctx.embedder is not None:
            ids = [v.id for _, v in rows]
            vectors = self.ctx.store.load_vectors(ids, self.ctx.model_name)
            story_vectors = self.ctx.store.load_vectors(ids, f"{self.ctx.model_name}#story")
        out = []
        for doc, ver in rows:
            t = doc.published_at if doc.published_at is not None else doc.first_seen
            raw = story_vectors.get(ver.id)
            if raw is None and story_text(ver.title, ver.body) == self.ctx.cascade.embed_text(
                    ItemFeatures.build(ver.title, ver.body, ver.lang, t, content_sha=ver.content_hash)):
                raw = vectors.get(ver.id)
            vec = np.frombuffer(raw, dtype=np.float32) if raw is not None else None
            out.append((doc, StoryEvidence.build(ver.title, ver.body, ver.lang, self.story_time(doc.cluster_id, t),
                                                 vec, timed=doc.published_at is not None)))
        return out

    @staticmethod
    def evidence_part(cluster: ClusterRow) -> int | None:
        """Whose evidence a copy group's items are in the story tracker: its story's, except for a
        group an editor's merge brought in, which keeps the merged story's (an item that would
        have joined that story is then redirected, must-link, instead of the union of the two
        stories' evidence scoring lower than either)."""
        m = _MERGED_RE.search(cluster.story_reason or "") if cluster.story_score is None else None
        return int(m.group(1)) if m else cluster.story_id

    def restory(self, story_ids: Iterable[int]) -> None:
        """Rebuild these stories' evidence from the store (their copy groups and live members as
        they are now): after an editor moved groups or members between stories."""
        wanted = list(dict.fromkeys(story_ids))
        parts: dict[int, list[tuple[DocumentRow, Any]]] = {}
        for sid in wanted:
            for c in self.ctx.store.clusters_of_story(sid):
                self.group_story[c.id] = sid
                rows = parts.setdefault(self.evidence_part(c) or sid, [])
                for m in self.ctx.store.members_of(c.id):
                    doc = self.ctx.store.get_document(m.document_id)
                    if doc is None or doc.deleted or doc.latest_version_id is None:
                        continue
                    ver = self.ctx.store.get_version(doc.latest_version_id)
                    if ver is not None:
                        rows.append((doc, ver))
        for part in dict.fromkeys([*wanted, *parts]):
            self.stories.rebuild(part, [ev for _, ev in self.stored_evidence(self.story_rows(parts.get(part, [])))])

    def forget(self, doc: DocumentRow, *, counted: bool = True) -> None:
        """Take a deleted document's evidence out of its open story, as a restart (which reads live
        documents only) would not have it: before, its words and vector kept drawing items into its
        story until the next restart or settling (the thirteenth tour). Call it before the document
        leaves the candidate state (its story time reads its group's anchor there). ``counted``:
        the tracker is known to hold it (this worker's deletion); another worker's may not have
        reached it, so a story without a log is then rebuilt without touching the word statistics."""
        group = doc.cluster_id
        if group is None:
            return
        first = self.story_rows([(doc, self.ctx.store.get_version(doc.latest_version_id))]
                                if doc.latest_version_id is not None else [])
        if not first or first[0][1] is None:
            return
        unit = self.stories.units.get(group)
        cluster = self.ctx.store.get_cluster(group)
        part = unit.story if unit is not None else (
            (self.evidence_part(cluster) or cluster.story_id) if cluster is not None else None)
        if part is None:
            return
        self.read_versions.pop(first[0][1].id, None)
        if doc.erased_at is not None:
            # Another worker's erasure: the texts are blank and the content hash no digest, so the
            # evidence cannot be read back (ItemFeatures.build raised on 'erased:N'); the story is
            # rebuilt from its live members, which drops the document's words and vector.
            self.restory([part])
        elif self.stories.remove(part, group, (ev := self.stored_evidence(first)[0][1])) is None:
            self.restory([part])  # the store's live members: the deleted one is not among them
            if counted:
                self.stories.uncount(ev)
        if not self.ctx.store.members_of(group):  # its last live member: a restart has no such group
            self.group_story.pop(group, None)

    def take_in(self, rows: list[tuple[DocumentRow, Any]]) -> int:
        """Other workers' new items (a change-feed replay, ``StateRestart.on_new_documents``) into
        the open stories, as ``warm`` reads them: each into its copy group's stored story, with its
        stored vectors. Without it a collector placed its new copy groups only against the stories
        it had founded or read at its start, so one event's items sent to two collectors on one
        store made two stories (the seventh tour). Items older than a warm restart reads are left
        out, as there. Returns how many were added."""
        horizon = _time.time() - max(self.ctx.config.operations.warmup_days, self.ctx.config.story.window_days) * DAY
        recent = [(doc, ver) for doc, ver in self.story_rows(rows) if doc.cluster_id is not None and ver.id not in self.read_versions
                  and (not self.ctx.config.story.window_days or max(doc.first_seen, doc.published_at or 0.0) >= horizon)]
        return self._add_stored(recent)

    def _add_stored(self, rows: list[tuple[DocumentRow, Any]]) -> int:
        """Stored items into their copy groups' stored stories (``warm``, ``take_in``), each copy
        group's row read once; items of a group without a story are left out. Returns how many."""
        parts_of: dict[int, tuple[int, int] | None] = {}  # group -> (evidence part, story)
        versions = {doc.id: ver.id for doc, ver in rows}
        added = 0
        for doc, ev in self.stored_evidence(rows):
            group = doc.cluster_id
            if group is None:
                continue
            if group not in parts_of:
                c = self.ctx.store.get_cluster(group)
                parts_of[group] = (self.evidence_part(c) or c.story_id, c.story_id) if (
                    c is not None and c.story_id is not None) else None
            where = parts_of[group]
            if where is None:  # its writer places it in its transaction: never seen by take_in
                continue
            self.stories.add(where[0], ev, unit=group, settle=False)
            self.group_story[group] = where[1]
            self.read_versions[versions[doc.id]] = ev.time
            added += 1
        return added

    def open_rows(self) -> list[tuple[DocumentRow, Any]]:
        """The live items a warm restart reads into the open stories (and settling replays):
        those first seen or published within the last ``max(warmup_days, story_window_days)``."""
        return list(self.ctx.store.live_documents(0.0 if not self.ctx.config.story.window_days else
                                              _time.time() - max(self.ctx.config.operations.warmup_days,
                                                                 self.ctx.config.story.window_days) * DAY))

    def story_rows(self, rows: list[tuple[DocumentRow, Any]], *, every: bool = False) -> list[tuple[DocumentRow, Any]]:
        """``rows`` with each document's first version in place of its latest: the text its story
        evidence was built from when it arrived. A new version (a correction at the same URL) keeps
        its copy group and story and brings no evidence of its own (``CopyLevel.known_document``),
        so a restart, a settling and another worker read what the stream read; the latest version's
        words and (absent, unless it represents its group) vector made a restarted engine place
        later items otherwise (the thirteenth tour). ``every``: look the versions up in one pass
        over the store (a warm restart) instead of by id."""
        if not rows:
            return rows
        first = self.ctx.store.first_versions(None if every else [doc.id for doc, _ in rows])
        return [(doc, first.get(doc.id, ver)) for doc, ver in rows]

    def warm(self) -> int:
        """Rebuild the open stories from the store: every live item of the last ``story_window_days``
        (before the newest item's time), oldest first, with its stored vectors."""
        self.stories = self.new_tracker()
        self.group_story = {}
        self.read_versions = {}
        rows = self.story_rows(self.open_rows(), every=True)
        if not rows:
            return 0
        added = self._add_stored(rows)
        self.stories.next_id = 1 + max(self.stories.stories, default=0)
        return added

    def expire(self, max_time: float) -> int:
        """Close for good the stories whose latest member is older than what a warm restart reads
        (``warmup_days``), and at least two story windows, behind the newest item (``max_time``): no
        item in time can join them, and the story table, its centroid rows and ``group_story`` then
        hold the open stories, not every story ever made (issue 37). A copy arriving later than that joins
        its group's story id with its own evidence only, as after a restart. Off without a story
        window (``story_window_days`` 0: every story stays open)."""
        days = self.ctx.config.story.window_days
        horizon = max_time - max(self.ctx.config.operations.warmup_days, 2 * days) * DAY
        if not days or horizon <= 0:
            return 0
        closed = {sid for sid, s in self.stories.stories.items() if s.last_time < horizon}
        if not closed:
            return 0
        self.stories.expire(horizon)
        self.group_story = {g: sid for g, sid in self.group_story.items() if sid not in closed}
        self.read_versions = {v: t for v, t in self.read_versions.items() if t >= horizon}
        self.ctx.counters["expired_stories"] += len(closed)
        return len(closed)

