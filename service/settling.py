"""Settling: the open window re-decided in publication order, both levels, as if the feed had
arrived in time order (``Deduper.settle``, ``settle_copies``, ``settle_stories``).

The replays themselves are pure functions over a fresh candidate state or story tracker
(``service/settle.py``); this module reads the open window from the store, holds what must not
move (editors' corrections, groups outside the window), runs the replays, and stores the moves.
"""

from __future__ import annotations

import logging
import time as _time
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from tqdm import tqdm

from index.features import ItemFeatures
from service.context import EngineContext
from service.copy_level import CopyLevel, disputed_twins
from service.representative import best_of, better
from service.restart import StateRestart, anchor_of
from service.settle import (
    REPLAY_IDS,
    CopyItem,
    CopySettleReport,
    SettleItem,
    SettleReport,
    copy_order,
    hold,
    keep_ids,
    replay,
    replay_copies,
    settle_order,
)
from service.store.base import DocumentRow, MembershipRow
from service.stories import story_text
from service.story_level import StoryLevel

log = logging.getLogger("samestory.engine")


def check_hours(hours: float | None) -> None:
    if hours is not None and not (isinstance(hours, (int, float)) and not isinstance(hours, bool) and hours > 0):
        raise ValueError(f"hours must be a number > 0, got {hours!r}")


def _copy_item(doc: DocumentRow, ver: Any) -> CopyItem:
    """A stored document as the copy replay reads it (its features timed at its publication, else
    when it was first seen)."""
    assert doc.cluster_id is not None
    t = doc.published_at if doc.published_at is not None else doc.first_seen
    f = ItemFeatures.build(ver.title, ver.body, ver.lang, t, content_sha=ver.content_hash, source=doc.source,
                           url=doc.url)
    return CopyItem(doc.id, ver.id, doc.cluster_id, f, doc.url, doc.source, ver.body, ver.lang,
                    timed=doc.published_at is not None)


class Settling:
    """Settles the engine's open window; ``rebuild`` rebuilds the engine's memory from the store
    after a transaction rolled back (``Deduper.warm_up``)."""

    def __init__(self, ctx: EngineContext, copies: CopyLevel, story: StoryLevel,
                 rebuild: Callable[[], object]) -> None:
        self.ctx = ctx
        self.copies = copies
        self.story = story
        self.rebuild = rebuild

    def settle(self, *, hours: float | None = None, copies: bool = True, progress: bool = False) -> SettleReport:
        """Settle the open window in publication order, both levels: the copy groups
        (``settle_copies``; ``copies=False`` keeps them as they streamed), then the stories over
        them (``settle_stories``). The result is what a feed in time order would have given,
        whatever order the items came in. The report is the stories' with the copy level's part in
        ``copies``; ``seconds`` covers both.

        >>> from service.engine import Deduper
        >>> d = Deduper.open(":memory:", model=None)
        >>> for url, title, at in [("https://a.example/2", "Fed raises rates by 25 basis points", "09:40"),
        ...                        ("https://a.example/1", "Fed raises rates by 25 basis points", "09:00")]:
        ...     _ = d.ingest({"title": title, "url": url, "published_at": f"2026-03-11T{at}:00Z"})
        >>> r = d.settle()
        >>> (r.copies.items, r.copies.moved, r.copies.anchors, r.groups, r.moved)
        (2, 0, 1, 1, 0)
        >>> d.close()
        """
        check_hours(hours)
        counters = self.ctx.counters
        try:
            copy_report = self.settle_copies(hours=hours, progress=progress) if copies else None
            report = self.settle_stories(hours=hours, progress=progress)
        except BaseException as exc:
            counters["settle_failed"] += 1
            log.info("settling failed: %s", type(exc).__name__, extra={"samestory": {"hours": hours, "copies": copies}})
            raise
        report.copies = copy_report
        if copy_report is not None:
            report.seconds += copy_report.seconds
        copy_moves = copy_report.moved if copy_report is not None else 0
        counters["settle_runs"] += 1
        counters["settle_copy_moves"] += copy_moves
        counters["settle_story_moves"] += report.moved
        log.info("settled: %d copy moves, %d story moves", copy_moves, report.moved,
                 extra={"samestory": {"items": report.items, "copy_items": copy_report.items if copy_report else 0,
                                      "copy_moves": copy_moves, "story_moves": report.moved,
                                      "new_copy_groups": copy_report.new_groups if copy_report else 0,
                                      "new_stories": report.new_stories, "hours": hours, "copies": copies,
                                      "seconds": round(report.seconds, 3)}})
        return report

    def settle_copies(self, *, hours: float | None = None, progress: bool = False,
                      scope: Collection[int] | None = None) -> CopySettleReport:
        """Re-decide the open window's copy groups in publication order (``service/settle.py``).

        The live items of the open window (what a warm restart reads) whose copy groups lie wholly
        in the window are replayed through the engine's cascade and guards over a fresh candidate
        state, by publication time, then content hash, the items without a publication time after
        them by content hash (``copy_order``); the other groups are held there as they are, as
        context the replayed items may join. A replayed group keeps the stored id
        it shares most items with; a moved item's membership is rewritten with the replay's
        decision and the reason ``copy: settled in publication order, moved from copy group N``,
        and its previous membership kept in ``decision["previous"]``; a group's anchor becomes its
        earliest report (``service.restart.anchor_of``). A new group starts in the story of the
        group most of its items came from until the stories are settled (``settle``). Items the
        replay embeds have their vectors stored. Nothing is deleted; a group whose items all moved
        stays as a row without members. Editors' corrections are honoured: the copy groups holding a
        document a correction names are held as they are (``Constraints.pinned``; the report's
        ``corrected`` says how many corrections that was).

        ``hours``: replay only the copy groups whose items were all published (else first seen)
        within the last ``hours`` before the newest item. ``scope``: only the copy groups holding
        one of these documents (an editor's withdrawal, ``Editor.withdraw``); the others are held.
        """
        check_hours(hours)
        started = _time.perf_counter()
        self.ctx.catch_up()
        self.story.sync_corrections()
        store = self.ctx.store
        rows = [(doc, ver) for doc, ver in self.story.open_rows() if doc.cluster_id is not None]
        # Editors' corrections are constraints, not a reason to stop: the groups they name are held.
        corrected, honoured = self.ctx.constraints.pinned({doc.id: int(doc.cluster_id) for doc, _ in rows})  # type: ignore[arg-type]
        self.check_model([ver.id for _, ver in rows])
        # What each item counts at: its publication, else when it was first seen.
        when = {doc.id: doc.published_at if doc.published_at is not None else doc.first_seen for doc, _ in rows}
        members: dict[int, list[MembershipRow]] = {}
        for doc, _ in rows:
            if doc.cluster_id not in members:
                members[int(doc.cluster_id)] = store.members_of(int(doc.cluster_id))  # type: ignore[arg-type]
        cut = max(when.values()) - hours * 3600.0 if hours is not None and when else None

        in_scope = None if scope is None else {int(doc.cluster_id) for doc, _ in rows if doc.id in scope}  # type: ignore[arg-type]

        def replayable(group: int) -> bool:
            # A member outside the window is not read, so its group stays as it is (and, with
            # ``hours``, a group with a member older than the cut).
            return group not in corrected and (in_scope is None or group in in_scope) and all(
                (t := when.get(m.document_id)) is not None and (cut is None or t >= cut) for m in members[group])

        replayed = {g for g in members if replayable(g)}
        held_rows = [(doc, ver) for doc, ver in rows if doc.cluster_id not in replayed]
        items = copy_order(_copy_item(doc, ver) for doc, ver in rows if doc.cluster_id in replayed)
        report = CopySettleReport(items=len(items), held=len(held_rows), groups_before=len(replayed), corrected=honoured)
        if not items:
            report.seconds = _time.perf_counter() - started
            return report
        state = self.ctx.new_state()
        # The held groups, as a restart loads them (their anchors, their stored vectors).
        StateRestart(store, self.ctx.config, state, counters=Counter(), model_name=self.ctx.model_name, index_path=None,
                     snapshot_path=None).load_docs(held_rows)
        vectors = self.replay_vectors(items, progress)
        report.embedded = sum(fresh for _, fresh in vectors.values())
        confirm_of = (lambda it: self.copies.body_confirm(it.body, it.lang)) if self.ctx.config.copy.body_passages \
            else (lambda it: None)
        placed = replay_copies(self.ctx.cascade, state, tqdm(items, desc="settling copies", unit="item",
                                                         disable=not progress),
                               vector_of=lambda it: vectors[it.version_id][0] if it.version_id in vectors else None,
                               confirm_of=confirm_of, window_days=self.ctx.config.copy.window_days,
                               # A copy identical to both sides of an editor's split stays apart
                               # from both, as at ingest (CopyLevel.disputed_twins).
                               held_docs=lambda g: [m.document_id for m in store.members_of(g)],
                               adjust=(lambda f, p, docs_of, name: disputed_twins(
                                   f, p, state, self.ctx.constraints, docs_of, name))
                               if self.ctx.constraints.cannot else None)
        before = {it.doc_id: it.group for it in items}
        held = {int(doc.cluster_id) for doc, _ in held_rows}  # type: ignore[arg-type]
        ids = {g: g for g in held}
        # Each item counts 1; a replayed group's founder half again, so that of two stored groups
        # sharing as many items with it, the one its anchor comes from keeps its id (fewer moves).
        weight = {d: 1.5 if p.matched is None else 1.0 for d, p in placed.items()}
        ids.update(keep_ids(before, {d: p.group for d, p in placed.items() if p.group >= REPLAY_IDS}, weight, held))
        founded = {m.document_id: m.matched_id is None for g in replayed for m in members[g]}
        anchors = {g: anchor_of(members[g]) for g in replayed}
        report.groups_after = len({p.group for p in placed.values()})
        now = _time.time()
        touched: set[int] = set()
        try:
            with store.transaction():
                for it in items:
                    vec, fresh = vectors.get(it.version_id, (None, False))
                    if fresh and vec is not None and self.ctx.model_name:
                        store.save_vector(it.version_id, self.ctx.model_name, vec.tobytes())
                for new in sorted({p.group for p in placed.values()} - set(ids)):
                    docs = [it.doc_id for it in items if placed[it.doc_id].group == new]
                    source = max(Counter(before[d] for d in docs).items(), key=lambda kv: (kv[1], -kv[0]))[0]
                    ids[new] = store.create_cluster(docs[0], now)
                    src = store.get_cluster(source)
                    if src is not None and src.story_id is not None:
                        store.set_cluster_story(ids[new], src.story_id, None,
                                                f"copy group settled out of copy group {source}: its story until "
                                                f"the stories are settled", now)
                    report.new_groups += 1
                for it in items:
                    p = placed[it.doc_id]
                    target, founder = ids[p.group], p.matched is None
                    if target == it.group and founder == founded[it.doc_id]:
                        continue
                    old = next(m for m in members[it.group] if m.document_id == it.doc_id)
                    why = (f"copy: settled in publication order, moved from copy group {it.group}" if target != it.group
                           else "copy: settled in publication order, " + (
                               "founds its copy group (its earliest report)" if founder else
                               f"a copy of document {p.matched}, no longer the report its group was founded on"))
                    decision = p.decision.to_dict()
                    decision["reasons"].append(why)
                    decision["previous"] = {"cluster_id": old.cluster_id, "stage": old.stage, "score": old.score,
                                            "matched_id": old.matched_id, "decision": old.decision}
                    store.set_membership(it.doc_id, target, now, p.decision.stage, p.decision.score, p.matched,
                                         decision)
                    touched |= {target, it.group}
                    if target != it.group:
                        report.moved += 1
                        report.moves.append({"document_id": it.doc_id, "from_copy_group": it.group,
                                             "to_copy_group": target, "stage": p.decision.stage,
                                             "score": None if p.decision.score is None else round(p.decision.score, 4)})
                for g in sorted(touched):
                    live = store.members_of(g)
                    if g in anchors and anchor_of(live) != anchors[g]:
                        report.anchors += 1
                    self.representative(g, live, now)
                    for m in live:
                        store.record_change(m.document_id, now)
                if self.ctx.state.vectors is not None:
                    self.ctx.state.vectors.remove(sorted(touched))
                self.ctx.catch_up()  # the live state reads the settled groups back, as a restart would
        except BaseException:
            self.rebuild()
            raise
        report.seconds = _time.perf_counter() - started
        return report

    def replay_vectors(self, items: Sequence[CopyItem], progress: bool) -> dict[int, tuple[np.ndarray, bool]]:
        """Each replayed item's copy-level vector by version id, and whether it was embedded now:
        the stored one, else the text the model sees embedded in batches (streaming embeds only the
        items no cheap stage settled; the replay may need any of them, and the stories' settling
        then reads the same vectors for headlines)."""
        if self.ctx.embedder is None or not self.ctx.model_name:
            return {}
        stored = self.ctx.store.load_vectors([it.version_id for it in items], self.ctx.model_name)
        out = {v: (np.frombuffer(raw, dtype=np.float32), False) for v, raw in stored.items()}
        missing = [it for it in items if it.version_id not in out]
        if missing:
            vecs = self.ctx.encode_batches([self.ctx.embed_text(it.features) for it in missing], progress)
            out.update((it.version_id, (vec, True)) for it, vec in zip(missing, vecs, strict=True))
        return out

    def representative(self, group: int, live: Sequence[MembershipRow], now: float) -> None:
        """After settling moved members: the group's displayed representative by seed 000's rules
        over its members now (the current one kept on a tie)."""
        cands = [c for c in (self.ctx.rep_candidate(m.document_id) for m in live) if c is not None]
        cluster = self.ctx.store.get_cluster(group)
        if not cands or cluster is None:
            return
        best = best_of(cands, self.ctx.url_rules)
        current = next((c for c in cands if c.doc_id == cluster.representative_id), None)
        why = better(best, current, self.ctx.url_rules) if current is not None else "the representative left the group"
        if why is not None:
            self.ctx.store.set_representative(group, cluster.representative_id, best.doc_id,
                                          f"settled in publication order: {why}", now)

    def check_model(self, version_ids: list[int]) -> None:
        """Refuse to settle on another model than the store's items were embedded with: both
        levels were decided on that model's vectors (the story weights were fitted on USE's), and
        a replay on another model's, or on words alone, would re-decide them on evidence they were
        never decided on."""
        stored = {m.split("#", 1)[0] for m in self.ctx.store.vector_models(version_ids)}
        if stored and (self.ctx.model_name or "none") not in stored:
            raise ValueError(f"the store's items were embedded with {', '.join(sorted(stored))}: settle with "
                             f"that model, not {self.ctx.model_name or 'none'}")

    def settle_stories(self, *, hours: float | None = None, progress: bool = False,
                       scope: Collection[int] | None = None) -> SettleReport:
        """Re-decide the open stories in publication order (``service/settle.py``): the story
        level as if the feed had arrived in time order, whatever order it came in.

        Every live item of the open stories (what a warm restart reads) is replayed through a
        fresh story tracker by publication time, then content hash; each copy group is placed by
        its first item there, with revision as in streaming; items without a publication time
        (whose only order is their arrival) follow, copy group by copy group in the order of the
        groups' content hashes (``settle_order``). Items without a story vector (copies
        a cheap stage settled) are embedded now and their vectors stored, so that every member's
        evidence counts whichever member came first. Copy groups are not touched. A group whose
        story changes is moved as a revision is (its story, score and reason stored, ``story:
        settled ...``); a replayed story keeps the id of the stored story it shares most items
        with. Editors' corrections are honoured, not a reason to stop (a replay must never undo an
        editor's split or merge): the copy groups a correction names and every group of a story a
        correction split or merged are held where they are, as context the replayed groups may join
        (``Constraints.pinned``); ``corrected`` in the report counts the corrections honoured.

        ``hours``: replay only the copy groups whose items were all published within the last
        ``hours`` before the newest item; older groups are held where they are, as context the
        replayed ones may join (the settling's cost then follows the recent items, not the
        open stories' whole window). ``scope``: replay only the copy groups holding one of these
        documents (an editor's withdrawal, ``Editor.withdraw``); the others are held as context.

        >>> from service.engine import Deduper
        >>> d = Deduper.open(":memory:", model=None)
        >>> _ = d.ingest({"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1",
        ...               "published_at": "2026-03-11T09:00:00Z"})
        >>> _ = d.ingest({"title": "Volcano erupts in Iceland", "url": "https://b.example/2"})
        >>> r = d.settle_stories()
        >>> (r.items, r.untimed, r.groups, r.moved, r.skipped)
        (2, 1, 2, 0, None)
        >>> d.close()
        """
        check_hours(hours)
        started = _time.perf_counter()
        self.ctx.catch_up()  # other workers' items into the state first: their anchors time re-runs
        self.story.sync_corrections()
        rows = self.story.story_rows([(doc, ver) for doc, ver in self.story.open_rows() if doc.cluster_id is not None],
                                     every=True)
        # Without a publication time an item's only order is its arrival: such items are replayed
        # after the timed ones, copy group by copy group (service/settle.py, settle_order).
        untimed = sum(doc.published_at is None for doc, _ in rows)
        versions = {doc.id: ver for doc, ver in rows}
        self.check_model([v.id for v in versions.values()])
        before: dict[int, int] = {}
        for doc, _ in rows:
            g = int(doc.cluster_id)  # type: ignore[arg-type]
            if g not in before:
                c = self.ctx.store.get_cluster(g)
                if c is not None and c.story_id is not None:
                    before[g] = c.story_id
        items: list[SettleItem] = []
        for doc, ev in self.story.stored_evidence([(d, v) for d, v in rows if d.cluster_id in before]):
            items.append(SettleItem(doc.id, int(doc.cluster_id), ev,  # type: ignore[arg-type]
                                    versions[doc.id].content_hash, timed=doc.published_at is not None,
                                    published=doc.published_at if doc.published_at is not None else doc.first_seen))
        missing = [i for i, it in enumerate(items) if it.evidence.vector is None]
        embedded = 0
        if missing and self.ctx.embedder is not None:
            texts = [story_text(versions[items[i].doc_id].title, versions[items[i].doc_id].body) for i in missing]
            vecs = self.ctx.encode_batches(texts, progress)
            with self.ctx.store.transaction():
                for i, vec in zip(missing, vecs, strict=True):
                    if self.ctx.model_name:
                        self.ctx.store.save_vector(versions[items[i].doc_id].id, f"{self.ctx.model_name}#story",
                                               vec.tobytes())
                    items[i] = replace(items[i], evidence=replace(items[i].evidence, vector=vec))
            embedded = len(missing)
        held: set[int] = set()
        if hours is not None and items:
            cut = max(it.evidence.time for it in items) - hours * 3600.0
            held = {it.group for it in items if it.evidence.time < cut}
        # Editors' corrections: the groups they name, and every group of a story they split or
        # merged, are held where they are (must-link and cannot-link kept); the rest is replayed
        # and may join them.
        corrected, honoured = self.ctx.constraints.pinned({it.doc_id: it.group for it in items}, before)
        held |= corrected
        if scope is not None:
            held |= {it.group for it in items} - {it.group for it in items if it.doc_id in scope}
        tracker = self.story.new_tracker()
        tracker.allocate = None  # the replay's own ids; stored ids are chosen after (keep_ids)
        context = [it for it in items if it.group in held]
        hold(tracker, settle_order(context), before)
        placed = replay(tracker, settle_order([it for it in items if it.group not in held]))
        weight = Counter(it.group for it in items)
        taken = {before[g] for g in held}
        ids = {sid: sid for sid in taken}  # a replayed group that joined a held story goes there
        ids.update(keep_ids(before, {g: p.story for g, p in placed.items() if p.story not in taken}, weight, taken))
        now = _time.time()
        report = SettleReport(items=len(items) - len(context), untimed=untimed, held=len(context), groups=len(placed),
                              stories_before=len({before[g] for g in placed}),
                              stories_after=len({p.story for p in placed.values()}), embedded=embedded,
                              corrected=honoured)
        with self.ctx.store.transaction():
            for new in sorted({p.story for p in placed.values()} - set(ids)):
                ids[new] = self.ctx.store.create_story(now)
                report.new_stories += 1
            for g, p in sorted(placed.items()):
                target, source = ids[p.story], before[g]
                if target == source:
                    continue
                reason = f"story: settled in publication order, moved from story {source} (score {p.score:.3f})"
                self.ctx.store.set_cluster_story(g, target, round(p.score, 6), reason, now)
                self.ctx.store.touch_story(target, now)
                self.ctx.store.touch_story(source, now)
                report.moved += 1
                report.moves.append({"copy_group_id": g, "from_story": source, "to_story": target,
                                     "score": round(p.score, 4)})
        self.story.warm()  # the live tracker reads the settled stories back, as a restart would
        report.seconds = _time.perf_counter() - started
        return report

