"""The laboratory stays apart from the product: nothing that ships imports ``research/``, and
``research/`` is not installed; ``index/`` and ``models/`` never import ``service/``. Imports
are read from the syntax tree (every ``import`` and ``from ... import``, at module level or
inside functions), so a lazy import counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
# eval/ ships too (`samestory eval`): its report reads the laboratory's register by path, not by
# import, because the installed console script has no checkout on sys.path.
PRODUCT = ("service", "index", "models", "eval")


def imported_modules(source: str) -> set[str]:
    """Every absolute module name a Python source imports.

    >>> sorted(imported_modules("import a.b\\nfrom c import d\\ndef f():\\n    from research.x import y"))
    ['a.b', 'c', 'research.x']
    """
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
    return out


def _imports_of(path: Path, package: str) -> list[str]:
    return sorted(m for m in imported_modules(path.read_text(encoding="utf-8"))
                  if m == package or m.startswith(package + "."))


def _imports_research(path: Path) -> list[str]:
    return _imports_of(path, "research")


@pytest.mark.parametrize("package", PRODUCT)
def test_product_packages_never_import_research(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no Python files under {package}/"
    offenders = {str(f.relative_to(ROOT)): mods for f in files if (mods := _imports_research(f))}
    assert not offenders


@pytest.mark.parametrize("package", ("index", "models"))
def test_index_and_models_never_import_service(package: str) -> None:
    """Data flows one way (docs/architecture.md): the service uses the indices and the models."""
    offenders = {str(f.relative_to(ROOT)): mods for f in sorted((ROOT / package).rglob("*.py"))
                 if (mods := _imports_of(f, "service"))}
    assert not offenders


def test_the_check_sees_an_import_of_research(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def train():\n    from research.xling.pairmlp import train_stacked\n", encoding="utf-8")
    assert _imports_research(bad) == ["research.xling.pairmlp"]


def test_research_is_not_installed() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    assert not any("research".startswith(pattern.rstrip("*")) for pattern in include)
    assert (ROOT / "research" / "xling" / "approaches.json").is_file()
