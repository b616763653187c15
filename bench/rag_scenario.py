"""Issue 18's report, replayed: distinct overlapping windows must survive ``dedupe``, copies must not.

100 windows of five consecutive Korean sentences of the NTREX dev articles at a stride of three
(each shares two sentences with the next, so every one carries new content) and 40 copies of
random windows (re-formatted, a boilerplate line added, typos), through ``Deduper.dedupe`` on
the passage path and on the headline path (``kind="headline"``, what dedupe did before)::

    python -m bench.rag_scenario [--model use|none]

Prints one JSON line per path: distinct windows dropped (should be 0), copies dropped as copies
of their own window, seconds, sentences embedded.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from collections.abc import Sequence

from bench.dedupe_chunks import _format, _typo
from eval.data import eval_data_dir


def scenario(windows: int = 100, copies: int = 40, seed: int = 0) -> tuple[list[str], list[int]]:
    """(chunks, original window of each copy)."""
    docs: dict[str, list[tuple[int, str]]] = defaultdict(list)
    path = eval_data_dir() / "ntrex128-kor-eng" / "dev.jsonl"
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["kind"] == "xl_translation" and r["label"] == 1:
                ko = r["a"]["text"] if r["a"]["lang"] == "ko" else r["b"]["text"]
                docs[r["meta"]["doc"]].append((r["meta"]["line"], ko))
    wins: list[str] = []
    for d in sorted(docs):
        s = [t for _, t in sorted(docs[d])]
        wins += [" ".join(s[i : i + 5]) for i in range(0, len(s) - 4, 3)]
    wins = wins[:windows]
    rng = random.Random(seed)
    made, of = [], []
    for k in range(copies):
        o = rng.randrange(len(wins))
        t = wins[o]
        made.append([_format(t, rng), "무단전재 및 재배포 금지 " + t, _typo(t, rng)][k % 3])
        of.append(o)
    return wins + made, of


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.rag_scenario", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="use", help="embedder spec, or none (default use)")
    args = ap.parse_args(argv)
    from service.engine import Deduper

    chunks, of = scenario()
    n = len(chunks) - len(of)
    d = Deduper.open(":memory:", model=None if args.model == "none" else args.model)
    d.ctx.warm_encoder()
    d.dedupe(["warm-up: builds the passage guards once"])
    for kind in ("passage", "headline"):
        before = d.ctx.counters["encoder_texts"]
        t0 = time.perf_counter()
        res = d.dedupe(chunks, kind=kind)
        seconds = time.perf_counter() - t0
        dup = list(res.duplicate_of)
        roots = list(range(len(dup)))
        for i, j in enumerate(dup):
            if j is not None:
                roots[i] = roots[j]
        print(json.dumps({"kind": kind, "chunks": len(chunks), "distinct_windows": n,
                          "distinct_windows_dropped": sum(1 for i in range(n) if dup[i] is not None),
                          "copies": len(of), "copies_dropped": sum(1 for k, o in enumerate(of)
                                                                   if dup[n + k] is not None and roots[n + k] == roots[o]),
                          "seconds": round(seconds, 3), "encoder_texts": d.ctx.counters["encoder_texts"] - before}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
