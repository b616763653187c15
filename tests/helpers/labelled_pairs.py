"""Hand-written labelled pair files (tests/data/*_pairs*.jsonl), the shipped engine's and the
guards' verdicts on them, shared by the tests that hold them to their measured figures on each set;
and two headlines' guard vetoes for the frames passes' unit tests."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.guards import GuardInput, GuardSet


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


def guard_vetoes(recs: list[dict]) -> dict[str, list[str]]:
    """The guards (packaged rules, raw text as written) that block each pair, by id."""
    from service.guards import GuardInput, GuardSet

    gs = GuardSet.from_rules()
    out = {}
    for r in recs:
        sides = [GuardInput(title="", text=r[k]["text"], lang=r[k]["lang"]) for k in "ab"]
        out[r["id"]] = gs.blocked(gs.check(*sides))
    return out


def guard_misses(recs: list[dict]) -> tuple[set[str], set[str]]:
    """(ids of the different pairs no guard blocks, ids of the copies some guard blocks)."""
    vetoes = guard_vetoes(recs)
    labels = {r["id"]: r["label"] for r in recs}
    return ({i for i, b in vetoes.items() if labels[i] == 0 and not b},
            {i for i, b in vetoes.items() if labels[i] == 1 and b})


def side(text: str) -> GuardInput:
    """One headline as the guards read it, its language from its script (Hangul: Korean)."""
    from service.guards import GuardInput

    lang = "ko" if any("가" <= ch <= "힣" for ch in text) else "en"
    return GuardInput(title="", text=text, lang=lang)


def blocked_by(gs: GuardSet, a: str, b: str) -> dict[str, str]:
    """The guards that block two headlines, with their evidence."""
    return {v.guard: v.evidence for v in gs.check(side(a), side(b)) if v.blocked}
