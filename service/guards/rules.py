"""Loading the guard rule catalogue (TOML data) and merging user files on top of it.

The packaged rules live in ``service/rules/guards/<guard>.toml``. A user directory may hold
``<guard>.toml`` or ``<guard>.<anything>.toml`` files; they are merged over the packaged ones:
tables merge key by key, lists are appended (duplicates dropped), scalars are replaced. So a
user file only carries what it adds or changes.

>>> merge_rules({"a": [1], "t": {"x": 1}}, {"a": [2, 1], "t": {"y": 2}, "s": 3})
{'a': [1, 2], 't': {'x': 1, 'y': 2}, 's': 3}
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

GUARD_NAMES: tuple[str, ...] = ("version", "quantity", "date", "subject", "polarity", "role",
                                 "who", "where", "which", "number")
# The four slot guards (who, where, which, number) share one rule file, slots.toml: one analysis
# of each text fills all four slots (service/guards/slots.py).
SHARED_RULE_FILES: dict[str, str] = {"who": "slots", "where": "slots", "which": "slots", "number": "slots"}
RULE_FILES: tuple[str, ...] = tuple(dict.fromkeys(SHARED_RULE_FILES.get(g, g) for g in GUARD_NAMES))
PACKAGED_RULES_DIR = Path(__file__).resolve().parent.parent / "rules" / "guards"
RULES_DIR_ENV = "SAMESTORY_RULES_DIR"

Rules = dict[str, Any]


def merge_rules(base: Rules, extra: Rules) -> Rules:
    """Merge ``extra`` over ``base`` (neither is modified)."""
    out: Rules = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = merge_rules(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            merged = list(old)
            for item in value:
                if item not in merged:
                    merged.append(item)
            out[key] = merged
        else:
            out[key] = value
    return out


def _guard_of(path: Path) -> str:
    guard = path.name.split(".")[0]
    if guard not in RULE_FILES:
        raise ValueError(
            f"rule file {path}: the name must start with one of {', '.join(RULE_FILES)} "
            f"(e.g. polarity.toml or polarity.finance.toml)"
        )
    return guard


def load_rules(extra_dirs: Iterable[Path | str] | None = None) -> dict[str, Rules]:
    """Packaged rules per rule file (``RULE_FILES``), with every ``*.toml`` of ``extra_dirs`` merged on top."""
    dirs = [PACKAGED_RULES_DIR, *(Path(d) for d in (extra_dirs or []))]
    rules: dict[str, Rules] = {name: {} for name in RULE_FILES}
    for directory in dirs:
        if not directory.is_dir():
            raise ValueError(f"guard rules directory {directory} does not exist or is not a directory")
        for path in sorted(directory.glob("*.toml")):
            guard = _guard_of(path)
            try:
                with path.open("rb") as fh:
                    data = tomllib.load(fh)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"rule file {path} is not valid TOML: {exc}") from exc
            rules[guard] = merge_rules(rules[guard], data)
    return rules


def env_rule_dirs() -> list[Path]:
    """Directories named by ``$SAMESTORY_RULES_DIR`` (``os.pathsep``-separated; empty = none)."""
    raw = os.environ.get(RULES_DIR_ENV, "")
    return [Path(p) for p in raw.split(os.pathsep) if p.strip()]


def table(rules: Rules, key: str, where: str) -> dict[str, Any]:
    """``rules[key]`` as a table, or {} when absent; a non-table is a precise ValueError."""
    value = rules.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"{where}: [{key}] must be a table, got {type(value).__name__}")
    return value


def number(value: Any, where: str) -> float:
    """A rule value that must be a number (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} must be a number, got {value!r}")
    return float(value)


def int_setting(settings: dict[str, Any], key: str, default: int, where: str) -> int:
    """``key`` of a guard's ``[settings]`` table as an int, ``default`` when absent; a non-number
    is a precise ValueError."""
    return int(number(settings.get(key, default), f"{where}: settings.{key}"))


def str_list(value: Any, where: str) -> list[str]:
    """A rule value that must be a list of non-empty strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where} must be a list of non-empty strings, got {value!r}")
    return value
