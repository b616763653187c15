"""Label-noise audit of the cross-lingual dev negatives (why precision 0.99 is out of reach).

    python -m research.xling.audit --data ../shared/eval-data [--oof var/xling_cache/oof_scores.npz]

A negative (ko_i, en_j) is *suspect* when en_j is a near-paraphrase of en_i, the gold
translation of ko_i (USE en-en cosine >= the given cut): e.g. Tatoeba holds two English
lines that differ only by a contraction ("I'm ..." / "I am ..."), each the gold of its own
Korean line, so each Korean line's pair with the other English line is labelled 0. The audit only reports; it never
relabels the data used for training or for the headline numbers.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from research.xling.data import TRAIN_SETS, embed_cached, load_set
from research.xling.train import recall_at_precision


def suspects(
    ps_emb: np.ndarray, a_idx: np.ndarray, b_idx: np.ndarray, labels: np.ndarray, cut: float
) -> np.ndarray:
    """Boolean mask of negatives whose b side is a near-paraphrase of the anchor's gold b side."""
    gold: dict[int, int] = {}
    for i in np.flatnonzero(labels == 1):
        gold.setdefault(int(a_idx[i]), int(b_idx[i]))
    out = np.zeros(len(labels), dtype=bool)
    for i in np.flatnonzero(labels == 0):
        g = gold.get(int(a_idx[i]))
        if g is not None and g != b_idx[i]:
            out[i] = float(ps_emb[g] @ ps_emb[b_idx[i]]) >= cut
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/eval-data"))
    ap.add_argument(
        "--cut", type=float, default=0.80, help="USE en-en cosine above which a negative is suspect"
    )
    ap.add_argument("--oof", type=Path, default=None, help="out-of-fold scores saved by research.xling.train")
    ap.add_argument("--approach", default="full_lr_use")
    ap.add_argument(
        "--exclude-kinds",
        nargs="*",
        default=[],
        help="also drop these negative kinds (e.g. xl_same_doc_negative xl_same_block_negative)",
    )
    ap.add_argument(
        "--sweep",
        nargs="*",
        type=float,
        default=[],
        help="also print out-of-fold P / R of --approach per set at these thresholds (needs --oof)",
    )
    args = ap.parse_args(argv)
    oof = dict(np.load(args.oof)) if args.oof else {}
    print(
        "| set | negatives | suspect | score | R@P.99 all | R@P.99 without suspects | R@P.97 all | R@P.97 without |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in TRAIN_SETS:
        ps = load_set(args.data, name)
        e = embed_cached(ps, "use")
        sus = suspects(e, ps.a_idx, ps.b_idx, ps.labels, args.cut)
        scores = {"use_cos": ps.cos("use")}
        if f"{args.approach}__{name}" in oof:
            scores[args.approach] = oof[f"{args.approach}__{name}"]
        keep = ~sus & ~np.isin(np.array(ps.kinds), args.exclude_kinds)
        y = ps.labels
        for sname, s in scores.items():
            r = [recall_at_precision(s, y, p)[0] for p in (0.99, 0.97)]
            rk = [recall_at_precision(s[keep], y[keep], p)[0] for p in (0.99, 0.97)]
            print(
                f"| {name} | {int((y == 0).sum())} | {int(sus.sum())} | `{sname}` | {r[0]:.3f} | {rk[0]:.3f} | "
                f"{r[1]:.3f} | {rk[1]:.3f} |"
            )
    if args.sweep and oof:
        print()
        sweep(args.data, oof, args.approach, args.sweep)


def sweep(data_dir: Path, oof: dict[str, np.ndarray], approach: str, thresholds: Sequence[float]) -> None:
    """Markdown table: out-of-fold precision / recall of ``approach`` per set at each threshold."""
    from research.xling.train import pr_at

    labels = {n: load_set(data_dir, n).labels for n in TRAIN_SETS}
    print("| threshold | " + " | ".join(f"{n} P / R" for n in TRAIN_SETS) + " |")
    print("|---|" + "---|" * len(TRAIN_SETS))
    for t in thresholds:
        cells = [pr_at(oof[f"{approach}__{n}"], labels[n], t) for n in TRAIN_SETS]
        print(f"| {t:g} | " + " | ".join(f"{p:.3f} / {r:.3f}" for p, r in cells) + " |")


if __name__ == "__main__":
    main()
