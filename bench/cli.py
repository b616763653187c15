"""``samestory bench``: the benchmark harness from the command line.

``samestory bench --size 10000 --json`` runs samestory and the alternatives on one seeded
stream and prints a summary; with ``--json`` the last stdout line is one JSON object holding
every measurement, including ``speedup_vs_embed_all``. ``--out DIR`` also writes
``bench-<size>.json`` there (the input of ``python -m bench.plots``), rewritten after every
repeat so that a run cut short keeps the repeats it finished.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.alternatives import ALTERNATIVES

DEFAULT_ALTERNATIVES = "embed-all,semhash,seed001,seed000"


def _alternatives(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if names == ["none"]:
        return []
    bad = [n for n in names if n not in ALTERNATIVES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown alternative(s) {', '.join(bad)}; valid: {', '.join(ALTERNATIVES)}"
                                         f" or 'none'")
    return names


def _count_or_zero(value: str) -> int:
    """``type=`` of ``--requests``, whose 0 means none (the tenth tour: it was refused as < 1).

    >>> _count_or_zero("0"), _count_or_zero("30")
    (0, 30)
    >>> _count_or_zero("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer >= 0, got '-1'
    """
    from models.cli import int_at_least

    return int_at_least(value, 0)


def register(subparsers: Any) -> None:
    """Add the ``bench`` sub-command to an ``argparse`` sub-parser collection."""
    from service.cli import positive_int as _positive

    p = subparsers.add_parser("bench", help="throughput, latency, memory and recall against the alternatives",
                              description="samestory bench [stream]: the news stream (ingest) against the "
                              "alternatives. samestory bench dedupe: RAG chunk dedupe on a chunk stream (10,000 "
                              "chunks of 4-6 sentences, Korean and English, 30% copies: re-formatted, "
                              "boilerplate, typos, translated) against semhash with the same encoder and a "
                              "datasketch MinHash baseline, with precision and recall on the known copies, and the "
                              "latency of 20-chunk requests (bench/dedupe_chunks.py).")
    p.add_argument("what", nargs="?", choices=["stream", "dedupe"], default="stream",
                   help="stream (default): the ingest benchmark; dedupe: the RAG chunk dedupe benchmark")
    p.add_argument("--size", type=_positive, default=10_000,
                   help="stream size in items (default %(default)s); the named eval sets support at most about "
                        "48,800 at 40%% copies and 97,700 at 70%% (larger sizes are refused, see bench/stream.py)")
    p.add_argument("--repeats", type=_positive, default=3, help="runs per method; medians are reported (default 3)")
    p.add_argument("--json", action="store_true", help="last stdout line: one JSON object with every figure")
    p.add_argument("--out", type=Path, default=None, help="also write bench-<size>.json into this folder")
    # A string default: argparse passes it through _alternatives, and --help shows it as it is typed.
    p.add_argument("--alternatives", type=_alternatives, default=DEFAULT_ALTERNATIVES,
                   help=f"comma list of {', '.join(ALTERNATIVES)} or 'none' (default %(default)s)")
    p.add_argument("--model", default="use", help="embedder spec, or 'none' for the cheap passes only (default use)")
    p.add_argument("--no-guards", action="store_true", help="engine with guards off (not the product setting)")
    p.add_argument("--dup-share", type=float, default=None,
                   help="share of copies in the stream (default 0.4 for stream, 0.3 for dedupe)")
    p.add_argument("--methods", default="samestory,semhash,minhash",
                   help="dedupe only: comma list of samestory, before (the path before the cross-lingual gate, "
                        "USE on every core; also times the requests), semhash, minhash (default %(default)s)")
    p.add_argument("--requests", type=_count_or_zero, default=30,
                   help="dedupe only: distinct 20-chunk requests timed (0: none; default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="stream seed (default %(default)s)")
    p.add_argument("--probe", type=_positive, default=100, help="single-item ingests timed per index-size checkpoint (default 100)")
    p.add_argument("--no-restart", action="store_true", help="skip the warm-restart / memory measurement")
    p.add_argument("--throughput-only", action="store_true",
                   help="measure throughput, precision and recall only: no restart, dedupe, guard or single-item "
                        "latency measurements (for a shared machine, where those take long and mean little)")
    p.add_argument("--window", type=_positive, default=None,
                   help="items per point of the throughput-against-stored-items curves (default: size / 20)")
    p.add_argument("--eval-data", default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    p.add_argument("--verifier", choices=("off", "on", "both"), default="on",
                   help="stream only: the pair verifier on (default, as the engine runs), off, or both (samestory "
                        "without it, and a second run with it reported as samestory+verifier, with its ms per "
                        "verified pair and share of the time)")
    p.add_argument("--verifier-path", default=None,
                   help="the verifier artefact (default models/verifier/verifier.npz)")
    p.add_argument("--candidate-verifier", default=None, metavar="ARTEFACT",
                   help="stream only: one more method, samestory+candidate: samestory with this verifier "
                        "artefact (e.g. a smaller retrained one), in the same rotation")
    p.add_argument("--encoder-process", action="store_true",
                   help="stream only: one more method, samestory+process: samestory with its encoder in a child "
                        "process (operations.encoder_process), in the same rotation")
    p.set_defaults(func=cmd_bench)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _summary(r: dict[str, Any]) -> str:
    st = r["stream"]
    lines = [f"stream: {r['size']} items, dup share {st['dup_share']}, {st['groups']} originals from "
             f"{len(st['sets'])} named sets, {st['hard_negative_pairs_in_stream']} hard-negative pairs "
             f"(max {st['max_size_at_this_share']} items at this share)"]
    enc = r.get("encoder_limit")
    if enc:
        lines.append(f"encoder alone, batched, every text: {enc['texts_per_s']:.0f} texts/s"
                     + (f"; on samestory's {enc['samestory_texts']} texts {enc['samestory_texts_per_s']:.0f} texts/s "
                        f"= a bound of {enc['samestory_bound_items_per_s']:.0f} items/s" if "samestory_texts" in enc else ""))
    lines.append(f"{'method':<12} {'items/s':>9} {'ratio':>7} {'of enc.':>7} {'recall':>7} {'pw prec':>8} "
                 f"{'false-merge':>11} {'hard neg':>9} {'encoder texts':>14}")
    for name, m in r["methods"].items():
        if "skipped" in m:
            lines.append(f"{name:<12} skipped: {m['skipped']}")
            continue
        ratio = m.get("throughput_ratio_to_samestory", 1.0)
        lines.append(f"{name:<12} {m['throughput']:>9.1f} {ratio:>7.3f} {_pct(m.get('share_of_encoder_limit')):>7} "
                     f"{m['recall']:>7.4f} {m['pairwise_precision']:>8.4f} {m['false_merge_rate']:>11.4f} "
                     f"{_pct(m['hard_negative_merge_rate']):>9} {m['encoder_texts']:>14d}")
    lines.append(f"speedup vs embed-all: {r['speedup_vs_embed_all']}")
    for name in ("samestory", "samestory+verifier", "samestory+candidate"):
        v = r["methods"].get(name, {}).get("verifier")
        if v:
            lines.append(f"pair verifier ({name}): {v['pairs']} pairs in {v['calls']} calls, p50 "
                         f"{v['p50_ms_per_pair']} ms per pair, {_pct(v['share_of_ingest_time'])} of the ingest time")
    lines.append(f"stage share: {r['stage_share']}")
    for cp, v in r["ingest_latency_ms"].items():
        if not v.get("samples"):  # --throughput-only: not measured
            continue
        lines.append(f"single-item ingest at {cp} indexed: p50 {v['p50_ms']:.1f} ms, p99 {v['p99_ms']:.1f} ms")
    if r.get("dedupe_100"):
        lines.append(f"dedupe(100): p50 {r['dedupe_100']['engine_p50_ms']:.1f} ms")
    if r.get("restart"):
        rs = r["restart"]
        lines.append(f"warm restart: {rs['restart_s']} s ({rs['documents']} docs, state from "
                     f"{rs.get('state_from')}), {rs['bytes_per_item']} B/item")
    if r.get("restart_rebuild"):
        rs = r["restart_rebuild"]
        lines.append(f"warm restart rebuilding from the store: {rs['restart_s']} s ({rs['documents']} docs)")
    return "\n".join(lines)


def cmd_bench(args: argparse.Namespace) -> int:
    from service.cli import check_output

    if args.out is not None:
        try:
            check_output(args.out, "--out", folder=True)  # before the minutes of measuring, not after
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    if args.what == "dedupe":
        from bench.dedupe_chunks import main as dedupe_main

        return dedupe_main(args)
    if args.dup_share is None:
        args.dup_share = 0.4
    from bench.harness import run_benchmark
    from bench.stream import load_pool, max_size

    if not 0.0 <= args.dup_share < 1.0:
        raise SystemExit(f"--dup-share must be in [0, 1), got {args.dup_share}")
    try:
        stories = len(load_pool(args.eval_data).stories)
    except (FileNotFoundError, ValueError) as exc:
        raise SystemExit(str(exc)) from exc
    for flag, path in (("--verifier-path", args.verifier_path), ("--candidate-verifier", args.candidate_verifier)):
        if path is not None and not Path(path).is_file():
            raise SystemExit(f"{flag}: no verifier artefact at {path}")
    if args.size > max_size(args.dup_share, stories):
        raise SystemExit(f"--size {args.size} at {args.dup_share:.0%} copies needs more distinct originals than the "
                         f"named eval sets hold ({stories}); at most {max_size(args.dup_share, stories)} items")

    def write(result: dict[str, Any]) -> None:
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            result["command"] = " ".join(sys.argv)
            (args.out / f"bench-{args.size}.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")

    result = run_benchmark(args.size, repeats=args.repeats, alternatives=args.alternatives, model=args.model,
                           guards=not args.no_guards, seed=args.seed, dup_share=args.dup_share,
                           data_dir=args.eval_data, probe=0 if args.throughput_only else args.probe,
                           restart=not (args.no_restart or args.throughput_only), extras=not args.throughput_only,
                           window=args.window, log=sys.stderr, on_repeat=write, verifier=args.verifier,
                           verifier_path=args.verifier_path, encoder_process=args.encoder_process,
                           candidate_verifier=args.candidate_verifier)
    write(result)
    print(_summary(result))
    if args.json:
        print(json.dumps(result, separators=(",", ":")))
    return 0
