"""The Docker image definition (Docker cannot build here, so its instructions are checked) and the CLI."""

from __future__ import annotations

import json

from service.cli import build_parser
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text("utf-8").replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), " ".join(rest.split())))
    return out


def test_dockerfile_has_the_expected_instructions():
    ins = instructions()
    assert ins[0] == ("FROM", "python:3.11-slim")
    runs = [a for i, a in ins if i == "RUN"]
    assert any('pip install --no-cache-dir "/tmp/src[postgres,redis]"' in r for r in runs)
    user = [a for i, a in ins if i == "USER"]
    assert user and user[-1] not in ("root", "0")
    assert ("VOLUME", "/data") in ins
    cmd = json.loads(next(a for i, a in ins if i == "CMD"))
    assert cmd == ["samestory", "serve", "--db", "sqlite:////data/samestory.db", "--host", "0.0.0.0", "--port", "8000"]
    health = next(a for i, a in ins if i == "HEALTHCHECK")
    assert "urllib.request" in health and "/healthz" in health
    # Every instruction is one Docker knows; a typo would only show at build time otherwise.
    known = {"FROM", "ENV", "COPY", "RUN", "USER", "WORKDIR", "VOLUME", "EXPOSE", "HEALTHCHECK", "CMD", "ARG", "LABEL"}
    assert {i for i, _ in ins} <= known


def test_dockerignore_admits_the_sources_only():
    lines = [x for x in (ROOT / ".dockerignore").read_text("utf-8").splitlines() if x and not x.startswith("#")]
    assert lines[0] == "*"
    assert {"!pyproject.toml", "!service/", "!models/", "!index/"} <= set(lines)
    assert not any(x.startswith("!.venv") or x.startswith("!var") for x in lines)


def test_serve_is_registered_and_reads_flags():
    args = build_parser().parse_args(["serve", "--db", "sqlite:///x.db", "--model", "none", "--port", "9", "--no-guards"])
    assert args.func.__name__ == "cmd_serve"
    assert (args.db, args.model, args.port, args.no_guards, args.host) == ("sqlite:///x.db", "none", 9, True, None)
