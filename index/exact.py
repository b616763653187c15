"""Exact-hash candidate finder (seed 001's first net): a map from hash to documents.

It never merges wrongly by itself: two items share a key only when their normalised text is
identical; whether identical titles over different bodies are the same story is the guards'
call.
"""

from __future__ import annotations

from collections.abc import Iterable


class ExactIndex:
    """Hash keys to document ids; a document may be filed under several keys.

    The index does not remember which keys a document was filed under: the caller passes them
    again to ``remove`` (the candidate state has them in the document's features). Remembering
    them cost a tuple and a dict entry per document, about 110 bytes.

    >>> idx = ExactIndex()
    >>> idx.add(1, [10, 20]); idx.add(2, [20])
    >>> idx.lookup(20)
    [1, 2]
    >>> idx.remove(1, [10, 20]); idx.lookup(20), idx.lookup(10)
    ([2], [])
    """

    def __init__(self) -> None:
        # Most keys belong to one document: the id is stored bare, and becomes a list only when
        # a second document shares the key (a list per key was 200 bytes per document).
        self._docs: dict[int, int | list[int]] = {}

    def add(self, doc_id: int, keys: Iterable[int]) -> None:
        """File ``doc_id`` under each key (once, however often it is added)."""
        for key in keys:
            cur = self._docs.get(key)
            if cur is None:
                self._docs[key] = doc_id
            elif isinstance(cur, list):
                if doc_id not in cur:
                    cur.append(doc_id)
            elif cur != doc_id:
                self._docs[key] = [cur, doc_id]

    def remove(self, doc_id: int, keys: Iterable[int]) -> None:
        """Take ``doc_id`` out from under ``keys`` (the keys it was added with)."""
        for key in keys:
            cur = self._docs.get(key)
            if cur is None:
                continue
            if isinstance(cur, list):
                if doc_id in cur:
                    cur.remove(doc_id)
                if len(cur) == 1:
                    self._docs[key] = cur[0]
                elif not cur:
                    del self._docs[key]
            elif cur == doc_id:
                del self._docs[key]

    def lookup(self, key: int) -> list[int]:
        cur = self._docs.get(key)
        if cur is None:
            return []
        return list(cur) if isinstance(cur, list) else [cur]

    def __len__(self) -> int:
        """Number of distinct keys filed."""
        return len(self._docs)
