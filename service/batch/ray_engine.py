"""The plan on Ray Data: the same stage functions as ``service.batch.local``, run as
``map_batches`` (features, embedding actors) and ``groupby(...).map_groups`` (the shuffles).

Needs the ``ray`` extra (``pip install 'samestory[ray]'``) on the driver and, for an existing
cluster, samestory installed on every node. ``address=None`` starts a local
cluster with ``workers`` CPUs (what the tests and the scaling figures use); ``address="auto"`` or
the head's ``"HOST:PORT"`` joins an existing one from a node of it. A ``"ray://"`` address (Ray
Client) is refused: Ray Data does not run over Ray Client (its driver fails in ``materialize``
with "'Worker' object has no attribute 'core_worker'", ray-project/ray#48682); run the command on
a node, or submit it with ``ray job submit``. ``num_gpus`` > 0 puts each embedding actor on
a GPU (the embedder must then be built with ``device="cuda"``).

``quiet`` (``samestory batch --quiet``) turns Ray's own console output down to nothing: the
driver's ``ray`` logger and Ray Data's console handler at ERROR (Ray Data's log files under the
session's ``logs`` keep everything), and the driver's stderr sent to ``logs/samestory-driver.err``
while the stages run (Ray's C++ ERROR lines, also in the session's driver log). Without it, Ray
Data says what it executes, and shows progress bars where asked.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from service.batch.neighbours import (
    SearchPlan,
    assign_lists,
    headline_links,
    lists_for,
    node_languages,
    search_list,
    train_centroids,
    unique_pairs,
)
from service.batch.plan import Batch, Embed, explode_keys, featurize, settle_group, to_embed
from service.batch.prepared import Prepared
from service.config import EngineConfig

REPO_ROOT = Path(__file__).resolve().parents[2]
# Where a --quiet run's driver stderr goes while the Ray stages run, in the session's logs folder.
DRIVER_STDERR = "samestory-driver.err"


def _as_nodes(batch: Batch, *, node_of_text: dict[str, int] | None = None, langs: np.ndarray | None = None
              ) -> Batch:
    """The search stage's input from the embedding stage's output: an item's ``row`` is its node;
    with ``langs`` (per text node, ``node_languages``) its text's beside it. Story texts
    (``plan.to_embed``) are no nodes: left out."""
    copy = ~np.asarray(batch["story"], bool)
    out = {"node": np.asarray(batch["row"], np.int64)[copy], "vector": np.asarray(batch["vector"])[copy]}
    if node_of_text is not None and langs is not None:
        at = np.asarray([node_of_text[str(t)] for t in np.asarray(batch["embed_text"])[copy]], np.int64)
        out.update(langs=langs[at])
    return out


# Ray Data's warning that no CPU is free; it fires when the embedding stage's result is
# materialized, while that stage's actors still hold every CPU, though reading that result needs none.
CPU_WARNING = "does not have any available CPUs"


class _DropCpuWarning(logging.Filter):
    """Drops Ray Data's no-free-CPU warning (``CPU_WARNING``) where it is known to be spurious."""

    def filter(self, record: logging.LogRecord) -> bool:
        return CPU_WARNING not in record.getMessage()


@contextmanager
def _without_cpu_warning() -> Iterator[None]:
    """Ray Data's no-free-CPU warning left out while an actor stage is materialized: the actors
    hold the CPUs until they are torn down, just after, and nothing waits for a CPU meanwhile
    (it told users "The Dataset job will hang" on runs that did not hang)."""
    logger = logging.getLogger("ray.data.dataset")
    drop = _DropCpuWarning()
    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)


# The console handlers' levels Ray Data configured, before quiet mode raised them.
_CONSOLE_LEVELS: dict[logging.Handler, int] = {}


def _ray_data_console(quiet: bool) -> None:
    """Ray Data's console handler at ERROR while ``quiet`` (it logs every execution's plan and a
    warning that progress bars are off); its file handler, under the session's logs, keeps all.
    Restored when not ``quiet``, since a process may run both ways (the tests)."""
    from ray.data._internal.logging import SessionFileHandler

    for handler in logging.getLogger("ray.data").handlers:
        if isinstance(handler, SessionFileHandler):
            continue
        if quiet:
            _CONSOLE_LEVELS.setdefault(handler, handler.level)
            handler.setLevel(logging.ERROR)
        elif handler in _CONSOLE_LEVELS:
            handler.setLevel(_CONSOLE_LEVELS.pop(handler))


def shutdown() -> None:
    """Leave the cluster (stops a local one this process started)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()


# How long a head's HOST:PORT is given to accept a TCP connection before joining it. Ray's driver
# retries an address that answers nothing for minutes, a warning every few seconds; a head that is
# up accepts at once. It decides nothing but how soon a wrong address is said in one line.
GCS_PROBE_TIMEOUT_S = 10.0


def _probe(address: str) -> None:
    """A ``HOST:PORT`` address (a head's GCS port) that refuses a TCP connection, or does not take
    one within ``GCS_PROBE_TIMEOUT_S``, is a one-line error before Ray is asked to join it.
    ``auto`` is Ray's to resolve."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return  # not HOST:PORT: Ray says what it makes of it
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=GCS_PROBE_TIMEOUT_S).close()
    except OSError as exc:
        raise RuntimeError(f"--ray-address {address}: no Ray cluster answers there ({exc})") from None


def connect(address: str | None, workers: int | None, *, quiet: bool = False) -> Any:
    """Start (``address=None``) or join a Ray cluster; idempotent within one process.

    ``quiet``: the driver's ``ray`` logger at ERROR (no "Started a local Ray instance", no token
    notice) and Ray Data's console handler too (``_ray_data_console``).
    """
    # Ray reads RAY_ADDRESS where no address (or "auto") is given, a ray:// one included
    given = address if address and address != "auto" else os.environ.get("RAY_ADDRESS", "")
    if given.startswith("ray://"):
        named = f"--ray-address {given}" if given == address else f"RAY_ADDRESS={given}"
        raise RuntimeError(f"{named}: Ray Data does not run over Ray Client (ray://); run samestory "
                           "batch on a node of the cluster with --ray-address auto, or submit it there with "
                           "`ray job submit -- samestory batch ...`")
    try:
        import ray
    except ModuleNotFoundError as exc:
        raise RuntimeError("--engine ray needs the ray extra: pip install 'samestory[ray]'") from exc
    if not ray.is_initialized():
        level = logging.ERROR if quiet else logging.INFO
        if address:
            # A real cluster: every node has samestory installed (the same version as the driver).
            _probe(address)
            try:
                ray.init(address=address, log_to_driver=False, logging_level=level)
            except ConnectionError as exc:  # was a traceback; Ray's words for 'auto' name its own flags
                why = ("no running Ray cluster found on this machine; start one with `ray start --head`, name "
                       "its head's HOST:PORT, or leave --ray-address out to run a local one for this run"
                       if "Could not find any running Ray instance" in str(exc) else str(exc))
                raise RuntimeError(f"--ray-address {address}: {why}") from None
        else:
            # A local cluster's workers import this package from the checkout the driver runs from.
            path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=level,
                     runtime_env={"env_vars": {"PYTHONPATH": path}})
    _ray_data_console(quiet)
    return ray


@contextmanager
def _stderr_to_session_logs(ray: Any) -> Iterator[None]:
    """The driver's file descriptor 2 sent to ``DRIVER_STDERR`` in the Ray session's logs folder
    while the stages run, then restored.

    Ray's core worker (C++) writes its ERROR lines on the driver's stderr as well as in the
    session's driver log, whatever the Python loggers say: Ray 2.60 writes one for every Ray Data
    actor pool ("constructor arguments in the object store and max_restarts > 0"), which the
    embedding stage is. ``RAY_BACKEND_LOG_LEVEL`` would hide it only by printing a line of its
    own. An exception still reaches the caller (it is printed after the descriptor is restored).
    """
    node = getattr(ray._private.worker, "_global_node", None)
    target = Path(node.get_logs_dir_path()) / DRIVER_STDERR if node is not None else Path(os.devnull)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with target.open("ab") as sink:
            os.dup2(sink.fileno(), 2)
            try:
                yield
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def execute(columns: Batch, *, config: EngineConfig, make_embedder: Callable[[], Any] | None,
            batch_size: int = 1024, progress: bool = False, address: str | None = None,
            workers: int | None = None, num_gpus: float = 0.0, search: SearchPlan | None = None,
            quiet: bool = False) -> Prepared:
    """The plan's stages on Ray (see the module docstring); ``quiet``: nothing from Ray on stderr."""
    ray = connect(address, workers, quiet=quiet)
    with _stderr_to_session_logs(ray) if quiet else nullcontext():
        return _stages(ray, columns, config=config, make_embedder=make_embedder, batch_size=batch_size,
                       progress=progress, num_gpus=num_gpus, search=search)


def _stages(ray: Any, columns: Batch, *, config: EngineConfig, make_embedder: Callable[[], Any] | None,
            batch_size: int, progress: bool, num_gpus: float, search: SearchPlan | None) -> Prepared:
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
    # with the verifier on only exact keys settle (settle_group): band and lead rows would settle nothing
    keys = feats.map_batches(explode_keys, fn_kwargs={"exact_only": config.copy.verifier}, batch_format="numpy",
                             batch_size=batch_size)
    # Few shuffle partitions: each one is a task with a fixed cost (Ray's default is 200).
    by_key = keys.groupby("key", num_partitions=2 * n_workers).map_groups(
        settle_group, fn_kwargs={"config": config}, batch_format="numpy")
    settled = [np.asarray(b["row"], np.int64) for b in by_key.iter_batches(batch_format="numpy", batch_size=None)]
    timings["shuffle_s"] = time.perf_counter() - t0
    settled_rows = np.unique(np.concatenate(settled)) if settled else np.zeros(0, np.int64)

    vectors: dict[str, np.ndarray] = {}
    story_vectors: dict[str, np.ndarray] = {}
    embedded = 0
    text_of_row: dict[int, str] = {}
    out = None
    if make_embedder is not None:
        t0 = time.perf_counter()
        # the survivors, bodied ones' headlines and the story texts (no search nodes): to_embed
        todo = feats.map_batches(to_embed, fn_kwargs={"settled": settled_rows}, batch_format="numpy",
                                 batch_size=batch_size)
        with _without_cpu_warning():
            out = todo.map_batches(Embed, fn_constructor_kwargs={"make_embedder": make_embedder},
                                   batch_format="numpy", batch_size=batch_size, compute=ray.data.ActorPoolStrategy(
                                       size=n_workers if not num_gpus else max(1, int(ray.cluster_resources().get("GPU", 1)))),
                                   num_gpus=num_gpus or None).materialize()
        for b in out.iter_batches(batch_format="numpy", batch_size=None):
            for row, text, vec, story in zip(b["row"], b["embed_text"], b["vector"], b["story"], strict=True):
                if story:
                    story_vectors[str(text)] = np.frombuffer(vec, dtype=np.float32)
                else:
                    vectors[str(text)] = np.frombuffer(vec, dtype=np.float32)
                    text_of_row[int(row)] = str(text)
                embedded += 1
        # to_embed dedupes within a block: a story text another block embeds as an item's is that item's
        story_vectors = {t: v for t, v in story_vectors.items() if t not in vectors}
        timings["embed_s"] = time.perf_counter() - t0
    prepared = Prepared(vectors=vectors, settled=len(settled_rows), embedded=embedded, timings=timings,
                        story_vectors=story_vectors)
    if search is not None and out is not None and vectors:
        t0 = time.perf_counter()
        texts = list(vectors)
        node_of_text = {t: i for i, t in enumerate(texts)}
        nlist = lists_for(len(texts), search.list_size)
        # trained once, on the driver, from a sample (train_centroids takes an even sample)
        centroids = train_centroids(np.stack([vectors[t] for t in texts]), nlist)
        by_node: dict[str, Any] = {}
        # every item's language counts for its text's node, not only the embedded ones' (node_languages)
        cols = ["embed_text", "primary_lang", "bodied", "headline"]
        parts = list(feats.select_columns(cols).iter_batches(batch_format="numpy", batch_size=None))
        by_item = {c: np.concatenate([p[c] for p in parts]) for c in cols}
        langs, prepared.bare = node_languages(by_item, texts)
        prepared.headlines = headline_links(by_item, texts)
        if search.same_language_floor is not None:
            by_node = {"node_of_text": node_of_text, "langs": langs}
        found = (out.map_batches(_as_nodes, fn_kwargs=by_node, batch_format="numpy", batch_size=batch_size)
                 .map_batches(assign_lists, fn_kwargs={"centroids": centroids, "nprobe": search.nprobe},
                              batch_format="numpy", batch_size=batch_size)
                 .groupby("list", num_partitions=2 * n_workers)
                 .map_groups(search_list, fn_kwargs={"floor": search.floor,
                                                     "same_language_floor": search.same_language_floor},
                             batch_format="numpy"))
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
