"""Concurrent ingest requests gathered into one engine call (issue 20).

The engine is serialised by one lock, and most of an ingest call's cost is the encoder, which is
far cheaper per text in one batched call than in many small ones. Eight clients posting ten
articles each would otherwise make eight engine calls of ten, one after another. Here a request
that finds the engine busy leaves its articles in a queue; whichever request next holds the
engine takes every queued request (up to ``max_items`` articles, in arrival order) and ingests
them as one batch, in one transaction, then hands each request its own results. This is flat
combining: a lone client never waits for a window, and under load the batch grows by itself to
what arrived while the engine was busy, so the wait is bounded by one engine call.

Nothing is lost or reordered: the articles are ingested in the order their requests reached the
queue, each request's in its own order, so the decisions are those of the same requests sent one
after another. A request's results come back only after the batch holding it is committed.
If a gathered batch fails, its transaction rolled back and the engine rebuilt its in-memory
state, so each request of it is retried alone: one request's failure is never another's.

>>> import threading
>>> calls = []
>>> def ingest_many(articles, chunk_size):
...     calls.append(len(articles))
...     return [a * 10 for a in articles]
>>> gatherer = IngestGatherer(threading.Lock(), max_items=100)
>>> gatherer.submit([1, 2], ingest_many)
[10, 20]
>>> calls
[2]
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

A = TypeVar("A")
R = TypeVar("R")


@dataclass(eq=False)
class _Request(Generic[A, R]):
    items: Sequence[A]
    done: threading.Event = field(default_factory=threading.Event)
    results: list[R] | None = None
    error: BaseException | None = None


class IngestGatherer(Generic[A, R]):
    """Queue concurrent batches and run whatever is queued as one call of ``ingest_many``.

    ``engine_lock`` is the lock that serialises the engine (held while ``ingest_many`` runs);
    ``max_items`` caps one gathered call, so a gathered transaction is never larger than the
    largest single request the service accepts (the setting ``max_batch``).
    """

    def __init__(self, engine_lock: threading.Lock, *, max_items: int,
                 on_batch: Callable[[int, int], None] | None = None) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be >= 1, got {max_items}")
        self.engine_lock = engine_lock
        self.max_items = max_items
        self.on_batch = on_batch  # (requests, items) of each gathered call, for the metrics
        self._queue: deque[_Request[A, R]] = deque()
        self._queue_lock = threading.Lock()

    def submit(self, items: Sequence[A], ingest_many: Callable[..., list[R]]) -> list[R]:
        """Ingest ``items`` (with whatever else is queued) and return this request's results.

        ``ingest_many(items, chunk_size=n)`` must ingest ``items`` in order, commit them as one
        transaction when ``chunk_size >= len(items)``, and return one result per item.
        """
        request: _Request[A, R] = _Request(items)
        with self._queue_lock:
            self._queue.append(request)
        while not request.done.is_set():
            with self.engine_lock:
                if request.done.is_set():  # an earlier holder of the lock ran it
                    break
                self._run_queued(ingest_many)
        if request.error is not None:
            raise request.error
        assert request.results is not None
        return request.results

    def _take(self) -> list[_Request[A, R]]:
        """The queued requests that fit in one call, oldest first (always at least one)."""
        taken: list[_Request[A, R]] = []
        total = 0
        with self._queue_lock:
            while self._queue and (not taken or total + len(self._queue[0].items) <= self.max_items):
                request = self._queue.popleft()
                taken.append(request)
                total += len(request.items)
        return taken

    def _run_queued(self, ingest_many: Callable[..., list[R]]) -> None:
        """Run queued requests (called with the engine lock held) until this call's are done."""
        batch = self._take()
        if not batch:
            return
        items = [item for request in batch for item in request.items]
        if self.on_batch is not None:
            self.on_batch(len(batch), len(items))
        try:
            # One transaction for the whole gathered batch: all of it is committed or none.
            results = ingest_many(items, chunk_size=max(1, len(items)))
        except BaseException as exc:
            if len(batch) == 1:
                self._finish(batch[0], error=exc)
                return
            # Nothing of the batch was stored; run each request alone so only the failing one fails.
            for request in batch:
                try:
                    self._finish(request, results=ingest_many(list(request.items),
                                                              chunk_size=max(1, len(request.items))))
                except BaseException as one_exc:
                    self._finish(request, error=one_exc)
            return
        start = 0
        for request in batch:
            self._finish(request, results=results[start : start + len(request.items)])
            start += len(request.items)

    @staticmethod
    def _finish(request: _Request[A, R], *, results: list[R] | None = None,
                error: BaseException | None = None) -> None:
        request.results, request.error = results, error
        request.done.set()
