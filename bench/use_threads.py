"""USE's BLAS threads, side by side: the same chunk sentences embedded on 1 and on 2 threads.

The sentences are the distinct sentences of the first ``--chunks`` chunks of the
``samestory bench dedupe`` stream (seed 0), what the passage path embeds. Each thread count gets
its own encoder; the two run alternately, ``--rounds`` times, so both see the same load. Wall
and CPU seconds (``time.process_time``: this process, all threads) per round::

    python -m bench.use_threads [--chunks 300] [--rounds 2]

Prints one JSON line per (round, threads) and the ``uptime`` load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.use_threads", description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    from bench.dedupe_chunks import chunk_stream
    from index.passages import Passage
    from models.use import USEEmbedder

    stream = chunk_stream(max(1000, args.chunks), seed=0)
    sentences = list(dict.fromkeys(s for r in stream.records[: args.chunks]
                                   for s in Passage.build(r["text"], r["lang"]).sentences))
    encoders = {n: USEEmbedder(threads=n) for n in (1, 2)}
    for enc in encoders.values():
        enc.encode(["warm-up"])
    print(json.dumps({"sentences": len(sentences), "load_before": _load()}))
    for r in range(args.rounds):
        for n, enc in encoders.items():
            t0, c0 = time.perf_counter(), time.process_time()
            enc.encode(sentences)
            print(json.dumps({"round": r, "threads": n, "wall_s": round(time.perf_counter() - t0, 2),
                              "cpu_s": round(time.process_time() - c0, 2)}), flush=True)
    print(json.dumps({"load_after": _load()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
