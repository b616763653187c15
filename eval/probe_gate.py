"""The cross-lingual probe gate of the passage path on the rag-chunks-ntrex dev pairs.

``PassageConfig.probe_cosine`` keeps a chunk out of the full sentence embedding when no chunk
in another language comes near its probe (first and last sentences). This prints, per probe
score, the lowest scores of the dev translations (what a threshold must stay under) and the
share of other-article Korean-English chunk pairs at or above a few thresholds (what a
threshold lets through), for:

* ``paired``: the larger of the first-first and last-last sentence cosines (the gate now);
* ``mean``: the cosine of the two chunks' mean of first and last sentence vectors (before);
* ``first``, ``last``: one end alone.

::

    python -m eval.probe_gate ../shared/eval-data/rag-chunks-ntrex/dev.jsonl --cache var/passages-use.npz
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

THRESHOLDS = (0.20, 0.25, 0.30, 0.35, 0.40)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.probe_gate", description=__doc__.split("\n\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--cache", type=Path, default=None, help="an .npz of sentence vectors (eval.passages --cache)")
    ap.add_argument("--negatives", type=int, default=20_000, help="random other-article ko-en chunk pairs drawn")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from eval.data import load_pairs
    from index.passages import Passage
    from models.use import USEEmbedder

    pairs = load_pairs(args.file)
    chunks: dict[tuple[str, str], tuple[Passage, str]] = {}
    for p in pairs:
        for side in (p.a, p.b):
            chunks[(side.text, side.lang)] = (Passage.build(side.text, side.lang), str(p.meta.get("doc")))
    vecs: dict[str, np.ndarray] = {}
    if args.cache is not None and args.cache.is_file():
        z = np.load(args.cache)
        vecs.update(zip(z["texts"].tolist(), z["vectors"], strict=True))
    todo = sorted({s for c, _ in chunks.values() for s in (c.sentences[0], c.sentences[-1]) if s not in vecs})
    if todo:
        vecs.update(zip(todo, USEEmbedder().encode(todo), strict=True))

    def unit(x: np.ndarray) -> np.ndarray:
        return x / max(float(np.linalg.norm(x)), 1e-12)

    def scores(a: tuple[str, str], b: tuple[str, str]) -> dict[str, float]:
        pa, pb = chunks[a][0], chunks[b][0]
        ff = float(vecs[pa.sentences[0]] @ vecs[pb.sentences[0]])
        ll = float(vecs[pa.sentences[-1]] @ vecs[pb.sentences[-1]])
        ma, mb = (unit(vecs[p.sentences[0]] + vecs[p.sentences[-1]]) for p in (pa, pb))
        return {"paired": max(ff, ll), "mean": float(ma @ mb), "first": ff, "last": ll}

    pos = [scores((p.a.text, p.a.lang), (p.b.text, p.b.lang)) for p in pairs if p.kind == "xl_chunk_translation"]
    ko = [k for k in chunks if k[1] == "ko"]
    en = [k for k in chunks if k[1] == "en"]
    rng = random.Random(args.seed)
    neg = []
    for _ in range(args.negatives):
        a, b = rng.choice(ko), rng.choice(en)
        if chunks[a][1] != chunks[b][1]:
            neg.append(scores(a, b))
    print(f"{args.file}: {len(pos)} translations, {len(neg)} other-article ko-en chunk pairs")
    for name in ("paired", "mean", "first", "last"):
        t = np.array([x[name] for x in pos])
        n = np.array([x[name] for x in neg])
        shares = ", ".join(f">= {th:.2f}: {float((n >= th).mean()):.1%}" for th in THRESHOLDS)
        print(f"  {name:<7} translations min {t.min():.3f}, 1st percentile {np.percentile(t, 1):.3f}; "
              f"other-article pairs {shares}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
