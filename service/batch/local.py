"""The plan in one process: the stages of ``service.batch.plan`` called in a loop, group-bys by sort.

No Ray needed; the default executor (``--engine local``). ``service.batch.ray_engine`` runs the
same functions on a cluster.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from tqdm import tqdm

from service.batch.neighbours import SearchPlan, headline_links, lists_for, node_languages, search_all
from service.batch.plan import Batch, Embed, explode_keys, featurize, settle_group, to_embed
from service.batch.prepared import Prepared
from service.config import EngineConfig


def _slices(batch: Batch, size: int) -> Iterator[Batch]:
    n = len(next(iter(batch.values())))
    for start in range(0, n, size):
        yield {c: v[start : start + size] for c, v in batch.items()}


def _concat(parts: list[Batch]) -> Batch:
    return {c: np.concatenate([p[c] for p in parts]) for c in parts[0]} if parts else {}


def groups(batch: Batch, column: str) -> Iterator[Batch]:
    """The rows of ``batch`` grouped by ``column`` (a stable sort, then runs of equal values);
    single-row groups are skipped: nothing in them can settle anything."""
    keys = batch[column]
    if not len(keys):
        return
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    bounds = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
    for idx in np.split(order, bounds):
        if len(idx) > 1:
            yield {c: v[idx] for c, v in batch.items()}


def execute(columns: Batch, *, config: EngineConfig, make_embedder: Callable[[], Any] | None,
            batch_size: int = 1024, progress: bool = False, search: SearchPlan | None = None) -> Prepared:
    # Wall and CPU seconds per stage: on a shared machine the CPU seconds are the cost per item.
    timings: dict[str, float] = {}
    n = len(columns["row"])
    t0, c0 = time.perf_counter(), time.process_time()
    parts = []
    with tqdm(total=n, disable=not progress, unit="item", desc="features") as bar:
        for part in _slices(columns, batch_size):
            parts.append(featurize(part, config=config))
            bar.update(len(part["row"]))
    feats = _concat(parts)
    timings["features_s"], timings["features_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    # with the verifier on only exact keys settle (settle_group): band and lead rows would settle nothing
    keys = explode_keys(feats, exact_only=config.copy.verifier)
    settled = [settle_group(g, config=config)["row"] for g in groups(keys, "key")]
    timings["shuffle_s"], timings["shuffle_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    settled_rows = np.unique(np.concatenate(settled)) if settled else np.zeros(0, np.int64)

    vectors: dict[str, np.ndarray] = {}
    story_vectors: dict[str, np.ndarray] = {}
    survivors = 0
    if make_embedder is not None:
        t0, c0 = time.perf_counter(), time.process_time()
        # the survivors, a bodied survivor's headline (the embedding stage embeds and searches it)
        # and the story texts (the story level's, kept out of the search): to_embed
        todo = to_embed(feats, settled=settled_rows)
        # one text embedded once, however many items carry it (a copy-level row first: to_embed's order)
        _, first = np.unique(todo["embed_text"].astype(str), return_index=True)
        todo = {c: v[np.sort(first)] for c, v in todo.items()}
        survivors = len(todo["row"])
        embed = Embed(make_embedder)
        with tqdm(total=survivors, disable=not progress, unit="item", desc="embed") as bar:
            for part in _slices(todo, batch_size):
                out = embed(part)
                for text, vec, story in zip(out["embed_text"], out["vector"], out["story"], strict=True):
                    (story_vectors if story else vectors)[str(text)] = np.frombuffer(vec, dtype=np.float32)
                bar.update(len(part["row"]))
        timings["embed_s"], timings["embed_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    prepared = Prepared(vectors=vectors, settled=len(settled_rows), embedded=survivors, timings=timings,
                        shuffle_rows=len(keys["key"]), story_vectors=story_vectors)
    if search is not None and vectors:
        t0, c0 = time.perf_counter(), time.process_time()
        texts = list(vectors)
        nlist = lists_for(len(texts), search.list_size)
        langs, bare = node_languages(feats, texts)
        prepared.pairs = search_all(np.arange(len(texts)), np.stack([vectors[t] for t in texts]),
                                    floor=search.floor, nlist=nlist, nprobe=search.nprobe,
                                    same_language_floor=search.same_language_floor,
                                    langs=langs if search.same_language_floor is not None else None)
        prepared.search_texts, prepared.bare = texts, bare
        prepared.headlines = headline_links(feats, texts)
        prepared.search = {"lists": nlist, "nprobe": min(search.nprobe, nlist), "pairs": len(prepared.pairs["a"])}
        timings["search_s"], timings["search_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    return prepared
