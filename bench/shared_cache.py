"""What a shared embedding cache saves a second worker (models/shared_cache.py).

Worker A embeds ``--size`` distinct benchmark titles with the bundled encoder and writes them to
Redis; worker B, a separate ``CachedEmbedder`` with its own client and an empty LRU, asks for the
same titles. Prints one JSON line: each worker's milliseconds per text (median of ``--repeats``
rounds, each with fresh keys), and B's model calls (0 when every vector came from Redis).

    python -m bench.shared_cache --redis redis://127.0.0.1:6379/15 [--size 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from typing import Any

from bench.harness import load_model, median
from bench.stream import build_stream
from models.cache import CachedEmbedder
from models.shared_cache import open_shared_cache


def measure(url: str, size: int, data_dir: str | None) -> dict[str, Any]:
    titles = list(dict.fromkeys(it.title for it in build_stream(size * 2, data_dir=data_dir).items))[:size]
    model = load_model("use")
    model.encode(titles[:8])  # weights and BLAS start-up are not the cache's business
    prefix = f"samestory-bench:{uuid.uuid4().hex[:12]}"
    workers = [CachedEmbedder(model, maxsize=size + 1,
                              shared=open_shared_cache(url, model.name, model.dim, prefix=prefix, ttl_s=600))
               for _ in range(2)]
    out: dict[str, Any] = {"texts": len(titles)}
    for label, worker in zip(("a", "b"), workers, strict=True):
        t0 = time.perf_counter()
        worker.encode(titles)
        out[f"{label}_ms_per_text"] = (time.perf_counter() - t0) * 1000.0 / len(titles)
        out[f"{label}_model_calls"] = worker.calls
    shared = workers[0].shared
    if shared is not None:  # leave the server as it was
        keys = list(shared.client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            shared.client.delete(*keys)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.shared_cache", description=__doc__.splitlines()[0])
    p.add_argument("--redis", default="redis://127.0.0.1:6379/15", help="server URL (default db 15 on localhost)")
    p.add_argument("--size", type=int, default=2000, help="distinct titles (default 2000)")
    p.add_argument("--repeats", type=int, default=3, help="rounds, each with fresh keys (default 3)")
    p.add_argument("--eval-data", default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    args = p.parse_args(argv)
    if args.size < 10 or args.repeats < 1:
        p.error("--size must be >= 10 and --repeats >= 1")
    runs = [measure(args.redis, args.size, args.eval_data) for _ in range(args.repeats)]
    out = {"texts": runs[0]["texts"], "repeats": args.repeats,
           "a_ms_per_text": round(median([r["a_ms_per_text"] for r in runs]) or 0.0, 3),
           "b_ms_per_text": round(median([r["b_ms_per_text"] for r in runs]) or 0.0, 3),
           "b_model_calls": max(r["b_model_calls"] for r in runs)}
    out["b_speedup"] = round(out["a_ms_per_text"] / out["b_ms_per_text"], 1) if out["b_ms_per_text"] else None
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
