"""In-memory candidate state: what the cascade searches. Rebuilt from the store at start-up.

The cheap indices (n-gram buckets, MinHash LSH) hold each cluster's *anchor* only: the member
it was founded on (its first arrival; once settled, its earliest report:
``service.restart.anchor_of``). Every similarity is measured against the anchor, which never
moves to a newer member, so items never chain (A ~ B and B ~ C do not put C with A unless
C ~ A; issue 17). The *displayed* representative (seed 000's rules: original outlet over
syndicator, direct over redirect, newest) is the store's ``clusters.representative_id`` and is
kept apart from what is compared. ``reps`` maps cluster id -> anchor document id.
The exact-hash index holds every member: an identical text relates to the cluster exactly as
the member it copies. The vector index holds one vector per cluster, keyed by cluster id: the
anchor's when it was embedded, else the first member's that was.

The live documents themselves are kept column-wise in a :class:`~service.doctable.DocTable`
(``entries``), and every index here stores packed arrays rather than a Python object per
document: ~1.4 KB per document with vectors at 100k (bench/RESULTS.md, column-wise state).
"""

from __future__ import annotations

import numpy as np

from index.exact import ExactIndex
from index.idmap import IdDict
from index.minhash import MinHashIndex
from index.ngram import GatedNgramIndex
from service.config import EngineConfig
from service.doctable import DocTable, Entry


class CandidateState:
    def __init__(self, config: EngineConfig, dim: int | None) -> None:
        self.config = config
        self.entries = DocTable()
        self.reps = IdDict()  # cluster id -> anchor doc id (the member founded on; what is compared)
        self.exact = ExactIndex()
        self.ngram = GatedNgramIndex()
        # The MinHash pass verifies its hits with the documents' own gram arrays, read from the
        # table when needed instead of being held a second time.
        self.minhash = MinHashIndex(threshold=config.copy.minhash_lsh_threshold, num_perm=config.copy.minhash_num_perm,
                                    grams_of=lambda doc: self.entries.grams_of(doc))
        self.vectors = None
        if dim is not None:
            from index.vectors import VectorIndex

            self.vectors = VectorIndex(dim, exact_until=config.copy.exact_until)

    def __len__(self) -> int:
        return len(self.entries)

    def put(self, entry: Entry) -> None:
        """Add or refresh a live document (not as anchor; see ``set_rep``)."""
        doc, table = entry.doc_id, self.entries
        old = (table.exact_keys_of(doc), table.cluster_of(doc)) if doc in table else None
        table[doc] = entry
        if old is not None:
            self.exact.remove(doc, old[0])
        self.exact.add(doc, exact_keys(entry))
        if old is not None and self.reps.get(old[1]) == doc:
            if old[1] != entry.cluster_id:
                self.reps.pop(old[1], None)
                self._unindex_rep(doc)
            else:
                self._index_rep(doc)

    def add_loaded(self, entries: list[Entry], is_rep: list[bool]) -> None:
        """Warm-up: ``put`` each entry, then ``set_rep`` where ``is_rep``, in batches.

        The same state as one call at a time (a test checks it), for documents not yet in the
        state; any other batch falls back to one at a time.
        """
        table = self.entries
        if len({e.doc_id for e in entries}) != len(entries) or any(e.doc_id in table for e in entries):
            for e, rep in zip(entries, is_rep, strict=True):
                self.put(e)
                if rep:
                    self.set_rep(e.cluster_id, e.doc_id)
            return
        table.extend(entries)
        for e in entries:
            self.exact.add(e.doc_id, exact_keys(e))
        reps = [e for e, rep in zip(entries, is_rep, strict=True) if rep]
        for e in reps:
            old = self.reps.get(e.cluster_id)
            if old is not None and old != e.doc_id:
                self._unindex_rep(old)
            self.reps[e.cluster_id] = e.doc_id
        self.ngram.add_many([(e.doc_id, e.features.lead, e.features.grams, e.features.time) for e in reps])
        for e in reps:
            self.minhash.add(e.doc_id, e.features.grams, e.features.time)

    def set_rep(self, cluster_id: int, doc_id: int) -> None:
        old = self.reps.get(cluster_id)
        if old is not None and old != doc_id:
            self._unindex_rep(old)
        self.reps[cluster_id] = doc_id
        self._index_rep(doc_id)

    def set_cluster_vector(self, cluster_id: int, doc_id: int, vector: np.ndarray) -> None:
        if self.vectors is None:
            return
        rep_doc = self.reps.get(cluster_id)
        t = self.entries.time_of(rep_doc if rep_doc is not None and rep_doc in self.entries else doc_id)
        self.vectors.add(np.array([cluster_id], dtype=np.int64), vector.reshape(1, -1).astype(np.float32),
                         np.array([t], dtype=np.float64))

    def has_cluster_vector(self, cluster_id: int) -> bool:
        return self.vectors is not None and cluster_id in self.vectors

    def _index_rep(self, doc_id: int) -> None:
        table = self.entries
        grams, time = table.grams_of(doc_id), table.time_of(doc_id)
        self.ngram.add(doc_id, table.lead_of(doc_id), grams, time)
        self.minhash.add(doc_id, grams, time)

    def _unindex_rep(self, doc_id: int) -> None:
        self.ngram.remove(doc_id)
        self.minhash.remove(doc_id)

    def remove(self, doc_id: int) -> None:
        e = self.entries.pop(doc_id, None)
        self._unindex_rep(doc_id)
        if e is None:
            return
        self.exact.remove(doc_id, exact_keys(e))
        if self.reps.get(e.cluster_id) == doc_id:
            del self.reps[e.cluster_id]
            # The earliest remaining live member becomes the anchor, so the cluster stays findable
            # (as ``service.restart.anchor_of`` reads it back: the founder is gone).
            members = self.entries.docs_of_cluster(e.cluster_id)
            if members:
                self.set_rep(e.cluster_id, min(members))
            elif self.vectors is not None:
                self.vectors.remove([e.cluster_id])

    def retain(self, keep: set[int]) -> int:
        """Forget every document not in ``keep`` (from memory only), as if it had never been loaded.

        A cluster whose representative goes is left without one, as a rebuild that did not
        read the representative would leave it: no member is promoted.
        """
        gone = [d for d in self.entries if d not in keep]
        for d in gone:
            self._forget(d)
        return len(gone)

    def expire(self, before: float) -> int:
        """Drop documents (and their clusters' index entries) older than ``before`` from memory only."""
        table = self.entries

        def rep_time(doc: int) -> float:
            rep = self.reps.get(table.cluster_of(doc), doc)
            return table.time_of(rep if rep is not None and rep in table else doc)

        old = [d for d in table.docs_before(before) if rep_time(d) < before]
        for d in old:
            e, was_rep = self._forget(d)
            if was_rep and self.vectors is not None:
                self.vectors.remove([e.cluster_id])
        return len(old)

    def forget(self, doc_id: int) -> None:
        """Take a document out of memory and every index but the vectors, promoting no other
        member (it is about to be loaded again as the store now has it); absent: no-op."""
        if doc_id in self.entries:
            self._forget(doc_id)

    def _forget(self, doc_id: int) -> tuple[Entry, bool]:
        """Take a document out of memory and every cheap index, its cluster's representative slot
        included (no member is promoted); returns its entry and whether it was the representative."""
        e = self.entries.pop(doc_id)
        self.exact.remove(doc_id, exact_keys(e))
        self._unindex_rep(doc_id)
        was_rep = self.reps.get(e.cluster_id) == doc_id
        if was_rep:
            del self.reps[e.cluster_id]
        return e, was_rep


def exact_keys(e: Entry) -> tuple[int, int]:
    """The keys a document is filed under in the exact index: its whole text and its title."""
    return e.features.content_key, e.features.title_key
