"""Where samestory's ingest time goes, from a py-spy recording of a benchmark.

Record the benchmark with py-spy in raw (collapsed-stack) form, then fold the samples of
``Deduper.ingest_many`` (the other methods' samples are left out) into the parts of the
ingest path; each sample goes to the first part whose frame is on its stack::

    samestory bench --size 10000 --dup-share 0.40 ... &
    py-spy record -p $! -r 25 -f raw -o spy40.txt --nonblocking
    python -m bench.spy_breakdown spy40.txt --ms-per-item 6.76   # 1000 / samestory's items/s

>>> fold(["a;Deduper.ingest_many (engine.py:1);EngineContext.encode (context.py:2) 3",
...       "a;Deduper.ingest_many (engine.py:1);GuardSet.check (guardset.py:3) 1", "b;embed_all (x.py:1) 9"])
(4, {'encoder (USE)': 3, 'guards (every guard, the slot analysis with kiwipiepy)': 1})
"""

from __future__ import annotations

import argparse
import gzip
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = "Deduper.ingest_many "

# (part, frames that put a sample in it), first match wins: the encoder before the stages that
# call it, the guards before the cascade that asks them.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("encoder (USE)", ("EngineContext.encode ",)),
    ("guards (every guard, the slot analysis with kiwipiepy)", ("GuardSet.check ", "Cascade.slot_confirm ")),
    ("story level (story match, revision, evidence)", ("StoryLevel.place ", "StoryTracker.add ",
                                                       "StoryLevel.evidence ", "StoryEvidence.build ")),
    ("embedding-stage search (FAISS scan, scorer)", ("EmbeddingStage.candidates ",)),
    ("cheap stages' candidates (exact, n-gram, MinHash)", ("Cascade.match ",)),
    ("prefetch prediction (Cascade.cheaply_unsettled)", ("cheaply_unsettled ",)),
    ("SQLite store", ("SQLiteStore.", "SQLStoreBase.", "CopyLevel.observe ", "transaction")),
    ("candidate state updates (n-gram, MinHash, vector index)", ("CandidateState.",)),
    ("item features (ItemFeatures.build)", ("ItemFeatures.build ",)),
)
OTHER = "other (engine bookkeeping, representative, results)"


def fold(lines: Iterable[str]) -> tuple[int, dict[str, int]]:
    """(samples under ``Deduper.ingest_many``, samples per part) of py-spy raw lines."""
    total = 0
    parts: Counter[str] = Counter()
    for line in lines:
        line = line.rstrip()
        if ROOT not in line:
            continue
        stack, count = line.rsplit(" ", 1)
        n = int(count)
        total += n
        parts[next((name for name, frames in PARTS if any(f in stack for f in frames)), OTHER)] += n
    return total, dict(parts.most_common())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.spy_breakdown", description=__doc__.splitlines()[0])
    p.add_argument("raw", type=Path, help="py-spy record -f raw output (gzipped when it ends in .gz)")
    p.add_argument("--ms-per-item", type=float, default=None,
                   help="samestory's wall milliseconds per item in that run (1000 / its items/s): adds a column")
    args = p.parse_args(argv)
    opener = gzip.open if args.raw.suffix == ".gz" else open
    with opener(args.raw, "rt", encoding="utf-8", errors="replace") as fh:
        total, parts = fold(fh)
    if not total:
        raise SystemExit(f"no {ROOT.strip()} samples in {args.raw}")
    print(f"{total} samples of samestory's ingest")
    print("| part | share | ms per item |" if args.ms_per_item else "| part | share |")
    print("|---|---:|---:|" if args.ms_per_item else "|---|---:|")
    for name, n in parts.items():
        cost = f" {args.ms_per_item * n / total:.2f} |" if args.ms_per_item else ""
        print(f"| {name} | {100 * n / total:.1f} % |{cost}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
