"""Resident memory of the engine's vector index holding N vectors, in a fresh interpreter.

``python -m bench.vector_memory 576593`` builds a :class:`index.vectors.VectorIndex` with the
engine's settings (512-d, exact until 20k, then HNSW M=16 over SQ8) from clustered random
vectors and prints one JSON line: the resident memory it added, per vector. The values of the
vectors do not change the index's size, so this measures what a store with N embedded clusters
costs without the hour a 1M-item ingest with the encoder takes on 2 cores. Used in
bench/RESULTS.md to add the vector part to the cheap state measured at 1M.
"""

from __future__ import annotations

import argparse
import gc
import json

import numpy as np

from bench.harness import rss_bytes
from index.vectors import VectorIndex
from service.restart import release_free_memory


def _trim() -> None:
    gc.collect()
    release_free_memory()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.vector_memory", description=__doc__.splitlines()[0])
    p.add_argument("vectors", type=int, help="how many vectors to index")
    p.add_argument("--dim", type=int, default=512, help="vector dimension (USE: 512)")
    p.add_argument("--exact-until", type=int, default=20_000, help="the engine's flat->HNSW switch")
    p.add_argument("--chunk", type=int, default=20_000, help="vectors added per call")
    args = p.parse_args(argv)
    if args.vectors < 1:
        p.error("vectors must be >= 1")
    rng = np.random.default_rng(0)
    _trim()
    before = rss_bytes()
    index = VectorIndex(args.dim, exact_until=args.exact_until)
    centres = rng.standard_normal((args.vectors // 30 + 1, args.dim)).astype(np.float32)
    for start in range(0, args.vectors, args.chunk):
        m = min(args.chunk, args.vectors - start)
        x = centres[rng.integers(0, centres.shape[0], m)] + 0.3 * rng.standard_normal((m, args.dim)).astype(np.float32)
        index.add(np.arange(start, start + m), x, np.full(m, 1.0e9 + start))
    del centres, x
    _trim()
    added = rss_bytes() - before
    print(json.dumps({"vectors": len(index), "kind": index.kind, "dim": args.dim, "rss_bytes": added,
                      "bytes_per_vector": round(added / args.vectors, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
