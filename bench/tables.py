"""Markdown tables for bench/RESULTS.md from the JSON files ``samestory bench --out DIR`` writes.

``python -m bench.tables bench/results/realistic/dup40 bench/results/realistic/dup70`` prints,
for every ``bench-<size>.json`` in those folders, one table of every method's throughput (as
items/s, as a ratio to samestory and as a share of the encoder's limit measured in the same
run) beside its precision and recall, so the numbers in the document are the files' numbers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

NAMES = {"samestory": "**samestory** (cascade + guards + SQLite store)",
         "embed-all": "embed-everything + FAISS (same encoder and threshold)",
         "semhash": "semhash (same encoder and threshold, one batch call)",
         "seed001": "datasketch MinHash = seed 001 (MD5 + MinHashLSH 0.85)",
         "seed000": "seed 000 pass alone (gate + IDF 3-gram 0.30)"}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f} %"


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def table(run: dict[str, Any]) -> str:
    """One markdown table (and a line about the encoder) for one benchmark JSON."""
    enc = run.get("encoder_limit") or {}
    st = run["stream"]
    head = (f"{run['size']:,} items, {st['dup_share']:.0%} copies ({st['groups']:,} originals, "
            f"{st['hard_negative_pairs_in_stream']:,} hard-negative pairs), medians of {run['repeats']} rotated "
            f"repeats; load average at the end {run['machine'].get('load_avg_at_end')}")
    lines = [head, ""]
    if enc:
        line = (f"Encoder alone (batched, calls of {enc['call_size']:,}, {enc['texts_sampled']:,} of the stream's texts): "
                f"**{enc['texts_per_s']:,.0f} texts/s** = the limit of any embed-everything method")
        if enc.get("samestory_texts"):
            line += (f"; on a sample of the {enc['samestory_texts']:,} texts samestory sent it: "
                     f"{enc['samestory_texts_per_s']:,.0f} texts/s, so with the encoder as its only cost samestory "
                     f"would reach {enc['samestory_bound_items_per_s']:,.0f} items/s")
        lines += [line + ".", ""]
    lines += ["| method | items/s | samestory / method | share of encoder limit | recall of known copies | "
              "pairwise precision | pairwise recall | false-merge rate | hard negatives merged | encoder texts |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ours = run["methods"]["samestory"]["throughput"]
    for name, m in run["methods"].items():
        if "throughput" not in m:
            lines.append(f"| {NAMES.get(name, name)} | skipped: {m.get('skipped', '')} | | | | | | | | |")
            continue
        hn = f"{m['hard_negatives_merged']:,} / {m['hard_negatives']:,} ({_pct(m['hard_negative_merge_rate'])})"
        lines.append(f"| {NAMES.get(name, name)} | {m['throughput']:,.0f} | {_num(ours / m['throughput'], 2)} | "
                     f"{_pct(m.get('share_of_encoder_limit'))} | {_num(m['recall'])} | {_num(m['pairwise_precision'])} | "
                     f"{_num(m['pairwise_recall'])} | {_num(m['false_merge_rate'])} | {hn} | {m['encoder_texts']:,} |")
    runs = {n: [round(x) for x in m["throughput_runs"]] for n, m in run["methods"].items() if "throughput_runs" in m}
    lines += ["", f"Per-repeat items/s: {runs}" + (f"; encoder texts/s: {[round(x) for x in enc['texts_per_s_runs']]}"
                                                   if enc else "")]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.tables", description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+", type=Path, help="folders holding bench-<size>.json files")
    args = p.parse_args(argv)
    found = False
    for folder in args.folders:
        for path in sorted(folder.glob("bench-*.json")):
            found = True
            print(f"### {path}\n\n{table(json.loads(path.read_text('utf-8')))}\n")
    if not found:
        raise SystemExit(f"no bench-*.json in {', '.join(map(str, args.folders))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
