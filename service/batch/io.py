"""Reading a corpus (JSONL, Parquet) into records and writing the batch result as Parquet.

Records in, records out: every input field is kept, and the batch adds its own columns
(:data:`RESULT_COLUMNS`). Input is validated up front, so a bad line fails the run with one
line naming the file and line (or row) before anything is computed.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.jsonl").write_text('{"title": "Fed raises rates", "x": 1}\\n\\n{"text": "연준 금리 인상"}\\n')
>>> [(r.where, r.article.title, r.fields) for r in read_records([d / "a.jsonl"])]
[('a.jsonl:1', 'Fed raises rates', {'title': 'Fed raises rates', 'x': 1}), ('a.jsonl:3', '연준 금리 인상', {'text': '연준 금리 인상'})]
>>> _ = (d / "b.jsonl").write_text('{"body": "no title"}\\n{"url": "https://a.example/1"}\\n')
>>> read_records([d / "b.jsonl"])
Traceback (most recent call last):
...
ValueError: b.jsonl:2: an article needs a non-empty title or body (its fields: 'url'; --field names the title field)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.types import Article, ArticleError, json_kind

# What the batch adds to each record (docs/scale.md describes them).
RESULT_COLUMNS = ("row", "copy_group_id", "story_id", "duplicate_of", "status", "stage", "score",
                  "document_id", "duplicate_of_document", "blocked_by", "reasons")


@dataclass(frozen=True)
class Record:
    """One input record: where it came from, the article the engine sees, and every field it had."""

    where: str  # "file:line" (JSONL) or "file:row N" (Parquet), for error messages
    article: Article
    fields: dict[str, Any]


def _article(fields: dict[str, Any], where: str, field: str | None = None) -> Article:
    if not isinstance(fields, dict):
        raise ValueError(f"{where}: a record must be a JSON object, got {type(fields).__name__}")
    # The rule of every way in (Article.from_dict): title or body; other fields kept, not read.
    # A Parquet table with both title and text columns has None in one of them: absent.
    if hasattr(fields.get("published_at"), "isoformat"):  # a Parquet timestamp
        fields = {**fields, "published_at": fields["published_at"].isoformat()}
    if field is not None and fields.get(field) is not None:
        # --field: the record's title is in its own field (an archive's `headline`, `content`)
        if not isinstance(fields[field], str):
            raise ValueError(f"{where}: {field} must be a string, got {json_kind(fields[field])}")
        fields = {**{k: v for k, v in fields.items() if k not in (field, "text")}, "title": fields[field]}
    try:
        return Article.from_dict(fields)
    except (ArticleError, TypeError) as exc:
        hint = ""
        if "needs a non-empty title or body" in str(exc):
            # The fourteenth tour: an archive whose titles are in `headline` was told only this, on line 1.
            keys = ", ".join(repr(k) for k in list(fields)[:8]) or "none"
            hint = (f" (its fields: {keys}; --field names the title field)" if field is None
                    else f" (no {field!r}; its fields: {keys})")
        raise ValueError(f"{where}: {exc}{hint}") from exc


def csv_hint(name: str, *, parquet: bool = True) -> str:
    """What to add to a JSON error in a file named ``*.csv`` / ``*.tsv``: a CSV corpus read as
    JSON Lines said only "not valid JSON" on its header line. ``parquet``: the reader takes Parquet too.

    >>> csv_hint("feed.csv"), csv_hint("feed.jsonl"), csv_hint("feed.TSV", parquet=False)
    ('; CSV is not read: convert it to JSON Lines (one JSON object a line) or Parquet', '', '; CSV is not read: convert it to JSON Lines (one JSON object a line)')
    """
    if Path(name).suffix.lower() in (".csv", ".tsv"):
        return "; CSV is not read: convert it to JSON Lines (one JSON object a line)" + (" or Parquet" if parquet else "")
    return ""


def not_utf8(path: str | Path, exc: UnicodeDecodeError) -> str:
    """The one line a file that is not UTF-8 fails with; a gzip-compressed one (an archive's
    ``feed.jsonl.gz``) says so, where it said only "invalid start byte at byte 1".

    >>> import tempfile, gzip, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "feed.jsonl.gz"
    >>> _ = p.write_bytes(gzip.compress(b'{"title": "t"}'))
    >>> try:
    ...     p.read_text(encoding="utf-8")
    ... except UnicodeDecodeError as exc:
    ...     print(not_utf8(p, exc).replace(str(p.parent), "DIR"))
    DIR/feed.jsonl.gz: not UTF-8 (invalid start byte at byte 1): it is gzip-compressed; decompress it first (gunzip)
    """
    gzipped = False
    if path != "-":
        try:
            with open(path, "rb") as f:
                gzipped = f.read(2) == b"\x1f\x8b"
        except OSError:
            pass
    return (f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})"
            + (": it is gzip-compressed; decompress it first (gunzip)" if gzipped else ""))


def utf8_line(raw: bytes, path: str | Path, lineno: int, name: str | None = None) -> str:
    """Line ``lineno`` of the file ``path`` (its bytes ``raw``) as text; a ValueError that names the
    line and column where it is not UTF-8. The file was decoded as a stream, and the error said
    "not UTF-8 (invalid continuation byte at byte 5734)": no line, and a byte counted from the
    start of the reader's chunk, not of the file (the fourteenth tour's one Latin-1 line of 20,005).
    Line 1 may start with a byte-order mark (a Windows export); a gzip file says so. ``name``: the
    file as the caller's other errors name it (default ``path``).

    >>> utf8_line('{"title": "caf\\u00e9"}'.encode("latin-1"), "dir/feed.jsonl", 7, "feed.jsonl")
    Traceback (most recent call last):
    ...
    ValueError: feed.jsonl:7: not UTF-8 (invalid continuation byte at column 15)
    >>> utf8_line(b"\\xef\\xbb\\xbf{}", "feed.jsonl", 1)
    '{}'
    """
    try:
        return raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        if lineno == 1 and raw[:2] == b"\x1f\x8b":
            raise ValueError(not_utf8(path, exc)) from exc
        column = len(raw[: exc.start].decode("utf-8-sig" if lineno == 1 else "utf-8")) + 1
        raise ValueError(f"{name or path}:{lineno}: not UTF-8 ({exc.reason} at column {column})") from exc


def jsonl_value(line: str, name: str, lineno: int, *, parquet: bool = True) -> Any:
    """The JSON value of line ``lineno`` of the file ``name``; a ValueError that names the line
    and column where it is not JSON (``samestory ingest`` and ``batch`` read lines alike).

    >>> jsonl_value('{"title": "cut', "feed.jsonl", 3)
    Traceback (most recent call last):
    ...
    ValueError: feed.jsonl:3: not valid JSON: Unterminated string starting at (column 11)
    """
    try:
        # Without its newline: a line cut off inside a string (a writer killed mid-line) said
        # "Invalid control character" at a column past the text's end.
        return json.loads(line.rstrip("\r\n"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}:{lineno}: not valid JSON: {exc.msg} (column {exc.colno})"
                         f"{csv_hint(name, parquet=parquet)}") from exc


def _jsonl(path: Path, field: str | None = None) -> Iterator[Record]:
    # Bytes, decoded a line at a time (utf8_line): a line that is not UTF-8 is named by its number.
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, 1):
            line = utf8_line(raw, path, lineno, path.name)
            if not line.strip():
                continue
            where = f"{path.name}:{lineno}"
            obj = jsonl_value(line, path.name, lineno)
            yield Record(where, _article(obj, where, field), obj)


def require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ModuleNotFoundError as exc:
        raise ValueError("Parquet needs pyarrow: pip install 'samestory[batch]'") from exc


def _parquet(path: Path, field: str | None = None) -> Iterator[Record]:
    require_pyarrow()
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for a damaged or non-Parquet file
        raise ValueError(f"{path}: not a readable Parquet file ({exc})") from exc
    for i, row in enumerate(table.to_pylist()):
        where = f"{path.name}:row {i}"
        yield Record(where, _article(row, where, field), row)


def read_records(paths: Sequence[str | Path], field: str | None = None) -> list[Record]:
    """All records of ``paths`` in order (files in the order given, lines in file order): the
    arrival order the decide step replays. ``.parquet``/``.pq`` files are Parquet, the rest JSONL.
    ``field``: the records' title field, where it is not ``title`` (or ``text``); a record without
    it is read by the usual rule (title, text or body). The record's fields are kept as they are."""
    if not paths:
        raise ValueError("no input files given")
    out: list[Record] = []
    for p in map(Path, paths):
        if p.is_dir():  # it was told "no such file", which sends the user looking for a typo
            raise ValueError(f"{p}: a folder, not a file (name the JSONL or Parquet files in it)")
        if not p.is_file():
            raise ValueError(f"{p}: no such file")
        reader = _parquet if p.suffix.lower() in (".parquet", ".pq") else _jsonl
        out.extend(reader(p, field))
    if not out:
        raise ValueError(f"no records in {', '.join(map(str, paths))}")
    return out


def untimed_warning(records: Sequence[Record], now: float, window_days: float) -> str | None:
    """The one warning ``samestory batch`` gives when records without ``published_at`` meet dated
    records outside the candidate window of ``now``, or None. An untimed record is timed at ingest
    time, as live ingestion times it (docs/config.md), which in an archive is years after the
    dated records: it is compared only with records published within ``window_days`` of now, so
    an exact copy of an old dated record starts a copy group of its own, and the untimed records
    of several years make stories of one instant. A corpus with no dates at all is left alone
    (its records are all 'now', together).

    >>> from service.types import Article
    >>> recs = [Record("a.jsonl:1", Article(title="t", published_at="2024-01-01T00:00:00Z"), {}),
    ...         Record("a.jsonl:2", Article(title="t"), {}), Record("a.jsonl:3", Article(title="u"), {})]
    >>> untimed_warning(recs, now=1.8e9, window_days=7.0)
    'warning: 2 records have no published_at (the first: a.jsonl:2); they are timed now (ingest time), so they are never compared with the 1 record published more than 7 days (window_days) before or after now'
    >>> untimed_warning(recs[1:], now=1.8e9, window_days=7.0) is None  # no dates at all
    True
    """
    untimed = [r for r in records if r.article.published_at is None]
    span = window_days * 86_400.0
    far = sum(1 for r in records if r.article.published_at is not None
              and abs(r.article.published_at.timestamp() - now) > span)
    if not untimed or not far or not window_days:
        return None
    have = "record has" if len(untimed) == 1 else "records have"
    they = "it is" if len(untimed) == 1 else "they are"
    pub = "record" if far == 1 else "records"
    return (f"warning: {len(untimed)} {have} no published_at (the first: {untimed[0].where}); {they} timed now "
            f"(ingest time), so {they} never compared with the {far} {pub} published more than {window_days:g} "
            f"days (window_days) before or after now")


def write_parquet(out_dir: Path, records: Sequence[Record], results: Iterable[dict[str, Any]],
                  *, rows_per_file: int = 100_000) -> list[Path]:
    """Each record's fields plus its result columns, ``part-00000.parquet`` ... in input order.

    Fields that clash with a result column are kept under ``input_<name>``.
    """
    require_pyarrow()
    import pyarrow as pa
    import pyarrow.parquet as pq

    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for rec, res in zip(records, results, strict=True):
        row = {(f"input_{k}" if k in RESULT_COLUMNS else k): v for k, v in rec.fields.items()}
        row.update(res)
        rows.append(row)
    # Every field any record has (pyarrow's from_pylist would take the first row's keys only).
    names = list(dict.fromkeys(k for row in rows for k in row))
    files = []
    for n, start in enumerate(range(0, len(rows), rows_per_file)):
        path = out_dir / f"part-{n:05d}.parquet"
        part = rows[start : start + rows_per_file]
        pq.write_table(pa.table({k: [row.get(k) for row in part] for k in names}), path)
        files.append(path)
    return files
