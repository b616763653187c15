"""The store's contract and row types, shared by the SQLite and PostgreSQL back-ends.

Nothing is ever deleted by deduplication: observations, versions and member documents all stay,
with provenance. Uniqueness is the database's job (seed 002): one document per
(channel, document key) and one version per (document, content hash), so two collectors that
both think a URL is new cannot both store it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class DocumentRow:
    id: int
    channel: str
    doc_key: str | None
    url: str | None
    source: str | None
    cluster_id: int | None
    latest_version_id: int | None
    published_at: float | None
    first_seen: float
    deleted: bool
    # When its texts, URLs and vectors were erased (schema 6); None: not erased.
    erased_at: float | None = None


@dataclass(frozen=True)
class VersionRow:
    id: int
    document_id: int
    content_hash: str
    title: str
    body: str
    lang: str
    created_at: float


@dataclass(frozen=True)
class ObservationRow:
    id: int
    document_id: int
    version_id: int
    channel: str
    url: str | None
    source: str | None
    caller_id: str | None
    observed_at: float
    status: str
    decision: dict[str, Any]


@dataclass(frozen=True)
class ClusterRow:
    id: int
    representative_id: int
    created_at: float
    updated_at: float
    # The copy group's story (schema 2, issue 17); None only for a cluster created outside the engine.
    story_id: int | None = None
    story_score: float | None = None
    story_reason: str | None = None


@dataclass(frozen=True)
class StoryRow:
    """A story: the event level above copy groups (its groups: ``clusters_of_story``)."""

    id: int
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class MembershipRow:
    document_id: int
    cluster_id: int
    joined_at: float
    stage: str
    score: float | None
    matched_id: int | None
    decision: dict[str, Any]


@dataclass(frozen=True)
class ClusterEventRow:
    id: int
    cluster_id: int
    old_representative: int | None
    new_representative: int
    reason: str
    at: float


class DuplicateKeyError(Exception):
    """A uniqueness constraint fired: another writer stored the same document or version first."""


class Store(Protocol):
    """What the engine needs from a database. All writes happen inside ``transaction()``."""

    url: str

    def transaction(self) -> AbstractContextManager[None]:
        """An exclusive write transaction: one engine at a time decides and writes (see engine)."""
        ...

    def close(self) -> None: ...

    # documents and versions
    def find_document(self, channel: str, doc_key: str) -> DocumentRow | None: ...
    def insert_document(self, channel: str, doc_key: str | None, url: str | None, source: str | None,
                        published_at: float | None, now: float) -> int: ...
    def find_version(self, document_id: int, content_hash: str) -> VersionRow | None: ...
    def insert_version(self, document_id: int, content_hash: str, title: str, body: str, lang: str,
                       now: float) -> int: ...
    def insert_observation(self, document_id: int, version_id: int, channel: str, url: str | None,
                           source: str | None, caller_id: str | None, now: float, status: str,
                           decision: dict[str, Any]) -> int: ...
    def get_document(self, document_id: int) -> DocumentRow | None: ...
    def get_version(self, version_id: int) -> VersionRow | None: ...
    def versions_of(self, document_id: int) -> list[VersionRow]: ...
    def observations_of(self, document_id: int) -> list[ObservationRow]: ...
    def mark_deleted(self, document_id: int, now: float) -> None: ...
    def release_document_key(self, document_id: int) -> None: ...
    def erase_document(self, document_id: int, now: float,
                       redact: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
        """Blank a deleted document's texts, URLs, caller ids and content hashes, drop its vectors and
        stamp ``erased_at``; rewrite with ``redact`` its own decisions and every other decision that
        names it (``matched_id``, ``document N``, ``anchor N``). Returns the other decisions rewritten."""
        ...

    # clusters
    def create_cluster(self, representative_id: int, now: float) -> int: ...
    def get_cluster(self, cluster_id: int) -> ClusterRow | None: ...
    def set_membership(self, document_id: int, cluster_id: int, now: float, stage: str, score: float | None,
                       matched_id: int | None, decision: dict[str, Any]) -> None: ...
    def set_representative(self, cluster_id: int, old: int | None, new: int, reason: str, now: float) -> None: ...
    def members_of(self, cluster_id: int) -> list[MembershipRow]: ...
    def cluster_events(self, cluster_id: int) -> list[ClusterEventRow]: ...
    def list_clusters(self, limit: int, offset: int) -> list[ClusterRow]:
        """Copy groups that hold members, most recently updated first (an emptied one's row stays)."""
        ...

    # stories (issue 17)
    def create_story(self, now: float) -> int: ...
    def set_cluster_story(self, cluster_id: int, story_id: int, score: float | None, reason: str,
                          now: float) -> None: ...
    def touch_story(self, story_id: int, now: float) -> None: ...
    def get_story(self, story_id: int) -> StoryRow | None: ...
    def list_stories(self, limit: int, offset: int) -> list[StoryRow]:
        """Stories whose copy groups hold members, most recently updated first (an emptied one's row stays)."""
        ...
    def clusters_of_story(self, story_id: int) -> list[ClusterRow]: ...

    # vectors, change feed, warm-up
    def save_vector(self, version_id: int, model: str, vector: bytes) -> None: ...
    def load_vectors(self, version_ids: list[int], model: str) -> dict[int, bytes]:
        """The stored vectors of these versions for ``model``, by version id (absent: no key)."""
        ...

    def vector_models(self, version_ids: list[int]) -> set[str]:
        """The models any of these versions has a stored vector for (``use``, ``use#story``, ...)."""
        ...

    def record_change(self, document_id: int, now: float) -> int: ...
    def changes_since(self, seq: int, limit: int | None = None) -> list[tuple[int, int]]:
        """``(seq, document_id)`` of the changes after ``seq``, oldest first; at most ``limit``."""
        ...

    def max_change(self) -> int: ...
    def live_documents(self, since: float) -> Iterator[tuple[DocumentRow, VersionRow]]: ...
    def live_document_ids(self, since: float) -> set[int]: ...
    def first_versions(self, document_ids: Collection[int] | None = None) -> dict[int, VersionRow]: ...
    def counts(self) -> dict[str, int]: ...


class StoreOpenError(RuntimeError):
    """The store cannot be opened as asked: an unsupported URL, an unreachable server, a missing
    database or schema, a schema version this code does not know. The message is one line for
    the operator (``samestory`` prints it instead of a traceback)."""
