"""The column-wise document table behind the candidate state (service/doctable.py)."""

from __future__ import annotations

import numpy as np
import pytest

from index.features import ItemFeatures
from service.doctable import DocTable
from service.state import Entry
from tests.helpers.doctable import assert_same, make_entry


def test_round_trip_of_every_field() -> None:
    t = DocTable(capacity=4)  # forces several grows
    originals = {d: make_entry(d, url=None if d == 3 else "auto", source=None if d == 4 else "AP") for d in range(1, 40)}
    for d, e in originals.items():
        t[d] = e
    assert len(t) == 39 and list(t) == list(originals)
    for d, e in originals.items():
        assert_same(t[d], e)
        assert t.time_of(d) == e.features.time and t.cluster_of(d) == e.cluster_id
        assert np.array_equal(t.grams_of(d), e.features.grams)
    assert t[3].url is None and t[4].source is None
    assert t.features(2).content_sha == ""  # not kept; see the module docstring
    with pytest.raises(KeyError):
        t[999]
    assert 999 not in t and "1" not in t


def test_replace_delete_and_compaction_keep_the_survivors() -> None:
    t = DocTable()
    for d in range(100, 6000):
        t[d] = make_entry(d)
    for d in range(100, 6000, 3):  # replace: same id, new cluster
        t[d] = make_entry(d, cluster=7)
    deleted = [d for d in range(100, 6000) if d % 5]
    for d in deleted:
        del t[d]
    # Dead rows came to outnumber live ones: the table compacted (7,867 rows were appended).
    assert len(t) == 5900 - len(deleted) and t._n < 5900 and t._n - len(t) <= len(t) + 4096
    for d in range(100, 6000, 5):
        assert_same(t[d], make_entry(d, cluster=7 if (d - 100) % 3 == 0 else None))
    assert t.docs_of_cluster(7) == [d for d in range(100, 6000, 5) if (d - 100) % 3 == 0]
    assert sorted(t.docs_before(1000.0 + 200)) == [d for d in range(100, 200, 5)]
    with pytest.raises(KeyError):
        del t[101]


def test_ids_below_the_first_one_and_far_apart() -> None:
    t = DocTable()
    t[5000] = make_entry(5000)
    t[10] = make_entry(10)  # below the base: the map shifts
    t[70_000] = make_entry(70_000)
    assert sorted(t) == [10, 5000, 70_000]
    assert_same(t[10], make_entry(10))
    far = 10 + (1 << 40)  # kept aside from the dense id map, and still found
    t[far] = make_entry(far)
    assert_same(t[far], make_entry(far)) and far in t and sorted(t)[-1] == far
    with pytest.raises(ValueError, match="entry is for document"):
        t[11] = make_entry(12)


def test_columns_round_trip_and_reject_damage() -> None:
    t = DocTable()
    for d in range(1, 300):
        t[d] = make_entry(d)
    for d in range(1, 300, 2):
        del t[d]
    cols = t.export_columns()
    again = DocTable.from_columns(cols)
    assert list(again) == list(t)
    for d in t:
        assert_same(again[d], t[d])
    bad = dict(cols, doc_version=cols["version"])
    bad["time"] = cols["time"][:-1]
    with pytest.raises(ValueError, match="column time"):
        DocTable.from_columns(bad)
    bad = dict(cols, grams=cols["grams"][:-5])
    with pytest.raises(ValueError, match="arena"):
        DocTable.from_columns(bad)
    bad = dict(cols, doc=np.zeros_like(cols["doc"]))
    with pytest.raises(ValueError, match="duplicate"):
        DocTable.from_columns(bad)


def test_a_document_costs_a_few_dozen_bytes_beyond_its_text_and_grams() -> None:
    t = DocTable()
    n = 20_000
    payload = 0
    for d in range(n):
        e = make_entry(d)
        t[d] = e
        f = e.features
        payload += 4 * f.grams.size + sum(len(s.encode("utf-8", "surrogatepass"))
                                          for s in (f.title, f.body_lead_text, e.url or ""))
    exact = sum(a.nbytes for a in t.export_columns().values())
    # Fourteen fixed-width columns: 93 bytes a row (was ~1 KB of Python objects per document).
    assert (exact - payload) / n < 100, (exact - payload) / n
    # Capacity doubles as rows arrive, so at most about half of what is held is spare.
    assert t.nbytes() <= 2.2 * exact


def test_extend_writes_the_same_rows_as_one_at_a_time() -> None:
    entries = [make_entry(d, url=None if d % 7 == 0 else "auto", source=None if d % 5 == 0 else "AP")
               for d in range(50, 400)]
    one, batch = DocTable(capacity=4), DocTable(capacity=4)
    for e in entries:
        one[e.doc_id] = e
    batch.extend(entries[:100])
    batch.extend(entries[100:])
    assert list(one) == list(batch)
    for d in one:
        assert_same(one[d], batch[d])
    with pytest.raises(ValueError, match="not in the table"):
        batch.extend([make_entry(60)])


def test_a_batched_warm_up_load_builds_the_same_state() -> None:
    """``CandidateState.add_loaded`` (the warm-up's batches) equals ``put`` + ``set_rep`` one by one."""
    from service.config import EngineConfig
    from service.state import CandidateState

    rng = np.random.default_rng(2)
    entries, is_rep = [], []
    for d in range(1, 900):
        cluster = int(rng.integers(1, 300))
        entries.append(make_entry(d, int(rng.integers(0, 60)), cluster=cluster))
        is_rep.append(False)
    first = {}
    for i, e in enumerate(entries):  # one representative per cluster, somewhere in the stream
        first.setdefault(e.cluster_id, i)
    for i in first.values():
        is_rep[i] = True
    cfg = EngineConfig()
    one, batch = CandidateState(cfg, None), CandidateState(cfg, None)
    for e, rep in zip(entries, is_rep, strict=True):
        one.put(e)
        if rep:
            one.set_rep(e.cluster_id, e.doc_id)
    for s in range(0, len(entries), 250):
        batch.add_loaded(entries[s : s + 250], is_rep[s : s + 250])
    assert one.reps == batch.reps and list(one.entries) == list(batch.entries)
    for e in entries:
        for key in (e.features.content_key, e.features.title_key):
            assert sorted(one.exact.lookup(key)) == sorted(batch.exact.lookup(key))
    for name in ("ngram", "minhash"):
        a, b = getattr(one, name).export_arrays(), getattr(batch, name).export_arrays()
        assert a.keys() == b.keys()
        for k in a:
            assert np.array_equal(a[k], b[k]), (name, k)
    # A batch holding a document already loaded falls back to one at a time, same result.
    again = make_entry(5, 3, cluster=entries[4].cluster_id)
    one.put(again)
    batch.add_loaded([again], [False])
    assert_same(one.entries[5], batch.entries[5])


def test_has_lead_text_says_whether_the_features_keep_a_body_lead() -> None:
    t = DocTable()
    with_body = make_entry(1)
    bare = Entry(2, 20, 2, ItemFeatures.build("Fed raises rates by 25 basis points", "", "en", 1000.0), None, None)
    t[1], t[2] = with_body, bare
    assert [t.has_lead_text(d) for d in (1, 2)] == [True, False]
    assert [bool(t.features(d).body_lead_text) for d in (1, 2)] == [True, False]
    with pytest.raises(KeyError):
        t.has_lead_text(3)
