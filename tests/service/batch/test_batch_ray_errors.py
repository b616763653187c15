"""``samestory batch --engine ray --ray-address ADDR`` with no cluster there: one line, at once.

Sixth tour: ``--ray-address auto`` (docs/scale.md's command) with no cluster running ended in
Ray's ``ConnectionError`` traceback, and a HOST:PORT nobody answers on had Ray's driver retry
for minutes (``Failed to connect to GCS ... within 5 seconds`` every few seconds; ``127.0.0.1:1``
was still retrying when ``timeout 500`` stopped it). Neither starts a cluster, so neither is heavy.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from service.cli import main
from tests.helpers.batch import FEED, write_jsonl


def _closed_port() -> int:
    """A port nothing listens on at the moment of asking (the OS picked it, then it was closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_address_nobody_answers_on_is_one_line_at_once(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    address = f"127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    with pytest.raises(SystemExit) as exc:
        main(["batch", str(src), "--out", str(tmp_path / "out"), "--engine", "ray", "--ray-address", address,
              "--model", "none", "--quiet"])
    assert time.monotonic() - start < 30
    assert str(exc.value.code).startswith(f"samestory batch: --ray-address {address}: no Ray cluster answers there (")
    assert "\n" not in str(exc.value.code) and not (tmp_path / "out" / "summary.json").exists()


def test_auto_with_no_cluster_on_the_machine_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    psutil = pytest.importorskip("psutil")
    # 'auto' joins any cluster running on the machine (another run's included): only where none is.
    if any("gcs_server" in (p.info["name"] or "") for p in psutil.process_iter(["name"])):
        pytest.skip("a Ray cluster runs on this machine: 'auto' would join it")
    if Path("/tmp/ray/ray_current_cluster").exists():
        pytest.skip("Ray's last-cluster file is there: 'auto' would try that cluster")
    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    with pytest.raises(SystemExit) as exc:
        main(["batch", str(src), "--out", str(tmp_path / "out"), "--engine", "ray", "--ray-address", "auto",
              "--model", "none", "--quiet"])
    assert str(exc.value.code) == ("samestory batch: --ray-address auto: no running Ray cluster found on this "
                                   "machine; start one with `ray start --head`, name its head's HOST:PORT, or leave "
                                   "--ray-address out to run a local one for this run")


def test_a_ray_client_address_is_refused_in_one_line(tmp_path: Path) -> None:
    """Ray Data does not run over Ray Client: with ``ray[client]`` installed, a ``ray://`` run
    ended in Ray Data's ``'Worker' object has no attribute 'core_worker'`` traceback after the
    cluster had been joined (measured 2026-12-07 on a `ray start --head` cluster; without it, in
    Ray's "requires pip package ray[client]")."""
    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    with pytest.raises(SystemExit) as exc:
        main(["batch", str(src), "--out", str(tmp_path / "out"), "--engine", "ray", "--ray-address",
              "ray://127.0.0.1:10001", "--model", "none", "--quiet"])
    assert str(exc.value.code) == (
        "samestory batch: --ray-address ray://127.0.0.1:10001: Ray Data does not run over Ray Client (ray://); run "
        "samestory batch on a node of the cluster with --ray-address auto, or submit it there with "
        "`ray job submit -- samestory batch ...`")
    assert not (tmp_path / "out" / "summary.json").exists()


def test_a_ray_client_address_in_the_environment_is_refused_too(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray reads RAY_ADDRESS where no address is given: a ray:// one there went to Ray Client too."""
    monkeypatch.setenv("RAY_ADDRESS", "ray://127.0.0.1:10001")
    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    with pytest.raises(SystemExit) as exc:
        main(["batch", str(src), "--out", str(tmp_path / "out"), "--engine", "ray", "--model", "none", "--quiet"])
    assert str(exc.value.code).startswith(
        "samestory batch: RAY_ADDRESS=ray://127.0.0.1:10001: Ray Data does not run over Ray Client (ray://)")
