"""Experiment (issue 8): a pair classifier trained on frozen USE embeddings, same group folds.

The learned scorer (``models.xling.train``) is a logistic regression over a handful of scalar
features, so it can only re-weight the cosine. This checks whether the embeddings themselves
hold more: a small MLP over ``[u * v, |u - v|, cos]`` of the Korean and English sides (the
classic siamese pair head), trained per fold on the labelled pairs, hard negatives included,
with each set given the same total weight. Nothing is fine-tuned inside USE.

It is scored exactly like the approaches in ``docs/xling.md``: pooled out-of-fold predictions
with the same group folds (``PairSet.folds``), recall at precision 0.99 and 0.97 per set.

    python -m models.xling.pairmlp --data ../shared/eval-data [--epochs 30] [--hidden 256] [--json]

It needs the ``st`` extra (torch, CPU). Results go to stdout; no artefact is written: the
approach ships only if it wins (docs/xling.md records the run).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from models.xling.data import N_FOLDS, TRAIN_SETS, PairSet, embed_cached, load_set
from models.xling.train import recall_at_precision


def pair_inputs(ps: PairSet) -> np.ndarray:
    """``[u * v, |u - v|, cos]`` per row, u the Korean side and v the English side (USE)."""
    e = ps.emb["use"]
    a_ko = np.array([la == "ko" for la in ps.a_lang])
    u = e[np.where(a_ko, ps.a_idx, ps.b_idx)]
    v = e[np.where(a_ko, ps.b_idx, ps.a_idx)]
    cos = np.einsum("ij,ij->i", u, v)[:, None]
    return np.concatenate([u * v, np.abs(u - v), cos], axis=1).astype(np.float32)


def fit_predict(x_tr: np.ndarray, y_tr: np.ndarray, w_tr: np.ndarray, x_te: np.ndarray, *, hidden: int,
                epochs: int, seed: int, lr: float = 1e-3, weight_decay: float = 1e-4,
                dropout: float = 0.1) -> np.ndarray:
    """Train a one-hidden-layer MLP with weighted BCE; return probabilities for ``x_te``.

    Inputs are standardised with the training rows' mean and spread: ``u * v`` of unit vectors
    in 512 dimensions is ~1e-3 per component, far too small for the optimiser otherwise.
    """
    import torch

    mean, scale = x_tr.mean(axis=0), x_tr.std(axis=0) + 1e-6
    x_tr, x_te = (x_tr - mean) / scale, (x_te - mean) / scale
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(x_tr.shape[1], hidden), torch.nn.GELU(), torch.nn.Dropout(dropout),
                              torch.nn.Linear(hidden, 1))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    x, y = torch.from_numpy(x_tr), torch.from_numpy(y_tr.astype(np.float32))
    w = torch.from_numpy((w_tr / w_tr.mean()).astype(np.float32))
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        net.train()
        for idx in torch.randperm(len(x), generator=gen).split(256):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x[idx]).squeeze(1), y[idx],
                                                                        weight=w[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    with torch.no_grad():
        return torch.sigmoid(net(torch.from_numpy(x_te)).squeeze(1)).numpy()


def run(data_dir: Path, *, hidden: int = 256, epochs: int = 30, set_names: Sequence[str] = TRAIN_SETS) -> dict:
    import torch

    torch.set_num_threads(1)
    t0 = time.time()
    sets = [load_set(data_dir, n) for n in set_names]
    for ps in sets:
        embed_cached(ps, "use")
    xs = [pair_inputs(ps) for ps in sets]
    folds = [ps.folds() for ps in sets]
    oof = [np.zeros(len(ps.labels)) for ps in sets]
    for k in range(N_FOLDS):
        tr = [f != k for f in folds]
        x_tr = np.concatenate([x[m] for x, m in zip(xs, tr, strict=True)])
        y_tr = np.concatenate([ps.labels[m] for ps, m in zip(sets, tr, strict=True)])
        w_tr = np.concatenate([np.full(int(m.sum()), 1.0 / max(int(m.sum()), 1)) for m in tr])
        x_te = np.concatenate([x[~m] for x, m in zip(xs, tr, strict=True)])
        p = fit_predict(x_tr, y_tr, w_tr, x_te, hidden=hidden, epochs=epochs, seed=k)
        start = 0
        for si, m in enumerate(tr):
            n = int((~m).sum())
            oof[si][~m] = p[start : start + n]
            start += n
    out: dict = {"approach": f"pair_mlp_use (hidden {hidden}, {epochs} epochs)", "seconds": round(time.time() - t0, 1)}
    for ps, s in zip(sets, oof, strict=True):
        cos = ps.cos("use")
        out[ps.name] = {
            "pair_mlp_r_at_p99": recall_at_precision(s, ps.labels, 0.99)[0],
            "pair_mlp_r_at_p97": recall_at_precision(s, ps.labels, 0.97)[0],
            "use_cos_r_at_p99": recall_at_precision(cos, ps.labels, 0.99)[0],
            "use_cos_r_at_p97": recall_at_precision(cos, ps.labels, 0.97)[0],
            "pairs": len(ps.labels),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m models.xling.pairmlp", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/eval-data"), help="eval-data folder (dev splits)")
    p.add_argument("--hidden", type=int, default=256, help="hidden units of the pair MLP")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = p.parse_args(argv)
    if args.hidden < 1 or args.epochs < 1:
        p.error("--hidden and --epochs must be >= 1")
    res = run(args.data, hidden=args.hidden, epochs=args.epochs)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['approach']}, out-of-fold, {res['seconds']} s")
    print("set | R@P.99 use_cos -> pair_mlp | R@P.97 use_cos -> pair_mlp")
    for name in TRAIN_SETS:
        r = res[name]
        print(f"{name} | {r['use_cos_r_at_p99']:.3f} -> {r['pair_mlp_r_at_p99']:.3f} | "
              f"{r['use_cos_r_at_p97']:.3f} -> {r['pair_mlp_r_at_p97']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
