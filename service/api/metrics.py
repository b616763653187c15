"""Prometheus metrics of one app instance.

Each app gets its own ``CollectorRegistry`` so that several apps in one process (tests) do not
collide on metric names. Counters count what the service decided since it started; gauges are
refreshed from the engine when ``/metrics`` is scraped.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from service.types import matched_stage

# Request latencies span a cached /healthz (sub-ms) to a 1000-item batch with embeddings (s).
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


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

    def render(self) -> bytes:
        return generate_latest(self.registry)
