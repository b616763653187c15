"""Where things are, for every test whatever folder it sits in.

``REPO_ROOT`` is found by walking up from this file to the folder that holds ``pyproject.toml``,
so a test module never counts ``parents[...]`` (which breaks when it moves a folder deeper).
``DATA_DIR`` holds the hand-written inputs (``slot_pairs.jsonl``, ``first_feed.jsonl``, ...),
``FIXTURES_DIR`` the stores written by older releases. ``EVAL_DATA`` is the labelled dev data:
``$SAMESTORY_EVAL_DATA`` when set, else ``../shared/eval-data`` beside the checkout; tests that
need it skip where it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path


def find_repo_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` that holds ``pyproject.toml``."""
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    raise ValueError(f"no pyproject.toml at or above {start}")


REPO_ROOT = find_repo_root(Path(__file__).resolve().parent)
TESTS_DIR = REPO_ROOT / "tests"
DATA_DIR = TESTS_DIR / "data"
FIXTURES_DIR = TESTS_DIR / "fixtures"
EVAL_DATA = Path(os.environ.get("SAMESTORY_EVAL_DATA", str(REPO_ROOT.parent / "shared" / "eval-data")))
