"""Does the verifier add to the cosine? A stacked score of both, measured out of fold (issue 35).

The verifier reads the two texts together; USE-m's cosine reads each alone. On the out-of-fold
test fold of the verifier's recipe (fold 0: no text of it was trained on), this fits a logistic
regression on ``(cosine, logit P(same), cosine x logit P)`` on the Korean-English rows of NTREX and
Park in one half of the fold and scores the other half (and the reverse), then reports, per set,
on its Korean-English rows, recall at precision 0.99 and AUC for the cosine alone, the verifier
alone and the stack.

    python -m research.verifier_stack --data ../shared/eval-data \\
        --scores var/verifier_run3.scores.npz --seed 1

``--scores``: the ``.scores.npz`` a training run's ``--report`` writes (fold-0 P in the order of
``build_pairs(data, seed)``, so ``--seed`` must be the run's). Without it the artefact at
``--verifier`` scores the fold (minutes on two cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from models.verifier_data import Pair


def halves(pairs: Sequence[Pair]) -> np.ndarray:
    """0/1 per pair, by a hash of its two texts sorted (stable across runs)."""
    out = np.zeros(len(pairs), dtype=np.int64)
    for i, p in enumerate(pairs):
        key = "\x00".join(sorted((p.a, p.b)))
        out[i] = hashlib.sha256(key.encode()).digest()[0] % 2
    return out


def features(cos: np.ndarray, p: np.ndarray) -> np.ndarray:
    logit = np.log(np.clip(p, 1e-6, 1 - 1e-6) / np.clip(1 - p, 1e-6, 1))
    return np.stack([cos, logit, cos * logit], axis=1)


def main(argv: list[str] | None = None) -> int:
    from sklearn.linear_model import LogisticRegression

    from index.text import detect_lang
    from models.registry import load_embedder
    from models.verifier_data import TEST_FOLD, build_pairs
    from models.verifier_train import recall_at_precision

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--scores", type=Path, default=None)
    ap.add_argument("--verifier", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    ap.add_argument("--dump", type=Path, default=None,
                    help="write each pair's cosine, P, stacked score, label and source here (.npz; keep it in var/)")
    args = ap.parse_args(argv)

    pairs = [p for p in build_pairs(args.data, seed=args.seed) if p.fold == TEST_FOLD]
    labels = np.array([p.label for p in pairs])
    if args.scores is not None:
        with np.load(args.scores) as z:
            p_same = z["scores"].astype(np.float64)
            if not np.array_equal(z["labels"], labels):
                raise ValueError(f"{args.scores} does not match build_pairs(seed={args.seed})'s fold 0")
    else:
        from models.verifier import PairVerifier

        p_same = PairVerifier.load(args.verifier, threads=1).score([p.a for p in pairs], [p.b for p in pairs])
    embedder = load_embedder("use")
    texts = sorted({t for p in pairs for t in (p.a, p.b)})
    vec = embedder.encode(texts)
    row = {t: i for i, t in enumerate(texts)}
    cos = np.array([float(vec[row[p.a]] @ vec[row[p.b]]) for p in pairs])
    xl = np.array([detect_lang(p.a) != detect_lang(p.b) for p in pairs])
    half = halves(pairs)
    x = features(cos, p_same)
    sets = np.array([p.source.split("/")[0] if not p.source.startswith("synthetic") else "synthetic" for p in pairs])
    # Fitted on the real Korean-English news rows, each half scored by the fit on the other half.
    fit_rows = xl & np.isin(sets, ["ntrex128-kor-eng", "koen-news-park"])
    stacked = np.zeros(len(pairs))
    for h in (0, 1):
        model = LogisticRegression(C=1.0, max_iter=1000).fit(x[fit_rows & (half != h)], labels[fit_rows & (half != h)])
        stacked[half == h] = model.predict_proba(x[half == h])[:, 1]

    from sklearn.metrics import roc_auc_score

    report: dict[str, dict[str, float]] = {}
    print(f"{'fold-0 rows, ko-en only':30s} {'n':>6s}   R@P.99 / AUC: cosine, verifier, stack")
    for name in sorted(set(sets[xl])):
        idx = np.flatnonzero(xl & (sets == name))
        y = labels[idx]
        if not 0 < y.sum() < len(y):
            continue
        r = {k: (recall_at_precision(s[idx], y, 0.99)[0], float(roc_auc_score(y, s[idx])))
             for k, s in (("cosine", cos), ("verifier", p_same), ("stack", stacked))}
        report[name] = {"rows": len(idx), **{f"{k}_r_at_p99": v[0] for k, v in r.items()},
                        **{f"{k}_auc": v[1] for k, v in r.items()}}
        print(f"{name:30s} {len(idx):6d}   " + "   ".join(f"{a:.3f} / {b:.3f}" for a, b in r.values()))
    if args.dump:
        np.savez_compressed(args.dump, cosine=cos, verifier=p_same, stacked=stacked, labels=labels, xl=xl,
                            sources=np.array([p.source for p in pairs]), ids=np.array([p.id for p in pairs]))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
