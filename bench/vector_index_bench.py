"""Benchmark index/vectors.py: add throughput, single-query latency, memory, recall, save/load.

Data is synthetic but shaped like story clusters: unit vectors around N/30 random centres
(noise 0.9 per coordinate, same-cluster cosine ~0.55), one item per second of "time".
Queries are stored items perturbed by 0.02 per coordinate, like a re-worded wire copy.

    .venv/bin/python -m bench.vector_index_bench --size 100000
    .venv/bin/python -m bench.vector_index_bench --size 1000000 --storage sq8 --recall-queries 200

Recall@10 is against an exact float32 IndexFlatIP over the original (unquantised) vectors,
so it includes the quantisation loss.  "RSS delta" is the process growth while adding
(includes allocator slack and the transient flat->HNSW rebuild); "estimate" is
VectorIndex.memory_bytes().
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from index.vectors import VectorIndex


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def make_data(n: int, dim: int, seed: int, chunk: int = 100_000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // 30), dim)).astype(np.float32)
    x = np.empty((n, dim), dtype=np.float32)
    for s in range(0, n, chunk):
        m = min(chunk, n - s)
        part = centres[rng.integers(0, centres.shape[0], m)]
        part += 0.9 * rng.standard_normal((m, dim), dtype=np.float32)
        part /= np.linalg.norm(part, axis=1, keepdims=True)
        x[s : s + m] = part
    return x


def exact_top10(x: np.ndarray, q: np.ndarray, chunk: int = 100_000) -> np.ndarray:
    """Exact top-10 rows by inner product, in chunks (no second copy of x, unlike IndexFlatIP)."""
    best_s = np.full((q.shape[0], 10), -np.inf, dtype=np.float32)
    best_i = np.zeros((q.shape[0], 10), dtype=np.int64)
    for s in range(0, x.shape[0], chunk):
        sc = q @ x[s : s + chunk].T
        cat_s = np.concatenate([best_s, sc], axis=1)
        cat_i = np.concatenate([best_i, np.broadcast_to(np.arange(s, s + sc.shape[1]), sc.shape)], axis=1)
        top = np.argpartition(-cat_s, 9, axis=1)[:, :10]
        best_s = np.take_along_axis(cat_s, top, axis=1)
        best_i = np.take_along_axis(cat_i, top, axis=1)
    return best_i


def pct(a: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(a) * 1e3, p))


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100_000, help="items to index")
    ap.add_argument("--dim", type=int, default=512, help="512 (USE) or 384 (e5)")
    ap.add_argument("--storage", choices=["float32", "float16", "sq8"], default="sq8")
    ap.add_argument("--hnsw-m", type=int, default=16)
    ap.add_argument("--ef-search", type=int, default=64)
    ap.add_argument("--exact-until", type=int, default=20_000)
    ap.add_argument("--batch", type=int, default=10_000, help="rows per add() call")
    ap.add_argument("--queries", type=int, default=1000, help="single-query latency samples")
    ap.add_argument("--recall-queries", type=int, default=500)
    ap.add_argument("--window", type=float, default=0.02, help="window as a fraction of the time span")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", type=Path, default=None, help="where to save (default: a temp dir)")
    ap.add_argument(
        "--sweep-ef", default="", help="comma list of efSearch values to re-measure, e.g. 64,128,256"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON line instead of text")
    args = ap.parse_args(argv)

    n, dim = args.size, args.dim
    t = time.perf_counter()
    x = make_data(n, dim, args.seed)
    times = np.arange(n, dtype=np.float64)
    ids = np.arange(n, dtype=np.int64) + 1_000_000_000
    gen_s = time.perf_counter() - t
    rng = np.random.default_rng(args.seed + 1)
    qpos = rng.integers(0, n, max(args.queries, args.recall_queries))
    q = x[qpos] + 0.02 * rng.standard_normal((qpos.size, dim), dtype=np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)

    rss0 = rss_bytes()
    idx = VectorIndex(
        dim,
        exact_until=args.exact_until,
        hnsw_m=args.hnsw_m,
        ef_search=args.ef_search,
        storage=args.storage,
        threads=args.threads,
    )
    t = time.perf_counter()
    for s in range(0, n, args.batch):
        idx.add(ids[s : s + args.batch], x[s : s + args.batch], times[s : s + args.batch])
    add_s = time.perf_counter() - t
    rss_delta = rss_bytes() - rss0

    # Single-query latency, unfiltered and windowed (window centred on the query's own time).
    lat: list[float] = []
    for i in range(args.queries):
        t = time.perf_counter()
        idx.search(q[i], k=10)
        lat.append(time.perf_counter() - t)
    half = args.window * n / 2
    lat_w: list[float] = []
    for i in range(args.queries):
        c = float(times[qpos[i]])
        t = time.perf_counter()
        idx.search(q[i], k=10, window=(c - half, c + half), exclude={int(ids[qpos[i]])})
        lat_w.append(time.perf_counter() - t)

    # Recall@10 against exact float32 search on the original vectors.
    rq = q[: args.recall_queries]
    want = exact_top10(x, rq)
    got = idx.search(rq, k=10)
    hits = sum(
        len({i - 1_000_000_000 for i, _ in g} & set(w.tolist())) for g, w in zip(got, want, strict=True)
    )
    rec = hits / want.size
    # Windowed recall: exact answer restricted to the window, checked on fewer queries.
    wq = min(100, args.recall_queries)
    hits_w = total_w = 0
    for i in range(wq):
        c = float(times[qpos[i]])
        lo, hi = max(0, int(c - half)), min(n - 1, int(c + half))
        s = x[lo : hi + 1] @ rq[i]
        w = set((np.argsort(-s)[:10] + lo).tolist())
        g = {h - 1_000_000_000 for h, _ in idx.search(rq[i], k=10, window=(c - half, c + half))[0]}
        hits_w += len(g & w)
        total_w += len(w)

    # efSearch sweep on the same built graph: recall@10 and single-query latency per value.
    sweep = []
    for ef in [int(v) for v in args.sweep_ef.split(",") if v.strip()]:
        idx.ef_search = ef
        lat_e: list[float] = []
        for i in range(min(300, args.queries)):
            t = time.perf_counter()
            idx.search(q[i], k=10)
            lat_e.append(time.perf_counter() - t)
        got_e = idx.search(rq, k=10)
        hits_e = sum(
            len({i - 1_000_000_000 for i, _ in g} & set(w.tolist())) for g, w in zip(got_e, want, strict=True)
        )
        sweep.append(
            {
                "ef": ef,
                "recall_at_10": round(hits_e / want.size, 4),
                "p50_ms": round(pct(lat_e, 50), 3),
                "p99_ms": round(pct(lat_e, 99), 3),
            }
        )
    idx.ef_search = args.ef_search

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        path = Path(d) / "vectors.idx"
        t = time.perf_counter()
        idx.save(path, meta={"model": "bench", "dim": dim, "cursor": n})
        save_s = time.perf_counter() - t
        file_mb = path.stat().st_size / 1e6
        est = idx.memory_bytes()
        kind = idx.kind
        del idx
        t = time.perf_counter()
        back, _ = VectorIndex.load(path)
        load_s = time.perf_counter() - t
        assert len(back) == n

    report = {
        "size": n,
        "dim": dim,
        "storage": args.storage,
        "kind": kind,
        "hnsw_m": args.hnsw_m,
        "ef_search": args.ef_search,
        "gen_s": round(gen_s, 1),
        "add_s": round(add_s, 1),
        "add_per_s": round(n / add_s),
        "search_p50_ms": round(pct(lat, 50), 3),
        "search_p99_ms": round(pct(lat, 99), 3),
        "window_frac": args.window,
        "window_search_p50_ms": round(pct(lat_w, 50), 3),
        "window_search_p99_ms": round(pct(lat_w, 99), 3),
        "recall_at_10": round(rec, 4),
        "window_recall_at_10": round(hits_w / max(1, total_w), 4),
        "rss_delta_bytes_per_item": round(rss_delta / n),
        "estimate_bytes_per_item": round(est / n),
        "file_mb": round(file_mb, 1),
        "save_s": round(save_s, 2),
        "load_s": round(load_s, 2),
        "loadavg_1m": round(os.getloadavg()[0], 1),
        "sweep": sweep,
    }
    if args.json:
        print(json.dumps(report))
    else:
        for key, val in report.items():
            print(f"{key:>28}: {val}")
    return report


if __name__ == "__main__":
    main()
