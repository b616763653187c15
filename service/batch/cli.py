"""``samestory batch``: deduplicate a whole corpus (JSONL/Parquet) into Parquet, locally or on Ray."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from service.batch.run import ENGINES, LEVELS

# What a run writes into OUT: what --overwrite removes there first, and nothing else.
RESULT_FILES = ("part-*.parquet", "summary.json")


def check_out(out: Path, *, overwrite: bool) -> None:
    """Refuse, before any work, an OUT the result cannot go to: a file, an unwritable folder, or a
    folder that already holds files (unless ``overwrite``: the earlier result there is replaced).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> check_out(d / "new", overwrite=False)
    >>> _ = (d / "part-00007.parquet").write_bytes(b"")
    >>> check_out(d, overwrite=False)
    Traceback (most recent call last):
    ...
    ValueError: --out ... is not empty (part-00007.parquet): pass --overwrite to replace the earlier result there
    >>> check_out(d, overwrite=True)
    """
    from service.cli import check_output

    check_output(out, "--out", folder=True)
    held = sorted(f.name for f in out.iterdir()) if out.is_dir() else []
    if held and not overwrite:
        shown = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
        raise ValueError(f"--out {out} is not empty ({shown}): pass --overwrite to replace the earlier result there")


def _check_into(url: str) -> None:
    """An --into URL no store back-end takes, refused before any work (it is opened at the end)."""
    from service.store import sqlite_path

    if sqlite_path(url) is None and not url.startswith(("postgresql://", "postgres://")):
        raise ValueError(f"--into: unsupported store URL {url!r}: use ':memory:', 'sqlite:///PATH' or "
                         "'postgresql://...'")


def _remove_earlier_result(out: Path) -> None:
    """--overwrite: the files an earlier run wrote into OUT go, so no stale part is read with the new ones."""
    for pattern in RESULT_FILES:
        for f in out.glob(pattern):
            f.unlink()


def cmd_batch(args: argparse.Namespace) -> int:
    import time

    from service.batch.io import read_records, require_pyarrow, untimed_warning, write_parquet
    from service.batch.run import run_batch
    from service.cli import check_model, guards_wanted
    from service.config import EngineConfig
    from service.types import duplicate_id_warning

    model = None if args.model in ("none", "") else args.model
    try:
        check_out(args.out, overwrite=args.overwrite)  # where the result goes: before any work, not after it
        _check_into(args.into)
        check_model(model, args.device)
        require_pyarrow()  # the output is Parquet: say so before any work, not after it
        records = read_records(args.inputs, args.field)
        repeated = duplicate_id_warning(r.article for r in records)
        if repeated:  # once, before the work (--quiet hides progress, not this)
            print(repeated, file=sys.stderr)
        config = EngineConfig.load(args.config)
        # An archive's undated records are timed now, out of reach of its dated ones: said once, here.
        untimed = untimed_warning(records, time.time(), config.copy.window_days)
        if untimed:
            print(untimed, file=sys.stderr)
        out = run_batch(records, engine=args.engine, model=model, device=args.device, config=config,
                        guards=guards_wanted(args), into=args.into, level=args.level, batch_size=args.batch_size,
                        progress=(not args.quiet and sys.stderr.isatty()) or args.progress,
                        ray_address=args.ray_address, workers=args.workers, num_gpus=args.num_gpus,
                        search=not args.no_search_stage, nprobe=args.nprobe, list_size=args.list_size,
                        exact_scores=args.exact_scores, settle=args.settle, quiet=args.quiet)
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        raise SystemExit(f"samestory batch: {exc}") from exc
    except KeyboardInterrupt:
        # Ctrl-C: say what is left. OUT is written only at the end; an --into store has committed
        # the records decided so far (ingest_many's chunks), and the same command into it again
        # finishes the run (the ninth tour: 1,536 of 3,003 rows in, then a second run gave the same
        # copy groups and stories as one uninterrupted run, those rows `reobserved`).
        if args.verbose >= 2:
            raise
        kept = (f"; {_without_password(args.into)} keeps the records decided before it: run the same command "
                "again to finish (those rows come back reobserved)") if args.into != ":memory:" else ""
        print(f"samestory batch: interrupted; nothing written to {args.out}{kept}", file=sys.stderr)
        return 130
    try:
        if args.out.is_dir():
            _remove_earlier_result(args.out)
        files = write_parquet(args.out, records, out.results)
        summary = {**out.summary, "into": _without_password(args.into), "files": [str(f) for f in files]}
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
    except OSError as exc:  # OUT changed under the run (checked at its start)
        raise SystemExit(f"samestory batch: cannot write the result to {args.out}: {exc}") from exc
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        t = summary["timings"]
        print(f"{summary['items']} items -> {summary['copy_groups']} copy groups, {summary['stories']} stories "
              f"in {t['total_s']} s ({summary['items_per_s']} items/s, engine {summary['engine']})")
        # The statuses say how many rows were folded into an earlier document by their URL
        # (reobserved, new_version): a corpus with repeated URLs shows it here, not only in the rows.
        print(f"  statuses: {summary['statuses']}")
        print(f"  stages that matched: {summary['stages'] or 'none'} (new items: {summary['statuses'].get('new', 0)})")
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
    from service.cli import DEFAULT_MODEL, DEVICE_HELP, non_negative_float, positive_int

    p = sub.add_parser(
        "batch", help="deduplicate a whole corpus (JSONL/Parquet) into Parquet, locally or on a Ray cluster",
        description="Read every record of INPUT... (JSONL, or Parquet for .parquet/.pq; a record needs 'title' (or "
                    "'text') or 'body'), compute features, MinHash band keys and the embeddings of the items no cheap pass "
                    "settles in parallel, then decide every item in input order with the streaming engine's own "
                    "cascade, guards and representative rules. Writes OUT/part-*.parquet (each record's fields "
                    "plus row, copy_group_id, story_id, duplicate_of (row of the representative), status, stage, "
                    "score, document_id, duplicate_of_document, blocked_by, reasons) and OUT/summary.json. OUT "
                    "must be new or empty; --overwrite replaces an earlier result in it.")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL or Parquet files, read in the order given")
    p.add_argument("--field", default=None, metavar="NAME",
                   help="the records' title field, where it is not 'title' (or 'text'): e.g. --field headline; "
                        "a record without it is read by the usual rule; the output keeps every field as it was")
    p.add_argument("--out", type=Path, required=True,
                   help="output folder: created if missing; an existing one must be empty, unless --overwrite")
    p.add_argument("--overwrite", action="store_true",
                   help="OUT may hold files: once the run succeeds, its part-*.parquet and summary.json are "
                        "deleted and the new ones written (other files stay)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="local: one process, no Ray (default); ray: the same plan on Ray Data (the ray extra)")
    p.add_argument("--ray-address", default=None,
                   help="join this Ray cluster from one of its nodes: 'auto' (the cluster this machine is a node "
                        "of) or its head's HOST:PORT; not 'ray://' (Ray Data does not run over Ray Client: submit "
                        "the command with `ray job submit`); default: start a local one")
    p.add_argument("--workers", type=positive_int, default=None, help="CPUs of a local Ray cluster (default: all)")
    p.add_argument("--num-gpus", type=non_negative_float, default=0.0, help="GPUs per embedding actor on Ray (default 0)")
    p.add_argument("--level", choices=LEVELS, default="copy",
                   help="which grouping the summary counts as groups: copy groups (default) or stories; every row "
                        "carries both copy_group_id and story_id")
    p.add_argument("--into", default=":memory:",
                   help="seed this store with the result ('sqlite:///PATH' or 'postgresql://...'), so live "
                        "ingestion continues from it; default: keep only the Parquet result")
    p.add_argument("--model", default=DEFAULT_MODEL,
                   help="embedder ('use', 'e5-small', 'st:PATH', 'onnx:DIR', 'none'; default %(default)s)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help=f"{DEVICE_HELP} (default cpu)")
    p.add_argument("--config", type=Path, help="TOML file with an [engine] table (thresholds, windows; env SAMESTORY_CONFIG)")
    p.add_argument("--no-guards", action="store_true", help="disable the guards (for evaluation only: merges more; env SAMESTORY_GUARDS=false)")
    p.add_argument("--nprobe", type=positive_int, default=NPROBE,
                   help="vector search stage: IVF lists each vector probes (default %(default)s; "
                        ">= the number of lists is exact)")
    p.add_argument("--list-size", type=positive_int, default=LIST_SIZE,
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
                        "records without published_at follow the timed ones in content-hash order); every row's "
                        "copy_group_id, story_id, status, duplicate_of, stage, score, reasons are then the settled ones")
    p.add_argument("--batch-size", type=positive_int, default=1024,
                   help="items per batch of the parallel stages (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars, and with --engine ray no Ray logs on stderr (they stay in Ray's session logs)")
    p.add_argument("--progress", action="store_true", help="force progress bars on stderr")
    p.set_defaults(func=cmd_batch)
