"""Experiment (issue 8): a pair classifier trained on frozen USE embeddings, same group folds.

The learned scorer (``research.xling.train``) is a logistic regression over a handful of scalar
features, so it can only re-weight the cosine. This checks whether the embeddings themselves
hold more: a small MLP over ``[u * v, |u - v|, cos]`` of the Korean and English sides (the
classic siamese pair head), trained per fold on the labelled pairs, hard negatives included,
with each set given the same total weight. Nothing is fine-tuned inside USE.

It is scored exactly like the approaches in ``docs/xling.md``: pooled out-of-fold predictions
with the same group folds (``PairSet.folds``), recall at precision 0.99 and 0.97 per set.

    python -m research.xling.pairmlp --data ../shared/eval-data [--epochs 30] [--hidden 256] [--json]

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

from research.xling.data import N_FOLDS, TRAIN_SETS, PairSet, embed_cached, load_set
from research.xling.pairscorer.scorer import PairHead, head_inputs
from research.xling.train import logreg_prob, recall_at_precision, set_weights


def pair_inputs(ps: PairSet) -> np.ndarray:
    """``[u * v, |u - v|, cos]`` per row, u the Korean side and v the English side (USE)."""
    e = ps.emb["use"]
    a_ko = np.array([la == "ko" for la in ps.a_lang])
    return head_inputs(e[np.where(a_ko, ps.a_idx, ps.b_idx)], e[np.where(a_ko, ps.b_idx, ps.a_idx)])


def fit_head(x_tr: np.ndarray, y_tr: np.ndarray, w_tr: np.ndarray, *, hidden: int, epochs: int, seed: int,
             lr: float = 1e-3, weight_decay: float = 1e-4, dropout: float = 0.1) -> PairHead:
    """Train a one-hidden-layer MLP with weighted BCE on :func:`head_inputs` rows.

    Inputs are standardised with the training rows' mean and spread: ``u * v`` of unit vectors
    in 512 dimensions is ~1e-3 per component, far too small for the optimiser otherwise. The
    result is returned as numpy weights (:class:`PairHead`), which is what the scorer runs.
    """
    import torch

    mean, scale = x_tr.mean(axis=0), x_tr.std(axis=0) + 1e-6
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(x_tr.shape[1], hidden), torch.nn.GELU(), torch.nn.Dropout(dropout),
                              torch.nn.Linear(hidden, 1))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    x = torch.from_numpy(((x_tr - mean) / scale).astype(np.float32))
    y = torch.from_numpy(y_tr.astype(np.float32))
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
    first, last = net[0], net[3]
    return PairHead(mean=mean.astype(np.float32), scale=scale.astype(np.float32),
                    w1=first.weight.detach().numpy().T.copy(), b1=first.bias.detach().numpy().copy(),
                    w2=last.weight.detach().numpy()[0].copy(), b2=float(last.bias.detach().numpy()[0]))


def _load(data_dir: Path, set_names: Sequence[str]) -> tuple[list[PairSet], list[np.ndarray], list[np.ndarray]]:
    """The sets with their USE vectors, each set's head inputs, and each set's group folds."""
    import torch

    torch.set_num_threads(1)  # the heads are small; one thread leaves the other core to the machine
    sets = [load_set(data_dir, n) for n in set_names]
    for ps in sets:
        embed_cached(ps, "use")
    return sets, [pair_inputs(ps) for ps in sets], [ps.folds() for ps in sets]


def _head_logits(sets: Sequence[PairSet], xs: Sequence[np.ndarray], train_masks: Sequence[np.ndarray],
                 test_masks: Sequence[np.ndarray], *, hidden: int, epochs: int, seed: int) -> list[np.ndarray]:
    """Fit one head on the training rows of every set (each set weighing the same); its logits
    for each set's test rows."""
    x_tr = np.concatenate([x[m] for x, m in zip(xs, train_masks, strict=True)])
    y_tr = np.concatenate([ps.labels[m] for ps, m in zip(sets, train_masks, strict=True)])
    w_tr = set_weights(train_masks)
    head = fit_head(x_tr, y_tr, w_tr, hidden=hidden, epochs=epochs, seed=seed)
    return [head.logit_from_inputs(x[m]) for x, m in zip(xs, test_masks, strict=True)]


def run(data_dir: Path, *, hidden: int = 256, epochs: int = 30, set_names: Sequence[str] = TRAIN_SETS) -> dict:
    """The head alone, out of fold, against the plain USE cosine."""
    t0 = time.time()
    sets, xs, folds = _load(data_dir, set_names)
    oof = [np.zeros(len(ps.labels), dtype=np.float32) for ps in sets]
    for k in range(N_FOLDS):
        te = [f == k for f in folds]
        for si, z in enumerate(_head_logits(sets, xs, [f != k for f in folds], te, hidden=hidden, epochs=epochs,
                                            seed=k)):
            oof[si][te[si]] = z
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


def _stack_cv(data_dir: Path, *, hidden: int, epochs: int, seed: int, set_names: Sequence[str]) -> dict:
    """Out-of-fold scores of the shipped LR and of the LR with the head's logit (nested folds).

    Also returns ``outer``: every row's logit from the head of the fold that held it out, which
    is what the final LR is trained on.
    """
    from research.xling.pairscorer.scorer import ALL_FEATURES
    from research.xling.train import APPROACHES, _features, _make_builder, fit_logreg

    sets, xs, folds = _load(data_dir, set_names)
    cols = [ALL_FEATURES.index(c) for c in APPROACHES["full_lr_use"][1]]
    oof = {"full_lr_use": [np.zeros(len(ps.labels)) for ps in sets],
           "stacked": [np.zeros(len(ps.labels)) for ps in sets]}
    outer_all = [np.zeros(len(ps.labels), dtype=np.float32) for ps in sets]
    kw = {"hidden": hidden, "epochs": epochs}
    for k in range(N_FOLDS):
        tr = [f != k for f in folds]
        te = [f == k for f in folds]
        inner = [np.zeros(int(m.sum()), dtype=np.float32) for m in tr]  # training rows' logits, from inner folds
        for j in range(N_FOLDS):
            if j == k:
                continue
            fit_m = [(f != k) & (f != j) for f in folds]
            for si, z in enumerate(_head_logits(sets, xs, fit_m, [f == j for f in folds], seed=seed + 10 * k + j,
                                                **kw)):
                inner[si][(folds[si] == j)[tr[si]]] = z
        outer = _head_logits(sets, xs, tr, te, seed=seed + 10 * k + k, **kw)
        for si, z in enumerate(outer):
            outer_all[si][te[si]] = z
        fb = _make_builder(sets, tr, ["use"], seed=k)
        x_tr = [_features(ps, np.flatnonzero(m), fb, ["use"])[:, cols] for ps, m in zip(sets, tr, strict=True)]
        x_te = [_features(ps, np.flatnonzero(m), fb, ["use"])[:, cols] for ps, m in zip(sets, te, strict=True)]
        y = np.concatenate([ps.labels[m] for ps, m in zip(sets, tr, strict=True)])
        w = set_weights(tr)
        for name, xtr, xte in (
            ("full_lr_use", x_tr, x_te),
            ("stacked", [np.c_[a, b] for a, b in zip(x_tr, inner, strict=True)],
             [np.c_[a, b] for a, b in zip(x_te, outer, strict=True)]),
        ):
            fit = fit_logreg(np.concatenate(xtr), y, w)
            for si, x in enumerate(xte):
                oof[name][si][te[si]] = logreg_prob(fit, x)
    return {"sets": sets, "xs": xs, "cols": cols, "oof": oof, "outer": outer_all}


def run_stacked(data_dir: Path, *, hidden: int = 256, epochs: int = 10, seed: int = 0,
                set_names: Sequence[str] = TRAIN_SETS, cv: dict | None = None) -> dict:
    """The shipped LR (``full_lr_use``) with the pair head's logit as one more feature.

    Inside each outer fold the head's score for the *training* rows comes from inner folds
    (the other four outer folds, one held out at a time), so the LR never weighs a score the
    head produced for a row it was trained on.
    """
    from research.xling.train import NEWS_SETS, pr_at, shared_threshold

    t0 = time.time()
    if cv is None:
        cv = _stack_cv(data_dir, hidden=hidden, epochs=epochs, seed=seed, set_names=set_names)
    sets, oof = cv["sets"], cv["oof"]
    out: dict = {"approach": f"full_lr_use + pair head logit (hidden {hidden}, {epochs} epochs, seed {seed})",
                 "seconds": round(time.time() - t0, 1)}
    news = [si for si, ps in enumerate(sets) if ps.name in NEWS_SETS]
    for name in oof:  # the engine's operating point: one threshold, P >= 0.99 on both news sets
        out[f"{name}_news_threshold"] = shared_threshold([(oof[name][si], sets[si].labels) for si in news], 0.99)
    for si, ps in enumerate(sets):
        out[ps.name] = {f"{name}_r_at_{tag}": recall_at_precision(oof[name][si], ps.labels, p)[0]
                        for name in oof for tag, p in (("p99", 0.99), ("p97", 0.97))}
        for name in oof:
            out[ps.name][f"{name}_pr_at_news_threshold"] = pr_at(oof[name][si], ps.labels,
                                                                 out[f"{name}_news_threshold"])
    return out


def train_stacked(data_dir: Path, out: Path, *, hidden: int = 256, epochs: int = 10, seed: int = 0,
                  check: bool = True) -> dict:
    """Cross-validate, then fit ``stacked_use`` on all dev rows and write the scorer artefact.

    The shipped head is trained on every dev row; the LR above it is trained on the outer
    folds' head logits (each row scored by a head that did not see it), and the thresholds come from the
    cross-validated scores, the same rules as ``research.xling.train``: the shipped one is the
    lowest with precision >= 0.99 on both news sets.
    """
    from research.xling.pairscorer.scorer import ALL_FEATURES, PairScorer
    from research.xling.train import (
        MONO_SLOPE,
        NEWS_SETS,
        _features,
        _issue3_shared,
        _issue3_threshold,
        _make_builder,
        check_sets,
        fit_logreg,
        pr_at,
        shared_threshold,
    )

    if hidden < 1 or epochs < 1:
        raise ValueError(f"hidden and epochs must be >= 1, got hidden={hidden}, epochs={epochs}")
    t0 = time.time()
    cv = _stack_cv(data_dir, hidden=hidden, epochs=epochs, seed=seed, set_names=TRAIN_SETS)
    report = run_stacked(data_dir, hidden=hidden, epochs=epochs, seed=seed, cv=cv)
    sets, xs, cols, oof = cv["sets"], cv["xs"], cv["cols"], cv["oof"]["stacked"]
    # Every dev row's logit from the head of the fold that held it out: what the final LR weighs.
    z_oof = cv["outer"]
    per = [(s, ps.labels) for s, ps in zip(oof, sets, strict=True)]
    news = [p for p, ps in zip(per, sets, strict=True) if ps.name in NEWS_SETS]
    allm = [np.ones(len(ps.labels), bool) for ps in sets]
    fb = _make_builder(sets, allm, ["use"], seed=N_FOLDS)
    xall = [_features(ps, np.arange(len(ps.labels)), fb, ["use"]) for ps in sets]
    for name in ("hub_ko_use", "hub_en_use"):
        fb.hub_mean[name] = float(np.concatenate([x[:, ALL_FEATURES.index(name)] for x in xall]).mean())
    fb.hub_mean["head_use"] = float(np.concatenate(z_oof).mean())
    mean, scale, coef, icpt = fit_logreg(
        np.concatenate([np.c_[x[:, cols], z] for x, z in zip(xall, z_oof, strict=True)]),
        np.concatenate([ps.labels for ps in sets]),
        np.concatenate([np.full(len(ps.labels), 1.0 / len(ps.labels)) for ps in sets]),
    )
    fb.head = fit_head(np.concatenate(xs), np.concatenate([ps.labels for ps in sets]),
                       np.concatenate([np.full(len(ps.labels), 1.0 / len(ps.labels)) for ps in sets]),
                       hidden=hidden, epochs=epochs, seed=seed + 2000)
    t_cos = _issue3_threshold(sets)
    scorer = PairScorer(
        name="stacked_use",
        feature_names=[ALL_FEATURES[c] for c in cols] + ["head_use"],
        mean=mean, scale=scale, coef=coef, intercept=icpt,
        # As for full_lr_use: P >= 0.99 on both news sets, out of fold (docs/xling.md).
        threshold=shared_threshold(news, 0.99),
        alt_thresholds={"p99_all_sets": shared_threshold(per, 0.99), "p97": shared_threshold(per, 0.97),
                        "issue3": _issue3_shared(per, [ps.name for ps in sets])},
        builder=fb, mono_cos_threshold=t_cos, mono_slope=MONO_SLOPE,
    )
    scorer.save(out)
    for tag, t in scorer.alt_thresholds.items():  # every operating point, out of fold
        for ps, (sc, y) in zip(sets, per, strict=True):
            report[ps.name][f"stacked_pr_at_{tag}"] = pr_at(sc, y, t)
    report.update({"artefact": str(out), "artefact_bytes": out.stat().st_size, "threshold": scorer.threshold,
                   "alt_thresholds": scorer.alt_thresholds, "mono_cos_threshold": t_cos,
                   "coef": dict(zip(scorer.feature_names, map(float, coef), strict=True))})
    if check:
        report["check_sets"] = check_sets(data_dir, scorer, cos_threshold=t_cos)
    report["seconds"] = round(time.time() - t0, 1)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m research.xling.pairmlp", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/eval-data"), help="eval-data folder (dev splits)")
    p.add_argument("--hidden", type=int, default=256, help="hidden units of the pair MLP")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--seed", type=int, default=0, help="offset of the heads' seeds (--stack, --train-out)")
    p.add_argument("--train-out", type=Path, help="fit stacked_use on all dev rows and write the scorer artefact here")
    p.add_argument("--report", type=Path, help="with --train-out: also write the JSON report here")
    p.add_argument("--no-check", action="store_true",
                   help="with --train-out: skip the KorSTS / PAWS-X / UCI over-merge check")
    p.add_argument("--stack", action="store_true",
                   help="score the shipped LR with and without the head's logit as a feature (nested folds)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = p.parse_args(argv)
    if args.hidden < 1 or args.epochs < 1:
        p.error("--hidden and --epochs must be >= 1")
    if args.train_out:
        rep = train_stacked(args.data, args.train_out, hidden=args.hidden, epochs=args.epochs, seed=args.seed,
                            check=not args.no_check)
        text = json.dumps(rep, indent=1)
        if args.report:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text(text + "\n", encoding="utf-8")
        print(text)
        return 0
    if args.stack:
        res = run_stacked(args.data, hidden=args.hidden, epochs=args.epochs, seed=args.seed)
        before, after = "full_lr_use", "stacked"
    else:
        res = run(args.data, hidden=args.hidden, epochs=args.epochs)
        before, after = "use_cos", "pair_mlp"
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['approach']}, out-of-fold, {res['seconds']} s")
    print(f"set | R@P.99 {before} -> {after} | R@P.97 {before} -> {after}")
    for name in TRAIN_SETS:
        r = res[name]
        print(f"{name} | {r[f'{before}_r_at_p99']:.3f} -> {r[f'{after}_r_at_p99']:.3f} | "
              f"{r[f'{before}_r_at_p97']:.3f} -> {r[f'{after}_r_at_p97']:.3f}")
    if args.stack:
        print(f"P / R at the news threshold ({res['full_lr_use_news_threshold']:.4f} -> "
              f"{res['stacked_news_threshold']:.4f}):")
        for name in TRAIN_SETS:
            a, b = res[name]["full_lr_use_pr_at_news_threshold"], res[name]["stacked_pr_at_news_threshold"]
            print(f"{name} | {a[0]:.3f} / {a[1]:.3f} -> {b[0]:.3f} / {b[1]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
