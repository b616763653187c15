"""Guard by guard: what each guard's veto still saves with the pair verifier on (issue 35).

Issue 35 asks that a rule the verifier makes redundant be removed. This reads the engine's
predictions on labelled pair files (``samestory eval pairs FILE --predictions PRED``, verifier
on) and, for every pair the guards alone kept apart (``blocked_by`` holds guards only), asks
what the engine would have done without them: the merge stands when the stage was exact, the
two texts have the same letters, or the verifier's P (read in the engine's order) reaches the
threshold the engine would have used (the rescue's for a Korean-English pair below the
embedding threshold, else the merge threshold). Printed per file and per set of blocking
guards: label-1 pairs vetoed and the copies removing them would find (``tp_gain``), label-0
pairs vetoed and the false merges removing them would let through (``fp_gain``)::

    samestory eval pairs FILE --predictions DIR/STEM.pred.jsonl   # for each FILE, verifier on
    python -m research.guard_ablation --predictions DIR FILE...

A guard with ``fp_gain`` 0 on every file and ``tp_gain`` above 0 is redundant beside the
verifier. Pairs a stage never proposed, or that a time or body veto also kept apart, are not
counted (the guards did not decide them).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from index.features import ItemFeatures
from index.text import same_letters
from service.cascade import Cascade, verify_texts
from service.config import EngineConfig
from service.context import engine_verifier
from service.guards.rules import GUARD_NAMES


def _features(side: dict) -> ItemFeatures:
    return ItemFeatures.build(side["text"], "", side.get("lang") or "und", 0.0)


def ablate(rows: dict[str, dict], preds: Sequence[dict], cascade: Cascade) -> dict[str, Counter[str]]:
    """Per set of blocking guards ("number+quantity"), the counts described in the module doc.
    ``cascade`` (with its verifier and the predictions' config) reads the pairs as the engine
    does (``Cascade.verify``) and gives the merge and rescue thresholds."""
    todo = []
    for p in preds:
        guards = sorted(b for b in p["blocked_by"] if b in GUARD_NAMES)
        if p["same"] or not guards or len(guards) != len(p["blocked_by"]):
            continue
        r = rows[p["id"]]
        todo.append((p, int(r["label"]), "+".join(guards), _features(r["a"]), _features(r["b"])))
    probs = cascade.verify([(a, b) for *_, a, b in todo])
    embedding = cascade.config.copy.embedding_threshold or 1.0
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for (p, label, key, a, b), prob in zip(todo, probs, strict=True):
        below = p["scores"].get("cosine", 1.0) < embedding and p["stage"] == "embedding"
        threshold = cascade.rescue_threshold() if "verifier" in p["scores"] and below else cascade.verifier_threshold()
        merged = p["stage"] == "exact" or same_letters(*verify_texts(a, b)) or prob >= threshold
        out[key]["vetoed_pos" if label else "vetoed_neg"] += 1
        if merged:
            out[key]["tp_gain" if label else "fp_gain"] += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.guard_ablation", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path, help="labelled pair files (JSONL, the eval-data format)")
    ap.add_argument("--predictions", type=Path, required=True,
                    help="folder holding <file stem>.pred.jsonl for each file (samestory eval pairs --predictions)")
    ap.add_argument("--model", default="use-multilingual-v3", help="the embedder the predictions were made with "
                    "(its calibrated embedding threshold says which pairs were rescues)")
    args = ap.parse_args(argv)
    config = EngineConfig.load().for_model(args.model)
    if not config.copy.verifier:
        raise SystemExit("the verifier is off (SAMESTORY_VERIFIER=false): the ablation asks what it would decide")
    cascade = Cascade(config, None, verifier=engine_verifier(config, None).load())
    for f in args.files:
        pred_path = args.predictions / f"{f.stem}.pred.jsonl"
        if not pred_path.is_file():
            raise SystemExit(f"no predictions for {f} at {pred_path}")
        rows = {r["id"]: r for r in map(json.loads, f.read_text(encoding="utf-8").splitlines()) if r}
        preds = [json.loads(line) for line in pred_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for key, c in sorted(ablate(rows, preds, cascade).items()):
            print(f"{f.stem:28s} {key:24s} " + " ".join(f"{k} {c[k]}" for k in
                                                         ("vetoed_pos", "tp_gain", "vetoed_neg", "fp_gain")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
