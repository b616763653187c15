"""Where the batch's decide step spends its time on a corpus with bodies, and what it embeds late.

    PYTHONPATH=$PWD nice -n 10 python -m research.late_embeds --size 2000 --bodied 0.5 [--profile /tmp/d.prof]

``samestory batch`` (local executor, the real USE model, no saved vectors: a late embed costs an
encoder call) on ``bench.batch_scale.corpus``. Each text the decide step embeds late
(``PrecomputedEmbedder``'s fallback) is counted by who asked, read off the call stack: the story
level's evidence (``story_text``), the passage check of bodies (``service.passages``: sentences),
or other (the copy level: items' texts). ``--profile``: cProfile of the whole run to that file
(``python -m pstats``). Prints one JSON object. Not part of the product: nothing in service/
imports it (research/notes/scale.md, "The story texts embedded ahead").
"""

from __future__ import annotations

import argparse
import cProfile
import json
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any


def _kind() -> str:
    """Who asked for a late embed, from the call stack (innermost first)."""
    for frame in reversed(traceback.extract_stack()):
        if frame.filename.endswith("story_level.py"):
            return "story_text"
        if frame.filename.endswith("passages.py"):
            return "passages"
    return "other"


def _count_late(calls: Counter[str], texts: Counter[str], seconds: Counter[str]) -> None:
    """Wrap ``PrecomputedEmbedder.encode`` (this process only) to count late calls by kind."""
    from service.batch import decide

    plain = decide.PrecomputedEmbedder.encode

    def encode(self: Any, batch: Any) -> Any:
        missing = len([t for t in dict.fromkeys(batch) if t not in self.vectors])
        t0 = time.perf_counter()
        out = plain(self, batch)
        if missing:
            kind = _kind()
            calls[kind] += 1
            texts[kind] += missing
            seconds[kind] += time.perf_counter() - t0
        return out

    decide.PrecomputedEmbedder.encode = encode  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    from bench.batch_scale import corpus
    from service.batch.run import run_batch

    p = argparse.ArgumentParser(prog="python -m research.late_embeds", description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=2000)
    p.add_argument("--bodied", type=float, default=0.5)
    p.add_argument("--data", default=None, help="eval-data folder (default ../shared/eval-data)")
    p.add_argument("--profile", type=Path, help="write cProfile stats of the run here")
    args = p.parse_args(argv)
    records = corpus(args.size, seed=0, data_dir=args.data, bodied=args.bodied)
    calls: Counter[str] = Counter()
    texts: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    _count_late(calls, texts, seconds)
    prof = cProfile.Profile() if args.profile else None
    if prof is not None:
        prof.enable()
    out = run_batch(records, engine="local", model="use")
    if prof is not None:
        prof.disable()
        prof.dump_stats(str(args.profile))
    s = out.summary
    print(json.dumps({"items": len(records), "bodied": sum(bool(r.article.body) for r in records),
                      "timings": s["timings"], "embedded_in_plan": s["embedded_in_plan"],
                      "embedded_late_in_decide": s["embedded_late_in_decide"],
                      "late_calls": dict(calls), "late_texts": dict(texts),
                      "late_seconds": {k: round(v, 1) for k, v in seconds.items()},
                      "story_texts_embedded_in_plan": s.get("story_texts_embedded_in_plan")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
