"""Per-item cost as the store grows, and what the copy level's approximate search changes (issue 37).

Ingests the benchmark stream (``bench.stream.build_stream``, 40 % copies) into a fresh SQLite
store in calls of ``--window`` items, once per configuration, and reports per window: CPU ms an
item, and the CPU spent in the two searches that grow with the store, the nearest-story search
(``StoryCentroids.nearest``) and the copy level's vector search (``VectorIndex.search``), with the
open stories and indexed copy groups at the window's end. Every configuration's decisions (copy
group, story, status, stage of every item) are compared with the first configuration's.

Configurations (comma-separated): ``base`` (the checkout's defaults) or ``euN`` (the copy
level's ``exact_until`` = ``N``).

``--shadow`` also runs an exact float32 search beside every copy-level vector search past the
flat stage, and reports its recall (the shadow's time counts in the per-window figures: such a
run is not a timing).
``--sample`` adds a sampled profile of each window (inclusive share of samples per function).

Vectors are computed once per text and kept in ``--vectors`` (an ``.npz``), so every
configuration (and every later run) reads the same vectors: the decisions compared differ by
the search only, not by the encoder's arithmetic in other batches. The first run pays the
encoder; the per-window CPU figures of a run that embedded include it.

    python -m bench.story_index --size 48000 --stop 16000 --window 2000 --configs base,eu5000 \\
        --shadow --out var/story_index_16k.json

Run by path with ``PYTHONPATH`` on another checkout, it measures that checkout's engine.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import load_model, rss_bytes
from bench.stream import build_long_stream, build_stream


class CachedEmbedder:
    """The engine's embedder with every vector kept by (kind, text), saved to and read from an
    ``.npz``: runs after the first read the same vectors and skip the encoder."""

    def __init__(self, embedder: Any, path: Path | None) -> None:
        self._embedder = embedder
        self.path = path
        self.table: dict[tuple[str, str], np.ndarray] = {}
        self.computed = 0  # since the last save
        self.embedded = 0  # in all
        if path is not None and path.exists():
            with np.load(path) as saved:
                keys = zip(saved["kinds"].tolist(), saved["texts"].tolist(), strict=True)
                self.table = dict(zip(keys, saved["vectors"], strict=True))

    def encode(self, texts: Sequence[str], *, kind: str = "passage", batch_size: int = 64) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if (kind, t) not in self.table))
        if missing:
            out = self._embedder.encode(missing, kind=kind, batch_size=batch_size)
            self.table.update(((kind, t), v) for t, v in zip(missing, out, strict=True))
            self.computed += len(missing)
            self.embedded += len(missing)
        if not texts:
            return np.zeros((0, self._embedder.dim), dtype=np.float32)
        return np.stack([self.table[(kind, t)] for t in texts])

    def save(self, *, at_least: int = 1) -> None:
        """Write the table when ``at_least`` vectors were computed since the last write (a long
        run's table is large: writing it after every window would cost more than the window)."""
        if self.path is None or self.computed < max(1, at_least):
            return
        self.computed = 0
        keys = list(self.table)
        np.savez(self.path, kinds=np.array([k for k, _ in keys], dtype=str),
                 texts=np.array([t for _, t in keys], dtype=str), vectors=np.stack([self.table[k] for k in keys]))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)


class Sampler:
    """A poor man's py-spy: a thread that looks at the main thread's stack every ``interval``
    seconds and counts, per function, the samples whose stack holds it (inclusive). ``take``
    returns the counts since the last call, so each window gets its own profile; ``stacks``
    (kept when ``keep_stacks``) holds each window's whole stacks, root first, ``;``-joined, with
    their sample counts (``take`` moves them to ``windows``; ``bench.stack_table`` reads them)."""

    def __init__(self, interval: float = 0.005, *, keep_stacks: bool = False) -> None:
        import sys
        import threading

        self.counts: Counter[str] = Counter()
        self.stacks: Counter[str] = Counter()
        self.windows: list[dict[str, int]] = []
        self.keep_stacks = keep_stacks
        self.samples = 0
        self._stop = threading.Event()
        main = threading.main_thread().ident or 0

        def loop() -> None:
            while not self._stop.wait(interval):
                frame = sys._current_frames().get(main)
                names: list[str] = []
                while frame is not None:
                    code = frame.f_code
                    names.append(f"{getattr(code, 'co_qualname', code.co_name)} ({Path(code.co_filename).name})")
                    frame = frame.f_back
                self.counts.update(set(names))
                if self.keep_stacks:
                    self.stacks[";".join(reversed(names))] += 1
                self.samples += 1

        self.thread = threading.Thread(target=loop, daemon=True)
        self.thread.start()

    def take(self, top: int = 25) -> dict[str, float]:
        counts, n = self.counts, self.samples
        self.counts, self.samples = Counter(), 0
        if self.keep_stacks:
            self.windows.append(dict(self.stacks))
            self.stacks = Counter()
        return {name: round(c / n, 4) for name, c in counts.most_common(top)} if n else {}

    def stop(self) -> None:
        self._stop.set()


class Timed:
    """CPU seconds and calls of one method, patched on its class for the run."""

    def __init__(self, cls: type, name: str) -> None:
        self.cls, self.name = cls, name
        # ``original`` is what the wrapper calls (a shadow may wrap it); ``restore`` puts back the
        # class's own method.
        self.saved: Callable[..., Any] = getattr(cls, name)
        self.original: Callable[..., Any] = self.saved
        self.seconds = 0.0
        self.calls = 0
        timed = self

        def wrapper(obj: Any, *args: Any, **kwargs: Any) -> Any:
            c0 = time.process_time()
            try:
                return timed.original(obj, *args, **kwargs)
            finally:
                timed.seconds += time.process_time() - c0
                timed.calls += 1

        setattr(cls, name, wrapper)

    def restore(self) -> None:
        setattr(self.cls, self.name, self.saved)


class VectorShadow:
    """Beside every search of the copy level's vector index past its flat stage (HNSW over SQ8
    codes, or an exact scan of those codes), the exact float32 search over the same live items:
    recall of the top ``k`` and of the exact hits at or above ``floor`` (the pairs that can decide
    a merge). Keeps its own float32 copy of every vector added, mirrors removals and expiry."""

    def __init__(self, search: Timed, floor: float) -> None:
        from index.vectors import VectorIndex, _as_float_matrix

        self.floor = floor
        self.calls = self.wanted = self.hits = self.above = self.above_found = 0
        self.state: dict[int, dict[str, Any]] = {}  # per index object: ids, vectors, times, alive
        shadow = self
        self.patched: list[tuple[str, Callable[..., Any]]] = []

        def mine(index: Any) -> dict[str, Any]:
            return shadow.state.setdefault(id(index), {"ids": [], "vecs": np.zeros((1024, index.dim), np.float32),
                                                       "times": [], "alive": [], "row": {}})

        def add(index: Any, ids: Any, vectors: Any, times: Any) -> Any:
            out = original["add"](index, ids, vectors, times)
            st = mine(index)
            x = _as_float_matrix(vectors, index.dim, "vectors")
            for i, v, t in zip(np.atleast_1d(ids).tolist(), x, np.atleast_1d(times).tolist(), strict=True):
                old = st["row"].get(int(i))
                if old is not None:
                    st["alive"][old] = False
                r = st["row"][int(i)] = len(st["ids"])
                if r >= st["vecs"].shape[0]:
                    st["vecs"] = np.concatenate([st["vecs"], np.zeros_like(st["vecs"])])
                st["vecs"][r] = v
                st["ids"].append(int(i))
                st["times"].append(float(t))
                st["alive"].append(True)
            return out

        def remove(index: Any, ids: Any) -> Any:
            st = mine(index)
            for i in ids:
                r = st["row"].pop(int(i), None)
                if r is not None:
                    st["alive"][r] = False
            return original["remove"](index, ids)

        def expire(index: Any, before: float) -> Any:
            st = mine(index)
            for i, r in list(st["row"].items()):
                if st["times"][r] < before:
                    st["alive"][r] = False
                    del st["row"][i]
            return original["expire"](index, before)

        inner = search.original

        def searched(index: Any, vectors: Any, k: int = 10, *, window: Any = None, exclude: Any = None) -> Any:
            got = inner(index, vectors, k, window=window, exclude=exclude)
            if index.kind == "flat":
                return got
            st = mine(index)
            alive = np.asarray(st["alive"], dtype=bool)
            times = np.asarray(st["times"], dtype=np.float64)
            ids = np.asarray(st["ids"], dtype=np.int64)
            if window is not None:
                alive &= (times >= window[0]) & (times <= window[1])
            if exclude:
                alive &= ~np.isin(ids, list(exclude))
            rows = np.flatnonzero(alive)
            vecs = st["vecs"][rows]
            q = _as_float_matrix(vectors, index.dim, "vectors")
            for qi, hits in zip(q, got, strict=True):
                sims = vecs @ qi
                top = np.argsort(-sims, kind="stable")[:k]
                found = {i for i, _ in hits}
                shadow.calls += 1
                shadow.wanted += top.size
                shadow.hits += sum(int(ids[rows[t]]) in found for t in top)
                strong = [t for t in top if sims[t] >= shadow.floor]
                shadow.above += len(strong)
                shadow.above_found += sum(int(ids[rows[t]]) in found for t in strong)
            return got

        original = {name: getattr(VectorIndex, name) for name in ("add", "remove", "expire")}
        self.original = original
        for name, fn in (("add", add), ("remove", remove), ("expire", expire)):
            setattr(VectorIndex, name, fn)
        search.original = searched
        self.cls = VectorIndex

    def restore(self) -> None:
        for name, fn in self.original.items():
            setattr(self.cls, name, fn)

    def figures(self) -> dict[str, Any]:
        return {"calls": self.calls, "recall_at_k": round(self.hits / self.wanted, 6) if self.wanted else None,
                "missed_at_k": self.wanted - self.hits, "floor": self.floor, "above_floor": self.above,
                "recall_above_floor": round(self.above_found / self.above, 6) if self.above else None}


def settings(config: str) -> dict[str, Any]:
    """``eu5000`` -> {"exact_until": 5000}; ``voff``: the pair verifier off.

    >>> settings("eu5000"), settings("base"), settings("base+voff")
    ({'exact_until': 5000}, {}, {'verifier': False})
    """
    out: dict[str, Any] = {}
    for part in config.split("+"):
        if part == "base":
            continue
        if part.startswith("eu"):
            out["exact_until"] = int(part[2:])
        elif part == "voff":
            out["verifier"] = False
        else:
            raise ValueError(f"unknown setting {part!r} in {config!r}")
    return out


def pair_agreement(a: Sequence[int], b: Sequence[int]) -> float:
    """Share of item pairs the two labelings treat alike (both together or both apart): the Rand
    index, from the contingency table.

    >>> pair_agreement([1, 1, 2], [5, 5, 6]), round(pair_agreement([1, 1, 2, 2], [1, 2, 2, 2]), 4)
    (1.0, 0.5)
    """
    n = len(a)
    if n < 2:
        return 1.0

    def together(counts: Counter[Any]) -> int:
        return sum(c * (c - 1) // 2 for c in counts.values())

    both = together(Counter(zip(a, b, strict=True)))
    only_a, only_b = together(Counter(a)) - both, together(Counter(b)) - both
    return 1.0 - (only_a + only_b) / (n * (n - 1) // 2)


def run(config: str, articles: list[Any], embedder: CachedEmbedder, window: int, shadow: bool,
        sample: bool = False, stacks: bool = False) -> dict[str, Any]:
    from index.vectors import VectorIndex
    from service import stories
    from service.config import EngineConfig
    from service.engine import Deduper, guards_on
    from service.store import open_store

    want = settings(config)
    cfg = EngineConfig.load()
    if "exact_until" in want:
        cfg = dataclasses.replace(cfg, exact_until=want["exact_until"])
    if "verifier" in want:
        cfg = dataclasses.replace(cfg, copy=dataclasses.replace(cfg.copy, verifier=want["verifier"]))
    nearest = Timed(stories.StoryCentroids, "nearest")
    search = Timed(VectorIndex, "search")
    # The lowest cosine the embedding stage keeps a hit at (USE's slot-confirmed band, guards on:
    # service/batch/neighbours.py's floor before its margin).
    vspy = VectorShadow(search, 0.55) if shadow else None
    out: dict[str, Any] = {"config": config, "windows": []}
    sampler = Sampler(keep_stacks=stacks) if sample or stacks else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            engine = Deduper(open_store(f"sqlite:///{Path(tmp) / 'run.db'}"), embedder=embedder, config=cfg,
                             guards=guards_on(True))
            # The open stories are the story level's (a checkout from before issue 37's surface
            # narrowing reads them on the engine itself).
            stories_of: Any = getattr(engine, "story_level", engine)
            decisions: list[tuple[int, int | None, str, str]] = []
            t_start, c_start = time.perf_counter(), time.process_time()
            db = Path(tmp) / "run.db"
            for pos in range(0, len(articles), window):
                chunk = articles[pos:pos + window]
                e0 = embedder.embedded
                n0, s0, v0 = nearest.seconds, search.seconds, search.calls
                k0, w0, c0 = nearest.calls, time.perf_counter(), time.process_time()
                vh0 = (vspy.above_found, vspy.above, vspy.hits, vspy.wanted) if vspy is not None else (0, 0, 0, 0)
                res = engine.ingest_many(chunk)
                cpu, wall = time.process_time() - c0, time.perf_counter() - w0
                decisions.extend((r.copy_group_id, r.story_id, str(r.status), r.decision.stage) for r in res)
                vectors = engine.restart.state.vectors if hasattr(engine, "restart") else None
                out["windows"].append({
                    "stored": pos + len(chunk), "items_per_s": round(len(chunk) / wall, 1),
                    "cpu_ms_per_item": round(1000 * cpu / len(chunk), 3),
                    "story_search_ms_per_item": round(1000 * (nearest.seconds - n0) / len(chunk), 3),
                    "story_search_calls": nearest.calls - k0,
                    "vector_search_ms_per_item": round(1000 * (search.seconds - s0) / len(chunk), 3),
                    "vector_search_calls": search.calls - v0,
                    "stories": len(stories_of.stories),
                    "indexed_groups": len(vectors) if vectors is not None else None,
                    "vector_index": vectors.kind if vectors is not None else None,
                    # what the run holds: the process's resident memory and the store's files
                    "rss_mb": round(rss_bytes() / 2**20, 1),
                    "store_mb": round(sum(f.stat().st_size for f in db.parent.glob(db.name + "*")) / 2**20, 1),
                    "encoded": embedder.embedded - e0})
                w = out["windows"][-1]
                if vspy is not None and vspy.wanted > vh0[3]:
                    w["vector_recall_at_k"] = round((vspy.hits - vh0[2]) / (vspy.wanted - vh0[3]), 6)
                    if vspy.above > vh0[1]:
                        w["vector_recall_above_floor"] = round((vspy.above_found - vh0[0]) / (vspy.above - vh0[1]), 6)
                print(config, json.dumps(w), flush=True)
                if sampler is not None:
                    w["profile"] = sampler.take()
                    print(config, "profile", json.dumps(w["profile"]), flush=True)
                embedder.save(at_least=20_000)  # a long first run keeps what it embedded
            out["wall_s"] = round(time.perf_counter() - t_start, 2)
            out["cpu_s"] = round(time.process_time() - c_start, 2)
            out["items_per_s"] = round(len(articles) / out["wall_s"], 1)
            out["final_story"] = [stories_of.group_story.get(g) for g, _, _, _ in decisions]
            engine.close()
    finally:
        if sampler is not None:
            sampler.stop()
        nearest.restore()
        search.restore()
        if vspy is not None:
            vspy.restore()
    out["decisions"] = decisions
    if sampler is not None and stacks:
        out["stacks"] = sampler.windows
    if vspy is not None:
        out["vector_shadow"] = vspy.figures()
    return out


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """How far ``b``'s decisions are from ``a``'s: items with another (group, story, status,
    stage), and the pair agreement of the copy groups, the stories at decision time and the
    stories at the end."""
    da, db = a["decisions"], b["decisions"]
    return {"items": len(da), "identical": da == db,
            "items_differing": sum(x != y for x, y in zip(da, db, strict=True)),
            "copy_pair_agreement": pair_agreement([x[0] for x in da], [y[0] for y in db]),
            "story_pair_agreement": pair_agreement([x[1] or -i for i, x in enumerate(da)],
                                                   [y[1] or -i for i, y in enumerate(db)]),
            "final_story_pair_agreement": pair_agreement([s or -i for i, s in enumerate(a["final_story"])],
                                                         [s or -i for i, s in enumerate(b["final_story"])])}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--window", type=int, default=1_000)
    ap.add_argument("--stop", type=int, default=None,
                    help="ingest only the stream's first STOP items (the --size stream, so its cached vectors serve)")
    ap.add_argument("--dup-share", type=float, default=0.4)
    ap.add_argument("--per-day", type=float, default=None,
                    help="a long stream (bench.stream.build_long_stream) at this many items a day: texts reused "
                         "past what the sets hold, for throughput at any --size (quality is not scored)")
    ap.add_argument("--configs", default="base")
    ap.add_argument("--shadow", action="store_true", help="measure the vector search's recall against exact search")
    ap.add_argument("--sample", action="store_true", help="a sampled profile of each window (inclusive shares)")
    ap.add_argument("--stacks", type=Path, default=None,
                    help="also write each window's sampled stacks here (JSON, per config; read by bench.stack_table)")
    ap.add_argument("--vectors", type=Path, default=None, help="vector cache (.npz; default var/...)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--against", type=Path, default=None,
                    help="a --decisions file of another run (e.g. another checkout): compare this run's with it")
    ap.add_argument("--decisions", type=Path, default=None, help="write the first run's decisions here (JSON)")
    args = ap.parse_args(argv)
    if args.per_day is not None:
        stream = build_long_stream(args.size, per_day=args.per_day, dup_share=args.dup_share)
        print("stream", json.dumps(stream.stats), flush=True)
        path = args.vectors or Path("var") / f"story_index_vectors_long_{args.dup_share}.npz"
    else:
        stream = build_stream(args.size, dup_share=args.dup_share)
        path = args.vectors or Path("var") / f"story_index_vectors_{args.size}_{args.dup_share}.npz"
    articles = [it.article() for it in stream.items][: args.stop]
    path.parent.mkdir(parents=True, exist_ok=True)
    embedder = CachedEmbedder(load_model("use"), path)
    if args.per_day is not None:  # every headline embedded before the timed run, so no window pays the encoder
        titles = list(dict.fromkeys(a["title"] for a in articles))
        for k in range(0, len(titles), 2_048):
            embedder.encode(titles[k:k + 2_048])  # the cache's own check skips those read from --vectors
            print(f"{min(k + 2_048, len(titles))} of {len(titles)} headlines ({embedder.embedded} embedded)", flush=True)
        embedder.save()
        embedder.embedded = 0
    runs = []
    for config in args.configs.split(","):
        runs.append(run(config, articles, embedder, args.window, args.shadow, args.sample, args.stacks is not None))
        embedder.save()
        print(config, json.dumps({k: v for k, v in runs[-1].items()
                                  if k not in ("decisions", "windows", "final_story", "stacks")}), flush=True)
    report = {"size": args.size, "stop": args.stop, "window": args.window, "dup_share": args.dup_share,
              "per_day": args.per_day, "stream": stream.stats if args.per_day is not None else None,
              "runs": [{k: v for k, v in r.items() if k not in ("decisions", "final_story", "stacks")} for r in runs],
              "against_first": {r["config"]: compare(runs[0], r) for r in runs[1:]}}
    for name, cmp in report["against_first"].items():
        print(name, "vs", runs[0]["config"], json.dumps(cmp), flush=True)
    if args.stacks is not None:
        args.stacks.parent.mkdir(parents=True, exist_ok=True)
        args.stacks.write_text(json.dumps({r["config"]: {"windows": [{"stored": w["stored"], "cpu_ms_per_item":
                                                                      w["cpu_ms_per_item"]} for w in r["windows"]],
                                                          "stacks": r["stacks"]} for r in runs}))
    if args.decisions is not None:
        args.decisions.write_text(json.dumps({k: runs[0][k] for k in ("config", "decisions", "final_story")}))
    if args.against is not None:  # two checkouts' engines, side by side on the same stream
        other = json.loads(args.against.read_text())
        other["decisions"] = [tuple(d) for d in other["decisions"]]
        report["against_file"] = compare(other, {**runs[0], "decisions": [tuple(d) for d in runs[0]["decisions"]]})
        print("vs", args.against, json.dumps(report["against_file"]), flush=True)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
