"""The candidate state's live documents, stored column by column.

One Python object per document (an ``Entry`` holding an ``ItemFeatures`` holding a title, a
lead sentence, a URL, a SHA-256 string, a gram array and five ints) cost about 1 KB per
document at 100k, more than every index together (``bench/RESULTS.md``, memory section).
``DocTable`` keeps the same facts in a few numpy columns and two append-only arenas (gram ids,
UTF-8 text), about 60 bytes per document plus the text and the grams themselves, and hands out
``Entry`` objects built on demand. The full content SHA-256 is not kept: only new items need
it (their version identity in the store); a stored document is matched by its 64-bit keys.

Rows are appended; removing or replacing a document leaves a dead row, and the table is
rebuilt without them (``compact``) once dead rows outnumber live ones, so a long-running
service's table follows its live count. Document ids map to rows through a
:class:`~index.idmap.DenseIdMap` (4 bytes per id in the live range, against ~100 for a dict).

>>> import numpy as np
>>> from index.features import ItemFeatures
>>> t = DocTable()
>>> t[7] = Entry(7, 70, 1, ItemFeatures.build("Fed raises rates", "Body.", "en", 5.0), "https://a.example/x", "AP")
>>> e = t[7]
>>> (e.features.title, e.features.body_lead_text, e.url, e.source, t.cluster_of(7), t.time_of(7))
('Fed raises rates', 'Body.', 'https://a.example/x', 'AP', 1, 5.0)
>>> del t[7]; 7 in t, len(t)
(False, 0)
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass

import numpy as np

from index.features import ItemFeatures
from index.growable import room, too_many_dead
from index.idmap import DenseIdMap


@dataclass(slots=True)
class Entry:
    """One live document as the cascade sees it. The state stores documents column-wise
    (:class:`~service.doctable.DocTable`) and builds an ``Entry`` when one is asked for, so
    changing a returned entry changes nothing: ``CandidateState.put`` it back. Defined here, with
    the table that stores it, and imported by ``service.state``: no import circle between the two."""

    doc_id: int
    version_id: int
    cluster_id: int
    features: ItemFeatures
    url: str | None
    source: str | None




_INT_COLUMNS = ("doc", "version", "cluster", "title_key", "content_key")
# Per-row offsets/lengths into the arenas, and the ids of interned strings (-1: None).
_I32_COLUMNS = ("lang", "lead", "source", "gram_len", "title_len", "lead_text_len", "url_len")
_I64_COLUMNS = ("gram_start", "text_start")
_ENC = ("utf-8", "surrogatepass")  # titles from the wild may hold lone surrogates
# Rows whose ``ItemFeatures`` are kept once built (the oldest built dropped first). A row never
# changes once appended, so a kept one is what building it again gives. On the 5,000-item bench
# stream with the verifier, the cascade asked 39,169 times for 2,798 documents (representatives
# and rescue hits, again for each item): 4,096 rows hold them all at ~1 KB each. Smaller: more
# rebuilt (slower, same answers); larger: more memory, no other change.
FEATURES_KEPT = 4096


class DocTable(MutableMapping[int, Entry]):
    """Live documents keyed by id, column-wise; ``table[doc]`` builds the document's ``Entry``.

    Besides the mapping interface it answers the hot questions without building an entry:
    ``time_of``, ``cluster_of``, ``grams_of``, ``features``, and ``docs_of_cluster``.
    """

    def __init__(self, capacity: int = 1024) -> None:
        capacity = max(16, int(capacity))
        self._n = 0  # rows used, live or dead
        self._live = 0
        self._cols: dict[str, np.ndarray] = {name: np.zeros(capacity, np.int64) for name in (*_INT_COLUMNS,
                                                                                               *_I64_COLUMNS)}
        self._cols.update({name: np.zeros(capacity, np.int32) for name in _I32_COLUMNS})
        self._cols["time"] = np.zeros(capacity, np.float64)
        self._alive = np.zeros(capacity, bool)
        self._grams = np.zeros(capacity * 16, np.uint32)
        self._gram_n = 0
        self._text = bytearray()
        self._row_of = DenseIdMap()
        # Interned strings (language codes, subject-gate keys, outlets): one copy each.
        self._names: list[str] = []
        self._name_ids: dict[str, int] = {}
        self._built: dict[int, ItemFeatures] = {}  # row -> its features (``FEATURES_KEPT``)

    # mapping interface ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._live

    def __iter__(self) -> Iterator[int]:
        n = self._n
        return iter(self._cols["doc"][:n][self._alive[:n]].tolist())

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, (int, np.integer)) and self._row(int(doc_id)) >= 0

    def __getitem__(self, doc_id: int) -> Entry:
        row = self._row_or_raise(doc_id)
        c = self._cols
        url_len = int(c["url_len"][row])
        return Entry(int(c["doc"][row]), int(c["version"][row]), int(c["cluster"][row]), self._features(row),
                     self._text_at(row, 2, url_len) if url_len >= 0 else None, self._name(int(c["source"][row])))

    def __setitem__(self, doc_id: int, entry: Entry) -> None:
        if entry.doc_id != doc_id:
            raise ValueError(f"entry is for document {entry.doc_id}, not {doc_id}")
        self._kill(doc_id)
        self._append(entry)

    def __delitem__(self, doc_id: int) -> None:
        if not self._kill(doc_id):
            raise KeyError(doc_id)
        if too_many_dead(self._n, self._live):
            self.compact()

    # fast accessors -----------------------------------------------------------------------------
    def time_of(self, doc_id: int) -> float:
        return float(self._cols["time"][self._row_or_raise(doc_id)])

    def cluster_of(self, doc_id: int) -> int:
        return int(self._cols["cluster"][self._row_or_raise(doc_id)])

    def has_lead_text(self, doc_id: int) -> bool:
        """Whether the document keeps a body lead (``ItemFeatures.body_lead_text`` is not empty),
        read off its column without building its features."""
        return int(self._cols["lead_text_len"][self._row_or_raise(doc_id)]) > 0

    def lead_of(self, doc_id: int) -> str:
        """The document's subject-gate key (its title's lead token)."""
        return self._names[int(self._cols["lead"][self._row_or_raise(doc_id)])]

    def exact_keys_of(self, doc_id: int) -> tuple[int, int]:
        """The keys the exact index files the document under (``state.exact_keys`` order)."""
        row, c = self._row_or_raise(doc_id), self._cols
        return int(c["content_key"][row]), int(c["title_key"][row])

    def get(self, doc_id: int, default: Entry | None = None) -> Entry | None:  # type: ignore[override]
        # Mapping.get would build the KeyError of a miss: a membership test is far cheaper.
        if doc_id not in self:
            return default
        return self[doc_id]

    def grams_of(self, doc_id: int) -> np.ndarray:
        """The document's gram ids: a read-only view into the arena (copy it to keep it)."""
        return self._grams_at(self._row_or_raise(doc_id))

    def features(self, doc_id: int) -> ItemFeatures:
        return self._features(self._row_or_raise(doc_id))

    def docs_of_cluster(self, cluster_id: int) -> list[int]:
        """Live documents filed in ``cluster_id`` (a vectorised scan: for rare events such as deletion)."""
        n = self._n
        return self._cols["doc"][:n][self._alive[:n] & (self._cols["cluster"][:n] == cluster_id)].tolist()

    def docs_before(self, before: float) -> list[int]:
        """Live documents whose time is earlier than ``before``."""
        n = self._n
        return self._cols["doc"][:n][self._alive[:n] & (self._cols["time"][:n] < before)].tolist()

    @property
    def names(self) -> list[str]:
        """The interned strings the ``lang``, ``lead`` and ``source`` columns index (do not modify)."""
        return self._names

    def nbytes(self) -> int:
        """Bytes held by the columns, arenas and id map (not counting the name table)."""
        return (sum(a.nbytes for a in self._cols.values()) + self._alive.nbytes + self._grams.nbytes
                + len(self._text) + self._row_of.nbytes)

    # columns in and out (state snapshot) ---------------------------------------------------------
    def export_columns(self) -> dict[str, np.ndarray]:
        """The live rows as flat arrays, compacted first (see ``from_columns``)."""
        self.compact()
        n = self._n
        out = {name: col[:n].copy() for name, col in self._cols.items()}
        out["grams"] = self._grams[: self._gram_n].copy()
        out["text"] = np.frombuffer(bytes(self._text), dtype=np.uint8)
        out["names"] = np.frombuffer("".join(self._names).encode(*_ENC), dtype=np.uint8)
        out["name_offsets"] = np.cumsum([0, *map(len, self._names)], dtype=np.int64)
        return out

    @classmethod
    def from_columns(cls, cols: Mapping[str, np.ndarray]) -> DocTable:
        """A table holding exactly what ``export_columns`` wrote; ``ValueError`` if it does not add up."""
        n = int(cols["doc"].size)
        table = cls(capacity=max(16, n))
        for name in table._cols:
            col = cols[name]
            if col.size != n:
                raise ValueError(f"column {name} has {col.size} rows, doc has {n}")
            table._cols[name][:n] = col
        grams, text = cols["grams"], cols["text"]
        c = table._cols
        if n and (int((c["gram_start"][:n] + c["gram_len"][:n]).max()) > grams.size
                  or int((c["text_start"][:n] + c["title_len"][:n] + c["lead_text_len"][:n]
                          + np.maximum(c["url_len"][:n], 0)).max()) > text.size):
            raise ValueError("row offsets run past the gram or text arena")
        table._grams = np.array(grams, dtype=np.uint32)
        table._gram_n = int(grams.size)
        table._text = bytearray(text.tobytes())
        names_blob = cols["names"].tobytes().decode(*_ENC)
        offsets = cols["name_offsets"].tolist()
        if not offsets or offsets[0] != 0 or offsets[-1] != len(names_blob):
            raise ValueError("name offsets do not match the name blob")
        table._names = [sys.intern(names_blob[i:j]) for i, j in itertools.pairwise(offsets)]
        count = len(table._names)
        table._name_ids = {s: i for i, s in enumerate(table._names)}
        for name in ("lang", "lead", "source"):
            if n and int(c[name][:n].max()) >= count:
                raise ValueError(f"column {name} names a string beyond the name table")
        table._n = table._live = n
        table._alive[:n] = True
        if len(set(c["doc"][:n].tolist())) != n:
            raise ValueError("duplicate document ids")
        table._map_rows(np.arange(n, dtype=np.int64))
        return table

    def compact(self) -> None:
        """Rebuild the columns and arenas from the live rows only (ids keep their documents)."""
        n = self._n
        keep = np.flatnonzero(self._alive[:n])
        if keep.size == n and len(self._names) <= 4 * max(1, n):
            return
        c = self._cols
        cap = max(16, keep.size + keep.size // 4)
        new_cols = {}
        for name, col in c.items():
            new = np.zeros(cap, col.dtype)
            new[: keep.size] = col[keep]
            new_cols[name] = new
        alive = self._alive[:n]
        # Grams: every live row's run, in row order.
        lens = c["gram_len"][keep].astype(np.int64)
        kept = _live_runs(self._grams[: self._gram_n], c["gram_start"][:n], c["gram_len"][:n], alive)
        grams = np.zeros(max(16, kept.size + kept.size // 4), np.uint32)
        grams[: kept.size] = kept
        new_cols["gram_start"][: keep.size] = np.concatenate([[0], np.cumsum(lens)[:-1]]) if keep.size else []
        # Text: the same for the title + lead + URL run of each row; names: only those still used.
        text_len = c["title_len"][:n] + c["lead_text_len"][:n] + np.maximum(c["url_len"][:n], 0)
        text = bytearray(_live_runs(np.frombuffer(self._text, np.uint8), c["text_start"][:n], text_len, alive).tobytes())
        total = text_len[keep].astype(np.int64)
        new_cols["text_start"][: keep.size] = np.concatenate([[0], np.cumsum(total)[:-1]]) if keep.size else []
        used = np.unique(np.concatenate([new_cols[k][: keep.size] for k in ("lang", "lead", "source")]))
        used = used[used >= 0]
        remap = np.full(len(self._names) + 1, -1, np.int32)  # index -1 -> last slot -> stays -1
        remap[used] = np.arange(used.size, dtype=np.int32)
        for k in ("lang", "lead", "source"):
            new_cols[k][: keep.size] = remap[new_cols[k][: keep.size]]
        self._names = [self._names[i] for i in used.tolist()]
        self._name_ids = {s: i for i, s in enumerate(self._names)}
        self._cols, self._grams, self._gram_n, self._text = new_cols, grams, int(kept.size), text
        self._built.clear()  # rows renumbered
        self._alive = np.zeros(cap, bool)
        self._alive[: keep.size] = True
        self._n = self._live = int(keep.size)
        self._map_rows(np.arange(keep.size, dtype=np.int64))

    # internals ------------------------------------------------------------------------------------
    def _row(self, doc_id: int) -> int:
        return self._row_of.get(doc_id)

    def _row_or_raise(self, doc_id: int) -> int:
        row = self._row_of.get(int(doc_id))
        if row < 0:
            raise KeyError(doc_id)
        return row

    def _map_rows(self, rows: np.ndarray) -> None:
        self._row_of.rebuild(self._cols["doc"][rows], rows)

    def _kill(self, doc_id: int) -> bool:
        row = self._row(int(doc_id))
        if row < 0:
            return False
        self._alive[row] = False
        self._built.pop(row, None)
        self._row_of.discard(int(doc_id))
        self._live -= 1
        return True

    def _intern(self, s: str | None) -> int:
        if s is None:
            return -1
        i = self._name_ids.get(s)
        if i is None:
            i = self._name_ids[s] = len(self._names)
            self._names.append(sys.intern(s))
        return i

    def _name(self, i: int) -> str | None:
        return None if i < 0 else self._names[i]

    def _grow(self, rows: int) -> None:
        """Room for ``rows`` rows in every column (``index.growable``: by half at least)."""
        for name, col in self._cols.items():
            self._cols[name] = room(col, rows)
        self._alive = room(self._alive, rows)

    def _append(self, e: Entry) -> None:
        # ``extend`` is the batched twin of this (tests/service/test_doctable.py keeps their rows equal);
        # one entry through ``extend`` measured 60 us against 13 us here, on the ingest path.
        if self._n == self._alive.size:
            self._grow(self._n + 1)
        f = e.features
        row, c = self._n, self._cols
        grams = np.asarray(f.grams, dtype=np.uint32)
        self._grams_room(self._gram_n + grams.size)
        self._grams[self._gram_n : self._gram_n + grams.size] = grams
        title, lead_text = f.title.encode(*_ENC), f.body_lead_text.encode(*_ENC)
        url = e.url.encode(*_ENC) if e.url is not None else b""
        c["doc"][row], c["version"][row], c["cluster"][row] = e.doc_id, e.version_id, e.cluster_id
        c["title_key"][row], c["content_key"][row], c["time"][row] = f.title_key, f.content_key, f.time
        c["lang"][row], c["lead"][row], c["source"][row] = self._intern(f.lang), self._intern(f.lead), self._intern(e.source)
        c["gram_start"][row], c["gram_len"][row] = self._gram_n, grams.size
        c["text_start"][row] = len(self._text)
        c["title_len"][row], c["lead_text_len"][row] = len(title), len(lead_text)
        c["url_len"][row] = len(url) if e.url is not None else -1
        self._text += title + lead_text + url
        self._gram_n += grams.size
        self._alive[row] = True
        self._n += 1
        self._live += 1
        self._row_of.set(e.doc_id, row)

    def extend(self, entries: list[Entry]) -> None:
        """Append documents not in the table, in one batch: the same rows as one ``table[doc] = e``
        each, at a fraction of the cost (a warm-up rebuild loads thousands at a time)."""
        if not entries:
            return
        ids = [e.doc_id for e in entries]
        if len(set(ids)) != len(ids) or any(d in self for d in ids):
            raise ValueError("extend takes documents that are not in the table, each once")
        k, n0 = len(entries), self._n
        if self._n + k > self._alive.size:
            self._grow(self._n + k)
        feats = [e.features for e in entries]
        grams = [np.asarray(f.grams, dtype=np.uint32) for f in feats]
        glen = np.fromiter((g.size for g in grams), np.int64, k)
        gstart = self._gram_n + np.concatenate([[0], np.cumsum(glen)[:-1]])
        total = int(glen.sum())
        self._grams_room(self._gram_n + total)
        if total:
            self._grams[self._gram_n : self._gram_n + total] = np.concatenate(grams)
        self._gram_n += total
        titles = [f.title.encode(*_ENC) for f in feats]
        leads = [f.body_lead_text.encode(*_ENC) for f in feats]
        urls = [e.url.encode(*_ENC) if e.url is not None else b"" for e in entries]
        tl = np.fromiter(map(len, titles), np.int64, k)
        ll = np.fromiter(map(len, leads), np.int64, k)
        ul = np.fromiter(map(len, urls), np.int64, k)
        rows = slice(n0, n0 + k)
        c = self._cols
        c["text_start"][rows] = len(self._text) + np.concatenate([[0], np.cumsum(tl + ll + ul)[:-1]])
        self._text += b"".join(b for parts in zip(titles, leads, urls, strict=True) for b in parts)
        c["doc"][rows] = ids
        c["version"][rows] = [e.version_id for e in entries]
        c["cluster"][rows] = [e.cluster_id for e in entries]
        c["title_key"][rows] = [f.title_key for f in feats]
        c["content_key"][rows] = [f.content_key for f in feats]
        c["time"][rows] = [f.time for f in feats]
        c["lang"][rows] = [self._intern(f.lang) for f in feats]
        c["lead"][rows] = [self._intern(f.lead) for f in feats]
        c["source"][rows] = [self._intern(e.source) for e in entries]
        c["gram_start"][rows], c["gram_len"][rows] = gstart, glen
        c["title_len"][rows], c["lead_text_len"][rows] = tl, ll
        c["url_len"][rows] = np.where([e.url is None for e in entries], -1, ul)
        self._alive[rows] = True
        self._n += k
        self._live += k
        for row, d in enumerate(ids, n0):
            self._row_of.set(d, row)

    def _grams_room(self, size: int) -> None:
        """Room for ``size`` gram ids; a new arena drops the kept features, whose gram views would
        keep the old one alive (the values are the same)."""
        grams = room(self._grams, size)
        if grams is not self._grams:
            self._grams = grams
            self._built.clear()

    def _grams_at(self, row: int) -> np.ndarray:
        s = int(self._cols["gram_start"][row])
        view = self._grams[s : s + int(self._cols["gram_len"][row])]
        view.flags.writeable = False
        return view

    def _text_at(self, row: int, field: int, length: int) -> str:
        c = self._cols
        start = int(c["text_start"][row])
        if field >= 1:
            start += int(c["title_len"][row])
        if field >= 2:
            start += int(c["lead_text_len"][row])
        return self._text[start : start + length].decode(*_ENC)

    def _features(self, row: int) -> ItemFeatures:
        built = self._built.get(row)
        if built is None:
            built = self._built[row] = self._build_features(row)
            if len(self._built) > FEATURES_KEPT:
                del self._built[next(iter(self._built))]
        return built

    def _build_features(self, row: int) -> ItemFeatures:
        c = self._cols
        return ItemFeatures(
            title=self._text_at(row, 0, int(c["title_len"][row])),
            body_lead_text=self._text_at(row, 1, int(c["lead_text_len"][row])),
            lang=self._names[int(c["lang"][row])],
            time=float(c["time"][row]),
            title_key=int(c["title_key"][row]),
            content_key=int(c["content_key"][row]),
            content_sha="",  # not kept: see the module docstring
            lead=self._names[int(c["lead"][row])],
            grams=self._grams_at(row),
        )


def _live_runs(arena: np.ndarray, starts: np.ndarray, lens: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """The runs ``arena[starts[i] : starts[i] + lens[i]]`` of the rows where ``alive``, concatenated
    in row order (a new array).

    Rows append their runs to the end of an arena, so the runs normally tile it in row order; then
    one boolean mask, a byte per element, selects the live ones. Otherwise (never seen, kept for
    safety) every live element is gathered by index.
    """
    lens = lens.astype(np.int64)
    tiled = starts.size == 0 or (int(starts[0]) == 0 and int(starts[-1] + lens[-1]) == arena.size
                                 and bool(np.array_equal(starts[1:], starts[:-1] + lens[:-1])))
    if tiled:
        return arena[np.repeat(alive, lens)]
    live_lens = lens[alive]
    new_start = np.concatenate([[0], np.cumsum(live_lens)[:-1]]) if live_lens.size else np.zeros(0, np.int64)
    return arena[np.repeat(starts[alive] - new_start, live_lens) + np.arange(int(live_lens.sum()))]
