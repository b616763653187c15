"""Every command in the README and docs/concepts.md runs, and prints what the page says it prints.

The fenced blocks are read from the pages themselves:

- ```python blocks are doctest sessions (``>>>``), run with doctest's checker (``...`` matches anything);
- ```console blocks hold ``$ command`` lines, each followed by the output it should print (none:
  only success is checked). ``samestory ...`` runs in this process through ``service.cli.main``;
  ``curl ... localhost:8000/...`` is sent to the app through FastAPI's TestClient; ``make X`` is
  dry-run (``make -n X``: ``make run`` serves until stopped, ``make test`` is this suite).

Each page's blocks run in order in one temporary folder (so ``var/samestory.db`` is that page's
store, and ``service/data`` is this repository's), the way a reader would type them. A command that
names what this checkout does not have yet (a CLI ``invalid choice``, a route answering 404) skips
its block with the reason, so the block turns on by itself when the name lands.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
PAGES = [ROOT / "README.md", ROOT / "docs" / "concepts.md"]
_FENCE = re.compile(r"^```(\w*)\s*$")
_CHECK = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    text: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The fenced ``python`` and ``console`` blocks of ``page``, in order.

    >>> [(b.lang, b.line) for b in blocks_of(ROOT / "docs" / "concepts.md")][-1][0]
    'python'
    """
    out: list[Block] = []
    lang, start, body = None, 0, []  # type: tuple[str | None, int, list[str]]
    for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
        m = _FENCE.match(line)
        if m and lang is None:
            lang, start, body = m.group(1), number, []
        elif line.startswith("```") and lang is not None:
            if lang in ("python", "console"):
                out.append(Block(page, start, lang, "\n".join(body) + "\n"))
            lang = None
        elif lang is not None:
            body.append(line)
    return out


def console_commands(text: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` pairs of a console block.

    >>> console_commands("$ samestory x \\\\\\n  --json\\nOUT\\n$ make run\\n")
    [('samestory x --json', 'OUT\\n'), ('make run', '')]
    """
    out: list[tuple[str, list[str]]] = []
    continued = False
    for line in text.splitlines():
        if continued:
            out[-1] = (out[-1][0] + " " + line.strip().rstrip("\\").strip(), out[-1][1])
            continued = line.rstrip().endswith("\\")
        elif line.startswith("$ "):
            out.append((line[2:].rstrip().rstrip("\\").strip(), []))
            continued = line.rstrip().endswith("\\")
        elif out:
            out[-1][1].append(line)
    return [(cmd, "".join(f"{o}\n" for o in lines if o.strip())) for cmd, lines in out]


class NotHereYet(Exception):
    """The page names a command or route this checkout does not have (yet)."""


class Reader:
    """Runs one page's commands in its own folder, as a reader would."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._client: Any = None

    def close(self) -> None:
        if self._client is not None:
            self._client.__exit__(None, None, None)

    def run(self, command: str) -> str:
        argv = shlex.split(command, comments=True)
        if argv[0] == "samestory":
            return self._samestory(argv[1:])
        if argv[0] == "curl":
            return self._curl(argv[1:])
        if argv[0] == "make":
            if shutil.which("make") is None:
                pytest.skip("make is not installed")
            done = subprocess.run(["make", "-n", "-C", str(ROOT), *argv[1:]], capture_output=True, text=True)
            assert done.returncode == 0, f"`{command}` has no such make target: {done.stderr}"
            return ""
        raise AssertionError(f"the doc-example test does not know how to run `{command}`")

    def _samestory(self, args: list[str]) -> str:
        from service.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code: Any = main(args)
            except SystemExit as exc:
                code = exc.code
        if code not in (0, None) and "invalid choice" in err.getvalue():
            raise NotHereYet(f"`samestory {args[0]}` is not a command in this checkout yet")
        assert code in (0, None), f"samestory {' '.join(args)} exited {code}: {err.getvalue()}{code}"
        return out.getvalue()

    def _curl(self, args: list[str]) -> str:
        method, data, url = "GET", None, None
        headers: dict[str, str] = {}
        words = iter(args)
        for word in words:
            if word == "-X":
                method = next(words)
            elif word in ("-d", "--data"):
                data, method = next(words), "POST" if method == "GET" else method
            elif word == "-H":
                key, _, value = next(words).partition(":")
                headers[key.strip()] = value.strip()
            elif not word.startswith("-"):
                url = word
        assert url is not None and "localhost:8000" in url, args
        path = url.split("localhost:8000", 1)[1]
        response = self.client.request(method, path, content=data, headers=headers)
        if response.status_code == 404 and path.startswith("/v1/copy-groups"):
            raise NotHereYet(f"{path} is not a route in this checkout yet")
        assert response.status_code < 400, (path, response.status_code, response.text)
        return response.text + "\n"

    @property
    def client(self) -> Any:
        if self._client is None:
            from fastapi.testclient import TestClient

            from service.api import Settings, create_app

            # The page's store as `make run` serves it: var/samestory.db, the store the page's CLI
            # commands (and its Python) use too, with the bundled model and default guards. (A store
            # of its own, var/http.db, hid that a reader who ran the CLI first got other ids.)
            app = create_app(Settings(db=f"sqlite:///{self.folder}/var/samestory.db"))
            self._client = TestClient(app)
            self._client.__enter__()
        return self._client


@pytest.fixture(scope="module")
def readers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Path, Reader]]:
    made: dict[Path, Reader] = {}
    for page in PAGES:
        folder = tmp_path_factory.mktemp(page.stem)
        (folder / "var").mkdir()
        (folder / "service").mkdir()  # the bundled sample feed at the path the README names
        (folder / "service" / "data").symlink_to(ROOT / "service" / "data")
        made[page] = Reader(folder)
    yield made
    for reader in made.values():
        reader.close()


def _run_python(block: Block) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.text, {}, block.name, str(block.page), block.line)
    assert test.examples, f"{block.name}: a python block on these pages is a >>> session"
    runner = doctest.DocTestRunner(optionflags=_CHECK)
    report = io.StringIO()
    result = runner.run(test, out=report.write)
    assert result.failed == 0, report.getvalue()


def _run_console(block: Block, reader: Reader) -> None:
    checker = doctest.OutputChecker()
    for command, expected in console_commands(block.text):
        got = reader.run(command)
        if expected:
            assert checker.check_output(expected, got, _CHECK), (
                f"{block.name}: `{command}` printed\n{got}\nthe page says\n{expected}")


ALL = [b for page in PAGES for b in blocks_of(page)]


@pytest.mark.parametrize("block", ALL, ids=lambda b: b.name)
def test_doc_block_runs(block: Block, readers: dict[Path, Reader], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(readers[block.page].folder)
    monkeypatch.delenv("SAMESTORY_DB", raising=False)
    try:
        if block.lang == "python":
            _run_python(block)
        else:
            _run_console(block, readers[block.page])
    except NotHereYet as exc:
        pytest.skip(str(exc))


def test_the_pages_have_examples_to_run() -> None:
    langs = [b.lang for b in ALL]
    assert langs.count("python") >= 3 and langs.count("console") >= 3, langs
    commands = [c for b in ALL if b.lang == "console" for c, _ in console_commands(b.text)]
    assert any(c.startswith("curl") for c in commands) and any(c.startswith("samestory") for c in commands)


def test_json_examples_on_the_pages_parse() -> None:
    """The request bodies the pages show are JSON a client can send."""
    for block in ALL:
        for command, _ in console_commands(block.text) if block.lang == "console" else []:
            argv = shlex.split(command)
            if argv[0] == "curl" and "-d" in argv:
                json.loads(argv[argv.index("-d") + 1])
