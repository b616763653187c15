"""``samestory eval``: pairs, clusters, sweep, calibrate and report sub-commands.

The main CLI (``service/cli.py``) calls :func:`register`; ``python -m eval.cli ...`` runs the
same commands stand-alone. Progress bars go to stderr; with ``--json`` the last stdout line is
one JSON object, so scripts can ``tail -n1``.

Examples::

    samestory eval pairs ../shared/eval-data/pawsx-ko/dev.jsonl --sample 500 --json
    samestory eval clusters ../shared/eval-data/parakqc-ko/dev.clusters.jsonl --sample 1000
    samestory eval sweep ../shared/eval-data/tatoeba-kor-eng/dev.jsonl --stage embedding --limit 300
    samestory eval calibrate ../shared/eval-data/{ntrex128-kor-eng,koen-news-park,tatoeba-kor-eng}/dev.jsonl \\
        --floors 0.97,0.97,0.90 --sample 600
    samestory eval report --data ../shared/eval-data --out eval --baselines --sample 1500
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from eval.metrics import Confusion

if TYPE_CHECKING:
    from eval.data import ClusterItem, Pair

T = TypeVar("T")


def _common(p: argparse.ArgumentParser) -> None:
    from service.cli import positive_int

    p.add_argument("--limit", type=positive_int, default=None, help="only the first N records (quick looks)")
    p.add_argument("--sample", type=positive_int, default=None,
                   help="a seeded sample of about N records (pair files: stratified by kind; cluster files: "
                   "whole gold clusters)")
    p.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    p.add_argument("--model", type=_model, default="use",
                   help="embedder spec for models.registry (default use; 'none' only with pairs --route dedupe)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bars (drawn on stderr only when it is a terminal, as ingest and settle do)")


def _progress(args: argparse.Namespace) -> bool:
    """Progress bars on stderr: not with ``--no-progress``, and only on a terminal, so a log file
    of a long run does not fill with redrawn bars."""
    return not args.no_progress and sys.stderr.isatty()


def _model(value: str) -> str:
    """``--model``: a spec ``models.registry`` knows, or ``none`` (refused where a model is needed)."""
    from models.registry import check_spec

    if value.strip().lower() == "none":
        return "none"
    try:
        check_spec(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _need_model(args: argparse.Namespace) -> None:
    if args.model == "none":
        raise SystemExit(f"samestory eval {args.eval_command}: --model none runs only with "
                         "'eval pairs --route dedupe'; this needs an embedder")


def _check_output(path: Path | None, flag: str, *, folder: bool = False) -> None:
    """An output path that cannot be written, refused before the evaluation runs."""
    from service.cli import check_output

    if path is not None:
        try:
            check_output(path, flag, folder=folder)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None


def register(subparsers: Any) -> None:
    """Add ``eval`` and its sub-commands to an ``argparse`` sub-parser collection."""
    from service.cli import positive_int

    ev = subparsers.add_parser("eval", help="evaluate against labelled eval data (pairs, clusters, sweeps, "
                               "calibration, report)",
                               description="Score the engine on labelled pair files and cluster files in the "
                               "eval-data JSONL format, sweep or calibrate a stage's threshold, or write a report.")
    sub = ev.add_subparsers(dest="eval_command", required=True)

    p = sub.add_parser("pairs", help="precision/recall/F1 of the compare decision on a pair file",
                       description="Decide every labelled pair of an eval-data pair file and print the "
                       "confusion counts, P, R, F1, FMR (false-merge rate: merged share of the label-0 pairs, "
                       "fp / (fp + tn)) and AP (average precision of the embedding cosine, a pair a guard blocked ranked "
                       "last: it reads the cosine's ranking given the guards, not the decisions), overall and by kind; "
                       "'–' where a figure is undefined (P with nothing merged, R and AP with no label-1 pair, FMR with "
                       "no label-0 pair).")
    p.add_argument("file", type=Path, help="a pair file (eval-data JSONL: id, a, b, label, kind)")
    p.add_argument("--json", action="store_true", help="last stdout line: one JSON object")
    p.add_argument("--predictions", type=Path, default=None, help="write one JSON line per pair here")
    p.add_argument("--no-guards", action="store_true", help="the engine with guards off")
    p.add_argument("--baselines", action="store_true", help="also run the seeds' baselines")
    p.add_argument("--route", choices=["compare", "dedupe"], default="compare",
                   help="compare (default): the pairwise verdict of /v1/compare; dedupe: each pair through the "
                   "passage path of /v1/dedupe, merged when b is dropped as a copy of a (RAG chunk pair files)")
    _common(p)
    p.set_defaults(func=cmd_pairs)

    c = sub.add_parser("clusters", help="ingest a cluster file and score predicted vs gold clusters",
                       description="Ingest a cluster file's items in file order (each with its meta.timestamp "
                       "or published_at when present) and score the engine's copy groups (--level copy: the "
                       "same report again) or stories (--level story: the same event) against the gold "
                       "clusters: pairwise P/R/F1, B-cubed and ARI.")
    c.add_argument("file", type=Path, help="a cluster file (eval-data JSONL: id, cluster, text, lang)")
    c.add_argument("--level", choices=["copy", "story"], default="copy",
                   help="copy groups (default) or stories; the baselines differ per level")
    c.add_argument("--json", action="store_true", help="last stdout line: one JSON object")
    c.add_argument("--no-guards", action="store_true", help="the engine with guards off")
    c.add_argument("--baselines", action="store_true", help="also run the seeds' baselines of --level")
    c.add_argument("--settle", action="store_true",
                   help="settle the copy groups and stories once the file is in (samestory settle: re-decided in "
                        "publication order), then score the level asked for")
    _common(c)
    c.set_defaults(func=cmd_clusters)

    s = sub.add_parser("sweep", help="re-run the engine at each threshold of one stage (table + PNG)",
                       description="Re-run the engine (cascade and guards) over a pair file or a cluster file "
                       "at every threshold of one stage, the other stages at their configured thresholds, and "
                       "print P, R and F1 (and ARI for a cluster file) at each, with a plot of the curve.")
    s.add_argument("file", type=Path, help="a pair file or a *.clusters.jsonl file")
    s.add_argument("--stage", required=True, choices=["ngram", "embedding", "minhash"],
                   help="the stage whose threshold is swept")
    s.add_argument("--thresholds", default=None, help="comma-separated thresholds (default: a grid per stage)")
    s.add_argument("--plot", type=Path, default=None, help="PNG path (default sweep-<stage>.png)")
    s.add_argument("--no-guards", action="store_true", help="the engine with guards off")
    s.add_argument("--json", action="store_true", help="last stdout line: one JSON object")
    _common(s)
    s.set_defaults(func=cmd_sweep)

    k = sub.add_parser("calibrate", help="the lowest threshold of one stage at which precision reaches a floor "
                       "on every pair file (what to put in [engine])",
                       description="Re-run the engine (cascade and guards) over labelled pair files at every "
                       "threshold of a grid, and pick the lowest one at which each file's precision reaches its "
                       "floor: the most recall under your precision floors; of several with that same recall, the "
                       "highest (over-splitting is the safe failure). Prints each file's precision and "
                       "recall there and the [engine] line for --config. Use held-out pairs of your own feed "
                       "in the eval-data JSONL format.")
    k.add_argument("files", type=Path, nargs="+", help="pair files (eval-data JSONL)")
    k.add_argument("--stage", default="embedding", choices=["ngram", "embedding", "minhash"],
                   help="the stage whose threshold is calibrated (default embedding)")
    k.add_argument("--floor", type=float, default=0.97, help="precision floor for every file (default 0.97)")
    k.add_argument("--floors", default=None,
                   help="comma-separated floors, one per file in order (overrides --floor), e.g. 0.97,0.97,0.90")
    k.add_argument("--thresholds", default=None, help="comma-separated grid (default: a 0.025 grid per stage)")
    k.add_argument("--no-guards", action="store_true", help="calibrate the engine with guards off")
    k.add_argument("--json", action="store_true", help="last stdout line: one JSON object")
    _common(k)
    k.set_defaults(func=cmd_calibrate)

    r = sub.add_parser("report", help="every set of an eval-data folder into one Markdown report",
                       description="Evaluate every set of an eval-data folder (<set>/dev.jsonl pairs, "
                       "<set>/dev.clusters.jsonl clusters) with samestory, samestory without guards and, with "
                       "--baselines, the seeds' baselines, and write OUT/RESULTS.md, its figures and "
                       "OUT/results.json. Wrong verdicts are cited by pair id, never by text. Every file is "
                       "read before any set runs. A folder of your own labelled sets works the same: a set "
                       "that is not a public eval-data set is described from its rows.")
    r.add_argument("--data", type=Path, default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA or "
                   "../shared/eval-data)")
    r.add_argument("--out", type=Path, required=True, help="folder for RESULTS.md, figures/ and results.json")
    r.add_argument("--name", default="RESULTS.md", help="report file name (default RESULTS.md)")
    r.add_argument("--baselines", action="store_true", help="run the seeds' baselines next to samestory")
    r.add_argument("--cluster-sample", type=positive_int, default=None, help="about N items of whole gold clusters per set")
    r.add_argument("--sets", default=None, help="comma-separated set names (default: all)")
    r.add_argument("--tokenizer", default="okt", choices=["okt", "kiwi"], help="seed 003 tokenizer (default okt; "
                   "okt falls back to kiwipiepy where KoNLPy/Java are missing)")
    r.add_argument("--no-stories", action="store_true", help="leave out the story level (the Stories section)")
    r.add_argument("--verifier", action="store_true", help="also the engine with the pair verifier off (it is on by "
                   "default), on the pair sets: a 'samestory (no verifier)' column")
    r.add_argument("--orders", default="1,2,3", help="shuffle seeds the story level is also ingested in, streamed "
                                                     "and settled (the Arrival order table; empty: file order only; "
                                                     "default %(default)s)")
    r.add_argument("--json", action="store_true", help="last stdout line: one JSON object (F1 per set and method)")
    _common(r)
    r.set_defaults(func=cmd_report)


def _read(loader: Callable[[Path], T], path: Path) -> T:
    """``loader(path)``, with a missing or malformed file as a one-line error instead of a traceback
    (the loaders name the file, and the line where it is malformed)."""
    try:
        return loader(path)
    except (FileNotFoundError, IsADirectoryError, ValueError, UnicodeDecodeError) as exc:
        raise SystemExit(str(exc)) from exc


def _sampled_pairs(args: argparse.Namespace, path: Path) -> list[Pair]:
    """The copy-level pairs of the pair file at ``path``, read (a bad file is a one-line error) and
    cut by --sample, --limit, --seed. Story-level rows (an editor's story merges and splits across
    copy groups, ``samestory corrections export``) are left out, with a note on stderr."""
    from eval.data import copy_rows, load_pairs, subsample_pairs

    pairs, story_rows = copy_rows(_read(load_pairs, path))
    if story_rows:
        print(f"{path}: left out {story_rows} story-level row(s) (level 'story'): pairs, sweep and calibrate "
              "judge the copy level", file=sys.stderr)
    if not pairs:
        raise SystemExit(f"{path}: no copy-level pairs (every row has level 'story')")
    return subsample_pairs(pairs, sample=args.sample, limit=args.limit, seed=args.seed)


def _sampled_clusters(args: argparse.Namespace) -> list[ClusterItem]:
    """The cluster file ``args.file``, read and cut like :func:`_sampled_pairs` (whole gold clusters)."""
    from eval.data import load_clusters, subsample_clusters

    return subsample_clusters(_read(load_clusters, args.file), sample=args.sample, limit=args.limit, seed=args.seed)


def _engine_label(args: argparse.Namespace) -> str:
    """The engine's row in a result table; a run without guards is named apart, as it merges more."""
    return "samestory (no guards)" if args.no_guards else "samestory"


def _default_baselines(model: str) -> list[Any]:
    """The seeds' baselines, their embedding baseline at the engine's threshold for ``model``."""
    from eval.baselines import default_baselines
    from eval.engine import make_config

    return default_baselines(make_config().for_model(model).copy.embedding_threshold, model=model)


def _floats(text: str, what: str) -> list[float]:
    try:
        return [float(t) for t in text.split(",") if t.strip()]
    except ValueError as exc:
        raise SystemExit(f"{what} must be comma-separated numbers: {exc}") from exc


def _file_name(path: Path) -> str:
    """A file's name in tables and plot titles: eval-data splits (``<set>/dev.jsonl``,
    ``<set>/dev.clusters.jsonl``) by their set, other files by their own name (``mine.jsonl``:
    ``mine``; its folder, ``.`` in the working directory, has no name)."""
    stem = path.stem.removesuffix(".clusters")
    return path.parent.name if stem in ("dev", "test", "train") and path.parent.name else stem


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _print_pair_table(rows: Sequence[tuple[str, Confusion, float | None]]) -> None:
    print(f"{'':34} {'tp':>6} {'fp':>6} {'tn':>6} {'fn':>6} {'P':>6} {'R':>6} {'F1':>6} {'FMR':>6} {'AP':>6}")
    for name, c, ap in rows:
        print(f"{name[:34]:34} {c.tp:6d} {c.fp:6d} {c.tn:6d} {c.fn:6d} {_fmt(c.precision):>6} {_fmt(c.recall):>6} "
              f"{_fmt(c.f1):>6} {_fmt(c.false_merge_rate):>6} {_fmt(ap):>6}")


def cmd_pairs(args: argparse.Namespace) -> int:
    from eval import pairs as pair_eval

    if args.route != "dedupe":
        _need_model(args)
    _check_output(args.predictions, "--predictions")
    pairs = _sampled_pairs(args, args.file)
    progress = _progress(args)
    name = _engine_label(args)
    if args.route == "dedupe":
        from eval.engine import load_embedder
        from eval.passages import predict_dedupe
        from service.engine import Deduper, guards_on
        from service.store import open_store

        name += " dedupe"
        embedder = None if args.model == "none" else load_embedder(args.model)
        engine = Deduper(open_store(":memory:"), embedder=embedder, guards=guards_on(not args.no_guards), warm=False)
        preds = predict_dedupe(pairs, engine, progress=progress)
    else:
        preds = pair_eval.predict_samestory(pairs, guards=not args.no_guards, model=args.model, progress=progress)
    result = pair_eval.evaluate(name, pairs, preds)
    if args.predictions is not None:
        pair_eval.write_predictions(args.predictions, preds)
    extra = []
    if args.baselines:
        for b in _default_baselines(args.model):
            extra.append(pair_eval.evaluate(b.name, pairs, pair_eval.predict_baseline(b, pairs, progress=progress)))
    print(f"{args.file}: {len(pairs)} pairs")
    _print_pair_table([(r.method, r.confusion, r.average_precision) for r in [result, *extra]])
    print("\nby kind (samestory):")
    _print_pair_table([(k, m.confusion, m.average_precision) for k, m in sorted(result.by_kind.items())])
    if args.json:
        obj = result.to_dict()
        if extra:
            obj["baselines"] = [r.to_dict() for r in extra]
        print(json.dumps(obj, ensure_ascii=False))
    return 0


def cmd_clusters(args: argparse.Namespace) -> int:
    from eval import clusters as cluster_eval

    _need_model(args)
    items = _sampled_clusters(args)
    progress = _progress(args)
    name = _engine_label(args)
    if args.level == "story":
        name += " stories"
    if args.settle:
        name += ", settled" if args.level == "story" else " copy groups, settled"
    results = [cluster_eval.evaluate(name, items, cluster_eval.predict_samestory(
        items, guards=not args.no_guards, model=args.model, progress=progress, level=args.level,
        settle=args.settle))]
    if args.baselines:
        baselines = (cluster_eval.story_baselines(model=args.model) if args.level == "story" else
                     _default_baselines(args.model))
        for b in baselines:
            results.append(cluster_eval.evaluate(b.name, items, cluster_eval.predict_baseline(b, items, progress)))
    gold = len({it.cluster for it in items})
    print(f"{args.file}: {len(items)} item{'s' * (len(items) != 1)}, {gold} gold cluster{'s' * (gold != 1)}")
    print(f"{'':34} {'pred':>6} {'pairP':>6} {'pairR':>6} {'pairF1':>6} {'B3 P':>6} {'B3 R':>6} {'B3 F1':>6} {'ARI':>6}")
    for r in results:
        s = r.scores
        print(f"{r.method[:34]:34} {s.predicted_clusters:6d} {_fmt(s.pairwise_precision):>6} "
              f"{_fmt(s.pairwise_recall):>6} {_fmt(s.pairwise_f1):>6} {_fmt(s.bcubed_precision):>6} "
              f"{_fmt(s.bcubed_recall):>6} {_fmt(s.bcubed_f1):>6} {_fmt(s.ari):>6}")
    if args.json:
        obj = {**results[0].to_dict(), "level": args.level, "settled": args.settle}
        if len(results) > 1:
            obj["baselines"] = [r.to_dict() for r in results[1:]]
        print(json.dumps(obj, ensure_ascii=False))
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from eval import sweep
    from eval.data import is_cluster_file
    from eval.plots import plot_sweep

    _need_model(args)
    thresholds = _floats(args.thresholds, "--thresholds") if args.thresholds else sweep.default_thresholds(args.stage)
    plot = args.plot or Path(f"sweep-{args.stage}.png")
    _check_output(plot, "--plot")
    progress = _progress(args)
    if _read(is_cluster_file, args.file):
        items = _sampled_clusters(args)
        rows = sweep.sweep_clusters(items, args.stage, thresholds, guards=not args.no_guards, model=args.model,
                                    progress=progress)
        what = "clusters"
    else:
        pairs = _sampled_pairs(args, args.file)
        rows = sweep.sweep_pairs(pairs, args.stage, thresholds, guards=not args.no_guards, model=args.model,
                                 progress=progress)
        what = "pairs"
    plot_sweep(rows, args.stage, plot, f"{_file_name(args.file)} ({what}): {args.stage} sweep")
    print(f"{args.file}: {args.stage} threshold sweep over {what} ({rows[0].items if rows else 0} items)")
    print(f"{'threshold':>9} {'remaining':>9} {'merged':>7} {'P':>6} {'R':>6} {'F1':>6}" + (f" {'ARI':>6}" if what == "clusters" else ""))
    for r in rows:
        print(f"{r.threshold:9.3f} {r.items_remaining:9d} {r.merged:7d} {_fmt(r.precision):>6} {_fmt(r.recall):>6} "
              f"{_fmt(r.f1):>6}" + (f" {_fmt(r.ari):>6}" if what == "clusters" else ""))
    print(f"plot: {plot}")
    if args.json:
        print(json.dumps({"stage": args.stage, "over": what, "plot": str(plot), "rows": [r.to_dict() for r in rows]}))
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from eval import sweep
    from eval.data import is_cluster_file

    _need_model(args)
    floors = _floats(args.floors, "--floors") if args.floors else [args.floor] * len(args.files)
    if len(floors) != len(args.files):
        raise SystemExit(f"--floors has {len(floors)} values for {len(args.files)} files")
    if any(not 0.0 < f <= 1.0 for f in floors):
        raise SystemExit(f"precision floors must be in (0, 1], got {floors}")
    grid = sorted(set(_floats(args.thresholds, "--thresholds"))) if args.thresholds else sweep.calibration_grid(args.stage)
    if not grid or any(not 0.0 <= t <= 1.0 for t in grid):
        raise SystemExit(f"thresholds must be numbers in [0, 1], got {grid}")
    clusters = [f for f in args.files if _read(is_cluster_file, f)]
    if clusters:
        raise SystemExit(f"calibrate takes pair files; {clusters[0]} is a cluster file (use eval sweep for those)")
    names = [_file_name(f) for f in args.files]
    rows_per_file, warnings = [], []
    for f, name in zip(args.files, names, strict=True):
        pairs = _sampled_pairs(args, f)
        warnings += sweep.sample_warnings(name, pairs)
        rows_per_file.append(sweep.sweep_pairs(pairs, args.stage, grid, guards=not args.no_guards, model=args.model,
                                               progress=_progress(args)))
    flat = [w for n, rows in zip(names, rows_per_file, strict=True) if (w := sweep.flat_recall(n, rows, args.stage))]
    # Recall flat on every file: the pairs cannot tell the thresholds apart, and "the highest of the
    # same recall" is only the top of the grid (the sixth tour's templated pairs recommended USE's
    # embedding_threshold = 0.9, which on real copies loses most translations): no recommendation.
    all_flat = len(flat) == len(names)
    lowest = sweep.lowest_meeting(rows_per_file, floors)
    # several thresholds with the same recall: the highest of them (over-splitting is the safe failure)
    best = None if lowest is None else sweep.highest_same_recall(rows_per_file, floors, lowest)
    field = sweep.STAGE_FIELDS[args.stage]
    print(f"{args.stage} threshold calibration over {len(args.files)} pair file(s), grid {grid[0]}..{grid[-1]} "
          f"({len(grid)} values), guards {'off' if args.no_guards else 'on'}")
    print(f"{'threshold':>9} " + " ".join(f"{'P/R ' + n[:18]:>26}" for n in names))
    for i, t in enumerate(grid):
        mark = " <-" if i == best and not all_flat else ""
        print(f"{t:9.3f} " + " ".join(f"{_fmt(rows[i].precision) + ' / ' + _fmt(rows[i].recall):>26}"
                                      for rows in rows_per_file) + mark)
    files = [{"file": str(f), "floor": fl,
              **({"precision": rows[best].precision, "recall": rows[best].recall} if best is not None else {})}
             for f, fl, rows in zip(args.files, floors, rows_per_file, strict=True)]
    reliable = not warnings and not all_flat
    if best is None:
        print(f"no threshold in the grid reaches every floor ({', '.join(map(str, floors))}):")
        for why in sweep.unreachable_floors(names, rows_per_file, floors, args.stage):
            print(f"  {why}")
    else:
        assert lowest is not None
        which = "lowest threshold"
        if best != lowest and all_flat:
            print(f"every threshold from {grid[lowest]} to {grid[best]} meets every floor at the same recall")
        elif best != lowest:
            print(f"every threshold from {grid[lowest]} to {grid[best]} meets every floor at the same recall: "
                  "the highest is taken (a higher threshold over-splits, the safe failure)")
            which = "threshold"
        if not reliable and not all_flat:  # all flat: the range above is all the pairs can say
            print(f"{which} meeting every floor on these pairs: {grid[best]} (not a recommendation)")
        elif reliable:
            print(f"{which} meeting every floor: {grid[best]} -> put this in the --config file:")
            print(f"[engine]\n{field} = {grid[best]}")
    for w in flat:
        print(f"WARNING: {w}")
    for w in warnings:
        print(f"UNRELIABLE: {w}")
    if warnings:
        print(f"UNRELIABLE: no threshold recommended; calibrate on at least {sweep.MIN_CALIBRATION_LABELS} "
              "positive and negative copy-level pairs per file")
    elif all_flat:
        print("UNRELIABLE: no threshold recommended; recall is flat on every file, so these pairs cannot choose "
              "a threshold: add copies the threshold decides (translations, rewordings), or keep the shipped value")
    measured = grid[best] if best is not None else None
    if args.json:
        print(json.dumps({"stage": args.stage, "field": field, "threshold": measured if reliable else None,
                          "measured_threshold": measured, "reliable": reliable, "warnings": warnings,
                          "lowest_meeting": grid[lowest] if lowest is not None else None, "flat_recall": flat,
                          "files": files, "rows": [[r.to_dict() for r in rows] for rows in rows_per_file]}))
    return 0 if best is not None and reliable else 1


def _seeds(text: str) -> list[int]:
    """``--orders``: comma-separated positive shuffle seeds (0 is file order, always run)."""
    try:
        seeds = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"samestory eval report: --orders takes comma-separated integers, got {text!r}") from None
    if any(x <= 0 for x in seeds):
        raise SystemExit(f"samestory eval report: --orders seeds must be > 0 (file order is always run), got {text!r}")
    return seeds


def cmd_report(args: argparse.Namespace, argv: Sequence[str] | None = None) -> int:
    from eval.report import load_sets, losses, run_report, write_report

    _need_model(args)
    _check_output(args.out, "--out", folder=True)
    only = [s.strip() for s in args.sets.split(",") if s.strip()] if args.sets else None
    # Every set's files read first: a wrong --data or --sets, or a malformed line in the last set,
    # is one line now, not a traceback after the sets before it have run.
    loaded = _read(lambda data: load_sets(data, only), args.data)
    report = run_report(args.data, loaded=loaded, with_baselines=args.baselines, sample=args.sample, limit=args.limit,
                        cluster_sample=args.cluster_sample, seed=args.seed, model=args.model, only=only,
                        tokenizer=args.tokenizer, progress=_progress(args), stories=not args.no_stories,
                        story_orders=_seeds(args.orders), verifier=args.verifier)
    command = "samestory " + " ".join(shlex.quote(a) for a in (argv or getattr(args, "argv", None) or sys.argv[1:]))
    path = write_report(report, args.out, command, name=args.name)
    print(f"wrote {path}")
    for loss in losses(report):
        print(f"samestory below baseline on {loss.set} ({loss.what}): {loss.baseline} F1 {loss.theirs:.3f} "
              f"vs {loss.ours:.3f}")
    if args.json:
        print(json.dumps({"report": str(path), "sets": {s.name: {m: r.result.confusion.f1 for m, r in s.runs.items()}
                                                         for s in report.sets}}))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry: ``python -m eval.cli eval <sub-command> ...``."""
    parser = argparse.ArgumentParser(prog="samestory")
    register(parser.add_subparsers(dest="command", required=True))
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
