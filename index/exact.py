"""Exact-hash candidate finder (seed 001's first net): a map from hash to documents.

It never merges wrongly by itself: two items share a key only when their normalised text is
identical; whether identical titles over different bodies are the same story is the guards'
call.
"""

from __future__ import annotations

from collections import defaultdict


class ExactIndex:
    """Hash keys to document ids; a document may be filed under several keys.

    >>> idx = ExactIndex()
    >>> idx.add(1, [10, 20]); idx.add(2, [20])
    >>> idx.lookup(20)
    [1, 2]
    >>> idx.remove(1); idx.lookup(20)
    [2]
    """

    def __init__(self) -> None:
        self._docs: dict[int, list[int]] = defaultdict(list)
        self._keys: dict[int, tuple[int, ...]] = {}

    def add(self, doc_id: int, keys: list[int] | tuple[int, ...]) -> None:
        self.remove(doc_id)
        uniq = tuple(dict.fromkeys(keys))
        self._keys[doc_id] = uniq
        for key in uniq:
            self._docs[key].append(doc_id)

    def remove(self, doc_id: int) -> None:
        for key in self._keys.pop(doc_id, ()):
            ids = self._docs.get(key)
            if ids is None:
                continue
            if doc_id in ids:
                ids.remove(doc_id)
            if not ids:
                del self._docs[key]

    def lookup(self, key: int) -> list[int]:
        return list(self._docs.get(key, ()))

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, doc_id: int) -> bool:
        return doc_id in self._keys
