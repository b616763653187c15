"""Service settings: defaults, then a TOML file's ``[service]`` table, then ``SAMESTORY_*`` env, then CLI flags.

Typed and closed, like the engine's config (``service.config``, whose loading helpers this
shares; pydantic-settings would add a dependency for a dozen fields): every value is checked
against its field's type, and a key or variable that names no setting is an error suggesting
the closest one.

>>> Settings(max_batch=0)
Traceback (most recent call last):
...
service.config.ConfigError: max_batch must be >= 1, got 0
>>> Settings.load(env={"SAMESTORY_MAX_BATCH": "50", "SAMESTORY_MODEL": "none"}).max_batch
50
>>> Settings.load(env={"SAMESTORY_MAX_BACH": "50"})
Traceback (most recent call last):
...
service.config.ConfigError: unknown environment variable SAMESTORY_MAX_BACH (did you mean SAMESTORY_MAX_BATCH?)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.config import (
    FLAT,
    OTHER_ENV_VARS,
    ConfigError,
    EngineConfig,
    env_value,
    read_toml,
    redact_url,
    suggest,
    typed,
)

DEFAULT_DB = "sqlite:///var/samestory.db"


@dataclass
class Settings:
    """Everything ``samestory serve`` needs. Each field ``x`` is also read from env ``SAMESTORY_X``."""

    db: str = DEFAULT_DB
    # Embedder spec for models.registry ("use", "e5-small", ...); None runs the cheap passes only.
    model: str | None = "use"
    device: str = "cpu"
    guards: bool = True
    # TOML file holding an [engine] table (thresholds) and/or a [service] table (these fields).
    config: str | None = None
    # When set, every route but /healthz needs it (X-API-Key or Authorization: Bearer).
    api_key: str | None = None
    # Named keys, "alice=KEY1,bob=KEY2": any of them is accepted like api_key, and the name is who
    # an editor's correction is recorded as (api_key alone is named "api-key"); see docs/ui.md.
    api_keys: str | None = None
    max_batch: int = 1_000
    max_body_bytes: int = 10 * 1024 * 1024
    max_dedupe_texts: int = 10_000
    max_page: int = 500
    host: str = "127.0.0.1"
    port: int = 8000
    log_format: str = "json"
    log_level: str = "info"

    def __post_init__(self) -> None:
        if self.model is not None and self.model.strip().lower() in ("", "none"):
            self.model = None
        if self.api_key is not None and not self.api_key.strip():
            self.api_key = None  # an empty key would mean "anyone who sends an empty header"
        if self.api_keys is not None and not self.api_keys.strip():
            self.api_keys = None
        if self.api_keys is not None:
            from service.api.auth import parse_named_keys

            parse_named_keys(self.api_keys)  # a malformed list is an error at start-up, not at login
        for name in ("max_batch", "max_body_bytes", "max_dedupe_texts", "max_page"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not 0 <= self.port <= 65_535:
            raise ConfigError(f"port must be in [0, 65535], got {self.port}")
        if self.log_format not in ("json", "text"):
            raise ConfigError(f"log_format must be 'json' or 'text', got {self.log_format!r}")
        if self.log_level not in ("debug", "info", "warning", "error"):
            raise ConfigError(f"log_level must be debug, info, warning or error, got {self.log_level!r}")
        if self.device not in ("cpu", "cuda"):
            raise ConfigError(f"device must be 'cpu' or 'cuda', got {self.device!r}")
        from service.store import sqlite_path

        if not self.db or (sqlite_path(self.db) is None and not self.db.startswith(("postgresql://", "postgres://"))):
            raise ConfigError(f"unsupported store URL {self.db!r}: use ':memory:', 'sqlite:///PATH' or "
                              "'postgresql://...'")

    @classmethod
    def load(cls, path: str | Path | None = None, *, env: Mapping[str, str] | None = None,
             **overrides: Any) -> Settings:
        """Build settings; later sources win: defaults < file ``[service]`` < env < ``overrides``.

        ``overrides`` with value None are ignored, so argparse results can be passed as they are.
        The file path itself may come from ``path``, ``overrides['config']`` or ``SAMESTORY_CONFIG``.
        """
        env = os.environ if env is None else env
        check_env(env)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        path = overrides.get("config") or path or env.get("SAMESTORY_CONFIG")
        values: dict[str, Any] = {}
        if path:
            table = read_toml(Path(path)).get("service", {})
            if not isinstance(table, dict):
                raise ConfigError(f"{path}: [service] must be a table")
            for key, value in table.items():
                if key not in fields or key == "config":
                    raise ConfigError(f"unknown [service] key {key!r} in {path}{suggest(key, fields)}")
                values[key] = typed(cls, key, value, str(path))
            values["config"] = str(path)
        for name in fields:
            raw = env.get(f"SAMESTORY_{name.upper()}")
            if raw is not None and name != "config":
                values[name] = typed(cls, name, raw, "env")
        for key, value in overrides.items():
            if key not in fields:
                raise ConfigError(f"unknown setting {key!r}{suggest(key, fields)}")
            if value is not None:
                values[key] = value
        return cls(**values)

    def engine_config(self) -> EngineConfig:
        """The engine's config: the file's ``[engine]`` table (if any) plus ``SAMESTORY_*`` env."""
        return EngineConfig.load(self.config)

    def public(self) -> dict[str, Any]:
        """The settings as logged at start-up: the API key and any DB password are masked."""
        out = dataclasses.asdict(self)
        out["api_key"] = "***" if self.api_key else None
        out["api_keys"] = ",".join(f"{n}=***" for n in _key_names(self.api_keys)) if self.api_keys else None
        out["db"] = redact_url(self.db)
        return out


def _key_names(api_keys: str) -> list[str]:
    from service.api.auth import parse_named_keys

    return list(parse_named_keys(api_keys).values())


def known_env_vars() -> set[str]:
    """Every ``SAMESTORY_*`` variable some part of samestory reads: the service settings, the
    engine's (``service.config.FLAT``) and those read elsewhere (``OTHER_ENV_VARS``)."""
    names = {f.name for f in dataclasses.fields(Settings)} | set(FLAT)
    return {f"SAMESTORY_{n.upper()}" for n in names} | set(OTHER_ENV_VARS)


def check_env(env: Mapping[str, str] | None = None) -> None:
    """Raise :class:`ConfigError` for a ``SAMESTORY_*`` variable that nothing reads (a typo would
    otherwise be ignored in silence) or whose value is not of its setting's type.

    Every command runs this one check first (``service.cli.main``, ``Settings.load``), so a
    variable is refused alike by every command, whether or not the command reads it:
    ``SAMESTORY_GUARDS=maybe`` fails ``compare`` as it fails ``serve``.

    >>> check_env({"SAMESTORY_GUARDS": "maybe"})
    Traceback (most recent call last):
    ...
    service.config.ConfigError: SAMESTORY_GUARDS must be true or false, got 'maybe'
    >>> check_env({"SAMESTORY_WINDOW_DAY": "3"})
    Traceback (most recent call last):
    ...
    service.config.ConfigError: unknown environment variable SAMESTORY_WINDOW_DAY (did you mean SAMESTORY_WINDOW_DAYS?)
    """
    env = os.environ if env is None else env
    known = known_env_vars()
    for name in sorted(env):
        if name.startswith("SAMESTORY_") and name not in known:
            raise ConfigError(f"unknown environment variable {name}{suggest(name, known)}")
    settings = {f.name for f in dataclasses.fields(Settings)} - {"config"}
    for name in sorted(settings | set(FLAT)):
        raw = env.get(f"SAMESTORY_{name.upper()}")
        if raw is not None:
            if name in settings:
                typed(Settings, name, raw, "env")
            else:
                env_value(name, raw)


def env_setting(name: str, env: Mapping[str, str] | None = None) -> Any:
    """The service setting ``name`` as ``SAMESTORY_<NAME>`` gives it (parsed and checked as
    ``samestory serve`` reads it), else its default: the one reading every command shares.

    >>> env_setting("guards", {"SAMESTORY_GUARDS": "false"}), env_setting("guards", {})
    (False, True)
    """
    env = os.environ if env is None else env
    raw = env.get(f"SAMESTORY_{name.upper()}")
    if raw is not None:
        return typed(Settings, name, raw, "env")
    return next(f for f in dataclasses.fields(Settings) if f.name == name).default


__all__ = ["DEFAULT_DB", "Settings", "check_env", "env_setting", "known_env_vars", "redact_url"]
