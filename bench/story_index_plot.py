"""A figure of a ``bench/story_index.py`` run: per-item cost and memory as the store grows.

``python -m bench.story_index_plot RUN --out PNG`` reads the run's ``--out`` JSON, or its printed
log (the per-window lines ``CONFIG {json}``), so a run still going, or stopped, can be drawn from
what it printed. Left: CPU ms an item per window, with the two searches' shares (nearest story,
copy-level vectors) and a dash-dot line at 1.5x the cost of the first window at or past 10,000
stored (issue 37's bar); right: the process's resident memory and the store's size on disk.

>>> windows = parse_log(['base {"stored": 10000, "cpu_ms_per_item": 4.0, "rss_mb": 900.0}', 'stream {"days": 3}'])
>>> windows["base"][0]["stored"], list(windows)
(10000, ['base'])
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: CI and servers have no display
import matplotlib.pyplot as plt

BAR_FROM = 10_000  # issue 37: the cost at 1,000,000 stored within 1.5x of that at 10,000
BAR_RATIO = 1.5


def parse_log(lines: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """Per configuration, the windows a run printed (lines ``CONFIG {"stored": ...}``), in order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        config, sep, rest = line.strip().partition(" ")
        if not sep or not rest.startswith('{"stored"'):
            continue
        out.setdefault(config, []).append(json.loads(rest))
    return out


def load_windows(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The windows of a run's ``--out`` JSON, or of its log when the file is not that JSON."""
    text = path.read_text("utf-8")
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        report = None
    if isinstance(report, dict) and "runs" in report:
        return {r["config"]: r["windows"] for r in report["runs"]}
    windows = parse_log(text.splitlines())
    if not windows:
        raise ValueError(f"{path}: neither a bench/story_index.py --out JSON nor its log (no window lines)")
    return windows


def plot(windows: dict[str, list[dict[str, Any]]], out: Path, title: str = "") -> Path:
    """Draw every configuration's windows into one PNG at ``out``; returns ``out``."""
    fig, (cost, mem) = plt.subplots(1, 2, figsize=(12, 4.5))
    for config, ws in windows.items():
        stored = [w["stored"] for w in ws]
        line, = cost.plot(stored, [w["cpu_ms_per_item"] for w in ws], label=f"{config}: whole engine")
        for key, style, what in (("story_search_ms_per_item", "--", "nearest story"),
                                 ("vector_search_ms_per_item", ":", "copy-level vectors")):
            if all(key in w for w in ws):
                cost.plot(stored, [w[key] for w in ws], style, color=line.get_color(), label=f"{config}: {what}")
        first = next((w for w in ws if w["stored"] >= BAR_FROM), None)
        if first is not None:
            cost.axhline(BAR_RATIO * first["cpu_ms_per_item"], color=line.get_color(), lw=0.8, ls="-.",
                         label=f"{config}: {BAR_RATIO}x the cost at {first['stored']:,} stored")
        if all("rss_mb" in w for w in ws):
            mem.plot(stored, [w["rss_mb"] for w in ws], color=line.get_color(), label=f"{config}: resident memory")
        if all("store_mb" in w for w in ws):
            mem.plot(stored, [w["store_mb"] for w in ws], "--", color=line.get_color(), label=f"{config}: store on disk")
    cost.set(xlabel="items stored", ylabel="CPU ms an item (per window)", title="per-item cost", ylim=(0, None))
    mem.set(xlabel="items stored", ylabel="MB", title="memory and store")
    for ax in (cost, mem):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="bench/story_index.py's --out JSON, or its printed log")
    ap.add_argument("--out", type=Path, required=True, help="the PNG to write")
    ap.add_argument("--title", default="", help="a title over both panels")
    args = ap.parse_args(argv)
    if not args.run.is_file():
        ap.error(f"{args.run}: no such file")
    try:
        windows = load_windows(args.run)
    except ValueError as exc:
        ap.error(str(exc))
    print(plot(windows, args.out, args.title))


if __name__ == "__main__":
    main()
