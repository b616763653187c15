"""Speed, memory and sanity-quality check of the embedding back-ends on Tatoeba ko-en.

Each back-end runs in its own subprocess so that peak RSS is its own::

    .venv/bin/python -m models.bench --data ../shared/eval-data/tatoeba-kor-eng/dev.jsonl \\
        --e5-dir ~/.cache/samestory/models/e5-small use e5-st e5-onnx e5-onnx-int8

Reported per back-end: load seconds, sentences per wall second and per CPU second over the distinct texts (about 2,000
short sentences; batch 64; the embedding cache is off), peak RSS, Tatoeba ko→en / en→ko
top-1 retrieval accuracy over the 700 translation pairs, and pair ROC-AUC over all
labelled pairs (translations vs hard and random negatives). The texts are read at run
time and never written anywhere.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

BACKENDS = ("use", "e5-st", "e5-onnx", "e5-onnx-int8")


def _auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC-AUC by the rank-sum formula (ties get average ranks)."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _make(backend: str, e5_dir: Path | None) -> Any:
    from models.st_backend import E5_SYMMETRIC_PROMPTS

    if backend == "use":
        from models.use import USEEmbedder

        return USEEmbedder()
    if e5_dir is None:
        raise ValueError(f"{backend} needs --e5-dir")
    if backend == "e5-st":
        from models.st_backend import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(e5_dir, prompts=E5_SYMMETRIC_PROMPTS)
    from models.onnx_backend import OnnxEmbedder

    if backend == "e5-onnx":
        return OnnxEmbedder(e5_dir, prompts=E5_SYMMETRIC_PROMPTS)
    if backend == "e5-onnx-int8":
        int8 = e5_dir / "onnx" / "model_int8.onnx"
        if not int8.is_file():
            from models.e5_build import quantize_onnx_int8

            quantize_onnx_int8(e5_dir / "onnx" / "model.onnx", int8)
        return OnnxEmbedder(e5_dir, file_name="model_int8.onnx", prompts=E5_SYMMETRIC_PROMPTS)
    raise ValueError(f"unknown backend {backend!r}; choose from {BACKENDS}")


def run_one(backend: str, data: Path, e5_dir: Path | None, limit: int) -> dict[str, Any]:
    """Measure one back-end in this process (call it in a fresh process for a clean RSS)."""
    rows = [json.loads(line) for line in data.open(encoding="utf-8")]
    texts = list(dict.fromkeys(t for r in rows for t in (r["a"]["text"], r["b"]["text"])))[:limit]
    started = time.perf_counter()
    emb = _make(backend, e5_dir)
    emb.encode(texts[:32])  # warm-up: lazy initialisation, allocator, thread pools
    load_s = time.perf_counter() - started
    started, cpu_started = time.perf_counter(), time.process_time()
    vecs = emb.encode(texts, kind="query", batch_size=64)
    speed = len(texts) / (time.perf_counter() - started)
    # CPU time of all this process's threads: on a shared, oversubscribed box wall-clock
    # speed says more about the neighbours than about the model; sentences per CPU-second
    # does not (an idle 2-core box gets at most ~2x it).
    per_cpu_s = len(texts) / max(time.process_time() - cpu_started, 1e-9)
    index = {t: i for i, t in enumerate(texts)}
    missing = [t for r in rows for t in (r["a"]["text"], r["b"]["text"]) if t not in index]
    if missing:
        extra = emb.encode(list(dict.fromkeys(missing)), kind="query")
        for t, v in zip(dict.fromkeys(missing), extra, strict=True):
            index[t] = len(vecs)
            vecs = np.vstack([vecs, v[None]])
    a = vecs[[index[r["a"]["text"]] for r in rows]]
    b = vecs[[index[r["b"]["text"]] for r in rows]]
    labels = np.array([r["label"] for r in rows])
    pos = labels == 1
    sim = a[pos] @ b[pos].T
    gold = np.arange(int(pos.sum()))
    return {
        "backend": backend, "name": emb.name, "dim": emb.dim, "n": len(texts),
        "load_s": round(load_s, 1), "sent_per_s": round(speed, 1),
        "sent_per_cpu_s": round(per_cpu_s, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "tatoeba_ko2en": round(float((sim.argmax(1) == gold).mean()) * 100, 1),
        "tatoeba_en2ko": round(float((sim.argmax(0) == gold).mean()) * 100, 1),
        "pair_auc": round(_auc((a * b).sum(1), labels), 4),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("backends", nargs="*", default=list(BACKENDS), help=f"subset of {BACKENDS}")
    p.add_argument("--data", type=Path, default=Path("../shared/eval-data/tatoeba-kor-eng/dev.jsonl"))
    p.add_argument("--e5-dir", type=Path, default=None, help="built e5-small directory")
    p.add_argument("--limit", type=int, default=2000, help="distinct texts timed (default 2000)")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if not args.data.is_file():
        p.error(f"{args.data} not found")
    if args.one:
        print(json.dumps(run_one(args.backends[0], args.data, args.e5_dir, args.limit)))
        return 0
    for backend in args.backends:
        cmd = [sys.executable, "-m", "models.bench", "--one", backend, "--data", str(args.data),
               "--limit", str(args.limit)] + (["--e5-dir", str(args.e5_dir)] if args.e5_dir else [])
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        print(res.stdout.strip().splitlines()[-1] if res.returncode == 0 else
              json.dumps({"backend": backend, "error": res.stderr.strip().splitlines()[-1:]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
