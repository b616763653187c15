"""The plan on Ray Data: the same stage functions as ``service.batch.local``, run as
``map_batches`` (features, embedding actors) and ``groupby(...).map_groups`` (the shuffles).

Needs the ``ray`` extra (``pip install 'samestory[ray]'``) on the driver and, for an existing
cluster, samestory installed on every node. ``address=None`` starts a local
cluster with ``workers`` CPUs (what the tests and the scaling figures use); ``address="auto"``
or ``"ray://HOST:10001"`` joins an existing one. ``num_gpus`` > 0 puts each embedding actor on
a GPU (the embedder must then be built with ``device="cuda"``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from service.batch.neighbours import (
    SearchPlan,
    assign_lists,
    lists_for,
    search_list,
    train_centroids,
    unique_pairs,
)
from service.batch.plan import Batch, Embed, explode_keys, featurize, settle_group
from service.batch.prepared import Prepared
from service.config import EngineConfig

REPO_ROOT = Path(__file__).resolve().parents[2]


def _drop_settled(batch: Batch, *, settled: np.ndarray) -> Batch:
    keep = ~batch["empty"] & ~np.isin(batch["row"], settled)
    return {c: v[keep] for c, v in batch.items()}


def _as_nodes(batch: Batch) -> Batch:
    """The search stage's input from the embedding stage's output: an item's ``row`` is its node."""
    return {"node": np.asarray(batch["row"], np.int64), "vector": batch["vector"]}


def shutdown() -> None:
    """Leave the cluster (stops a local one this process started)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()


def connect(address: str | None, workers: int | None) -> Any:
    """Start (``address=None``) or join a Ray cluster; idempotent within one process."""
    try:
        import ray
    except ModuleNotFoundError as exc:
        raise RuntimeError("--engine ray needs the ray extra: pip install 'samestory[ray]'") from exc
    if not ray.is_initialized():
        if address:
            # A real cluster: every node has samestory installed (the same version as the driver).
            ray.init(address=address, log_to_driver=False)
        else:
            # A local cluster's workers import this package from the checkout the driver runs from.
            path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": path}})
    return ray


def execute(columns: Batch, *, config: EngineConfig, make_embedder: Callable[[], Any] | None,
            batch_size: int = 1024, progress: bool = False, address: str | None = None,
            workers: int | None = None, num_gpus: float = 0.0, search: SearchPlan | None = None) -> Prepared:
    ray = connect(address, workers)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = progress
    n_workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    timings: dict[str, float] = {}

    t0 = time.perf_counter()
    n = len(columns["row"])
    # At least two blocks per worker, so that every worker has work in every stage.
    blocks = 2 * n_workers
    batch_size = max(1, min(batch_size, -(-n // blocks)))
    items = [{c: columns[c][i] for c in columns} for i in range(n)]
    ds = ray.data.from_items(items, override_num_blocks=blocks)
    feats = ds.map_batches(featurize, fn_kwargs={"config": config}, batch_format="numpy",
                           batch_size=batch_size).materialize()
    timings["features_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    keys = feats.map_batches(explode_keys, batch_format="numpy", batch_size=batch_size)
    # Few shuffle partitions: each one is a task with a fixed cost (Ray's default is 200).
    by_key = keys.groupby("key", num_partitions=2 * n_workers).map_groups(
        settle_group, fn_kwargs={"config": config}, batch_format="numpy")
    settled = [np.asarray(b["row"], np.int64) for b in by_key.iter_batches(batch_format="numpy", batch_size=None)]
    timings["shuffle_s"] = time.perf_counter() - t0
    settled_rows = np.unique(np.concatenate(settled)) if settled else np.zeros(0, np.int64)

    vectors: dict[str, np.ndarray] = {}
    embedded = 0
    text_of_row: dict[int, str] = {}
    out = None
    if make_embedder is not None:
        t0 = time.perf_counter()
        todo = feats.map_batches(_drop_settled, fn_kwargs={"settled": settled_rows}, batch_format="numpy",
                                 batch_size=batch_size)
        out = todo.map_batches(Embed, fn_constructor_kwargs={"make_embedder": make_embedder},
                               batch_format="numpy", batch_size=batch_size, compute=ray.data.ActorPoolStrategy(
                                   size=n_workers if not num_gpus else max(1, int(ray.cluster_resources().get("GPU", 1)))),
                               num_gpus=num_gpus or None).materialize()
        for b in out.iter_batches(batch_format="numpy", batch_size=None):
            for row, text, vec in zip(b["row"], b["embed_text"], b["vector"], strict=True):
                vectors[str(text)] = np.frombuffer(vec, dtype=np.float32)
                text_of_row[int(row)] = str(text)
                embedded += 1
        timings["embed_s"] = time.perf_counter() - t0
    prepared = Prepared(vectors=vectors, settled=len(settled_rows), embedded=embedded, timings=timings)
    if search is not None and out is not None and vectors:
        t0 = time.perf_counter()
        texts = list(vectors)
        node_of_text = {t: i for i, t in enumerate(texts)}
        nlist = lists_for(len(texts), search.list_size)
        # trained once, on the driver, from a sample (train_centroids takes an even sample)
        centroids = train_centroids(np.stack([vectors[t] for t in texts]), nlist)
        found = (out.map_batches(_as_nodes, batch_format="numpy", batch_size=batch_size)
                 .map_batches(assign_lists, fn_kwargs={"centroids": centroids, "nprobe": search.nprobe},
                              batch_format="numpy", batch_size=batch_size)
                 .groupby("list", num_partitions=2 * n_workers)
                 .map_groups(search_list, fn_kwargs={"floor": search.floor}, batch_format="numpy"))
        a_parts, b_parts = [], []
        for b in found.iter_batches(batch_format="numpy", batch_size=None):
            a_parts.append(np.asarray(b["a"], np.int64))
            b_parts.append(np.asarray(b["b"], np.int64))
        rows_a = np.concatenate(a_parts) if a_parts else np.zeros(0, np.int64)
        rows_b = np.concatenate(b_parts) if b_parts else np.zeros(0, np.int64)
        # an item's row -> its text's node (two items with one text share a node)
        a = np.asarray([node_of_text[text_of_row[int(r)]] for r in rows_a], np.int64)
        b = np.asarray([node_of_text[text_of_row[int(r)]] for r in rows_b], np.int64)
        keep = a != b
        a, b = a[keep], b[keep]
        prepared.pairs = unique_pairs({"a": np.minimum(a, b), "b": np.maximum(a, b)})
        prepared.search_texts = texts
        prepared.search = {"lists": nlist, "nprobe": min(search.nprobe, nlist), "pairs": len(prepared.pairs["a"])}
        timings["search_s"] = time.perf_counter() - t0
    return prepared
