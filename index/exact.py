"""Exact-hash candidate finder (seed 001's first net): a map from hash to documents.

It never merges wrongly by itself: two items share a key only when their normalised text is
identical; whether identical titles over different bodies are the same story is the guards'
call.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

import numpy as np

_EMPTY, _DEAD = -1, -2  # cell states in the value array (document ids are >= 0)
_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1
# Cells in use (live + dead) stay under this share of the table: linear probing then needs
# ~1.5 probes per hit and ~2.5 per miss.
_MAX_FILL = 0.5


class ExactIndex:
    """Hash keys to document ids; a document may be filed under several keys.

    An open-addressing multimap over two flat ``array('q')`` columns (key, document): 16
    bytes a cell, 32-64 bytes per filed key. As a ``dict`` of int objects it measured ~170
    bytes per document (two keys each) on the 100k benchmark store. The index does not
    remember which keys a document was filed under: the caller passes them again to
    ``remove`` (the candidate state has them in the document's columns).

    >>> idx = ExactIndex()
    >>> idx.add(1, [10, 20]); idx.add(2, [20]); idx.add(2, [20])
    >>> sorted(idx.lookup(20)), len(idx)
    ([1, 2], 3)
    >>> idx.remove(1, [10, 20]); idx.lookup(20), idx.lookup(10)
    ([2], [])
    """

    def __init__(self, capacity: int = 64) -> None:
        self._alloc(max(16, 1 << int(np.ceil(np.log2(max(1, capacity) / _MAX_FILL)))))

    def _alloc(self, cells: int) -> None:
        self._bits = cells.bit_length() - 1
        self._mask = cells - 1
        self._keys = array("q", bytes(8 * cells))
        self._docs = array("q", [_EMPTY]) * cells
        self._live = 0
        self._dead = 0

    def __len__(self) -> int:
        """Number of (key, document) pairs filed."""
        return self._live

    @property
    def nbytes(self) -> int:
        return 16 * len(self._docs)

    def _home(self, key: int) -> int:
        return ((key * _GOLDEN) & _MASK64) >> (64 - self._bits)

    def add(self, doc_id: int, keys: Iterable[int]) -> None:
        """File ``doc_id`` under each key (once, however often it is added)."""
        if doc_id < 0:
            raise ValueError(f"document ids must be >= 0, got {doc_id}")
        for key in keys:
            self._add(key, doc_id)

    def _add(self, key: int, doc_id: int) -> None:
        keys, docs, mask = self._keys, self._docs, self._mask
        p = self._home(key)
        free = -1
        while (d := docs[p]) != _EMPTY:
            if d == _DEAD:
                if free < 0:
                    free = p
            elif d == doc_id and keys[p] == key:
                return
            p = (p + 1) & mask
        if free < 0:
            free = p
            if self._live + self._dead + 1 > _MAX_FILL * len(docs):
                self._rehash(self._live + 1)
                self._add(key, doc_id)
                return
        else:
            self._dead -= 1
        keys[free], docs[free] = key, doc_id
        self._live += 1

    def remove(self, doc_id: int, keys: Iterable[int]) -> None:
        """Take ``doc_id`` out from under ``keys`` (the keys it was added with)."""
        kk, docs, mask = self._keys, self._docs, self._mask
        for key in keys:
            p = self._home(key)
            while (d := docs[p]) != _EMPTY:
                if d == doc_id and kk[p] == key:
                    docs[p] = _DEAD
                    self._live -= 1
                    self._dead += 1
                    break
                p = (p + 1) & mask
        if self._dead > self._live and self._dead > 1024:
            self._rehash(self._live)

    def lookup(self, key: int) -> list[int]:
        keys, docs, mask = self._keys, self._docs, self._mask
        out = []
        p = self._home(key)
        while (d := docs[p]) != _EMPTY:
            if d >= 0 and keys[p] == key:
                out.append(d)
            p = (p + 1) & mask
        return out

    def _rehash(self, live: int) -> None:
        """Re-place the live pairs in a table sized for ``live`` (drops dead cells)."""
        docs = np.frombuffer(self._docs, dtype=np.int64)
        keep = docs >= 0
        old_keys = np.frombuffer(self._keys, dtype=np.int64)[keep].tolist()
        old_docs = docs[keep].tolist()
        cells = 16
        while cells * _MAX_FILL < 2 * max(live, 1):  # room to double before the next rehash
            cells *= 2
        self._alloc(cells)
        for key, doc in zip(old_keys, old_docs, strict=True):
            self._add(key, doc)
