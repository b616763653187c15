"""MinHash LSH over character 3-grams (seed 001) for candidates across the history.

Unlike the subject-gated pass it has no bucket key, so it finds near-identical titles whose
lead token differs ("[속보] 연준..." / "연준..."); the subject guard still vets every merge it
proposes. Candidates are verified with the exact Jaccard of the gram sets before they count.

datasketch computes the signatures (its ``MinHash`` permutations) and the banding parameters
(its ``_optimal_param``); the band tables themselves are kept here in packed arrays
(:class:`BandTable`). datasketch's ``MinHashLSH`` keeps a Python ``set`` per band bucket, which
measured 5.6 KB per indexed representative on the 10k benchmark stream (25 bands): more than
everything else in the candidate state together. The packed tables hold the same bands in
25 x 8 bytes per representative, and answer the same query (a test checks it against
``MinHashLSH`` on the same signatures).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from functools import lru_cache

import numpy as np
from cachetools import FIFOCache
from datasketch import MinHash
from datasketch.lsh import _optimal_param

from index.growable import room, too_many_dead
from index.idmap import DenseIdMap

# The 32-bit gram ids (index.features) are hashed directly: the MinHash permutation is applied
# to these ints, so no per-gram SHA-1 is needed (datasketch's default hashes bytes).


_MERSENNE_PRIME = np.uint64((1 << 61) - 1)
_MAX_HASH = np.uint64((1 << 32) - 1)


# Marks a live slot whose gram array the index's ``grams_of`` supplies.
_ELSEWHERE = object()


def _identity_hash(value: int) -> int:
    return int(value)


@lru_cache(maxsize=32)
def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """datasketch's (bands, rows) for equal false-positive and false-negative weights.

    datasketch integrates numerically to find these; the answer is computed once and reused.

    >>> lsh_params(0.45, 128)
    (25, 5)
    """
    return _optimal_param(threshold, num_perm, 0.5, 0.5)


class BandTable:
    """LSH band tables as sorted runs of packed 32-bit keys (a small log-structured merge).

    Each item contributes one key per band: a hash of that band's ``rows`` MinHash values,
    salted by the band number, so all bands share one key space. Two items are candidates when
    any band key is equal, exactly as in datasketch's ``MinHashLSH``. A key is 32 bits: a
    chance collision (about one query in 170 at a million items, 25 bands) adds a candidate
    that the exact-Jaccard check then rejects; it can never hide a true one.

    New items go to an unsorted buffer; a full buffer becomes a sorted run, and runs merge when
    the newer one reaches ``1/ratio`` of the older one's size, so there are O(log n) runs and
    each key is copied O(log n) times in total. Removal marks the slot dead; dead keys are
    dropped at the next merge of their run.

    >>> t = BandTable(bands=2, rows=2)
    >>> a = t.band_keys(np.array([1, 2, 3, 4], dtype=np.uint64))
    >>> b = t.band_keys(np.array([1, 2, 9, 9], dtype=np.uint64))  # first band equal
    >>> t.insert(0, a)
    >>> t.query(b).tolist(), t.query(t.band_keys(np.array([7, 7, 9, 9], dtype=np.uint64))).tolist()
    ([0], [])
    >>> t.kill(0)
    >>> t.query(b).tolist()
    []
    """

    def __init__(self, bands: int, rows: int, *, buffer_size: int = 512, ratio: int = 8, seed: int = 7) -> None:
        if bands < 1 or rows < 1:
            raise ValueError(f"bands and rows must be >= 1, got bands={bands}, rows={rows}")
        if buffer_size < 1 or ratio < 2:
            raise ValueError(f"buffer_size must be >= 1 and ratio >= 2, got {buffer_size}, {ratio}")
        self.bands, self.rows = bands, rows
        self.buffer_size, self.ratio = buffer_size, ratio
        rng = np.random.default_rng(seed)
        # Odd multipliers and per-band salts: a multiply-add hash of each band's values (uint64
        # arithmetic wraps, which is what a hash wants), folded to 32 bits.
        self._mult = (rng.integers(0, 2**63, size=(bands, rows), dtype=np.uint64) << np.uint64(1)) | np.uint64(1)
        self._salt = rng.integers(0, 2**63, size=bands, dtype=np.uint64)
        self._buf_keys = np.empty((buffer_size, bands), dtype=np.uint32)
        self._buf_slots = np.empty(buffer_size, dtype=np.int32)
        self._buf_n = 0
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted keys, slots), newest first
        self._alive = np.zeros(1024, dtype=bool)

    def __len__(self) -> int:
        return int(self._alive.sum())

    def band_keys(self, hashvalues: np.ndarray) -> np.ndarray:
        """One 32-bit key per band from a MinHash signature (its first ``bands * rows`` values)."""
        need = self.bands * self.rows
        if hashvalues.size < need:
            raise ValueError(f"signature has {hashvalues.size} values, bands * rows needs {need}")
        h = (hashvalues[:need].astype(np.uint64).reshape(self.bands, self.rows) * self._mult).sum(
            axis=1, dtype=np.uint64) + self._salt
        return ((h >> np.uint64(32)) ^ (h & np.uint64(0xFFFFFFFF))).astype(np.uint32)

    def insert(self, slot: int, keys: np.ndarray) -> None:
        if slot < 0 or slot >= 2**31:
            raise ValueError(f"slot must be in [0, 2**31), got {slot}")
        self._alive = room(self._alive, slot + 1)
        self._alive[slot] = True
        self._buf_keys[self._buf_n] = keys
        self._buf_slots[self._buf_n] = slot
        self._buf_n += 1
        if self._buf_n == self.buffer_size:
            self._flush()

    def kill(self, slot: int) -> None:
        if 0 <= slot < self._alive.size:
            self._alive[slot] = False

    def remap(self, new_of_old: np.ndarray) -> None:
        """Renumber slots: ``new_of_old[old]`` is the new slot, or -1 to drop the item.

        Keys keep their sorted order, so this is one vectorised pass over every run.
        """
        new_of_old = np.asarray(new_of_old, dtype=np.int64)
        runs = []
        for keys, slots in self._runs:
            new = new_of_old[slots]
            keep = new >= 0
            if keep.any():
                runs.append((keys[keep], new[keep].astype(np.int32)))
        self._runs = runs
        n = self._buf_n
        new = new_of_old[self._buf_slots[:n]]
        keep = new >= 0
        m = int(keep.sum())
        self._buf_keys[:m] = self._buf_keys[:n][keep]
        self._buf_slots[:m] = new[keep]
        self._buf_n = m
        live = new_of_old[new_of_old >= 0]
        self._alive = np.zeros(max(1024, int(live.max()) + 1 if live.size else 0), dtype=bool)
        self._alive[live] = True

    def query(self, keys: np.ndarray) -> np.ndarray:
        """Live slots sharing at least one band key with ``keys`` (unique, unordered)."""
        found = []
        n = self._buf_n
        if n:
            hit = (self._buf_keys[:n] == keys[None, :]).any(axis=1)
            if hit.any():
                found.append(self._buf_slots[:n][hit])
        for run_keys, run_slots in self._runs:
            lo = np.searchsorted(run_keys, keys, side="left")
            hi = np.searchsorted(run_keys, keys, side="right")
            for a, b in zip(lo[hi > lo].tolist(), hi[hi > lo].tolist(), strict=True):
                found.append(run_slots[a:b])
        if not found:
            return np.zeros(0, dtype=np.int32)
        slots = np.unique(np.concatenate(found))
        return slots[self._alive[slots]]

    def _flush(self) -> None:
        n = self._buf_n
        keys = self._buf_keys[:n].ravel()
        slots = np.repeat(self._buf_slots[:n], self.bands)
        self._buf_n = 0
        self._runs.insert(0, self._sorted_live(keys, slots))
        while len(self._runs) > 1 and self._runs[0][0].size * self.ratio >= self._runs[1][0].size:
            (k0, s0), (k1, s1) = self._runs[0], self._runs[1]
            self._runs[:2] = [self._sorted_live(np.concatenate([k1, k0]), np.concatenate([s1, s0]))]
        self._runs = [r for r in self._runs if r[0].size]

    def _sorted_live(self, keys: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        live = self._alive[slots]
        keys, slots = keys[live], slots[live]
        # Stable sort of (mostly) two sorted runs: timsort merges them in linear time.
        order = np.argsort(keys, kind="stable")
        return keys[order], slots[order]

    def export_arrays(self) -> dict[str, np.ndarray]:
        """The table as flat arrays: every run, the unsorted buffer and the live-slot mask."""
        n = self._buf_n
        return {
            "run_keys": np.concatenate([k for k, _ in self._runs]) if self._runs else np.zeros(0, np.uint32),
            "run_slots": np.concatenate([s for _, s in self._runs]) if self._runs else np.zeros(0, np.int32),
            "run_sizes": np.array([k.size for k, _ in self._runs], dtype=np.int64),
            "buf_keys": self._buf_keys[:n].copy(),
            "buf_slots": self._buf_slots[:n].copy(),
            "alive": self._alive.copy(),
        }

    def restore_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Load what ``export_arrays`` wrote (same bands, rows and seed: the caller checks)."""
        bounds = np.cumsum([0, *arrays["run_sizes"].tolist()]).tolist()
        keys, slots = arrays["run_keys"], arrays["run_slots"]
        self._runs = [(keys[a:b], slots[a:b]) for a, b in itertools.pairwise(bounds)]
        n = arrays["buf_slots"].size
        if n >= self.buffer_size or arrays["buf_keys"].shape != (n, self.bands):
            raise ValueError(f"buffer of {n} keys does not fit this table ({self.buffer_size} x {self.bands})")
        self._buf_keys[:n] = arrays["buf_keys"]
        self._buf_slots[:n] = arrays["buf_slots"]
        self._buf_n = n
        self._alive = arrays["alive"].astype(bool)

    def nbytes(self) -> int:
        return int(sum(k.nbytes + s.nbytes for k, s in self._runs) + self._buf_keys.nbytes
                   + self._buf_slots.nbytes + self._alive.nbytes)


class MinHashIndex:
    """MinHash LSH keyed by document id, verified by exact Jaccard.

    >>> from index.features import gram_ids
    >>> from index.text import char_ngrams
    >>> idx = MinHashIndex(threshold=0.5)
    >>> idx.add(7, gram_ids(char_ngrams("Fed raises rates by 25 basis points today")), 0.0)
    >>> [d for d, _ in idx.candidates(gram_ids(char_ngrams("Fed raises rates by 25 basis points now")))]
    [7]
    """

    def __init__(self, *, threshold: float = 0.5, num_perm: int = 128, seed: int = 1,
                 grams_of: Callable[[int], np.ndarray] | None = None) -> None:
        """``grams_of(doc_id)``: where the verification step reads an indexed document's gram ids.
        Without it the index keeps a reference to each array it is given (which the caller must
        not change afterwards)."""
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        if num_perm < 16:
            raise ValueError(f"num_perm must be >= 16, got {num_perm}")
        self.threshold = threshold
        self.num_perm = num_perm
        self.seed = seed
        bands, rows = lsh_params(threshold, num_perm)
        self._table = BandTable(bands, rows)
        # Slots are handed out in insertion order; a removed document's slot stays dead until
        # ``_compact`` renumbers the live ones. Per slot: 16 bytes plus one list pointer.
        self._slot_of = DenseIdMap()
        self._doc = np.zeros(1024, dtype=np.int64)
        self._time = np.zeros(1024, dtype=np.float64)
        # Per slot: the gram array, _ELSEWHERE when ``grams_of`` supplies it, None once dead.
        self._grams: list[np.ndarray | object | None] = []
        self._grams_of = grams_of
        self._template = MinHash(num_perm=num_perm, seed=seed, hashfunc=_identity_hash)
        self._fast: bool | None = None  # decided on first use (see ``signature``)
        # The same item is hashed for the query and again when it is added: keep recent keys
        # (the last 1024 gram arrays hashed, first in first out).
        self._recent: FIFOCache[bytes, np.ndarray] = FIFOCache(1024)

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: int) -> bool:
        return self._slot_of.get(doc_id) >= 0

    def minhash(self, grams: np.ndarray) -> MinHash:
        """datasketch's MinHash of the gram ids."""
        m = self._template.copy()
        m.update_batch(grams.tolist())
        return m

    def signature(self, grams: np.ndarray) -> np.ndarray:
        """The MinHash signature (``minhash(grams).hashvalues``), without datasketch's per-call cost.

        datasketch's own arithmetic (its ``affine32`` scheme: the MurmurHash3 finaliser, then
        ``a * x + b`` wrapping at 32 bits; or the ``legacy`` ``(a * x + b) mod (2^61 - 1)``),
        applied to the whole gram array at once with the template's ``a`` and ``b``. Used only
        when it reproduces datasketch exactly on a probe at first use; otherwise every
        signature goes through datasketch.
        """
        if self._fast is None:
            self._fast = self._fast_path_agrees()
        if not self._fast:
            return self.minhash(grams).hashvalues
        t = self._template
        a, b = t.permutations
        scheme = getattr(t, "scheme", "legacy")
        if scheme == "legacy":
            phv = ((grams.astype(np.uint64)[:, None] * a + b) % _MERSENNE_PRIME) & _MAX_HASH
        else:
            from datasketch.minhash import _fmix

            width = 32 if scheme == "affine32" else 64
            hv = grams.astype(np.uint32 if width == 32 else np.uint64)[:, None]
            phv = _fmix(hv, width) * a + b
        return np.minimum(phv.min(axis=0), t.hashvalues)

    def _fast_path_agrees(self) -> bool:
        probe = np.array([1, 7, 2**31 + 5, 2**32 - 1], dtype=np.uint32)
        self._fast = True
        try:
            return bool(np.array_equal(self.signature(probe), self.minhash(probe).hashvalues))
        except Exception:  # a datasketch without the classic scheme's attributes
            return False

    def band_keys(self, grams: np.ndarray) -> np.ndarray:
        key = grams.tobytes()
        keys = self._recent.get(key)
        if keys is None:
            keys = self._table.band_keys(self.signature(grams))
            self._recent[key] = keys
        return keys

    def add(self, doc_id: int, grams: np.ndarray, time: float) -> None:
        if grams.size == 0:
            return
        self.remove(doc_id)
        if too_many_dead(len(self._grams), len(self._slot_of)):
            self._compact()
        slot = len(self._grams)
        self._doc, self._time = room(self._doc, slot + 1), room(self._time, slot + 1)
        self._doc[slot], self._time[slot] = doc_id, time
        self._grams.append(grams if self._grams_of is None else _ELSEWHERE)
        self._slot_of.set(doc_id, slot)
        self._table.insert(slot, self.band_keys(grams))

    def _compact(self) -> None:
        """Renumber the live slots 0..n-1, so the per-slot arrays follow the live count.

        Every re-add (a new representative version) and every removal leaves a dead slot; a
        service that runs for months would otherwise grow these arrays with every item ever
        indexed. Runs when dead slots outnumber live ones, so its cost is amortised O(1).
        """
        ids, slots = self._slot_of.items()
        order = np.argsort(slots, kind="stable")
        ids, old = ids[order], slots[order]
        new_of_old = np.full(len(self._grams), -1, dtype=np.int64)
        new_of_old[old] = np.arange(old.size)
        self._table.remap(new_of_old)
        size = max(1024, 2 * old.size)
        doc, time = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.float64)
        doc[: old.size], time[: old.size] = self._doc[old], self._time[old]
        self._doc, self._time = doc, time
        self._grams = [self._grams[int(s)] for s in old]
        self._slot_of.rebuild(ids, np.arange(old.size))

    def export_arrays(self) -> dict[str, np.ndarray]:
        """The index as flat arrays (for a state snapshot; see ``restore_arrays``).

        Signatures are not stored: the band keys already are, and the gram arrays the exact
        Jaccard check reads are the documents' own (the snapshot keeps them once).
        """
        n = len(self._grams)
        doc = self._doc[:n].copy()
        live = np.zeros(n, dtype=bool)
        live[self._slot_of.items()[1]] = True
        doc[~live] = -1
        out = {"doc": doc, "time": self._time[:n].copy()}
        out.update({f"table_{k}": v for k, v in self._table.export_arrays().items()})
        return out

    def restore_arrays(self, arrays: Mapping[str, np.ndarray], grams_of: Callable[[int], np.ndarray]) -> None:
        """Load what ``export_arrays`` wrote into this (empty) index, without computing a signature.

        ``grams_of(doc_id)`` returns the document's gram array (shared with its features); an
        index built with its own ``grams_of`` ignores it and keeps reading from that.
        """
        if len(self._slot_of):
            raise ValueError("restore_arrays needs an empty index")
        doc, time = arrays["doc"], arrays["time"]
        if doc.size != time.size:
            raise ValueError(f"doc has {doc.size} slots but time has {time.size}")
        self._table.restore_arrays({k[len("table_"):]: v for k, v in arrays.items() if k.startswith("table_")})
        size = max(1024, doc.size)
        self._doc, self._time = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.float64)
        self._doc[: doc.size], self._time[: doc.size] = doc, time
        ids = doc.tolist()
        if self._grams_of is not None:
            self._grams = [_ELSEWHERE if d >= 0 else None for d in ids]
        else:
            self._grams = [grams_of(d) if d >= 0 else None for d in ids]
        live = doc >= 0
        self._slot_of.rebuild(doc[live], np.flatnonzero(live))

    def remove(self, doc_id: int) -> None:
        slot = self._slot_of.get(doc_id)
        if slot >= 0:
            self._slot_of.discard(doc_id)
            self._table.kill(slot)
            self._grams[slot] = None

    def expire(self, before: float) -> int:
        ids, slots = self._slot_of.items()
        old = ids[self._time[slots] < before].tolist()
        for d in old:
            self.remove(d)
        return len(old)

    def candidates(self, grams: np.ndarray, *, window: tuple[float, float] | None = None,
                   exclude: set[int] | None = None, floor: float | None = None) -> list[tuple[int, float]]:
        """LSH hits verified by exact Jaccard of the gram sets, best first (ties by id).

        ``floor``: only the hits at or above it and the best one below it, the head of the full
        list that a caller reads when it stops at the first hit under its bar (the passage
        dedupe): the rest is never turned into Python tuples.

        Every hit's Jaccard is computed in one vectorised pass over the hits' concatenated gram
        arrays (a per-pair ``jaccard`` cost 8 us a hit: on templated lines, where every line
        shares half its grams with every other and so the LSH proposes a third of all earlier
        ones, that made a dedupe of n lines take time growing with n^2 at that price). The
        values are the same floats, ``inter / (|a| + |b| - inter)`` of the same integers.
        """
        if grams.size == 0 or not len(self._slot_of):
            return []
        return self._verified(grams, self._table.query(self.band_keys(grams)), window, exclude, floor)

    def candidates_split(self, grams: np.ndarray, window: tuple[float, float], floor: float
                         ) -> tuple[list[tuple[int, float]], Callable[[], list[tuple[int, float]]]]:
        """One LSH query, two answers: ``candidates(grams, window=window)``, and a function that
        lists the hits outside the window whose Jaccard is at or above ``floor``, best first (ties
        by id, as ``candidates`` without a window lists them). The hits outside the window are
        verified only when asked for (an item with no candidate in any stage names one as its
        reason); the index must not change in between."""
        if grams.size == 0 or not len(self._slot_of):
            return [], list
        slots = self._table.query(self.band_keys(grams))

        def beyond() -> list[tuple[int, float]]:
            t = self._time[slots]
            outside = slots[~((window[0] <= t) & (t <= window[1]))]
            return [h for h in self._verified(grams, outside, None, None, floor) if h[1] >= floor]

        return self._verified(grams, slots, window, None, None), beyond

    def _verified(self, grams: np.ndarray, slots: np.ndarray, window: tuple[float, float] | None,
                  exclude: set[int] | None, floor: float | None) -> list[tuple[int, float]]:
        """``candidates`` from the LSH hits ``slots`` on."""
        if not slots.size:
            return []
        if slots.size <= _PAIRWISE_HITS:
            return self._verify_pairwise(grams, slots.tolist(), window, exclude, floor)
        docs = self._doc[slots]
        keep = np.ones(slots.size, dtype=bool)
        if exclude:
            keep &= ~np.isin(docs, np.fromiter(exclude, dtype=np.int64, count=len(exclude)))
        if window is not None:
            t = self._time[slots]
            keep &= (window[0] <= t) & (t <= window[1])
        others: list[np.ndarray] = []
        kept_docs: list[int] = []
        for slot, doc_id in zip(slots[keep].tolist(), docs[keep].tolist(), strict=True):
            other = self._grams_at(slot, doc_id)
            if other is not None:
                others.append(other)
                kept_docs.append(doc_id)
        if not others:
            return []
        jac = _jaccard_many(grams, others)
        ids = np.array(kept_docs, dtype=np.int64)
        order = np.lexsort((ids, -jac))
        if floor is not None:
            # The hits at or above the floor come first; keep them and the next (best below).
            order = order[: int(np.count_nonzero(jac >= floor)) + 1]
        return list(zip(ids[order].tolist(), jac[order].tolist(), strict=True))

    def _grams_at(self, slot: int, doc_id: int) -> np.ndarray | None:
        other = self._grams[slot]
        if other is _ELSEWHERE and self._grams_of is not None:  # held by the owner's table
            other = self._grams_of(doc_id)
        return other  # type: ignore[return-value]

    def _verify_pairwise(self, grams: np.ndarray, slots: list[int], window: tuple[float, float] | None,
                         exclude: set[int] | None, floor: float | None) -> list[tuple[int, float]]:
        """``candidates`` for a few hits, one ``jaccard`` each (cheaper than the vectorised pass's
        fixed cost there: real chunks get a handful of hits)."""
        out = []
        for slot in slots:
            doc_id = int(self._doc[slot])
            if exclude and doc_id in exclude:
                continue
            t = self._time[slot]
            if window is not None and not (window[0] <= t <= window[1]):
                continue
            other = self._grams_at(slot, doc_id)
            if other is not None:
                out.append((doc_id, jaccard(grams, other)))
        out.sort(key=lambda x: (-x[1], x[0]))
        if floor is not None:
            out = out[: sum(1 for _, jac in out if jac >= floor) + 1]
        return out


# Up to this many LSH hits are verified one ``jaccard`` call each: about 8 us a pair against the
# vectorised pass's ~50 us fixed cost (numpy calls, the sort), measured on 2,000 rag-chunks-ntrex
# chunks (7 hits a chunk on average), where the vectorised pass alone was ~5 % slower than
# before. Any value gives the same candidates; only the time moves.
_PAIRWISE_HITS = 8


def _jaccard_many(a: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    """``jaccard(a, b)`` for every ``b`` of ``others``, as float64 (the same values).

    ``a`` must be sorted and unique (as every gram array is); each ``b`` unique. A ``b``'s
    elements found in ``a`` (``_member``) are counted for all ``b`` at once.
    """
    if a.size and not bool((a[1:] > a[:-1]).all()):
        return np.array([jaccard(a, b) for b in others], dtype=np.float64)
    sizes = np.array([b.size for b in others], dtype=np.int64)
    flat = np.concatenate(others)
    if a.size == 0 or flat.size == 0:
        inter = np.zeros(len(others), dtype=np.int64)
    elif sizes.all():  # one pass: each b's count of found elements
        inter = np.add.reduceat(_member(a, flat).astype(np.int64), np.cumsum(sizes) - sizes)
    else:  # reduceat reads an empty segment as its next element: counts from the running sum
        found = np.concatenate([[0], np.cumsum(_member(a, flat), dtype=np.int64)])
        ends = np.cumsum(sizes)
        inter = found[ends] - found[ends - sizes]
    union = a.size + sizes - inter
    # jaccard's 0.0 for two empty sets; elsewhere int64 / int64 is the same correctly rounded
    # quotient as Python's int / int.
    return np.divide(inter, union, out=np.zeros(len(others), dtype=np.float64), where=union > 0)


# Multipliers for ``_member``'s hash table (odd 32-bit constants: golden ratio, MurmurHash3's).
_TABLE_MULTIPLIERS = (np.uint32(0x9E3779B1), np.uint32(0x85EBCA6B), np.uint32(0xC2B2AE35))


def _member(a: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` found in the sorted unique uint32 array ``a``, element by element.

    A multiplicative hash table of ``a`` without collisions when one of a few sizes and
    multipliers gives one (short texts: up to a few hundred grams): two gathers a value, about
    half the time of a binary search into ``a``. Otherwise the binary search.
    """
    if a.dtype == np.uint32 and values.dtype == np.uint32 and a.size <= 256:
        for bits in range(max(8, 2 * int(a.size).bit_length()), 17):
            for mult in _TABLE_MULTIPLIERS:
                with np.errstate(over="ignore"):  # uint32 products wrap, which is the hash
                    slot = (a * mult) >> np.uint32(32 - bits)
                if np.unique(slot).size < a.size:
                    continue
                held = np.zeros(1 << bits, dtype=np.uint32)
                used = np.zeros(1 << bits, dtype=bool)
                held[slot], used[slot] = a, True
                with np.errstate(over="ignore"):
                    at = (values * mult) >> np.uint32(32 - bits)
                return used[at] & (held[at] == values)
    pos = np.minimum(np.searchsorted(a, values), a.size - 1)
    return a[pos] == values


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Plain Jaccard of two sorted unique id arrays."""
    if a.size == 0 and b.size == 0:
        return 0.0
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / (a.size + b.size - inter)
