"""``samestory batch --engine ray --ray-address ADDR`` joins a Ray cluster it did not start.

The fixture starts a head node the way an operator would (``ray start --head``, 2 CPUs), then
the console command runs against its address in a process of its own, and its copy groups must
be the local executor's. The head is started with ``--block`` in a session of its own, with its
own ports and temp dir, and stopped by signalling that session (not ``ray stop``, which stops
every Ray process of the user on the machine, other runs' clusters included).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out



def _free_ports(n: int) -> list[int]:
    """``n`` distinct ports free at the moment of asking (the OS picks them)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _env(token: str) -> dict[str, str]:
    """For the head and the driver: this checkout first on the path, and the cluster's token.

    Ray 2.60 clusters require a token by default; a driver joining one must hold the same token
    (``RAY_AUTH_TOKEN``, or a file named by ``RAY_AUTH_TOKEN_PATH``, else ``~/.ray/auth_token``).
    The test's own token keeps it off the user's ``~/.ray``.
    """
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": token}


def _stop(proc: subprocess.Popen[bytes], temp_dir: Path) -> None:
    """Stop the head this test started, and nothing else: its process group, then any process
    still naming its temp dir (a worker that left the group)."""
    import psutil

    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    for p in psutil.process_iter(["cmdline"]):
        try:
            if str(temp_dir) in " ".join(p.info["cmdline"] or []):
                p.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass


@pytest.fixture
def ray_head() -> Iterator[tuple[str, Path, dict[str, str]]]:
    """A running head node: its GCS address, its temp dir and the environment to join it with."""
    pytest.importorskip("ray")
    pytest.importorskip("pyarrow")
    ray_cli = Path(sys.executable).with_name("ray")
    if not ray_cli.exists():
        pytest.skip(f"no ray command beside {sys.executable}")
    # short: Ray's socket paths under the temp dir must fit in 107 bytes
    temp_dir = Path(tempfile.mkdtemp(prefix="ssray", dir="/tmp"))
    # every port the head binds is its own (the defaults are fixed numbers another run may hold);
    # no Ray Client server: the ray extra does not install it
    port, agent_port, grpc_port, env_port, metrics_port = _free_ports(5)
    # no draining on SIGTERM (Ray's default waits up to 30 s for an idle node to drain)
    env = {**_env(secrets.token_hex(32)), "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0"}
    log = (temp_dir / "start.log").open("wb")
    proc = subprocess.Popen(
        [str(ray_cli), "start", "--head", f"--port={port}", "--num-cpus=2", f"--temp-dir={temp_dir}",
         "--include-dashboard=false", f"--dashboard-agent-listen-port={agent_port}",
         f"--dashboard-agent-grpc-port={grpc_port}", f"--runtime-env-agent-port={env_port}",
         f"--metrics-export-port={metrics_port}",
         "--disable-usage-stats", "--block"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # `ray start` writes the cluster's address to its temp dir once the head is up
        address_file = temp_dir / "ray_current_cluster"
        deadline = time.monotonic() + 300
        while not address_file.exists() or not address_file.read_text().strip():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start did not come up: {(temp_dir / 'start.log').read_text()[-3000:]}")
            time.sleep(0.5)
        yield address_file.read_text().strip(), temp_dir, env
    finally:
        _stop(proc, temp_dir)
        log.close()
        shutil.rmtree(temp_dir, ignore_errors=True)


def test_batch_joins_a_running_cluster_and_gives_the_local_groups(ray_head: tuple[str, Path, dict[str, str]],
                                                                  tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from service.batch.io import read_records
    from service.batch.run import run_batch
    from tests.helpers.batch import FEED, write_jsonl

    address, temp_dir, env = ray_head
    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    local = run_batch(read_records([src]), engine="local", model=None)
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "batch", str(src), "--out", str(tmp_path / "out"), "--engine", "ray",
         "--ray-address", address, "--model", "none", "--json", "--quiet"],
        env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["engine"] == "ray" and summary["items"] == len(FEED)
    rows = pq.read_table(tmp_path / "out" / "part-00000.parquet").to_pylist()
    assert [r["copy_group_id"] for r in rows] == [r["copy_group_id"] for r in local.results]
    assert [r["stage"] for r in rows] == [r["stage"] for r in local.results]
    assert summary["settled_by_cheap_passes_in_plan"] == local.summary["settled_by_cheap_passes_in_plan"] > 0
    # the run was a driver of this cluster (not a local cluster of its own): its log is in the head's session
    assert list(temp_dir.glob("session_*/logs/python-core-driver-*")), sorted(
        p.name for p in temp_dir.glob("session_*/logs/*"))
