"""Persisting and restoring the engine's candidate state: checkpoints, warm-up and replay.

The engine decides from an in-memory candidate state (``service.state``) built from the store.
This module is the part of :class:`~service.engine.Deduper` that keeps that state across
restarts, and in step with other writers:

* ``checkpoint`` writes the vector index file and the state snapshot beside a SQLite store, as
  a pair stamped with a store change cursor (in the background while ingesting);
* ``warm_up`` loads the last pair and replays the change feed since its cursor, or rebuilds the
  state from the store rows, newest first, within ``warmup_timeout_s``;
* ``catch_up`` replays the change feed since the engine's cursor: another writer's changes
  before a decision, or the tail a warm-up cut short.

``StateRestart`` is a collaborator the engine holds (``Deduper.restart``): it owns the candidate
state object (a warm-up or a snapshot load replaces it; ``EngineContext.state`` reads it from
here), the change cursor the state reflects (``cursor``), the last warm-up's report
(``warmup_report``) and the checkpoints' timings (``checkpoint_seconds``,
``checkpoint_write_seconds``, ``wait_for_checkpoint``). The engine's ``checkpoint`` and
``warm_up`` delegate to it; the rest is read here (``engine.restart.cursor``).
"""

from __future__ import annotations

import logging
import threading
import time as _time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from index.features import ItemFeatures
from index.files import PendingFile, write_together
from service.config import DAY, EngineConfig
from service.state import CandidateState, Entry
from service.store import Store
from service.store.base import DocumentRow, MembershipRow, VersionRow

log = logging.getLogger("samestory.engine")

__all__ = ["DAY", "StateRestart", "anchor_of", "release_free_memory"]


def anchor_of(members: Sequence[MembershipRow]) -> int | None:
    """A copy group's anchor among its live ``members`` (``Store.members_of``, by document id):
    the member it was founded on, whose membership matched no document; else (the founder was
    deleted or split off) the earliest remaining member. In a streamed group the founder is the
    first arrival, the smallest id, as before; a settled group's founder is its earliest report,
    which may have arrived later (``Deduper.settle_copies``).

    >>> row = lambda doc, matched: MembershipRow(doc, 1, 0.0, "exact", 1.0, matched, {})
    >>> anchor_of([row(3, 7), row(7, None), row(9, 7)]), anchor_of([row(3, 5), row(9, 5)]), anchor_of([])
    (7, 3, None)
    """
    founders = [m.document_id for m in members if m.matched_id is None]
    if founders:
        return min(founders)
    return members[0].document_id if members else None


class StateRestart:
    """Checkpoints, warm-up and change-feed replay of an engine's candidate state.

    ``counters`` is the engine's own (``checkpoints`` and ``catch_up_documents`` are counted
    here); ``index_path`` and ``snapshot_path`` are the files beside a SQLite store (None for
    in-memory and server stores: nothing is persisted).
    """

    def __init__(self, store: Store, config: EngineConfig, state: CandidateState, *, counters: Counter[str],
                 model_name: str | None, index_path: Path | None, snapshot_path: Path | None) -> None:
        self.store = store
        self.config = config
        self.state = state
        self.counters = counters
        self.model_name = model_name
        self.index_path = index_path
        self.snapshot_path = snapshot_path
        self.cursor = 0  # the last store change the state reflects
        self.checkpoint_cursor = 0  # the change cursor of the last snapshot written or loaded
        self.checkpoint_seconds: list[float] = []  # how long each checkpoint held up its caller
        self.checkpoint_write_seconds: list[float] = []  # how long each took to write (background)
        self.warmup_report: dict[str, Any] = {}
        # False after a warm-up that timed out or failed: the state then lacks part of the store,
        # and must not be saved as if it were whole (the next start would trust it).
        self.complete = True
        self._writer: threading.Thread | None = None
        self._vectors_loaded = False  # True only while warm-up uses a persisted vector index
        self._warned_models: set[str] = set()  # other models _warn_other_model has named already
        # Told the documents a replay brought in that the state did not hold (other workers' new
        # items): the engine's story level adds them to its open stories (StoryLevel.take_in).
        self.on_new_documents: Callable[[list[tuple[DocumentRow, VersionRow]]], object] | None = None
        # Told each document another worker deleted, before the state forgets it (StoryLevel.forget).
        self.on_deleted_document: Callable[[DocumentRow], object] | None = None

    def advance(self, cursor: int) -> None:
        """The state now reflects the store up to change ``cursor`` (the engine's own writes)."""
        self.cursor = max(self.cursor, cursor)

    def checkpoint_if_due(self) -> None:
        """A background checkpoint once ``snapshot_every`` changes have passed since the last one."""
        every = self.config.operations.snapshot_every
        if every and self.snapshot_path is not None and self.cursor - self.checkpoint_cursor >= every:
            self.checkpoint(wait=False)

    # checkpoints ------------------------------------------------------------------------------------
    def checkpoint(self, *, wait: bool = True) -> bool:
        """Write the vector index file and the state snapshot beside a SQLite store, as a pair
        stamped with the current change cursor; False when there was nothing to write.

        ``ingest_many`` calls it every ``snapshot_every`` store changes with ``wait=False``: the
        state is copied out now (the pause the ingest call sees, ``checkpoint_seconds``) and the
        files are written by a background thread (``checkpoint_write_seconds``), so a restart after
        a crash replays only the changes since (see ``warm_up``): a stale pair costs time, never a
        wrong decision. Files that cannot be written (a full disk) are logged and skipped: they
        are an accelerator, and the store already holds every committed item.
        """
        self.wait_for_checkpoint()
        self.checkpoint_cursor = self.cursor
        if not self.complete or self.store.max_change() != self.cursor:
            return False  # a partial state, or another writer's changes not yet applied
        t0 = _time.perf_counter()
        files = self._checkpoint_files()
        if not files:
            return False
        self.checkpoint_seconds.append(round(_time.perf_counter() - t0, 3))
        if wait:
            return self._write_checkpoint(files, self.cursor)
        self._writer = threading.Thread(target=self._write_checkpoint_logged, args=(files, self.cursor),
                                        name="samestory-checkpoint")
        self._writer.start()
        return True

    def wait_for_checkpoint(self) -> None:
        """Block until a checkpoint being written in the background is on disk."""
        if self._writer is not None:
            self._writer.join()
            self._writer = None

    def _checkpoint_files(self) -> list[PendingFile]:
        files = []
        vectors = self.state.vectors
        if self.index_path is not None and vectors is not None and self.model_name:
            files.append(vectors.pending_file(self.index_path, meta={"model": self.model_name, "dim": vectors.dim,
                                                                     "cursor": self.cursor}))
        if self.snapshot_path is not None and self.config.operations.state_snapshot:
            from service.snapshot import snapshot_file

            files.append(snapshot_file(self.state, self.snapshot_path, cursor=self.cursor))
        return files

    def _write_checkpoint_logged(self, files: list[PendingFile], cursor: int) -> None:
        try:
            self._write_checkpoint(files, cursor)
        except Exception:  # no caller to raise to in the background: the files are only an accelerator
            log.exception("checkpoint at change %d failed; the next start replays or rebuilds from the store", cursor)

    def _write_checkpoint(self, files: list[PendingFile], cursor: int) -> bool:
        t0 = _time.perf_counter()
        try:
            write_together(files)
        except OSError as exc:  # an accelerator: a full or read-only disk must not fail ingest or close
            log.warning("checkpoint not written (%s); the next start replays or rebuilds from the store", exc)
            return False
        seconds = _time.perf_counter() - t0
        self.checkpoint_write_seconds.append(round(seconds, 3))
        self.counters["checkpoints"] += 1
        log.info("checkpoint at change %d written in %.2f s", cursor, seconds)
        return True

    # warm restart ---------------------------------------------------------------------------------
    def warm_up(self) -> dict[str, Any]:
        """Build the candidate state from recent store history (seed 001's warm-up).

        The fast path loads the last snapshot (``service.snapshot``: written at a clean close and
        at every checkpoint) and replays the store's change feed from its cursor, so after a
        crash only the changes since the last checkpoint are read again. Otherwise the state is
        rebuilt from the store rows. Bounded twice: only ``warmup_days`` of history, and at
        most ``warmup_timeout_s`` seconds, after which the engine starts with what it has (dedup
        must never keep the service down). A rebuild cut short keeps the newest documents; a
        replay cut short leaves the rest of the change feed to the first write, which replays
        it before deciding anything (as it does for other writers' changes).
        """
        self.wait_for_checkpoint()  # the files on disk are then the last pair, whole
        started = _time.monotonic()
        cfg = self.config
        since = _time.time() - cfg.operations.warmup_days * DAY
        loaded = 0
        timed_out = False
        dim = self.state.vectors.dim if self.state.vectors is not None else None
        self.state = CandidateState(self.config, dim)
        self._vectors_loaded = False
        try:
            self.cursor = self.store.max_change()
            base = self._snapshot_base()
            self._vectors_loaded = self._load_index_file(base)
            if self._load_snapshot(base):
                self.checkpoint_cursor = self.cursor = base
                replayed, timed_out = self._replay(started)
                dropped = self.state.retain(self.store.live_document_ids(since))
                if dropped:
                    log.info("state snapshot: %d documents outside warmup_days dropped", dropped)
                if replayed or dropped:  # the rows they left behind, at a start rather than mid-stream
                    self.state.entries.compact()
                return self._warmup_done(started, len(self.state.entries), timed_out, "snapshot",
                                         replayed=replayed)
            if base != self.cursor:  # no snapshot after all: the older index file does not fit a rebuild
                self.state = CandidateState(self.config, dim)
                self._vectors_loaded = False
            # Read newest first, so a timeout keeps the most recent history; each chunk is built
            # oldest first and the buckets are put back in time order at the end.
            pending: list[tuple[DocumentRow, VersionRow]] = []
            for doc, ver in self.store.live_documents(since):
                if _time.monotonic() - started > cfg.operations.warmup_timeout_s:
                    timed_out = True
                    break
                pending.append((doc, ver))
                if len(pending) >= 2_000:
                    loaded += self.load_docs(pending[::-1])
                    pending = []
            loaded += self.load_docs(pending[::-1])
            self.state.ngram.sort_buckets()
        except Exception:  # seed 001: a failed warm-up starts empty rather than not at all
            log.exception("warm-up failed; starting with an empty candidate state")
            self.cursor = self.store.max_change()
            return self._warmup_done(started, loaded, timed_out, "store", failed=True)
        return self._warmup_done(started, loaded, timed_out, "store")

    def _snapshot_base(self) -> int:
        """The change cursor to start from: the snapshot's, when one is usable and replaying the
        changes since is shorter than rebuilding (fewer changes than the snapshot holds
        documents); else the store's latest, which the rebuild reflects."""
        if self.snapshot_path is None or not self.config.operations.state_snapshot:
            return self.cursor
        from service.snapshot import snapshot_stamp

        stamp = snapshot_stamp(self.snapshot_path, self.config)
        if stamp is None:
            return self.cursor
        snap_cursor, documents = stamp
        if snap_cursor > self.cursor:  # taken of another store, or one restored from an older backup
            log.info("state snapshot is ahead of the store (cursor %s, store %s); rebuilding", snap_cursor, self.cursor)
            return self.cursor
        if self.cursor - snap_cursor > max(documents, 1_000):
            log.info("state snapshot is %d changes behind the store; rebuilding", self.cursor - snap_cursor)
            return self.cursor
        return snap_cursor

    def _replay(self, started: float) -> tuple[int, bool]:
        """Apply the store's changes since ``self.cursor``, in bounded slices, within the warm-up's
        time bound; returns (documents replayed, whether the bound stopped it)."""
        replayed = 0
        while self.cursor < self.store.max_change():
            if _time.monotonic() - started > self.config.operations.warmup_timeout_s:
                return replayed, True
            replayed += self.catch_up(limit=5_000)
        return replayed, False

    def _warmup_done(self, started: float, loaded: int, timed_out: bool, source: str,
                     failed: bool = False, replayed: int = 0) -> dict[str, Any]:
        # A replay cut short is still whole once the first write has caught up (saves check
        # the cursor); a rebuild cut short never is.
        self.complete = not (failed or (timed_out and source == "store"))
        if source == "store":  # no checkpoint on disk matches this state: the first due write makes one
            self.checkpoint_cursor = 0
        self.warmup_report = {"documents": loaded, "seconds": round(_time.monotonic() - started, 3),
                              # copy_groups: those loaded into the candidate state, as documents
                              "timed_out": timed_out, "copy_groups": len(self.state.reps), "state": source,
                              "vector_index": "file" if self._vectors_loaded else "store",
                              "replayed": replayed,
                              "replay_pending": max(0, self.store.max_change() - self.cursor)}
        self._vectors_loaded = False
        release_free_memory()
        log.info("warm-up", extra={"samestory": self.warmup_report})
        return self.warmup_report

    def _load_snapshot(self, cursor: int) -> bool:
        """Use the state snapshot taken at change ``cursor`` (see ``service.snapshot``).

        Only with no vectors to add, or with the vector index file of the same cursor already
        loaded: the snapshot holds the cheap indices, and vectors read back from the store one
        document at a time would cost what the snapshot saves.
        """
        if (self.snapshot_path is None or not self.config.operations.state_snapshot
                or (self.state.vectors is not None and not self._vectors_loaded)):
            return False
        from service.snapshot import load_snapshot

        try:
            state = load_snapshot(self.snapshot_path, self.config, cursor=cursor)
        except Exception:  # an accelerator only: anything wrong with it means "rebuild"
            log.exception("state snapshot failed to load; rebuilding from the store")
            return False
        if state is None:
            return False
        state.vectors = self.state.vectors
        self.state = state
        return True

    def _load_index_file(self, cursor: int) -> bool:
        """Use the persisted FAISS index when it matches this model and was saved at change ``cursor``."""
        if self.index_path is None or self.state.vectors is None or not self.index_path.exists():
            return False
        from index.vectors import VectorIndex

        try:
            index, meta = VectorIndex.load(self.index_path, expect={"model": self.model_name,
                                                                     "dim": self.state.vectors.dim})
        except (FileNotFoundError, ValueError) as exc:
            log.info("vector index file not usable (%s); rebuilding from the store", exc)
            return False
        if int(meta.get("cursor", -1)) != cursor:
            log.info("vector index file is stale (cursor %s, wanted %s); rebuilding", meta.get("cursor"), cursor)
            return False
        self.state.vectors = index
        return True

    def load_docs(self, rows: list[tuple[DocumentRow, VersionRow]]) -> int:
        """Put stored documents into the state: each cluster's anchor (``anchor_of``) indexed, its
        vector the anchor's stored one, else the first stored one read; returns how many rows."""
        if not rows:
            return 0
        # A cluster is compared through its anchor, the member it was founded on (anchor_of).
        reps: dict[int, int] = {}
        for doc, _ in rows:
            if doc.cluster_id is not None and doc.cluster_id not in reps:
                anchor = anchor_of(self.store.members_of(doc.cluster_id))
                if anchor is not None:
                    reps[doc.cluster_id] = anchor
        vectors = {}
        if self.state.vectors is not None and self.model_name and not self._vectors_loaded:
            vectors = self.store.load_vectors([v.id for _, v in rows], self.model_name)
            if not vectors:
                self._warn_other_model([v.id for _, v in rows])
        loaded = [(doc, ver) for doc, ver in rows if doc.cluster_id is not None]
        entries = [self.entry_of(doc, ver) for doc, ver in loaded]
        is_rep = [doc.cluster_id is not None and reps.get(doc.cluster_id) == doc.id for doc, _ in loaded]
        self.state.add_loaded(entries, is_rep)
        # A replay that moved a cluster's anchor out (an editor's split, another writer's move)
        # leaves the cluster without one when the new anchor (``anchor_of``: its earliest remaining member) was
        # not among the changed rows: it is in memory already, so make it the anchor.
        for cluster_id, anchor in reps.items():
            if cluster_id not in self.state.reps and anchor in self.state.entries:
                self.state.set_rep(cluster_id, anchor)
        if vectors:
            for (doc, ver), rep in zip(loaded, is_rep, strict=True):
                self._attach_vector(doc, rep, vectors.get(ver.id))
        return len(rows)

    def _warn_other_model(self, version_ids: list[int]) -> None:
        """Say so when the documents read have vectors of other models only: the embedding stage
        cannot find them (a translation of one is missed), and nothing else would tell. Settling
        refuses such a store outright (``Settling.check_model``); ingest goes on, as it did. Once
        per model: the warm-up reads in chunks of 2,000 and every replay of another writer's
        changes reads again."""
        other = {m.split("#", 1)[0] for m in self.store.vector_models(version_ids)} - {self.model_name}
        other -= self._warned_models
        if other:
            self._warned_models |= other
            log.warning("the store's documents were embedded with %s, not %s: the embedding stage cannot find "
                        "them (translations and paraphrases of them are missed); open the store with that model",
                        ", ".join(sorted(other)), self.model_name)

    @staticmethod
    def entry_of(doc: DocumentRow, ver: VersionRow) -> Entry:
        """A stored document's candidate-state entry (its time: published, else first seen)."""
        t = doc.published_at if doc.published_at is not None else doc.first_seen
        feats = ItemFeatures.build(ver.title, ver.body, ver.lang, t, content_sha=ver.content_hash, source=doc.source,
                                   url=doc.url)
        assert doc.cluster_id is not None
        return Entry(doc.id, ver.id, doc.cluster_id, feats, doc.url, doc.source)

    def _attach_vector(self, doc: DocumentRow, is_rep: bool, vector: bytes | None) -> None:
        """A stored vector becomes its cluster's: always the anchor's, else the first seen."""
        assert doc.cluster_id is not None
        if vector is not None and self.state.vectors is not None and not self._vectors_loaded and (
                is_rep or not self.state.has_cluster_vector(doc.cluster_id)):
            self.state.set_cluster_vector(doc.cluster_id, doc.id, np.frombuffer(vector, dtype=np.float32))

    def forget_erased(self, cluster_id: int | None) -> None:
        """What memory holds of an erased document beyond its entry (``Deletion``, and another
        worker's erasure read in ``catch_up``): its copy group's vector, which may be its own (its
        anchor's, kept when the anchor was deleted), becomes a live member's stored one, the anchor's
        first, as a warm-up reads it; the removed rows' strings and numbers leave the document table
        and a flat vector index (HNSW: at its next compaction)."""
        vectors = self.state.vectors
        if vectors is not None and cluster_id is not None and cluster_id in vectors:
            vectors.remove([cluster_id])
            self._reattach_vector(cluster_id)
        if vectors is not None and vectors.kind == "flat":
            vectors.compact()
        self.state.entries.compact()

    def _reattach_vector(self, cluster_id: int) -> None:
        members = self.store.members_of(cluster_id)
        if not members or not self.model_name:
            return
        anchor = anchor_of(members)
        docs = [d for d in (self.store.get_document(m.document_id) for m in members) if d is not None]
        docs.sort(key=lambda d: d.id != anchor)
        stored = self.store.load_vectors([d.latest_version_id for d in docs if d.latest_version_id], self.model_name)
        for d in docs:
            vec = stored.get(d.latest_version_id or -1)
            if vec is not None:
                self.state.set_cluster_vector(cluster_id, d.id, np.frombuffer(vec, dtype=np.float32))
                return

    def catch_up(self, limit: int | None = None) -> int:
        """Replay the store's changes since our cursor: other writers' (called inside the write
        transaction), or those made after the snapshot a warm-up loaded (at most ``limit``).

        Each changed document is read as it is now in the store: a deleted one is removed; the
        others are forgotten and loaded again in one batch, through the warm-up's own path
        (``load_docs``), with their cluster's anchor (``anchor_of``).
        """
        changes = self.store.changes_since(self.cursor, limit)
        if not changes:
            return 0
        self.cursor = max(self.cursor, changes[-1][0])
        doc_ids = list(dict.fromkeys(doc_id for _, doc_id in changes))
        rows: list[tuple[DocumentRow, VersionRow]] = []
        for doc_id in doc_ids:
            doc = self.store.get_document(doc_id)
            if doc is None or doc.deleted or doc.latest_version_id is None or doc.cluster_id is None:
                if doc is not None and doc.deleted and self.on_deleted_document is not None:
                    self.on_deleted_document(doc)
                self.state.remove(doc_id)
                if doc is not None and doc.erased_at is not None:
                    self.forget_erased(doc.cluster_id)  # another worker's erasure
                continue
            ver = self.store.get_version(doc.latest_version_id)
            if ver is not None:
                rows.append((doc, ver))
        new = [(doc, ver) for doc, ver in rows if doc.id not in self.state.entries]
        for doc, _ in rows:
            self.state.forget(doc.id)
        loaded, self._vectors_loaded = self._vectors_loaded, False  # replayed items bring their vectors
        try:
            self.load_docs(rows)
        finally:
            self._vectors_loaded = loaded
        if new and self.on_new_documents is not None:
            self.on_new_documents(new)
        self.counters["catch_up_documents"] += len(doc_ids)
        return len(doc_ids)


def release_free_memory() -> None:
    """Hand the heap the warm-up freed back to the OS (glibc ``malloc_trim``; a no-op elsewhere).

    Loading a state leaves freed temporaries (the snapshot's arrays, ``tolist`` ints, store
    rows) in the C heap, which glibc keeps for reuse: on the 100k benchmark store that was
    ~240 bytes of resident memory per document that the state no longer used.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to do
        pass
