"""The decide step: the streaming engine itself, replayed over the corpus in input order.

Every decision of a batch run is made here, by ``Deduper.ingest_many`` - the same cascade
(``service.cascade``), guards (``service.guards``), representative rules
(``service.representative``), URL rules and store writes as live ingestion - so a batch result is
what streaming the corpus would have given, and can seed a live store. What the parallel stages
contribute is the expensive part done ahead and in parallel: the embeddings of the items the
cheap passes cannot settle. The engine asks its embedder for vectors exactly as it would live;
:class:`PrecomputedEmbedder` answers from the precomputed table and embeds on the spot only
what the plan did not foresee (counted as ``late``).

>>> import numpy as np
>>> class Toy:
...     name, dim = "toy", 2
...     def encode(self, texts): return np.ones((len(texts), 2), np.float32) / np.sqrt(2)
>>> e = PrecomputedEmbedder({"a": np.array([1.0, 0.0], np.float32)}, Toy)
>>> e.encode(["a", "b"]).astype(float).round(3).tolist(), e.hits, e.late
([[1.0, 0.0], [0.707, 0.707]], 1, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from service.batch.candidates import CandidateVectors, Neighbours
from service.batch.io import Record
from service.config import EngineConfig
from service.types import matched_stage


class PrecomputedEmbedder:
    """An embedder (``models.base.Embedder`` shape) that serves precomputed vectors by text.

    ``make_fallback()`` builds the real model on first need (a text the plan did not embed);
    ``name`` and ``dim`` are the real model's, so thresholds, the scorer and the vectors saved
    to a store are the model's own.
    """

    def __init__(self, vectors: dict[str, np.ndarray], make_fallback: Callable[[], Any], *,
                 name: str | None = None, dim: int | None = None) -> None:
        self.vectors = vectors
        self._make_fallback = make_fallback
        self._fallback: Any = None
        if name is None or dim is None:
            model = self._model()
            name, dim = model.name, model.dim
        self.name, self.dim = name, dim
        self.hits = 0  # texts served from the precomputed table
        self.late = 0  # texts the decide step had to embed itself

    def _model(self) -> Any:
        if self._fallback is None:
            self._fallback = self._make_fallback()
        return self._fallback

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            vecs = np.asarray(self._model().encode(missing), dtype=np.float32)
            self.vectors.update(zip(missing, vecs, strict=True))
            self.late += len(missing)
        self.hits += len(texts) - len(missing)
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32, copy=False)


@dataclass
class Decided:
    """The decide step's output: one result dict per record (the batch's result columns)."""

    results: list[dict[str, Any]]
    counters: dict[str, int] = field(default_factory=dict)
    late_embedded: int = 0
    searches: dict[str, int] = field(default_factory=dict)  # answered from the pairs / fell back
    settled: dict[str, Any] | None = None  # the settling's report (``settle``), else None


def _bodied_groups(engine: Any) -> Callable[[int], bool]:
    """Whether a copy group's anchor has a body, as the engine's embedding stage tells it
    (``EmbeddingStage.stored_has_body``); read at each call, as anchors change."""
    from service.stages import EmbeddingStage

    stage = next(s for s in engine.ctx.cascade.stages if isinstance(s, EmbeddingStage))

    def bodied(group: int) -> bool:
        state = engine.ctx.state
        doc = state.reps.get(group)
        return doc is not None and stage.stored_has_body(state.entries, doc)

    return bodied


def decide(records: Sequence[Record], *, store: str, config: EngineConfig, embedder: Any,
           guards: bool = True, progress: bool = False, neighbours: Neighbours | None = None,
           floor: float = -1.0, exact_scores: bool = False, settle: bool = False,
           band_floor: float | None = None) -> Decided:
    """Ingest ``records`` in order into ``store`` (``:memory:`` for a result only, or the store
    to seed) with the streaming engine; map its results to rows of the input. Each row's
    ``copy_group_id`` and ``story_id`` are its item's copy group and that group's story once every
    record is in (a story revision may move a group after a row's own decision; its status,
    stage and score are that decision); ``settle``: once both levels are settled
    (``Deduper.settle``: re-decided in publication order), and the status columns then say the
    settled decision (``settled_memberships``).

    ``neighbours``: the sharded search stage's candidate pairs (cosine >= ``floor``); the
    engine's vector searches are then answered from them (``service.batch.candidates``);
    ``band_floor``: the stage's same-language floor (``SearchPlan.same_language_floor``).
    """
    from service.engine import Deduper, guards_on
    from service.recorder import stored_groups, stored_stories
    from service.store import open_store

    engine = Deduper(open_store(store), embedder=embedder, config=config, guards=guards_on(guards))
    searches: dict[str, int] = {}
    try:
        wrapped = None
        if neighbours is not None and engine.ctx.state.vectors is not None:
            # after warm-up: the groups an --into store already held are strangers, scored on every search
            wrapped = CandidateVectors(engine.ctx.state.vectors, neighbours, floor=floor, exact_scores=exact_scores,
                                       band_floor=band_floor, bodied=_bodied_groups(engine))
            engine.ctx.state.vectors = wrapped  # type: ignore[assignment]
        # the batch command warned once for the whole input (service.batch.cli)
        out = engine.ingest_many([r.article for r in records], progress=progress, warn_repeated_ids=False)
        if wrapped is not None:
            searches = {"answered_from_pairs": wrapped.answered, "own_search": wrapped.fell_back,
                        "own_search_for_score": wrapped.for_score, "own_search_for_ties": wrapped.for_ties,
                        "own_search_for_band": wrapped.for_band, "own_search_for_headlines": wrapped.for_headlines}
            engine.ctx.state.vectors = wrapped.inner
        late = int(getattr(embedder, "late", 0) or 0)  # the decide step's own; settling's are in its report
        settled = engine.settle(progress=progress).to_dict() if settle else None
        counters = {k: int(v) for k, v in engine.ctx.counters.items()}
        groups, stories = stored_groups(engine.store, out), stored_stories(engine.store, out)
        memberships = settled_memberships(engine.store, out, groups) if settle else {}
        first_row: dict[int, int] = {}
        for row, r in enumerate(out):
            first_row.setdefault(r.document_id, row)
        held = held_matches(engine.store, out, groups, first_row)
    finally:
        engine.close()
    results = []
    for row, r in enumerate(out):
        d = r.decision
        status, dup, stage, score = r.status, r.duplicate_of, d.stage, d.score
        if dup is None and row in held:  # a document the --into store held: the copy it matched then
            dup = held[row]
        blocked_by, reasons = list(d.blocked_by), list(d.reasons)
        settled_as = memberships.get(row)
        if settled_as is not None:  # the settled decision, which the row's copy group is the result of
            m, group_rep = settled_as
            status = "new" if m.matched_id is None else "duplicate"
            if status == "new":
                dup = None
            elif dup is None or dup == r.document_id or dup not in group_rep[1]:
                # the streamed representative it matched is no longer in its copy group
                dup = group_rep[0] if group_rep[0] != r.document_id else m.matched_id
            stage, score = m.stage, m.score
            blocked_by, reasons = list(m.decision.get("blocked_by", [])), list(m.decision.get("reasons", []))
        results.append({
            "row": row,
            "copy_group_id": groups[row],
            "story_id": stories[row],
            "duplicate_of": _dropped_for(dup, r.document_id, status, row, first_row),
            "status": status,
            "stage": matched_stage(status, stage),  # "none" for a new item, as ingest says it
            "score": None if score is None else float(score),
            "document_id": r.document_id,
            # the store's id of that representative: also set when it is a document the --into store
            # already held before this batch (then duplicate_of, a row of this input, is null)
            "duplicate_of_document": dup,
            "blocked_by": blocked_by,
            "reasons": reasons,
        })
    return Decided(results, counters, late, searches, settled)


def _dropped_for(dup: int | None, document: int, status: str, row: int, first_row: dict[int, int]) -> int | None:
    """A row's ``duplicate_of``: the row of the representative it matched; for a re-observation or
    a new version (its URL again), its document's first row. The fourteenth tour: an archive's
    exact re-sends came back ``reobserved`` with ``duplicate_of`` null, so keeping the rows with
    no ``duplicate_of`` kept them twice (two rows of one copy group and one document).

    >>> _dropped_for(None, 7, "reobserved", 5, {7: 0}), _dropped_for(7, 9, "duplicate", 5, {7: 0, 9: 5})
    (0, 0)
    >>> _dropped_for(None, 7, "new", 0, {7: 0}), _dropped_for(None, 7, "reobserved", 5, {})  # held before (--into)
    (None, None)
    """
    if dup is not None:
        return first_row.get(dup)
    if status in ("reobserved", "new_version") and first_row.get(document, row) != row:
        return first_row[document]
    return None


def held_matches(store: Any, out: Sequence[Any], groups: Sequence[int], first_row: dict[int, int]) -> dict[int, int]:
    """For each row that re-observes a document the store held before this input (its document's
    first row here), the document the store says it matched when it joined its copy group, where
    it did. A resumed run (an interrupted `batch --into`, then the same command) gave the first
    run's rows `reobserved` with no `duplicate_of`: 135 of 1,026 copy groups of the fourteenth
    tour's 2,000 lines had several rows without one, and "keep the rows without duplicate_of" kept
    them all. Now those rows point where the first run's did (at the matched copy)."""
    held: dict[int, int] = {}
    members: dict[int, dict[int, Any]] = {}
    for row, (r, g) in enumerate(zip(out, groups, strict=True)):
        if r.status not in ("reobserved", "new_version") or first_row.get(r.document_id) != row:
            continue
        if g not in members:
            members[g] = {m.document_id: m for m in store.members_of(g)}
        m = members[g].get(r.document_id)
        if m is not None and m.matched_id is not None and m.matched_id != r.document_id:
            held[row] = m.matched_id
    return held


def settled_memberships(store: Any, out: Sequence[Any], groups: Sequence[int]
                        ) -> dict[int, tuple[Any, tuple[int, set[int]]]]:
    """After a settling: for each row that put its document in a copy group (status ``new`` or
    ``duplicate``; a re-observation or a new version says what that record was), the document's
    membership as the settling left it (its decision: founder or the copy it matched, stage,
    score, reasons) and its copy group's representative and members, so that the row's status
    columns say the settled decision its ``copy_group_id`` is the result of."""
    held: dict[int, tuple[dict[int, Any], int]] = {}
    rows: dict[int, tuple[Any, tuple[int, set[int]]]] = {}
    for row, (r, g) in enumerate(zip(out, groups, strict=True)):
        if r.status not in ("new", "duplicate"):
            continue
        if g not in held:
            cluster = store.get_cluster(g)
            held[g] = ({m.document_id: m for m in store.members_of(g)},
                       cluster.representative_id if cluster is not None else r.representative_id)
        members, rep = held[g]
        if r.document_id in members:  # a deleted document keeps its streamed row
            rows[row] = (members[r.document_id], (rep, set(members)))
    return rows
