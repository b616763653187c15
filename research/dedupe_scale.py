"""How the stateless passage dedupe's time grows with its input, and a digest of what it decided.

    PYTHONPATH=$PWD python -m research.dedupe_scale --sizes 1000 2000 4000
    PYTHONPATH=$PWD python -m research.dedupe_scale --input chunks.jsonl --model use

Without ``--input`` the inputs are the fourth tour's one-line items from one template,
``item {i} headline number {i*7919} about topic {i%97}`` (every line kept, each sharing about half
its 5-grams with every other, so the MinHash LSH proposes about a third of the earlier lines);
``--template long`` uses a long sentence that differs only by its number (every earlier line is
above the Jaccard bar: the nearest five are named in the reasons, the rest counted). Each size
is timed around ``Deduper.dedupe`` alone (imports and the model load excluded, the product's
guards on) and
printed with the SHA-256 of every verdict's ``to_dict`` (``digest``: two checkouts that decide
alike, reasons included, print the same one) and of the decisions alone (``decisions``: the
same without the kept chunks' reasons, which are notes on why nothing took them), the number of
reasons, the most on one verdict, and the verdicts' JSON size. Run it with each checkout's ``PYTHONPATH``, alternating, to
compare them. Not part of the product: nothing in service/ imports it
(research/notes/throughput.md, "passage dedupe on templated lines").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from typing import Any

TEMPLATES = {
    "short": "item {i} headline number {n} about topic {t}",
    "long": "Daily report {i}: the committee met in the main hall and discussed the budget, the schedule and "
            "the staffing plan for the coming quarter.",
}


def lines_of(template: str, size: int) -> list[str]:
    return [TEMPLATES[template].format(i=i, n=i * 7919, t=i % 97) for i in range(size)]


def run(records: list[Any], model: str | None) -> dict[str, Any]:
    from service.engine import Deduper
    from service.passages import PassageDedupeResult

    engine = Deduper.open(":memory:", model=model)
    start = time.perf_counter()
    res = engine.dedupe(records)
    seconds = time.perf_counter() - start
    assert isinstance(res, PassageDedupeResult)  # kind="passage", the default
    rows = [v.to_dict() for v in res.verdicts]
    verdicts = json.dumps(rows, ensure_ascii=False).encode("utf-8")
    # The decisions alone: a kept chunk's reasons are its notes (why no earlier chunk took it),
    # which a change to the notes may change; what was kept, what dropped as a copy of what, at
    # which stage and score, and a dropped chunk's reason must not.
    decisions = json.dumps([{k: val for k, val in r.items() if not (r["kept"] and k == "reasons")} for r in rows],
                           ensure_ascii=False).encode("utf-8")
    return {"inputs": len(records), "kept": len(res.keep), "seconds": round(seconds, 3),
            "reasons": sum(len(v.reasons) for v in res.verdicts),
            "most_reasons": max((len(v.reasons) for v in res.verdicts), default=0), "json_bytes": len(verdicts),
            "digest": hashlib.sha256(verdicts).hexdigest()[:16],
            "decisions": hashlib.sha256(decisions).hexdigest()[:16]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    ap.add_argument("--template", choices=sorted(TEMPLATES), default="short")
    ap.add_argument("--input", default=None, help="a JSONL file of records (text, lang) instead of the template")
    ap.add_argument("--model", default="none", help="embedder (default none: the lexical stages only)")
    args = ap.parse_args(argv)
    model = None if args.model == "none" else args.model
    if args.input:
        with open(args.input, encoding="utf-8") as fh:
            records: list[Any] = [json.loads(line) for line in fh if line.strip()]
        print(json.dumps({"input": args.input, "model": args.model, **run(records, model)}), flush=True)
        return 0
    for size in args.sizes:
        print(json.dumps({"template": args.template, "model": args.model, **run(lines_of(args.template, size), model)}),
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
