"""Calibrate the embedding stage's cosine threshold for a model from labelled pairs.

For each set, the lowest cosine whose precision on a seeded sample reaches the set's floor
(issue 3: 0.97 on the Korean-English news sets, 0.90 on Tatoeba), with its recall. The engine's
per-model values (``service.config.CALIBRATED_EMBEDDING_THRESHOLDS``) come from this command:

    python -m eval.calibrate --model e5-small --sample 800
    python -m eval.calibrate --model use --sample 800

Only the plain embedding cosine is measured (no cascade, no guards): it is the number the
embedding stage compares. Texts of 600 characters or more (whole articles) are left out.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from eval.data import eval_data_dir

# Precision floors of issue 3, by set.
FLOORS = {"ntrex128-kor-eng": 0.97, "koen-news-park": 0.97, "tatoeba-kor-eng": 0.90}


@dataclass(frozen=True)
class Calibration:
    set: str
    floor: float
    threshold: float | None  # None: no threshold in the grid reaches the floor
    precision: float
    recall: float
    neg_mean: float
    pos_mean: float


def lowest_threshold(cos: np.ndarray, labels: np.ndarray, floor: float,
                     grid: np.ndarray | None = None) -> tuple[float | None, float, float]:
    """The lowest grid value whose precision >= ``floor``, with (precision, recall) there.

    >>> lowest_threshold(np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 1, 0, 1]), 0.99)
    (0.705, 1.0, 0.6666666666666666)
    """
    if cos.shape != labels.shape:
        raise ValueError("cos and labels must have the same shape")
    grid = np.round(np.arange(0.30, 0.995, 0.005), 3) if grid is None else grid
    positives = max(int((labels == 1).sum()), 1)
    for t in grid:
        pred = cos >= t
        tp = int((pred & (labels == 1)).sum())
        fp = int((pred & (labels == 0)).sum())
        if tp + fp and tp / (tp + fp) >= floor:
            return float(t), tp / (tp + fp), tp / positives
    return None, 0.0, 0.0


def calibrate(model: str, data_dir: Path, sample: int, seed: int = 0) -> list[Calibration]:
    from models.registry import load_embedder

    embedder = load_embedder(model, cache_size=0)
    out = []
    for name, floor in FLOORS.items():
        path = data_dir / name / "dev.jsonl"
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
        rows = [r for r in rows if len(r["a"]["text"]) < 600 and len(r["b"]["text"]) < 600]
        rows = random.Random(seed).sample(rows, min(sample, len(rows)))
        labels = np.array([r["label"] for r in rows])
        a = embedder.encode([r["a"]["text"] for r in rows])
        b = embedder.encode([r["b"]["text"] for r in rows])
        cos = (a * b).sum(axis=1)
        t, p, r = lowest_threshold(cos, labels, floor)
        out.append(Calibration(name, floor, t, p, r, float(cos[labels == 0].mean()), float(cos[labels == 1].mean())))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="use", help="embedder spec (models.registry), default %(default)s")
    parser.add_argument("--sample", type=int, default=800, help="pairs sampled per set (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=None, help="eval-data folder (default $SAMESTORY_EVAL_DATA)")
    args = parser.parse_args(argv)
    if args.sample < 10:
        parser.error("--sample must be at least 10")
    rows = calibrate(args.model, eval_data_dir(args.data), args.sample, args.seed)
    print(f"{'set':<20} {'floor':>5} {'threshold':>9} {'P':>6} {'R':>6} {'neg cos':>8} {'pos cos':>8}")
    for c in rows:
        t = "-" if c.threshold is None else f"{c.threshold:.3f}"
        print(f"{c.set:<20} {c.floor:>5.2f} {t:>9} {c.precision:>6.3f} {c.recall:>6.3f} {c.neg_mean:>8.3f} {c.pos_mean:>8.3f}")
    found = [c.threshold for c in rows if c.threshold is not None]
    if found:
        print(f"lowest threshold meeting every floor: {max(found):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
