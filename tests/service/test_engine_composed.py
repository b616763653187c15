"""The engine is composed, not inherited: state persistence is a collaborator (``Deduper.restart``)
that owns the candidate state (read through the context, ``Deduper.ctx.state``), and the guards
argument is a guard set, None, or the default."""

from __future__ import annotations

import pytest

from service.engine import DEFAULT_GUARDS, Deduper, guards_on
from service.guards import GuardSet
from service.restart import StateRestart
from service.types import Article


def test_deduper_holds_its_restart_collaborator_instead_of_inheriting_it(tmp_path):
    assert Deduper.__mro__ == (Deduper, object)
    e = Deduper.open(f"sqlite:///{tmp_path}/c.db", model=None, guards=None)
    assert isinstance(e.restart, StateRestart)
    first = e.ingest(Article(title="Fed raises rates", url="https://a.example/1"))
    assert e.ctx.state is e.restart.state and first.document_id in e.ctx.state.entries
    assert e.restart.cursor == e.store.max_change()
    before = e.ctx.state
    e.warm_up()  # rebuilds: a new state object, which the engine reads through the collaborator
    assert e.ctx.state is not before and e.ctx.state is e.restart.state and first.document_id in e.ctx.state.entries
    assert e.ingest(Article(title="FED RAISES RATES", url="https://b.example/2")).decision.stage == "exact"
    e.close()


def test_guards_are_a_guard_set_none_or_the_default():
    off = Deduper.open(":memory:", model=None, guards=None)
    assert off.ctx.guards is None and off.ctx.cascade.guards is None
    on = Deduper.open(":memory:", model=None)
    assert isinstance(on.ctx.guards, GuardSet) and on.ctx.cascade.guards is on.ctx.guards
    mine = GuardSet([])
    assert Deduper.open(":memory:", model=None, guards=mine).ctx.guards is mine
    assert guards_on(True) is DEFAULT_GUARDS and guards_on(False) is None
    for flag in (True, False):
        with pytest.raises(TypeError, match="guards=False is None"):
            Deduper.open(":memory:", model=None, guards=flag)  # type: ignore[arg-type]
