"""The picture in docs/architecture.md ("The levels and who calls them") stays true.

The arrows are read out of the drawing itself: every arrowhead (``▼ ▲ > <``) is traced back along
its lines (``─ │`` and the corners and joints ``┌ ┐ └ ┘ ├ ┤ ┬ ┴``; ``┼`` is two lines crossing,
not a joint) to the labels the lines leave from. A label names a file or folder: under
``service/`` unless it names ``eval/``. Each arrow ``A ──> B`` must be an import of B in A that A
uses (module level, inside a function, or for typing: the placements are handed the cascade and
the candidate state they call), and the directions the page promises are checked outright.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
DOC = ROOT / "docs" / "architecture.md"
HEADING = "## The levels and who calls them"

# The sides (Up, Down, Left, Right) each line character joins; "┼" is a crossing.
_JOINS = {"─": "LR", "│": "UD", "┌": "RD", "┐": "LD", "└": "UR", "┘": "UL", "├": "UDR", "┤": "UDL",
          "┬": "LRD", "┴": "LRU", "┼": "UDLR"}
# Each arrowhead: the side its line comes in from, and the side it points to.
_HEADS = {"▼": ("U", "D"), "▲": ("D", "U"), ">": ("L", "R"), "<": ("R", "L")}
_STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
_OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}
_NAME = re.compile(r"[\w.-]+(?:/[\w.-]+)*(?:\.py|/)")


class Picture:
    """A box-and-arrow drawing on a grid of characters."""

    def __init__(self, text: str) -> None:
        self.rows = text.splitlines()

    def at(self, r: int, c: int) -> str:
        return self.rows[r][c] if 0 <= r < len(self.rows) and 0 <= c < len(self.rows[r]) else " "

    def text(self, r: int, c: int) -> bool:
        ch = self.at(r, c)
        return ch != " " and ch not in _JOINS and ch not in _HEADS

    def label(self, r: int, c: int, side: str) -> str | None:
        """The name in the label beside cell (r, c) on ``side`` (a horizontal arrow may leave one
        space before it); None if no label is there. A label is a run of text whose words are one
        space apart."""
        dr, dc = _STEP[side]
        r, c = r + dr, c + dc
        if side in "LR" and self.at(r, c) == " ":
            c += dc
        if not self.text(r, c):
            return None
        start, end = c, c
        while self.text(r, start - 1) or (self.at(r, start - 1) == " " and self.text(r, start - 2)):
            start -= 1
        while self.text(r, end + 1) or (self.at(r, end + 1) == " " and self.text(r, end + 2)):
            end += 1
        words = self.rows[r][start : end + 1]
        name = _NAME.search(words)
        if name is None:
            raise ValueError(f"line {r + 1}: an arrow touches {words!r}, which names no file")
        return name.group(0)

    def arrows(self) -> set[tuple[str, str]]:
        """``(source, target)`` for every arrowhead and every label its lines leave from.

        >>> sorted(Picture("a.py   b.py\\n └──┬──┘\\n    ▼\\n   c/ ──> d.py").arrows())
        [('a.py', 'c/'), ('b.py', 'c/'), ('c/', 'd.py')]
        """
        out: set[tuple[str, str]] = set()
        for r, row in enumerate(self.rows):
            for c, ch in enumerate(row):
                if ch in _HEADS:
                    comes_from, points = _HEADS[ch]
                    target = self.label(r, c, points)
                    if target is None:
                        raise ValueError(f"line {r + 1}, column {c + 1}: {ch} points at no label")
                    out |= {(source, target) for source in self.sources(r, c, comes_from)}
        return out

    def sources(self, r: int, c: int, side: str) -> set[str]:
        """The labels the lines leaving cell (r, c) by ``side`` lead back to."""
        found: set[str] = set()
        seen: set[tuple[int, int, str]] = set()
        todo = [(r, c, side)]
        while todo:
            r0, c0, out = todo.pop()
            dr, dc = _STEP[out]
            r1, c1, into = r0 + dr, c0 + dc, _OPPOSITE[out]
            ch = self.at(r1, c1)
            if ch in _JOINS and into in _JOINS[ch]:
                if (r1, c1, into) not in seen:
                    seen.add((r1, c1, into))
                    onward = _OPPOSITE[into] if ch == "┼" else _JOINS[ch].replace(into, "")
                    todo.extend((r1, c1, o) for o in onward)
            elif ch in _HEADS and _HEADS[ch][0] == into:
                continue  # another branch of the same line, ending at its own arrowhead
            else:
                name = self.label(r0, c0, out)
                if name is None:
                    raise ValueError(f"line {r0 + 1}, column {c0 + 1}: a line ends at nothing")
                found.add(name)
        if not found:
            raise ValueError(f"line {r + 1}, column {c + 1}: an arrowhead no line leads to")
        return found


def picture(doc: str) -> str:
    """The fenced block under the section's heading."""
    section = doc.split(HEADING, 1)[1]
    block = re.search(r"^```text\n(.*?)^```$", section, re.S | re.M)
    assert block is not None, f"no ```text block under {HEADING!r}"
    return block.group(1)


def resolve(name: str) -> Path:
    """The file or folder a label names: under service/ unless it names eval/ (exactly one exists)."""
    found = [p for p in (ROOT / "service" / name, ROOT / name) if p.exists()]
    assert len(found) == 1, f"the picture's {name!r} names {len(found)} files or folders"
    return found[0]


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def imports_used(path: Path, target: str) -> tuple[bool, bool]:
    """Whether the Python file ``path`` imports module ``target`` (or one under it), anywhere,
    and whether a name that import binds is used elsewhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: set[str] = set()

    def under(module: str) -> bool:
        return module == target or module.startswith(target + ".")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names if under(a.name)}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            bound |= {a.asname or a.name for a in node.names
                      if under(node.module) or under(f"{node.module}.{a.name}")}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return bool(bound), bool(bound & used)


def calls(source: Path, target: Path) -> bool:
    """``source`` (a file, or any file in a folder) imports ``target``'s module and uses it."""
    files = sorted(source.rglob("*.py")) if source.is_dir() else [source]
    return any(imports_used(f, module_of(target)) == (True, True) for f in files)


def _read() -> tuple[set[tuple[str, str]], str | None]:
    """The picture's arrows, or why they could not be read (reported by a test, not at collection)."""
    try:
        return Picture(picture(DOC.read_text(encoding="utf-8"))).arrows(), None
    except ValueError as error:
        return set(), str(error)


ARROWS, DRAWING_ERROR = _read()


def test_the_picture_draws_the_levels_and_their_callers() -> None:
    assert DRAWING_ERROR is None, f"the picture in docs/architecture.md, {DRAWING_ERROR}"
    names = {name for arrow in ARROWS for name in arrow}
    assert len(ARROWS) >= 20  # a tracing slip would find none
    for must in ("api/", "cli.py", "batch/", "eval/engine.py", "engine.py", "copy_level.py", "story_level.py",
                 "settling.py", "stateless.py", "placement.py", "recorder.py", "store/", "cascade.py",
                 "state.py", "stories.py"):
        assert must in names, f"the picture no longer shows {must}"


@pytest.mark.parametrize(("source", "target"), sorted(ARROWS), ids=[f"{s}->{t}" for s, t in sorted(ARROWS)])
def test_each_arrow_is_an_import_that_is_used(source: str, target: str) -> None:
    assert calls(resolve(source), resolve(target)), f"the picture says {source} calls {target}; it does not"


def test_the_placements_write_nothing() -> None:
    """The placements decide; they import neither the recorder nor a store (nor the context,
    which holds the store)."""
    placement = ROOT / "service" / "placement.py"
    for writer in ("service.recorder", "service.store", "service.context"):
        assert imports_used(placement, writer)[0] is False, f"service/placement.py imports {writer}"


def test_the_configuration_imports_nothing_of_the_service() -> None:
    assert imports_used(ROOT / "service" / "config.py", "service")[0] is False


def test_the_tracer_joins_lines_and_crosses_them() -> None:
    drawn = Picture("a.py ──┐\n       │\nc.py ──┼──> d/\n       ▼\n      e.py").arrows()
    assert drawn == {("a.py", "e.py"), ("c.py", "d/")}  # a crossing is not a joint


def test_the_tracer_refuses_a_line_that_leads_nowhere() -> None:
    with pytest.raises(ValueError, match="ends at nothing"):
        Picture("a.py\n\n  ──> b.py").arrows()
    with pytest.raises(ValueError, match="names no file"):
        Picture("a note ──> b.py").arrows()


def test_an_unused_import_is_not_a_call(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("from service.recorder import Recorder\nfrom service import store\nx = store\n", encoding="utf-8")
    assert imports_used(src, "service.recorder") == (True, False)
    assert imports_used(src, "service.store") == (True, True)
