"""One batch run: records in, result rows and a summary out, on the executor asked for.

>>> import tempfile, pathlib
>>> from service.batch.io import read_records
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "feed.jsonl").write_text(
...     '{"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1"}\\n'
...     '{"title": "FED RAISES RATES BY 25 BASIS POINTS", "url": "https://b.example/2"}\\n'
...     '{"title": "Samsung posts record quarterly profit", "url": "https://c.example/3"}\\n')
>>> out = run_batch(read_records([d / "feed.jsonl"]), model=None)
>>> [(r["copy_group_id"], r["duplicate_of"], r["stage"]) for r in out.results]
[(1, None, 'none'), (1, 0, 'exact'), (2, None, 'none')]
>>> out.summary["stages"], out.summary["statuses"]
({'exact': 1}, {'new': 2, 'duplicate': 1})
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from service.batch.candidates import Neighbours
from service.batch.decide import PrecomputedEmbedder, decide
from service.batch.io import Record
from service.batch.neighbours import LIST_SIZE, NPROBE, SearchPlan
from service.batch.plan import Batch
from service.config import EngineConfig
from service.types import matched_stage

ENGINES = ("local", "ray")
LEVELS = ("copy", "story")


@dataclass
class BatchOutput:
    results: list[dict[str, Any]]
    summary: dict[str, Any]


def _peak_rss_mib() -> float:
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB on Linux


def check_level(level: str) -> None:
    """``copy`` or ``story``: which grouping the summary counts as the result's groups (every row
    carries both ids, as the engine decides both levels)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")


def columns_of(records: Sequence[Record], now: float) -> Batch:
    """The plan's input columns; an item without ``published_at`` is timed ``now``, as ingest does."""
    def col(values: list[Any]) -> np.ndarray:
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out

    arts = [r.article for r in records]
    return {"row": np.arange(len(arts), dtype=np.int64), "title": col([a.title for a in arts]),
            "body": col([a.body for a in arts]), "lang": col([a.lang or "und" for a in arts]),
            "time": np.array([a.published_at.timestamp() if a.published_at else now for a in arts], np.float64)}


def _check_urls(records: Sequence[Record], config: EngineConfig) -> None:
    """Invalid URLs fail up front, with the record's place, before anything is computed."""
    from index.urls import InvalidUrlError
    from service.context import load_url_rules

    rules = load_url_rules(config)
    for r in records:
        if r.article.url:
            try:
                rules.canonicalize(r.article.url)
            except InvalidUrlError as exc:
                raise ValueError(f"{r.where}: invalid url: {exc}") from exc


def run_batch(records: Sequence[Record], *, engine: str = "local", model: str | None = "use",
              device: str = "cpu", config: EngineConfig | None = None, guards: bool = True,
              into: str = ":memory:", level: str = "copy", batch_size: int = 1024, progress: bool = False,
              ray_address: str | None = None, workers: int | None = None, num_gpus: float = 0.0,
              search: bool = True, nprobe: int = NPROBE, list_size: int = LIST_SIZE,
              exact_scores: bool = False, make_embedder: Callable[[], Any] | None = None,
              settle: bool = False, quiet: bool = False) -> BatchOutput:
    """Deduplicate ``records``: the plan's parallel stages on ``engine``, then the decide step.

    ``into``: the store the decide step writes (``:memory:`` keeps only the result; a SQLite or
    PostgreSQL URL seeds a live store). ``search``: run the sharded vector search stage
    (``nprobe`` of ``embedded / list_size`` IVF lists per vector) and answer the decide step's
    vector searches from its pairs; False leaves every search to the decide step's own index.
    ``exact_scores``: an item the pairs give no hit is searched again by the engine's own index,
    so that its ``score`` (the nearest group's cosine) is streaming's too (docs/scale.md).
    ``settle``: once every record is decided, settle both levels (``Deduper.settle``: the copy
    groups and the stories re-decided in publication order, so they do not depend on the input's
    order); the rows' ``copy_group_id`` and ``story_id`` are then the settled ones, and the
    summary's ``settled`` is its report without the lists of moves.
    ``make_embedder``: builds the embedder in each process that embeds (the driver, every Ray
    embedding actor: picklable for Ray) instead of ``model``'s; the equivalence tests pass one
    that serves the vectors an earlier run computed (``bench.batch_scale.SavedVectors``).
    ``quiet``: on Ray, nothing from Ray on stderr (``ray_engine.connect``); the local engine
    prints nothing but its progress bars anyway.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    check_level(level)  # refuse a bad level before any work
    config = (config or EngineConfig.load())
    started = time.perf_counter()
    _check_urls(records, config)
    if make_embedder is None and model is not None:
        from models.registry import load_embedder

        make_embedder = functools.partial(load_embedder, model, device=device, shared_cache=config.operations.embedding_cache)
    columns = columns_of(records, time.time())
    embedder = PrecomputedEmbedder({}, make_embedder) if make_embedder is not None else None
    plan = None
    if search and embedder is not None:
        # the engine's threshold for this model, as Deduper resolves it
        plan = SearchPlan.for_engine(config.for_model(embedder.name), nprobe=nprobe, list_size=list_size)
    if engine == "local":
        from service.batch import local

        prepared = local.execute(columns, config=config, make_embedder=make_embedder, batch_size=batch_size,
                                 progress=progress, search=plan)
    else:
        from service.batch import ray_engine

        prepared = ray_engine.execute(columns, config=config, make_embedder=make_embedder, batch_size=batch_size,
                                      progress=progress, address=ray_address, workers=workers, num_gpus=num_gpus,
                                      search=plan, quiet=quiet)
    neighbours = None
    if embedder is not None:
        # the story texts too (the story level asks for them), where no copy-level text is the same
        embedder.vectors = {**prepared.story_vectors, **prepared.vectors}
        if plan is not None and prepared.pairs is not None and prepared.search_texts is not None:
            neighbours = Neighbours.build(np.stack([prepared.vectors[t] for t in prepared.search_texts]),
                                          prepared.pairs, dim=embedder.dim, headlines=prepared.headlines,
                                          bare=prepared.bare)
    t0, c0 = time.perf_counter(), time.process_time()
    decided = decide(records, store=into, config=config, embedder=embedder, guards=guards, progress=progress,
                     neighbours=neighbours, floor=plan.floor if plan is not None else -1.0,
                     band_floor=plan.same_language_floor if plan is not None else None,
                     exact_scores=exact_scores, settle=settle)
    timings = {k: round(v, 3) for k, v in prepared.timings.items()}
    timings["decide_s"] = round(time.perf_counter() - t0, 3)
    timings["decide_cpu_s"] = round(time.process_time() - c0, 3)
    timings["total_s"] = round(time.perf_counter() - started, 3)
    results = decided.results
    vetoes = Counter(g for r in results for g in r["blocked_by"])
    summary = {
        "engine": engine, "items": len(results), "model": model,
        "level": level,
        "copy_groups": len({r["copy_group_id"] for r in results}),
        "stories": len({r["story_id"] for r in results if r["story_id"] is not None}),
        "groups": len({r["copy_group_id" if level == "copy" else "story_id"] for r in results}),
        # the stage that joined each item to a copy group; new items (statuses' "new") matched none
        "stages": dict(Counter(s for r in results if (s := matched_stage(r["status"], r["stage"])) != "none")),
        "statuses": dict(Counter(r["status"] for r in results)),
        "guard_vetoes": dict(vetoes),
        "settled_by_cheap_passes_in_plan": prepared.settled,
        "shuffle_rows": prepared.shuffle_rows,
        "embedded_in_plan": prepared.embedded,
        "story_texts_embedded_in_plan": len(prepared.story_vectors),
        "embedded_late_in_decide": decided.late_embedded,
        # the sharded vector search: its lists and pairs, and how the decide step's searches were answered
        "vector_search": {**prepared.search, **({"floor": plan.floor, "same_language_floor": plan.same_language_floor} if plan is not None else {}),
                          **decided.searches},
        "settled": None if decided.settled is None else _without_moves(decided.settled),
        "timings": timings,
        "items_per_s": round(len(results) / max(timings["total_s"], 1e-9), 1),
        # peak resident memory of this (the driver) process, in MiB: the decide step's state lives here
        "driver_peak_rss_mib": round(_peak_rss_mib(), 1),
    }
    return BatchOutput(results, summary)


def _without_moves(report: dict[str, Any]) -> dict[str, Any]:
    """A settling's report for the summary: its counts, without the lists of moves (the rows say
    where every item ended)."""
    out = {k: v for k, v in report.items() if k != "moves"}
    if isinstance(out.get("copies"), dict):
        out["copies"] = {k: v for k, v in out["copies"].items() if k != "moves"}
    return out
