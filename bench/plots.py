"""Figures for bench/RESULTS.md from the JSON files ``samestory bench --out DIR`` writes.

``python -m bench.plots bench/results`` reads every ``bench-<size>.json`` there and writes
PNGs under ``bench/figures/``: how throughput, single-item latency, memory per item and
restart time grow with the stream size, each method's throughput against its recall, and
(``throughput-vs-stored-*.png``) each method's items/s per window of the stream as the store
grows, against the encoder's own limit.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: CI and servers have no display
import matplotlib.pyplot as plt

FIGURES = Path(__file__).resolve().parent / "figures"


def load_results(folder: Path) -> list[dict[str, Any]]:
    runs = [json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("bench-*.json"))]
    return sorted(runs, key=lambda r: r["size"])


def plot_scaling(runs: list[dict[str, Any]], out: Path) -> Path:
    """Throughput of every method, latency, memory and restart time against the stream size."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    sizes = [r["size"] for r in runs]
    ax = axes[0][0]
    names = sorted({n for r in runs for n, m in r["methods"].items() if "throughput" in m})
    for name in names:
        pts = [(r["size"], r["methods"][name]["throughput"]) for r in runs if "throughput" in r["methods"].get(name, {})]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set(xscale="log", yscale="log", xlabel="stream size (items)", ylabel="items/s (median)", title="throughput")
    ax.legend(fontsize=8)
    ax = axes[0][1]
    for key, style in (("p50_ms", "o-"), ("p99_ms", "s--")):
        pts = [(int(cp), v[key]) for r in runs[-1:] for cp, v in r["ingest_latency_ms"].items()]
        pts += [(int(cp), v[key]) for r in runs[:-1] for cp, v in r["ingest_latency_ms"].items()
                if int(cp) not in {p[0] for p in pts}]
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=key.replace("_ms", ""))
    ax.axhline(20, color="grey", lw=0.8, ls=":", label="target p99 20 ms")
    ax.set(xscale="log", yscale="log", xlabel="items indexed", ylabel="ms", title="single-item ingest latency")
    ax.legend(fontsize=8)
    ax = axes[1][0]
    mem = [(r["size"], r["restart"]["bytes_per_item"]) for r in runs if r.get("restart")]
    ax.plot([m[0] for m in mem], [m[1] / 1024 for m in mem], "o-")
    ax.axhline(1.5, color="grey", lw=0.8, ls=":", label="target 1.5 KB")
    ax.set(xscale="log", xlabel="stream size (items)", ylabel="KB per indexed item", title="resident memory of the state")
    ax.legend(fontsize=8)
    ax = axes[1][1]
    for label, style, pick in (("rebuilt from the store", "o-", _rebuild), ("from the state snapshot", "s--", _snap)):
        rs = [(r["size"], pick(r)["restart_s"]) for r in runs if pick(r)]
        if rs:
            ax.plot([x[0] for x in rs], [x[1] for x in rs], style, label=f"model + open + state, {label}")
    ax.axhline(30, color="grey", lw=0.8, ls=":", label="target 30 s at 1M")
    ax.set(xscale="log", yscale="log", xlabel="stream size (items)", ylabel="s", title="warm restart")
    ax.legend(fontsize=8)
    fig.suptitle(f"samestory bench, sizes {sizes}")
    fig.tight_layout()
    path = out / "scaling.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _rebuild(run: dict[str, Any]) -> dict[str, Any] | None:
    """The restart that rebuilt the state from the store (runs before the snapshot only had this one)."""
    r = run.get("restart_rebuild") or run.get("restart")
    return r if r and r.get("state_from", "store") == "store" else None


def _snap(run: dict[str, Any]) -> dict[str, Any] | None:
    r = run.get("restart")
    return r if r and r.get("state_from") == "snapshot" else None


def plot_tradeoff(run: dict[str, Any], out: Path) -> Path:
    """Throughput vs recall of every method at one size: speed is never shown without misses."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, m in run["methods"].items():
        if "throughput" not in m:
            continue
        ax.scatter(m["recall"], m["throughput"], s=60)
        ax.annotate(f"{name}\n{m['false_merges']} false merges", (m["recall"], m["throughput"]), fontsize=8,
                    xytext=(5, 5), textcoords="offset points")
    ax.set(yscale="log", xlabel="recall of known duplicates", ylabel="items/s (median)",
           title=f"throughput vs recall, {run['size']} items")
    fig.tight_layout()
    path = out / f"tradeoff-{run['size']}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _dup_tag(run: dict[str, Any]) -> str:
    return f"dup{round(100 * run['stream']['dup_share'])}"


def plot_windows(run: dict[str, Any], out: Path) -> Path | None:
    """Items/s per window of N items against the items stored, for every method of one run.

    Streaming methods get a curve (per-window medians over the repeats); semhash deduplicates
    in one batch call, so it is a flat line at its overall throughput. The encoder alone on
    every text (batched) is the dotted limit; the right axis reads as a share of it.
    """
    curves = {n: m for n, m in run["methods"].items() if m.get("windows")}
    if not curves:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, m in curves.items():
        w = m["windows"]
        ax.plot([p["stored"] for p in w], [p["items_per_s"] for p in w], marker=".", label=name)
    for name, m in run["methods"].items():
        if name not in curves and m.get("throughput"):
            ax.axhline(m["throughput"], ls="--", lw=1.2, color="tab:brown", label=f"{name} (one batch call, overall)")
    limit = (run.get("encoder_limit") or {}).get("texts_per_s")
    if limit:
        ax.axhline(limit, ls=":", lw=1.5, color="black", label=f"encoder alone, batched ({limit:.0f} texts/s)")
        sec = ax.secondary_yaxis("right", functions=(lambda y: y / limit, lambda s: s * limit))
        sec.set_ylabel("share of the encoder's limit")
    ax.set(yscale="log", xlabel="items stored (end of window)", ylabel=f"items/s per window of {run.get('window')} items",
           title=f"throughput as the store grows: {run['size']} items, {run['stream']['dup_share']:.0%} copies")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    path = out / f"throughput-vs-stored-{run['size']}-{_dup_tag(run)}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.plots")
    p.add_argument("folder", type=Path, help="folder holding bench-<size>.json files")
    p.add_argument("--out", type=Path, default=FIGURES)
    args = p.parse_args(argv)
    runs = load_results(args.folder)
    if not runs:
        raise SystemExit(f"no bench-*.json in {args.folder}")
    args.out.mkdir(parents=True, exist_ok=True)
    if all(r.get("restart") and r.get("ingest_latency_ms") for r in runs):  # not after --throughput-only
        print(plot_scaling(runs, args.out))
    for r in runs:
        print(plot_tradeoff(r, args.out))
        windows = plot_windows(r, args.out)
        if windows is not None:
            print(windows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
