"""The sharded vector search stage alone: recall of its candidate pairs against exact search, and
its cost per item, for several ``nprobe`` (docs/scale.md, "The sharded vector search")::

    python -m bench.batch_search --size 20000 --nprobe 1,2,4,8,16 --out var/batch_search_20k.json
    python -m bench.batch_search --size 20000 --list-size 1024,256,64 --nprobe 8,16 --out var/batch_search_lists.json

Builds the dev-set corpus (``bench.batch_scale.corpus``), runs the plan's stages up to the
embeddings on the local executor (the vectors are kept in ``var/`` for the next run), computes
every pair of embedded texts with cosine >= the stage's floor exactly (blocked matrix products),
then runs the stage (``service.batch.neighbours.search_all``) at each ``nprobe`` and reports the
share of the exact pairs it found: overall, and at or above the engine's own threshold (the
pairs that can decide a merge).

Several ``--list-size`` values split the same vectors into more, smaller lists: the IVF cells of
a corpus many times larger at the default list size (the lists a query's neighbours straddle
depend on how finely the space is cut, ``nlist``, more than on how many vectors fill a cell), so
the recall of a fixed ``nprobe`` as ``nlist`` grows is measured on real vectors.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import print_report


def exact_pairs(x: np.ndarray, floor: float, block: int = 2048) -> set[tuple[int, int]]:
    """Every pair ``i < j`` with ``x[i] . x[j] >= floor``.

    >>> sorted(exact_pairs(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], np.float32), 0.5))
    [(0, 1)]
    """
    out: set[tuple[int, int]] = set()
    for s in range(0, len(x), block):
        sims = x[s : s + block] @ x.T
        i, j = np.nonzero(sims >= floor)
        i = i + s
        keep = i < j
        out.update(zip(i[keep].tolist(), j[keep].tolist(), strict=True))
    return out


def vectors_for(size: int, seed: int, data: str | None, cache: Path) -> tuple[list[str], np.ndarray]:
    """The embedded texts of the corpus and their vectors (computed once, then read from ``cache``)."""
    if cache.exists():
        z = np.load(cache, allow_pickle=False)
        return [str(t) for t in z["texts"]], z["vectors"]
    import functools

    from bench.batch_scale import corpus
    from models.registry import load_embedder
    from service.batch import local
    from service.batch.run import columns_of
    from service.config import EngineConfig

    records = corpus(size, seed=seed, data_dir=data)
    prepared = local.execute(columns_of(records, time.time()), config=EngineConfig.load(),
                             make_embedder=functools.partial(load_embedder, "use"))
    texts = list(prepared.vectors)
    x = np.stack([prepared.vectors[t] for t in texts]).astype(np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, texts=np.asarray(texts), vectors=x)
    return texts, x


def main(argv: list[str] | None = None) -> int:
    from service.batch.neighbours import LIST_SIZE, SearchPlan, lists_for
    from service.config import EngineConfig

    p = argparse.ArgumentParser(prog="python -m bench.batch_search", description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=20000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default=None, help="eval-data folder (default ../shared/eval-data)")
    p.add_argument("--nprobe", default="1,2,4,8,16", help="comma-separated")
    p.add_argument("--list-size", default=str(LIST_SIZE), help="comma-separated vectors per list")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    config = EngineConfig.load().for_model("use")
    plan = SearchPlan.for_engine(config)
    texts, x = vectors_for(args.size, args.seed, args.data, Path(f"var/batch_vectors_{args.size}_{args.seed}.npz"))
    t0 = time.perf_counter()
    exact = exact_pairs(x, plan.floor)
    exact_s = time.perf_counter() - t0
    threshold = float(config.copy.embedding_threshold or 0.0)  # resolved by for_model: never None here
    sims = {pr: float(x[pr[0]] @ x[pr[1]]) for pr in exact}
    deciding = {pr for pr, s in sims.items() if s >= threshold}
    report: dict[str, Any] = {"size": args.size, "embedded_texts": len(texts), "floor": plan.floor,
                              "threshold": threshold, "exact_pairs": len(exact),
                              "exact_pairs_at_threshold": len(deciding), "exact_s": round(exact_s, 3), "runs": []}
    for list_size in [int(v) for v in args.list_size.split(",") if v.strip()]:
        nlist = lists_for(len(texts), list_size)
        for nprobe in [int(v) for v in args.nprobe.split(",") if v.strip()]:
            report["runs"].append(_run(x, exact, deciding, sims, floor=plan.floor, nlist=nlist, nprobe=nprobe,
                                       size=args.size, list_size=list_size))
            print(json.dumps(report["runs"][-1]), flush=True)
    print_report(report, args.out)
    return 0


def _run(x: np.ndarray, exact: set[tuple[int, int]], deciding: set[tuple[int, int]],
         sims: dict[tuple[int, int], float], *, floor: float, nlist: int, nprobe: int, size: int,
         list_size: int) -> dict[str, Any]:
    """The stage once, at ``nlist`` lists and ``nprobe`` probes: its recall and cost."""
    from service.batch.neighbours import search_all

    t0, c0 = time.perf_counter(), time.process_time()
    pairs = search_all(np.arange(len(x)), x, floor=floor, nlist=nlist, nprobe=nprobe)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    found = set(zip(pairs["a"].tolist(), pairs["b"].tolist(), strict=True))
    missed = sorted(deciding - found, key=lambda pr: -sims[pr])
    run = {"list_size": list_size, "lists": nlist, "nprobe": min(nprobe, nlist), "pairs": len(found),
           "recall": round(len(found & exact) / max(1, len(exact)), 5),
           "recall_at_threshold": round(len(deciding & found) / max(1, len(deciding)), 5),
           "missed_at_threshold": len(missed), "top_missed_cosines": [round(sims[m], 4) for m in missed[:5]],
           "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
           "cpu_ms_per_text": round(1000 * cpu / max(1, len(x)), 4),
           "cpu_ms_per_item": round(1000 * cpu / max(1, size), 4)}
    return run


if __name__ == "__main__":
    raise SystemExit(main())
