"""What the guards cost per text and per pair on the bench stream, and what their caches hold.

    PYTHONPATH=$PWD python -m research.guard_cost record --size 10000 --out /tmp/guard-pairs.pkl
    PYTHONPATH=$PWD python -m research.guard_cost replay /tmp/guard-pairs.pkl [--label new]

``record`` runs ``bench.ab``'s ingest (verifier off) and keeps every pair the guards are asked
about, in order: ``GuardSet.check``, ``GuardSet.confirm`` (the slot confirmation) and the story
level's ``SlotVeto``. ``replay`` asks a fresh ``GuardSet.default()`` the same pairs twice, once
with every guard cache empty (each text's analysis and each pair's comparison: the work the
ingest did) and once with only the per-pair caches emptied (the per-text analyses already made:
what is left per pair), and prints their CPU seconds, a digest of every verdict (two checkouts
that decide alike print the same digest) and the objects the garbage collector tracks in each
guard cache afterwards. The one-offs (kiwipiepy's load, the gazetteer, babel's data) are paid
before the clock. Not part of the product: nothing in service/ imports it
(research/notes/throughput.md, 2026-12-06).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def record(size: int, out: Path, data_dir: str | None) -> dict[str, Any]:
    """Ingest the bench stream, keeping each guard question as (kind, a, b); pickle them to ``out``."""
    from bench.ab import measure_ingest
    from service.guards import guardset, storyveto

    asked: list[tuple[str, Any, Any]] = []
    check, confirm, veto = guardset.GuardSet.check, guardset.GuardSet.confirm, storyveto.SlotVeto.__call__

    def checked(self: Any, a: Any, b: Any) -> Any:
        asked.append(("check", a, b))
        return check(self, a, b)

    def confirmed(self: Any, a: Any, b: Any, verdicts: Any) -> Any:
        asked.append(("confirm", a, b))
        return confirm(self, a, b, verdicts)

    def vetoed(self: Any, item: Any, member: Any) -> Any:
        asked.append(("veto", item, member))
        return veto(self, item, member)

    guardset.GuardSet.check, guardset.GuardSet.confirm = checked, confirmed  # type: ignore[method-assign]
    storyveto.SlotVeto.__call__ = vetoed  # type: ignore[method-assign]
    try:
        result = measure_ingest(size, data_dir)
    finally:
        guardset.GuardSet.check, guardset.GuardSet.confirm = check, confirm  # type: ignore[method-assign]
        storyveto.SlotVeto.__call__ = veto  # type: ignore[method-assign]
    out.write_bytes(pickle.dumps(asked))
    kinds = {k: sum(1 for x in asked if x[0] == k) for k in ("check", "confirm", "veto")}
    return {**result, "asked": kinds, "out": str(out)}


def _caches(gs: Any) -> dict[str, Any]:
    """Every cached guard function, by name (module-level caches and the guards' own)."""
    from service.guards import base, slots

    found: dict[str, Any] = {f"{mod.__name__.rsplit('.', 1)[-1]}.{name}": f
                             for mod in (base, slots) for name, f in vars(mod).items() if hasattr(f, "cache_clear")}
    for g in gs.guards:
        found.update({f"{g.name}.{name}": f for name, f in vars(g).items() if hasattr(f, "cache_clear")})
        order = getattr(g, "order", None)
        if order is not None:
            found[f"{g.name}.order.units"] = order.units
    analyzer = gs.confirmer.analyzer
    found.update({f"analyser.{n}": getattr(analyzer, n) for n in ("analyse", "close", "compare")})
    return found


PER_PAIR = ("analyser.compare", "analyser.close", "slots.typo_close")


def replay(path: Path, label: str) -> dict[str, Any]:
    from service.guards import GuardInput, GuardSet
    from service.guards.storyveto import SlotVeto

    asked = pickle.loads(path.read_bytes())
    gs = GuardSet.default()
    veto = SlotVeto.from_guards(gs)
    assert veto is not None and gs.confirmer is not None
    ko, en = "한국은행, 기준금리 연 3.50%로 동결", "Bank of Korea holds key rate at 3.50% in Seoul"
    gs.check(GuardInput(title=ko, text=ko, lang="ko"), GuardInput(title=en, text=en, lang="en"))
    caches = _caches(gs)

    def clear(names: Callable[[str], bool]) -> None:
        for name, f in caches.items():
            if names(name):
                f.cache_clear()

    def run() -> tuple[float, str]:
        out: list[Any] = []
        last: Any = None
        c0 = time.process_time()
        for kind, a, b in asked:
            if kind == "check":
                last = gs.check(a, b)
                out.append([(v.guard, v.blocked, v.decided, v.evidence, v.soft) for v in last])
            elif kind == "confirm":
                c = gs.confirm(a, b, last)
                out.append((c.confirmed, c.evidence, c.aligned))
            else:
                out.append(veto(a, b))
        return time.process_time() - c0, hashlib.sha256(json.dumps(out, default=str).encode()).hexdigest()[:16]

    clear(lambda name: True)
    cold, digest = run()
    gc.collect()
    held = {}
    # objects each cache holds alone: tracked before minus after clearing it, the per-pair caches
    # first (their values hold the per-text analyses too, which count for the per-text caches)
    for name, f in sorted(caches.items(), key=lambda kv: kv[0] not in PER_PAIR):
        before = len(gc.get_objects())
        entries = f.cache_info().currsize
        f.cache_clear()
        gc.collect()
        held[name] = {"entries": entries, "tracked_objects": before - len(gc.get_objects())}
    clear(lambda name: True)
    run()
    clear(lambda name: name in PER_PAIR)
    warm, digest_warm = run()
    return {"label": label, "asked": len(asked), "cold_cpu_s": round(cold, 2), "per_pair_cpu_s": round(warm, 2),
            "verdicts_sha256": digest, "same_verdicts_warm": digest == digest_warm,
            "caches": {k: v for k, v in held.items() if v["tracked_objects"] > 0 or k in PER_PAIR}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m research.guard_cost", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="ingest the bench stream and keep every guard question")
    r.add_argument("--size", type=int, default=10_000)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--eval-data", default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA)")
    q = sub.add_parser("replay", help="ask the recorded questions again: CPU, verdict digest, cache objects")
    q.add_argument("pairs", type=Path)
    q.add_argument("--label", default="")
    args = p.parse_args(argv)
    out = record(args.size, args.out, args.eval_data) if args.cmd == "record" else replay(args.pairs, args.label)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
