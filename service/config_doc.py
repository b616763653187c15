"""docs/config.md, generated from the config classes: ``python -m service.config_doc > docs/config.md``.

Every field of the sections of :class:`service.config.EngineConfig` (the ``[engine]`` table) and of
:class:`service.api.settings.Settings` (the ``[service]`` table) with its type, default,
environment variable and the comment above it in the source, which says what the value was
calibrated on and what moves when it moves. The comments are the single source: the page is
rebuilt from them, and tests/docs/test_config_doc.py fails when the committed page is stale.

>>> blocks = field_comments(Path(__file__).with_name("config.py"), "CopyConfig")
>>> "subject gate" in blocks["ngram_threshold"]
True
>>> blocks["minhash_num_perm"] == blocks["minhash_threshold"]   # one comment above a run of fields covers each
True
"""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
from pathlib import Path
from typing import Any

from service.api.settings import Settings
from service.config import (
    CALIBRATED_EMBEDDING_THRESHOLDS,
    CALIBRATED_SLOT_CONFIRM_THRESHOLDS,
    OTHER_ENV_VARS,
    SECTIONS,
)

_SECTION_TITLES = {"copy": "copy level", "story": "story level", "passage": "passages (`/v1/dedupe`)",
                   "operations": "operations"}

HERE = Path(__file__).resolve().parent

# The field comments cite the lab record by its old place; those pages moved to research/notes
# in issue 38, so the page says where the measurements are now (the source comments are left as
# they are, to keep other branches' edits to them mergeable).
_MOVED_NOTES = {f"docs/{name}.md": f"research/notes/{name}.md"
                for name in ("stories", "xling", "guards", "models", "scale", "api", "operations", "ui")}
_MOVED_NOTES["bench/RESULTS.md"] = "research/notes/bench-history.md"
_MOVED = re.compile("|".join(re.escape(k) for k in _MOVED_NOTES))


def field_comments(source: Path, class_name: str, *, runs: bool = True) -> dict[str, str]:
    """Each field of ``class_name`` in ``source`` mapped to the ``#`` comment block above it.

    A comment block covers the field right below it and, with ``runs``, the uncommented fields
    of the same family that follow it without a blank line (``minhash_threshold``'s covers
    ``minhash_lsh_threshold`` and ``minhash_num_perm``: the first word of the name is shared).
    A field with no comment of its own or of its family maps to "".
    """
    text = source.read_text("utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    out: dict[str, str] = {}
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        name = node.target.id
        row = node.lineno - 2  # the line above the field, 0-based
        # Skip up over earlier fields of the same family in the same run, to the comment above them.
        while (runs and row >= 0 and lines[row].strip() and not lines[row].strip().startswith("#")
               and lines[row].strip().split("_")[0] == name.split("_")[0]):
            row -= 1
        comment: list[str] = []
        while row >= 0 and lines[row].strip().startswith("#"):
            comment.insert(0, lines[row].strip().lstrip("#").strip())
            row -= 1
        out[name] = " ".join(c for c in comment if c)
    return out


# Engine fields whose source line has no comment (a comment added in service/config.py wins).
_ENGINE_NOTES = {
    "embed_body_lead": "The embedding stage reads the title and the body's lead, not the title alone; off, "
                       "headlines alone are embedded (a translation's body lead is what lifts its cosine).",
    "url_rules": "A TOML file of extra per-host URL rules (tracking parameters to drop), added to "
                 "service/rules/urls.toml.",
}

# Service fields whose source line has no comment: what each one limits, as the API enforces it
# (service/api). A comment added above the field in service/api/settings.py wins.
_SERVICE_NOTES = {
    "db": "The store: ':memory:', 'sqlite:///PATH' or 'postgresql://...' (`--db`). Every command that reads "
          "or writes a store takes it.",
    "device": "'cpu' or 'cuda', for the torch and ONNX back-ends; the bundled USE runs on the CPU.",
    "guards": "Off (`--no-guards`) only for evaluation: every merge a stage proposes then stands.",
    "max_batch": "Most articles one `POST /v1/articles` may carry; a larger batch is refused whole (413).",
    "max_body_bytes": "Largest request body, in bytes; a larger one is refused (413) before it is read.",
    "max_dedupe_texts": "Most texts or records one `POST /v1/dedupe` may carry.",
    "max_page": "Largest `limit` of the listing routes (stories, copy groups, corrections).",
    "host": "Address `samestory serve` listens on (`--host`); 0.0.0.0 in the container image.",
    "port": "Port `samestory serve` listens on (`--port`).",
    "log_format": "'json' (one JSON object per line on stderr) or 'text'.",
    "log_level": "'debug', 'info', 'warning' or 'error'.",
}


def _default(f: dataclasses.Field[Any]) -> str:
    if f.default is not dataclasses.MISSING:
        return repr(f.default)
    if f.default_factory is not dataclasses.MISSING:
        return repr(f.default_factory())
    return "(required)"


def _type(f: dataclasses.Field[Any]) -> str:
    return str(f.type).replace("typing.", "")


def _section(cls: type, source: Path, *, runs: bool, fallback: dict[str, str] | None = None,
             skip: tuple[str, ...] = (), prefix: str = "", table: str | None = None) -> list[str]:
    """One heading per comment block, naming the run of fields it covers, each with its type,
    default and environment variable. ``prefix``: what the field's flat name adds to it
    (``story_``); ``table``: the nested TOML table the field may also be set in."""
    comments = field_comments(source, cls.__name__, runs=runs)
    headed: list[tuple[str, list[dataclasses.Field[Any]]]] = []  # (note, the fields it covers)
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        note = comments.get(f.name, "") or (fallback or {}).get(f.name, "")
        if headed and note and headed[-1][0] == note:
            headed[-1][1].append(f)
        else:
            headed.append((note, [f]))
    out: list[str] = []
    for note, fields in headed:
        out += ["### " + ", ".join(f"`{prefix}{f.name}`" for f in fields), ""]
        out += [f"- `{prefix}{f.name}`: `{_type(f)}`, default `{_default(f)}`, environment "
                f"`SAMESTORY_{(prefix + f.name).upper()}`" + (f", or `{f.name}` in `[{table}]`" if table else "")
                for f in fields]
        note = _MOVED.sub(lambda m: _MOVED_NOTES[m.group(0)], note)
        out += ["", note or "No note in the source.", ""]
    return out


def render() -> str:
    """The whole of docs/config.md."""
    calibrated = ", ".join(f"`{k}` {v}" for k, v in CALIBRATED_EMBEDDING_THRESHOLDS.items())
    confirm = ", ".join(f"`{k}` {v}" for k, v in CALIBRATED_SLOT_CONFIRM_THRESHOLDS.items())
    lines = [
        "# Configuration",
        "",
        "<!-- Generated by `python -m service.config_doc > docs/config.md` from service/config.py and",
        "service/api/settings.py; edit the field comments there, not this page. -->",
        "",
        "Every setting, its default, and what moves when it moves, taken from the comment above the",
        "field in the source. Later sources win: the default, then a TOML file (`--config FILE` or",
        "`SAMESTORY_CONFIG`; an `[engine]` and a `[service]` table), then `SAMESTORY_<FIELD>`",
        "environment variables, then command-line flags. A key or variable that names no setting,",
        "or a value of the wrong type, stops the command with one line naming it and the closest name.",
        "",
        "```toml",
        "# samestory.toml",
        "[engine]",
        "story_window_days = 2.0",
        "[service]",
        "max_batch = 500",
        "```",
        "",
        "Measurements quoted below are the lab record's ([research/notes](../research/notes/README.md));",
        "re-run the command named beside a figure before relying on it.",
        "",
        "## Engine (`[engine]`, `service.config.EngineConfig`)",
        "",
        "The engine's settings come in four sections (`EngineConfig.copy`, `.story`, `.passage`,",
        "`.operations`). Each has one flat name, used by its environment variable and as a key of the",
        "`[engine]` table; a TOML file may also nest a section (`[engine.story]` with `threshold = 0.7`).",
        "",
        f"Calibrated embedding thresholds per model (`embedding_threshold = None`): {calibrated}.",
        f"Calibrated slot-confirmation thresholds per model (`slot_confirm_threshold = None`): {confirm}.",
        "",
        *[line for name, (cls, prefix) in SECTIONS.items() for line in [
            f"## Engine: {_SECTION_TITLES[name]} (`[engine.{name}]`, `service.config.{cls.__name__}`)", "",
            *_section(cls, HERE / "config.py", runs=True, fallback=_ENGINE_NOTES, prefix=prefix,
                      table=f"engine.{name}")]],
        "## Service (`[service]`, `service.api.settings.Settings`)",
        "",
        "Read by `samestory serve` (and `make run`); `db` and `model` by every command that opens a store.",
        "",
        *_section(Settings, HERE / "api" / "settings.py", runs=False, fallback=_SERVICE_NOTES, skip=("config",)),
        "## Other variables",
        "",
        *[f"- `{name}`: {what}" for name, what in OTHER_ENV_VARS.items()],
    ]
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
