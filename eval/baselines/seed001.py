"""Seed 001: normalise, MD5 exact match, then datasketch MinHashLSH at 0.85 (128 permutations).

Faithful to the write-up (``shared/seeds/001_*.txt``)::

    normalize: lower() -> re.sub(r"[^\\w\\s]", "", t) -> re.sub(r"\\s+", " ", t).strip()
    exact:     md5(normalized) in seen_hashes
    near:      MinHash of the normalised title's word set, lsh.query(minhash) non-empty

Only items that were *not* found to be duplicates are inserted (the seed returns before it
inserts), so a stream is compared with its first-seen representatives. Note the seed's own
trade-off: "+0.25%" normalises to "025".

Pair verdict: a fresh state holding ``a``, then ``b`` is checked. One shared LSH is used with
one key per pair and the verdict is "is this pair's ``a`` among ``b``'s LSH candidates": the
candidate test of MinHashLSH depends only on the two signatures, so this equals a fresh LSH per
pair, without building thousands of indexes. The score for ranking is the MinHash Jaccard
estimate (1.0 for an MD5 match).

>>> b = Seed001()
>>> [v.same for v in b.pair_verdicts([(Side("Fed raises rates!", "en"), Side("FED RAISES RATES", "en")),
...                                   (Side("Fed raises rates", "en"), Side("연준 금리 인상", "ko"))])]
[True, False]
>>> b.cluster([Side("A b c", "en"), Side("x y z", "en"), Side("a B c.", "en")])
[0, 1, 0]
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from datasketch import MinHash, MinHashLSH
from tqdm import tqdm

from eval.baselines.base import Verdict
from eval.data import Side

SIMILARITY_THRESHOLD = 0.85
NUM_PERM = 128


def normalize(text: str) -> str:
    """The seed's normalisation, verbatim.

    >>> normalize("Fed: Rate +0.25%!")
    'fed rate 025'
    """
    text = text.lower()
    text = re.sub(r"[^\w\s]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def minhash(normalized: str) -> MinHash:
    """MinHash of the word set (the write-up: 'the title as a set of words')."""
    m = MinHash(num_perm=NUM_PERM)
    for word in set(normalized.split()):
        m.update(word.encode("utf-8"))
    return m


def content_hash(normalized: str) -> str:
    return hashlib.md5(normalized.encode("utf-8")).hexdigest()


class Seed001:
    """MD5 exact + MinHashLSH(threshold=0.85, num_perm=128) over word shingles."""

    name = "seed 001 (MD5 + MinHashLSH 0.85)"
    description = ("normalise (lower, strip [^\\w\\s], collapse spaces), MD5 exact, datasketch MinHashLSH "
                   "threshold 0.85 / 128 permutations over word sets; streaming")

    def pair_verdicts(self, pairs: Sequence[tuple[Side, Side]], progress: bool = False) -> list[Verdict]:
        lsh = MinHashLSH(threshold=SIMILARITY_THRESHOLD, num_perm=NUM_PERM)
        cache: dict[str, MinHash] = {}

        def sig(norm: str) -> MinHash:
            if norm not in cache:
                cache[norm] = minhash(norm)
            return cache[norm]

        norms = [(normalize(a.text), normalize(b.text)) for a, b in pairs]
        for i, (na, _nb) in enumerate(norms):
            lsh.insert(str(i), sig(na))
        out: list[Verdict] = []
        for i, (na, nb) in enumerate(tqdm(norms, desc="seed 001", disable=not progress, leave=False)):
            if content_hash(na) == content_hash(nb):
                out.append(Verdict(True, 1.0))
                continue
            mb = sig(nb)
            out.append(Verdict(str(i) in lsh.query(mb), float(sig(na).jaccard(mb))))
        return out

    def cluster(self, items: Sequence[Side], progress: bool = False) -> list[int]:
        lsh = MinHashLSH(threshold=SIMILARITY_THRESHOLD, num_perm=NUM_PERM)
        seen: dict[str, int] = {}
        labels: list[int] = []
        for i, item in enumerate(tqdm(items, desc="seed 001", disable=not progress, leave=False)):
            norm = normalize(item.text)
            h = content_hash(norm)
            if h in seen:
                labels.append(labels[seen[h]])
                continue
            m = minhash(norm)
            similar = lsh.query(m)
            if similar:
                # The seed takes similar[0]; LSH returns a set, so we take the earliest
                # representative to make runs reproducible.
                labels.append(labels[min(int(k) for k in similar)])
                continue
            seen[h] = i
            lsh.insert(str(i), m)
            labels.append(i)
        return labels
