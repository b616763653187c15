"""The test tiers (issue 38): ``make check`` is the fast tier, ``make test`` what CI runs.

``make check`` = ruff + the tests not marked heavy or slow; ``make test`` = ruff + mypy + every
test not marked slow (heavy included). The heavy marker must be registered, and the kinds of
test the issue names as heavy must carry it, or they slip back into the fast tier.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
PYTEST_OPTIONS = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]["ini_options"]

# One file per kind of heavy test the issue names (a kind may have more files), relative to tests/.
HEAVY_FILES = {
    "e5 build": "models/test_models_e5.py",
    "torch fine-tuning": "research/test_xling_finetune.py",
    "Ray": "service/batch/test_batch_ray_address.py",
    "Chromium": "e2e/test_ui_browser.py",
    "schemathesis": "service/api/test_api_schemathesis.py",
    "PostgreSQL concurrency": "service/store/test_postgres_concurrency.py",
    "bench smoke": "bench/test_bench_smoke.py",
    "long eval runs": "eval/test_eval_cli.py",
}


def module_marks(path: Path) -> set[str]:
    """The marker names in a module's ``pytestmark`` (a mark or a list of marks)."""
    tree = ast.parse(path.read_text("utf-8"))
    marks: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
            for sub in ast.walk(value):
                # pytest.mark.NAME, possibly called: pytest.mark.skipif(...)
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "mark":
                    marks.add(sub.attr)
    return marks


def make_dry_run(target: str) -> str:
    """What ``make TARGET`` would run (set-up steps included), without running it."""
    return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_heavy_marker_is_registered() -> None:
    names = [m.split(":", 1)[0].strip() for m in PYTEST_OPTIONS["markers"]]
    assert "heavy" in names and "slow" in names


@pytest.mark.parametrize(("kind", "name"), sorted(HEAVY_FILES.items()))
def test_the_heavy_kinds_are_marked(kind: str, name: str) -> None:
    assert "heavy" in module_marks(ROOT / "tests" / name), f"{kind}: tests/{name} has no module-level heavy mark"


def test_module_marks_reads_single_and_listed_marks(tmp_path: Path) -> None:
    one = tmp_path / "one.py"
    one.write_text("import pytest\npytestmark = pytest.mark.heavy\n")
    many = tmp_path / "many.py"
    many.write_text("import pytest\npytestmark = [pytest.mark.evaldata, pytest.mark.skipif(True, reason='x')]\n")
    assert module_marks(one) == {"heavy"}
    assert module_marks(many) == {"evaldata", "skipif"}


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_check_is_ruff_and_the_fast_tier_and_make_test_is_unchanged() -> None:
    check = make_dry_run("check")
    assert "ruff check ." in check
    assert '-m "not heavy and not slow"' in check
    assert "mypy" not in check
    test = make_dry_run("test")
    assert "ruff check ." in test and "mypy" in test
    assert '-m "not slow"' in test and "heavy" not in test
