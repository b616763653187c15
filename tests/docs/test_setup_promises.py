"""What the README promises about set-up is what the files do (issue 23)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def test_python_version_is_one_promise():
    requires = PYPROJECT["project"]["requires-python"]
    assert requires == ">=3.11"  # tomllib
    assert "Python 3.11+" in (ROOT / "README.md").read_text("utf-8")
    assert sys.version_info >= (3, 11)


def test_license_file_is_the_one_pyproject_names():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text("utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text) > 11_000  # the full text, not a stub


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_installs_only_what_the_default_needs():
    dry = subprocess.run(["make", "-n", "-B", "run"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    installs = [line for line in dry.splitlines() if "pip install" in line and "--upgrade pip" not in line]
    assert installs == ['.venv/bin/pip install --quiet -e "."'], installs
    dry = subprocess.run(["make", "-n", "-B", "run", "EXTRAS=postgres"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    assert '-e ".[postgres]"' in dry


def test_schemathesis_is_pinned_in_the_dev_extra():
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert any(re.fullmatch(r"schemathesis==[\d.]+", d) for d in dev)


def test_the_build_backend_floor_reads_the_license_string():
    """`license = "Apache-2.0"` (PEP 639) needs setuptools 77: 68-76 stop at "project.license must be
    valid exactly by one definition", so a build without isolation on such a setuptools failed."""
    assert isinstance(PYPROJECT["project"]["license"], str)
    floors = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    assert len(floors) == 1 and (m := re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", floors[0])), floors
    assert int(m.group(1)) >= 77, floors


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_alone_lists_every_target_and_installs_nothing():
    """`make help` (and `make` alone) lists each phony target with what it does; bare `make` ran
    the first rule, `.venv/bin/python`: it made a virtual environment and said nothing else."""
    text = (ROOT / "Makefile").read_text("utf-8")
    phony = re.search(r"^\.PHONY:(.*)$", text, re.M)
    assert phony is not None
    targets = phony.group(1).split()
    for args in (["help"], []):
        listing = subprocess.run(["make", "-s", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        listed = re.findall(r"^  make (\S+) +\S", listing, re.M)
        assert sorted(listed) == sorted(targets), listing
    assert "venv" not in subprocess.run(["make", "-n"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    # the README's make commands are listed
    readme = (ROOT / "README.md").read_text("utf-8")
    assert set(re.findall(r"`make (\w+)", readme)) <= set(targets)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_readme_says_where_make_run_put_the_command():
    """A fresh clone has no `samestory` on PATH after `make run`: the README's CLI examples say where it is."""
    dry = subprocess.run(["make", "-n", "-B", "run"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert ".venv/bin/samestory serve" in dry
    cli = (ROOT / "README.md").read_text("utf-8").split("## Quick start: CLI", 1)[1].split("```", 1)[0]
    assert "`.venv/bin`" in cli and ". .venv/bin/activate" in cli


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_with_extras_after_a_plain_run_installs_them(tmp_path):
    """`make run EXTRAS=postgres` after a plain `make run`: .venv holds the default install, and the
    extras must still be installed (one stamp for every set of extras said "up to date", and serve
    stopped at "the PostgreSQL store needs psycopg 3")."""
    import os

    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").touch()
    (tmp_path / ".venv" / ".installed").touch()
    for age, path in ((300, "pyproject.toml"), (200, ".venv/bin/python"), (100, ".venv/.installed")):
        os.utime(tmp_path / path, (1_700_000_000 - age, 1_700_000_000 - age))

    def installs(*args: str) -> list[str]:
        dry = subprocess.run(["make", "-n", "run", *args], cwd=tmp_path, capture_output=True, text=True,
                             check=True).stdout
        return [line for line in dry.splitlines() if "pip install" in line]

    assert installs() == []  # the default install is up to date
    assert installs("EXTRAS=postgres") == ['.venv/bin/pip install --quiet -e ".[postgres]"']
    assert installs("EXTRAS=postgres,redis") == ['.venv/bin/pip install --quiet -e ".[postgres,redis]"']
