"""The packed MinHash LSH tables answer what datasketch's MinHashLSH answers, in far less memory."""

from __future__ import annotations

import random

import numpy as np
import pytest
from datasketch import MinHash, MinHashLSH

from index.features import gram_ids
from index.minhash import BandTable, MinHashIndex, _identity_hash, _member, jaccard, lsh_params
from index.text import char_ngrams


def _titles(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    words = ["samsung", "apple", "rates", "fed", "profit", "record", "quarter", "seoul", "chip", "export",
             "삼성전자", "영업이익", "금리", "인상", "반도체", "수출", "서울", "사상", "최대", "발표"]
    base = [" ".join(rng.choice(words) for _ in range(rng.randint(4, 9))) for _ in range(n // 2)]
    # Half of the titles are light edits of another one, so the LSH has real near-duplicates.
    edits = []
    for t in base:
        w = t.split()
        w[rng.randrange(len(w))] = rng.choice(words)
        edits.append(" ".join(w))
    return base + edits


def test_band_table_matches_datasketch_lsh() -> None:
    bands, rows = lsh_params(0.45, 128)
    # A small buffer forces many flushes and merges of runs.
    table = BandTable(bands, rows, buffer_size=16, ratio=2)
    lsh = MinHashLSH(threshold=0.45, num_perm=128, params=(bands, rows))
    template = MinHash(num_perm=128, seed=1, hashfunc=_identity_hash)
    sigs = []
    for i, title in enumerate(_titles(400)):
        m = template.copy()
        m.update_batch(gram_ids(char_ngrams(title)).tolist())
        sigs.append(m)
        lsh.insert(i, m)
        table.insert(i, table.band_keys(m.hashvalues))
    removed = set(range(0, 400, 7))
    for i in removed:
        lsh.remove(i)
        table.kill(i)
    extra = 0
    for i, m in enumerate(sigs):
        want = set(lsh.query(m))
        got = set(table.query(table.band_keys(m.hashvalues)).tolist())
        # Every datasketch candidate is found; 32-bit key collisions may add a rare extra one.
        assert want <= got, i
        extra += len(got - want)
        assert not (got & removed)
    assert extra <= 2


def test_band_table_validates_input() -> None:
    with pytest.raises(ValueError, match="bands and rows"):
        BandTable(0, 5)
    t = BandTable(2, 4)
    with pytest.raises(ValueError, match="signature has 3 values"):
        t.band_keys(np.arange(3, dtype=np.uint64))
    with pytest.raises(ValueError, match="slot"):
        t.insert(-1, np.zeros(2, dtype=np.uint32))


def test_minhash_index_add_remove_window_and_readd() -> None:
    idx = MinHashIndex(threshold=0.45)
    g1 = gram_ids(char_ngrams("[속보] 연준, 기준금리 0.25%p 인상 결정"))
    g2 = gram_ids(char_ngrams("연준, 기준금리 0.25%p 인상 결정"))
    idx.add(1, g1, 100.0)
    hits = idx.candidates(g2)
    assert [d for d, _ in hits] == [1] and hits[0][1] > 0.6
    assert idx.candidates(g2, window=(200.0, 300.0)) == []
    assert idx.candidates(g2, exclude={1}) == []
    idx.remove(1)
    assert 1 not in idx and idx.candidates(g2) == []
    idx.add(1, g1, 250.0)  # re-added (a new representative version) under the same id
    assert [d for d, _ in idx.candidates(g2, window=(200.0, 300.0))] == [1]
    assert idx.expire(300.0) == 1 and len(idx) == 0


def test_packed_tables_are_much_smaller_than_datasketch() -> None:
    bands, rows = lsh_params(0.45, 128)
    table = BandTable(bands, rows)
    for i in range(5000):
        table.insert(i, np.random.default_rng(i).integers(0, 2**32, size=bands, dtype=np.uint32))
    # 25 bands x (4-byte key + 4-byte slot) per item, plus a fixed buffer.
    assert table.nbytes() / 5000 < 260


def test_vectorised_signature_equals_datasketch() -> None:
    idx = MinHashIndex(threshold=0.45)
    for title in _titles(50, seed=3):
        grams = gram_ids(char_ngrams(title))
        assert np.array_equal(idx.signature(grams), idx.minhash(grams).hashvalues)
    assert idx._fast is True  # the fast path is the one in use with this datasketch


def test_slots_are_compacted_and_answers_survive_churn() -> None:
    """Re-adding representatives again and again keeps the per-slot arrays near the live count."""
    titles = _titles(200, seed=5)
    grams = [gram_ids(char_ngrams(t)) for t in titles]
    churned = MinHashIndex(threshold=0.45)
    for rnd in range(60):  # 60 x 200 re-adds: far past the compaction trigger
        for i, g in enumerate(grams):
            if (i + rnd) % 5 == 0:
                churned.remove(i)
            else:
                churned.add(i, g, float(rnd))
    fresh = MinHashIndex(threshold=0.45)
    for i in sorted(churned._slot_of.items()[0].tolist()):
        fresh.add(i, grams[i], 59.0)
    assert len(churned) == len(fresh)
    assert len(churned._grams) <= 2 * len(churned) + 4096 + 1
    for g in grams:
        assert churned.candidates(g) == fresh.candidates(g)


def _pairwise_candidates(idx: MinHashIndex, grams: np.ndarray, window: tuple[float, float] | None = None,
                         exclude: set[int] | None = None) -> list[tuple[int, float]]:
    """``candidates`` as it was before the vectorised pass: ``jaccard`` hit by hit, then sorted."""
    out = []
    for slot in idx._table.query(idx.band_keys(grams)).tolist():
        doc = int(idx._doc[slot])
        t = idx._time[slot]
        if (exclude and doc in exclude) or (window is not None and not window[0] <= t <= window[1]):
            continue
        other = idx._grams[slot]
        if isinstance(other, np.ndarray):
            out.append((doc, jaccard(grams, other)))
    return sorted(out, key=lambda x: (-x[1], x[0]))


def test_vectorised_verification_gives_the_pairwise_answer_and_floor_cuts_its_head() -> None:
    """Every hit's Jaccard in one pass is the same float, in the same order, as hit by hit; with
    ``floor`` the list stops after its first entry below it (what the passage dedupe reads)."""
    rng = np.random.default_rng(3)
    shared = rng.integers(0, 2**32, 60, dtype=np.uint64).astype(np.uint32)
    # Templated sets: a random part of one shared pool plus grams of their own (a spread of Jaccards
    # around the LSH threshold, and ties), and some long sets past _member's hash-table size.
    sets = []
    for k in range(500):
        own = rng.integers(0, 2**32, int(rng.integers(0, 30)) + (300 if k % 50 == 0 else 0), dtype=np.uint64)
        sets.append(np.unique(np.concatenate([rng.choice(shared, int(rng.integers(5, 60)), replace=False),
                                              own.astype(np.uint32)])))
    idx = MinHashIndex(threshold=0.5)
    hits = 0
    for i, g in enumerate(sets):
        want = _pairwise_candidates(idx, g)
        assert idx.candidates(g) == want, i
        hits += len(want)
        window, exclude = (0.3 * i, 0.7 * i), {1, 5, 7}
        assert idx.candidates(g, window=window, exclude=exclude) == _pairwise_candidates(idx, g, window, exclude)
        for floor in (0.3, 0.6, 0.71, 1.0):
            head = next((k for k, (_, jac) in enumerate(want) if jac < floor), len(want) - 1)
            assert idx.candidates(g, floor=floor) == want[: head + 1], (i, floor)
        idx.add(i, g, float(i))
        if i % 7 == 0:
            idx.remove(i // 2)
    assert hits > 5_000  # the LSH did propose many pairs


def test_candidates_split_is_the_windowed_search_and_the_hits_outside_it() -> None:
    """``candidates_split`` (one LSH query, issue 37) answers what two queries answered: the windowed
    ``candidates``, and the unwindowed one's hits outside the window at or above the floor, in its
    order (ties by id); with few hits (verified pair by pair) and many (vectorised), and removals."""
    rng = np.random.default_rng(5)
    shared = rng.integers(0, 2**32, 40, dtype=np.uint64).astype(np.uint32)
    idx = MinHashIndex(threshold=0.5)
    named = 0
    for i in range(400):
        own = rng.integers(0, 2**32, int(rng.integers(0, 20)), dtype=np.uint64).astype(np.uint32)
        g = np.unique(np.concatenate([rng.choice(shared, int(rng.integers(5, 40)), replace=False), own]))
        lo = float(rng.integers(0, 400))
        window, floor = (lo, lo + float(rng.integers(0, 100))), float(rng.choice([0.3, 0.6, 0.71, 1.0]))
        inside, beyond = idx.candidates_split(g, window, floor)
        assert inside == idx.candidates(g, window=window), i
        want = [(d, s) for d, s in idx.candidates(g) if s >= floor and not window[0] <= float(d) <= window[1]]
        assert beyond() == want, i
        named += bool(want)
        idx.add(i, g, float(i))
        if i % 9 == 0:
            idx.remove(i // 2)
    assert named > 20
    assert MinHashIndex().candidates_split(shared, (0.0, 1.0), 0.5)[1]() == []


def test_member_hash_table_agrees_with_binary_search() -> None:
    rng = np.random.default_rng(4)
    for size in (1, 2, 17, 44, 255, 256, 257, 600):
        a = np.unique(rng.integers(0, 2**32, size, dtype=np.uint64).astype(np.uint32))
        values = np.concatenate([rng.choice(a, 500), rng.integers(0, 2**32, 500, dtype=np.uint64).astype(np.uint32),
                                 np.array([0, 2**32 - 1], dtype=np.uint32)])
        assert np.array_equal(_member(a, values), np.isin(values, a)), size
