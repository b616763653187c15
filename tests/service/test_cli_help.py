"""`samestory ... --help` explains every command and argument (a newcomer reads nothing else)."""

from __future__ import annotations

import argparse

from service.cli import build_parser


def _commands(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every (sub-)command under ``parser``, with its full name."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                found.append((f"{path} {name}", command))
                found += _commands(command, f"{path} {name}")
    return found


def test_every_command_has_a_description_and_every_argument_a_help_line() -> None:
    # Bare before: `compare` a, b, --lang-a, --lang-b; `eval report --json`, `eval clusters FILE`, `eval sweep
    # --stage/--no-guards/--json`, `models train-verifier --out/--seed`; no description: `stats`, `eval`,
    # `eval report`, `eval sweep`, `models`, `models build`, `models list`, `corrections list`, `corrections export`.
    commands = _commands(build_parser(), "samestory")
    assert {"samestory compare", "samestory eval report", "samestory corrections export"} <= {n for n, _ in commands}
    undescribed = [name for name, command in commands if not command.description]
    bare = [f"{name} {a.dest}" for name, command in commands for a in command._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and not a.help]
    assert (undescribed, bare) == ([], [])


def test_no_help_shows_python_escapes_or_reprs() -> None:
    # Fifth tour: `samestory bench --help` said "30 %% copies" (argparse %-formats help lines, not
    # a description) and "(default ['embed-all', 'semhash', ...])", a Python list, where the flag
    # takes "embed-all,semhash,...".
    shown = {name: command.format_help() for name, command in _commands(build_parser(), "samestory")}
    assert [name for name, text in shown.items() if "%%" in text or "default ['" in text] == []


def test_serve_help_shows_its_defaults_as_the_other_commands_do() -> None:
    # Seventh tour: `serve --help` said only "(env SAMESTORY_DB)" and "(env SAMESTORY_MODEL)" where
    # `ingest --help` says "default sqlite:///var/samestory.db" and "default use"; `--log-level` had
    # no words, and `--config` named only the [engine] table though serve reads [service] from it.
    from service.api.settings import Settings

    serve = dict(_commands(build_parser(), "samestory"))["samestory serve"]
    helps = {a.dest: a.help or "" for a in serve._actions}
    assert f"default {Settings().db}" in helps["db"] and f"default {Settings().model}" in helps["model"]
    assert helps["log_level"][:1].isalpha() and "[service]" in helps["config"]
    assert serve.parse_args([]).db is None  # unset flags still leave the config file and env alone


def test_every_option_with_a_default_says_it_and_zero_means_none_where_help_says_so() -> None:
    # Tenth tour: `bench --help` gave no default for --repeats, --model or --probe (nor `eval report`
    # for --tokenizer and --orders, `models train-verifier` for --data), and `bench --requests 0`,
    # "(0: none ...)" in its help, was refused as "must be an integer >= 1".
    silent = []
    for name, command in _commands(build_parser(), "samestory"):
        for a in command._actions:
            if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction, argparse._StoreTrueAction)):
                continue
            if a.default in (None, False, [], argparse.SUPPRESS):
                continue
            if "default" not in (a.help or ""):
                silent.append(f"{name} {a.option_strings or a.dest}")
    assert silent == []
    bench = dict(_commands(build_parser(), "samestory"))["samestory bench"]
    assert bench.parse_args(["dedupe", "--requests", "0"]).requests == 0
