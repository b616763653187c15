"""``samestory models train xling`` runs the trainer in research/ as a child process (models/
never imports research/): the command it builds is one the trainer accepts, and the summary
it prints comes from the trainer's report. The training itself (7 minutes, torch) is faked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import models.cli
from service.cli import main


def _fake_dev_splits(root: Path) -> Path:
    (root / "ntrex128-kor-eng").mkdir(parents=True)
    (root / "ntrex128-kor-eng" / "dev.jsonl").write_text("", encoding="utf-8")
    return root


def test_train_xling_runs_the_research_trainer_with_every_option(tmp_path: Path, monkeypatch, capsys) -> None:
    import research.xling.pairmlp as pairmlp

    calls: list[dict[str, Any]] = []

    def fake_train_stacked(data_dir: Path, out: Path, **kw: Any) -> dict[str, Any]:
        calls.append({"data": data_dir, "out": out, **kw})
        out.write_bytes(b"x" * 1_900_000)
        return {"artefact_bytes": out.stat().st_size, "threshold": 0.5, "seconds": 1.0}

    def fake_run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess:
        assert cmd[1:3] == ["-m", "research.xling.pairmlp"] and kw["cwd"] == models.cli._REPO
        monkeypatch.setattr(pairmlp, "train_stacked", fake_train_stacked)
        return subprocess.CompletedProcess(cmd, pairmlp.main(cmd[3:]))

    monkeypatch.setattr(subprocess, "run", fake_run)
    data, out, report = _fake_dev_splits(tmp_path / "data"), tmp_path / "s.npz", tmp_path / "r" / "report.json"
    argv = ["models", "train", "xling", "--data", str(data), "--out", str(out), "--report", str(report),
            "--hidden", "8", "--epochs", "2", "--seed", "3", "--no-check"]
    assert main(argv) == 0
    assert calls == [{"data": data.resolve(), "out": out.resolve(), "hidden": 8, "epochs": 2, "seed": 3, "check": False}]
    assert json.loads(report.read_text(encoding="utf-8"))["threshold"] == 0.5
    assert f"wrote {out} (1.9 MB), threshold 0.5000" in capsys.readouterr().out


def test_train_xling_outside_a_source_checkout_is_a_one_line_error(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(models.cli, "_REPO", tmp_path)
    data = _fake_dev_splits(tmp_path / "data")
    assert main(["models", "train", "xling", "--data", str(data), "--out", str(tmp_path / "s.npz")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: training the xling scorer needs a source checkout") and err.count("\n") == 1


@pytest.mark.parametrize("code", [1, 3])
def test_a_failed_training_run_passes_its_exit_code_on(tmp_path: Path, monkeypatch, code: int) -> None:
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, code))
    data = _fake_dev_splits(tmp_path / "data")
    assert main(["models", "train", "xling", "--data", str(data), "--out", str(tmp_path / "s.npz")]) == code
