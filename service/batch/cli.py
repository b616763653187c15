"""``samestory batch``: deduplicate a whole corpus (JSONL/Parquet) into Parquet, locally or on Ray."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from service.batch.run import ENGINES, LEVELS


def cmd_batch(args: argparse.Namespace) -> int:
    from service.batch.io import read_records, require_pyarrow, write_parquet
    from service.batch.run import run_batch
    from service.cli import guards_wanted
    from service.config import EngineConfig

    try:
        require_pyarrow()  # the output is Parquet: say so before any work, not after it
        records = read_records(args.inputs)
        config = EngineConfig.load(args.config)
        model = None if args.model in ("none", "") else args.model
        out = run_batch(records, engine=args.engine, model=model, device=args.device, config=config,
                        guards=guards_wanted(args), into=args.into, level=args.level, batch_size=args.batch_size,
                        progress=(not args.quiet and sys.stderr.isatty()) or args.progress,
                        ray_address=args.ray_address, workers=args.workers, num_gpus=args.num_gpus,
                        search=not args.no_search_stage, nprobe=args.nprobe, list_size=args.list_size,
                        exact_scores=args.exact_scores, settle=args.settle)
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        raise SystemExit(f"samestory batch: {exc}") from exc
    files = write_parquet(args.out, records, out.results)
    summary = {**out.summary, "into": _without_password(args.into), "files": [str(f) for f in files]}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        t = summary["timings"]
        print(f"{summary['items']} items -> {summary['copy_groups']} copy groups in {t['total_s']} s "
              f"({summary['items_per_s']} items/s, engine {summary['engine']})")
        print(f"  stages: {summary['stages']}")
        print(f"  guard vetoes: {summary['guard_vetoes'] or 'none'}")
        print(f"  embedded ahead: {summary['embedded_in_plan']}, late in decide: {summary['embedded_late_in_decide']}")
        if summary["vector_search"]:
            print(f"  vector search stage: {summary['vector_search']}")
        print(f"  timings: {t}")
        print(f"  wrote {', '.join(summary['files'])} and {args.out / 'summary.json'}")
    return 0


def _without_password(url: str) -> str:
    """A store URL fit for a summary file: any password replaced by ***.

    >>> _without_password("postgresql://app:s3cret@db:5432/news"), _without_password(":memory:")
    ('postgresql://app:***@db:5432/news', ':memory:')
    """
    return re.sub(r"^(\w+://[^:/@]+):[^@/]*@", r"\1:***@", url)


def register(sub: argparse._SubParsersAction) -> None:
    from service.batch.neighbours import LIST_SIZE, NPROBE
    from service.cli import DEFAULT_MODEL

    p = sub.add_parser(
        "batch", help="deduplicate a whole corpus (JSONL/Parquet) into Parquet, locally or on a Ray cluster",
        description="Read every record of INPUT... (JSONL, or Parquet for .parquet/.pq; a record needs 'title' or "
                    "'text'), compute features, MinHash band keys and the embeddings of the items no cheap pass "
                    "settles in parallel, then decide every item in input order with the streaming engine's own "
                    "cascade, guards and representative rules. Writes OUT/part-*.parquet (each record's fields "
                    "plus row, copy_group_id, story_id, duplicate_of (row of the representative), status, stage, "
                    "score, document_id, duplicate_of_document, blocked_by, reasons) and OUT/summary.json.")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL or Parquet files, read in the order given")
    p.add_argument("--out", type=Path, required=True, help="output folder (created if missing)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="local: one process, no Ray (default); ray: the same plan on Ray Data (the ray extra)")
    p.add_argument("--ray-address", default=None,
                   help="join this Ray cluster ('auto', 'ray://HOST:10001'); default: start a local one")
    p.add_argument("--workers", type=int, default=None, help="CPUs of a local Ray cluster (default: all)")
    p.add_argument("--num-gpus", type=float, default=0.0, help="GPUs per embedding actor on Ray (default 0)")
    p.add_argument("--level", choices=LEVELS, default="copy",
                   help="which grouping the summary counts as groups: copy groups (default) or stories; every row "
                        "carries both copy_group_id and story_id")
    p.add_argument("--into", default=":memory:",
                   help="seed this store with the result ('sqlite:///PATH' or 'postgresql://...'), so live "
                        "ingestion continues from it; default: keep only the Parquet result")
    p.add_argument("--model", default=DEFAULT_MODEL,
                   help="embedder ('use', 'e5-small', 'st:PATH', 'onnx:DIR', 'none'; default %(default)s)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="device for torch/onnx back-ends")
    p.add_argument("--config", type=Path, help="TOML file with an [engine] table (thresholds, windows)")
    p.add_argument("--no-guards", action="store_true", help="disable the guards (for evaluation only: merges more; env SAMESTORY_GUARDS=false)")
    p.add_argument("--nprobe", type=int, default=NPROBE,
                   help="vector search stage: IVF lists each vector probes (default %(default)s; "
                        ">= the number of lists is exact)")
    p.add_argument("--list-size", type=int, default=LIST_SIZE,
                   help="vector search stage: vectors per IVF list on average (default %(default)s)")
    p.add_argument("--exact-scores", action="store_true",
                   help="search again, with the decide step's own index, every item the stage's pairs give no "
                        "hit, so that its score (the nearest group's cosine) is streaming's (slower; decides "
                        "nothing differently)")
    p.add_argument("--no-search-stage", action="store_true",
                   help="no sharded vector search: the decide step searches its own index for every item")
    p.add_argument("--settle", action="store_true",
                   help="once every record is decided, settle the copy groups and the stories (as `samestory "
                        "settle`: re-decided in publication order, so they do not depend on the input's order; "
                        "records without published_at follow the timed ones in content-hash order); copy_group_id "
                        "and story_id are then the settled ones")
    p.add_argument("--batch-size", type=int, default=1024, help="items per batch of the parallel stages")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--progress", action="store_true", help="force progress bars on stderr")
    p.set_defaults(func=cmd_batch)
