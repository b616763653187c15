"""Batch vs streaming on one corpus: the same copy groups? how long each stage takes? (docs/scale.md)

Builds a corpus from the dev sets (``bench.stream.build_stream``: real Korean and English
headlines, 40 % copies), then runs, one after the other in one process: streaming ingest
(``Deduper.ingest_many``), ``samestory batch`` on the local executor, and on a local Ray cluster
with each worker count asked for. Prints JSON with every run's stage timings and the pairwise
agreement of its copy groups with streaming's::

    python -m bench.batch_scale --size 3000 --workers 1,2 --out var/batch_scale_3k.json

>>> pair_agreement([0, 0, 1, 2], [5, 5, 6, 7]), pair_agreement([0, 0, 1, 2], [0, 1, 1, 2])
(1.0, 0.6666666666666667)
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from service.batch.io import Record


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def pair_agreement(a: Sequence[Any], b: Sequence[Any]) -> float:
    """The share of item pairs on which two groupings agree (together in both, or apart in both):
    the Rand index, from the contingency counts rather than all n^2 pairs."""
    if len(a) != len(b):
        raise ValueError(f"groupings of different lengths: {len(a)} and {len(b)}")
    n = len(a)
    if n < 2:
        return 1.0
    both = sum(_pairs(c) for c in Counter(zip(a, b, strict=True)).values())
    in_a = sum(_pairs(c) for c in Counter(a).values())
    in_b = sum(_pairs(c) for c in Counter(b).values())
    return 1.0 - (in_a + in_b - 2 * both) / _pairs(n)


def differing_items(a: Sequence[Any], b: Sequence[Any]) -> list[int]:
    """Items whose group (as a set of items) differs between the two groupings."""
    def members(labels: Sequence[Any]) -> list[frozenset[int]]:
        groups: dict[Any, set[int]] = {}
        for i, g in enumerate(labels):
            groups.setdefault(g, set()).add(i)
        frozen = {g: frozenset(m) for g, m in groups.items()}
        return [frozen[g] for g in labels]

    ma, mb = members(a), members(b)
    return [i for i in range(len(a)) if ma[i] != mb[i]]


def corpus(size: int, *, seed: int = 0, data_dir: str | None = None) -> list[Record]:
    """``size`` items of the benchmark stream as batch records (in stream order)."""
    from bench.stream import build_stream
    from service.types import Article

    stream = build_stream(size, seed=seed, data_dir=data_dir)
    out = []
    for i, item in enumerate(stream.items):
        fields = item.article()
        out.append(Record(f"stream:{i}", Article.from_dict(dict(fields)), fields))
    return out


def streaming(records: Sequence[Record], model: str | None) -> tuple[list[int], float]:
    """Copy-group labels from live ingestion, and its seconds."""
    from service.engine import Deduper

    t0 = time.perf_counter()
    engine = Deduper.open(":memory:", model=model)
    try:
        results = engine.ingest_many([r.article for r in records])
    finally:
        engine.close()
    return [r.cluster_id for r in results], time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    from service.batch import ray_engine
    from service.batch.run import run_batch

    p = argparse.ArgumentParser(prog="python -m bench.batch_scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=3000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default=None, help="eval-data folder (default ../shared/eval-data)")
    p.add_argument("--model", default="use", help="'use' (default) or 'none' for the cheap passes only")
    p.add_argument("--workers", default="1,2", help="Ray worker counts to run, comma-separated ('' for none)")
    p.add_argument("--out", type=Path, help="also write the JSON here")
    args = p.parse_args(argv)
    model = None if args.model == "none" else args.model
    records = corpus(args.size, seed=args.seed, data_dir=args.data)
    report: dict[str, Any] = {"size": args.size, "seed": args.seed, "model": model, "runs": {}}
    labels, seconds = streaming(records, model)
    report["runs"]["streaming"] = {"total_s": round(seconds, 3), "copy_groups": len(set(labels))}
    print("streaming", json.dumps(report["runs"]["streaming"]), flush=True)
    runs = [("local", None)] + [("ray", int(w)) for w in args.workers.split(",") if w.strip()]
    for engine, workers in runs:
        name = engine if workers is None else f"ray_{workers}w"
        out = run_batch(records, engine=engine, model=model, workers=workers)
        if engine == "ray":
            ray_engine.shutdown()  # the next worker count starts its own local cluster
        got = [r["copy_group_id"] for r in out.results]
        diff = differing_items(labels, got)
        report["runs"][name] = {**out.summary, "pair_agreement_with_streaming": pair_agreement(labels, got),
                                "items_in_differing_groups": len(diff), "differing_items": diff[:50]}
        print(name, json.dumps({k: report["runs"][name][k] for k in (
            "timings", "pair_agreement_with_streaming", "items_in_differing_groups", "embedded_late_in_decide")}),
            flush=True)
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
