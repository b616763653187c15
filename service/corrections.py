"""Editors' corrections: split a member off its story, merge two stories, mark a pair "not the same".

Each correction is one row of ``editor_corrections`` (who: the API key's name, when, which
documents and stories), written in the same transaction as the membership changes it makes, so
a correction is either wholly applied or not at all, and survives a restart like any write.
Nothing is deleted: a moved member's previous membership decision is kept inside its new one
(``decision["previous"]``) and its observations keep the engine's original verdict.

The corrections become constraints on later decisions (:class:`Constraints`, consulted by the
engine before it puts a new item into a story):

- **must-link** - a story merged into another: an item the cascade matches with the merged
  story goes to the story it was merged into (the merged story's vector and representative
  slot are gone from memory, but a stale hit is redirected, never sent to an empty story);
- **cannot-link** - a split or a "not the same" pair: the two documents' stories may not be
  merged by an editor later (the merge is refused, naming the pair), and a must-link redirect
  never leads into a story cannot-linked with the one the cascade chose.

And they are labelled pairs (:func:`labelled_pairs`) in the eval-data pair format, so
``samestory eval calibrate`` can re-fit the thresholds on an editor's judgement.

The table is part of the store's schema (migration step 3, ``service/store/migrations.py``), so a
store written before it gets it when it is opened.

>>> from service.engine import Deduper
>>> from service.types import Article
>>> d = Deduper.open(":memory:", model=None)
>>> a = d.ingest(Article(title="Fed raises rates by 0.25%p", url="https://a.example/1"))
>>> b = d.ingest(Article(title="Fed raises rates by 0.25%p", url="https://b.example/2"))
>>> b.cluster_id == a.cluster_id
True
>>> c = Editor(d).split(b.document_id, who="alice")
>>> (c.kind, c.doc_a, c.story_from, c.who)
('split', 2, 1, 'alice')
>>> d.store.get_document(b.document_id).cluster_id != a.cluster_id
True
>>> [p["label"] for p in labelled_pairs(d.store)]
[0]
>>> d.close()
"""

from __future__ import annotations

import time as _time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from service.cascade import Match
from service.representative import Candidate, better
from service.types import Decision

KINDS = ("split", "merge", "not_same")
# The pair label each kind stands for in the eval-data format: 1 = the same story.
LABELS = {"split": 0, "merge": 1, "not_same": 0}

_COLS = "id, kind, doc_a, doc_b, story_from, story_to, who, at, note"


class CorrectionError(ValueError):
    """A correction that cannot be applied (no such document, nothing to split, a cannot-link)."""


@dataclass(frozen=True)
class Correction:
    """One editor's correction. ``doc_a``/``doc_b`` is the labelled pair it stands for:
    split: (the member split off, the story's representative then); merge: (the kept story's
    representative, the merged story's); not_same: the two documents. ``story_from`` is the
    story the change left (split, merge) and ``story_to`` the one it went to."""

    id: int
    kind: str
    doc_a: int
    doc_b: int
    story_from: int | None
    story_to: int | None
    who: str
    at: float
    note: str | None = None

    @property
    def label(self) -> int:
        return LABELS[self.kind]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "doc_a": self.doc_a, "doc_b": self.doc_b,
                "story_from": self.story_from, "story_to": self.story_to, "who": self.who,
                "at": iso(self.at), "note": self.note, "label": self.label}


def iso(t: float | None) -> str | None:
    """Epoch seconds as ISO 8601 in UTC.

    >>> iso(0.0)
    '1970-01-01T00:00:00+00:00'
    """
    return None if t is None else datetime.fromtimestamp(t, tz=timezone.utc).isoformat(timespec="seconds")


# storage ---------------------------------------------------------------------------------------------
def _row(r: Any) -> Correction:
    return Correction(int(r[0]), r[1], int(r[2]), int(r[3]), None if r[4] is None else int(r[4]),
                      None if r[5] is None else int(r[5]), r[6], float(r[7]), r[8])


def list_corrections(store: Any, *, limit: int | None = None) -> list[Correction]:
    """Every correction, oldest first (the last ``limit`` when given)."""
    rows = store._all(f"SELECT {_COLS} FROM editor_corrections ORDER BY id")
    out = [_row(r) for r in rows]
    return out[-limit:] if limit else out


def _insert(store: Any, kind: str, doc_a: int, doc_b: int, story_from: int | None, story_to: int | None,
            who: str, now: float, note: str | None) -> Correction:
    cid = store._insert(
        "INSERT INTO editor_corrections (kind, doc_a, doc_b, story_from, story_to, who, at, note)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (kind, doc_a, doc_b, story_from, story_to, who, now, note))
    return Correction(cid, kind, doc_a, doc_b, story_from, story_to, who, now, note)


# constraints: the engine's hook -------------------------------------------------------------------
@dataclass
class Constraints:
    """Must-link (merged stories) and cannot-link (document pairs) from the corrections.

    ``review`` is what the engine calls with the cascade's match before it writes the item.
    """

    merged_into: dict[int, tuple[int, Correction]] = field(default_factory=dict)
    cannot: dict[frozenset[int], Correction] = field(default_factory=dict)
    # The store they were read from: re-read when a match lands in a story with no representative
    # in memory (another worker's merge emptied it after this one loaded its constraints).
    store: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_corrections(cls, corrections: list[Correction]) -> Constraints:
        out = cls()
        for c in corrections:
            out.add(c)
        return out

    def add(self, c: Correction) -> None:
        if c.kind == "merge" and c.story_from is not None and c.story_to is not None:
            self.merged_into[c.story_from] = (c.story_to, c)
        elif c.kind in ("split", "not_same"):
            self.cannot[frozenset((c.doc_a, c.doc_b))] = c

    def __bool__(self) -> bool:
        # With a store, always consulted: another worker may add the first correction later.
        return bool(self.merged_into or self.cannot or self.store is not None)

    def refresh(self) -> None:
        if self.store is not None:
            fresh = Constraints.from_corrections(list_corrections(self.store))
            self.merged_into, self.cannot = fresh.merged_into, fresh.cannot

    def final_story(self, story: int) -> tuple[int, list[Correction]]:
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
        set_b = set(docs_b)
        for pair, c in self.cannot.items():
            x, y = tuple(pair) if len(pair) == 2 else (next(iter(pair)),) * 2
            if (x in docs_a and y in set_b) or (y in docs_a and x in set_b):
                return c
        return None

    def review(self, match: Match, state: Any) -> Match:
        """The engine's hook: a match into a story editors merged away goes to the story it was
        merged into (must-link), with the reason added; anything else passes unchanged."""
        if not match.decision.same or match.cluster_id is None:
            return match
        if match.cluster_id not in self.merged_into and state.reps.get(match.cluster_id) is None:
            self.refresh()  # a story this worker still holds a vector for, emptied elsewhere since
        if match.cluster_id not in self.merged_into:
            return match
        story, chain = self.final_story(match.cluster_id)
        rep = state.reps.get(story)
        if rep is None:  # the surviving story is not in memory (expired): keep the engine's own verdict
            return match
        d = match.decision
        reasons = [*d.reasons, *(f"editor: story {c.story_from} was merged into story {c.story_to} by {c.who}"
                                 f" at {iso(c.at)} (must-link)" for c in chain)]
        decision = Decision(True, d.stage, d.score, reasons, list(d.blocked_by), matched_id=d.matched_id,
                            scores=dict(d.scores), guards=list(d.guards))
        return Match(decision, story, match.matched_doc if match.matched_doc is not None else rep)


def load_constraints(store: Any) -> Constraints:
    out = Constraints.from_corrections(list_corrections(store))
    out.store = store
    return out


def attach(engine: Any) -> Constraints:
    """Load the store's corrections into ``engine.constraints`` (the hook ``_ingest_one`` consults)."""
    engine.constraints = load_constraints(engine.store)
    return engine.constraints


# applying corrections -----------------------------------------------------------------------------
class Editor:
    """Applies corrections through an engine: the store rows and the engine's in-memory state
    change together (the moved documents are replayed through the engine's change feed)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        if getattr(engine, "constraints", None) is None:
            attach(engine)

    @property
    def store(self) -> Any:
        return self.engine.store

    def _doc(self, document_id: int) -> Any:
        doc = self.store.get_document(document_id)
        if doc is None or doc.deleted:
            raise CorrectionError(f"document {document_id} does not exist")
        if doc.cluster_id is None:
            raise CorrectionError(f"document {document_id} is in no story")
        return doc

    def _story_docs(self, story_id: int) -> list[int]:
        return [m.document_id for m in self.store.members_of(story_id)]

    def _decision(self, reason: str, previous: Any, matched: int | None) -> dict[str, Any]:
        return {"same": matched is not None, "stage": "editor", "score": None, "reasons": [reason],
                "blocked_by": [], "matched_id": matched, "scores": {}, "guards": [],
                "previous": None if previous is None else {
                    "cluster_id": previous.cluster_id, "stage": previous.stage, "score": previous.score,
                    "matched_id": previous.matched_id, "decision": previous.decision}}

    def _best_rep(self, doc_ids: list[int]) -> tuple[int, str]:
        """The representative among ``doc_ids`` by the engine's own rule (original over syndicator,
        direct over redirect, newest), and the reason."""
        rules = self.engine.url_rules
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
        self.engine._catch_up()

    def _fix_vectors(self, stories: list[int]) -> None:
        """A story whose representative changed or that was emptied must not keep the old
        representative's vector in the candidate index (a later translation of the split-off
        article would otherwise join the story it was taken out of): replace it with the new
        representative's stored vector, or drop it."""
        state = self.engine.state
        if state.vectors is None:
            return
        import numpy as np

        for story in stories:
            state.vectors.remove([story])
            rep = state.reps.get(story)
            model = self.engine.model_name
            if rep is None or not model:
                continue
            doc = self.store.get_document(rep)
            vec = self.store.load_vectors([doc.latest_version_id], model).get(doc.latest_version_id)
            if vec is not None:
                state.set_cluster_vector(story, rep, np.frombuffer(vec, dtype=np.float32))

    def _transaction(self) -> Any:
        return _EngineTransaction(self.engine)

    def split(self, document_id: int, *, who: str, note: str | None = None) -> Correction:
        """Take ``document_id`` out of its story into a story of its own (cannot-link with the
        story's representative)."""
        with self._transaction():
            doc = self._doc(document_id)
            return self._split(doc, doc.cluster_id, who, note, kind="split", other=None)

    def _split(self, doc: Any, story: int, who: str, note: str | None, *, kind: str,
               other: int | None) -> Correction:
        store, now = self.store, _time.time()
        members = self._story_docs(story)
        if members == [doc.id]:
            raise CorrectionError(f"document {doc.id} is the only member of story {story}: nothing to split")
        cluster = store.get_cluster(story)
        rep_before = cluster.representative_id
        previous = next((m for m in store.members_of(story) if m.document_id == doc.id), None)
        new_story = store.create_cluster(doc.id, now)
        why = f"editor {who} split document {doc.id} off story {story}"
        store.set_representative(new_story, doc.id, doc.id, why, now)
        store.set_membership(doc.id, new_story, now, "editor", None, None, self._decision(why, previous, None))
        changed = [doc.id]
        if rep_before == doc.id:
            rest = [m for m in members if m != doc.id]
            new_rep, reason = self._best_rep(rest)
            store.set_representative(story, doc.id, new_rep, f"previous representative split off by editor {who}"
                                     f" ({reason})", now)
            changed.append(new_rep)
            rep_before_pair = new_rep
        else:
            rep_before_pair = rep_before
        c = _insert(store, kind, doc.id, other if other is not None else rep_before_pair, story, new_story,
                    who, now, note)
        self._apply(changed)
        self._fix_vectors([story, new_story])
        self.engine.constraints.add(c)
        return c

    def not_same(self, doc_a: int, doc_b: int, *, who: str, note: str | None = None) -> Correction:
        """Mark two documents "not the same": when they share a story, ``doc_b`` is split off it."""
        if doc_a == doc_b:
            raise CorrectionError(f"a document is always the same as itself (document {doc_a})")
        with self._transaction():
            a, b = self._doc(doc_a), self._doc(doc_b)
            if a.cluster_id == b.cluster_id:
                return self._split(b, b.cluster_id, who, note, kind="not_same", other=a.id)
            c = _insert(self.store, "not_same", a.id, b.id, None, None, who, _time.time(), note)
            self.engine.constraints.add(c)
            return c

    def merge(self, into_story: int, from_story: int, *, who: str, note: str | None = None) -> Correction:
        """Move every member of ``from_story`` into ``into_story`` (must-link), unless an editor
        marked a pair across them "not the same" (cannot-link)."""
        if into_story == from_story:
            raise CorrectionError(f"story {into_story} cannot be merged into itself")
        store = self.store
        with self._transaction():
            into, src = store.get_cluster(into_story), store.get_cluster(from_story)
            for sid, row in ((into_story, into), (from_story, src)):
                if row is None:
                    raise CorrectionError(f"story {sid} does not exist")
            into_docs, src_docs = self._story_docs(into_story), self._story_docs(from_story)
            if not src_docs:
                raise CorrectionError(f"story {from_story} has no members left to merge")
            if not into_docs:
                raise CorrectionError(f"story {into_story} has no members left to merge into")
            veto = self.engine.constraints.cannot_link(into_docs, src_docs)
            if veto is not None:
                raise CorrectionError(f"documents {veto.doc_a} and {veto.doc_b} were marked not the same by "
                                      f"{veto.who} at {iso(veto.at)} (correction {veto.id}): split them first "
                                      f"or leave the stories apart")
            now = _time.time()
            why = f"editor {who} merged story {from_story} into story {into_story}"
            previous = {m.document_id: m for m in store.members_of(from_story)}
            for doc_id in src_docs:
                store.set_membership(doc_id, into_story, now, "editor", None, into.representative_id,
                                     self._decision(why, previous.get(doc_id), into.representative_id))
            # The merged story keeps its row (and its history) with no members; the event says where they went.
            store.set_representative(from_story, src.representative_id, src.representative_id,
                                     f"{why}: members moved", now)
            c = _insert(store, "merge", into.representative_id, src.representative_id, from_story, into_story,
                        who, now, note)
            self._apply(src_docs)
            self._fix_vectors([from_story])
            self.engine.constraints.add(c)
            return c


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
            self.engine._catch_up()
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


# labelled pairs for calibration ------------------------------------------------------------------------
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
    ``{"id", "a": {"text", "lang"}, "b": {...}, "label", "kind", "meta"}``; a pair whose document
    has no text left is skipped. The latest correction of a pair wins (an editor may change their mind)."""
    latest: dict[frozenset[int], Correction] = {}
    for c in list_corrections(store):
        latest[frozenset((c.doc_a, c.doc_b))] = c
    for c in sorted(latest.values(), key=lambda x: x.id):
        a, b = _side(store, c.doc_a), _side(store, c.doc_b)
        if a is None or b is None:
            continue
        yield {"id": f"editor/{c.kind}/{c.id}", "a": a, "b": b, "label": c.label, "kind": f"editor_{c.kind}",
               "meta": {"correction": c.id, "who": c.who, "at": iso(c.at), "documents": [c.doc_a, c.doc_b],
                        "stories": [c.story_from, c.story_to], "note": c.note}}
