"""Issue 38: operator errors are one line, and small inputs get no wrong answers.

Every operator mistake (a store path under a file, a PostgreSQL URL without psycopg) is one line
on stderr, a non-zero exit and no traceback, in the CLI and in ``serve``. Texts with no letter
or digit are refused (ValueError in Python, 422 over HTTP, one line in the CLI) and are never
exact copies; texts with under 3 letters/digits are never SAME by the embedding alone. ``ingest``
says the title and story of each item. Corrections exported for calibration say their level,
and ``eval calibrate`` on a handful of them warns instead of recommending a threshold. The
story page's "Not the same" asks before it posts, as split and merge do.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from eval.data import load_pairs
from index.features import ItemFeatures
from index.text import content_units
from service.config import EngineConfig
from service.corrections import Editor, labelled_pairs
from service.engine import Deduper
from service.stages import MIN_EMBED_CONTENT, same_words, too_little_content
from service.store import StoreOpenError, open_store
from service.types import NO_WORDS, Article, ArticleError
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
ZWSP2 = "\u200b\u200b"


def _samestory(*args: str, block_psycopg: bool = False, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``samestory ARGS`` of this checkout in a fresh process (optionally as if psycopg were not installed)."""
    prelude = "import sys; sys.modules['psycopg'] = None; " if block_psycopg else "import sys; "
    code = prelude + f"from service.cli import main; sys.exit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          input=stdin, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(ROOT)})


def _one_line_error(res: subprocess.CompletedProcess[str], *needles: str) -> str:
    lines = res.stderr.strip().splitlines()
    assert res.returncode != 0, res
    assert "Traceback" not in res.stderr, res.stderr
    assert len(lines) == 1, res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# operator errors: one line, no traceback -----------------------------------------------------------------
@pytest.mark.parametrize("command", [["ingest", "-"], ["serve", "--log-level", "error"]])
def test_a_store_path_under_a_file_is_one_line(tmp_path, command):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    res = _samestory(*command, "--db", f"sqlite:///{a_file}/x.db", "--model", "none", stdin="")
    line = _one_line_error(res, f"samestory {command[0]}:", "cannot open SQLite store", str(a_file))
    assert "File exists" in line or "Not a directory" in line


def test_the_store_says_so_in_python_too(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(StoreOpenError, match="cannot create its folder"):
        open_store(f"sqlite:///{tmp_path}/f/x.db")


@pytest.mark.parametrize("command", [["ingest", "-"], ["serve", "--log-level", "error"]])
def test_postgres_without_psycopg_is_one_line_naming_the_extra(command):
    res = _samestory(*command, "--db", "postgresql://u@127.0.0.1:1/none", "--model", "none", block_psycopg=True,
                     stdin="")
    _one_line_error(res, f"samestory {command[0]}:", "pip install 'samestory[postgres]'")


def test_serve_on_a_port_in_use_is_one_line_and_status_1(tmp_path):
    # uvicorn logged its own error and exited with status 3, after loading the engine.
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = _samestory("serve", "--log-level", "error", "--db", f"sqlite:///{tmp_path}/x.db", "--model", "none",
                         "--port", str(port))
    assert res.returncode == 1, res
    _one_line_error(res, "samestory serve:", f"cannot listen on 127.0.0.1:{port}: address already in use")
    assert not (tmp_path / "x.db").exists()  # refused before the store was opened


# meaningless and too-short inputs ---------------------------------------------------------------------------
@pytest.mark.parametrize("title", [ZWSP2, "...!!!", "— · —", "??"])
def test_text_without_letters_or_digits_is_refused(title):
    with pytest.raises(ValueError, match="needs a letter or digit"):
        Article(title=title)
    with pytest.raises(ArticleError):
        Deduper(open_store(":memory:"), embedder=None).ingest({"title": title})
    # A wordless title with a body that says something is an article.
    assert Article(title=title, body="Fed raises rates by 25 basis points").title == title


def test_the_cli_refuses_them_in_one_line():
    _one_line_error(_samestory("compare", "...", "!!!", "--model", "none"), NO_WORDS)
    res = _samestory("ingest", "-", "--db", ":memory:", "--model", "none",
                     stdin=json.dumps({"title": "ok title"}) + "\n" + json.dumps({"title": ZWSP2}) + "\n")
    _one_line_error(res, "-:2:", NO_WORDS)


def test_http_answers_422_for_them(make_client):
    client = make_client()
    r = client.post("/v1/articles", json={"articles": [{"title": "...!!!"}]})
    assert r.status_code == 422 and NO_WORDS in r.json()["detail"], r.text
    r = client.post("/v1/compare", json={"a": {"title": ZWSP2}, "b": {"title": "Fed raises rates"}})
    assert r.status_code == 422 and r.json()["detail"].startswith("a: ") and NO_WORDS in r.json()["detail"], r.text
    # the contract says so too: the title-or-body rule's pattern needs a letter or digit
    schema = client.get("/openapi.json").json()["components"]["schemas"]["ArticleIn"]
    assert {b["properties"]["title"]["pattern"] for b in schema["anyOf"] if "title" in b["properties"]} == {
        r"[^\W_]"}


def test_texts_with_no_words_are_never_exact_copies():
    engine = Deduper(open_store(":memory:"), embedder=None)
    first = engine.ingest(Article(title=ZWSP2, body="Council approves the new budget for schools",
                                  url="https://a.example/1"))
    second = engine.ingest(Article(title="...!!!", body="Storm closes the harbour for two days",
                                   url="https://b.example/2"))
    assert second.status == "new" and second.cluster_id != first.cluster_id, second.decision
    a = ItemFeatures.build(ZWSP2, "", "und", 0.0)
    b = ItemFeatures.build("...!!!", "", "und", 0.0)
    assert a.exact_keys == () and not same_words(a, b)


@pytest.fixture(scope="module")
def use():
    from models.registry import load_embedder

    return load_embedder("use", cache_size=0)


def test_two_letters_are_not_the_same_by_embedding(use):
    engine = Deduper(open_store(":memory:"), embedder=use)
    d = engine.compare("a", "b", all_scores=True)
    assert not d.same and d.stage == "embedding"
    assert d.scores["cosine"] >= engine.config.copy.embedding_threshold  # the encoder alone would have merged them
    assert "too little content" in d.reasons[0]
    first = engine.ingest(Article(title="a", url="https://a.example/1"))
    second = engine.ingest(Article(title="b", url="https://b.example/1"))
    assert second.status == "new" and second.cluster_id != first.cluster_id
    assert any("too little content" in r for r in second.decision.reasons)
    # enough content: the embedding decides as before (a translation pair)
    assert engine.compare("삼성전자, 3분기 영업이익 사상 최대",
                          "Samsung Electronics posts record third-quarter operating profit").same


def test_content_units_count_a_hangul_syllable_twice():
    assert (content_units("ab"), content_units("abc"), content_units("가"), content_units("가나")) == (2, 3, 2, 4)
    assert too_little_content("ab") is not None and too_little_content("가") is not None
    assert too_little_content("Fed") is None and too_little_content("가나") is None
    assert MIN_EMBED_CONTENT == 3


# ingest prints the title and the story -----------------------------------------------------------------
def _ingest_from_stdin(feed: list[dict], monkeypatch) -> None:
    """``samestory ingest -`` (cheap passes only, in memory) on ``feed`` given as JSONL on stdin."""
    import io

    from service.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(json.dumps(x) + "\n" for x in feed)))
    assert main(["ingest", "-", "--db", ":memory:", "--model", "none"]) == 0


def test_ingest_lines_say_status_document_copy_group_story_stage_and_title(capsys, monkeypatch):
    long_title = "Fed raises rates by 25 basis points as inflation stays high across the economy"
    feed = [{"title": long_title, "url": "https://a.example/1"},
            {"title": long_title + " - Reuters", "url": "https://r.example/1"}]
    _ingest_from_stdin(feed, monkeypatch)
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2
    # A new item matched no stage: "none", not the last stage the cascade ran.
    assert lines[0].split()[:10] == ["new", "doc", "1", "copy", "group", "1", "story", "1", "stage", "none"]
    assert lines[1].split()[:8] == ["duplicate", "doc", "2", "copy", "group", "1", "story", "1"]
    assert "stage exact" in lines[1] and lines[1].endswith("(duplicate of 1)")
    assert "Fed raises rates by 25 basis points" in lines[0] and "…" in lines[0] and long_title not in lines[0]
    assert err.strip().splitlines()[-1] == ("ingested 2 items: 1 new, 1 duplicate, 0 re-observed, 0 new versions; "
                                            "the store holds 1 copy group in 1 story")


def test_ingest_lines_name_the_guards_that_kept_a_new_item_apart(capsys, monkeypatch):
    feed = [{"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1"},
            {"title": "Fed raises rates by 50 basis points", "url": "https://b.example/1"}]
    _ingest_from_stdin(feed, monkeypatch)
    second = capsys.readouterr().out.splitlines()[1]
    assert second.startswith("new") and " stage none " in second
    assert second.endswith("(kept apart by: quantity, number)")


# calibration on corrections ------------------------------------------------------------------------------------
SYNDICATED = [
    Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://www.nbnnews.co.kr/a/1001", lang="ko"),
    Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://v.daum.net/v/2026112009", lang="ko"),
]
FED = Article(title="Fed raises rates by 25 basis points", url="https://www.reuters.com/x", lang="en",
              published_at="2026-11-19T10:05:00+00:00")
FED_FOLLOW_UP = Article(title="Fed raises rates again; markets expect one more hike", url="https://www.cnbc.com/y",
                        lang="en", published_at="2026-11-19T11:05:00+00:00")


def _three_corrections() -> Deduper:
    """A split out of a copy group (copy), a merge of two stories and a "not the same" across
    two copy groups of one story (story)."""
    # No model; stories joined at 0.5 as tests/service/test_corrections.py does (words, names and time only).
    engine = Deduper(open_store(":memory:"), embedder=None, config=EngineConfig.of(story_threshold=0.5))
    syn = engine.ingest_many(SYNDICATED)
    assert syn[0].cluster_id == syn[1].cluster_id
    fed, follow = engine.ingest(FED), engine.ingest(FED_FOLLOW_UP)
    assert fed.story_id == follow.story_id and fed.cluster_id != follow.cluster_id
    editor = Editor(engine)
    editor.split(syn[1].document_id, who="alice")
    editor.not_same(fed.document_id, follow.document_id, who="bob")
    editor.merge(syn[0].story_id, fed.story_id, who="carol")
    return engine


def test_corrections_export_says_the_level_and_eval_reads_copy_rows_only(tmp_path):
    engine = _three_corrections()
    pairs = list(labelled_pairs(engine.store))
    engine.close()
    assert [(p["kind"], p["label"], p["level"]) for p in pairs] == [
        ("editor_split", 0, "copy"), ("editor_not_same", 0, "story"), ("editor_merge", 1, "story")]
    path = tmp_path / "corrections.jsonl"
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs), "utf-8")
    assert [p.level for p in load_pairs(path)] == ["copy", "story", "story"]


def test_calibrate_on_three_corrections_is_unreliable_and_recommends_nothing(tmp_path, capsys):
    from service.cli import main

    engine = _three_corrections()
    path = tmp_path / "corrections.jsonl"
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in labelled_pairs(engine.store)), "utf-8")
    engine.close()
    rc = main(["eval", "calibrate", str(path), "--stage", "ngram", "--floor", "0.5",
               "--thresholds", "0.3,0.5", "--no-progress", "--json"])
    out, err = capsys.readouterr()
    assert rc == 1
    assert "left out 2 story-level row(s)" in err
    assert "UNRELIABLE" in out and "[engine]" not in out
    obj = json.loads(out.strip().splitlines()[-1])
    assert obj["reliable"] is False and obj["threshold"] is None
    assert obj["warnings"] == ["corrections: 0 positive pair(s) < 30: too few to calibrate on",
                               "corrections: 1 negative pair(s) < 30: too few to calibrate on"]


# the UI asks before "Not the same" ------------------------------------------------------------------------------
def test_not_the_same_form_asks_first(make_client):
    client = make_client([*SYNDICATED, Article(title="진천군 온디바이스 AI기반 스마트돌봄 본격화",
                                               url="https://www.inews365.com/n/2002", lang="ko")])
    html = client.get("/ui/stories/1").text
    start = html.index('action="/ui/stories/1/not-same"')
    form = html[html.rindex("<form", 0, start): html.index("</form>", start)]
    assert 'data-confirm="Mark documents {doc_a} and {doc_b} not the same?' in form


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run ui.js")
def test_ui_js_asks_with_the_chosen_documents_and_stops_on_cancel():
    # ui.js in node with the little of the DOM it touches: one form, window.confirm answering "cancel".
    script = textwrap.dedent("""
        const asked = []; let onReady = null; let onSubmit = null;
        const form = {
          getAttribute: () => "Mark documents {doc_a} and {doc_b} not the same? {missing}",
          elements: {namedItem: (n) => ({doc_a: {value: "3"}, doc_b: {value: "7"}})[n] || null},
          addEventListener: (kind, fn) => { onSubmit = fn; },
        };
        globalThis.window = {confirm: (q) => { asked.push(q); return false; }};
        globalThis.document = {
          addEventListener: (kind, fn) => { onReady = fn; },
          querySelectorAll: (sel) => sel === "form[data-confirm]" ? [form] : [],
          getElementById: () => null,
        };
        require(process.argv[1]);
        onReady();
        let prevented = false;
        onSubmit({preventDefault: () => { prevented = true; }});
        console.log(JSON.stringify({asked, prevented}));
    """)
    res = subprocess.run(["node", "-e", script, str(ROOT / "service/web/static/ui.js")], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"asked": ["Mark documents 3 and 7 not the same? {missing}"], "prevented": True}


def test_ingest_warns_once_about_repeated_ids_and_ingests_every_record(capsys, monkeypatch):
    """Records repeating an ``id`` passed silently. A record without a url is keyed by its id, so
    a repeat is the earlier record's document again (a new version): one warning says how many
    repeat, the first id repeated and that; with a url the id is only echoed. Nothing is refused."""
    feed = [{"title": "Fed raises rates by 25 basis points", "id": "a"},
            {"title": "Volcano erupts in southwest Iceland", "id": "b"},
            {"title": "Korean Air completes its merger with Asiana", "id": "a"},
            {"title": "Samsung posts record quarterly profit", "id": "b", "url": "https://b.example/1"},
            {"title": "ECB holds rates steady", "id": "a"}, {"title": "Apple unveils a new phone"}]
    _ingest_from_stdin(feed, monkeypatch)
    got = capsys.readouterr()
    statuses = [line.split()[0] for line in got.out.splitlines()]
    assert statuses == ["new", "new", "new_version", "new", "new_version", "new"]  # every record ingested
    warnings = [x for x in got.err.splitlines() if x.startswith("warning:")]
    assert warnings == ["warning: 3 records repeat an earlier record's id (the first: 'a'); 2 have no url, so the "
                        "id names their document: the earlier record's document again (a new version if the text "
                        "differs), not a new one"]
    _ingest_from_stdin(feed[:2], monkeypatch)
    assert "warning" not in capsys.readouterr().err


def test_serve_holds_its_port_from_before_the_warm_up():
    """The port is bound, and kept, before the engine loads: a second server started meanwhile is
    refused with the one-line error, not the first one once its warm-up ends (a race of two starts)."""
    from service.api.cli import _bind
    from service.config import ConfigError

    with _bind("127.0.0.1", 0) as first:
        port = first.getsockname()[1]
        with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{port}: address already in use"):
            _bind("127.0.0.1", port)
    _bind("127.0.0.1", port).close()  # free again once the first lets go
