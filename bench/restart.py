"""Warm restart of a stored engine, measured in a fresh interpreter (run by the harness).

``python -m bench.restart --db PATH --model use`` prints one JSON line: the seconds to load the
model, to open the store, and to rebuild the candidate state (``Deduper.warm_up``), plus the
resident memory the rebuilt state adds, per indexed item. By default the start uses the state
snapshot the benchmark's clean close left beside the store (``service.snapshot``);
``--no-snapshot`` measures the rebuild from the store rows instead (a start with no usable
snapshot). ``--crash-after N`` first ingests N more items and stops without a clean close, as a
crash would: the start then loads the last checkpoint and replays the changes since
(``EngineConfig.operations.snapshot_every``). ``--leave`` ends the measured start without a clean close
either, so the same start can be measured again. A fresh process is used because the
benchmark's own process still holds the ingest run's objects, which would blur the figure.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from typing import Any

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
    p.add_argument("--crash-after", type=int, metavar="N",
                   help="then ingest N more items (the benchmark stream, --crash-seed) and stop without a clean "
                        "close, leaving the last checkpoint's files behind the store, before measuring")
    p.add_argument("--crash-seed", type=int, default=1,
                   help="the stream seed for --crash-after (default 1; another seed for a second crash on one store)")
    p.add_argument("--leave", action="store_true",
                   help="end without a clean close (no snapshot written), so the same start can be measured again")
    p.add_argument("--eval-data", help="eval-data folder for --build (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    args = p.parse_args(argv)
    if any(n is not None and n < 1 for n in (args.build, args.crash_after)):
        p.error("--build and --crash-after need a positive number of items")
    built: dict[str, Any] = {}
    if args.build:
        built = build_store(args.db, args.build, args.model, guards=not args.no_guards, data_dir=args.eval_data)
    crash: dict[str, Any] = {}
    if args.crash_after:
        crash = crash_store(args.db, args.crash_after, args.model, guards=not args.no_guards, data_dir=args.eval_data,
                            seed=args.crash_seed)

    from service.config import EngineConfig
    from service.engine import Deduper, guards_on
    from service.store import open_store

    t0 = time.perf_counter()
    embedder = load_model(args.model)
    t_model = time.perf_counter() - t0
    t0 = time.perf_counter()
    config = EngineConfig.load().replace(state_snapshot=not args.no_snapshot)
    engine = Deduper(open_store(f"sqlite:///{args.db}"), embedder=embedder, config=config,
                     guards=guards_on(not args.no_guards), warm=False)
    t_open = time.perf_counter() - t0
    gc.collect()
    rss0 = rss_bytes()
    t0 = time.perf_counter()
    report = engine.warm_up()
    t_warm = time.perf_counter() - t0
    gc.collect()
    rss1 = rss_bytes()
    n = len(engine.ctx.state.entries)
    if args.leave:
        engine.store.close()
    else:
        engine.close()
    print(json.dumps({**built, **crash, "model_load_s": round(t_model, 3), "open_s": round(t_open, 3), "warm_up_s": round(t_warm, 3),
                      "restart_s": round(t_model + t_open + t_warm, 3), "documents": n,
                      "clusters": report.get("clusters"), "timed_out": report.get("timed_out"),
                      "state_from": report.get("state"), "vector_index_from": report.get("vector_index"),
                      "replayed": report.get("replayed"), "replay_pending": report.get("replay_pending"),
                      "state_rss_bytes": rss1 - rss0,
                      "bytes_per_item": round((rss1 - rss0) / n, 1) if n else None}))
    return 0


def build_store(db: str, size: int, model: str, *, guards: bool, data_dir: str | None) -> dict[str, Any]:
    """Ingest the benchmark stream into a new SQLite store and close it cleanly; returns how long
    the ingest took and how long each checkpoint on the way held it up."""
    import os

    if os.path.exists(db):
        raise SystemExit(f"--build needs a new store, and {db} exists")
    engine, timings = _ingest_stream(db, size, 0, model, guards=guards, data_dir=data_dir, prefix="build")
    engine.close()
    return timings


def crash_store(db: str, size: int, model: str, *, guards: bool, data_dir: str | None,
                seed: int = 1) -> dict[str, Any]:
    """Ingest ``size`` more items into the store at ``db`` (checkpoints as configured), then close
    only the store, as a crash would; returns what the run left to replay."""
    import os

    if not os.path.exists(db):
        raise SystemExit(f"--crash-after needs a store, and {db} does not exist (build one with --build)")
    engine, timings = _ingest_stream(db, size, seed, model, guards=guards, data_dir=data_dir, prefix="crash")
    left = engine.restart.cursor - engine.restart.checkpoint_cursor
    engine.store.close()  # no snapshot, no index file: the last checkpoint's stay behind
    return {**timings, "crash_checkpoints": engine.ctx.counters["checkpoints"], "crash_changes_after_checkpoint": left}


def _ingest_stream(db: str, size: int, seed: int, model: str, *, guards: bool, data_dir: str | None,
                   prefix: str) -> tuple[Any, dict[str, Any]]:
    """Ingest the benchmark stream (``size`` items, ``seed``) into the store at ``db`` and wait for
    any background checkpoint; returns the open engine and its timings, keys prefixed."""
    from bench.stream import build_stream
    from service.config import EngineConfig
    from service.engine import Deduper, guards_on
    from service.store import open_store

    try:
        stream = build_stream(size, seed=seed, data_dir=data_dir)
    except ValueError as exc:  # more items than the named eval sets hold distinct stories for
        raise SystemExit(str(exc)) from exc
    engine = Deduper(open_store(f"sqlite:///{db}"), embedder=load_model(model), config=EngineConfig.load(),
                     guards=guards_on(guards))
    t0 = time.perf_counter()
    engine.ingest_many([it.article() for it in stream.items], chunk_size=256, progress=True)
    seconds = time.perf_counter() - t0
    engine.restart.wait_for_checkpoint()  # a crash comes after the last checkpoint is on disk
    return engine, {f"{prefix}_items": size, f"{prefix}_ingest_s": round(seconds, 1),
                    f"{prefix}_checkpoint_pause_s": engine.restart.checkpoint_seconds,
                    f"{prefix}_checkpoint_write_s": engine.restart.checkpoint_write_seconds}


if __name__ == "__main__":
    raise SystemExit(main())
