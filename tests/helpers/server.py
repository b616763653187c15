"""The real ``samestory serve`` process, started on a free port, for the end-to-end tests.

``Server(db, log)`` returns once ``/healthz`` answers (or fails with the end of the log);
``kill()`` SIGKILLs it, ``stop()`` SIGTERMs it. ``command()`` is the installed ``samestory``
script when there is one, else the same entry point through ``python -m service.cli``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.paths import REPO_ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command() -> list[str]:
    """The installed ``samestory`` script when there is one, else the same entry point via -m."""
    script = Path(sys.executable).with_name("samestory")
    return [str(script)] if script.exists() else [sys.executable, "-m", "service.cli"]


class Server:
    """The real ``samestory serve`` on a free port (cheap passes unless ``model`` says otherwise), healthy
    when the constructor returns; ``env`` is added to its environment and its stderr goes to ``log``."""

    def __init__(self, db: str, log: Path, *, model: str = "none", **env: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._stderr = log.open("ab")
        self.proc = subprocess.Popen(
            [*command(), "serve", "--db", db, "--model", model, "--host", "127.0.0.1", "--port", str(self.port),
             "--log-format", "json"],
            cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **env},
            stdout=subprocess.DEVNULL, stderr=self._stderr)
        deadline = time.monotonic() + 90
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited with {self.proc.returncode}: {log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "server did not become healthy in 90 s"
            time.sleep(0.1)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._stderr.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(15)
        self._stderr.close()
