"""One vocabulary and alike interfaces (issue 38): the HTTP API, the CLI and the pages name the two
levels copy group and story, keep the old names as deprecated aliases for one release, and answer
alike where they did not for no reason."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from service.types import Article
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT

FEED = [Article(title="Fed raises interest rates by a quarter point", url="https://a.example/fed", lang="en"),
        Article(title="FED RAISES INTEREST RATES BY A QUARTER POINT", url="https://b.example/fed", lang="en"),
        Article(title="Samsung unveils a foldable phone", url="https://c.example/fold", lang="en")]


def cli(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "service.cli", *args], input=None if stdin is None else stdin.decode(),
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def client(make_client):
    return make_client(FEED)


# (1) one vocabulary ------------------------------------------------------------------------------
def test_copy_groups_routes_answer_and_the_old_routes_are_deprecated_aliases(client):
    page = client.get("/v1/copy-groups")
    assert page.status_code == 200 and "Deprecation" not in page.headers
    body = page.json()
    assert sorted(g["size"] for g in body["copy_groups"]) == [1, 2]
    assert body["clusters"] == body["copy_groups"]  # the deprecated alias, same list
    group = body["copy_groups"][-1]["id"]
    one = client.get(f"/v1/copy-groups/{group}")
    assert one.status_code == 200 and one.json()["id"] == group

    old_page, old_one = client.get("/v1/clusters"), client.get(f"/v1/clusters/{group}")
    for old, new in ((old_page, page), (old_one, one)):
        assert old.status_code == 200 and old.json() == new.json()
        assert old.headers["Deprecation"] == "true"
        assert old.headers["Link"] == '</v1/copy-groups>; rel="successor-version"'
    missing = client.get("/v1/clusters/999")
    assert missing.status_code == 404 and missing.json()["detail"] == "copy group 999 does not exist"


def test_openapi_marks_the_old_routes_and_fields_deprecated(client):
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    assert "/v1/copy-groups" in paths and "/v1/copy-groups/{copy_group_id}" in paths
    for path in ("/v1/clusters", "/v1/clusters/{cluster_id}"):
        assert paths[path]["get"]["deprecated"] is True
        assert {"Deprecation", "Link"} <= set(paths[path]["get"]["responses"]["200"]["headers"])
    for path in ("/v1/copy-groups", "/v1/copy-groups/{copy_group_id}", "/v1/stories"):
        assert not paths[path]["get"].get("deprecated")
    schemas = spec["components"]["schemas"]
    for model, alias in (("IngestResultOut", "cluster_id"), ("DocumentOut", "cluster_id"),
                         ("MembershipOut", "cluster_id"), ("DedupeResponse", "clusters"),
                         ("CopyGroupPage", "clusters")):
        prop = schemas[model]["properties"][alias]
        assert prop["deprecated"] is True and "removed in the next release" in prop["description"], model
        primary = "copy_group_id" if alias == "cluster_id" else "copy_groups"
        assert not schemas[model]["properties"][primary].get("deprecated"), model
    # No user-facing "cluster" for a copy group but the deprecated aliases: the description less its
    # deprecated operations and properties never says it.
    for path in [p for p, item in paths.items() if item.get("get", {}).get("deprecated")]:
        del paths[path]
    for model in schemas.values():
        for name in [n for n, prop in model.get("properties", {}).items() if prop.get("deprecated")]:
            del model["properties"][name]
            model["required"] = [r for r in model.get("required", []) if r != name]
    text = json.dumps(spec).lower().replace("cluster_id is a deprecated alias", "")  # StoredDecisionOut.previous
    assert "cluster" not in text, text[max(0, text.find("cluster") - 200):text.find("cluster") + 100]


def test_every_answer_names_the_copy_group_first(client):
    res = client.post("/v1/articles", json={"articles": [{"title": "ECB holds rates", "url": "https://d.example/1"}]})
    result = res.json()["results"][0]
    assert result["copy_group_id"] == result["cluster_id"]
    assert list(result).index("copy_group_id") < list(result).index("cluster_id")
    doc = client.get(f"/v1/documents/{result['document_id']}").json()
    assert doc["copy_group_id"] == doc["cluster_id"] == result["copy_group_id"]
    assert doc["membership"]["copy_group_id"] == doc["membership"]["cluster_id"] == result["copy_group_id"]
    dedupe = client.post("/v1/dedupe", json={"texts": ["Fed raises rates", "FED raises rates!", "ECB holds"]}).json()
    assert dedupe["copy_groups"] == dedupe["clusters"] == [[0, 1], [2]]


def test_ingest_result_names_the_copy_group_in_python():
    from service.engine import Deduper

    engine = Deduper.open(":memory:", model=None)
    try:
        first, second, _ = engine.ingest_many(FEED)
        assert second.copy_group_id == first.copy_group_id == second.cluster_id
        assert second.to_dict()["copy_group_id"] == second.to_dict()["cluster_id"] == first.copy_group_id
    finally:
        engine.close()


def test_cli_copy_groups_and_the_deprecated_clusters_command(tmp_path):
    db = f"sqlite:///{tmp_path}/s.db"
    feed = "".join(json.dumps(a.to_dict()) + "\n" for a in FEED).encode()
    done = cli("ingest", "-", "--db", db, "--model", "none", stdin=feed)
    assert done.returncode == 0, done.stderr
    assert "copy group" in done.stdout and "cluster" not in done.stdout
    new = cli("copy-groups", "--db", db, "--json")
    assert new.returncode == 0 and new.stderr == ""
    assert sorted(g["size"] for g in json.loads(new.stdout)["copy_groups"]) == [1, 2]
    table = cli("copy-groups", "--db", db)
    assert table.stdout.split()[:2] == ["copy", "group"] and "cluster" not in table.stdout

    old = cli("clusters", "--db", db, "--json")
    assert old.returncode == 0 and old.stdout == new.stdout
    assert old.stderr == "warning: 'samestory clusters' is deprecated; use 'samestory copy-groups'\n"
    helps = cli("--help").stdout
    assert "copy-groups" in helps and "deprecated alias of copy-groups" in helps
    assert "cluster" not in cli("copy-groups", "--help").stdout


# (2) one way to write a time ---------------------------------------------------------------------
ISO_UTC = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$"
TIME_FIELDS = {"created_at", "updated_at", "published_at", "first_seen", "observed_at", "joined_at", "at",
               "start", "end"}


def _times(node: object, path: str = "") -> list[tuple[str, object]]:
    """Every (path, value) of a time field in a JSON answer."""
    found: list[tuple[str, object]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in TIME_FIELDS:
                found.append((f"{path}.{key}", value))
            found += _times(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _times(value, f"{path}[{i}]")
    return found


def test_every_time_in_an_answer_is_iso_8601_utc(make_client):
    import re

    client = make_client([Article(title="Fed raises rates", url="https://a.example/1", lang="en",
                                  published_at="2025-11-27T09:10:00+09:00"),
                          Article(title="FED RAISES RATES", url="https://b.example/1", lang="en",
                                  published_at="2025-11-27T00:20:00.5Z")])
    doc = client.get("/v1/documents/1").json()
    assert doc["published_at"] == "2025-11-27T00:10:00Z"
    assert client.post("/v1/corrections", json={"kind": "split", "document_id": 2}).status_code == 201
    answers = [doc, client.get("/v1/documents/2").json(), client.get("/v1/copy-groups").json(),
               client.get("/v1/copy-groups/1").json(), client.get("/v1/stories").json(),
               client.get("/v1/stories/1").json(), client.get("/v1/corrections").json()]
    times = [t for a in answers for t in _times(a)]
    assert {p.rsplit(".", 1)[1] for p, _ in times} == TIME_FIELDS
    for where, value in times:
        assert isinstance(value, str) and re.fullmatch(ISO_UTC, value), (where, value)
    # The contract says so too: every time field is a date-time string.
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name, model in schemas.items():
        for field, prop in model.get("properties", {}).items():
            if field in TIME_FIELDS:
                kinds = prop.get("anyOf", [prop])
                assert any(k.get("type") == "string" and k.get("format") == "date-time" for k in kinds), (
                    name, field, prop)


def test_the_cli_prints_times_as_the_api_does(tmp_path):
    import re

    db = f"sqlite:///{tmp_path}/s.db"
    feed = json.dumps({"title": "Fed raises rates", "published_at": "2025-11-27T00:10:00Z"}) + "\n"
    assert cli("ingest", "-", "--db", db, "--model", "none", "--quiet", stdin=feed.encode()).returncode == 0
    story = json.loads(cli("stories", "--db", db, "--id", "1", "--json").stdout)
    assert story["start"] == story["end"] == "2025-11-27T00:10:00Z"
    for args in (("stories",), ("copy-groups",), ("copy-groups", "--id", "1")):
        answer = json.loads(cli(*args, "--db", db, "--json").stdout)
        times = _times(answer)
        assert times and all(re.fullmatch(ISO_UTC, str(v)) for _, v in times), (args, times)
    assert "2025-11-27T00:10:00Z .. 2025-11-27T00:10:00Z" in cli("stories", "--db", db, "--id", "1").stdout


# (3) 415 for a body that is not JSON; readable error locations ------------------------------------
@pytest.mark.parametrize("path", ["/v1/articles", "/v1/compare", "/v1/dedupe", "/v1/corrections"])
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_body_that_is_not_declared_json_gets_415(client, path, content_type):
    body = json.dumps({"articles": [{"title": "x"}], "texts": ["x"]}).encode()  # valid JSON all the same
    headers = {} if content_type is None else {"content-type": content_type}
    r = client.post(path, content=body, headers=headers)
    assert r.status_code == 415, r.text
    assert set(r.json()) == {"detail"} and "\n" not in r.json()["detail"]
    assert "send the body as application/json" in r.json()["detail"]
    # JSON under any JSON media type is read as before.
    ok = client.post("/v1/dedupe", content=json.dumps({"texts": ["a", "b"]}).encode(),
                     headers={"content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 200


def test_415_is_in_the_contract_of_every_route_with_a_body(client):
    spec = client.get("/openapi.json").json()
    for path, item in spec["paths"].items():
        for method, op in item.items():
            assert ("415" in op["responses"]) == ("requestBody" in op), (method, path)


def test_validation_errors_say_where_in_the_body_not_which_validator(client):
    texts = ["a", "b", "c", "x" * 200_001]
    r = client.post("/v1/dedupe", json={"texts": texts})
    assert r.status_code == 422
    assert r.json()["errors"] == [{"type": "string_too_long", "loc": ["body", "texts", 3],
                                   "msg": "String should have at most 200000 characters"}]
    assert r.json()["detail"] == "texts[3]: String should have at most 200000 characters"
    r = client.post("/v1/dedupe", json={"records": [{"text": "ok"}, {"text": 5}]})
    assert [e["loc"] for e in r.json()["errors"]] == [["body", "records", 1, "text"]]
    assert "function" not in r.text and "partial" not in r.text


# (4) every SAMESTORY_* variable read one way by every command -------------------------------------
@pytest.mark.parametrize("command", [("compare", "a", "b", "--model", "none"),
                                     ("ingest", "-", "--db", ":memory:", "--model", "none"),
                                     ("serve", "--db", ":memory:", "--model", "none", "--port", "1"),
                                     ("stories", "--db", "sqlite:///nowhere.db")])
def test_a_bad_variable_is_one_line_refusal_in_every_command(command):
    done = cli(*command, stdin=b'{"title": "x"}\n', env={"SAMESTORY_GUARDS": "maybe"})
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr == f"samestory {command[0]}: SAMESTORY_GUARDS must be true or false, got 'maybe'\n"


def test_samestory_guards_false_is_honoured_by_compare():
    pair = ("compare", "캐시 엔진 2.0 공개", "캐시 엔진 2.0.1 공개", "--json", "--model", "none")
    on = json.loads(cli(*pair).stdout)
    assert on["same"] is False and on["blocked_by"] == ["version"]
    off = cli(*pair, env={"SAMESTORY_GUARDS": "false", "SAMESTORY_VERIFIER": "false"})  # the verifier is not a guard
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["blocked_by"] == [] and json.loads(off.stdout)["guards"] == []


def test_env_setting_reads_as_serve_does():
    from service.api.settings import Settings, env_setting
    from service.config import ConfigError

    for raw, want in (("false", False), ("0", False), ("yes", True)):
        assert env_setting("guards", {"SAMESTORY_GUARDS": raw}) is want
        assert Settings.load(env={"SAMESTORY_GUARDS": raw, "SAMESTORY_MODEL": "none"}).guards is want
    with pytest.raises(ConfigError, match=r"^SAMESTORY_MAX_BATCH must be an integer, got 'ten'$"):
        env_setting("max_batch", {"SAMESTORY_MAX_BATCH": "ten"})


# (5) one article schema ---------------------------------------------------------------------------
LINES = [{"title": "Fed raises rates", "url": "https://a.example/1", "colour": "red", "meta": {"k": 1}},
         {"body": "연준이 기준금리를 인상했다.", "url": "https://b.example/1", "score": 0.5}]


def test_http_ingest_and_batch_accept_the_same_articles(client, tmp_path):
    r = client.post("/v1/articles", json={"articles": LINES})
    assert r.status_code == 200, r.text
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in LINES), encoding="utf-8")
    done = cli("ingest", str(feed), "--db", ":memory:", "--model", "none", "--json")
    assert done.returncode == 0, done.stderr
    assert [json.loads(x)["status"] for x in done.stdout.splitlines()] == ["new", "new"]
    from service.batch.io import read_records

    records = read_records([feed])
    assert [r.article.body for r in records] == ["", LINES[1]["body"]] and records[0].fields["colour"] == "red"


def test_http_ingest_and_batch_refuse_the_same_articles(client, tmp_path):
    bad = {"url": "https://c.example/1", "colour": "red"}  # neither title nor body
    r = client.post("/v1/articles", json={"articles": [bad]})
    assert r.status_code == 422 and "title or body" in r.json()["detail"]
    feed = tmp_path / "bad.jsonl"
    feed.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    done = cli("ingest", str(feed), "--db", ":memory:", "--model", "none")
    assert done.returncode != 0 and "an article needs a non-empty title or body" in done.stderr
    from service.batch.io import read_records

    # the batch reader also lists the record's fields (the fourteenth tour: a title under another name)
    with pytest.raises(ValueError, match=r"^bad\.jsonl:1: an article needs a non-empty title or body "
                                         r"\(its fields: 'url', 'colour'; --field names the title field\)$"):
        read_records([feed])


@pytest.mark.parametrize("name, meant, value", [("publishedAt", "published_at", "2024-02-07T01:00:00Z"),
                                                ("published-at", "published_at", "2024-02-07T01:00:00Z"),
                                                ("Title", "title", "Turkey quake toll 3000"),
                                                ("URL", "url", "https://f.example/4")])
def test_http_ingest_and_batch_refuse_a_misspelt_field_alike(client, tmp_path, name, meant, value):
    # Ignored as an extra field, publishedAt lost its time silently: the item was stamped now.
    line = {"title": "Turkey quake toll 3000", "url": "https://f.example/4", "colour": "red"}
    line = {**{k: v for k, v in line.items() if k != meant}, name: value}
    said = f"unknown field {name!r}: did you mean {meant!r}?"
    r = client.post("/v1/articles", json={"articles": [line]})
    assert r.status_code == 422 and r.json()["detail"] == f"articles[0]: {said}", r.text
    feed = tmp_path / "bad.jsonl"
    feed.write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = cli("ingest", str(feed), "--db", ":memory:", "--model", "none")
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [f"{feed}:1: {said}"], done.stderr
    from service.batch.io import read_records

    with pytest.raises(ValueError, match=rf"^bad\.jsonl:1: {said.replace('?', '[?]')}$"):
        read_records([feed])


def test_http_and_ingest_read_text_as_the_missing_title_alike(client, tmp_path):
    line = {"text": "Bank of Korea holds rates steady", "url": "https://k.example/1"}
    r = client.post("/v1/articles", json={"articles": [line]})
    assert r.status_code == 200, r.text
    doc = client.get(f"/v1/documents/{r.json()['results'][0]['document_id']}").json()
    assert doc["versions"][-1]["title"] == line["text"]
    feed = tmp_path / "text.jsonl"
    feed.write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = cli("ingest", str(feed), "--db", ":memory:", "--model", "none", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["status"] == "new", done.stderr
    # Only in place of a title: with one, text is ignored, as the CLI ignores it.
    r = client.post("/v1/articles", json={"articles": [{"title": "", "text": "Bank of Korea"}]})
    assert r.status_code == 422 and "title or body" in r.json()["detail"]


def test_stats_name_copy_groups_with_deprecated_aliases() -> None:
    from service import Article, Deduper

    with Deduper.open(":memory:", model=None) as d:
        d.ingest(Article(title="Bank of Korea holds key rate at 3.5%", url="https://a.example/1"))
        d.ingest(Article(title="Bank of Korea holds key rate at 3.5%", url="https://b.example/2"))
        stats = d.stats()
    assert stats["copy_groups"] == stats["clusters"] == 1
    assert stats["indexed_copy_groups"] == stats["indexed_clusters"] == 1
