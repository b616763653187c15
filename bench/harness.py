"""Benchmark measurements: samestory and its alternatives on one stream, medians over repeats.

What is measured (all on the same seeded stream, see :mod:`bench.stream`):

* end-to-end ingest throughput (items/s) of ``Deduper.ingest_many`` into a SQLite file store;
* the share of items settled by each stage and the encoder calls/texts (engine counters);
* single-item ``ingest`` latency p50/p99 at checkpoints of the index size (the next
  ``probe`` items of the stream are ingested one at a time when the index reaches a
  checkpoint; they are excluded from the throughput figure);
* ``Deduper.dedupe`` latency for 100 texts (and the HTTP route when ``service.api`` has
  ``create_app``);
* ``GuardSet.check`` cost per pair;
* warm restart time and resident memory per indexed item, in a fresh subprocess
  (:mod:`bench.restart`), so the memory figure holds only the rebuilt candidate state: once
  from the state snapshot the clean close wrote (``restart``), once rebuilt from the store rows
  as after a crash (``restart_rebuild``);
* the alternatives of :mod:`bench.alternatives`, their throughput as a ratio to samestory's,
  and every method's recall of the stream's known duplicates and its false merges.

Throughput and latency are medians over ``repeats`` runs; recall is deterministic per run.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.stream import Stream, StreamItem, build_stream

REPO_ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = (1_000, 10_000, 100_000, 1_000_000)


def rss_bytes() -> int:
    """Resident set size of this process (Linux /proc; 0 where unavailable)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else None


def median(values: Sequence[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def score_labels(items: Sequence[StreamItem], labels: Sequence[int]) -> dict[str, Any]:
    """Recall of the known duplicates and false merges, from one cluster label per item.

    A copy is *caught* when it shares a label with its group's original. A merge is *false*
    when an item joins a cluster founded by an item of a different group (each cluster is
    judged by its founder, the first item carrying the label).
    """
    first_of_group: dict[int, int] = {}
    founder: dict[int, int] = {}
    caught: Counter[str] = Counter()
    copies: Counter[str] = Counter()
    merged = false = 0
    for i, (it, lab) in enumerate(zip(items, labels, strict=True)):
        if it.group not in first_of_group:
            first_of_group[it.group] = i
        else:
            copies[it.kind] += 1
            if labels[first_of_group[it.group]] == lab:
                caught[it.kind] += 1
        if lab in founder:
            merged += 1
            if items[founder[lab]].group != it.group:
                false += 1
        else:
            founder[lab] = i
    total = sum(copies.values())
    return {"recall": round(sum(caught.values()) / total, 4) if total else None,
            "recall_by_kind": {k: round(caught[k] / copies[k], 4) for k in sorted(copies)},
            "merged": merged, "false_merges": false,
            "false_merge_rate": round(false / merged, 4) if merged else 0.0}


# --- samestory -------------------------------------------------------------------------------------
def _engine(db: str, embedder: Any, guards: bool) -> Any:
    from service.config import EngineConfig
    from service.engine import Deduper
    from service.store import open_store

    return Deduper(open_store(db), embedder=embedder, config=EngineConfig.load(), guards=guards)


def run_samestory(stream: Stream, embedder: Any, *, workdir: Path, guards: bool = True, probe: int = 100,
                  chunk_size: int = 256) -> dict[str, Any]:
    """One ingest of the whole stream into a fresh SQLite store; returns times, counters, labels."""
    db_path = workdir / f"bench-{time.monotonic_ns()}.db"
    engine = _engine(f"sqlite:///{db_path}", embedder, guards)
    items = stream.items
    articles = [it.article() for it in items]
    checkpoints = [c for c in CHECKPOINTS if c + probe <= len(items)]
    labels: list[int] = []
    latencies: dict[int, list[float]] = {}
    bulk_time = 0.0
    bulk_items = 0
    pos = 0
    gc.collect()
    for stop in [*checkpoints, len(items)]:
        if stop > pos:
            t0 = time.perf_counter()
            res = engine.ingest_many(articles[pos:stop], chunk_size=chunk_size)
            bulk_time += time.perf_counter() - t0
            bulk_items += stop - pos
            labels.extend(r.cluster_id for r in res)
            pos = stop
        if stop in checkpoints:
            lat = []
            for a in articles[pos:pos + probe]:
                t0 = time.perf_counter()
                r = engine.ingest(a)
                lat.append((time.perf_counter() - t0) * 1000.0)
                labels.append(r.cluster_id)
            latencies[stop] = lat
            pos += probe
    stats = engine.stats()
    engine.close()
    return {"db": str(db_path), "bulk_items": bulk_items, "bulk_seconds": bulk_time,
            "throughput": bulk_items / bulk_time if bulk_time else None, "latencies_ms": latencies,
            "counters": stats["counters"], "indexed_documents": stats["indexed_documents"],
            "indexed_clusters": stats["indexed_clusters"], "labels": labels}


def measure_restart(db_path: str, model: str, guards: bool, *, snapshot: bool = True) -> dict[str, Any]:
    """Warm restart and state memory, measured in a fresh interpreter (see bench.restart).

    ``snapshot=False`` rebuilds from the store rows (the start after a crash) instead of loading
    the state snapshot the clean close wrote.
    """
    cmd = [sys.executable, "-m", "bench.restart", "--db", db_path, "--model", model]
    if not guards:
        cmd.append("--no-guards")
    if not snapshot:
        cmd.append("--no-snapshot")
    out = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=900)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- small engine-call latencies ----------------------------------------------------------------------
def rag_chunks(stream: Stream, n: int = 100) -> list[str]:
    """``n`` texts like a RAG retrieval: mostly distinct, about 30 % near-copies of another one."""
    items = stream.items
    groups: dict[int, list[str]] = {}
    for it in items:
        groups.setdefault(it.group, []).append(it.title)
    with_copies = [g for g in groups.values() if len(g) > 1]
    singles = [g[0] for g in groups.values() if len(g) == 1]
    out: list[str] = []
    for g in with_copies[: int(n * 0.15)]:
        out.extend(g[:2])
    out.extend(singles[: n - len(out)])
    return out[:n]


def measure_dedupe(embedder: Any, texts: list[str], *, guards: bool, calls: int = 20) -> dict[str, Any]:
    """``Deduper.dedupe`` on ``texts`` (and the HTTP route when the API exists), ms per call."""
    engine = _engine(":memory:", embedder, guards)
    engine.dedupe(texts)  # first call pays one-off costs (regex compile, BLAS warm-up)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        engine.dedupe(texts)
        times.append((time.perf_counter() - t0) * 1000.0)
    out: dict[str, Any] = {"texts": len(texts), "calls": calls, "engine_p50_ms": median(times),
                           "engine_p99_ms": percentile(times, 99)}
    out.update(_measure_http_dedupe(engine, texts, calls))
    engine.close()
    return out


def _measure_http_dedupe(engine: Any, texts: list[str], calls: int) -> dict[str, Any]:
    try:
        from fastapi.testclient import TestClient

        from service.api import create_app  # type: ignore[attr-defined]
    except Exception as exc:  # the route is a colleague's work in progress; say why it is absent
        return {"http": None, "http_skipped": f"{type(exc).__name__}: {exc}"[:200]}
    try:
        try:
            app = create_app(engine=engine)
        except TypeError:
            app = create_app()
        with TestClient(app) as client:
            body = {"texts": texts}
            r = client.post("/v1/dedupe", json=body)
            if r.status_code != 200:
                return {"http": None, "http_skipped": f"POST /v1/dedupe -> {r.status_code}: {r.text[:150]}"}
            times = []
            for _ in range(calls):
                t0 = time.perf_counter()
                client.post("/v1/dedupe", json=body)
                times.append((time.perf_counter() - t0) * 1000.0)
        return {"http": True, "http_p50_ms": median(times), "http_p99_ms": percentile(times, 99)}
    except Exception as exc:
        return {"http": None, "http_skipped": f"{type(exc).__name__}: {exc}"[:200]}


def measure_guards(stream: Stream, pairs: int = 2_000) -> dict[str, Any]:
    """Median cost of ``GuardSet.check`` per pair on (original, copy) pairs of the stream."""
    try:
        from service.guards import GuardSet
        from service.guards.base import GuardInput
    except Exception as exc:
        return {"per_pair_us": None, "skipped": f"{type(exc).__name__}: {exc}"[:200]}
    gs = GuardSet.default()
    first: dict[int, StreamItem] = {}
    sides = []
    for it in stream.items:
        if it.group in first:
            a = first[it.group]
            sides.append((GuardInput(title=a.title, text=a.title, lang=a.lang),
                          GuardInput(title=it.title, text=it.title, lang=it.lang)))
            if len(sides) >= pairs:
                break
        else:
            first[it.group] = it
    if not sides:
        return {"per_pair_us": None, "skipped": "no duplicate pairs in the stream"}
    for a, b in sides[:50]:
        gs.check(a, b)
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        for a, b in sides:
            gs.check(a, b)
        runs.append((time.perf_counter() - t0) / len(sides) * 1e6)
    return {"per_pair_us": median(runs), "pairs": len(sides)}


# --- alternatives ----------------------------------------------------------------------------------
def run_alternative(name: str, stream: Stream, embedder: Any, threshold: float) -> dict[str, Any]:
    from bench import alternatives as alt

    pairs = [(it.title, it.lang) for it in stream.items]
    gc.collect()
    t0 = time.perf_counter()
    encoder_texts = 0
    if name == "embed-all":
        labels, encoder_texts = alt.embed_all(pairs, embedder, threshold)
    elif name == "semhash":
        labels = alt.semhash_dedupe(pairs, embedder, threshold)
        encoder_texts = len(pairs)
    elif name == "seed001":
        labels = alt.seed001(pairs)
    elif name == "seed000":
        labels = alt.seed000(pairs)
    else:
        raise ValueError(f"unknown alternative {name!r}; valid: {', '.join(alt.ALTERNATIVES)}")
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "throughput": len(pairs) / seconds, "encoder_texts": encoder_texts,
            "labels": labels}


# --- the whole run -------------------------------------------------------------------------------------
def load_model(model: str) -> Any:
    """The engine's embedder, without the registry's LRU cache: a cache would let repeated
    texts skip the encoder for embed-all too, and the repeats would measure the cache."""
    if model in ("none", ""):
        return None
    from models.registry import load_embedder

    return load_embedder(model, cache_size=0)


def run_benchmark(size: int, *, repeats: int = 3, alternatives: Sequence[str] = ("embed-all", "seed001", "seed000"),
                  model: str = "use", guards: bool = True, seed: int = 0, dup_share: float = 0.4,
                  data_dir: str | None = None, probe: int = 100, restart: bool = True,
                  workdir: str | None = None, log: Any = None) -> dict[str, Any]:
    """Run everything at one stream size; returns a JSON-able dict (see module docstring)."""

    def say(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    from service.config import EngineConfig

    t_build = time.perf_counter()
    stream = build_stream(size, dup_share=dup_share, seed=seed, data_dir=data_dir)
    say(f"stream: {stream.stats} ({time.perf_counter() - t_build:.1f}s)")
    embedder = load_model(model)
    # The same threshold the engine uses for this model (alternatives compare at equal footing).
    threshold = EngineConfig.load().for_model(None if embedder is None else embedder.name).embedding_threshold
    tmp = tempfile.TemporaryDirectory(prefix="samestory-bench-", dir=workdir)
    work = Path(tmp.name)
    ours: list[dict[str, Any]] = []
    alts: dict[str, list[dict[str, Any]]] = {a: [] for a in alternatives}
    try:
        for r in range(repeats):
            res = run_samestory(stream, embedder, workdir=work, guards=guards, probe=probe)
            say(f"[{r + 1}/{repeats}] samestory: {res['throughput']:.0f} items/s")
            if r < repeats - 1:
                os.unlink(res["db"])
            ours.append(res)
            for a in alternatives:
                try:
                    ar = run_alternative(a, stream, embedder, threshold)
                except ImportError as exc:
                    say(f"alternative {a} skipped: {exc}")
                    alts[a].append({"skipped": str(exc)})
                    continue
                say(f"[{r + 1}/{repeats}] {a}: {ar['throughput']:.0f} items/s")
                alts[a].append(ar)
        last = ours[-1]
        rebuild_info = measure_restart(last["db"], model, guards, snapshot=False) if restart else None
        say(f"restart, rebuilt from the store: {rebuild_info}")
        restart_info = measure_restart(last["db"], model, guards) if restart else None
        say(f"restart: {restart_info}")
        dedupe_info = measure_dedupe(embedder, rag_chunks(stream), guards=guards) if embedder is not None else None
        guard_info = measure_guards(stream)
    finally:
        tmp.cleanup()

    n = len(stream)
    ours_tp = median([o["throughput"] for o in ours])
    counters = last["counters"]
    stage_share = {k[len("stage_"):]: round(v / n, 4) for k, v in sorted(counters.items()) if k.startswith("stage_")}
    status_share = {k[len("status_"):]: round(v / n, 4) for k, v in sorted(counters.items())
                    if k.startswith("status_")}
    lat = {}
    for cp in last["latencies_ms"]:
        pooled = [x for o in ours for x in o["latencies_ms"].get(cp, [])]
        lat[str(cp)] = {"p50_ms": percentile(pooled, 50), "p99_ms": percentile(pooled, 99), "samples": len(pooled)}
    ours_quality = score_labels(stream.items, last["labels"])
    methods: dict[str, Any] = {"samestory": {
        "throughput": ours_tp, "throughput_runs": [o["throughput"] for o in ours],
        "encoder_texts": counters.get("encoder_texts", 0), "encoder_calls": counters.get("encoder_calls", 0),
        **ours_quality}}
    for a, runs in alts.items():
        ok = [x for x in runs if "skipped" not in x]
        if not ok:
            methods[a] = {"skipped": runs[0]["skipped"] if runs else "not run"}
            continue
        tp = median([x["throughput"] for x in ok])
        methods[a] = {"throughput": tp, "throughput_runs": [x["throughput"] for x in ok],
                      "throughput_ratio_to_samestory": round(tp / ours_tp, 4),
                      "encoder_texts": ok[-1]["encoder_texts"], **score_labels(stream.items, ok[-1]["labels"])}
    embed_all = methods.get("embed-all", {})
    speedup = round(ours_tp / embed_all["throughput"], 3) if embed_all.get("throughput") else None
    return {
        "size": n, "repeats": repeats, "seed": seed, "model": model, "guards": guards,
        "stream": stream.stats,
        "throughput_items_per_s": ours_tp,
        "speedup_vs_embed_all": speedup,
        "stage_share": stage_share, "status_share": status_share,
        "encoder_texts": counters.get("encoder_texts", 0), "encoder_calls": counters.get("encoder_calls", 0),
        "encoder_share": round(counters.get("encoder_texts", 0) / n, 4),
        "ingest_latency_ms": lat,
        "indexed_documents": last["indexed_documents"], "indexed_clusters": last["indexed_clusters"],
        "restart": restart_info, "restart_rebuild": rebuild_info, "dedupe_100": dedupe_info, "guards_check": guard_info,
        "methods": methods,
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
    }
