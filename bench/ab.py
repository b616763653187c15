"""Measure one engine version, for A/B comparisons between commits on the same (noisy) machine.

Two measurements, each printing one JSON line:

* ``ingest``: one ingest of the benchmark stream (``--size``, default 10,000) into a fresh
  SQLite store with the bundled encoder: items/s, the process CPU seconds, and a digest of
  every item's (status, cluster, stage), so two versions can be shown to decide identically;
  ``results_sha256`` digests every item's whole result (representative, duplicate_of, story,
  matched copy, and the decision's reasons, scores, vetoes and guard verdicts) as well. The pair
  verifier is off unless ``--verifier`` (the shipped one, as the engine runs it, loaded before
  the clock starts).
* ``dedupe``: ``Deduper.dedupe`` of the 100 RAG-style chunks of the benchmark; the wall-clock
  p50 of ``--calls`` calls, and the CPU milliseconds of the engine's own work (the encoder's
  output is cached after the first call, so only the cascade, the indices and the guards are
  timed; the ``--low`` quantile of the calls, as the low end is the least disturbed by other
  load).

The runs alternate between two checkouts (``git worktree``), so both see the same machine::

    git worktree add /tmp/base <commit>
    export SAMESTORY_EVAL_DATA=$PWD/../shared/eval-data
    for i in 1 2 3; do
      (cd /tmp/base && PYTHONPATH=/tmp/base python $OLDPWD/bench/ab.py ingest --label base)
      python bench/ab.py ingest --label new
    done

Running this file by path with ``PYTHONPATH`` on the other checkout measures that checkout's
engine, also for commits older than this script.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import _engine, load_model, median, rag_chunks
from bench.stream import build_stream


def measure_ingest(size: int, data_dir: str | None, dup_share: float = 0.4,
                   verifier: bool = False) -> dict[str, Any]:
    stream = build_stream(size, dup_share=dup_share, data_dir=data_dir)
    articles = [it.article() for it in stream.items]
    embedder = load_model("use")
    pair_verifier = None
    if verifier:
        from service.config import EngineConfig
        from service.context import engine_verifier

        pair_verifier = engine_verifier(EngineConfig.load()).load()
    with tempfile.TemporaryDirectory() as tmp:
        engine = _engine(f"sqlite:///{Path(tmp) / 'ab.db'}", embedder, True, pair_verifier)
        t0, c0 = time.perf_counter(), time.process_time()
        results = engine.ingest_many(articles)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        engine.close()
    digest = hashlib.sha256(json.dumps([(r.status, r.cluster_id, r.decision.stage) for r in results]).encode())
    whole = hashlib.sha256(json.dumps([(r.status, r.cluster_id, r.representative_id, r.duplicate_of,
                                        getattr(r, "story_id", None), getattr(r, "matched_copy", None),
                                        r.decision.to_dict()) for r in results],
                                      sort_keys=True, default=str).encode())
    return {"measure": "ingest", "items": len(articles), "dup_share": dup_share, "verifier": verifier,
            "items_per_s": round(len(articles) / wall, 1),
            "cpu_s": round(cpu, 2), "decisions_sha256": digest.hexdigest()[:16],
            "results_sha256": whole.hexdigest()[:16]}


def measure_dedupe(size: int, calls: int, low: float, data_dir: str | None) -> dict[str, Any]:
    texts = rag_chunks(build_stream(size, data_dir=data_dir))
    engine = _engine(":memory:", load_model("use"), True)
    engine.dedupe(texts)  # one-off costs: model weights, regex compilation, BLAS start-up
    wall = []
    for _ in range(calls):
        t0 = time.perf_counter()
        engine.dedupe(texts)
        wall.append((time.perf_counter() - t0) * 1000.0)
    encode = engine.ctx.encode
    cache: dict[tuple[str, ...], np.ndarray] = {}

    def cached(batch: Any) -> np.ndarray:
        key = tuple(batch)
        if key not in cache:
            cache[key] = encode(batch)
        return cache[key]

    engine.ctx.encode = cached  # type: ignore[method-assign]
    engine.dedupe(texts)
    cpu = []
    for _ in range(calls):
        c0 = time.process_time()
        engine.dedupe(texts)
        cpu.append((time.process_time() - c0) * 1000.0)
    engine.close()
    return {"measure": "dedupe", "texts": len(texts), "calls": calls, "wall_p50_ms": round(median(wall) or 0.0, 1),
            "engine_cpu_ms": round(float(np.quantile(cpu, low)), 1), "quantile": low}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.splitlines()[0])
    p.add_argument("measure", choices=("ingest", "dedupe"))
    p.add_argument("--label", default="", help="a name for this checkout, echoed in the output")
    p.add_argument("--size", type=int, default=10_000, help="stream size; dedupe takes its chunks from it (default 10000)")
    p.add_argument("--dup-share", type=float, default=0.4, help="ingest: the stream's share of copies (default 0.4)")
    p.add_argument("--verifier", action="store_true", help="ingest: with the shipped pair verifier (default off)")
    p.add_argument("--calls", type=int, default=30, help="dedupe: calls timed (default 30)")
    p.add_argument("--low", type=float, default=0.05, help="dedupe: CPU-time quantile reported (default 0.05)")
    p.add_argument("--eval-data", default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    args = p.parse_args(argv)
    if args.size < 100:
        p.error("--size must be >= 100")
    if args.calls < 1 or not 0.0 <= args.low <= 1.0:
        p.error("--calls must be >= 1 and --low in [0, 1]")
    out = (measure_ingest(args.size, args.eval_data, args.dup_share, args.verifier) if args.measure == "ingest"
           else measure_dedupe(args.size, args.calls, args.low, args.eval_data))
    print(json.dumps({"label": args.label, **out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
