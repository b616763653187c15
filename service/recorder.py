"""The store writes of an ingest (issue 37, "Each decision in one place"): the copy and story
levels decide (``CopyLevel.place``, ``StoryLevel.place``/``join``, which write nothing); the
``Recorder`` turns their placements into rows: documents and versions with their vectors,
memberships, representatives, copy groups and stories, the moves revisions made, observations and
the change feed. Settling's replays, the headline dedupe and the story evaluation use the same
placements with no recorder (``service.placement``); settling stores its moves itself, as the
differences between a replay and the store (``service.settling``).

``stored_groups`` and ``stored_stories`` read back what was recorded for a batch of results: the
copy group and story each item is in now, which a settling or an editor may have changed since.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from service.placement import CopyPlacement, StoryPlacement
from service.store import Store
from service.stories import Move
from service.types import Article, Decision, IngestResult, Status


class Recorder:
    """Writes an ingest's placements to ``store`` (inside the caller's transaction)."""

    def __init__(self, store: Store, model_name: str | None) -> None:
        self.store = store
        self.model_name = model_name  # set exactly when there is an embedder

    # documents ---------------------------------------------------------------------------------------
    def document(self, article: Article, key: str | None, content_hash: str, published: float | None,
                 now: float) -> tuple[int, int]:
        """A new document and its first version; returns their ids."""
        doc_id = self.store.insert_document(article.channel, key, article.url, article.source, published, now)
        return doc_id, self.version(doc_id, article, content_hash, now)

    def version(self, doc_id: int, article: Article, content_hash: str, now: float) -> int:
        """A new version of document ``doc_id``; returns its id."""
        return self.store.insert_version(doc_id, content_hash, article.title, article.body, article.lang or "und", now)

    def vector(self, version_id: int, vector: np.ndarray | None, *, kind: str = "") -> None:
        """A version's vector under the model's name (``kind`` "#story": its story vector), kept for
        warm restarts and settling; nothing without a model or a vector."""
        if vector is not None and self.model_name:
            self.store.save_vector(version_id, f"{self.model_name}{kind}",
                                   np.asarray(vector, dtype=np.float32).tobytes())

    # copy groups -------------------------------------------------------------------------------------
    def new_group(self, doc_id: int, now: float) -> int:
        """A copy group founded by ``doc_id``; returns its id."""
        return self.store.create_cluster(doc_id, now)

    def membership(self, doc_id: int, group: int, placement: CopyPlacement, now: float) -> None:
        """``doc_id`` in ``group`` by ``placement``'s decision (the document it matched, if any)."""
        d = placement.decision
        self.store.set_membership(doc_id, group, now, d.stage, d.score, placement.matched, d.to_dict())

    def representative(self, group: int, old: int, new: int, why: str, now: float) -> None:
        """``new`` displaces ``old`` as ``group``'s displayed representative (both changed documents)."""
        self.store.set_representative(group, old, new, why, now)
        self.store.record_change(old, now)

    # stories -----------------------------------------------------------------------------------------
    def new_story(self, now: float) -> int:
        return self.store.create_story(now)

    def story(self, placement: StoryPlacement, story: int, moves: Iterable[Move], now: float) -> None:
        """A story placement applied: a group's first item puts the group in ``story`` with the
        decision's score and reason; a later one touches its group's story. Then the moves the
        revisions made (``moves``)."""
        if placement.first:
            self.store.set_cluster_story(int(placement.group), story, placement.score,  # type: ignore[call-overload]
                                         placement.reason, now)
        else:
            self.store.touch_story(story, now)
        self.moves(moves, now)

    def moves(self, moves: Iterable[Move], now: float) -> None:
        """The tracker's revisions: each moved copy group's new story and why. A story left empty
        stays as a row without groups, as after an editor's merge."""
        for mv in moves:
            self.store.set_cluster_story(int(mv.unit), mv.target, round(mv.score, 6), mv.reason,  # type: ignore[call-overload]
                                         now)
            self.store.touch_story(mv.target, now)

    # what was seen -----------------------------------------------------------------------------------
    def observation(self, article: Article, doc_id: int, version_id: int, status: Status, decision: Decision,
                    now: float) -> int:
        """That ``article`` was seen (one observation row per ingested item); returns its id."""
        return self.store.insert_observation(document_id=doc_id, version_id=version_id, channel=article.channel,
                                             url=article.url, source=article.source, caller_id=article.id,
                                             now=now, status=status, decision=decision.to_dict())

    def change(self, doc_id: int, now: float) -> None:
        """A change-feed row: other workers and warm restarts replay ``doc_id`` from it."""
        self.store.record_change(doc_id, now)


# reading back what was recorded --------------------------------------------------------------------
def stored_groups(store: Store, results: Sequence[IngestResult]) -> list[int]:
    """Each result's copy group as the store holds it now: a settling (``Deduper.settle_copies``) may
    have moved the item after its result was returned (a deleted item keeps the result's)."""
    out = []
    for r in results:
        doc = store.get_document(r.document_id)
        out.append(int(doc.cluster_id) if doc is not None and doc.cluster_id is not None else r.cluster_id)
    return out


def stored_stories(store: Store, results: Sequence[IngestResult]) -> list[int | None]:
    """Each result's story as the store holds it now: an item's story is its copy group's
    (``stored_groups``), and a story revision (or settling) may have moved the group after the
    result was returned (a group the store has no story for keeps the result's)."""
    story_of: dict[int, int | None] = {}
    out: list[int | None] = []
    for r, g in zip(results, stored_groups(store, results), strict=True):
        if g not in story_of:
            c = store.get_cluster(g)
            story_of[g] = c.story_id if c is not None and c.story_id is not None else r.story_id
        out.append(story_of[g])
    return out
