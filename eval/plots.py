"""The report's figures (matplotlib, Agg back-end: no display needed, same PNG on every machine).

Every function takes plain numbers and a path and writes one PNG; nothing here reads eval
texts, so no text can leak into a figure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from eval.metrics import PRCurve
from eval.sweep import SweepRow


def _save(fig: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_sweep(rows: Sequence[SweepRow], stage: str, path: str | Path, title: str = "") -> Path:
    """Precision / recall / F1 (left axis) and items remaining (right axis) against the threshold."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ts = [r.threshold for r in rows]
    for name in ("precision", "recall", "f1"):
        ys = [getattr(r, name) for r in rows]
        ax.plot(ts, [math.nan if y is None else y for y in ys], marker="o", label=name)
    ax.set_xlabel(f"{stage} threshold")
    ax.set_ylabel("precision / recall / F1")
    ax.set_ylim(0, 1.02)
    ax2 = ax.twinx()
    ax2.plot(ts, [r.items_remaining for r in rows], color="grey", linestyle="--", marker="s", label="items remaining")
    ax2.set_ylabel("items remaining")
    # A count: ticked in whole numbers, with room for two of them when it barely moves (37.2 read oddly).
    counts = [r.items_remaining for r in rows]
    if counts and max(counts) - min(counts) < 2:
        ax2.set_ylim(min(counts) - 1, max(counts) + 1)
    ax2.yaxis.set_major_locator(MaxNLocator(integer=True))
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], loc="lower left", fontsize=8)
    ax.set_title(title or f"{stage} threshold sweep", fontsize=10)
    return _save(fig, Path(path))


def plot_pr_curves(curves: Mapping[str, PRCurve], path: str | Path, title: str = "") -> Path:
    """One precision-recall curve per method (finite thresholds only)."""
    fig, ax = plt.subplots(figsize=(5.6, 4.4))
    for name, c in curves.items():
        pts = [(r, p) for t, p, r in zip(c.thresholds, c.precision, c.recall, strict=True) if math.isfinite(t)]
        if pts:
            ax.plot([r for r, _ in pts], [p for _, p in pts], label=name, linewidth=1.3)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_xlim(0, 1.0)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title(title, fontsize=10)
    return _save(fig, Path(path))


def plot_score_histogram(labels: Sequence[int], scores: Sequence[float], threshold: float, path: str | Path,
                         title: str = "") -> Path:
    """Cosine distribution of gold-same vs gold-different pairs, with the engine's threshold."""
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    pos = [s for y, s in zip(labels, scores, strict=True) if y and math.isfinite(s)]
    neg = [s for y, s in zip(labels, scores, strict=True) if not y and math.isfinite(s)]
    bins = [i / 50 for i in range(-10, 51)]
    ax.hist(neg, bins=bins, alpha=0.6, label=f"gold different (n={len(neg)})", color="tab:red")
    ax.hist(pos, bins=bins, alpha=0.6, label=f"gold same (n={len(pos)})", color="tab:blue")
    ax.axvline(threshold, color="black", linestyle="--", linewidth=1, label=f"threshold {threshold:.2f}")
    ax.set_xlabel("embedding cosine")
    ax.set_ylabel("pairs")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return _save(fig, Path(path))


def plot_f1_bars(f1: Mapping[str, Mapping[str, float | None]], path: str | Path, title: str = "") -> Path:
    """Grouped bars: one group per set, one bar per method."""
    sets = list(f1)
    methods: list[str] = []
    for per in f1.values():
        for m in per:
            if m not in methods:
                methods.append(m)
    fig, ax = plt.subplots(figsize=(max(7.0, 1.2 * len(sets)), 4.4))
    width = 0.8 / max(1, len(methods))
    for i, m in enumerate(methods):
        xs = [j + i * width for j in range(len(sets))]
        ys = [f1[s].get(m) or 0.0 for s in sets]
        ax.bar(xs, ys, width=width, label=m)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(sets))])
    ax.set_xticklabels(sets, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("F1")
    ax.set_ylim(0, 1.0)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(title, fontsize=10)
    return _save(fig, Path(path))
