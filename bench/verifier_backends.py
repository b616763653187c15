"""The pair verifier's back-ends side by side: numpy, onnx (fp32) and onnx-int8, on the same pairs.

The shipped artefact (``models/verifier/verifier.npz``) loaded three times, once per back-end
(``PairVerifier.load(backend=...)``; the ONNX graphs are built into the model cache on first use).
The pairs are the first 64 headline pairs of ``ntrex128-kor-eng/dev.jsonl`` (read in memory only).
The back-ends run alternately (one call each in turn) on one thread, so all see the same load:
batch 1 over the first ``--singles`` pairs and batch 32 over all 64, ``--rounds`` times::

    python -m bench.verifier_backends --data ../shared/eval-data [--rounds 3]

Prints one line per back-end (p50 ms per pair, and its P's largest and mean distance from numpy's
on the 64 pairs), and the load average.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.verifier_layers import headline_pairs, time_alternately


def main(argv: Sequence[str] | None = None) -> int:
    from models.verifier import PairVerifier
    from models.verifier_onnx import BACKENDS

    ap = argparse.ArgumentParser(prog="python -m bench.verifier_backends", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/eval-data"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--singles", type=int, default=12)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.singles < 1:
        raise SystemExit("--rounds and --singles must be positive")
    rows = headline_pairs(args.data)
    a, b = [x for x, _ in rows], [y for _, y in rows]
    vs = {name: PairVerifier.load(backend=name) for name in BACKENDS}
    p = {name: v.score(a, b) for name, v in vs.items()}  # also warms each up
    one, b32, loads = time_alternately(vs, rows, singles=args.singles, rounds=args.rounds)
    print(f"{len(rows)} headline pairs, load {min(loads):.1f}-{max(loads):.1f}")
    for k in vs:
        d = np.abs(p[k] - p["numpy"])
        print(f"{k:10s} batch 1 p50 {statistics.median(one[k]):6.1f} ms/pair (n={len(one[k])}), "
              f"batch 32 p50 {statistics.median(b32[k]):6.1f} ms/pair (n={len(b32[k])}); "
              f"|P - numpy's| max {d.max():.4f}, mean {d.mean():.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
