"""The packed structures behind the n-gram index: the uint32 hash map, the dense id map, and
the index's own row compaction (index/hashmap.py, index/idmap.py, index/ngram.py)."""

from __future__ import annotations

import numpy as np
import pytest

from index.features import gram_ids_of
from index.hashmap import U32Map
from index.idmap import DenseIdMap
from index.ngram import GatedNgramIndex
from index.text import normalize


def test_u32map_agrees_with_a_dict_through_growth() -> None:
    rng = np.random.default_rng(3)
    keys = np.unique(rng.integers(0, 2**32, size=60_000, dtype=np.uint64)).astype(np.uint32)
    keys = np.concatenate([keys, np.array([0, 2**32 - 1], dtype=np.uint32)])
    keys = np.unique(keys)
    rng.shuffle(keys)
    m, ref = U32Map(merge_at=1000), {}  # many merges, and ids waiting in the dict
    chunks = np.array_split(np.arange(keys.size), 300)  # ~200 a batch: dict, merges, and one bulk load
    chunks[150] = np.concatenate([chunks[150], *chunks[151:160]])
    del chunks[151:160]
    for chunk in chunks:
        m.insert_new(keys[chunk], chunk.astype(np.int32))
        ref.update(zip(keys[chunk].tolist(), chunk.tolist(), strict=True))
    fresh = np.setdiff1d(np.arange(1, 100, dtype=np.uint32), keys)[:5]
    m.insert_new(fresh, np.arange(keys.size, keys.size + fresh.size, dtype=np.int32))
    ref.update(zip(fresh.tolist(), range(keys.size, keys.size + fresh.size), strict=True))
    keys = np.concatenate([keys, fresh])
    probe = np.concatenate([keys, rng.integers(0, 2**32, size=5_000, dtype=np.uint64).astype(np.uint32)])
    got = m.lookup(probe).tolist()
    assert got == [ref.get(k, -1) for k in probe.tolist()]
    assert m._recent  # some ids still wait in the dict: both halves answered
    assert len(m) == keys.size and m.nbytes <= 8 * keys.size + 100 * 1000
    k, v = m.items()
    assert dict(zip(k.tolist(), v.tolist(), strict=True)) == ref


def test_u32map_rejects_bad_input() -> None:
    m = U32Map()
    with pytest.raises(ValueError, match="3 keys but 2 values"):
        m.insert_new(np.array([1, 2, 3], np.uint32), np.array([0, 1], np.int32))
    with pytest.raises(ValueError, match=">= 0"):
        m.insert_new(np.array([1], np.uint32), np.array([-1], np.int32))


def test_dense_id_map_agrees_with_a_dict_for_any_ids() -> None:
    """Sequential ids live in the array; outliers (huge, negative, far below) in the overflow."""
    rng = np.random.default_rng(1)
    ids = np.concatenate([np.arange(5_000, 25_000), [-7, 10**12, 2**40 + 3, 0],
                          rng.integers(-(2**50), 2**50, size=200)])
    m, ref = DenseIdMap(), {}
    m.set(2**45, 99_999)  # an outlier first: the map must re-centre on the sequential bulk
    ref[2**45] = 99_999
    for row, i in enumerate(rng.permutation(ids).tolist()):
        m.set(i, row)
        ref[i] = row
    for i in ids[::3].tolist():
        m.discard(i)
        ref.pop(i, None)
    probe = np.concatenate([ids, ids + 1, [123_456_789]]).tolist()
    assert [m.get(i) for i in probe] == [ref.get(i, -1) for i in probe]
    assert m.nbytes < 40 * len(ref) + 100 * 300  # dense part ~4 bytes an id; ~200 outliers
    again = DenseIdMap()
    again.rebuild(np.array(list(ref)), np.array(list(ref.values())))
    assert [again.get(i) for i in probe] == [ref.get(i, -1) for i in probe]
    with pytest.raises(ValueError, match="row"):
        m.set(1, -1)


def _grams(text: str) -> np.ndarray:
    return gram_ids_of(normalize(text))


def test_ngram_index_after_churn_scores_like_a_fresh_one() -> None:
    """Replacing and removing thousands of documents (several compactions) leaves an index whose
    buckets and frequencies, hence scores, equal those of one built from the survivors alone."""
    rng = np.random.default_rng(0)
    words = ["fed", "rates", "samsung", "profit", "seoul", "record", "삼성전자", "영업이익", "금리", "인상", "서울", "발표"]
    leads = ["fed", "samsung", "삼성전자", "seoul"]

    def doc(i: int) -> tuple[str, np.ndarray, float]:
        lead = leads[i % len(leads)]
        text = " ".join([lead, *rng.choice(words, size=6).tolist(), str(i % 97)])
        return lead, _grams(text), float(i)

    churned = GatedNgramIndex()
    live: dict[int, tuple[str, np.ndarray, float]] = {}
    order: list[int] = []
    for i in range(12_000):
        d = int(rng.integers(0, 3_000))  # ids repeat: re-adds replace
        if d in live and rng.random() < 0.4:
            churned.remove(d)
            del live[d]
            order.remove(d)
            continue
        live[d] = doc(i)
        churned.add(d, *live[d])
        if d in order:
            order.remove(d)
        order.append(d)
    assert churned._n < 12_000  # compactions ran
    fresh = GatedNgramIndex()
    for d in order:
        fresh.add(d, *live[d])
    assert len(churned) == len(fresh) == len(live)
    for lead in leads:
        q = _grams(f"{lead} record profit rates 금리 인상 5")
        a, b = churned.candidates(lead, q), fresh.candidates(lead, q)
        assert [d for d, _ in a] == [d for d, _ in b]
        assert np.allclose([s for _, s in a], [s for _, s in b])
    restored = GatedNgramIndex()
    restored.restore_arrays(churned.export_arrays(), lambda d: (live[d][0], live[d][2]))
    q = _grams("삼성전자 영업이익 발표 12")
    assert churned.candidates("삼성전자", q) == restored.candidates("삼성전자", q)
    assert churned.expire(before=6_000.0) == sum(1 for v in live.values() if v[2] < 6_000.0)


def test_exact_index_agrees_with_a_dict_of_sets_through_churn() -> None:
    from index.exact import ExactIndex

    rng = np.random.default_rng(5)
    keys = [*rng.integers(-2 ** 63, 2 ** 63 - 1, size=3000, dtype=np.int64).tolist(), 0, -1, 2 ** 63 - 1, -2 ** 63]
    idx, ref = ExactIndex(capacity=4), {}
    filed: dict[int, list[int]] = {}
    for _step in range(40_000):
        doc = int(rng.integers(0, 5_000))
        if doc in filed and rng.random() < 0.45:
            idx.remove(doc, filed[doc])
            for k in filed.pop(doc):
                ref[k].discard(doc)
            continue
        ks = [keys[int(i)] for i in rng.integers(0, len(keys), size=2)]  # often shared, sometimes equal
        idx.add(doc, ks)
        idx.add(doc, ks)  # filed once however often added
        filed.setdefault(doc, [])
        for k in ks:
            if doc not in ref.setdefault(k, set()):
                ref[k].add(doc)
                filed[doc].append(k)
    for k in [*keys, 12345]:
        assert sorted(idx.lookup(k)) == sorted(ref.get(k, ())), k
    assert len(idx) == sum(len(v) for v in ref.values())
    assert idx.nbytes <= 16 * 4 * max(len(idx), 16) * 2  # churn leaves the table at most ~4x the live pairs
    with pytest.raises(ValueError, match=">= 0"):
        idx.add(-3, [1])
