"""Hand-written labelled pair files (tests/data/*_pairs*.jsonl) and the shipped engine's verdicts
on them, shared by the tests that hold the engine to its measured figures on each set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path


def read_pairs(path: Path) -> list[dict]:
    """The records of a pair file: ``id``, ``a`` / ``b`` (``text``, ``lang``), ``label``, ``kind``."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def shipped_verdicts(recs: list[dict]) -> tuple[Counter[str], Counter[str]]:
    """The engine as shipped (bundled encoder, guards and pair verifier on) on each pair through
    ``compare``: the copies found and the false merges, counted by kind."""
    from models.registry import load_embedder
    from service.engine import Deduper
    from service.store import open_store
    from service.types import Article

    d = Deduper(open_store(":memory:"), embedder=load_embedder("use", cache_size=0))
    assert d.ctx.verifier is not None
    found: Counter[str] = Counter()
    false_merges: Counter[str] = Counter()
    for r in recs:
        if d.compare(*(Article(title=r[k]["text"], lang=r[k]["lang"]) for k in "ab")).same:
            (found if r["label"] == 1 else false_merges)[r["kind"]] += 1
    return found, false_merges
