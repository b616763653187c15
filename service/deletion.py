"""Deleting and erasing a document (``Deduper.delete_document``): one job, beside the levels.

A deletion marks the document deleted, takes it out of the candidate indices and its story's
evidence, and moves its copy group's representative to the best remaining member; an erasure
also forgets its words everywhere the engine keeps them (``service.erasure``).
"""

from __future__ import annotations

import functools
import logging
import time as _time
from collections.abc import Callable

from service.context import EngineContext
from service.representative import best_of
from service.store.base import DocumentRow
from service.story_level import StoryLevel

_log = logging.getLogger("samestory.engine")


class Deletion:
    """Deletes and erases documents over the engine's context."""

    def __init__(self, ctx: EngineContext, story_level: StoryLevel, rebuild: Callable[[], object]) -> None:
        # ``rebuild``: the engine's memory from the store after the transaction rolled back
        # (``Deduper.warm_up``, as ``CopyLevel`` and ``Settling`` do)
        self.ctx, self.story_level, self.rebuild = ctx, story_level, rebuild
        self.store, self.restart = ctx.store, ctx.restart

    def delete(self, document_id: int, *, erase: bool = False) -> bool:
        """``Deduper.delete_document`` after its arguments were checked."""
        try:
            with self.store.transaction():
                self.ctx.catch_up()
                doc = self.store.get_document(document_id)
                if doc is None or (doc.deleted and not erase) or doc.erased_at is not None:
                    return False
                now = _time.time()
                new_rep = self._delete(doc, now) if not doc.deleted else None
                if erase:
                    texts = self._erase(doc, now)
                self.store.record_change(document_id, now)
                last = self.store.max_change()
        except BaseException:
            # The transaction rolled back; memory may already have forgotten the document. Rebuild it.
            self.rebuild()
            raise
        self.restart.advance(last)
        if erase:
            self._erase_outside_store(texts)
        if not doc.deleted:
            self.ctx.counters["deletions"] += 1
            if new_rep is not None:
                self.ctx.counters["deletion_representative_moves"] += 1
        # ids only: no text of the document reaches the logs
        _log.info("document %d %s", document_id, "erased" if erase else "deleted", extra={"samestory": {
            "document_id": document_id, "copy_group_id": doc.cluster_id, "new_representative_id": new_rep}})
        return True

    def _delete(self, doc: DocumentRow, now: float) -> int | None:
        """Mark ``doc`` deleted and take it out of memory; the member that took its place as its
        copy group's representative, if one did."""
        document_id = doc.id
        new_rep = None
        self.store.mark_deleted(document_id, now)
        self.story_level.forget(doc)  # before the state forgets it: its story time reads its anchor there
        self.ctx.state.remove(document_id)
        if doc.cluster_id is not None:
            cluster = self.store.get_cluster(doc.cluster_id)
            # The store's live members, not memory's: a copy group older than twice the window
            # has left memory (``CopyLevel.expire``) but its members are still there to promote.
            live = [m.document_id for m in self.store.members_of(doc.cluster_id)]
            if cluster is not None and cluster.representative_id == document_id and live:
                # The best remaining member by seed 000's rules takes the representative's place.
                cands = [c for c in map(self.ctx.rep_candidate, live) if c is not None]
                new_rep = best_of(cands, self.ctx.url_rules).doc_id
                self.store.set_representative(doc.cluster_id, document_id, new_rep,
                                              "previous representative deleted", now)
                self.store.record_change(new_rep, now)
        return new_rep

    def _erase(self, doc: DocumentRow, now: float) -> list[tuple[str, str]]:
        """The store's and memory's part of an erasure (inside the transaction); returns the texts
        it held, for the caches outside the store."""
        from service.erasure import erased_words, redact_decision

        versions = self.store.versions_of(doc.id)
        urls = [doc.url or ""] + [o.url or "" for o in self.store.observations_of(doc.id)]
        texts = [(v.title, v.body) for v in versions]
        words = erased_words([*(t for pair in texts for t in pair), *urls])
        self.store.erase_document(doc.id, now, functools.partial(redact_decision, words=words))
        self.restart.forget_erased(doc.cluster_id)
        return texts

    def _erase_outside_store(self, texts: list[tuple[str, str]]) -> None:
        """The embedding caches' and the state files' part of an erasure (after the commit)."""
        forget = getattr(self.ctx.embedder, "forget", None)
        if forget is not None and texts:
            from index.features import ItemFeatures
            from service.stories import story_text

            # Every text the engine embeds of a version (exact keys: the shared cache is keyed by their
            # hashes), and any cached text that holds a title's or body's first 60 characters (the
            # local cache: other compositions of the same words). 8 characters: shorter pieces
            # (a two-word title) would drop unrelated texts; the cache refills them, so over-dropping
            # costs an encoder call, never a decision.
            exact: set[str] = set()
            for title, body in texts:
                f = ItemFeatures.build(title, body, "und", 0.0)
                exact.update({title, body, f.embed_text(True), f.embed_text(False), f.headline,
                              story_text(title, body)})
            exact.discard("")
            pieces = {t.strip()[:60] for t in exact if len(t.strip()) >= 8}
            forget(sorted(exact), match=lambda t: any(p in t for p in pieces))
        # The state files beside a SQLite store held its features and vector: written again without
        # them, or removed when they cannot be written now (they are an accelerator; a start rebuilds).
        # An engine without vectors (``--model none``) writes no vector index: an older one goes too.
        wrote = self.restart.checkpoint(wait=True)
        stale = [] if wrote else [self.restart.snapshot_path]
        if not wrote or self.ctx.state.vectors is None:
            stale.append(self.restart.index_path)
        for path in stale:
            if path is not None:
                path.unlink(missing_ok=True)
