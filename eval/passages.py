"""Pair evaluation and calibration of the passage path of ``dedupe`` (RAG chunks).

A pair ``(a, b)`` is judged the way a RAG pipeline meets it: ``Deduper.dedupe([a, b])`` (the
code behind ``/v1/dedupe``) and the pair counts as merged when ``b`` is dropped as a copy of
``a``. ``predict_dedupe`` does exactly that; ``samestory eval pairs FILE --route dedupe`` prints
its table.

``cross_validate`` chooses the thresholds of ``service.passages.PassageConfig`` with
article-grouped k-fold cross-validation (``meta.doc``: every pair of one article is in one
fold, so a fold's articles are never seen by the thresholds it is scored with) and reports
out-of-fold results per kind. Per fold, on the training folds:

* ``shingle_jaccard``: the middle of the widest gap between same-language negatives and copies
  (every value there has the same training recall; the middle leaves both sides room);
* ``alignment_score`` x ``alignment_coverage``: the pair with the highest translation recall
  among those that merge at most ``max_xl_fmr`` of the cross-lingual overlapping windows
  (ties: the higher, more conservative, thresholds).

The fold's held-out pairs are then run through ``dedupe`` with those thresholds. ::

    python -m eval.passages ../shared/eval-data/rag-chunks-ntrex/dev.jsonl --folds 5 --json

>>> _gap_middle([0.1, 0.6], [0.8, 0.9])
0.7
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from tqdm import tqdm

from eval.data import Pair, load_pairs
from eval.pairs import INF, Prediction, evaluate

# Kinds of rag-chunks-ntrex whose negatives must never merge (the hard requirement).
OTHER_DOC_KIND = "chunk_other_doc_negative"
XL_NEGATIVE_KIND = "xl_chunk_overlap_negative"


def _record(side: Any) -> dict[str, Any]:
    return {"text": side.text, "lang": side.lang}


def predict_dedupe(pairs: Sequence[Pair], engine: Any, *, config: Any = None,
                   progress: bool = False) -> list[Prediction]:
    """Each pair through ``engine.dedupe([a, b])`` (passage kind): merged when ``b`` is dropped as a copy of ``a``.

    ``config`` (a ``PassageConfig``) replaces the engine's passage thresholds for these calls.
    ``rank_score`` is the deciding stage's score (+inf for an exact copy, -inf when kept).
    """
    deduper = engine.ctx.passages
    if config is not None:
        deduper = type(deduper)(deduper.encode, guards=deduper.guards, config=config)
    _prefetch(pairs, deduper)
    out = []
    for p in tqdm(pairs, disable=not progress, unit="pair", desc="dedupe pairs"):
        v = deduper.dedupe([_record(p.a), _record(p.b)]).verdicts[1]
        same = v.duplicate_of == 0
        if not same:
            rank = -INF
        elif v.stage == "exact":
            rank = INF
        else:
            rank = float(v.score or 0.0)
        out.append(Prediction(p.id, same, v.score, v.stage, tuple(v.blocked_by), rank, dict(v.scores)))
    return out


def _prefetch(pairs: Sequence[Pair], deduper: Any) -> None:
    """Embed every sentence of the cross-lingual pairs in one batch (a caching encoder keeps them)."""
    if deduper.encode is None:
        return
    from index.passages import Passage

    sents = list(dict.fromkeys(s for p in pairs if p.a.lang != p.b.lang for side in (p.a, p.b)
                               for s in Passage.build(side.text, side.lang).sentences))
    if sents:
        deduper.encode(sents)


# ---- calibration ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairFeatures:
    """The scores the thresholds act on, for one pair (computed once, at permissive settings)."""

    jaccard: float | None       # same-language: 5-gram Jaccard of the cores
    new_sentences: int          # same-language: words (beyond the typo allowance) and numbers of b not in a
    exact: bool                 # same text after normalisation / boilerplate
    alignment: float | None     # cross-lingual: alignment score
    coverage: float | None      # cross-lingual: alignment coverage
    vetoed: bool                # a guard blocks the merge


def pair_features(pairs: Sequence[Pair], deduper: Any, progress: bool = False) -> list[PairFeatures]:
    """Scores of each pair with the passage path's own features, alignment and guards."""
    from index.align import align
    from index.passages import Passage

    cfg = deduper.config
    _prefetch(pairs, deduper)
    out = []
    for p in tqdm(pairs, disable=not progress, unit="pair", desc="features"):
        a, b = Passage.build(p.a.text, p.a.lang), Passage.build(p.b.text, p.b.lang)
        if a.lang == b.lang:
            vetoed = bool(deduper._vet([(a.core, a.lang, b.core, b.lang)]))
            new, typos = b.new_words(a)
            out.append(PairFeatures(a.jaccard(b), len(new) + len(b.new_numbers(a)) + max(0, len(typos) - cfg.max_typos),
                                    a.norm_key == b.norm_key or a.exact_key == b.exact_key, None, None, vetoed))
            continue
        va, vb = deduper.encode(list(a.sentences)), deduper.encode(list(b.sentences))
        al = align(np.asarray(va), np.asarray(vb), [len(s) for s in a.sentences], [len(s) for s in b.sentences],
                   min_bead=cfg.bead_similarity, merge_floor=cfg.merge_floor)
        beads = [(" ".join(a.sentences[x.a_start : x.a_end]), a.lang, " ".join(b.sentences[x.b_start : x.b_end]), b.lang)
                 for x in al.beads if x.similarity is not None]
        vetoed = bool(deduper._vet(beads, crosslingual=True))
        aligned = sum(1 for x in al.beads if x.similarity is not None and x.similarity >= cfg.bead_similarity)
        if aligned < cfg.min_aligned_sentences:
            vetoed = True   # not alignable: never merged, whatever the thresholds
        out.append(PairFeatures(None, 0, False, al.score, al.coverage, vetoed))
    return out


def _gap_middle(neg: Sequence[float], pos: Sequence[float]) -> float:
    """The middle of the widest interval between sorted scores that keeps every negative below it
    at the lowest positive recall loss: with separable classes, between max(neg) and min(pos)."""
    hi_neg = max(neg) if neg else 0.0
    above = sorted(x for x in pos if x > hi_neg)
    if not above:
        return round(hi_neg + 1e-6, 3)
    return round((hi_neg + above[0]) / 2, 3)


class _GridPoint(NamedTuple):
    """One cross-lingual threshold pair of the grid, ordered best first when compared: highest
    recall, then the strictest score and coverage, then the fewest false merges."""

    recall: float
    score: float
    coverage: float
    neg_false_merges: int


def choose(pairs: Sequence[Pair], feats: Sequence[PairFeatures], *, max_xl_fmr: float = 0.01) -> dict[str, float]:
    """Thresholds chosen on ``pairs`` (see the module doc)."""
    same_neg = [f.jaccard for p, f in zip(pairs, feats, strict=True) if f.jaccard is not None and p.label == 0]
    same_pos = [f.jaccard for p, f in zip(pairs, feats, strict=True)
                if f.jaccard is not None and p.label == 1 and not f.exact]
    shingle = _gap_middle([x for x in same_neg if x is not None], [x for x in same_pos if x is not None])
    xl = [(p.label, f.alignment, f.coverage, f.vetoed) for p, f in zip(pairs, feats, strict=True)
          if f.alignment is not None]
    n_neg = sum(1 for lab, *_ in xl if lab == 0) or 1
    n_pos = sum(1 for lab, *_ in xl if lab == 1) or 1
    best: _GridPoint | None = None
    for s in np.round(np.arange(0.40, 0.701, 0.01), 3):
        for c in np.round(np.arange(0.50, 0.951, 0.05), 3):
            fp = sum(1 for lab, a, cv, v in xl if lab == 0 and a >= s and cv >= c and not v)
            tp = sum(1 for lab, a, cv, v in xl if lab == 1 and a >= s and cv >= c and not v)
            if fp / n_neg > max_xl_fmr:
                continue
            key = _GridPoint(tp / n_pos, float(s), float(c), -fp)
            if best is None or key > best:
                best = key
    if best is None:
        best = _GridPoint(0.0, 1.0, 1.0, 0)
    return {"shingle_jaccard": shingle, "alignment_score": best.score, "alignment_coverage": best.coverage}


def _folds(pairs: Sequence[Pair], k: int) -> list[int]:
    """Fold of each pair: articles (``meta.doc``) dealt round-robin in sorted order of a stable hash."""
    import hashlib

    docs = sorted({str(p.meta.get("doc", p.id)) for p in pairs},
                  key=lambda d: hashlib.sha256(d.encode()).hexdigest())
    fold_of = {d: i % k for i, d in enumerate(docs)}
    return [fold_of[str(p.meta.get("doc", p.id))] for p in pairs]


def cross_validate(pairs: Sequence[Pair], engine: Any, *, folds: int = 5, max_xl_fmr: float = 0.01,
                   progress: bool = False) -> dict[str, Any]:
    """Out-of-fold predictions and per-fold thresholds (see the module doc)."""
    if folds < 2:
        raise ValueError(f"folds must be >= 2, got {folds}")
    deduper = engine.ctx.passages
    feats = pair_features(pairs, deduper, progress=progress)
    fold = _folds(pairs, folds)
    preds: list[Prediction | None] = [None] * len(pairs)
    chosen = []
    for f in range(folds):
        train = [i for i in range(len(pairs)) if fold[i] != f]
        test = [i for i in range(len(pairs)) if fold[i] == f]
        th = choose([pairs[i] for i in train], [feats[i] for i in train], max_xl_fmr=max_xl_fmr)
        chosen.append(th)
        cfg = replace(deduper.config, **th)
        for i, q in zip(test, predict_dedupe([pairs[i] for i in test], engine, config=cfg), strict=True):
            preds[i] = q
    result = evaluate("samestory dedupe (out of fold)", pairs, [q for q in preds if q is not None])
    full = choose(pairs, feats, max_xl_fmr=max_xl_fmr)
    return {"folds": folds, "thresholds_per_fold": chosen, "thresholds_all_dev": full,
            "result": result, "predictions": preds}


def _finite(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else str(x)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.passages",
                                 description="Article-grouped cross-validation of the passage dedupe thresholds.")
    ap.add_argument("file", type=Path, help="a chunk pair file (rag-chunks-ntrex/dev.jsonl)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--max-xl-fmr", type=float, default=0.01,
                    help="largest share of cross-lingual overlapping windows merged on the training folds")
    ap.add_argument("--model", default="use")
    ap.add_argument("--cache", type=Path, default=None,
                    help="an .npz of sentence vectors, read before and written after (e.g. var/passages-use.npz)")
    ap.add_argument("--out", type=Path, default=None,
                    help="write the results here as JSON (eval/rag_chunks.json feeds eval/RESULTS.md)")
    ap.add_argument("--compare", action="store_true",
                    help="also run the pairs through the compare route (the headline cascade), for contrast")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    from eval.engine import load_embedder
    from service.engine import Deduper
    from service.store import open_store

    try:
        pairs = load_pairs(args.file)
    except (FileNotFoundError, ValueError) as exc:
        raise SystemExit(str(exc)) from exc
    embedder = load_embedder(args.model)
    if args.cache is not None and args.cache.exists():
        z = np.load(args.cache)
        embedder._cache.update(zip(z["texts"].tolist(), z["vectors"], strict=True))
    engine = Deduper(open_store(":memory:"), embedder=embedder, warm=False)
    cv = cross_validate(pairs, engine, folds=args.folds, max_xl_fmr=args.max_xl_fmr, progress=not args.no_progress)
    if args.cache is not None:
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(args.cache, texts=np.array(list(embedder._cache)), vectors=np.stack(list(embedder._cache.values())))
    r = cv["result"]
    print(f"{args.file}: {len(pairs)} pairs, {args.folds} folds by article")
    for th in cv["thresholds_per_fold"]:
        print("  fold thresholds:", th)
    print("  all-dev choice:", cv["thresholds_all_dev"])
    c = r.confusion
    print(f"out of fold: P {c.precision:.4f} R {c.recall:.4f} (tp {c.tp} fp {c.fp} fn {c.fn})")
    for k, m in sorted(r.by_kind.items()):
        cc = m.confusion
        print(f"  {k:30} pairs {cc.pairs:4d} merged {cc.tp + cc.fp:4d} "
              f"{f'recall {cc.recall:.4f}' if cc.positives else f'false merges {cc.fp}'}")
    shipped = evaluate("samestory dedupe (shipped thresholds)", pairs,
                       predict_dedupe(pairs, engine, progress=not args.no_progress))
    print(f"shipped thresholds, all pairs (in sample): P {shipped.confusion.precision:.4f} "
          f"R {shipped.confusion.recall:.4f}")
    if args.out is not None:
        obj: dict[str, Any] = {
            "command": "python -m eval.passages " + " ".join(str(a) for a in (argv if argv is not None else sys.argv[1:])),
            "file": str(args.file), "pairs": len(pairs), "folds": args.folds, "max_xl_fmr": args.max_xl_fmr,
            "thresholds_per_fold": cv["thresholds_per_fold"], "thresholds_all_dev": cv["thresholds_all_dev"],
            "out_of_fold": r.to_dict(), "shipped": shipped.to_dict()}
        previous = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
        if not args.compare and "compare_route" in previous:
            # The compare route (the headline cascade) is not this module's code: keep the last
            # measurement of it, with the command that made it, rather than re-embedding every chunk.
            obj["compare_route"] = previous["compare_route"]
            obj["compare_route_command"] = previous.get("compare_route_command", previous.get("command"))
        if args.compare:
            from eval.pairs import predict_samestory

            obj["compare_route_command"] = obj["command"]

            obj["compare_route"] = evaluate("samestory compare", pairs,
                                            predict_samestory(pairs, model=args.model, progress=not args.no_progress)
                                            ).to_dict()
        args.out.write_text(json.dumps(obj, indent=1, default=_finite) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps({"folds": args.folds, "thresholds_per_fold": cv["thresholds_per_fold"],
                          "thresholds_all_dev": cv["thresholds_all_dev"], **r.to_dict()}, default=_finite))
    return 0


if __name__ == "__main__":
    sys.exit(main())
