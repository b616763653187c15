"""Where ``dedupe``'s passage path spends its CPU: per-stage process time on the chunk stream.

``python -m bench.dedupe_stages --size 10000`` runs ``PassageDeduper.dedupe`` once over the
stream of ``samestory bench dedupe`` (same seed, cold encoder loaded and warmed first) with a
CPU timer (``time.process_time``) around each stage: passage features, the lexical stages (and
inside them the word check and the guards), the probe gate, the encoder (and inside it the
pure-Python tokenizer), the candidate search and the alignments. Nested stages are included in
their parents. CPU seconds, with the load average beside them: on a shared machine CPU time is
inflated too (less than wall time), so compare runs at a similar load.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any


def _timed(owner: Any, name: str, key: str, spent: dict[str, float]) -> Callable[[], None]:
    """Wrap ``owner.name`` with a CPU timer adding into ``spent[key]``; returns the undo."""
    raw = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    kind = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
    fn = raw.__func__ if kind is not None else raw

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        c0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[key] = spent.get(key, 0.0) + time.process_time() - c0

    setattr(owner, name, kind(wrapper) if kind is not None else wrapper)
    return lambda: setattr(owner, name, raw)


def measure(size: int = 10_000, *, seed: int = 0, model: str = "use", data_dir: str | None = None) -> dict[str, Any]:
    import index.passages as ip
    import service.passages as sp
    from bench.dedupe_chunks import _passage_deduper, _roots, chunk_stream, score
    from models.registry import load_embedder

    stream = chunk_stream(size, dup_share=0.3, seed=seed, data_dir=data_dir)
    # "none": the lexical stages alone (no encoder, so no cross-lingual stage).
    embedder = None if model == "none" else load_embedder(model, cache_size=0)
    if embedder is not None:
        embedder.encode(["warm-up"])
    engine, dd = _passage_deduper(embedder)
    spent: dict[str, float] = {}
    undo = [_timed(ip.Passage, "build", "passage features", spent),
            _timed(sp.PassageDeduper, "_lexical", "lexical stages", spent),
            _timed(ip.Passage, "new_words", "  word check (new words, typos)", spent),
            _timed(sp.PassageDeduper, "_vet", "guards (both stages)", spent),
            _timed(sp.PassageDeduper, "_gate", "probe gate (its encoder calls included)", spent),
            _timed(sp.PassageDeduper, "_embed", "encoder (distinct sentences)", spent),
            _timed(sp.PassageDeduper, "_pairs_above", "cross-lingual candidates", spent),
            _timed(sp, "align", "sentence alignments", spent)]
    tokenizer = getattr(getattr(getattr(embedder, "_use", None), "_model", None), "sp", None)
    if tokenizer is not None:   # the bundled USE: its pure-Python sentencepiece
        undo.append(_timed(tokenizer, "encode", "  tokenizer (inside the encoder)", spent))
    load0 = os.getloadavg()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        res = dd.dedupe(stream.records)
    finally:
        for u in undo:
            u()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"size": size, "seed": seed, "model": model, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
            "load_average_start": [round(x, 2) for x in load0],
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
            "sentences_embedded": int(engine.ctx.counters["encoder_texts"]),
            "stages_cpu_s": {k: round(v, 2) for k, v in spent.items()},
            "score": score(stream, _roots(res.duplicate_of))}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.dedupe_stages", description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default="use", help="an encoder spec, or none for the lexical stages alone")
    ap.add_argument("--eval-data", default=None)
    args = ap.parse_args(argv)
    r = measure(args.size, seed=args.seed, model=args.model, data_dir=args.eval_data)
    print(f"{r['size']} chunks: {r['cpu_s']} s CPU, {r['wall_s']} s wall, load average {r['load_average_start']} -> "
          f"{r['load_average_end']}, {r['sentences_embedded']} sentences embedded")
    for k, v in r["stages_cpu_s"].items():
        print(f"  {k:<45} {v:>7.2f} s CPU")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
