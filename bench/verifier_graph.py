"""The fp32 verifier graph two ways: plain ONNX operators against onnxruntime's fused BERT ones.

Both graphs are written by :func:`models.verifier_onnx.layers_graph` from the shipped artefact
(``fused=False`` / ``fused=True``) into a temporary folder and run by onnxruntime on the same
threads, called in turn on the first 64 NTREX headline pairs (batch 1 over ``--singles`` pairs,
batches of 32 over all, ``--rounds`` times)::

    python -m bench.verifier_graph --data ../shared/eval-data [--threads 2] [--rounds 5]

Prints the p50 ms a pair of each graph, the fused graph's largest distance in P from the plain
one's, and the load average (a shared machine slows both alike, not their ratio).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.verifier_layers import headline_pairs, time_alternately


def main(argv: Sequence[str] | None = None) -> int:
    import onnx

    from models.verifier import PairVerifier
    from models.verifier_onnx import OnnxLayers, layers_graph

    ap = argparse.ArgumentParser(prog="python -m bench.verifier_graph", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/eval-data"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--singles", type=int, default=24)
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads (the engine's default: 2)")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.singles < 1 or args.threads < 1:
        raise SystemExit("--rounds, --singles and --threads must be positive")
    rows = headline_pairs(args.data)
    verifiers = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, fused in (("plain", False), ("fused", True)):
            v = PairVerifier.load(backend="numpy")
            path = Path(tmp) / f"{name}.onnx"
            onnx.save(layers_graph(v._layers, v.graph_head(), hidden=v.hidden, heads=v.heads, eps=v.eps, fused=fused),
                      str(path))
            v._onnx, v._layers = OnnxLayers(path, args.threads), []
            verifiers[name] = v
        a, b = [x for x, _ in rows], [y for _, y in rows]
        dp = np.abs(verifiers["fused"].score(a, b) - verifiers["plain"].score(a, b))
        one, b32, loads = time_alternately(verifiers, rows, singles=args.singles, rounds=args.rounds)
    for name in verifiers:
        print(f"{name:6s} batch 1: {statistics.median(one[name]):6.2f} ms a pair   "
              f"batch 32: {statistics.median(b32[name]):6.2f} ms a pair")
    print(f"fused / plain, batch 1: {statistics.median(one['fused']) / statistics.median(one['plain']):.3f}; "
          f"batch 32: {statistics.median(b32['fused']) / statistics.median(b32['plain']):.3f}")
    print(f"fused P against plain: max |dP| {dp.max():.2e}, mean {dp.mean():.2e} over {len(rows)} pairs")
    print(f"load average: {' '.join(f'{x:.2f}' for x in loads)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
