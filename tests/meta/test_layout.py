"""The tests mirror the packages (issue 38), and a test module never imports another one.

``tests/service/guards/test_guards_date.py`` tests ``service/guards/``; the folders that are not a
package are ``e2e/`` (several packages or a real process at once), ``docs/`` (the docs stay true),
``meta/`` (the repository itself) and ``helpers/`` (what several test modules share). Every
folder is a package (``__init__.py``), so two modules may share a base name without clashing.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO_ROOT, TESTS_DIR

NOT_PACKAGES = {"e2e", "docs", "meta", "helpers"}
# Folders of inputs, not of Python modules.
DATA_FOLDERS = {"data", "fixtures"}


def _folders() -> list[Path]:
    return sorted(p for p in TESTS_DIR.rglob("*") if p.is_dir() and "__pycache__" not in p.parts
                  and not DATA_FOLDERS & set(p.relative_to(TESTS_DIR).parts))


def test_no_test_module_sits_at_the_top_of_tests() -> None:
    flat = sorted(p.name for p in TESTS_DIR.glob("test_*.py"))
    assert flat == [], f"move these into the folder of the package they test: {flat}"


def test_every_folder_is_a_package() -> None:
    assert [p for p in _folders() if not (p / "__init__.py").is_file()] == []


def test_each_folder_mirrors_a_package_or_is_one_of_the_named_others() -> None:
    stray = []
    for folder in _folders():
        rel = folder.relative_to(TESTS_DIR)
        if rel.parts[0] in NOT_PACKAGES:
            continue
        if not (REPO_ROOT / rel / "__init__.py").is_file():
            stray.append(str(rel))
    assert stray == []


def test_no_test_module_imports_another() -> None:
    offenders = []
    for path in sorted(TESTS_DIR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            offenders += [(str(path.relative_to(TESTS_DIR)), n) for n in names
                          if n.startswith("tests.") and (n.split(".")[-1].startswith("test_") or n == "tests.conftest")]
    assert offenders == []
