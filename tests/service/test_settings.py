"""Typed, closed settings and one-line operator errors (issue 23).

Every ``SAMESTORY_*`` variable and TOML key names a setting or is an error that suggests the
closest one; values are checked against their types; an operator mistake is one line from
``samestory``, never a traceback; ``samestory serve`` logs the effective configuration once.
"""

from __future__ import annotations

import json
import logging
import re

import pytest

from service.api.settings import Settings, check_env, known_env_vars
from service.cli import main
from service.config import OTHER_ENV_VARS, ConfigError, EngineConfig
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def one_line_exit(argv: list[str], monkeypatch, env: dict[str, str] | None = None) -> str:
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SystemExit) as exc:
        main(argv)
    message = str(exc.value.code)
    assert "\n" not in message and "Traceback" not in message, message
    return message


@pytest.mark.parametrize("name, suggestion", [
    ("SAMESTORY_MAX_BACH", "SAMESTORY_MAX_BATCH"),
    ("SAMESTORY_NGRAM_TRESHOLD", "SAMESTORY_NGRAM_THRESHOLD"),
    ("SAMESTORY_APIKEY", "SAMESTORY_API_KEY"),
])
def test_mistyped_variables_are_errors_with_a_suggestion(name, suggestion):
    expected = f"unknown environment variable {name} (did you mean {suggestion}?)"
    # the settings layer checks the variables as a whole (EngineConfig.load reads only its own)
    for load in (lambda: Settings.load(env={name: "1"}), lambda: check_env({name: "1"})):
        with pytest.raises(ConfigError) as err:
            load()
        assert str(err.value) == expected


def test_every_variable_the_code_reads_is_known():
    """A variable read anywhere (os.environ / getenv with a SAMESTORY_ name) must be in the
    registry, or check_env would refuse the very variable the code wants."""
    read = set()
    for folder in ("service", "models", "index", "eval", "bench", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            read |= set(re.findall(r'"(SAMESTORY_[A-Z0-9_]+)"', path.read_text("utf-8")))
    unknown = read - known_env_vars() - {"SAMESTORY_MAX_BACH", "SAMESTORY_NGRAM_TRESHOLD", "SAMESTORY_APIKEY",
                                         "SAMESTORY_WINDOW_DAY", "SAMESTORY_GUARD"}  # this file's typos
    assert not unknown
    check_env({name: "x" for name in OTHER_ENV_VARS})


def test_unknown_engine_key_in_the_config_file(tmp_path, monkeypatch):
    cfg = tmp_path / "samestory.toml"
    cfg.write_text("[engine]\nngram_treshold = 0.4\n")
    with pytest.raises(ConfigError, match=r"unknown \[engine\] key 'ngram_treshold' .*did you mean ngram_threshold"):
        EngineConfig.load(cfg, env={})
    feed = str(ROOT / "tests" / "fixtures" / "store-v1.jsonl")
    msg = one_line_exit(["ingest", feed, "--db", ":memory:", "--model", "none", "--config", str(cfg)], monkeypatch)
    assert msg == f"samestory ingest: unknown [engine] key 'ngram_treshold' in {cfg} (did you mean ngram_threshold?)"


def test_values_are_typed(tmp_path):
    cfg = tmp_path / "samestory.toml"
    cfg.write_text('[engine]\nwindow_days = "3"\n\n[service]\nmax_batch = 2.5\n')
    with pytest.raises(ConfigError, match=r"^window_days in .* must be a number, got '3'$"):
        EngineConfig.load(cfg, env={})
    with pytest.raises(ConfigError, match=r"^max_batch in .* must be an integer, got 2.5$"):
        Settings.load(cfg, env={})
    with pytest.raises(ConfigError, match=r"^SAMESTORY_STATE_SNAPSHOT must be true or false, got 'maybe'$"):
        EngineConfig.load(env={"SAMESTORY_STATE_SNAPSHOT": "maybe"})  # was silently False
    assert EngineConfig.load(env={"SAMESTORY_STATE_SNAPSHOT": "off"}).operations.state_snapshot is False
    assert EngineConfig.load(env={"SAMESTORY_EMBEDDING_THRESHOLD": "none"}).copy.embedding_threshold is None
    assert EngineConfig.load(env={"SAMESTORY_WINDOW_DAYS": "3"}).copy.window_days == 3.0
    # A file with only a [service] table configures no engine key.
    only_service = tmp_path / "service.toml"
    only_service.write_text("[service]\nmax_batch = 5\n")
    assert EngineConfig.load(only_service, env={}) == EngineConfig()
    assert Settings.load(only_service, env={}).max_batch == 5


@pytest.mark.parametrize("argv, expected", [
    (["serve", "--db", "mysql://x", "--model", "none"],
     "samestory serve: unsupported store URL 'mysql://x': use ':memory:', 'sqlite:///PATH' or 'postgresql://...'"),
    (["ingest", "-", "--db", "mysql://x", "--model", "none"],
     "samestory ingest: unsupported store URL 'mysql://x': use ':memory:', 'sqlite:///PATH' or 'postgresql://...'"),
    (["stats", "--db", "mysql://x", "--model", "none"],
     "samestory stats: unsupported store URL 'mysql://x': use ':memory:', 'sqlite:///PATH' or 'postgresql://...'"),
    (["serve", "--model", "e5-smol"], "samestory serve: unknown model spec 'e5-smol'; valid: 'use', 'e5-small', "),
    (["serve", "--model", "st:/models/x"], "samestory serve: no calibrated embedding threshold for model 'st:/models/x'"),
    (["serve", "--device", "cuda"], "samestory serve: the bundled 'use' model runs on the CPU only: --device cuda "
                                    "takes 'e5-small'"),
])
def test_operator_errors_are_one_line(argv, expected, monkeypatch):
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(""))
    assert one_line_exit(argv, monkeypatch).startswith(expected)


def test_mistyped_variable_stops_every_command(monkeypatch):
    msg = one_line_exit(["compare", "a", "b", "--model", "none"], monkeypatch, {"SAMESTORY_GUARD": "false"})
    assert msg == "samestory compare: unknown environment variable SAMESTORY_GUARD (did you mean SAMESTORY_GUARDS?)"


def test_a_password_only_redis_url_is_masked_in_the_configuration_log():
    """Redis's password-only form (redis://:PASSWORD@host) was logged in clear: the mask needed a user."""
    pytest.importorskip("redis")
    public = EngineConfig.of(embedding_cache="redis://:s3cret@cache:6379/0").public()
    assert public["operations"]["embedding_cache"] == "redis://:***@cache:6379/0"
    assert Settings.load(env={"SAMESTORY_DB": "postgresql://:s3cret@db/news"}).public()["db"] == \
        "postgresql://:***@db/news"


def test_a_bad_embedding_cache_is_one_line(monkeypatch):
    """A URL that is not Redis, or Redis without its client installed (the default install), was
    a traceback from the engine's open; now it is one line naming the setting."""
    msg = one_line_exit(["compare", "a", "b", "--model", "none"], monkeypatch,
                        {"SAMESTORY_EMBEDDING_CACHE": "memcached://cache:11211"})
    assert msg == ("samestory compare: embedding_cache 'memcached://cache:11211' is not a redis://, rediss:// "
                   "or unix:// URL")
    monkeypatch.setitem(__import__("sys").modules, "redis", None)  # not installed
    msg = one_line_exit(["serve", "--model", "none", "--port", "1"], monkeypatch,
                        {"SAMESTORY_EMBEDDING_CACHE": "redis://:s3cret@cache:6379/0"})
    assert msg == ("samestory serve: embedding_cache 'redis://:***@cache:6379/0' needs the redis client: "
                   "pip install 'samestory[redis]'")


@pytest.mark.postgres
def test_missing_postgres_database_is_one_line(pg_url, monkeypatch):
    from tests.helpers.pg import PG_URL

    missing_db = PG_URL.rsplit("/", 1)[0] + "/no_such_database_i23"
    msg = one_line_exit(["serve", "--db", missing_db, "--model", "none"], monkeypatch)
    assert msg.startswith("samestory serve: cannot connect to PostgreSQL") and "does not exist" in msg
    from tests.helpers.pg import with_schema

    msg = one_line_exit(["serve", "--db", with_schema(PG_URL, "no_such_schema_i23"), "--model", "none"], monkeypatch)
    assert "no schema of the search_path (no_such_schema_i23) exists" in msg


def test_serve_logs_the_effective_configuration_once(tmp_path, monkeypatch, capsys):
    import uvicorn

    ran = []

    def serve(server, sockets=None):  # serve on the socket bound before the warm-up: record it, start
        ran.append(sockets[0].getsockname()[1])
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", serve)
    monkeypatch.setenv("SAMESTORY_WINDOW_DAYS", "3")
    monkeypatch.setenv("SAMESTORY_API_KEY", "s3cret")
    try:
        assert main(["serve", "--db", f"sqlite:///{tmp_path / 's.db'}", "--model", "none", "--port", "0"]) == 0
    finally:
        logging.getLogger().handlers.clear()
    lines = [json.loads(x) for x in capsys.readouterr().err.splitlines() if x.startswith("{")]
    config = [x for x in lines if x["msg"] == "configuration"]
    assert len(config) == 1 and ran
    assert config[0]["engine"]["copy"]["window_days"] == 3.0 and config[0]["settings"]["api_key"] == "***"
    assert "SAMESTORY_WINDOW_DAYS" in config[0]["sources"]["env"] and "s3cret" not in json.dumps(lines)


def test_samestory_config_names_the_engine_file_for_every_command(tmp_path, monkeypatch, capsys):
    """docs/config.md: the TOML file is `--config FILE` or `SAMESTORY_CONFIG`. The tenth tour:
    `SAMESTORY_CONFIG=e.toml samestory compare ...` ignored the file (only `serve` read the
    variable); the flag still wins over it."""
    cfg = tmp_path / "strict.toml"
    cfg.write_text("[engine]\nngram_threshold = 0.99\n")
    loose = tmp_path / "loose.toml"
    loose.write_text("[engine.copy]\nngram_threshold = 0.2\n")
    assert EngineConfig.load(env={"SAMESTORY_CONFIG": str(cfg)}).copy.ngram_threshold == 0.99
    assert EngineConfig.load(loose, env={"SAMESTORY_CONFIG": str(cfg)}).copy.ngram_threshold == 0.2
    assert EngineConfig.load(env={"SAMESTORY_CONFIG": ""}) == EngineConfig()
    a, b = "Harbour city council approves ferry expansion plan", "Harbour city council approves new ferry expansion"
    monkeypatch.setenv("SAMESTORY_CONFIG", str(cfg))
    assert main(["compare", a, b, "--model", "none", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["same"] is False
    assert main(["compare", a, b, "--model", "none", "--json", "--config", str(loose)]) == 0
    assert json.loads(capsys.readouterr().out)["stage"] == "ngram"
    monkeypatch.setenv("SAMESTORY_CONFIG", str(tmp_path / "missing.toml"))
    msg = one_line_exit(["compare", a, b, "--model", "none"], monkeypatch)
    assert msg.startswith("samestory compare: ") and "missing.toml" in msg, msg
