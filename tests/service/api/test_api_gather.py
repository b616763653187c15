"""Concurrent ingest requests are gathered into one engine call (service/api/gather.py, issue 20)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from service.api.gather import IngestGatherer


class _SlowEngine:
    """``ingest_many`` that records each call and blocks the first one until released."""

    def __init__(self, fail_on: object = None) -> None:
        self.calls: list[list[Any]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.fail_on = fail_on

    def ingest_many(self, items: list[Any], chunk_size: int) -> list[Any]:
        assert chunk_size >= len(items)  # one transaction per gathered call
        self.calls.append(list(items))
        if len(self.calls) == 1:
            self.entered.set()
            assert self.release.wait(10)
        if self.fail_on is not None and self.fail_on in items:
            raise RuntimeError(f"bad item {self.fail_on}")
        return [("result", item) for item in items]


def _submit_while_busy(gatherer: IngestGatherer[Any, Any], engine: _SlowEngine,
                       requests: list[list[Any]]) -> dict[int, Any]:
    """Submit ``requests[0]``, then the others while the engine is busy with it; each thread's outcome."""
    outcomes: dict[int, Any] = {}

    def run(i: int) -> None:
        try:
            outcomes[i] = gatherer.submit(requests[i], engine.ingest_many)
        except RuntimeError as exc:
            outcomes[i] = exc

    first = threading.Thread(target=run, args=(0,))
    first.start()
    assert engine.entered.wait(10)
    others = []
    for i in range(1, len(requests)):
        thread = threading.Thread(target=run, args=(i,))
        thread.start()
        others.append(thread)
        # Wait until this request is queued, so the queue order (= arrival order) is known.
        while len(gatherer._queue) < i:
            threading.Event().wait(0.001)
    engine.release.set()
    for thread in [first, *others]:
        thread.join(10)
    return outcomes


def test_requests_arriving_while_busy_share_one_call_in_arrival_order() -> None:
    lock = threading.Lock()
    engine = _SlowEngine()
    batches: list[tuple[int, int]] = []
    gatherer: IngestGatherer[Any, Any] = IngestGatherer(lock, max_items=100,
                                                        on_batch=lambda r, n: batches.append((r, n)))
    requests = [[f"r{i}a", f"r{i}b"] for i in range(6)]
    outcomes = _submit_while_busy(gatherer, engine, requests)
    # The first request ran alone; the five that arrived meanwhile went in one call, in order.
    assert [len(c) for c in engine.calls] == [2, 10]
    assert engine.calls[1] == [item for r in requests[1:] for item in r]
    assert batches == [(1, 2), (5, 10)]
    for i, request in enumerate(requests):
        assert outcomes[i] == [("result", item) for item in request]


def test_a_gathered_call_is_capped_at_max_items() -> None:
    engine = _SlowEngine()
    gatherer: IngestGatherer[Any, Any] = IngestGatherer(threading.Lock(), max_items=4)
    requests = [[f"r{i}a", f"r{i}b"] for i in range(6)]
    outcomes = _submit_while_busy(gatherer, engine, requests)
    assert [len(c) for c in engine.calls] == [2, 4, 4, 2]
    assert [item for c in engine.calls for item in c] == [item for r in requests for item in r]
    assert all(outcomes[i] == [("result", item) for item in r] for i, r in enumerate(requests))


def test_one_failing_request_does_not_fail_the_others_gathered_with_it() -> None:
    engine = _SlowEngine(fail_on="r3a")
    gatherer: IngestGatherer[Any, Any] = IngestGatherer(threading.Lock(), max_items=100)
    requests = [[f"r{i}a"] for i in range(5)]
    outcomes = _submit_while_busy(gatherer, engine, requests)
    assert isinstance(outcomes[3], RuntimeError)
    for i in (0, 1, 2, 4):
        assert outcomes[i] == [("result", f"r{i}a")]
    # The gathered call failed as a whole, then each of its requests was run alone.
    assert [len(c) for c in engine.calls] == [1, 4, 1, 1, 1, 1]


def test_max_items_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_items must be >= 1, got 0"):
        IngestGatherer(threading.Lock(), max_items=0)


def test_http_clients_posting_at_once_get_their_own_results_and_share_calls(make_client: Any) -> None:
    """Real engine behind the API: eight clients post while the engine is held; every client gets
    the results of its own articles, the stored documents are all there, and the gathered calls
    carried more than one request."""
    client = make_client()
    service = client.app.state.service
    n_clients = 8
    barrier = threading.Barrier(n_clients + 1)
    responses: dict[int, Any] = {}

    def post(i: int) -> None:
        articles = [{"id": f"c{i}-{j}", "title": f"Client {i} headline number {j} about harbour cranes",
                     "channel": "feed", "url": f"https://example.com/c{i}/{j}"} for j in range(3)]
        barrier.wait()
        responses[i] = client.post("/v1/articles", json={"articles": articles})

    threads = [threading.Thread(target=post, args=(i,)) for i in range(n_clients)]
    for thread in threads:
        thread.start()
    with service.lock:  # hold the engine so that every request queues behind it
        barrier.wait()
        while len(service.gatherer._queue) < n_clients:
            threading.Event().wait(0.005)
    for thread in threads:
        thread.join(30)
    for i in range(n_clients):
        assert responses[i].status_code == 200, responses[i].text
        results = responses[i].json()["results"]
        assert [r["id"] for r in results] == [f"c{i}-{j}" for j in range(3)]
    assert service.engine.stats()["documents"] == 3 * n_clients
    metrics = client.get("/metrics").text
    assert "samestory_ingest_gathered_requests_count 1.0" in metrics  # all eight in one call
    assert "samestory_ingest_gathered_requests_sum 8.0" in metrics
