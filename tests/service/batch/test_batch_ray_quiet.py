"""``samestory batch --engine ray --quiet`` prints nothing of Ray's on stderr.

It printed ~16 lines: the token notice, "Started a local Ray instance", every Ray Data
execution's plan, "Progress bars disabled", the core worker's ERROR line about the embedding
actors' constructor arguments, and "The Dataset job will hang unless more CPUs are freed up" on
a run that did not hang (the embedding actors still held the CPUs while their result was
materialized). Without --quiet, Ray Data still says what it executes; only that spurious
warning is gone.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

# A line of Ray's Python loggers ("2026-12-06 01:48:29,932\tWARNING file.py:85 -- ...") or of its
# C++ log ("[2026-12-06 01:49:19,809 E 20673 20673] core_worker.cc:2465: ...").
RAY_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+[A-Z]+ \S+:\d+ -- |^\[\d{4}-\d\d-\d\d [\d:,]+ [DIWEF] \d+ \d+\]",
                      re.M)


def test_the_ray_line_pattern_matches_the_lines_ray_printed() -> None:
    printed = ("2026-12-06 01:48:34,686\tINFO worker.py:2038 -- Started a local Ray instance.\n"
               "[2026-12-06 01:49:19,809 E 20673 20673] core_worker.cc:2465: Actor with class name: 'MapWorker'\n")
    assert len(RAY_LINE.findall(printed)) == 2
    assert not RAY_LINE.search("8 items -> 4 copy groups, 3 stories in 41.3 s\n")


def test_quiet_raises_ray_datas_console_handler_and_not_quiet_restores_it() -> None:
    pytest.importorskip("ray")
    import ray.data  # noqa: F401 - configures the "ray.data" logger's handlers

    from service.batch.ray_engine import _ray_data_console

    console = [h for h in logging.getLogger("ray.data").handlers if not isinstance(h, logging.FileHandler)
               and type(h).__name__ != "SessionFileHandler"]
    assert console
    before = [h.level for h in console]
    _ray_data_console(True)
    assert all(h.level == logging.ERROR for h in console)
    _ray_data_console(False)
    assert [h.level for h in console] == before


class _Messages(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_the_no_free_cpu_warning_is_dropped_only_around_the_actor_stage() -> None:
    from service.batch.ray_engine import CPU_WARNING, _without_cpu_warning

    logger = logging.getLogger("ray.data.dataset")
    message = f"Warning: The Ray cluster currently {CPU_WARNING}. The Dataset job will hang unless more CPUs are freed up."
    seen = _Messages()
    logger.addHandler(seen)
    try:
        with _without_cpu_warning():
            logger.warning(message)
            logger.warning("another warning")
        logger.warning(message)
    finally:
        logger.removeHandler(seen)
    assert seen.messages == ["another warning", message]


@pytest.mark.heavy  # a local Ray cluster and the USE model: ~40 s on 2 cores
def test_batch_on_ray_with_quiet_prints_no_ray_log_line(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    pytest.importorskip("pyarrow")
    from tests.helpers.batch import FEED, write_jsonl

    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    # the default model: the embedding stage runs on an actor pool, where Ray's C++ ERROR line came from
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "batch", str(src), "--out", str(tmp_path / "out"), "--engine", "ray",
         "--workers", "2", "--model", "use", "--quiet"],
        env={**os.environ, "PYTHONPATH": path, "RAY_USAGE_STATS_ENABLED": "0"}, capture_output=True, text=True,
        timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{len(FEED)} items -> " in done.stdout and "engine ray" in done.stdout, done.stdout
    assert not RAY_LINE.findall(done.stderr), done.stderr
    assert "Dataset job will hang" not in done.stderr and "ray" not in done.stderr.lower(), done.stderr
