"""The copy level of the engine: for each ingested item, whether it copies a report already seen
(join that copy group) or starts a copy group, through the cascade and the guards (``place``,
which writes nothing: ``service.placement``), and the rows that decision brings, written by the
``service.recorder.Recorder`` (document, version, membership, representative, observation).

A document seen again under the same channel and canonical URL is a re-observation or a new
version (``known_document``); a merge the cascade proposes is confirmed on the bodies
(``body_confirm``); an identical copy of two groups an editor told apart joins neither
(``disputed_twins``). The group's story is the story level's to decide (``service.story_level``).
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from index.features import ItemFeatures
from index.urls import InvalidUrlError
from service.cascade import Confirm
from service.config import DAY
from service.context import EngineContext
from service.placement import CopyPlacement, enter_copy, place_copy
from service.recorder import Recorder
from service.representative import Candidate, better
from service.stages import exact_match_words
from service.state import Entry
from service.store.base import DocumentRow
from service.story_level import StoryLevel
from service.types import Article, ArticleError, Decision, IngestResult, Status

# Bodies compared per ingested item (``CopyLevel.body_confirm``): each costs a passage comparison,
# and a cross-lingual one the encoder for both bodies' sentences. With it, NTREX dev's copy groups
# are the same in file order and shuffles 1-3 (docs/stories.md, "Copy decisions that do not hang
# on arrival order"). A candidate past the cap is refused unchecked, so raising it can only add
# merges and lowering it to 1 brings back the arrival-order dependence (the first candidate's
# veto ends the walk).
MAX_BODY_CHECKS = 3
# Items between two expiries (``CopyLevel.expire``): memory is swept, not trimmed at every chunk.
EXPIRE_EVERY = 5_000


class CopyLevel:
    """Decides and records each ingested item's copy group; ``story`` places the groups in stories.

    ``rebuild`` rebuilds the engine's memory from the store after a transaction rolled back
    (``Deduper.warm_up``).
    """

    def __init__(self, ctx: EngineContext, story: StoryLevel, recorder: Recorder,
                 rebuild: Callable[[], object]) -> None:
        self.ctx = ctx
        self.story = story
        self.recorder = recorder  # the store writes of what is placed (service.recorder)
        self.rebuild = rebuild
        self.max_time = 0.0  # the newest item's time seen: what expiry counts back from
        # The earliest time of the items the running ``ingest_many`` call has still to decide
        # (``Deduper._ingest`` sets it; inf between calls): expiry never counts back from later
        # than that, so an archive out of publication order keeps what its later records can match.
        self.earliest_to_come = float("inf")
        self.since_expiry = 0

    def doc_key(self, a: Article) -> str | None:
        """The document key: canonical URL, else ``id:<caller id>``, else None. Raises ArticleError."""
        if a.url:
            try:
                return self.ctx.url_rules.canonicalize(a.url)
            except InvalidUrlError as exc:
                raise ArticleError(f"invalid url: {exc}") from exc
        return f"id:{a.id}" if a.id else None

    def ingest_chunk(self, chunk: list[tuple[Article, str | None]]) -> list[IngestResult]:
        """Ingest ``chunk`` (articles with their document keys) in one transaction."""
        now = _time.time()
        feats = [ItemFeatures.build(a.title, a.body, a.lang or "und",
                                    a.published_at.timestamp() if a.published_at else now, source=a.source, url=a.url)
                 for a, _ in chunk]
        # The vectors the cheap stages will not spare; with the encoder in its own process they
        # arrive while the chunk's earlier items are decided (service.ahead).
        prefetched = self.ctx.encode_ahead(feats)
        results = []
        try:
            with self.ctx.store.transaction():
                self.ctx.catch_up()
                # Other workers' corrections and withdrawals before the first copy decision, not
                # only at the story placement after it: ``disputed_twins`` reads the cannot-links
                # (the twelfth tour: a split on one server, an identical copy joined one side on the other).
                self.story.sync_corrections()
                for (article, key), f in zip(chunk, feats, strict=True):
                    results.append(self.ingest_one(article, key, f, now, prefetched))
                last = self.ctx.store.max_change()
            self.ctx.restart.advance(last)
        except BaseException:
            # The transaction rolled back; the in-memory state may hold its writes. Rebuild it.
            self.rebuild()
            raise
        self.max_time = max([self.max_time, *(f.time for f in feats)])
        self.since_expiry += len(chunk)
        if self.since_expiry >= EXPIRE_EVERY:
            self.since_expiry = 0
            self.expire()
        self.ctx.restart.checkpoint_if_due()
        for r in results:
            self.ctx.counters[f"status_{r.status}"] += 1
            self.ctx.counters[f"stage_{r.decision.stage}"] += 1
            for g in r.decision.blocked_by:
                self.ctx.counters[f"veto_{g}"] += 1
        return results

    def expire(self) -> int:
        """Drop from memory what no new item can be compared with any more (the store keeps it).

        Twice the candidate window behind the newest item seen, so an item published a little
        late still finds the copies it may have; and never behind the earliest item the running
        ``ingest_many`` call has still to decide (an archive in outlet order, 2024 after 2025:
        95 of 100 exact copies were new once the older half had been forgotten, the eleventh tour).
        """
        newest = min(self.max_time, self.earliest_to_come)
        horizon = newest - 2 * self.ctx.config.copy.window_days * DAY
        dropped = self.ctx.state.expire(horizon) if horizon > 0 else 0
        if dropped and self.ctx.state.vectors is not None:
            self.ctx.state.vectors.expire(horizon)
        self.ctx.counters["expired_documents"] += dropped
        self.story.expire(newest)
        return dropped

    def ingest_one(self, article: Article, key: str | None, f: ItemFeatures, now: float,
                   prefetched: Mapping[str, np.ndarray]) -> IngestResult:
        store, state = self.ctx.store, self.ctx.state
        chash = f.content_sha
        published = article.published_at.timestamp() if article.published_at else None
        if key is not None:
            doc = store.find_document(article.channel, key)
            if doc is not None and doc.deleted:
                # A deleted document is gone from every answer: its URL sent again is a new
                # document, as if never seen (its rows stay for provenance, without the key).
                store.release_document_key(doc.id)
            elif doc is not None:
                return self.known_document(article, doc, f, chash, now)
        # Ingest is place, place, record: the copy decision, the story decision, and the rows.
        p = self.place(article, f, prefetched)
        rec = self.recorder
        doc_id, version_id = rec.document(article, key, chash, published, now)
        decision, vector = p.decision, p.vector
        rec.vector(version_id, vector)
        status: Status
        duplicate_of: int | None
        if p.group is not None:
            # Joined through the cluster's anchor (or an exact copy of a member): the evidence
            # compared never moves. The displayed representative follows seed 000's rules apart.
            cluster_id = p.group
            rec.membership(doc_id, cluster_id, p, now)
            enter_copy(state, p, doc_id=doc_id, version_id=version_id, features=f, url=article.url,
                       source=article.source, new_group=lambda: cluster_id, vector=vector)
            status = "duplicate"
            cluster = store.get_cluster(cluster_id)
            matched = p.matched if p.matched is not None else doc_id  # the cascade always names it
            rep = cluster.representative_id if cluster is not None else matched
            duplicate_of = rep
            cur = self.ctx.rep_candidate(rep)
            if cur is not None:
                why = better(Candidate(doc_id, article.url, article.source, f.time), cur, self.ctx.url_rules)
                if why is not None:
                    rec.representative(cluster_id, rep, doc_id, why, now)
                    rep = doc_id
            story = self.story.join(cluster_id, cluster, article, f, vector, version_id)
        else:
            cluster_id = enter_copy(state, p, doc_id=doc_id, version_id=version_id, features=f, url=article.url,
                                    source=article.source, new_group=lambda: rec.new_group(doc_id, now),
                                    vector=vector)
            rec.membership(doc_id, cluster_id, p, now)
            rep, status, duplicate_of = doc_id, "new", None
            story = self.story.place(cluster_id, self.story.evidence(article, f, vector, version_id), apart=p.apart)
        story_id = self.story.apply(story, now)
        rec.change(doc_id, now)
        obs = rec.observation(article, doc_id, version_id, status, decision, now)
        return IngestResult(obs, doc_id, version_id, cluster_id, rep, status, duplicate_of, decision,
                            id=article.id, story_id=story_id, matched_copy=p.matched)

    def place(self, article: Article, f: ItemFeatures, prefetched: Mapping[str, np.ndarray]) -> CopyPlacement:
        """The copy decision for a new document (``service.placement.place_copy``): the copy group
        the cascade matches it to through the guards (and, with ``body_passages``, its body), or a
        group of its own; editors' cannot-links overrule it (``disputed_twins``). Decides and writes
        nothing; its vector, when the decision embedded it, comes with the placement."""

        def vector_of() -> np.ndarray | None:
            if self.ctx.embedder is None:
                return None
            text = self.ctx.embed_text(f)
            return prefetched[text] if text in prefetched else self.ctx.encode([text])[0]

        window = (f.time - self.ctx.config.copy.window_days * DAY, f.time + self.ctx.config.copy.window_days * DAY)
        confirm = self.body_confirm(article.body, article.lang) if self.ctx.config.copy.body_passages else None
        p = place_copy(self.ctx.cascade, self.ctx.state, f, vector_of, window, confirm=confirm)
        return self.disputed_twins(f, p) if self.ctx.constraints.cannot else p

    def body_confirm(self, body: str | None, lang: str | None) -> Confirm | None:
        """``EngineConfig.copy.body_passages``: a merge the cascade proposes stands when the new body is
        a passage copy of the candidate document's body, and is vetoed (``blocked_by`` "body")
        when it is not, and the cascade goes on to its next candidate; a candidate stands
        unchecked when either side has no body of two or more sentences (nothing to compare as a
        passage). None when the item's ``body`` has no such body.

        The walk goes on after a veto so that the decision does not hang on arrival order: a
        Korean article whose English source is in the state is first compared with the
        best-scoring candidate, which can be another outlet's Korean article on the same event
        (its headline closer in words), and used to end there as a new group whenever that other
        article had come in first (NTREX dev, ``rt.com.91337``: joined its source in file order,
        alone in shuffle 1). At most ``MAX_BODY_CHECKS`` bodies are compared per item; a
        candidate past that is refused unchecked (over-splitting, never over-merging).
        """
        from index.passages import split_sentences

        body = (body or "").strip()
        if len(split_sentences(body)) < 2:
            return None
        checked = 0

        def confirm(doc_id: int) -> tuple[bool, str | None]:
            nonlocal checked
            # Every version is matched, the latest first: a mirror that republishes a document's
            # first version after the publisher corrected it copies that version, not the
            # latest (seed 002; issue 36: the latest alone vetoed it for one word, '절반으로').
            versions = self.ctx.store.versions_of(doc_id)
            bodies = list(dict.fromkeys((v.body, v.lang) for v in reversed(versions)
                                        if len(split_sentences(v.body or "")) >= 2))
            if not bodies:
                return True, None
            if checked >= MAX_BODY_CHECKS:
                return False, f"body veto: document {doc_id}'s body not compared ({MAX_BODY_CHECKS} bodies " \
                              f"compared already)"
            checked += 1
            whys = []
            for n, (other_body, other_lang) in enumerate(bodies):
                v = self.ctx.passages.dedupe([{"text": other_body, "lang": other_lang if other_lang != "und" else None},
                                              {"text": body, "lang": lang if lang != "und" else None}]).verdicts[1]
                why = v.reasons[0] if v.reasons else ""
                if v.duplicate_of == 0:
                    which = "body" if n == 0 else f"earlier version's body ({n} correction(s) before the latest)"
                    return True, f"body: a passage copy of document {doc_id}'s {which} ({why})"
                whys.append(why)
            every = "'s body" if len(bodies) == 1 else f"'s {len(bodies)} versions' bodies"
            return False, f"body veto: not a passage copy of document {doc_id}{every} ({'; '.join(whys)})"

        return confirm

    def disputed_twins(self, f: ItemFeatures, p: CopyPlacement) -> CopyPlacement:
        """``p``, unless a new item must stay out of the copy group the cascade chose
        (``disputed_twins`` below, on the live state and the stored memberships)."""
        return disputed_twins(f, p, self.ctx.state, self.ctx.constraints,
                              lambda g: [m.document_id for m in self.ctx.store.members_of(g)])

    def known_document(self, article: Article, doc: DocumentRow, f: ItemFeatures, chash: str,
                       now: float) -> IngestResult:
        """Same (channel, canonical URL): a re-observation, or a new version of the same document."""
        store = self.ctx.store
        ver = store.find_version(doc.id, chash)
        assert doc.cluster_id is not None
        cluster = store.get_cluster(doc.cluster_id)
        rep = cluster.representative_id if cluster else doc.id
        # The document's copy group keeps its story: a re-observation or a new version says which.
        story_id = cluster.story_id if cluster else None
        if ver is not None:
            decision = Decision(True, "url", 1.0, [f"url: same channel '{doc.channel}' and canonical URL, same content"
                                                   f" as version {ver.id}: re-observation"], matched_id=doc.id)
            obs = self.recorder.observation(article, doc.id, ver.id, "reobserved", decision, now)
            return IngestResult(obs, doc.id, ver.id, doc.cluster_id, rep, "reobserved", None, decision, id=article.id,
                                story_id=story_id)
        version_id = self.recorder.version(doc.id, article, chash, now)
        n = len(store.versions_of(doc.id))
        decision = Decision(True, "url", 1.0, [f"url: same channel '{doc.channel}' and canonical URL, changed content:"
                                               f" version {n} of document {doc.id}"], matched_id=doc.id)
        old = self.ctx.state.entries.get(doc.id)
        if old is not None:
            entry = Entry(doc.id, version_id, doc.cluster_id, f, old.url, old.source)
            self.ctx.state.put(entry)
            model = self.ctx.model_name  # set exactly when there is an embedder
            if self.ctx.state.reps.get(doc.cluster_id) == doc.id and model is not None:
                vec = self.ctx.encode([self.ctx.embed_text(f)])[0]
                self.recorder.vector(version_id, vec)
                self.ctx.state.set_cluster_vector(doc.cluster_id, doc.id, vec)
        self.recorder.change(doc.id, now)
        obs = self.recorder.observation(article, doc.id, version_id, "new_version", decision, now)
        return IngestResult(obs, doc.id, version_id, doc.cluster_id, rep, "new_version", None, decision, id=article.id,
                            story_id=story_id)


def disputed_twins(f: ItemFeatures, p: CopyPlacement, state: Any, constraints: Any,
                   docs_of: Callable[[int], list[int]], name: Callable[[int], str] = str) -> CopyPlacement:
    """``p``, unless a new item must stay out of the copy group the cascade chose: it is an
    identical copy of members of two copy groups an editor told apart (a split or "not the
    same" between them), so joining either would take a side the editor's cannot-link does not
    tell. It then joins an undisputed group of its identical copies (an earlier such item's),
    else starts a group, and a story, of its own (``apart`` says why; over-splitting beats
    over-merging). ``state``: the candidate state the cascade chose from (the live one, or a
    settling's replay); ``docs_of``: a copy group's documents there; ``name``: a group as reasons
    name it (a settling's new groups have no store id yet)."""
    if p.group is None:
        return p
    entries = state.entries
    twins: dict[int, int] = {}  # copy group -> its earliest identical copy of the item
    for d in sorted(d for d in state.exact.lookup(f.content_key) if d in entries):
        twins.setdefault(entries.cluster_of(d), d)
    if p.group not in twins or len(twins) < 2:
        return p
    docs = {g: docs_of(g) for g in twins}
    disputed: dict[int, tuple[int, int, Any]] = {}
    for g in twins:
        for h in twins:
            if g < h and (c := constraints.cannot_link(docs[g], docs[h])) is not None:
                disputed.setdefault(g, (g, h, c))
                disputed.setdefault(h, (g, h, c))
    if p.group not in disputed:
        return p
    g1, g2, c = disputed[p.group]
    why = (f"editor: identical to members of copy groups {name(g1)} and {name(g2)}, which {c.who} told apart "
           f"(correction {c.id}, {c.kind} of documents {c.doc_a} and {c.doc_b})")
    calm = [g for g in twins if g not in disputed]
    dec = p.decision
    if calm:
        g = min(calm)
        return CopyPlacement(g, Decision(True, "exact", 1.0,
                                         [f"exact: same normalised {exact_match_words(f, True)} as document {twins[g]}",
                                          f"{why}: joined copy group {name(g)} of its identical copies instead "
                                          f"(cannot-link)"], list(dec.blocked_by),
                                         matched_id=twins[g], scores={**dec.scores, "exact": 1.0}), twins[g], p.vector)
    apart = f"{why}: kept apart from both (cannot-link)"
    return CopyPlacement(None, Decision(False, dec.stage, dec.score, [*dec.reasons, apart], [*dec.blocked_by, "editor"],
                                        scores=dict(dec.scores), guards=list(dec.guards)), None, p.vector, apart)
