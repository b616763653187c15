"""``samestory batch``: input errors, Parquet in and out, the same decisions as streaming ingest,
and a batch result seeding a live store. The cluster-scale equivalence (USE model, Ray) is in
``tests/service/batch/test_batch_equivalence.py``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from service.batch.io import read_records
from service.batch.run import run_batch
from service.engine import Deduper
from tests.helpers.batch import FEED, write_jsonl

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

def _partition(labels: list[int]) -> set[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for i, g in enumerate(labels):
        groups.setdefault(g, set()).add(i)
    return {frozenset(g) for g in groups.values()}


def test_bad_input_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"nope\.jsonl: no such file"):
        read_records([tmp_path / "nope.jsonl"])
    # a folder was "no such file" too
    with pytest.raises(ValueError, match=r": a folder, not a file \(name the JSONL or Parquet files in it\)$"):
        read_records([tmp_path])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "ok"}\n{"title": "broken"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"^bad\.jsonl:2: not valid JSON"):
        read_records([bad])
    # a line cut off inside a string said "Invalid control character" past the text's end (ninth tour)
    bad.write_text('{"title": "ok"}\n{"id": "b", "title": "unterminated\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"^bad\.jsonl:2: not valid JSON: Unterminated string starting at \(column 22\)$"):
        read_records([bad])
    # a CSV corpus said only "not valid JSON" on its header line
    (tmp_path / "feed.csv").write_text("id,title\nr1,Fed raises rates\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^feed\.csv:1: not valid JSON: .*; CSV is not read: convert it to JSON "
                       r"Lines \(one JSON object a line\) or Parquet$"):
        read_records([tmp_path / "feed.csv"])
    write_jsonl(tmp_path / "notitle.jsonl", [{"title": "ok"}, {"body": "b", "url": "https://x.example/1"},
                                        {"url": "https://x.example/2", "colour": "red"}])
    with pytest.raises(ValueError, match=r"^notitle\.jsonl:3: an article needs a non-empty title or body "
                       r"\(its fields: 'url', 'colour'; --field names the title field\)$"):
        read_records([tmp_path / "notitle.jsonl"])
    write_jsonl(tmp_path / "badurl.jsonl", [{"title": "t", "url": "javascript:alert(1)"}])
    with pytest.raises(ValueError, match=r"^badurl\.jsonl:1: invalid url"):
        run_batch(read_records([tmp_path / "badurl.jsonl"]), model=None)


def test_cli_errors(tmp_path: Path) -> None:
    from service.cli import main

    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    with pytest.raises(SystemExit, match=r"samestory batch: .*missing\.jsonl: no such file"):
        main(["batch", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit) as bad_level:  # argparse: usage and "invalid choice" on stderr
        main(["batch", str(src), "--out", str(tmp_path / "o"), "--level", "event", "--model", "none"])
    assert bad_level.value.code == 2


def test_help_says_a_body_alone_is_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --help said "a record needs 'title' or 'text'", but a record with only a body is taken (docs/scale.md).
    from service.cli import main

    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    assert "a record needs 'title' (or 'text') or 'body'" in " ".join(capsys.readouterr().out.split())
    src = write_jsonl(tmp_path / "bodies.jsonl", [{"body": "Fed raises rates by 25bp. Markets rallied."}])
    assert [r.article.body for r in read_records([src])] == ["Fed raises rates by 25bp. Markets rallied."]


def test_same_copy_groups_as_streaming_ingest_and_parquet_in_and_out(tmp_path: Path) -> None:
    from service.cli import main

    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    assert main(["batch", str(src), "--out", str(tmp_path / "out"), "--model", "none", "--quiet", "--json"]) == 0
    table = pq.read_table(tmp_path / "out" / "part-00000.parquet").to_pylist()
    assert [r["row"] for r in table] == list(range(len(FEED)))
    assert table[0]["tag"] == "x" and table[0]["story_id"] is not None

    live = Deduper.open(":memory:", model=None)
    streamed = live.ingest_many([{k: v for k, v in r.items() if k != "tag"} for r in FEED])
    live.close()
    assert _partition([r["copy_group_id"] for r in table]) == _partition([r.cluster_id for r in streamed])
    assert _partition([r["story_id"] for r in table]) == _partition([r.story_id for r in streamed])
    # a new item's stage is "none" in the rows as in the ingest's JSON, not the last stage the cascade ran
    assert [r["stage"] for r in table] == [r.to_dict()["decision"]["stage"] for r in streamed]
    assert {r["stage"] for r in table if r["status"] == "new"} == {"none"}
    assert [r["status"] for r in table] == [r.status for r in streamed]
    # what the engine decides, stated: the 25bp/50bp pair is vetoed, the re-crawl is a url re-observation
    assert table[1]["duplicate_of"] == 0 and table[1]["stage"] == "exact"
    assert table[2]["copy_group_id"] != table[0]["copy_group_id"] and "quantity" in table[2]["blocked_by"]
    assert table[5]["status"] == "reobserved" and table[5]["copy_group_id"] == table[0]["copy_group_id"]
    # the re-crawl points at its first row (fourteenth tour: null, so "keep the rows without
    # duplicate_of" kept it twice); that filter keeps one row per copy group
    assert table[5]["duplicate_of"] == 0
    kept = [r["copy_group_id"] for r in table if r["duplicate_of"] is None]
    assert sorted(kept) == sorted({r["copy_group_id"] for r in table})
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["items"] == len(FEED) and summary["guard_vetoes"]["quantity"] >= 1
    # stages count the items a stage joined to a copy group; a new item's last cascade stage is no merge
    assert sum(summary["stages"].values()) + summary["statuses"]["new"] == len(FEED)
    assert summary["stages"] == dict(Counter(r["stage"] for r in table if r["status"] != "new"))
    assert "none" not in summary["stages"]

    # the Parquet it wrote reads back as input, with the same result
    again = run_batch(read_records([tmp_path / "out" / "part-00000.parquet"]), model=None)
    assert [r["copy_group_id"] for r in again.results] == [r["copy_group_id"] for r in table]


def test_summary_stages_count_no_merge_for_new_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three different reports: every item is new, so no stage matched. summary.json said
    {"minhash": 3} (each new item's last cascade stage with --model none), read as three merges."""
    from service.cli import main

    src = write_jsonl(tmp_path / "feed.jsonl", [{"title": "Fed raises rates by 25 basis points"},
                                                {"title": "Samsung posts record quarterly profit"},
                                                {"title": "Heavy rain floods the south coast"}])
    assert main(["batch", str(src), "--out", str(tmp_path / "out"), "--model", "none", "--quiet"]) == 0
    assert "  stages that matched: none (new items: 3)" in capsys.readouterr().out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["stages"] == {} and summary["statuses"] == {"new": 3}


def test_batch_seeds_a_live_store(tmp_path: Path) -> None:
    """--into: the live feed continues from a deduplicated archive."""
    db = f"sqlite:///{tmp_path / 'live.db'}"
    out = run_batch(read_records([write_jsonl(tmp_path / "feed.jsonl", FEED)]), model=None, into=db)
    live = Deduper.open(db, model=None)
    try:
        assert live.stats()["documents"] == len({r["document_id"] for r in out.results})
        later = live.ingest({"title": "Samsung posts record quarterly profit!", "url": "https://z.example/9"})
        assert later.status == "duplicate" and later.decision.stage == "exact"
        assert later.cluster_id == out.results[3]["copy_group_id"]
        recrawl = live.ingest({"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1"})
        assert recrawl.status == "reobserved"
    finally:
        live.close()


@pytest.mark.postgres
def test_batch_seeds_a_postgres_store(tmp_path: Path, pg_url: str) -> None:
    out = run_batch(read_records([write_jsonl(tmp_path / "feed.jsonl", FEED)]), model=None, into=pg_url)
    live = Deduper.open(pg_url, model=None)
    try:
        later = live.ingest({"title": "연준 기준금리 0.25%p 인상 ", "url": "https://h.example/8"})
        assert later.status == "duplicate" and later.cluster_id == out.results[6]["copy_group_id"]
    finally:
        live.close()


def test_batch_settle_gives_one_story_level_whatever_the_input_order(tmp_path: Path) -> None:
    """``--settle``: the rows' stories are the settled ones (re-decided in publication order), the
    same in every input order of a feed whose streamed stories depend on it; the summary carries
    the settling's report."""
    import itertools
    from datetime import datetime, timedelta, timezone

    from service.config import EngineConfig
    from tests.helpers.stories import TWO_EVENTS, FixedEmbedder

    t0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
    rows = {k: {"title": title, "lang": lang, "url": f"https://x.example/{k}",
                "published_at": (t0 + timedelta(minutes=i)).isoformat()}
            for i, (k, (title, lang, _)) in enumerate(TWO_EVENTS.items())}
    cfg = EngineConfig.of(embedding_threshold=0.99, story_revise=False)  # every item its own copy group
    streamed, settled = set(), set()
    for n, order in enumerate(itertools.permutations(rows)):
        records = read_records([write_jsonl(tmp_path / f"feed{n}.jsonl", [rows[k] for k in order])])
        for settle, seen in ((False, streamed), (True, settled)):
            out = run_batch(records, config=cfg, make_embedder=FixedEmbedder, settle=settle)
            labels = dict(zip(order, (r["story_id"] for r in out.results), strict=True))
            seen.add(frozenset(_partition([labels[k] for k in rows])))
            assert (out.summary["settled"] is not None) == settle
        assert out.summary["settled"]["items"] == 4 and "moves" not in out.summary["settled"]
    assert len(streamed) > 1 and len(settled) == 1


def test_batch_settle_gives_one_copy_level_whatever_the_input_order(tmp_path: Path) -> None:
    """``--settle`` re-decides the copy groups too: a report re-run through the day, whose
    streamed copy groups hang on which version came first, gives one set of copy groups in every
    input order, and the rows' ``copy_group_id`` are the settled groups."""
    import itertools
    from datetime import timedelta

    from tests.helpers.stories import CHAIN, CHAIN_T0

    rows = {k: {"title": title, "url": f"https://x.example/{k}",
                "published_at": (CHAIN_T0 + timedelta(hours=h)).isoformat()} for k, (title, h) in CHAIN.items()}
    streamed, settled = set(), set()
    for n, order in enumerate(itertools.permutations(rows)):
        records = read_records([write_jsonl(tmp_path / f"chain{n}.jsonl", [rows[k] for k in order])])
        for settle, seen in ((False, streamed), (True, settled)):
            out = run_batch(records, model=None, settle=settle)
            labels = dict(zip(order, (r["copy_group_id"] for r in out.results), strict=True))
            seen.add(frozenset(_partition([labels[k] for k in rows])))
        assert out.summary["settled"]["copies"]["items"] == 3 and "moves" not in out.summary["settled"]["copies"]
    assert len(streamed) == 3 and settled == {frozenset({frozenset({0, 1}), frozenset({2})})}


def test_out_is_checked_before_any_work(tmp_path: Path) -> None:
    from service.cli import main

    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    seed = tmp_path / "seed.db"
    # an existing file used to fail only after the whole run (and after seeding --into): a traceback
    with pytest.raises(SystemExit) as exc:
        main(["batch", str(src), "--out", str(src), "--model", "none", "--quiet", "--into", f"sqlite:///{seed}"])
    assert str(exc.value.code) == f"samestory batch: --out {src}: a file, not a folder"
    assert not seed.exists()
    with pytest.raises(SystemExit, match=r"^samestory batch: --into: unsupported store URL 'mysql://x'"):
        main(["batch", str(src), "--out", str(tmp_path / "o"), "--model", "none", "--into", "mysql://x"])
    with pytest.raises(SystemExit, match=r"^samestory batch: unknown model spec 'bogus'; valid: 'use'"):
        main(["batch", str(src), "--out", str(tmp_path / "o"), "--model", "bogus"])
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("flag, value", [("--batch-size", "0"), ("--nprobe", "-3"), ("--list-size", "0"),
                                         ("--workers", "0"), ("--num-gpus", "-1")])
def test_numeric_options_are_refused_in_the_parser(flag: str, value: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli import main

    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    with pytest.raises(SystemExit) as exc:  # --nprobe -3 --list-size 0 used to give "pairs: 0" silently
        main(["batch", str(src), "--out", str(tmp_path / "o"), "--model", "none", "--quiet", flag, value])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err
    assert f"samestory batch: error: argument {flag}: must be a" in err.strip().splitlines()[-1]
    assert not (tmp_path / "o").exists()


def test_a_used_out_folder_is_refused_unless_overwrite_replaces_the_earlier_result(tmp_path: Path) -> None:
    from service.cli import main

    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    out = tmp_path / "out"
    assert main(["batch", str(src), "--out", str(out), "--model", "none", "--quiet", "--json"]) == 0
    # a part of an earlier, larger run: read with the folder, its rows mixed in with the new ones
    pq.write_table(pa.table({"row": [99], "title": ["stale"]}), out / "part-00003.parquet")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["batch", str(src), "--out", str(out), "--model", "none", "--quiet"])
    assert str(exc.value.code) == (f"samestory batch: --out {out} is not empty (notes.txt, part-00000.parquet, "
                                   "part-00003.parquet and 1 more): pass --overwrite to replace the earlier "
                                   "result there")
    assert main(["batch", str(src), "--out", str(out), "--model", "none", "--quiet", "--json", "--overwrite"]) == 0
    assert sorted(f.name for f in out.iterdir()) == ["notes.txt", "part-00000.parquet", "summary.json"]
    parts = sorted(out.glob("part-*.parquet"))  # what a reader of the result takes
    assert [r for f in parts for r in pq.read_table(f).column("row").to_pylist()] == list(range(len(FEED)))


def test_the_printed_summary_counts_stories_and_rows_folded_by_their_url(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """An archive with repeated URLs: the second and third rows of one URL become a new version and
    a re-observation of the first document. The summary printed only stages ('url': 2), so the
    owner could not tell the rows were folded, nor how many stories the run found."""
    from service.cli import main

    src = tmp_path / "dup.jsonl"
    write_jsonl(src, [{"title": "Fed raises rates", "url": "https://a.example/1"},
                      {"title": "ECB holds rates steady", "url": "https://a.example/1"},
                      {"title": "Fed raises rates", "url": "https://a.example/1"}])
    assert main(["batch", str(src), "--out", str(tmp_path / "o"), "--model", "none", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 items -> 1 copy groups, 1 stories in ")
    assert "  statuses: {'new': 1, 'new_version': 1, 'reobserved': 1}" in out


def test_batch_warns_once_about_repeated_ids_and_keeps_every_row(tmp_path: Path, capsys) -> None:
    from service.cli import main

    rows = [{"title": "Fed raises rates by 25 basis points", "id": "x"},
            {"title": "Volcano erupts in southwest Iceland", "id": "y"},
            {"title": "Samsung posts record quarterly profit", "id": "y"}]
    src = write_jsonl(tmp_path / "ids.jsonl", rows)
    assert main(["batch", str(src), "--out", str(tmp_path / "out"), "--model", "none", "--quiet", "--json"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1
    assert "warning: 1 record repeats an earlier record's id (the first: 'y'); 1 has no url" in err
    table = pq.read_table(tmp_path / "out" / "part-00000.parquet").to_pylist()
    # no url: the id keys the document, so the repeat is a new version of row 1's (as the warning says)
    assert [(r["row"], r["id"], r["status"]) for r in table] == [(0, "x", "new"), (1, "y", "new"),
                                                                 (2, "y", "new_version")]
    assert main(["batch", str(src), "--out", str(tmp_path / "out"), "--overwrite", "--model", "none", "--quiet"]) == 0
    assert "warning" in capsys.readouterr().err  # --quiet does not hide it


def test_ctrl_c_is_one_line_saying_what_is_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Ninth tour: SIGINT half-way through a 3,003-record run ended in a KeyboardInterrupt
    traceback from inside a guard, and said nothing of what was kept (nothing in OUT; with --into,
    the records decided so far, which the same command into that store finishes)."""
    import service.batch.run as batch_run
    from service.cli import main

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(batch_run, "run_batch", interrupted)
    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    out = tmp_path / "out"
    assert main(["batch", str(src), "--out", str(out), "--model", "none", "--quiet"]) == 130
    err = capsys.readouterr().err
    assert err == f"samestory batch: interrupted; nothing written to {out}\n"
    assert not out.exists() or not any(out.iterdir())
    into = f"sqlite:///{tmp_path}/s.db"
    assert main(["batch", str(src), "--out", str(out), "--model", "none", "--quiet", "--into", into]) == 130
    assert capsys.readouterr().err.endswith(f"; {into} keeps the records decided before it: run the same command "
                                            "again to finish (those rows come back reobserved)\n")


def test_batch_warns_once_when_undated_records_cannot_meet_the_dated_archive(tmp_path: Path,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Eleventh tour: in an invented 2024-2025 archive, 93 of 97 undated exact copies of dated
    records came back `new` with "no candidate above any stage's threshold", and the undated
    baseball results of two years made one story: an undated record is timed now (ingest time),
    years from the archive. The run said nothing of it."""
    from service.cli import main

    rows = [{"title": "Fed raises rates by 25 basis points", "published_at": "2024-03-20T18:00:00Z"},
            {"title": "Samsung posts record quarterly profit", "published_at": "2024-03-21T09:00:00Z"},
            {"title": "Fed raises rates by 25 basis points", "id": "undated"}]
    src = write_jsonl(tmp_path / "archive.jsonl", rows)
    assert main(["batch", str(src), "--out", str(tmp_path / "out"), "--model", "none", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1
    assert ("warning: 1 record has no published_at (the first: archive.jsonl:3); it is timed now (ingest time), so "
            "it is never compared with the 2 records published more than 7 days (window_days) before or after now") in err
    table = pq.read_table(tmp_path / "out" / "part-00000.parquet").to_pylist()
    assert [r["status"] for r in table] == ["new", "new", "new"]  # what the warning explains
    # a corpus without any date is one instant, as before: no warning
    write_jsonl(src, [{k: v for k, v in r.items() if k != "published_at"} for r in rows])
    assert main(["batch", str(src), "--out", str(tmp_path / "out"), "--overwrite", "--model", "none", "--quiet"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_byte_order_mark_is_read_and_a_gzip_file_is_named(tmp_path: Path) -> None:
    """Eleventh tour: a JSONL export starting with a UTF-8 byte-order mark stopped the run with
    "bom.jsonl:1: not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig)"; a gzip-compressed
    corpus with "not UTF-8 (invalid start byte at byte 1)"."""
    import gzip

    feed = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in FEED).encode()
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + feed)
    assert [r.article.title for r in read_records([tmp_path / "bom.jsonl"])] == [r.get("title", r.get("text")) for r in FEED]
    (tmp_path / "feed.jsonl.gz").write_bytes(gzip.compress(feed))
    with pytest.raises(ValueError, match=r"feed\.jsonl\.gz: not UTF-8 \(invalid start byte at byte 1\): it is "
                                         r"gzip-compressed; decompress it first \(gunzip\)$"):
        read_records([tmp_path / "feed.jsonl.gz"])


def test_a_line_that_is_not_utf8_is_named_by_its_number(tmp_path: Path) -> None:
    """Fourteenth tour: one Latin-1 line (line 1,001 of 1,201) stopped the run with "not UTF-8
    (invalid continuation byte at byte 5734)": no line, and the byte counted from the start of the
    reader's chunk, not of the file, so it led nowhere."""
    good = [json.dumps({"title": f"report number {i} from the city desk", "id": f"r{i}"}).encode() for i in range(1200)]
    lines = [*good[:1000], '{"title": "Caf\u00e9 fire in Seoul", "id": "bad"}'.encode("latin-1"), *good[1000:]]
    (tmp_path / "latin1.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ValueError, match=r"^latin1\.jsonl:1001: not UTF-8 \(invalid continuation byte at column 15\)$"):
        read_records([tmp_path / "latin1.jsonl"])


def test_field_names_the_title_field_and_a_record_without_a_title_lists_its_fields(tmp_path: Path) -> None:
    """Fourteenth tour: an archive whose titles are in `headline` stopped on line 1 with "an article
    needs a non-empty title or body", not saying what the record held nor how to name its field
    (`samestory dedupe` has `--field`). Now the error lists the record's fields, and `--field
    headline` reads them: the same copy groups as the same feed under `title`, fields kept as they were."""
    from service.cli import main

    rows = [{("headline" if k in ("title", "text") else k): v for k, v in r.items()} for r in FEED]
    src = write_jsonl(tmp_path / "headline.jsonl", rows)
    with pytest.raises(SystemExit, match=r"^samestory batch: headline\.jsonl:1: an article needs a non-empty title or "
                                         r"body \(its fields: 'headline', 'url', 'tag'; --field names the title field\)$"):
        main(["batch", str(src), "--out", str(tmp_path / "o"), "--model", "none", "--quiet"])
    assert main(["batch", str(src), "--field", "headline", "--out", str(tmp_path / "h"), "--model", "none", "--quiet"]) == 0
    assert main(["batch", str(write_jsonl(tmp_path / "title.jsonl", FEED)), "--out", str(tmp_path / "t"),
                 "--model", "none", "--quiet"]) == 0
    got = pq.read_table(tmp_path / "h" / "part-00000.parquet").to_pylist()
    want = pq.read_table(tmp_path / "t" / "part-00000.parquet").to_pylist()
    assert [r["copy_group_id"] for r in got] == [r["copy_group_id"] for r in want]
    assert [r["status"] for r in got] == [r["status"] for r in want]
    assert [r["headline"] for r in got] == [r.get("title") or r.get("text") for r in FEED] and "title" not in got[0]
    # a record without the named field, and one whose field is not a string, are named by line
    write_jsonl(src, [*rows[:2], {"url": "https://x.example/1"}])
    with pytest.raises(SystemExit, match=r"headline\.jsonl:3: an article needs a non-empty title or body "
                                         r"\(no 'headline'; its fields: 'url'\)$"):
        main(["batch", str(src), "--field", "headline", "--out", str(tmp_path / "o"), "--model", "none", "--quiet"])
    write_jsonl(src, [*rows[:2], {"headline": 7}])
    with pytest.raises(SystemExit, match=r"headline\.jsonl:3: headline must be a string, got a number$"):
        main(["batch", str(src), "--field", "headline", "--out", str(tmp_path / "o"), "--model", "none", "--quiet"])


def test_a_resumed_run_keeps_the_map_of_what_the_first_run_dropped(tmp_path: Path) -> None:
    """Fourteenth tour: an interrupted `batch --into` run finished by the same command gave the
    first run's rows back `reobserved` with `duplicate_of` null, so "keep the rows without
    duplicate_of" kept several rows of one copy group (135 of 1,026 groups of 2,000 lines). A run
    over what the store already holds (the extreme of a resume) now maps every row as the first
    run did: the same kept rows, one per copy group."""
    from service.cli import main

    src = write_jsonl(tmp_path / "feed.jsonl", FEED)
    into = f"sqlite:///{tmp_path}/s.db"
    for out in ("first", "again"):
        assert main(["batch", str(src), "--out", str(tmp_path / out), "--model", "none", "--quiet", "--into", into]) == 0
    first = pq.read_table(tmp_path / "first" / "part-00000.parquet").to_pylist()
    again = pq.read_table(tmp_path / "again" / "part-00000.parquet").to_pylist()
    assert {r["status"] for r in again} == {"reobserved"}
    assert [r["copy_group_id"] for r in again] == [r["copy_group_id"] for r in first]
    kept = [r["row"] for r in first if r["duplicate_of"] is None]
    assert [r["row"] for r in again if r["duplicate_of"] is None] == kept
    assert len(kept) == len({r["copy_group_id"] for r in first})
