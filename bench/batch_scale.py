"""Batch vs streaming on one corpus: the same copy groups? how long each stage takes? (docs/scale.md)

Builds a corpus from the dev sets (``bench.stream.build_stream``: real Korean and English
headlines, 40 % copies), then runs, one after the other in one process: streaming ingest
(``Deduper.ingest_many``), ``samestory batch`` on the local executor, and on a local Ray cluster
with each worker count asked for. Prints JSON with every run's stage timings and the pairwise
agreement of its copy groups with streaming's::

    python -m bench.batch_scale --size 3000 --workers 1,2 --out var/batch_scale_3k.json

``--repeat 3 --skip streaming,local`` runs only the Ray worker counts, interleaved (1, 2, 1, 2,
...), so that a comparison on a shared machine sees the same load; each run records the load
average before and after it.

>>> pair_agreement([0, 0, 1, 2], [5, 5, 6, 7]), pair_agreement([0, 0, 1, 2], [0, 1, 1, 2])
(1.0, 0.6666666666666667)
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness import print_report
from service.batch.io import Record
from service.types import matched_stage


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def pair_agreement(a: Sequence[Any], b: Sequence[Any]) -> float:
    """The share of item pairs on which two groupings agree (together in both, or apart in both):
    the Rand index, from the contingency counts rather than all n^2 pairs."""
    if len(a) != len(b):
        raise ValueError(f"groupings of different lengths: {len(a)} and {len(b)}")
    n = len(a)
    if n < 2:
        return 1.0
    both = sum(_pairs(c) for c in Counter(zip(a, b, strict=True)).values())
    in_a = sum(_pairs(c) for c in Counter(a).values())
    in_b = sum(_pairs(c) for c in Counter(b).values())
    return 1.0 - (in_a + in_b - 2 * both) / _pairs(n)


def differing_items(a: Sequence[Any], b: Sequence[Any]) -> list[int]:
    """Items whose group (as a set of items) differs between the two groupings."""
    def members(labels: Sequence[Any]) -> list[frozenset[int]]:
        groups: dict[Any, set[int]] = {}
        for i, g in enumerate(labels):
            groups.setdefault(g, set()).add(i)
        frozen = {g: frozenset(m) for g, m in groups.items()}
        return [frozen[g] for g in labels]

    ma, mb = members(a), members(b)
    return [i for i in range(len(a)) if ma[i] != mb[i]]


# Where bodies come from (``corpus(bodied=...)``): NTREX-128's dev articles, Korean and English
# sentence by sentence aligned, one sentence a line after the headline line.
BODY_SET = "ntrex128-kor-eng"
# Of a bodied group's items, the share that carry the body; the others are bare headlines, so
# that (bare, bodied) pairs, which the embedding stage scores headline with headline, are common.
BODY_ITEM_SHARE = 0.5


def article_bodies(data_dir: str | None = None) -> list[dict[str, list[str]]]:
    """The body sentences (the lines after the headline) of each NTREX dev article, by language,
    in file order."""
    from eval.data import eval_data_dir

    docs: dict[str, dict[str, list[str]]] = {}
    path = eval_data_dir(data_dir) / BODY_SET / "dev.clusters.jsonl"
    with path.open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            docs.setdefault(r["cluster"], {})[r["lang"]] = r["text"].split("\n")[1:]
    return [d for d in docs.values() if len(d.get("ko", ())) == len(d.get("en", ())) >= 4]


def corpus(size: int, *, seed: int = 0, data_dir: str | None = None, bodied: float = 0.0) -> list[Record]:
    """``size`` items of the benchmark stream as batch records (in stream order).

    ``bodied``: the share of copy groups (the stream's ``group``) given a body: a run of body
    sentences of one NTREX article from a seeded sentence on, in the item's language (a
    translated copy carries the translated body), on about half of the group's items
    (:data:`BODY_ITEM_SHARE`). The body is another story's, so a bare copy and its bodied
    original often meet below the cosine threshold and only their headlines match: the regime
    of the embedding stage's headline re-scoring. 0 keeps the stream's headlines only."""
    import random

    from bench.stream import build_stream
    from service.types import Article

    if not 0.0 <= bodied <= 1.0:
        raise ValueError(f"bodied must be in [0, 1], got {bodied}")
    stream = build_stream(size, seed=seed, data_dir=data_dir)
    docs = article_bodies(data_dir) if bodied else []
    rng = random.Random(f"bodies:{seed}")
    body_of: dict[int, tuple[int, int]] = {}  # group -> (article, first sentence)
    out = []
    for i, item in enumerate(stream.items):
        fields = item.article()
        if bodied and item.kind == "original" and rng.random() < bodied:
            d = rng.randrange(len(docs))
            body_of[item.group] = (d, rng.randrange(len(docs[d]["en"]) - 3))
        if item.group in body_of and item.lang in ("ko", "en") and rng.random() < BODY_ITEM_SHARE:
            d, start = body_of[item.group]
            fields["body"] = "\n".join(docs[d][item.lang][start:])
        out.append(Record(f"stream:{i}", Article.from_dict(dict(fields)), fields))
    return out


def streaming(records: Sequence[Record], model: str | Any | None,
              details: list[tuple[Any, ...]] | None = None) -> tuple[list[int], float]:
    """Copy-group labels from live ingestion, and its seconds; ``details`` (a list) receives each
    item's (status, stage, score, story id). ``model``: a spec or an embedder object."""
    from service.engine import Deduper

    t0 = time.perf_counter()
    engine = Deduper.open(":memory:", model=model)
    try:
        results = engine.ingest_many([r.article for r in records])
    finally:
        engine.close()
    if details is not None:
        # the stage as batch's rows report it: "none" for a new item (matched_stage)
        details.extend((r.status, matched_stage(r.status, r.decision.stage), r.decision.score, r.story_id)
                       for r in results)
    return [r.cluster_id for r in results], time.perf_counter() - t0


class SavedVectors:
    """An embedder factory (picklable, so Ray's embedding actors can build it) that serves the
    vectors an earlier run computed, saved with :meth:`save`, and embeds with ``model`` only the
    texts not among them.

    The equivalence test embeds the corpus once and runs streaming, the local batch and the Ray
    batch on the same vectors: each run still makes every decision through its own plan (the
    same texts asked for, the same late embeddings counted), and the model's vectors of one text
    are the same in each run, so what is compared is the plan, not the encoder's run-to-run
    arithmetic.

    >>> import tempfile, numpy as np
    >>> path = Path(tempfile.mkdtemp()) / "v.npz"
    >>> SavedVectors.save(path, {"a": np.array([1.0, 0.0], np.float32)}, name="toy", dim=2)
    >>> e = SavedVectors(path, "none")()
    >>> e.name, e.dim, e.encode(["a"]).tolist(), e.hits, e.late
    ('toy', 2, [[1.0, 0.0]], 1, 0)
    """

    def __init__(self, path: Path, model: str) -> None:
        self.path = Path(path)
        self.model = model

    @staticmethod
    def save(path: Path, vectors: dict[str, Any], *, name: str, dim: int) -> None:
        import numpy as np

        texts = list(vectors)
        table = np.stack([vectors[t] for t in texts]).astype(np.float32) if texts else np.zeros((0, dim), np.float32)
        np.savez(path, texts=np.array(texts, dtype=str), vectors=table, name=np.array(name), dim=np.array(dim))

    def __call__(self) -> Any:
        import functools

        import numpy as np

        from models.registry import load_embedder
        from service.batch.decide import PrecomputedEmbedder

        with np.load(self.path) as saved:
            vectors = dict(zip(saved["texts"].tolist(), saved["vectors"], strict=True))
            name, dim = str(saved["name"]), int(saved["dim"])
        return PrecomputedEmbedder(vectors, functools.partial(load_embedder, self.model), name=name, dim=dim)


def detail_differences(live: Sequence[tuple[Any, ...]], results: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Items whose status, stage, score (to 1e-6) or story grouping differ from streaming's."""
    got = [(r["status"], r["stage"], r["score"], r["story_id"]) for r in results]
    def score_differs(a: Any, b: Any) -> bool:
        return (a is None) != (b is None) or (a is not None and abs(a - b) > 1e-6)
    return {"status": sum(a[0] != b[0] for a, b in zip(live, got, strict=True)),
            "stage": sum(a[1] != b[1] for a, b in zip(live, got, strict=True)),
            "score": sum(score_differs(a[2], b[2]) for a, b in zip(live, got, strict=True)),
            "score_null_in_batch_only": sum(a[2] is not None and b[2] is None for a, b in zip(live, got, strict=True)),
            "story_items": len(differing_items([a[3] for a in live], [b[3] for b in got]))}


def main(argv: list[str] | None = None) -> int:
    from service.batch import ray_engine
    from service.batch.run import run_batch

    p = argparse.ArgumentParser(prog="python -m bench.batch_scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=3000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default=None, help="eval-data folder (default ../shared/eval-data)")
    p.add_argument("--model", default="use", help="'use' (default) or 'none' for the cheap passes only")
    p.add_argument("--workers", default="1,2", help="Ray worker counts to run, comma-separated ('' for none)")
    p.add_argument("--repeat", type=int, default=1, help="run the Ray worker counts this many times, interleaved")
    p.add_argument("--skip", default="", help="runs to leave out, comma-separated: streaming, local")
    p.add_argument("--no-search-stage", action="store_true", help="batch runs without the sharded vector search")
    p.add_argument("--out", type=Path, help="also write the JSON here")
    args = p.parse_args(argv)
    model = None if args.model == "none" else args.model
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    records = corpus(args.size, seed=args.seed, data_dir=args.data)
    report: dict[str, Any] = {"size": args.size, "seed": args.seed, "model": model, "runs": {}}
    labels: list[int] | None = None
    live: list[tuple[Any, ...]] = []
    if "streaming" not in skip:
        load = os.getloadavg()[0]
        labels, seconds = streaming(records, model, live)
        report["runs"]["streaming"] = {"total_s": round(seconds, 3), "copy_groups": len(set(labels)),
                                       "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)}
        print("streaming", json.dumps(report["runs"]["streaming"]), flush=True)
    runs: list[tuple[str, int | None, str]] = [] if "local" in skip else [("local", None, "local")]
    for rep in range(args.repeat):
        for w in [int(w) for w in args.workers.split(",") if w.strip()]:
            runs.append(("ray", w, f"ray_{w}w" + (f"_{rep + 1}" if args.repeat > 1 else "")))
    for engine, workers, name in runs:
        load = os.getloadavg()[0]
        out = run_batch(records, engine=engine, model=model, workers=workers, search=not args.no_search_stage)
        if engine == "ray":
            ray_engine.shutdown()  # the next worker count starts its own local cluster
        got = [r["copy_group_id"] for r in out.results]
        run: dict[str, Any] = {**out.summary, "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)}
        if labels is not None:
            diff = differing_items(labels, got)
            run.update({"pair_agreement_with_streaming": pair_agreement(labels, got),
                        "items_in_differing_groups": len(diff), "differing_items": diff[:50],
                        "items_differing_from_streaming_in": detail_differences(live, out.results)})
        report["runs"][name] = run
        print(name, json.dumps({k: run.get(k) for k in (
            "timings", "load_before", "load_after", "pair_agreement_with_streaming", "items_in_differing_groups",
            "items_differing_from_streaming_in", "embedded_late_in_decide", "vector_search")}), flush=True)
    print_report(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
