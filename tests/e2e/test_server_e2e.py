"""End to end: the real ``samestory serve`` process, SIGKILLed mid-ingest and restarted on the same store."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from tests.helpers.server import Server
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out

ROOT = REPO_ROOT


def _batch(n: int, size: int) -> list[dict]:
    # Stories of two items each (a copy under a mirror URL), so clusters and merges are exercised.
    out = []
    for i in range(size // 2):
        title = f"Story {n}-{i}: harbor {i} glacier {n} lantern report"
        out.append({"title": title, "url": f"https://news.example/{n}/{i}", "id": f"{n}-{i}"})
        out.append({"title": title.upper(), "url": f"https://mirror.example/{n}/{i}", "id": f"{n}-{i}m"})
    return out


def test_sigkill_loses_no_acknowledged_item(tmp_path):
    db = f"sqlite:///{tmp_path / 'store.db'}"
    log = tmp_path / "server.log"
    server = Server(db, log, SAMESTORY_API_KEY="k1")
    headers = {"X-API-Key": "k1"}
    acked: list[tuple[dict, dict]] = []
    failures: list[str] = []
    stop = threading.Event()

    def collector() -> None:
        # Keeps sending until the server dies under it; only answered batches count as acknowledged.
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
            n = 0
            while not stop.is_set():
                batch = _batch(n, 20)
                try:
                    r = client.post("/v1/articles", json={"articles": batch})
                except httpx.TransportError:
                    return
                if r.status_code != 200:
                    failures.append(r.text)
                    return
                acked.extend(zip(batch, r.json()["results"], strict=True))
                n += 1

    t = threading.Thread(target=collector)
    t.start()
    deadline = time.monotonic() + 60
    while len(acked) < 60 and time.monotonic() < deadline and t.is_alive():
        time.sleep(0.01)
    server.kill()  # SIGKILL, most likely while a batch is in flight
    stop.set()
    t.join(30)
    assert not failures, failures
    assert len(acked) >= 60, "too few batches were acknowledged before the kill"

    server = Server(db, log, SAMESTORY_API_KEY="k1")
    try:
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
            for article, result in acked:
                doc = client.get(f"/v1/documents/{result['document_id']}")
                assert doc.status_code == 200, (article, doc.text)
                assert doc.json()["url"] == article["url"]
                assert doc.json()["copy_group_id"] == result["copy_group_id"]
            # The rebuilt indices agree with the store: every live document is indexed again.
            metrics = client.get("/metrics").text
            rows = _gauge(metrics, 'samestory_store_rows{table="live_documents"}')
            assert _gauge(metrics, 'samestory_index_size{index="documents"}') == rows >= len(acked)
            # Re-sent items are recognised as re-observations of the same documents.
            again = client.post("/v1/articles", json={"articles": [a for a, _ in acked]}).json()["results"]
            assert {r["status"] for r in again} == {"reobserved"}
            assert [r["document_id"] for r in again] == [r["document_id"] for _, r in acked]
            # A copy under a new URL still finds its story: the candidate state was warmed up.
            article, result = acked[0]
            copy = client.post("/v1/articles", json={"articles": [{**article, "url": "https://third.example/x"}]})
            assert copy.json()["results"][0]["copy_group_id"] == result["copy_group_id"]
    finally:
        server.stop()
    # Structured logs: every stderr line of both runs is a JSON object.
    lines = [json.loads(x) for x in log.read_text("utf-8").splitlines() if x.strip()]
    assert any(x["msg"] == "request" and x.get("route") == "/v1/articles" for x in lines)
    assert any(x["msg"] == "engine ready" and x["settings"]["api_key"] == "***" for x in lines)


def _gauge(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    pytest.fail(f"{name} not in /metrics")


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_stop_closes_the_engine_and_writes_the_restart_state(tmp_path, sig):
    # `docker stop` sends SIGTERM. uvicorn re-raises the signal after its shutdown, which ended
    # the process before `samestory serve` closed the engine: no state file, no `engine closed`.
    import signal

    path = tmp_path / "s.db"
    log = tmp_path / "server.log"
    server = Server(f"sqlite:///{path}", log)
    try:
        r = httpx.post(server.url + "/v1/articles", timeout=30, json={"articles": [
            {"title": "Harbor lantern glacier report", "url": "https://news.example/1"}]})
        assert r.status_code == 200 and r.json()["results"][0]["status"] == "new", r.text
        server.proc.send_signal(getattr(signal, sig))
        server.proc.wait(30)
    finally:
        server.stop()
    lines = [json.loads(x) for x in log.read_text("utf-8").splitlines() if x.strip()]
    assert [x["msg"] for x in lines].count("engine closed") == 1, lines[-5:]
    assert (tmp_path / "s.db.state.npz").is_file()
