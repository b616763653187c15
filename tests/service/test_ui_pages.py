"""The editors' pages without a browser: server-rendered HTML (what a reader with JavaScript off
gets), filters, the login cookie and named keys, corrections over HTTP, self-hosted API docs."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from service.api import Settings
from service.types import Article

FEED = [
    Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://www.nbnnews.co.kr/a/1001",
            source="nbnnews", published_at="2026-11-20T09:00:00+09:00", lang="ko"),
    Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://v.daum.net/v/2026112009",
            source="v.daum.net", published_at="2026-11-20T09:15:00+09:00", lang="ko"),
    Article(title="Fed raises rates by 25 basis points", url="https://www.reuters.com/x",
            source="reuters", published_at="2026-11-19T19:05:00+09:00", lang="en"),
]


@pytest.fixture
def client_for(make_client):
    """A client on an engine that has ingested FEED (conftest's make_client)."""
    return lambda **settings: make_client(FEED, **settings)


def _story_ids(html: str) -> list[int]:
    return [int(x) for x in re.findall(r'data-story="(\d+)"', html)]


def test_story_list_is_server_rendered_newest_first_with_iso_times(client_for):
    html = client_for().get("/ui").text
    assert _story_ids(html) == [2, 1]
    assert "v.daum.net" in html and "nbnnews" in html
    # ISO 8601 with an offset in the markup itself, and UTC in the machine-readable attribute.
    assert re.search(r'<time datetime="2026-11-20T00:00:00Z">2026-11-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d</time>', html)
    assert '<script src="/ui/static/ui.js" defer>' in html and "https://" not in html.split("<main>")[0]


@pytest.mark.parametrize("query, expected", [
    ("lang=en", [2]), ("lang=ko", [1]), ("outlet=daum", [1]), ("q=basis+points", [2]), ("q=%EC%A7%84%EC%B2%9C", [1]),
    ("since=2026-11-20", [1]), ("until=2026-11-19T23:59%2B09:00", [2]), ("lang=fr", []),
])
def test_story_filters(client_for, query, expected):
    assert _story_ids(client_for().get(f"/ui?{query}").text) == expected


def test_a_bad_filter_says_why(client_for):
    html = client_for().get("/ui?since=yesterday").text
    assert "since must be an ISO 8601 date or time" in html


def test_story_page_shows_members_reasons_guards_and_the_representative(client_for):
    client = client_for()
    html = client.get("/ui/stories/1").text
    assert len(re.findall(r'<tr class="member', html)) == 2
    assert "exact: same normalised title as document 1" in html  # title-only items: no body to name
    assert "subject</strong>:\n              passed" in html or "subject</strong>: passed" in re.sub(r"\s+", " ", html)
    # The copy group: why it is in the story, its representative and why, and how each member joined.
    assert re.search(r'<section class="group card" id="group-1"', html) and 'data-representative="1"' in html
    assert "first member" in html and "new story (story: no open story)" in html
    assert "Started the copy group" in html  # the first member is not dressed up as a match
    assert client.get("/ui/stories/99").status_code == 404


def test_title_in_the_readers_language(client_for):
    client = client_for()
    client.post("/v1/corrections", json={"kind": "merge", "into_story": 1, "from_story": 2})
    assert "<h1 lang=\"en\">Fed raises rates" in client.get("/ui/stories/1?hl=en").text
    assert "<h1 lang=\"ko\">진천군" in client.get("/ui/stories/1", headers={"Accept-Language": "ko-KR,ko;q=0.9"}).text
    emptied = client.get("/ui/stories/2").text  # the merged story says where its members went
    assert "anonymous merged it into <a href=\"/ui/stories/1\">story 1</a>" in emptied
    assert _story_ids(client.get("/ui").text) == [1]


def test_compare_box_without_javascript(client_for):
    r = client_for().post("/ui/compare", data={"a": "FED RAISES RATES", "b": "Fed raises rates"})
    assert r.status_code == 200 and re.search(r'id="verdict">\s*SAME', r.text)
    part = client_for().post("/ui/compare?part=result", data={"a": "a", "b": ""})
    assert "both texts are needed" in part.text and "<html" not in part.text


def test_merge_and_not_same_from_the_page(client_for):
    client = client_for()
    r = client.post("/ui/stories/1/merge", data={"other_story": "2", "note": "same desk"}, follow_redirects=False)
    assert "story+2+merged+into+story+1" in r.headers["location"]
    html = client.get("/ui/stories/1").text
    assert len(re.findall(r'<tr class="member', html)) == 3
    # Stories merge, copy groups do not: the page shows the story's groups as GET /v1/stories/1 does.
    api = client.get("/v1/stories/1").json()
    assert [int(g) for g in re.findall(r'data-group="(\d+)"', html)] == [g["id"] for g in api["copy_groups"]] == [1, 2]
    assert "editor anonymous merged story 2 into story 1" in html
    r = client.post("/ui/stories/1/not-same", data={"doc_a": "1", "doc_b": "3"}, follow_redirects=False)
    assert "moved+to+story+3" in r.headers["location"]
    r = client.post("/ui/stories/3/merge", data={"other_story": "1"}, follow_redirects=False)
    assert "marked+not+the+same" in r.headers["location"]  # the cannot-link refuses it, on the page
    r = client.post("/ui/stories/1/merge", data={"other_story": "two"}, follow_redirects=False)
    assert "whole+number" in r.headers["location"]


def test_split_from_the_page_and_the_corrections_list(client_for):
    client = client_for()
    r = client.post("/ui/stories/1/split", data={"document_id": "2"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/ui/stories/3?notice=")
    assert "document 2 split off story 1 into story 3" in client.get(r.headers["location"]).text
    assert "anonymous" in client.get("/ui/corrections").text
    r = client.post("/ui/stories/3/split", data={"document_id": "2"}, follow_redirects=False)
    assert "only+member" in r.headers["location"] or "only%20member" in r.headers["location"]


def test_undo_from_the_corrections_list(client_for):
    """Ninth tour, "No undo": the page had no way back from a split (a merge back was refused)."""
    client = client_for()
    client.post("/ui/stories/1/split", data={"document_id": "2"})
    html = client.get("/ui/corrections").text
    assert 'action="/ui/corrections/1/withdraw"' in html and ">Undo</button>" in html
    r = client.post("/ui/corrections/1/withdraw", data={"note": "wrong member"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/ui/corrections?notice=")
    html = client.get(r.headers["location"]).text
    assert "correction 1 withdrawn (split of document 2 off story 1): 1 document placed again" in html
    assert 'class="withdrawn"' in html and "withdrawn by anonymous" in html and ": wrong member" in html
    assert 'action="/ui/corrections/1/withdraw"' not in html  # nothing left to undo
    assert len(re.findall(r'<tr class="member', client.get("/ui/stories/1").text)) == 2  # back in its story
    r = client.post("/ui/corrections/1/withdraw", follow_redirects=False)
    assert "already+withdrawn" in r.headers["location"]
    assert "already withdrawn by anonymous" in client.get(r.headers["location"]).text


def test_named_keys_login_cookie_and_who(client_for):
    client = client_for(api_keys="alice=k-alice,bob=k-bob")
    r = client.get("/ui/stories/1", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/login?next=/ui/stories/1"
    r = client.post("/ui/login", data={"key": "nope", "next": "/ui"}, follow_redirects=False)
    assert "error=" in r.headers["location"] and "samestory_key" not in r.headers.get("set-cookie", "")
    r = client.post("/ui/login", data={"key": "k-bob", "next": "https://evil.example/"}, follow_redirects=False)
    assert r.headers["location"] == "/ui"  # never sent off-site after signing in
    cookie = r.headers["set-cookie"]
    assert "samestory_key=k-bob" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert '<strong id="who">bob</strong>' in client.get("/ui").text
    created = client.post("/v1/corrections", json={"kind": "split", "document_id": 2})
    assert created.status_code == 201 and created.json()["who"] == "bob"
    client.post("/ui/logout")
    client.cookies.clear()
    # A reverse proxy that signs people in adds the header itself; the name is the key's.
    r = client.post("/v1/corrections", json={"kind": "not_same", "doc_a": 1, "doc_b": 3},
                    headers={"X-API-Key": "k-alice"})
    assert r.json()["who"] == "alice"
    assert client.get("/ui", headers={"X-API-Key": "k-alice"}).status_code == 200
    assert client.get("/v1/corrections").status_code == 401
    # /docs: a browser is sent to the login form, an API client gets the 401.
    r = client.get("/docs", headers={"Accept": "text/html,application/xhtml+xml"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/ui/login?next=/docs"
    assert client.get("/docs").status_code == 401
    assert client.get("/redoc", headers={"X-API-Key": "k-alice"}).status_code == 200


def test_api_keys_setting_is_validated():
    with pytest.raises(ValueError, match="api_keys must be 'name=key' pairs"):
        Settings(api_keys="alice")
    with pytest.raises(ValueError, match="keys must differ"):
        Settings(api_keys="alice=k,bob=k")
    assert Settings(api_keys="alice=k").public()["api_keys"] == "alice=***"


def test_corrections_api_and_pairs_export(client_for):
    client = client_for()
    assert client.post("/v1/corrections", json={"kind": "split"}).status_code == 422
    # An unknown id is a 404 as api.md's error table says (it was a 409); a conflict stays a 409.
    missing = client.post("/v1/corrections", json={"kind": "split", "document_id": 9999})
    assert missing.status_code == 404 and missing.json()["detail"] == "document 9999 does not exist"
    missing = client.post("/v1/corrections", json={"kind": "merge", "into_story": 1, "from_story": 9999})
    assert missing.status_code == 404 and missing.json()["detail"] == "story 9999 does not exist"
    itself = client.post("/v1/corrections", json={"kind": "merge", "into_story": 1, "from_story": 1})
    assert itself.status_code == 409 and itself.json()["detail"] == "story 1 cannot be merged into itself"
    assert client.post("/v1/corrections", json={"kind": "split", "document_id": 2}).status_code == 201
    assert [c["kind"] for c in client.get("/v1/corrections").json()] == ["split"]
    r = client.get("/v1/corrections/pairs")
    assert r.headers["content-type"].startswith("application/x-ndjson")
    assert '"label": 0' in r.text and '"kind": "editor_split"' in r.text


def test_withdrawing_a_correction_over_http(client_for):
    """Ninth tour, "No undo": no route took a correction back."""
    client = client_for(api_keys="alice=k-alice,bob=k-bob")
    alice, bob = {"X-API-Key": "k-alice"}, {"X-API-Key": "k-bob"}
    split = client.post("/v1/corrections", json={"kind": "split", "document_id": 2}, headers=alice).json()
    r = client.post(f"/v1/corrections/{split['id']}/withdraw", json={"note": "the same release"}, headers=bob)
    assert r.status_code == 200 and r.json()["withdrawn"]["who"] == "bob" and r.json()["withdrawn"]["note"] == "the same release"
    assert [g["id"] for g in client.get("/v1/stories/1", headers=bob).json()["copy_groups"]] == [1]  # back in its story
    listed = client.get("/v1/corrections", headers=bob).json()
    assert listed[0]["id"] == split["id"] and listed[0]["withdrawn"]["who"] == "bob" and listed[0]["who"] == "alice"
    assert client.get("/v1/corrections/pairs", headers=bob).text == ""  # a withdrawn correction is no labelled pair
    again = client.post(f"/v1/corrections/{split['id']}/withdraw", headers=bob)
    assert again.status_code == 409 and again.json()["detail"].startswith(
        f"correction {split['id']} (split of document 2 off story 1) was already withdrawn by bob at ")
    missing = client.post("/v1/corrections/77/withdraw", headers=bob)
    assert missing.status_code == 404 and missing.json()["detail"] == "correction 77 does not exist"
    assert client.post("/v1/corrections/1/withdraw").status_code == 401
    assert client.post("/v1/corrections/1/withdraw", json={"why": "x"}, headers=bob).status_code == 422
    spec = client.get("/openapi.json", headers=bob).json()
    assert set(spec["paths"]["/v1/corrections/{correction_id}/withdraw"]["post"]["responses"]) >= {"200", "404", "409"}


def test_api_docs_and_assets_come_from_the_service(client_for):
    client = client_for()
    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        urls = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert urls and all(u.startswith("/ui/static/") for u in urls), urls
        assert "fonts.googleapis" not in html and "cdn.jsdelivr" not in html
        for u in urls:
            assert client.get(u).status_code == 200, u


def test_eval_page_shows_the_report_and_its_figures(client_for):
    client = client_for()
    html = client.get("/ui/eval").text
    figures = re.findall(r'src="(/ui/eval/figures/[^"]+\.png)"', html)
    assert "/ui/eval/figures/f1_by_set.png" in figures and any(f.endswith("_cosine.png") for f in figures)
    assert "ntrex128-kor-eng" in html and "embedding_threshold" in html
    assert client.get(figures[0]).headers["content-type"] == "image/png"
    assert client.get("/ui/eval/figures/..%2Fresults.json").status_code == 404


def test_eval_page_points_to_docs_that_exist(client_for):
    # It sent readers to README, "Calibration", a section the README does not have.
    from tests.paths import REPO_ROOT

    html = client_for().get("/ui/eval").text
    refs = re.findall(r'\b(README|docs/[a-z]+\.md)(?:, "([^"]+)")?', html)
    assert refs, "the page names no doc for the thresholds"
    for name, section in refs:
        path = REPO_ROOT / ("README.md" if name == "README" else name)
        assert path.is_file(), name
        if section:
            headings = [line.lstrip("#").strip() for line in path.read_text("utf-8").splitlines() if line.startswith("#")]
            assert section in headings, (name, section)


def test_corrections_page_says_to_pool_the_pairs_with_held_out_ones(client_for):
    """Sixth tour: the page said "then samestory eval calibrate corrections.jsonl"; on the
    editors' pairs alone (three corrections, two of them story-level) that calibrates nothing
    (status 1, "no copy-level pairs"). docs/ui.md says to pool them with held-out pairs."""
    html = " ".join(client_for().get("/ui/corrections").text.split())
    assert "samestory eval calibrate corrections.jsonl held-out-pairs.jsonl" in html
    assert "then <code>samestory eval calibrate corrections.jsonl</code>." not in html


def test_a_bad_story_number_is_named_as_the_form_labels_it(client_for):
    """Sixth tour: "abc" typed into the merge form's "Story number" came back as
    "other_story must be a whole number, got 'abc'" (the form field's name, not its label)."""
    client = client_for()
    r = client.post("/ui/stories/1/merge", data={"other_story": "abc"}, follow_redirects=False)
    error = client.get(r.headers["location"]).text
    assert "story number must be a whole number, got &#39;abc&#39;" in error
    assert "other_story" not in parse_qs(urlsplit(r.headers["location"]).query)["error"][0]


def test_the_story_list_says_how_many_are_shown_and_how_many_were_searched(client_for):
    """Under a filter the count said "2 stories read" while showing 1 (the sixth tour): it says
    what is shown, and what was searched to find it."""
    client = client_for()
    assert "2 shown." in client.get("/ui").text
    assert "1 shown of 2 stories searched." in client.get("/ui?lang=en").text


def test_search_finds_every_word_in_a_title_in_any_order(client_for):
    """Ninth tour: the box asks for "words in any member's title", but "gwangju strike" found
    nothing where a title said "Gwangju teachers' union to begin general strike": the query was
    one phrase. Every word now has to be in one member's title, in any order."""
    client = client_for()
    assert _story_ids(client.get("/ui?q=fed+points").text) == [2]
    assert _story_ids(client.get("/ui?q=points+FED").text) == [2]
    assert _story_ids(client.get("/ui?q=%EC%A7%84%EC%B2%9C%EA%B5%B0+%EB%8F%8C%EB%B4%84").text) == [1]  # 진천군 돌봄
    assert _story_ids(client.get("/ui?q=fed+%EB%8F%8C%EB%B4%84").text) == []  # words of two stories' titles


def test_a_refused_correction_keeps_what_the_editor_typed(client_for):
    """Ninth tour: a mistyped story number in the merge form came back with the error and an
    empty form, the editor's note lost. The refused form is refilled; the other form is not."""
    client = client_for()
    note = 'same desk, "wire" copy <checked>'
    r = client.post("/ui/stories/1/merge", data={"other_story": "999", "note": note}, follow_redirects=False)
    html = client.get(r.headers["location"]).text
    assert "story 999 does not exist" in html
    assert 'name="other_story" inputmode="numeric" size="6" required value="999"' in html
    assert 'value="same desk, &#34;wire&#34; copy &lt;checked&gt;"' in html
    assert html.count('value="same desk') == 1  # the not-same form's note stays empty
    r = client.post("/ui/stories/1/not-same", data={"doc_a": "2", "doc_b": "2", "note": "typo"},
                    follow_redirects=False)
    html = " ".join(client.get(r.headers["location"]).text.split())
    assert "a document is always the same as itself" in html
    assert re.search(r'name="doc_a"><option value="1" >1 · nbnnews</option><option value="2" selected>', html)
    assert 'value="typo"' in html and 'required value=""' in html
    assert "note=" not in client.post("/ui/stories/1/merge", data={"other_story": "2", "note": "ok"},
                                      follow_redirects=False).headers["location"]  # a success says only what it did
