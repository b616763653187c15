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
  and every method's recall of the stream's known duplicates beside its precision (pairwise
  precision, false-merge rate, labelled hard negatives merged: :func:`score_labels`);
* the encoder alone, batched, on a sample of the stream's texts and of the texts samestory sent
  it (:class:`RecordingEmbedder`): every throughput is also a share of that limit;
* items/s per window of the stream as the store grows, for every streaming method;
* with the pair verifier (``verifier="on"`` or ``"both"``, issue 35): the pairs it read, its
  p50 ms per verified pair and its share of the stream's ingest time (:class:`TimedVerifier`);
  ``"both"`` runs the stream with it as a method of its own, ``samestory+verifier``.

Each repeat runs the methods in a rotated order (:func:`rotated`) after one untimed warm-up of
each. Throughput and latency are medians over ``repeats`` runs; recall and precision are
deterministic per run.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.stream import Stream, StreamItem, build_stream

REPO_ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = (1_000, 10_000, 100_000, 1_000_000)


def print_report(report: dict[str, Any], out: Path | None) -> None:
    """Print a benchmark's JSON report, and write it to ``out`` (folders created) when given."""
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
    print(text)


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


def score_labels(items: Sequence[StreamItem], labels: Sequence[int],
                 negatives: Sequence[tuple[int, int]] = ()) -> dict[str, Any]:
    """Recall of the known duplicates, precision, and hard negatives merged, from one cluster label per item.

    A copy is *caught* when it shares a label with its group's original. A merge is *false*
    when an item joins a cluster founded by an item of a different group (each cluster is
    judged by its founder, the first item carrying the label). Pairwise precision is the share
    of item pairs put in one cluster that belong to one group; pairwise recall the share of
    same-group pairs put in one cluster. ``negatives`` are (group, group) pairs the data labels
    "not the same" (:attr:`bench.stream.Stream.negatives`); merging their originals is counted.

    >>> items = [StreamItem(t, "en", str(i), "s", 0.0, g, k) for i, (t, g, k) in
    ...          enumerate([("a", 0, "original"), ("b", 1, "original"), ("a!", 0, "case")])]
    >>> q = score_labels(items, [0, 0, 0], negatives=[(0, 1)])
    >>> q["pairwise_precision"], q["false_merges"], q["hard_negatives_merged"]
    (0.3333, 1, 1)
    """
    first_of_group: dict[int, int] = {}
    founder: dict[int, int] = {}
    caught: Counter[str] = Counter()
    copies: Counter[str] = Counter()
    cells: Counter[tuple[int, int]] = Counter()
    merged = false = 0
    for i, (it, lab) in enumerate(zip(items, labels, strict=True)):
        cells[(lab, it.group)] += 1
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

    def pairs(counts: Any) -> int:
        return sum(n * (n - 1) // 2 for n in counts)

    together = pairs(cells.values())
    predicted = pairs(Counter(labels).values())
    true_pairs = pairs(Counter(it.group for it in items).values())
    known = [(a, b) for a, b in negatives if a in first_of_group and b in first_of_group]
    neg_merged = sum(labels[first_of_group[a]] == labels[first_of_group[b]] for a, b in known)
    return {"recall": round(sum(caught.values()) / total, 4) if total else None,
            "recall_by_kind": {k: round(caught[k] / copies[k], 4) for k in sorted(copies)},
            "merged": merged, "false_merges": false,
            "false_merge_rate": round(false / merged, 4) if merged else 0.0,
            "pairwise_precision": round(together / predicted, 4) if predicted else 1.0,
            "pairwise_recall": round(together / true_pairs, 4) if true_pairs else None,
            "hard_negatives": len(known), "hard_negatives_merged": neg_merged,
            "hard_negative_merge_rate": round(neg_merged / len(known), 4) if known else None}


def windows_from_marks(marks: Sequence[tuple[int, float]], window: int) -> list[dict[str, float]]:
    """Items/s per window of about ``window`` items, from (items done, seconds) marks.

    Each window ends at the first mark at or past the next multiple of ``window`` (marks come
    every batch, so a window holds whole batches); ``stored`` is the items done at its end.

    >>> windows_from_marks([(0, 0.0), (256, 1.0), (512, 2.0), (768, 4.0), (1000, 5.0)], 500)
    [{'stored': 512, 'items_per_s': 256.0}, {'stored': 1000, 'items_per_s': 162.7}]
    """
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    out: list[dict[str, float]] = []
    last_n, last_t = marks[0] if marks else (0, 0.0)
    boundary = last_n + window
    for i, (n, t) in enumerate(marks):
        if n >= boundary or (i == len(marks) - 1 and n > last_n):
            if t > last_t:
                out.append({"stored": n, "items_per_s": round((n - last_n) / (t - last_t), 1)})
            last_n, last_t = n, t
            while boundary <= n:
                boundary += window
    return out


def median_windows(runs: Sequence[Sequence[dict[str, float]]]) -> list[dict[str, float]]:
    """Per-window medians over repeats (the windows of a deterministic method line up)."""
    runs = [r for r in runs if r]
    if not runs:
        return []
    n = min(len(r) for r in runs)
    return [{"stored": runs[0][k]["stored"], "items_per_s": round(median([r[k]["items_per_s"] for r in runs]) or 0.0, 1)}
            for k in range(n)]


# --- samestory -------------------------------------------------------------------------------------
def _engine(db: str, embedder: Any, guards: bool, verifier: Any = None) -> Any:
    from service.config import EngineConfig
    from service.engine import Deduper, guards_on
    from service.store import open_store

    # None: the verifier off (the engine's default would load the shipped one, untimed)
    config = EngineConfig.load().replace(verifier=verifier is not None)
    return Deduper(open_store(db), embedder=embedder, config=config, guards=guards_on(guards), verifier=verifier)


class TimedVerifier:
    """The engine's pair verifier, passed through, timing every ``score`` call (pairs, seconds)."""

    def __init__(self, verifier: Any) -> None:
        self._verifier = verifier
        self.calls: list[tuple[int, float]] = []

    @property
    def threshold(self) -> float:
        return float(self._verifier.threshold)

    def score(self, a: Sequence[str], b: Sequence[str]) -> Any:
        t0 = time.perf_counter()
        out = self._verifier.score(a, b)
        self.calls.append((len(a), time.perf_counter() - t0))
        return out

    def figures(self, ingest_seconds: float) -> dict[str, Any]:
        """Pairs read, calls, p50 / p99 ms per verified pair (each call's time shared by its pairs)
        and the share of ``ingest_seconds`` spent in the verifier.

        >>> t = TimedVerifier(None); t.calls = [(1, 0.004), (3, 0.006)]
        >>> t.figures(0.1)
        {'pairs': 4, 'calls': 2, 'p50_ms_per_pair': 2.0, 'p99_ms_per_pair': 3.94, 'seconds': 0.01, 'share_of_ingest_time': 0.1}
        """
        per_pair = [1000.0 * sec / n for n, sec in self.calls for _ in range(n)]
        seconds = sum(sec for _, sec in self.calls)
        p50, p99 = percentile(per_pair, 50), percentile(per_pair, 99)
        return {"pairs": len(per_pair), "calls": len(self.calls),
                "p50_ms_per_pair": None if p50 is None else round(p50, 3),
                "p99_ms_per_pair": None if p99 is None else round(p99, 3),
                "seconds": round(seconds, 3),
                "share_of_ingest_time": round(seconds / ingest_seconds, 4) if ingest_seconds else None}


class RecordingEmbedder:
    """The engine's embedder, passed through, keeping every text the engine sent to it.

    The benchmark measures the encoder's own limit on exactly these texts (the ones that reach
    the model), so the cascade's throughput can be shown as a share of it. Every other attribute
    (``name``, ``dim``) is the wrapped embedder's.
    """

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str], **kw: Any) -> Any:
        self.texts.extend(texts)
        return self._embedder.encode(texts, **kw)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._embedder, name)
        if name != "submit":
            return attr

        def submit(texts: Sequence[str], **kw: Any) -> Any:  # a child process's stream (service.ahead)
            self.texts.extend(texts)
            return attr(texts, **kw)

        return submit


def run_samestory(stream: Stream, embedder: Any, *, workdir: Path, guards: bool = True, probe: int = 100,
                  chunk_size: int = 256, window: int = 1_000, verifier: Any = None) -> dict[str, Any]:
    """One ingest of the whole stream into a fresh SQLite store; returns times, counters, labels.

    The bulk ingest goes in calls of ``window`` items, each timed, so throughput can be plotted
    against the items stored (``windows``); ``encoder_input`` holds the texts that reached the
    encoder. ``verifier``: the pair verifier the engine runs (None: off); its figures, timed
    over the whole run (bulk and single-item ingests), are under ``verifier``.
    """
    db_path = workdir / f"bench-{time.monotonic_ns()}.db"
    recorder = RecordingEmbedder(embedder) if embedder is not None else None
    timed = TimedVerifier(verifier) if verifier is not None else None
    engine = _engine(f"sqlite:///{db_path}", recorder, guards, timed)
    if recorder is not None:
        recorder.texts.clear()  # drop the engine's warm-up call, if any
    items = stream.items
    articles = [it.article() for it in items]
    checkpoints = [c for c in CHECKPOINTS if c + probe <= len(items)]
    labels: list[int] = []
    latencies: dict[int, list[float]] = {}
    windows: list[dict[str, float]] = []
    bulk_time = 0.0
    probe_time = 0.0
    bulk_items = 0
    pos = 0
    gc.collect()
    for stop in [*checkpoints, len(items)]:
        while pos < stop:
            end = min(stop, pos + window)
            t0 = time.perf_counter()
            res = engine.ingest_many(articles[pos:end], chunk_size=chunk_size)
            seconds = time.perf_counter() - t0
            bulk_time += seconds
            bulk_items += end - pos
            windows.append({"stored": end, "items_per_s": round((end - pos) / seconds, 1)})
            labels.extend(r.cluster_id for r in res)
            pos = end
        if stop in checkpoints:
            lat = []
            for a in articles[pos:pos + probe]:
                t0 = time.perf_counter()
                r = engine.ingest(a)
                lat.append((time.perf_counter() - t0) * 1000.0)
                probe_time += lat[-1] / 1000.0
                labels.append(r.cluster_id)
            latencies[stop] = lat
            pos += probe
    stats = engine.stats()
    engine.close()
    return {"db": str(db_path), "bulk_items": bulk_items, "bulk_seconds": bulk_time,
            "throughput": bulk_items / bulk_time if bulk_time else None, "latencies_ms": latencies,
            "counters": stats["counters"], "indexed_documents": stats["indexed_documents"],
            "indexed_clusters": stats["indexed_clusters"], "labels": labels, "windows": windows,
            "encoder_input": list(recorder.texts) if recorder is not None else [],
            "verifier": timed.figures(bulk_time + probe_time) if timed is not None else None}


# Texts per encoder call when measuring its limit: large calls, so the length sort inside
# ``encode`` (models.base.encode_sorted) pads as little as it can; memory stays one call's output.
ENCODER_LIMIT_CALL = 2_048


def measure_encoder(embedder: Any, texts: Sequence[str], *, call_size: int = ENCODER_LIMIT_CALL,
                    window: int = 1_000) -> dict[str, Any]:
    """The encoder alone, batched: texts/s over ``texts`` in calls of ``call_size`` texts."""
    gc.collect()
    marks: list[tuple[int, float]] = [(0, 0.0)]
    t0 = time.perf_counter()
    for start in range(0, len(texts), call_size):
        embedder.encode(list(texts[start:start + call_size]))
        marks.append((min(len(texts), start + call_size), time.perf_counter() - t0))
    seconds = time.perf_counter() - t0
    return {"texts": len(texts), "seconds": seconds, "texts_per_s": len(texts) / seconds if seconds else None,
            "windows": windows_from_marks(marks, window)}


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
def run_alternative(name: str, stream: Stream, embedder: Any, threshold: float, *,
                    window: int = 1_000) -> dict[str, Any]:
    """One run of an alternative over the stream: throughput, per-window items/s, labels."""
    from bench import alternatives as alt

    pairs = [(it.title, it.lang) for it in stream.items]
    marks: list[tuple[int, float]] = [(0, 0.0)]
    gc.collect()
    t0 = time.perf_counter()

    def progress(done: int) -> None:
        marks.append((done, time.perf_counter() - t0))

    encoder_texts = 0
    if name == "embed-all":
        labels, encoder_texts = alt.embed_all(pairs, embedder, threshold, progress=progress)
    elif name == "semhash":
        labels = alt.semhash_dedupe(pairs, embedder, threshold)  # one batch call: no windows
        encoder_texts = len(pairs)
    elif name == "seed001":
        labels = alt.seed001(pairs, progress=progress, every=window)
    elif name == "seed000":
        labels = alt.seed000(pairs, progress=progress, every=window)
    else:
        raise ValueError(f"unknown alternative {name!r}; valid: {', '.join(alt.ALTERNATIVES)}")
    seconds = time.perf_counter() - t0
    if marks[-1][0] < len(pairs):
        marks.append((len(pairs), seconds))
    return {"seconds": seconds, "throughput": len(pairs) / seconds, "encoder_texts": encoder_texts,
            "labels": labels, "windows": windows_from_marks(marks, window) if len(marks) > 2 else []}


# --- the whole run -------------------------------------------------------------------------------------
def load_model(model: str) -> Any:
    """The engine's embedder, without the registry's LRU cache: a cache would let repeated
    texts skip the encoder for embed-all too, and the repeats would measure the cache."""
    if model in ("none", ""):
        return None
    from models.registry import load_embedder

    return load_embedder(model, cache_size=0)


WARM_UP_ITEMS = 300  # per method, untimed: imports, BLAS and FAISS first calls, regex compiles


def _warm_up(methods: Sequence[str], stream: Stream, embedder: Any, threshold: float, work: Path,
             guards: bool, verifiers: dict[str, Any] | None = None) -> None:
    """Run every method once on the stream's first items, untimed, so no repeat pays one-off costs."""
    head = Stream(stream.items[:WARM_UP_ITEMS], stream.seed, stream.dup_share)
    for method in methods:
        if method.startswith("samestory"):
            os.unlink(run_samestory(head, embedder, workdir=work, guards=guards, probe=0,
                                    verifier=(verifiers or {}).get(method))["db"])
        elif method == "encoder":
            measure_encoder(embedder, [it.title for it in head.items])
        else:
            with contextlib.suppress(ImportError):  # reported by the timed run
                run_alternative(method, head, embedder, threshold)


def rotated(methods: Sequence[str], r: int) -> list[str]:
    """The run order of repeat ``r``: each repeat starts one method later, so on a shared machine
    no method always runs first (cold caches) or last (a neighbour's job starting).

    >>> rotated(["a", "b", "c"], 1)
    ['b', 'c', 'a']
    """
    k = r % len(methods)
    return [*methods[k:], *methods[:k]]


def run_benchmark(size: int, *, repeats: int = 3, alternatives: Sequence[str] = ("embed-all", "seed001", "seed000"),
                  model: str = "use", guards: bool = True, seed: int = 0, dup_share: float = 0.4,
                  data_dir: str | None = None, probe: int = 100, restart: bool = True,
                  workdir: str | None = None, window: int | None = None, extras: bool = True,
                  encoder_sample: int = 3_000, log: Any = None,
                  on_repeat: Callable[[dict[str, Any]], None] | None = None, verifier: str = "off",
                  verifier_path: str | None = None, encoder_process: bool = False,
                  candidate_verifier: str | None = None) -> dict[str, Any]:
    """Run everything at one stream size; returns a JSON-able dict (see module docstring).

    Each repeat runs samestory, the encoder alone and the alternatives in a rotated order
    (:func:`rotated`); throughputs are medians over the repeats, per-window curves medians per
    window. ``window`` (default: a twentieth of the stream, at least 100) sets the items per
    point of the throughput-against-stored-items curves. ``extras=False`` skips the
    ``Deduper.dedupe`` and ``GuardSet.check`` timings. The encoder's limit is measured on a
    seeded sample of ``encoder_sample`` of the stream's texts and as many of the texts samestory
    sent to it (a rate needs no more; the whole set would double a run on a shared machine).
    ``on_repeat`` receives the figures so far after every repeat (the CLI writes them, so a run
    cut short still leaves its completed repeats). ``verifier``: "off", "on" (samestory runs with
    the pair verifier of ``verifier_path``, default the committed artefact) or "both" (a second
    method, ``samestory+verifier``, in the rotation; its ``throughput_ratio_to_samestory`` is the
    issue-35 cost figure). ``encoder_process``: one more method, ``samestory+process``, samestory as
    it runs (the verifier as ``verifier`` gives samestory) with its encoder in a child process
    (``operations.encoder_process``); its ``throughput_ratio_to_samestory`` is that option's gain.
    ``candidate_verifier``: one more method, ``samestory+candidate``, samestory with the pair
    verifier of that artefact (a smaller or retrained model measured beside the shipped one, in the
    same rotation, on the same machine).
    """
    if verifier not in ("off", "on", "both"):
        raise ValueError(f"verifier must be 'off', 'on' or 'both', got {verifier!r}")

    def say(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    from service.config import EngineConfig
    from service.context import engine_verifier

    window = window or max(100, size // 20)
    t_build = time.perf_counter()
    stream = build_stream(size, dup_share=dup_share, seed=seed, data_dir=data_dir)
    say(f"stream: {stream.stats} ({time.perf_counter() - t_build:.1f}s)")
    embedder = load_model(model)
    # The same threshold the engine uses for this model (alternatives compare at equal footing).
    threshold = EngineConfig.load().for_model(None if embedder is None else embedder.name).copy.embedding_threshold
    tmp = tempfile.TemporaryDirectory(prefix="samestory-bench-", dir=workdir)
    work = Path(tmp.name)
    all_texts = [it.title for it in stream.items]
    ours: list[dict[str, Any]] = []
    alts: dict[str, list[dict[str, Any]]] = {a: [] for a in alternatives}
    enc_all: list[dict[str, Any]] = []
    enc_survivors: list[dict[str, Any]] = []
    survivors: list[str] | None = None
    verifiers: dict[str, Any] = {}
    if verifier != "off":
        loaded = engine_verifier(EngineConfig.load(), verifier_path).load()
        verifiers["samestory" if verifier == "on" else "samestory+verifier"] = loaded
        say(f"pair verifier: {loaded!r}")
    if candidate_verifier is not None:
        verifiers["samestory+candidate"] = engine_verifier(EngineConfig.load(), candidate_verifier).load()
        say(f"candidate pair verifier: {verifiers['samestory+candidate']!r}")
    # The runs of the methods that are samestory with a verifier of their own, by method.
    verifier_runs: dict[str, list[dict[str, Any]]] = {"samestory+verifier": [], "samestory+candidate": []}
    process_runs: list[dict[str, Any]] = []
    process_embedder: Any = None
    if encoder_process and model not in ("none", ""):
        from models.registry import load_embedder

        process_embedder = load_embedder(model, cache_size=0, process=True)
    order = ["samestory", *(["samestory+verifier"] if verifier == "both" else []),
             *(["samestory+candidate"] if candidate_verifier is not None else []),
             *(["samestory+process"] if process_embedder is not None else []),
             *(["encoder"] if embedder is not None else []), *alternatives]
    def summarise(restart_info: Any = None, rebuild_info: Any = None, dedupe_info: Any = None,
                  guard_info: Any = None) -> dict[str, Any]:
        """Every figure from the runs so far (called after each repeat, and at the end)."""
        last = ours[-1]
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
        # The encoder's limit: the stream's texts (a seeded sample), batched. An embed-everything
        # method can reach at most this many items/s; every throughput is also shown as a share of it.
        encoder_limit = median([e["texts_per_s"] for e in enc_all]) if enc_all else None
        encoder: dict[str, Any] | None = None
        if enc_all:
            encoder = {"texts_per_s": encoder_limit, "texts_per_s_runs": [e["texts_per_s"] for e in enc_all],
                       "call_size": ENCODER_LIMIT_CALL, "texts": len(all_texts),
                       "texts_sampled": enc_all[-1]["texts"],
                       "windows": median_windows([e["windows"] for e in enc_all])}
            if enc_survivors:
                surv_tp = median([e["texts_per_s"] for e in enc_survivors]) or 0.0
                # samestory's own ceiling if the encoder were its only cost: n items per the time
                # the encoder needs for the texts samestory sends it.
                encoder["samestory_texts"] = len(survivors or [])
                encoder["samestory_texts_sampled"] = enc_survivors[-1]["texts"]
                encoder["samestory_texts_per_s"] = surv_tp
                encoder["samestory_bound_items_per_s"] = round(n / (len(survivors or []) / surv_tp), 1) if surv_tp else None

        def share(tp: float | None) -> float | None:
            return round(tp / encoder_limit, 4) if tp and encoder_limit else None

        ours_quality = score_labels(stream.items, last["labels"], stream.negatives)
        methods: dict[str, Any] = {"samestory": {
            "throughput": ours_tp, "throughput_runs": [o["throughput"] for o in ours],
            "share_of_encoder_limit": share(ours_tp),
            "encoder_texts": counters.get("encoder_texts", 0), "encoder_calls": counters.get("encoder_calls", 0),
            "windows": median_windows([o["windows"] for o in ours]), **ours_quality}}
        if encoder and encoder.get("samestory_bound_items_per_s"):
            methods["samestory"]["share_of_own_encoder_bound"] = round(ours_tp / encoder["samestory_bound_items_per_s"], 4)
        for a, runs in alts.items():
            ok = [x for x in runs if "skipped" not in x]
            if not ok:
                methods[a] = {"skipped": runs[0]["skipped"] if runs else "not run"}
                continue
            tp = median([x["throughput"] for x in ok])
            methods[a] = {"throughput": tp, "throughput_runs": [x["throughput"] for x in ok],
                          "throughput_ratio_to_samestory": round(tp / ours_tp, 4), "share_of_encoder_limit": share(tp),
                          "encoder_texts": ok[-1]["encoder_texts"], "windows": median_windows([x["windows"] for x in ok]),
                          **score_labels(stream.items, ok[-1]["labels"], stream.negatives)}
        if ours[-1].get("verifier"):
            methods["samestory"]["verifier"] = ours[-1]["verifier"]
        def variant(runs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
            """A second samestory method's figures (its runs beside samestory's)."""
            tp = median([x["throughput"] for x in runs])
            return {"throughput": tp, "throughput_runs": [x["throughput"] for x in runs],
                    "throughput_ratio_to_samestory": round(tp / ours_tp, 4) if tp and ours_tp else None,
                    "share_of_encoder_limit": share(tp),
                    "encoder_texts": runs[-1]["counters"].get("encoder_texts", 0),
                    "windows": median_windows([x["windows"] for x in runs]), **extra,
                    **score_labels(stream.items, runs[-1]["labels"], stream.negatives)}

        for name, runs in verifier_runs.items():
            if runs:
                path = {"verifier_path": candidate_verifier} if name == "samestory+candidate" else {}
                methods[name] = variant(runs, verifier=runs[-1]["verifier"], **path,
                                        verifier_p50_ms_per_pair_runs=[x["verifier"]["p50_ms_per_pair"] for x in runs])
        if process_runs:
            methods["samestory+process"] = variant(process_runs,
                                                   decisions_as_samestory=process_runs[-1]["labels"] == last["labels"])
        embed_all = methods.get("embed-all", {})
        speedup = round(ours_tp / embed_all["throughput"], 3) if embed_all.get("throughput") else None
        return {
            "size": n, "repeats": len(ours), "repeats_planned": repeats, "seed": seed, "model": model,
            "guards": guards, "window": window, "dup_share": dup_share, "verifier": verifier,
            "run_order": [rotated(order, r) for r in range(len(ours))],
            "stream": stream.stats,
            "throughput_items_per_s": ours_tp,
            "speedup_vs_embed_all": speedup,
            "encoder_limit": encoder,
            "stage_share": stage_share, "status_share": status_share,
            "encoder_texts": counters.get("encoder_texts", 0), "encoder_calls": counters.get("encoder_calls", 0),
            "encoder_share": round(counters.get("encoder_texts", 0) / n, 4),
            "ingest_latency_ms": lat,
            "indexed_documents": last["indexed_documents"], "indexed_clusters": last["indexed_clusters"],
            "restart": restart_info, "restart_rebuild": rebuild_info, "dedupe_100": dedupe_info, "guards_check": guard_info,
            "methods": methods,
            "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "load_avg_at_end": _loadavg()},
        }

    try:
        _warm_up(order, stream, embedder, threshold, work, guards, verifiers)
        say(f"warmed up on the first {WARM_UP_ITEMS} items: {', '.join(order)}")
        for r in range(repeats):
            for method in rotated(order, r):
                if method in verifier_runs:
                    res = run_samestory(stream, embedder, workdir=work, guards=guards, probe=probe, window=window,
                                        verifier=verifiers[method])
                    res.pop("encoder_input")
                    os.unlink(res["db"])
                    verifier_runs[method].append(res)
                    say(f"[{r + 1}/{repeats}] {method}: {res['throughput']:.0f} items/s, "
                        f"verifier {res['verifier']}")
                elif method == "samestory+process":
                    res = run_samestory(stream, process_embedder, workdir=work, guards=guards, probe=probe,
                                        window=window, verifier=verifiers.get("samestory"))
                    res.pop("encoder_input")
                    os.unlink(res["db"])
                    process_runs.append(res)
                    say(f"[{r + 1}/{repeats}] samestory+process: {res['throughput']:.0f} items/s")
                elif method == "samestory":
                    res = run_samestory(stream, embedder, workdir=work, guards=guards, probe=probe, window=window,
                                        verifier=verifiers.get(method))
                    say(f"[{r + 1}/{repeats}] samestory: {res['throughput']:.0f} items/s")
                    if ours:
                        os.unlink(ours[-1]["db"])  # keep the newest store only, for the restart measurement
                    survivors = res.pop("encoder_input")
                    ours.append(res)
                elif method == "encoder":
                    enc_all.append(measure_encoder(embedder, _sample(all_texts, encoder_sample, seed), window=window))
                    say(f"[{r + 1}/{repeats}] encoder alone, every text: {enc_all[-1]['texts_per_s']:.0f} texts/s")
                    if survivors:
                        enc_survivors.append(measure_encoder(embedder, _sample(survivors, encoder_sample, seed),
                                                             window=window))
                        say(f"[{r + 1}/{repeats}] encoder alone, samestory's {len(survivors)} texts: "
                            f"{enc_survivors[-1]['texts_per_s']:.0f} texts/s")
                else:
                    try:
                        ar = run_alternative(method, stream, embedder, threshold, window=window)
                    except ImportError as exc:
                        say(f"alternative {method} skipped: {exc}")
                        alts[method].append({"skipped": str(exc)})
                        continue
                    say(f"[{r + 1}/{repeats}] {method}: {ar['throughput']:.0f} items/s")
                    alts[method].append(ar)
            if on_repeat is not None:
                on_repeat(summarise())
        last = ours[-1]
        rebuild_info = measure_restart(last["db"], model, guards, snapshot=False) if restart else None
        say(f"restart, rebuilt from the store: {rebuild_info}")
        restart_info = measure_restart(last["db"], model, guards) if restart else None
        say(f"restart: {restart_info}")
        dedupe_info = (measure_dedupe(embedder, rag_chunks(stream), guards=guards)
                       if embedder is not None and extras else None)
        guard_info = measure_guards(stream) if extras else None
    finally:
        tmp.cleanup()
        if process_embedder is not None:
            process_embedder.close()
    return summarise(restart_info, rebuild_info, dedupe_info, guard_info)

def _sample(texts: Sequence[str], k: int, seed: int) -> list[str]:
    """A seeded sample of ``k`` texts (all of them when there are fewer), in stream order."""
    if len(texts) <= k:
        return list(texts)
    import random

    return [texts[i] for i in sorted(random.Random(seed).sample(range(len(texts)), k))]


def _loadavg() -> list[float] | None:
    """The 1/5/15-minute load averages (the machine may be shared: say how busy it was)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None
