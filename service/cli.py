"""``samestory`` command line: ingest, compare, dedupe, copy-groups, stories, serve, demo, stats, eval, models, bench."""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import logging
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO, cast

from tqdm import tqdm

from models.cli import positive_int  # one definition for every command group (models/cli.py says why)

if TYPE_CHECKING:
    from pydantic import BaseModel

    from service.engine import Deduper
    from service.settle import CopySettleReport, SettleReport
    from service.store.base import Store
    from service.types import Article, IngestResult

DEFAULT_DB = os.environ.get("SAMESTORY_DB", "sqlite:///var/samestory.db")
DEFAULT_MODEL = os.environ.get("SAMESTORY_MODEL", "use")

# Sub-command groups that live with their own package; each exposes ``register(subparsers)``.
_PLUGINS = ("eval.cli", "models.cli", "bench.cli", "service.api.cli", "service.corrections_cli", "service.documents_cli",
            "service.batch.cli")


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: the summaries' counts.

    >>> _count(1, "copy group"), _count(3, "line")
    ('1 copy group', '3 lines')
    """
    return f"{n} {noun}{'s' * (n != 1)}"


def non_negative_float(value: str) -> float:
    """``type=`` of an amount that may be 0 but not negative (GPUs per actor).

    >>> non_negative_float("0.5")
    0.5
    >>> non_negative_float("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number >= 0, got '-1'
    """
    try:
        x = float(value)
    except ValueError:
        x = -1.0
    if not x >= 0:  # also NaN
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {value!r}")
    return x


def check_output(path: Path, flag: str, *, folder: bool = False) -> None:
    """Refuse, before any work, an output ``path`` that cannot be written (``ValueError`` naming
    ``flag``): a folder where a file goes or the reverse, a file's missing folder (a ``folder``
    is created with its parents), or no permission to write there.

    >>> check_output(Path("/"), "--dropped")
    Traceback (most recent call last):
    ...
    ValueError: --dropped /: a folder, not a file
    """
    if folder:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{flag} {path}: a file, not a folder")
        where = path.absolute()
        while not where.exists():
            where = where.parent
        if not where.is_dir():
            raise ValueError(f"{flag} {path}: {where} is a file, not a folder")
    else:
        if path.is_dir():
            raise ValueError(f"{flag} {path}: a folder, not a file")
        where = path.absolute().parent
        if not where.is_dir():
            raise ValueError(f"{flag} {path}: no folder {where}")
        if path.exists() and not os.access(path, os.W_OK):
            raise ValueError(f"{flag} {path}: cannot write it (permission denied)")
    if not os.access(where, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {path}: cannot write in {where} (permission denied)")


def check_model(model: str | None, device: str | None) -> None:
    """An unknown model spec, or ``--device cuda`` for the CPU-only bundled USE, refused before any
    work as a :class:`~service.config.ConfigError` (``main`` prints it as one line)."""
    from models.registry import check_spec
    from service.config import ConfigError

    if model is None or model.strip().lower() in ("", "none"):
        return
    try:
        check_spec(model, device=device or "cpu")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


DEVICE_HELP = "cuda for 'e5-small', 'e5-small-onnx', 'st:PATH' or 'onnx:DIR'; 'use' runs on the CPU only"


def _add_engine_args(p: argparse.ArgumentParser, *, db: bool = True) -> None:
    if db:
        p.add_argument("--db", default=DEFAULT_DB,
                       help="store: ':memory:', 'sqlite:///PATH' or 'postgresql://...' (env SAMESTORY_DB; default %(default)s)")
    p.add_argument("--model", default=DEFAULT_MODEL,
                   help="embedder: 'use' (bundled USE-multilingual v3), 'e5-small', 'st:PATH', 'onnx:DIR', or 'none' "
                        "for the cheap passes only (env SAMESTORY_MODEL; default %(default)s)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help=f"{DEVICE_HELP} (default cpu)")
    p.add_argument("--config", type=Path, help="TOML file with an [engine] table (thresholds, windows; env SAMESTORY_CONFIG)")
    p.add_argument("--no-guards", action="store_true",
                   help="disable the guards (for evaluation only: merges more; env SAMESTORY_GUARDS=false)")


def _add_listing(sub: Any, plural: str, func: Callable[[argparse.Namespace], int], what: str, *,
                 help: str, description: str, command: str | None = None) -> None:
    """A read-only listing command (``copy-groups``, ``stories``) and its options; see :func:`_show_listing`.
    ``command``: the command's name when it is not ``plural``."""
    p = sub.add_parser(command or plural, help=help, description=description)
    p.add_argument("--db", default=DEFAULT_DB, help="store URL (env SAMESTORY_DB; default %(default)s)")
    p.add_argument("--id", type=int, default=None, help=f"show this {what}")
    p.add_argument("--limit", type=int, default=20, help=f"{plural} per page (default %(default)s)")
    p.add_argument("--offset", type=int, default=0, help=f"{plural} to skip (default %(default)s)")
    p.add_argument("--json", action="store_true",
                   help=f"print the same JSON as GET /v1/{plural.replace(' ', '-')}[/{{id}}]")
    p.set_defaults(func=func)


def open_engine(args: argparse.Namespace, db: str | None = None) -> Deduper:
    from service.config import EngineConfig
    from service.engine import Deduper, guards_on

    model = None if args.model in ("none", "") else args.model
    check_model(model, args.device)  # before the config: an unknown model is not an uncalibrated one
    config = EngineConfig.load(args.config)
    # The effective thresholds, once per command (shown with -v).
    logging.getLogger("samestory").info("configuration: %s",
                                        json.dumps(config.for_model(model).public(), ensure_ascii=False))
    return Deduper.open(db or args.db, model=model, config=config, guards=guards_on(guards_wanted(args)), device=args.device)


def open_existing_engine(args: argparse.Namespace, command: str = "") -> Deduper:
    """``open_engine`` on a store that must exist already (opening an absent one would create it
    empty): a missing store is a one-line exit, prefixed by ``command`` when given."""
    from service.store import require_existing

    try:
        require_existing(args.db)
    except FileNotFoundError as exc:
        raise SystemExit(f"{command}: {exc}" if command else str(exc)) from exc
    return open_engine(args)


def guards_wanted(args: argparse.Namespace) -> bool:
    """Guards on unless ``--no-guards`` or ``SAMESTORY_GUARDS=false`` (read as ``serve`` reads it)."""
    from service.api.settings import env_setting

    return bool(env_setting("guards")) and not args.no_guards


def _read_jsonl(stream: BinaryIO | TextIO, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    from service.batch.io import jsonl_value, utf8_line

    for lineno, raw in enumerate(stream, 1):
        try:
            # a text stream's line is already decoded
            line = raw.removeprefix("\ufeff") if isinstance(raw, str) else utf8_line(cast(bytes, raw), name, lineno)  # a line that is not UTF-8 is named by its number
            if not line.strip():
                continue
            obj = jsonl_value(line, name, lineno, parquet=False)
        except ValueError as exc:
            raise SystemExit(str(exc)) from exc
        yield lineno, obj


def shorten(text: str, width: int = 60) -> str:
    r"""``text`` on one line, cut to ``width`` characters with an ellipsis.

    >>> shorten("Fed raises\nrates"), shorten("x" * 70, 10)
    ('Fed raises rates', 'xxxxxxxxx…')
    """
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _one_line(text: str | None) -> str:
    """A title on one line, whole (an item sent as ``text`` may hold line breaks)."""
    return " ".join((text or "").split())


#: Characters of a title in the copy-groups and stories tables (``--id`` and ``--json`` show it whole).
LISTING_TITLE_WIDTH = 100


def decided_by(r: IngestResult) -> str:
    """The stage that joined an item to what was stored, or "none" for a new item (no stage matched;
    its decision's ``stage`` is only the last stage the cascade ran)."""
    from service.types import matched_stage

    return matched_stage(r.status, r.decision.stage)


def ingest_line(article: Article, r: IngestResult) -> str:
    """One ingested item as a line: status, document, copy group, story, the stage that matched
    ("none" for a new item), the title (shortened), then what it duplicates or which guards kept it
    apart from a candidate."""
    if r.duplicate_of:
        why = f" (duplicate of {r.duplicate_of})"
    elif r.decision.blocked_by:
        why = f" (kept apart by: {', '.join(r.decision.blocked_by)})"
    else:
        why = ""
    story = "-" if r.story_id is None else r.story_id
    return (f"{r.status:<11} doc {r.document_id:<6} copy group {r.copy_group_id:<6} story {story:<6} "
            f"stage {decided_by(r):<9} {shorten(article.headline)}{why}")


def counted(count: int, word: str, words: str) -> str:
    """A count with its noun in the singular for one, else the plural.

    >>> counted(1, "copy group", "copy groups"), counted(0, "new story", "new stories")
    ('1 copy group', '0 new stories')
    """
    return f"{count} {word if count == 1 else words}"


def ingest_summary(by_status: Counter[str], copy_groups: int, stories: int) -> str:
    """The line ``samestory ingest`` ends with on stderr: what the run did and what the store holds.

    >>> ingest_summary(Counter(), 0, 0)
    'ingested 0 items: 0 new, 0 duplicates, 0 re-observed, 0 new versions; the store holds 0 copy groups in 0 stories'
    """
    n = counted
    return (f"ingested {n(by_status.total(), 'item', 'items')}: {by_status['new']} new, "
            f"{n(by_status['duplicate'], 'duplicate', 'duplicates')}, {by_status['reobserved']} re-observed, "
            f"{n(by_status['new_version'], 'new version', 'new versions')}; "
            f"the store holds {n(copy_groups, 'copy group', 'copy groups')} in {n(stories, 'story', 'stories')}")


def cmd_ingest(args: argparse.Namespace) -> int:
    from service.types import Article, ArticleError, duplicate_id_warning

    stream: BinaryIO | TextIO
    if args.file == "-":
        # the bytes under stdin; a text stream without them (stdin replaced, as tests and embedding
        # hosts do) is read as text
        stream = getattr(sys.stdin, "buffer", sys.stdin)
    else:
        try:
            # bytes: _read_jsonl decodes each line (a byte-order mark on line 1 is no JSON error)
            stream = open(args.file, "rb")  # noqa: SIM115
        except OSError as exc:
            # the reason alone, as dedupe says it ("[Errno 2] No such file or directory: 'x'" repeated the name)
            raise SystemExit(f"cannot read {args.file}: {exc.strerror or exc}") from exc
    try:
        articles, linenos = [], []
        for lineno, obj in _read_jsonl(stream, args.file):
            try:
                articles.append(Article.from_dict(obj))
                linenos.append(lineno)
            except (ArticleError, TypeError) as exc:
                raise SystemExit(f"{args.file}:{lineno}: {exc}") from exc
    finally:
        if args.file != "-":
            stream.close()
    repeated = duplicate_id_warning(articles)
    if repeated:  # once, before the work; --quiet hides the per-item lines, not this
        print(repeated, file=sys.stderr)
    engine = open_engine(args)
    try:
        # Every URL checked before anything is stored, named by its line as the checks above name it.
        for lineno, article in zip(linenos, articles, strict=True):
            try:
                engine.copy_level.doc_key(article)
            except ArticleError as exc:
                raise SystemExit(f"{args.file}:{lineno}: {exc}") from exc
        show_bar = args.progress or (not args.quiet and not args.json and sys.stderr.isatty())
        bar = tqdm(total=len(articles), disable=not show_bar, unit="item", desc="ingest", file=sys.stderr)
        by_status: Counter[str] = Counter()  # for the closing sentence: counts, not every result kept
        for start in range(0, len(articles), args.chunk_size):
            # Each chunk is one committed transaction; its results are printed (and flushed) only
            # after the commit, so every printed result survives a crash of this process.
            chunk = articles[start : start + args.chunk_size]
            for article, r in zip(chunk, engine.ingest_many(chunk, chunk_size=args.chunk_size, warn_repeated_ids=False), strict=True):
                by_status[r.status] += 1
                if args.json:
                    print(json.dumps(r.to_dict(), ensure_ascii=False), flush=True)
                elif not args.quiet:
                    print(ingest_line(article, r), flush=True)
            bar.update(min(args.chunk_size, len(articles) - start))
        bar.close()
        if not args.json:
            # A sentence, not the engine's counters: `-v` logs those (the service's `/metrics`
            # counts the same items by stage, status and veto).
            stats = engine.stats()
            print(ingest_summary(by_status, stats["copy_groups"], stats["stories"]), file=sys.stderr)
            logging.getLogger("samestory").info("counters: %s", json.dumps(stats["counters"], ensure_ascii=False))
    finally:
        engine.close()
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from service.types import Article, ArticleError

    # The texts first, naming the one at fault (as POST /v1/compare does): an empty one was
    # refused only after the model had loaded, as "an article needs ..." without saying which.
    sides = []
    for name, text, lang in (("a", args.a, args.lang_a), ("b", args.b, args.lang_b)):
        try:
            sides.append(Article(title=text, lang=lang))
        except ArticleError as exc:
            raise SystemExit(f"samestory compare: {name}: {exc}") from exc
    a, b = sides
    engine = open_engine(args, db=":memory:")
    d = engine.compare(a, b, all_scores=True)
    if args.json:
        print(json.dumps(d.to_dict(), ensure_ascii=False))
    else:
        print(f"{'SAME' if d.same else 'DIFFERENT'} (stage {d.stage}, score {d.score if d.score is None else round(d.score, 3)})")
        for r in d.reasons:
            print(f"  - {r}")
    return 0


def _record_hint(rec: Any, field: str) -> str:
    """What a JSONL line that lacks the text field has instead: a record whose text is in ``body``
    was only told "expected ... 'text'", not that --field names it."""
    from service.types import json_kind

    if not isinstance(rec, dict):
        return f", got {json_kind(rec)}"
    if field in rec:
        return f", got {json_kind(rec[field])}"
    keys = ", ".join(repr(k) for k in list(rec)[:8]) or "none"
    return f" (its fields: {keys}; --field names the text field)"


def _read_dedupe_input(path: str, field: str | None) -> tuple[list[Any], list[int], bool, int]:
    """(records, their line positions, is_jsonl, lines read). JSONL when ``field`` is given or the
    file ends in .jsonl: one JSON object a line; otherwise one text a line. Blank lines are skipped
    but keep their position, so every index printed is the input's own line number (0-based), and
    the count of lines read lets the summary say how many were skipped.

    A text over ``MAX_BODY_CHARS`` is refused, naming its line: ``POST /v1/dedupe`` refuses it
    too, and the command line is no place for what the service would not take.
    """
    from service.types import MAX_BODY_CHARS, lang_tag_problem

    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")  # a leading byte-order mark is no text
        except OSError as exc:
            raise SystemExit(f"cannot read {path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            from service.batch.io import not_utf8

            raise SystemExit(not_utf8(path, exc)) from exc
    jsonl = field is not None or path.endswith(".jsonl")
    field = field or "text"
    records: list[Any] = []
    positions: list[int] = []
    lines = text.split("\n")
    if lines[-1] == "":  # what follows the last newline is no line
        lines.pop()
    for pos, line in enumerate(lines):
        if not line.strip():
            continue
        if jsonl:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}:{pos + 1}: not JSON ({exc.msg})") from exc
            if not isinstance(rec, dict) or not isinstance(rec.get(field), str):
                raise SystemExit(f"{path}:{pos + 1}: expected a JSON object with a string field {field!r}"
                                 f"{_record_hint(rec, field)}")
            lang = rec.get("lang")  # as texts_of reads it: null or blank is detected from the text
            problem = None if lang is None or (isinstance(lang, str) and not lang.strip()) else lang_tag_problem(lang)
            if problem:
                raise SystemExit(f"{path}:{pos + 1}: field 'lang' {problem}")
            chars, what = len(rec[field]), f"field {field!r}"
            records.append(rec)
        else:
            chars, what = len(line), "line"
            records.append(line)
        if chars > MAX_BODY_CHARS:
            raise SystemExit(f"{path}:{pos + 1}: {what} is {chars} characters; the limit is {MAX_BODY_CHARS} "
                             "(as POST /v1/dedupe)")
        positions.append(pos)
    return records, positions, jsonl, len(lines)


def cmd_dedupe(args: argparse.Namespace) -> int:
    if args.dropped is not None:
        try:
            check_output(args.dropped, "--dropped")
        except ValueError as exc:
            raise SystemExit(f"samestory dedupe: {exc}") from None
    records, positions, jsonl, lines = _read_dedupe_input(args.file, args.field)
    engine = open_engine(args, db=":memory:")
    try:
        # A bar on a terminal (stderr), as ingest draws one: a long input is otherwise silent for minutes.
        show_bar = args.progress or (not args.quiet and sys.stderr.isatty())
        res = engine.dedupe(records, text_field=args.field or "text", kind=args.kind, threshold=args.threshold,
                            progress=show_bar)
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    decisions = res.decisions
    dup = list(res.duplicate_of)
    dropped = [{"index": positions[i], "duplicate_of": positions[j], "stage": d.stage,
                "score": None if d.score is None else round(float(d.score), 6),
                "reasons": d.reasons, "record": records[i]}
               for i, (j, d) in enumerate(zip(dup, decisions, strict=True)) if j is not None]
    if args.dropped is not None:
        with Path(args.dropped).open("w", encoding="utf-8") as fh:
            for d in dropped:
                fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    if args.json:
        groups = [[positions[i] for i in c] for c in res.clusters]
        # "clusters": the deprecated alias of "copy_groups" (as in POST /v1/dedupe), removed in the next release.
        print(json.dumps({"keep": [positions[i] for i in res.keep], "copy_groups": groups, "clusters": groups,
                          "dropped": dropped,
                          "decisions": [{"index": positions[i], **d.to_dict(),
                                         "matched_id": None if d.matched_id is None or not d.same
                                         else positions[d.matched_id]} for i, d in enumerate(decisions)]},
                         ensure_ascii=False))
    else:
        for i, j in enumerate(dup):
            if j is None:
                print(json.dumps(records[i], ensure_ascii=False) if jsonl else records[i])
    if not args.quiet:
        # lines, not inputs: the indices printed are line numbers, blank lines counted
        blank = lines - len(records)
        print(f"{_count(lines, 'line')}{f', {blank} blank skipped' if blank else ''}: "
              f"kept {len(records) - len(dropped)}, dropped {len(dropped)}", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Ingest the bundled sample feed and print its copy groups (and the story each is in)."""
    from importlib import resources

    from service.types import Article

    engine = open_engine(args)
    held = engine.store.counts().get("documents", 0)
    if held:  # the feed again would print every item `reobserved`; a real store would get the sample
        from service.config import redact_url

        engine.close()
        raise SystemExit(f"samestory demo: {redact_url(args.db)} already holds {held} documents; the demo needs an "
                         "empty store (omit --db for one in memory)")
    lines = resources.files("service").joinpath("data/sample_feed.jsonl").read_text("utf-8").splitlines()
    articles = [Article.from_dict(json.loads(x)) for x in lines if x.strip()]
    results = engine.ingest_many(articles)
    groups: dict[int, list[tuple[Any, Any]]] = {}
    for a, r in zip(articles, results, strict=True):
        groups.setdefault(r.copy_group_id, []).append((a, r))
    stories = {r.story_id for r in results}
    print(f"{len(articles)} items -> {len(groups)} copy groups in {len(stories)} stories\n")
    for cid, members in groups.items():
        rep = members[-1][1].representative_id
        print(f"copy group {cid} in story {members[-1][1].story_id} (representative document {rep})")
        starred = False
        for a, r in members:
            mark = "*" if r.document_id == rep and not starred else " "  # once: a reobservation is the same document
            starred = starred or mark == "*"
            print(f"  {mark} [{r.status:<11} {decided_by(r):<9}] {a.title}  <{a.source or a.url}>")
            if r.decision.blocked_by:
                print(f"      kept apart by: {', '.join(r.decision.blocked_by)}")
    engine.close()
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    engine = open_existing_engine(args)  # a read: never create a store
    print(json.dumps({**engine.stats(), "warmup": engine.restart.warmup_report}, ensure_ascii=False, indent=2))
    engine.close()
    return 0


def cmd_settle(args: argparse.Namespace) -> int:
    """Re-decide a store's open copy groups and stories in publication order and print what moved."""
    if args.show < 0:
        raise SystemExit(f"samestory settle: --show must be >= 0, got {args.show}")
    if args.hours is not None and not args.hours > 0:
        raise SystemExit(f"samestory settle: --hours must be > 0, got {args.hours}")

    engine = open_existing_engine(args, "samestory settle")
    try:
        report = engine.settle(hours=args.hours, copies=not args.keep_copy_groups,
                               progress=args.progress or sys.stderr.isatty())
    except ValueError as exc:
        raise SystemExit(f"samestory settle: {exc}") from None
    finally:
        engine.close()
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
        return 0
    if report.skipped is not None:
        print(f"not settled: {report.skipped}")
        return 0
    c = report.copies
    if c is not None:
        print(settle_copies_line(c))
        _print_moves([f"  document {mv['document_id']}: copy group {mv['from_copy_group']} -> {mv['to_copy_group']} "
                      f"({mv['stage']} {mv['score'] if mv['score'] is not None else '-'})" for mv in c.moves], args.show)
    print(settle_stories_line(report))
    _print_moves([f"  copy group {mv['copy_group_id']}: story {mv['from_story']} -> {mv['to_story']} "
                  f"(score {mv['score']:.3f})" for mv in report.moves], args.show)
    return 0


def settle_copies_line(c: CopySettleReport) -> str:
    """``samestory settle``'s line for the copy level, every count with its noun in the right number.

    >>> from service.settle import CopySettleReport
    >>> settle_copies_line(CopySettleReport(items=1, groups_before=1, groups_after=1, new_groups=1))
    'copy groups: replayed 1 item of 1 copy group: 1 -> 1 group, 0 items moved, 0 anchors changed, 1 new group, 0 items embedded, 0.0 s'
    """
    held = f", {counted(c.held, 'item', 'items')} of groups reaching outside the window held as they are" if c.held else ""
    return (f"copy groups: replayed {counted(c.items, 'item', 'items')} of "
            f"{counted(c.groups_before, 'copy group', 'copy groups')}{held}: {c.groups_before} -> "
            f"{counted(c.groups_after, 'group', 'groups')}, {counted(c.moved, 'item', 'items')} moved, "
            f"{counted(c.anchors, 'anchor', 'anchors')} changed, {counted(c.new_groups, 'new group', 'new groups')}, "
            f"{counted(c.embedded, 'item', 'items')} embedded, {c.seconds:.1f} s")


def settle_stories_line(report: SettleReport) -> str:
    """``samestory settle``'s line for the story level (its seconds without the copy level's).

    >>> from service.settle import SettleReport
    >>> settle_stories_line(SettleReport(items=2, groups=2, stories_before=2, stories_after=2, moved=1, new_stories=1))
    'stories: settled 2 items in 2 copy groups (0 without a publication time, replayed after the timed ones by copy group): 2 -> 2 stories, 1 copy group moved, 1 new story, 0 items embedded, 0.0 s'
    """
    c = report.copies
    held = f", {counted(report.held, 'older item', 'older items')} held as context" if report.held else ""
    if report.corrected:
        corrections = counted(report.corrected, "editor's correction", "editors' corrections")
        held += f", {corrections} honoured (their groups held)"
    return (f"stories: settled {counted(report.items, 'item', 'items')} in "
            f"{counted(report.groups, 'copy group', 'copy groups')} ({report.untimed} without a "
            f"publication time, replayed after the timed ones by copy group{held}): {report.stories_before} -> "
            f"{counted(report.stories_after, 'story', 'stories')}, {counted(report.moved, 'copy group', 'copy groups')} "
            f"moved, {counted(report.new_stories, 'new story', 'new stories')}, "
            f"{counted(report.embedded, 'item', 'items')} embedded, "
            f"{report.seconds - (c.seconds if c is not None else 0.0):.1f} s")


def _print_moves(lines: list[str], show: int) -> None:
    """A settling's moves, one line each, the first ``show`` of them and how many more."""
    for line in lines[:show]:
        print(line)
    if len(lines) > show:
        print(f"  ... and {len(lines) - show} more (--show N, or --json for all)")


def _open_for_reading(args: argparse.Namespace) -> Store:
    """The store of a read-only listing command (``copy-groups``, ``stories``), its paging checked first."""
    if args.limit < 1 or args.offset < 0:
        raise SystemExit("--limit must be >= 1 and --offset >= 0")
    return open_store_or_exit(args.db)


def open_store_or_exit(db: str) -> Store:
    """``open_store(db, must_exist=True)`` (a read: a mistyped path is an error, not a new store),
    or the reason as a one-line exit. The URL's password is masked: the listings printed it whole
    ("cannot open store postgresql://app:s3cret@..."), though the store's own message masks it."""
    from service.config import redact_url
    from service.store import StoreOpenError, open_store

    try:
        return open_store(db, must_exist=True)
    except (StoreOpenError, FileNotFoundError) as exc:  # its message names the store (password masked)
        raise SystemExit(str(exc)) from exc
    except Exception as exc:  # a missing file or anything else: say which store
        raise SystemExit(f"cannot open store {redact_url(db)}: {exc}") from exc


# A listing's table columns: (key in a page row, heading, width); the title always comes last.
Columns = tuple[tuple[str, str, int], ...]


def _show_listing(args: argparse.Namespace, what: str, view_of: Callable[[Store, int], BaseModel | None],
                  page_of: Callable[[Store, int, int], BaseModel], print_view: Callable[[dict[str, Any]], None],
                  rows_key: str, columns: Columns) -> int:
    """One item (``--id``) or one page of a read-only listing, as JSON or as text.

    ``copy-groups`` and ``stories`` differ only in their views, how one item is printed and the
    columns of the page table; the store handling, the missing-id message, ``--json``, the
    table and the paging hint are written here once.
    """
    store = _open_for_reading(args)
    try:
        if args.id is not None:
            item = view_of(store, args.id)
            if item is None:
                from service.config import redact_url

                raise SystemExit(f"{what} {args.id} does not exist in {redact_url(args.db)}")
            # The view as the route answers with it (JSON types), which the printers read too.
            view = item.model_dump(mode="json")
            if args.json:
                print(json.dumps(view, ensure_ascii=False, default=str))
            else:
                print_view(view)
            return 0
        page = page_of(store, args.limit, args.offset).model_dump(mode="json")
        if args.json:
            print(json.dumps(page, ensure_ascii=False, default=str))
            return 0
        print(" ".join(f"{heading:>{width}}" for _, heading, width in columns) + "  title")
        for row in page[rows_key]:
            # One line a row: a multi-line title (an item sent as `text`) broke the table; --id shows it whole.
            print(" ".join(f"{'-' if row[key] is None else row[key]:>{width}}" for key, _, width in columns)
                  + f"  {shorten(row['title'] or '', LISTING_TITLE_WIDTH)}")
        if page["next_offset"] is not None:
            print(f"(more: --offset {page['next_offset']})")
        return 0
    finally:
        store.close()


def _print_copy_group(view: dict[str, Any]) -> None:
    rep = view["representative_id"]
    print(f"copy group {view['id']}: " + ("no representative" if rep is None else f"representative document {rep}")
          + f" ({view['representative_reason'] or 'no reason recorded'})")
    for m in view["members"]:
        mark = "*" if m["document_id"] == view["representative_id"] else " "
        decision = m["decision"] if isinstance(m["decision"], dict) else {}
        # A member that matched nothing founded the copy group; its stage is where the search ended.
        # One an editor moved matched nothing either, but its stage says who put it here ("editor").
        founded = not decision.get("same", True) and m["stage"] != "editor"
        how = "founded" if founded else (m["stage"] or "-")
        score = "" if m["score"] is None or how == "founded" else f" {m['score']:.3f}"
        print(f"  {mark} doc {m['document_id']:<6} [{how:<9}{score}] {_one_line(m['title'])}"
              f"  <{m['source'] or m['url'] or '-'}>")
        reasons = decision.get("reasons", [])
        for r in reasons:
            print(f"        - {r}")
    for e in view["events"]:
        old, new = (e[k] if e[k] is not None else "none" for k in ("old_representative", "new_representative"))
        print(f"  representative {old} -> {new}: {e['reason']}")


def cmd_copy_groups(args: argparse.Namespace) -> int:
    """List a store's copy groups, or show one with its members and the reasons (reads the store only)."""
    from service.views import copy_group_page, copy_group_view

    return _show_listing(args, "copy group", copy_group_view, copy_group_page, _print_copy_group, "copy_groups",
                         (("id", "copy group", 10), ("size", "size", 5), ("representative_id", "rep", 6)))


def cmd_clusters(args: argparse.Namespace) -> int:
    """``samestory clusters``: the deprecated alias of ``samestory copy-groups``, for one release."""
    print("warning: 'samestory clusters' is deprecated; use 'samestory copy-groups'", file=sys.stderr)
    return cmd_copy_groups(args)


def _print_story(view: dict[str, Any]) -> None:
    if not view["copy_groups"]:  # as the /ui page says it: no span, languages or title to print
        print(f"story {view['id']}: no members left (deleted, split or merged away)")
        return
    print(f"story {view['id']}: {_count(len(view['copy_groups']), 'copy group')}, {', '.join(view['languages'])}, "
          f"{view['start']} .. {view['end']}")
    for g in view["copy_groups"]:
        print(f"  copy group {g['id']} ({_count(g['size'], 'item')}; {', '.join(g['languages'])}; "
              f"{', '.join(g['outlets']) or '-'}): {_one_line(g['title'])}")
        print(f"      representative {g['representative_id']}: {g['representative_reason'] or '-'}")
        print(f"      {g['story_reason']}")


def cmd_stories(args: argparse.Namespace) -> int:
    """List a store's stories, or show one with its copy groups (reads the store only)."""
    from service.views import story_page, story_view

    return _show_listing(args, "story", story_view, story_page, _print_story,
                         "stories", (("id", "story", 7), ("copy_groups", "groups", 6), ("items", "items", 5)))


def build_parser() -> argparse.ArgumentParser:
    from service.types import MAX_BODY_CHARS  # dedupe's limit on a text, the API's

    parser = argparse.ArgumentParser(
        prog="samestory",
        description="Cross-lingual near-duplicate news detection. Each incoming item passes URL "
                    "canonicalisation, exact hashes, a subject-gated 3-gram pass, MinHash LSH and, only if it "
                    "survives those, a multilingual embedding search; guards veto merges of different reports. Copies of "
                    "one report form a copy group; copy groups of one event form a story.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("ingest", help="ingest a JSONL file of articles into a store",
                       description="Ingest articles (one JSON object per line: title, body, url, source, channel, "
                                   "published_at, lang, id) and print one result per line.")
    p.add_argument("file", help="JSONL file, or - for stdin")
    _add_engine_args(p)
    p.add_argument("--json", action="store_true", help="print one IngestResult JSON object per input line")
    p.add_argument("--quiet", action="store_true", help="print nothing per item")
    p.add_argument("--progress", action="store_true", help="force a progress bar on stderr")
    p.add_argument("--chunk-size", type=positive_int, default=256, help="items per transaction (default %(default)s)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("compare", help="are two texts the same report (one copy group)? (stateless)",
                       description="Run two texts through the copy level's cascade and guards and explain the "
                                   "verdict: SAME is the same report again (one copy group), not merely the same "
                                   "event (a story).")
    p.add_argument("a", help="the first text (a headline)")
    p.add_argument("b", help="the second text")
    p.add_argument("--lang-a", help="language tag of a, e.g. ko or en (default: detected)")
    p.add_argument("--lang-b", help="language tag of b (default: detected)")
    p.add_argument("--json", action="store_true", help="print the Decision as JSON")
    _add_engine_args(p, db=False)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("dedupe", help="drop near-duplicate chunks, lines or records (stateless, e.g. RAG chunks)",
                       description="Drop the inputs that copy an earlier kept one, and say why. A text file is one "
                       "item a line; a .jsonl file (or any file with --field) is one JSON record a line, printed "
                       "back whole when kept. Indices are the input's own line numbers (0-based, blank lines "
                       "counted). --kind passage (default) is for RAG chunks and article bodies: exact and "
                       "normalised copies, same-language copies by verified 5-gram Jaccard with every sentence "
                       "and number present, translations by sentence alignment; a chunk with a sentence or "
                       "number the kept ones lack is never dropped. --kind headline uses the headline cascade. "
                       f"A text over {MAX_BODY_CHARS:,} characters is refused, as by POST /v1/dedupe.")
    p.add_argument("file", help="text file (one item a line), JSONL file (one record a line), or - for stdin")
    p.add_argument("--field", default=None, help="the records' text field (implies JSONL; default 'text' for .jsonl)")
    p.add_argument("--kind", choices=["passage", "headline"], default="passage",
                   help="passage (default): chunks and bodies; headline: the headline cascade")
    p.add_argument("--threshold", type=float, help="embedding-stage threshold for this call")
    p.add_argument("--dropped", type=Path, default=None,
                   help="write the dropped records here, one JSON line each: index, duplicate_of, stage, score, "
                   "reasons, record")
    p.add_argument("--json", action="store_true", help="one JSON object: keep, copy_groups, dropped, decisions")
    p.add_argument("--quiet", action="store_true",
                   help="no 'kept N, dropped M' line and no progress bar on stderr")
    p.add_argument("--progress", action="store_true",
                   help="force a progress bar on stderr (default: drawn when stderr is a terminal)")
    _add_engine_args(p, db=False)
    p.set_defaults(func=cmd_dedupe)

    p = sub.add_parser("demo", help="ingest the bundled sample feed and print its stories",
                       description="Ingest the bundled sample feed (service/data/sample_feed.jsonl) into an "
                                   "empty store and print its copy groups, the story each is in and how each "
                                   "item joined.")
    # Not SAMESTORY_DB's store by default: the sample feed must not land in a real one.
    p.add_argument("--db", default=":memory:", help="an empty store to keep the demo in (default %(default)s)")
    _add_engine_args(p, db=False)
    p.set_defaults(func=cmd_demo)

    copy_groups_help = dict(
        help="list a store's copy groups (same report again), or show one with its members and why",
        description="Read a store (no model, no warm-up): the most recently updated copy groups, or with --id "
                    "one copy group's members, how each joined (stage, score, reasons) and why its "
                    "representative is the representative.")
    _add_listing(sub, "copy groups", cmd_copy_groups, "copy group", command="copy-groups", **copy_groups_help)
    _add_listing(sub, "copy groups", cmd_clusters, "copy group", command="clusters",
                 help="deprecated alias of copy-groups (removed in the next release)",
                 description="Deprecated alias of 'samestory copy-groups', removed in the next release. "
                             + copy_groups_help["description"])

    _add_listing(sub, "stories", cmd_stories, "story",
                 help="list a store's stories (same event), or show one with its copy groups",
                 description="Read a store (no model, no warm-up): the most recently updated stories, or "
                             "with --id one story's copy groups (same report again), each with its "
                             "representative and why, its languages and outlets, and why it is in the story.")

    p = sub.add_parser("settle", help="re-decide a store's open copy groups and stories in publication order",
                       description="Replay the decisions of every live item of the open window (the last "
                                   "max(warmup_days, story_window_days)) by publication time, then content hash, "
                                   "so that neither level depends on the order the items arrived in. First the copy "
                                   "groups: the timed items go through the cascade and guards again, each group's "
                                   "anchor becomes its earliest report, and a moved item's membership says "
                                   "'copy: settled in publication order, moved from copy group N' (items without a "
                                   "publication time follow the timed ones in content-hash order; --keep-copy-groups "
                                   "keeps every group as it streamed). Then the stories: a copy group whose story changes is moved, with the "
                                   "reason 'story: settled ...'; items without a publication time follow the timed "
                                   "ones, copy group by copy group in content-hash order. Items without a vector "
                                   "are embedded (their vectors stored). Editors' corrections are honoured: their "
                                   "splits, merges and 'not the same' pairs hold, the copy groups they name held "
                                   "as they are, and the rest is re-decided around them. Run it on one worker at a time; other workers read the settled store "
                                   "at their next start.")
    _add_engine_args(p)
    p.add_argument("--json", action="store_true", help="print the report as one JSON object, every move included")
    p.add_argument("--hours", type=float, default=None,
                   help="replay only the copy groups published within the last HOURS before the newest item; "
                        "older groups stay where they are, as context (default: the whole open window)")
    p.add_argument("--keep-copy-groups", action="store_true",
                   help="settle the stories only, over the copy groups as they streamed")
    p.add_argument("--show", type=int, default=20, help="moves to list per level (default %(default)s)")
    p.add_argument("--progress", action="store_true", help="force a progress bar on stderr")
    p.set_defaults(func=cmd_settle)

    p = sub.add_parser("stats", help="store and index counts of a store",
                       description="Open a store as serve does (its candidate indices warmed up, the model loaded "
                                   "unless --model none) and print as JSON its row counts, the indexed documents and "
                                   "copy groups, and the warm-up report.")
    _add_engine_args(p)
    p.set_defaults(func=cmd_stats)

    for name in _PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that command group is not installed in this build
            raise
        module.register(sub)
    return parser


# The collector's youngest generation is collected every GC_YOUNG new container objects (Python's
# default 700). An engine holds a few hundred thousand long-lived objects (the guards' per-text
# caches, the stories' evidence), and with the default a 10,000-item ingest ran 1,038 young, 94
# middle and 8 full collections, 1.77-1.87 s of its 38-40 s CPU (4.6 %); with 10,000, 67 / 6 / 1
# and 0.59-0.60 s, every decision and result the same (digest of the whole results; research/notes/
# throughput.md, "the collector"). Higher: fewer collections still, and unreachable cycles wait
# longer to be freed (up to GC_YOUNG new objects' worth; not measured); lower: back to the default's cost. Process-wide, so only the
# command line sets it (`serve`, `ingest`, `batch`, `bench`, ...); a program that imports the
# engine keeps its own collector settings.
GC_YOUNG = 10_000


def main(argv: list[str] | None = None) -> int:
    from service.api.settings import check_env
    from service.config import ConfigError
    from service.store import StoreOpenError

    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s %(message)s", stream=sys.stderr)
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    # Operator errors (a mistyped variable or config key, a bad value, a store that cannot be
    # opened) are one line naming the problem, not a traceback; -vv still shows the traceback.
    try:
        check_env()
        return int(args.func(args) or 0)
    except (ConfigError, StoreOpenError) as exc:
        if args.verbose >= 2:
            raise
        raise SystemExit(f"samestory {args.command}: {exc}") from None
    except KeyboardInterrupt:
        # Ctrl-C is how a long run is stopped: one line, not the traceback of wherever it was
        # (the ninth tour's `batch` ended in a guard's regex); 130 is 128 + SIGINT, as a shell says.
        if args.verbose >= 2:
            raise
        print(f"samestory {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader closed the pipe (`samestory stories --id 3 | head`): stop as cat does, with no
        # traceback. Python flushes stdout again at exit and would fail there too: point it at devnull.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE: the status a shell reports for cat stopped the same way


if __name__ == "__main__":
    sys.exit(main())
