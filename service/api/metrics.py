"""Prometheus metrics of one app instance.

Each app gets its own ``CollectorRegistry`` so that several apps in one process (tests) do not
collide on metric names. Counters count what the service decided since it started; gauges are
refreshed from the engine when ``/metrics`` is scraped, and so are the counters the engine keeps
itself (``Deduper.stats()["counters"]``: the verifier, settling, deletion), which count what the
engine did since it opened whichever caller (HTTP, a library call) asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric

from service.types import matched_stage

# Request latencies span a cached /healthz (sub-ms) to a 1000-item batch with embeddings (s).
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class EngineCounters:
    """The engine's counters (``EngineContext.counters``) as Prometheus counters, as of the last
    ``Metrics.refresh``: the engine counts with a dict increment where it acts (``Cascade._score``,
    ``Settling.settle``, ``Deduper.delete_document``), and the scrape reads them here."""

    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def describe(self) -> list[Metric]:
        return list(self.collect())

    def collect(self) -> Iterator[Metric]:
        v = self.values.get
        pairs = CounterMetricFamily("samestory_verifier_pairs",
                                    "Pairs the pair verifier read (ingest, settling, compare; not dedupe, which runs "
                                    "its own cascade beside ingestion)")
        pairs.add_metric([], v("verifier_pairs", 0))
        yield pairs
        calls = CounterMetricFamily("samestory_verifier_calls", "Calls of the pair verifier (one call reads "
                                    "one or more pairs: a rescue reads all its hits at once)")
        calls.add_metric([], v("verifier_calls", 0))
        yield calls
        outcomes = CounterMetricFamily(
            "samestory_verifier_outcomes",
            "What the pair verifier's reads decided: confirmed (a merge the guards let through, P at or above "
            "the threshold: it stands), refused (P below it: a veto named verifier), rescued (a Korean-English "
            "hit below the embedding threshold it made a copy); a rescue read that made no copy is none of them",
            labels=["outcome"])
        for outcome in ("confirmed", "refused", "rescued"):
            outcomes.add_metric([outcome], v(f"verifier_{outcome}", 0))
        yield outcomes
        seconds = CounterMetricFamily("samestory_verifier_seconds", "Seconds spent in the pair verifier's calls")
        seconds.add_metric([], v("verifier_ns", 0) / 1e9)
        yield seconds
        runs = CounterMetricFamily("samestory_settle_runs",
                                   "Settling runs (POST /v1/settlements, samestory settle) by outcome: done, failed "
                                   "(raised: another model's vectors, or a store error rolled back)",
                                   labels=["outcome"])
        runs.add_metric(["done"], v("settle_runs", 0))
        runs.add_metric(["failed"], v("settle_failed", 0))
        yield runs
        moves = CounterMetricFamily("samestory_settle_moves",
                                    "What settling runs moved: documents into another copy group (level copy), "
                                    "copy groups into another story (level story)", labels=["level"])
        moves.add_metric(["copy"], v("settle_copy_moves", 0))
        moves.add_metric(["story"], v("settle_story_moves", 0))
        yield moves
        deletions = CounterMetricFamily("samestory_deletions",
                                        "Documents deleted; new_representative true: the deleted document was its "
                                        "copy group's representative and another member took its place",
                                        labels=["new_representative"])
        moved = v("deletion_representative_moves", 0)
        deletions.add_metric(["true"], moved)
        deletions.add_metric(["false"], v("deletions", 0) - moved)
        yield deletions


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.items = Counter("samestory_items",
                             "Ingested items by the stage that matched them to stored items (\"none\" for new items: "
                             "none matched) and the outcome", ["stage", "status"], registry=r)
        self.merges = Counter("samestory_merges", "Items joined to an existing copy group (status duplicate), by stage",
                              ["stage"], registry=r)
        self.vetoes = Counter("samestory_guard_vetoes", "Merges vetoed by a guard", ["guard"], registry=r)
        self.rejected = Counter("samestory_rejected_requests", "Requests refused for bad input, by status code",
                                ["code"], registry=r)
        self.request_seconds = Histogram("samestory_request_seconds", "HTTP request latency",
                                         ["method", "route", "code"], buckets=_LATENCY_BUCKETS, registry=r)
        self.engine_seconds = Histogram("samestory_engine_seconds",
                                        "Time holding the engine, by operation (includes the commit)",
                                        ["operation"], buckets=_LATENCY_BUCKETS, registry=r)
        # How many requests (and items) each engine call of POST /v1/articles carried: above one
        # request per call, concurrent clients are sharing encoder batches (service/api/gather.py).
        self.gathered_requests = Histogram("samestory_ingest_gathered_requests",
                                           "Ingest requests served by one engine call",
                                           buckets=(1, 2, 4, 8, 16, 32, 64), registry=r)
        self.gathered_items = Histogram("samestory_ingest_gathered_items", "Articles in one engine call of ingest",
                                        buckets=(1, 10, 50, 100, 250, 500, 1000, 5000), registry=r)
        self.index_size = Gauge("samestory_index_size",
                                "Entries in the in-memory candidate indices (documents, copy groups, vectors; clusters: old name of copy_groups)",
                                ["index"], registry=r)
        self.store_rows = Gauge("samestory_store_rows", "Rows in the store by table", ["table"], registry=r)
        self.embedding_cache = Gauge("samestory_embedding_cache",
                                     "Embedding cache counts since start: hits (served without the model), "
                                     "model_texts (embedded), shared_hits/misses/errors (the shared cache)",
                                     ["count"], registry=r)
        self.engine_counters = EngineCounters()
        r.register(self.engine_counters)

    def observe_gathered(self, requests: int, items: int) -> None:
        """Record one gathered ingest call: how many requests and articles it carried."""
        self.gathered_requests.observe(requests)
        self.gathered_items.observe(items)

    def observe_results(self, results: list[Any]) -> None:
        """Count a batch of ``IngestResult``."""
        for res in results:
            d = res.decision
            # A new item's decision stage is only the last stage the cascade ran (usually
            # embedding), not one that matched it: counted under "none", as the ingest CLI prints it.
            self.items.labels(matched_stage(res.status, d.stage), res.status).inc()
            if res.status == "duplicate":
                self.merges.labels(d.stage).inc()
            for guard in d.blocked_by:
                self.vetoes.labels(guard).inc()

    def refresh(self, stats: dict[str, Any]) -> None:
        """Set the gauges from ``Deduper.stats()``."""
        self.index_size.labels("documents").set(stats.get("indexed_documents", 0))
        self.index_size.labels("copy_groups").set(stats.get("indexed_copy_groups", 0))
        # Deprecated label (the copy groups' old name), kept one release for existing dashboards.
        self.index_size.labels("clusters").set(stats.get("indexed_copy_groups", 0))
        self.index_size.labels("vectors").set(stats.get("vector_index", 0))
        for table in ("documents", "live_documents", "versions", "observations", "copy_groups", "clusters", "stories"):
            if table in stats:
                self.store_rows.labels(table).set(stats[table])
        for name, value in stats.get("embedding_cache", {}).items():
            self.embedding_cache.labels(name).set(value)
        self.engine_counters.values = dict(stats.get("counters", {}))

    def render(self) -> bytes:
        return generate_latest(self.registry)
