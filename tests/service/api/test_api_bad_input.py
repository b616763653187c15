"""One test per class of bad input: each gets a 4xx whose detail says what is wrong, and stores nothing."""

from __future__ import annotations

import re

import pytest

from tests.paths import REPO_ROOT

GOOD = {"title": "Fed raises rates", "url": "https://a.example/1"}


@pytest.fixture
def client(make_client):
    return make_client(max_batch=3, max_body_bytes=20_000, max_dedupe_texts=4, max_page=50)


def stored(client) -> int:
    return len(client.get("/v1/copy-groups").json()["copy_groups"])


def test_malformed_json(client):
    r = client.post("/v1/articles", content=b'{"articles": [', headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert r.json()["detail"].startswith("malformed JSON at character 14")


def test_a_jsonl_feed_or_a_bare_list_says_what_the_body_should_be(client):
    # Fifth tour: a JSONL feed posted as is said only "Extra data", and a bare list of articles
    # "Input should be a valid dictionary or object to extract fields from".
    feed = b'{"title": "Fed raises rates"}\n{"title": "ECB holds rates"}\n'
    r = client.post("/v1/articles", content=feed, headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert re.fullmatch(r"malformed JSON at character \d+: Extra data \(the body is one JSON object, not JSON lines\)",
                        r.json()["detail"]), r.json()["detail"]
    r = client.post("/v1/articles", json=[GOOD])
    assert r.status_code == 422 and r.json()["detail"] == "body: expected a JSON object, got an array"
    r = client.post("/v1/compare", json={"a": "Fed raises rates", "b": {"title": "Fed raises rates"}})
    assert r.status_code == 422 and r.json()["detail"] == "a: expected a JSON object, got a string"
    assert stored(client) == 0


def test_missing_body(client):
    r = client.post("/v1/articles")
    assert r.status_code == 422 and "request body is missing" in r.json()["detail"]


@pytest.mark.parametrize("payload, where, what", [
    ({"articles": [{"title": 5}]}, "articles[0].title", "valid string"),
    ({"articles": {"title": "x"}}, "articles", "valid list"),
    ({"articles": [GOOD, {"title": "x", "published_at": 1700000000}]}, "articles[1].published_at", "ISO-8601"),
    ({"articles": [{"title": "x", "published_at": "yesterday"}]}, "articles[0].published_at", "datetime"),
    ({"items": [GOOD]}, "articles", "Field required"),
])
def test_wrong_types_and_unknown_fields(client, payload, where, what):
    r = client.post("/v1/articles", json=payload)
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith(f"{where}: ") and what in r.json()["detail"]
    assert stored(client) == 0


@pytest.mark.parametrize("payload, detail", [
    ({"articles": []}, "articles: List should have at least 1 item"),
    ({"articles": [GOOD, {"title": "  ", "body": "\n"}]}, "articles[1]: an article needs a non-empty title or body"),
])
def test_empty_items(client, payload, detail):
    r = client.post("/v1/articles", json=payload)
    assert r.status_code == 422 and r.json()["detail"].startswith(detail)
    assert stored(client) == 0


def test_a_null_field_is_an_absent_one_as_in_ingest_and_batch(client):
    # Seventh tour: null url, source, lang, published_at were accepted, but a null title, body or
    # channel was a 422 ("Input should be a valid string") that ingest and batch, which read null
    # as absent (Article.from_dict), accepted: docs/scale.md makes a record an article as api.md says.
    from service.types import Article

    line = {"title": None, "body": "Fed raises rates by a quarter point.", "channel": None, "url": None,
            "source": None, "published_at": None, "lang": None, "id": "n1"}
    r = client.post("/v1/articles", json={"articles": [line, {"title": None, "text": "ECB holds rates", "body": None}]})
    assert r.status_code == 200, r.text
    assert [x["status"] for x in r.json()["results"]] == ["new", "new"]
    nulled = client.get(f"/v1/documents/{r.json()['results'][0]['document_id']}").json()
    assert nulled["channel"] == Article.from_dict(line).channel == "default"
    doc = client.get(f"/v1/documents/{r.json()['results'][1]['document_id']}").json()
    assert doc["versions"][0]["title"] == "ECB holds rates"
    # Still refused: nothing to read once nulls are set aside, as ingest refuses it.
    r = client.post("/v1/articles", json={"articles": [{"title": None, "body": None}]})
    assert r.status_code == 422 and r.json()["detail"] == "articles[0]: an article needs a non-empty title or body"
    r = client.post("/v1/compare", json={"a": {"title": "Fed raises rates", "body": None}, "b": {"title": "Fed raises rates"}})
    assert r.status_code == 200 and r.json()["same"] is True
    # An optional field's limit is said as a string's, as the title's always was.
    r = client.post("/v1/articles", json={"articles": [{"title": "x", "source": "s" * 3000}]})
    assert r.status_code == 422 and r.json()["detail"].startswith("articles[0].source: String should have at most")


def test_dedupe_says_which_of_texts_and_records_is_wrong(client):
    # Neither was answered "give either texts or records, not both".
    r = client.post("/v1/dedupe", json={})
    assert r.status_code == 422
    assert r.json()["detail"] == "body: give texts (strings) or records (objects with a text field): neither was sent"
    r = client.post("/v1/dedupe", json={"texts": ["a"], "records": [{"text": "a"}]})
    assert r.status_code == 422 and r.json()["detail"] == "body: give either texts or records, not both"


def test_empty_dedupe_and_compare_items(client):
    # nothing retrieved is nothing to filter, as Deduper.dedupe([]) and the CLI on an empty file say
    empty = {"copy_groups": [], "clusters": [], "keep": [], "duplicate_of": [], "selected": [], "dropped": [],
             "decisions": []}
    for body in ({"texts": []}, {"records": []}, {"texts": [], "kind": "headline"}):
        r = client.post("/v1/dedupe", json=body)
        assert r.status_code == 200 and r.json() == empty, (body, r.text)
    r = client.post("/v1/compare", json={"a": {"title": ""}, "b": GOOD})
    assert r.status_code == 422 and r.json()["detail"] == "a: an article needs a non-empty title or body"
    r = client.post("/v1/dedupe", json={"texts": ["a"], "threshold": 1.5})
    assert r.status_code == 422 and r.json()["detail"].startswith("threshold: Input should be less than or equal to 1")


def test_oversize_body_declared_and_streamed(client):
    big = {"articles": [{"title": "x", "body": "y" * 30_000}]}
    r = client.post("/v1/articles", json=big)
    assert r.status_code == 413
    assert "the limit is 20000 bytes (setting max_body_bytes)" in r.json()["detail"]

    def chunks():  # no Content-Length: the limit must hold on the stream itself
        for _ in range(30):
            yield b" " * 1_000

    r = client.post("/v1/articles", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "max_body_bytes" in r.json()["detail"]
    assert stored(client) == 0


def test_oversize_fields(client):
    r = client.post("/v1/articles", json={"articles": [{"title": "t" * 2_001}]})
    assert r.status_code == 422 and r.json()["detail"].startswith("articles[0].title: String should have at most 2000")


def test_oversize_batches(client):
    r = client.post("/v1/articles", json={"articles": [GOOD] * 4})
    assert r.status_code == 413
    assert r.json()["detail"] == "batch of 4 articles exceeds the limit of 3 (setting max_batch)"
    r = client.post("/v1/dedupe", json={"texts": ["a"] * 5})
    assert r.status_code == 413 and r.json()["detail"] == "5 texts exceed the limit of 4 (setting max_dedupe_texts)"
    # records were counted as "texts" too
    r = client.post("/v1/dedupe", json={"records": [{"text": "a"}] * 5})
    assert r.status_code == 413 and r.json()["detail"] == "5 records exceed the limit of 4 (setting max_dedupe_texts)"
    r = client.get("/v1/copy-groups", params={"limit": 51})
    assert r.status_code == 422 and "page limit of 50" in r.json()["detail"]
    assert stored(client) == 0


@pytest.mark.parametrize("url, reason", [
    ("ftp://a.example/x", "scheme must be http or https"),
    ("not a url", "invalid url"),
    ("https://", "invalid url"),
    ("javascript:alert(1)", "invalid url"),
])
def test_invalid_urls(client, url, reason):
    r = client.post("/v1/articles", json={"articles": [GOOD, {"title": "x", "url": url}]})
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith("articles[1].url: invalid url") and reason in r.json()["detail"]
    assert stored(client) == 0  # the good first item was not stored either


def test_bad_ids_and_unknown_routes(client):
    assert client.get("/v1/documents/abc").json()["detail"].startswith("path.document_id: Input should be a valid integer")
    assert client.get("/v1/documents/0").status_code == 422
    assert client.get("/v1/nothing").status_code == 404
    assert client.put("/v1/articles", json={}).status_code == 405


def test_the_service_never_fetches_urls(client, monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("the service tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    r = client.post("/v1/articles", json={"articles": [{"title": "x", "url": "https://unreachable.invalid/a"}]})
    assert r.status_code == 200


def _api_md_error_example(status: int) -> str:
    """The example ``detail`` of docs/api.md's error table row for ``status``."""
    table = (REPO_ROOT / "docs" / "api.md").read_text("utf-8").split("## Errors", 1)[1]
    found = re.search(rf"^\| [^|]+ \| {status} \| `([^`]+)` \|$", table, re.M)
    assert found, f"docs/api.md's error table has no {status} row"
    return found.group(1)


def test_a_body_not_sent_as_json_is_the_415_api_md_lists(client):
    r = client.post("/v1/articles", content=b'{"articles": []}', headers={"content-type": "text/plain"})
    assert r.status_code == 415
    assert r.json()["detail"] == _api_md_error_example(415)


def test_a_dedupe_record_lang_must_be_a_language_tag(client):
    # "korean" was a 500 (the guards refused it mid-dedupe) and 3 was silently replaced by detection.
    a = "한국은행은 29일 기준금리를 연 3.50%에서 3.25%로 0.25%포인트 인하했다. 물가 상승률이 2%대 초반으로 안정됐다."
    b = a.replace("한국은행은", "한국은행이")
    for lang in ("korean", 3, ""):
        r = client.post("/v1/dedupe", json={"records": [{"text": a, "lang": "ko"}, {"text": b, "lang": lang}]})
        assert r.status_code == 422, (lang, r.text)
        assert r.json()["detail"].startswith("records[1].lang: "), r.text
    r = client.post("/v1/dedupe", json={"records": [{"text": a, "lang": "ko"}, {"text": b, "lang": "ko-KR", "id": 1}]})
    assert r.status_code == 200 and r.json()["duplicate_of"] == [None, 0], r.text
    # a record comes back as it was sent: no "lang": null added to one without it
    assert r.json()["selected"] == [{"text": a, "lang": "ko"}]
    r = client.post("/v1/dedupe", json={"records": [{"text": a, "id": "x"}]})
    assert r.json()["selected"] == [{"text": a, "id": "x"}]
