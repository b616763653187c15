"""Many HTTP clients at once: ingest throughput with request gathering on and off (issue 20).

One HTTP service (in-process ``TestClient``, bundled encoder, a SQLite store in a temporary
folder) receives the benchmark stream from ``--clients`` threads, each posting its share in
requests of ``--batch`` articles. Three ways, alternated in each round so all see the same
machine:

- ``gathered``: what the service does: requests that arrive while the engine is busy are
  ingested together in one engine call (``service/api/gather.py``);
- ``one-by-one``: each request is its own engine call, as before gathering;
- ``in-process``: the same stream through ``Deduper.ingest_many`` in one thread, in chunks of
  256, the ceiling the HTTP figures are a share of.

Prints one JSON line: items/s per way (median of rounds), the share of in-process, the
requests per engine call while gathering, and the load average. An untimed in-process ingest of
the stream and one untimed HTTP request per client come first, so every way finds the
process-wide caches and the app's one-off set-up done.

    python -m bench.http_gather [--size 3000] [--clients 8] [--batch 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.harness import load_model, median
from bench.stream import build_stream


def _http(mode: str, articles: list[dict[str, Any]], embedder: Any, clients: int, batch: int) -> dict[str, float]:
    from fastapi.testclient import TestClient

    from service.api import Settings, create_app
    from service.engine import Deduper
    from service.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        engine = Deduper(open_store(f"sqlite:///{Path(tmp) / 'b.db'}"), embedder=embedder)
        app = create_app(Settings(db=":memory:", model=None), engine=engine)
        with TestClient(app) as client:
            service = app.state.service
            calls: list[int] = []
            if mode == "one-by-one":  # every request its own engine call, the behaviour before gathering
                def one(items: list[Any]) -> list[Any]:
                    calls.append(1)
                    return service.call("ingest", engine.ingest_many, items)
                service.ingest = one  # type: ignore[method-assign]
            else:
                service.gatherer.on_batch = lambda requests, _items: calls.append(requests)
            # Client i posts the requests i, i + clients, ...: the stream's order is kept per client.
            requests = [articles[s : s + batch] for s in range(0, len(articles), batch)]
            barrier = threading.Barrier(clients)

            def post(i: int) -> None:
                barrier.wait()
                for request in requests[i::clients]:
                    r = client.post("/v1/articles", json={"articles": request})
                    assert r.status_code == 200, r.text

            threads = [threading.Thread(target=post, args=(i,)) for i in range(clients)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            seconds = time.perf_counter() - t0
        engine.close()
    return {"items_per_s": len(articles) / seconds, "requests_per_call": len(requests) / max(1, len(calls))}


def _in_process(articles: list[dict[str, Any]], embedder: Any) -> dict[str, float]:
    from service.engine import Deduper
    from service.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        engine = Deduper(open_store(f"sqlite:///{Path(tmp) / 'b.db'}"), embedder=embedder)
        t0 = time.perf_counter()
        engine.ingest_many(articles)
        seconds = time.perf_counter() - t0
        engine.close()
    return {"items_per_s": len(articles) / seconds}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.http_gather", description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=3000, help="stream items (default 3000)")
    p.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients (default 8)")
    p.add_argument("--batch", type=int, default=10, help="articles per request (default 10)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of the three ways (default 3)")
    p.add_argument("--eval-data", default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    args = p.parse_args(argv)
    if args.size < 200 or args.clients < 1 or args.batch < 1 or args.rounds < 1:
        p.error("--size must be >= 200; --clients, --batch and --rounds >= 1")
    stream = build_stream(args.size, data_dir=args.eval_data)
    articles = [it.article() for it in stream.items]
    embedder = load_model("use")
    embedder.encode(["warm up"])
    # Untimed, the whole stream once: kiwipiepy's model load (~1.5 s) and the process-wide caches
    # (kiwipiepy's tokens, the guards' prepared texts) would otherwise be paid by whichever way runs
    # first, and every later way would find them filled.
    _in_process(articles, embedder)
    # and one request per client through the app (imports, the app's and pydantic's first-call set-up)
    _http("gathered", articles[: args.clients * args.batch], embedder, args.clients, args.batch)
    runs: dict[str, list[dict[str, float]]] = {"gathered": [], "one-by-one": [], "in-process": []}
    for r in range(args.rounds):
        ways = list(runs)
        for way in ways[r % 3:] + ways[: r % 3]:  # rotated, so no way always runs first
            runs[way].append(_in_process(articles, embedder) if way == "in-process"
                             else _http(way, articles, embedder, args.clients, args.batch))
            print(f"round {r + 1} {way}: {runs[way][-1]}", file=sys.stderr, flush=True)
    out: dict[str, Any] = {"size": args.size, "clients": args.clients, "batch": args.batch, "rounds": args.rounds,
                           "loadavg": [round(x, 2) for x in os.getloadavg()]}
    ceiling = median([x["items_per_s"] for x in runs["in-process"]]) or float("nan")
    for way, rs in runs.items():
        rate = median([x["items_per_s"] for x in rs]) or 0.0
        out[way] = {"items_per_s": round(rate, 1), "share_of_in_process": round(rate / ceiling, 3)}
        if way != "in-process":
            out[way]["requests_per_engine_call"] = round(median([x["requests_per_call"] for x in rs]) or 0.0, 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
