"""``POST /v1/dedupe`` latency while the same service ingests, with and without the engine lock.

One HTTP service (in-process ``TestClient``, bundled encoder, a SQLite store in a temporary
folder) ingests the benchmark stream in batches of ``--batch`` articles from a background
thread, while the main thread times ``--calls`` dedupe requests of the benchmark's 100
RAG-style chunks. Each round is run twice: dedupe outside the engine lock (what the service
does, ``Service.call_stateless``) and through it (``Service.call``, as before), alternating so
both see the same machine. Prints one JSON line: dedupe p50 / p99 (ms) per mode, idle and
under ingest, and the ingest throughput of each mode.

    python -m bench.dedupe_under_ingest [--batch 500] [--calls 20] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.harness import load_model, median, percentile, rag_chunks
from bench.stream import build_stream


def _run(mode: str, articles: list[dict[str, Any]], chunks: list[str], embedder: Any, batch: int,
         calls: int) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from service.api import Settings, create_app
    from service.config import EngineConfig
    from service.engine import Deduper
    from service.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        engine = Deduper(open_store(f"sqlite:///{Path(tmp) / 'b.db'}"), embedder=embedder, config=EngineConfig())
        app = create_app(Settings(db=":memory:", model=None), engine=engine)
        with TestClient(app) as client:
            service = app.state.service
            if mode == "locked":  # the behaviour before call_stateless: dedupe queues for the lock
                service.call_stateless = service.call  # type: ignore[method-assign]

            def dedupe() -> float:
                t0 = time.perf_counter()
                r = client.post("/v1/dedupe", json={"texts": chunks})
                assert r.status_code == 200, r.text
                return (time.perf_counter() - t0) * 1000.0

            dedupe()
            idle = [dedupe() for _ in range(max(3, calls // 4))]
            done = threading.Event()
            ingested = [0]

            def ingest() -> None:
                t0 = time.perf_counter()
                for s in range(0, len(articles), batch):
                    if done.is_set():
                        break
                    r = client.post("/v1/articles", json={"articles": articles[s : s + batch]})
                    assert r.status_code == 200, r.text
                    ingested[0] += len(articles[s : s + batch])
                ingested.append(time.perf_counter() - t0)  # type: ignore[arg-type]

            worker = threading.Thread(target=ingest)
            worker.start()
            time.sleep(0.5)  # let the first batch take the lock
            busy = [dedupe() for _ in range(calls)]
            done.set()
            worker.join()
        engine.close()
    seconds = float(ingested[1]) if len(ingested) > 1 else float("nan")
    return {"idle": idle, "busy": busy, "ingested": ingested[0], "ingest_items_per_s": ingested[0] / seconds}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.dedupe_under_ingest", description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=500, help="articles per ingest request (default 500)")
    p.add_argument("--calls", type=int, default=20, help="dedupe calls timed under ingest per round (default 20)")
    p.add_argument("--rounds", type=int, default=2, help="rounds of (free, locked) (default 2)")
    p.add_argument("--size", type=int, default=12000, help="stream items available to ingest (default 12000)")
    p.add_argument("--eval-data", default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    args = p.parse_args(argv)
    if args.batch < 1 or args.calls < 1 or args.rounds < 1 or args.size < 200:
        p.error("--batch, --calls and --rounds must be >= 1, --size >= 200")
    stream = build_stream(args.size, data_dir=args.eval_data)
    articles = [it.article() for it in stream.items]
    chunks = rag_chunks(stream)
    embedder = load_model("use")
    runs: dict[str, list[dict[str, Any]]] = {"free": [], "locked": []}
    for _ in range(args.rounds):
        for mode in ("free", "locked"):
            runs[mode].append(_run(mode, articles, chunks, embedder, args.batch, args.calls))
    out: dict[str, Any] = {"batch": args.batch, "calls": args.calls, "rounds": args.rounds, "texts": len(chunks),
                           "ingested_while_timed": {m: [r["ingested"] for r in rs] for m, rs in runs.items()}}
    for mode, rs in runs.items():
        idle = [x for r in rs for x in r["idle"]]
        busy = [x for r in rs for x in r["busy"]]
        out[mode] = {"idle_p50_ms": round(median(idle) or 0.0, 1),
                     "busy_p50_ms": round(median(busy) or 0.0, 1), "busy_p99_ms": round(percentile(busy, 99) or 0.0, 1),
                     "ingest_items_per_s": round(median([r["ingest_items_per_s"] for r in rs]) or 0.0, 1)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
