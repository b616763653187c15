"""Streaming against the local batch on the equivalence corpus, with the decide step's searches
checked one by one (research/notes/scale.md, "The batch plan with the pair verifier on"). Not
part of the product: nothing in service/ imports it.

    PYTHONPATH=$PWD nice -n 15 python -m research.batch_vs_streaming --size 20000 --cache var/bvs.pkl
    SAMESTORY_VERIFIER=false PYTHONPATH=$PWD python -m research.batch_vs_streaming --size 20000

As ``tests/service/batch/test_batch_equivalence.py``: ``bench.batch_scale.corpus`` (seed 0) from
the eval data, streaming ingest through one USE table of vectors by text, then ``samestory batch``
(local executor) on the same table. ``--cache``: the streaming labels and the vector table are
kept in that file (keyed by nothing: delete it when the corpus, the engine or the verifier
setting changes), so a second run repeats the batch alone. Prints one JSON object: items in
other copy groups than streaming's, pair agreement, texts embedded ahead and late, the search
stage's lists and pairs and how the decide step's searches were answered.

``--check-searches``: every search the decide step answers from the pairs is also asked of the
engine's own index; a search whose groups differ (``set``) or come back in another order
(``order``) is counted, and the first few printed. On 2026-12-06 (band and lead matches embedded
ahead, before ties went to the index) all of them were groups tied on one anchor vector.
"""

from __future__ import annotations

import argparse
import functools
import json
import pickle
import time
from pathlib import Path
from typing import Any


def _check_searches(out: dict[str, Any], show: int) -> None:
    """Wrap ``CandidateVectors.search`` (this process only) to compare with the wrapped index."""
    from service.batch import candidates

    plain = candidates.CandidateVectors.search
    out.update({"set": 0, "order": 0})

    def search(self: Any, vectors: Any, k: int = 10, *, window: Any = None, exclude: Any = None) -> Any:
        got = plain(self, vectors, k, window=window, exclude=exclude)
        ref = self.inner.search(vectors, k, window=window, exclude=exclude)
        a, b = [g for g, _ in got[0]], [g for g, s in ref[0] if s >= self.floor]
        if a != b:
            kind = "order" if sorted(a) == sorted(b) else "set"
            out[kind] += 1
            if out["set"] + out["order"] <= show:
                print(kind, "pairs:", got[0], "\n  index:", ref[0], flush=True)
        return got

    candidates.CandidateVectors.search = search  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    from bench.batch_scale import corpus, differing_items, pair_agreement, streaming
    from models.registry import load_embedder
    from service.batch.decide import PrecomputedEmbedder
    from service.batch.run import run_batch

    p = argparse.ArgumentParser(prog="python -m research.batch_vs_streaming", description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=20_000)
    p.add_argument("--data", default=None, help="eval-data folder (default ../shared/eval-data)")
    p.add_argument("--cache", type=Path, help="keep streaming's labels and the vectors here")
    p.add_argument("--check-searches", action="store_true", help="compare every search with the index's own")
    p.add_argument("--show", type=int, default=5, help="differing searches to print (--check-searches)")
    p.add_argument("--bodied", type=float, default=0.0, help="share of copy groups given a body (bench.batch_scale.corpus)")
    p.add_argument("--show-items", type=int, default=0, help="differing items to print, with both runs' reasons")
    args = p.parse_args(argv)
    records = corpus(args.size, seed=0, data_dir=args.data, bodied=args.bodied)
    shared = PrecomputedEmbedder({}, functools.partial(load_embedder, "use"))
    if args.cache is not None and args.cache.exists():
        with args.cache.open("rb") as f:
            saved = pickle.load(f)  # a file this script wrote
        shared.vectors.update(saved["vectors"])
        live, details = saved["live"], saved["details"]
    else:
        details: list[Any] = []
        live, seconds = streaming(records, shared, details)
        print("streaming", round(seconds, 1), "s", flush=True)
        if args.cache is not None:
            with args.cache.open("wb") as f:
                pickle.dump({"vectors": dict(shared.vectors), "live": live, "details": details}, f)
    checked: dict[str, Any] = {}
    if args.check_searches:
        _check_searches(checked, args.show)
    t0 = time.perf_counter()
    out = run_batch(records, engine="local", model="use", make_embedder=lambda: shared)
    got = [r["copy_group_id"] for r in out.results]
    s = out.summary
    diff = differing_items(live, got)
    for i in diff[: args.show_items]:
        r = out.results[i]
        print(i, "bodied" if records[i].article.body else "bare", "| streaming", details[i][:3], "| batch",
              (r["status"], r["stage"], r["score"]), r["reasons"][:2], flush=True)
    print(json.dumps({"batch_s": round(time.perf_counter() - t0, 1),
                      "items": len(records), "bodied": sum(bool(r.article.body) for r in records),
                      "items_in_differing_groups": len(diff),
                      "pair_agreement": pair_agreement(live, got), "embedded_in_plan": s["embedded_in_plan"],
                      "embedded_late_in_decide": s["embedded_late_in_decide"],
                      "settled_by_cheap_passes_in_plan": s["settled_by_cheap_passes_in_plan"],
                      "vector_search": s["vector_search"], **({"searches_differing": checked} if checked else {})}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
