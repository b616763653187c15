"""``DocTable`` keeps the ``ItemFeatures`` it built per row (``FEATURES_KEPT``): a kept one is what
building the row again gives, and a replaced, removed or renumbered row is never served stale."""

from __future__ import annotations

import numpy as np
import pytest

import service.doctable as doctable
from index.features import ItemFeatures
from service.doctable import DocTable, Entry
from tests.helpers.doctable import assert_same, make_entry


def _same_features(a: ItemFeatures, b: ItemFeatures) -> None:
    for name in ("title", "body_lead_text", "lang", "time", "title_key", "content_key", "lead"):
        assert getattr(a, name) == getattr(b, name), name
    assert np.array_equal(a.grams, b.grams) and a.grams.dtype == b.grams.dtype


def test_kept_features_are_what_building_the_row_gives() -> None:
    t = DocTable(capacity=4)  # grows the columns and the gram arena several times
    originals = {d: make_entry(d) for d in range(1, 60)}
    for d, e in originals.items():
        t[d] = e
        first = t.features(d)
        assert t.features(d) is first  # kept: asked again, not built again
    for d, e in originals.items():
        f = t.features(d)
        _same_features(f, t._build_features(t._row_or_raise(d)))
        _same_features(f, e.features)
        assert_same(t[d], e)


def test_a_replaced_document_is_not_served_its_old_features() -> None:
    t = DocTable()
    t[5] = make_entry(5, 0)
    old = t.features(5)
    t[5] = make_entry(5, 3)  # another title: a new row
    new = t.features(5)
    assert new is not old and new.title == make_entry(5, 3).features.title != old.title
    del t[5]
    with pytest.raises(KeyError):
        t.features(5)


def test_compaction_renumbers_rows_and_drops_what_was_kept() -> None:
    t = DocTable(capacity=16)
    for d in range(1, 41):
        t[d] = make_entry(d)
        t.features(d)
    for d in range(1, 31):
        del t[d]
    t.compact()  # the rest renumbered
    assert t._n == 10
    for d in range(31, 41):
        _same_features(t.features(d), make_entry(d).features)
    t[41] = make_entry(41)  # appended after the compaction: its own row, not a kept one of a dead row
    _same_features(t.features(41), make_entry(41).features)


def test_the_kept_rows_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctable, "FEATURES_KEPT", 8)
    t = DocTable(capacity=64)
    t.extend([make_entry(d) for d in range(1, 31)])
    for d in range(1, 31):
        t.features(d)
        assert len(t._built) <= 8
    for d in range(1, 31):  # dropped ones are built again, the same
        _same_features(t.features(d), make_entry(d).features)


def test_a_new_gram_arena_drops_the_kept_views() -> None:
    t = DocTable(capacity=16)
    t[1] = make_entry(1)
    t.features(1)
    arena = t._grams
    while t._grams is arena:  # until the gram arena is reallocated
        d = len(t) + 1
        t[d] = Entry(d, d, d, ItemFeatures.build(f"a long enough title number {d} to add grams", "", "en", 1.0),
                     None, None)
    assert not t._built  # no kept view holds the old arena
    _same_features(t.features(1), make_entry(1).features)
