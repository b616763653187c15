"""``Deduper``'s public surface is the operations users call (issue 37, "Deduper's public surface").

The engine is a facade over collaborators sharing one ``EngineContext`` (``service/engine.py``).
Its methods and properties are what a user of the library calls: open, ingest, compare, dedupe,
settle, stats, close (and the context manager, and ``closed`` as a file has it), with a few more
(delete_document, checkpoint, warm_up, config). Everything else is read on the collaborator that owns it: the candidate state
and the editors' constraints on ``ctx``, the change cursor, warm-up report and checkpoint timings
on ``restart``, the open stories on ``story_level``, the document key on ``copy_level``. Every
name on the facade is one more thing callers come to depend on and one more place the same state
can be read from, so a new one must be added to the list below on purpose, not by accident.
"""

from __future__ import annotations

import inspect

from service.engine import Deduper

# The operations users call, and nothing else.
OPERATIONS = {
    "open", "ingest", "ingest_many", "compare", "compare_pairs", "dedupe",
    "settle", "settle_copies", "settle_stories", "stats", "close", "closed",
    "delete_document", "checkpoint", "warm_up", "config",
}

# What a built engine holds: its collaborators and the parts they share (each also on ``ctx``).
PARTS = {
    "ctx", "restart", "recorder", "copy_level", "story_level", "settling", "deletion",
    "store",
}


def test_the_engine_class_offers_the_operations_users_call_and_nothing_else() -> None:
    public = {name for name in dir(Deduper) if not name.startswith("_")}
    assert public == OPERATIONS, (f"Deduper's public surface changed: added {sorted(public - OPERATIONS)}, "
                                  f"removed {sorted(OPERATIONS - public)}; put a new member on the "
                                  f"collaborator that owns it (service/context.py, restart.py, ...)")
    assert isinstance(inspect.getattr_static(Deduper, "open"), classmethod)
    assert isinstance(inspect.getattr_static(Deduper, "config"), property)


def test_the_engine_is_a_context_manager_that_closes() -> None:
    with Deduper.open(":memory:", model=None, guards=None) as d:
        assert d.ingest({"title": "Fed raises rates", "url": "https://a.example/1"}).status == "new"
    assert callable(Deduper.__enter__) and callable(Deduper.__exit__)


def test_a_built_engine_holds_its_named_collaborators_and_parts() -> None:
    d = Deduper.open(":memory:", model=None, guards=None)
    try:
        attrs = {name for name in vars(d) if not name.startswith("_")}
        assert attrs == PARTS, (f"added {sorted(attrs - PARTS)}, removed {sorted(PARTS - attrs)}")
        assert d.ctx.state is d.restart.state and d.ctx.restart is d.restart
    finally:
        d.close()
