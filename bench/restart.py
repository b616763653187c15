"""Warm restart of a stored engine, measured in a fresh interpreter (run by the harness).

``python -m bench.restart --db PATH --model use`` prints one JSON line: the seconds to load the
model, to open the store, and to rebuild the candidate state (``Deduper.warm_up``), plus the
resident memory the rebuilt state adds, per indexed item. By default the start uses the state
snapshot the benchmark's clean close left beside the store (``service.snapshot``);
``--no-snapshot`` measures the rebuild from the store rows instead (a start after a crash).
A fresh process is used because the
benchmark's own process still holds the ingest run's objects, which would blur the figure.
"""

from __future__ import annotations

import argparse
import gc
import json
import time

from bench.harness import load_model, rss_bytes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.restart")
    p.add_argument("--db", required=True, help="SQLite file written by the benchmark")
    p.add_argument("--model", default="use")
    p.add_argument("--no-guards", action="store_true")
    p.add_argument("--no-snapshot", action="store_true", help="rebuild from the store rows, ignoring the snapshot")
    p.add_argument("--build", type=int, metavar="N",
                   help="first ingest the benchmark's N-item stream (bench.stream, seed 0, 40%% copies) into a "
                        "new store at --db, with the engine the benchmark runs, then measure")
    p.add_argument("--eval-data", help="eval-data folder for --build (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    args = p.parse_args(argv)
    if args.build:
        build_store(args.db, args.build, args.model, guards=not args.no_guards, data_dir=args.eval_data)

    from service.config import EngineConfig
    from service.engine import Deduper
    from service.store import open_store

    t0 = time.perf_counter()
    embedder = load_model(args.model)
    t_model = time.perf_counter() - t0
    t0 = time.perf_counter()
    config = EngineConfig.load().replace(state_snapshot=not args.no_snapshot)
    engine = Deduper(open_store(f"sqlite:///{args.db}"), embedder=embedder, config=config,
                     guards=not args.no_guards, warm=False)
    t_open = time.perf_counter() - t0
    gc.collect()
    rss0 = rss_bytes()
    t0 = time.perf_counter()
    report = engine.warm_up()
    t_warm = time.perf_counter() - t0
    gc.collect()
    rss1 = rss_bytes()
    n = len(engine.state.entries)
    engine.close()
    print(json.dumps({"model_load_s": round(t_model, 3), "open_s": round(t_open, 3), "warm_up_s": round(t_warm, 3),
                      "restart_s": round(t_model + t_open + t_warm, 3), "documents": n,
                      "clusters": report.get("clusters"), "timed_out": report.get("timed_out"),
                      "state_from": report.get("state"), "vector_index_from": report.get("vector_index"),
                      "state_rss_bytes": rss1 - rss0,
                      "bytes_per_item": round((rss1 - rss0) / n, 1) if n else None}))
    return 0


def build_store(db: str, size: int, model: str, *, guards: bool, data_dir: str | None) -> None:
    """Ingest the benchmark stream into a new SQLite store and close it cleanly (no timings kept)."""
    import os

    from bench.stream import build_stream
    from service.config import EngineConfig
    from service.engine import Deduper
    from service.store import open_store

    if os.path.exists(db):
        raise SystemExit(f"--build needs a new store, and {db} exists")
    stream = build_stream(size, data_dir=data_dir)
    engine = Deduper(open_store(f"sqlite:///{db}"), embedder=load_model(model), config=EngineConfig.load(),
                     guards=guards)
    engine.ingest_many([it.article() for it in stream.items], chunk_size=256, progress=True)
    engine.close()


if __name__ == "__main__":
    raise SystemExit(main())
