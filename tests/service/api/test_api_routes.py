"""The HTTP routes on an in-memory engine: shapes, order, reading back, deletion, metrics."""

from __future__ import annotations

import logging

import pytest

from service.engine import Deduper
from service.store import open_store
from service.types import Article

STORY = [
    {"title": "Fed raises interest rates by a quarter point", "url": "https://a.example/fed", "id": "a"},
    {"title": "FED RAISES INTEREST RATES BY A QUARTER POINT", "url": "https://b.example/fed?utm_source=x", "id": "b"},
    {"title": "Samsung unveils a foldable phone with a larger screen", "url": "https://c.example/fold", "id": "c"},
]


@pytest.fixture
def client(make_client):
    return make_client()


def test_healthz(client):
    body = client.get("/healthz").json()
    assert body == {"status": "ok", "model": None, "guards": True, "store": "sqlite"}


def test_ingest_returns_results_in_input_order_matching_the_engine(client):
    r = client.post("/v1/articles", json={"articles": STORY})
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["id"] for x in results] == ["a", "b", "c"]
    assert [x["status"] for x in results] == ["new", "duplicate", "new"]
    assert results[1]["copy_group_id"] == results[0]["copy_group_id"] != results[2]["copy_group_id"]
    # Same fields as the CLI's JSON lines (IngestResult.to_dict) from a fresh engine on the same input.
    engine = Deduper(open_store(":memory:"), embedder=None)
    expected = [res.to_dict() for res in engine.ingest_many([Article.from_dict(a) for a in STORY])]
    assert results == expected
    # Re-sending an item is a re-observation of the same document.
    again = client.post("/v1/articles", json={"articles": STORY[:1]}).json()["results"][0]
    assert (again["status"], again["document_id"]) == ("reobserved", results[0]["document_id"])


def test_compare_and_dedupe_are_stateless(client):
    d = client.post("/v1/compare", json={"a": {"title": "Fed raises rates"}, "b": {"title": "FED raises rates!"}})
    assert d.status_code == 200 and d.json()["same"] is True and d.json()["stage"] == "exact"
    d = client.post("/v1/compare", json={"a": {"title": "Fed raises rates"},
                                         "b": {"title": "Samsung unveils a foldable phone"}})
    assert d.json()["same"] is False
    texts = ["Fed raises rates by 25bp", "fed raises rates by 25bp", "ECB holds rates steady"]
    r = client.post("/v1/dedupe", json={"texts": texts, "threshold": 0.9}).json()
    assert r["copy_groups"] == [[0, 1], [2]] and r["keep"] == [0, 2] and len(r["decisions"]) == 3
    assert client.get("/v1/copy-groups").json()["copy_groups"] == []  # nothing was stored


def test_dedupe_does_not_wait_for_the_engine_lock(client):
    # An ingest batch holds the engine lock for its whole transaction; a RAG pipeline's dedupe,
    # which reads neither the candidate state nor the store, must not queue behind it.
    import threading

    service = client.app.state.service
    answers: list[int] = []

    def post(path: str, body: dict) -> None:
        answers.append(client.post(path, json=body).status_code)

    with service.lock:  # what a long ingest looks like to other requests
        t = threading.Thread(target=post, args=("/v1/dedupe", {"texts": ["Fed raises rates", "FED raises rates!"]}))
        t.start()
        t.join(timeout=20)
        assert not t.is_alive() and answers == [200]
        ingest = threading.Thread(target=post, args=("/v1/articles", {"articles": STORY[:1]}))
        ingest.start()
        ingest.join(timeout=1.0)
        assert ingest.is_alive()  # an ingest still waits for the lock
    ingest.join(timeout=20)
    assert answers == [200, 200]


def test_document_copy_group_and_listing(client):
    res = client.post("/v1/articles", json={"articles": STORY}).json()["results"]
    client.post("/v1/articles", json={"articles": [{**STORY[0], "body": "updated text"}]})
    doc = client.get(f"/v1/documents/{res[0]['document_id']}").json()
    assert doc["doc_key"] == "https://a.example/fed" and len(doc["versions"]) == 2
    assert [o["status"] for o in doc["observations"]] == ["new", "new_version"]
    assert doc["membership"]["copy_group_id"] == doc["copy_group_id"] == res[0]["copy_group_id"]

    cluster = client.get(f"/v1/copy-groups/{res[1]['copy_group_id']}").json()
    assert {m["document_id"] for m in cluster["members"]} == {res[0]["document_id"], res[1]["document_id"]}
    assert cluster["representative_id"] == res[1]["representative_id"]
    assert cluster["representative_reason"] and cluster["events"][0]["reason"] == "first member"
    joined = next(m for m in cluster["members"] if m["document_id"] == res[1]["document_id"])
    assert joined["stage"] == "exact" and joined["decision"]["same"] is True

    page = client.get("/v1/copy-groups", params={"limit": 1}).json()
    assert len(page["copy_groups"]) == 1 and page["next_offset"] == 1
    rest = client.get("/v1/copy-groups", params={"limit": 1, "offset": 1}).json()
    assert rest["next_offset"] is None
    assert ({page["copy_groups"][0]["id"], rest["copy_groups"][0]["id"]}
            == {res[0]["copy_group_id"], res[2]["copy_group_id"]})
    assert sorted([page["copy_groups"][0]["size"], rest["copy_groups"][0]["size"]]) == [1, 2]
    assert client.get("/v1/documents/999").status_code == 404
    assert client.get("/v1/copy-groups/999").json()["detail"] == "copy group 999 does not exist"


def test_delete_removes_from_indices_and_hands_over_representative(client):
    res = client.post("/v1/articles", json={"articles": STORY}).json()["results"]
    rep = res[1]["representative_id"]
    other = ({res[0]["document_id"], res[1]["document_id"]} - {rep}).pop()
    r = client.delete(f"/v1/documents/{rep}")
    assert r.status_code == 200 and r.json() == {"document_id": rep, "deleted": True, "erased": False,
                                                     "new_representative_id": other}
    assert client.get(f"/v1/documents/{rep}").status_code == 404
    assert client.get(f"/v1/documents/{rep}", params={"include_deleted": True}).json()["deleted"] is True
    assert client.delete(f"/v1/documents/{rep}").json()["detail"] == f"document {rep} is already deleted"
    assert client.get(f"/v1/copy-groups/{res[1]['copy_group_id']}").json()["representative_id"] == other
    # Gone from the indices: the same text under a new URL matches the surviving member only.
    again = client.post("/v1/articles", json={"articles": [{**STORY[0], "url": "https://d.example/x"}]})
    hit = again.json()["results"][0]
    assert hit["status"] == "duplicate" and hit["decision"]["matched_id"] == other and hit["duplicate_of"] == other
    metrics = client.get("/metrics").text
    assert 'samestory_index_size{index="documents"} 3.0' in metrics


def test_a_deleted_documents_url_sent_again_is_a_new_document(client):
    # It came back "reobserved" as the deleted document, which every GET then called deleted, in a
    # copy group with no members that still named it as its representative.
    item = {"title": "Turkey quake toll rises to 3000", "url": "https://f.example/4"}
    [first] = client.post("/v1/articles", json={"articles": [item]}).json()["results"]
    doc, group = first["document_id"], first["copy_group_id"]
    assert client.delete(f"/v1/documents/{doc}").json()["new_representative_id"] is None
    shown = client.get(f"/v1/copy-groups/{group}").json()
    assert shown["members"] == [] and shown["representative_id"] is None
    assert shown["representative_reason"] == f"representative document {doc} was deleted and no live member took its place"
    listed = next(g for g in client.get("/v1/copy-groups").json()["copy_groups"] if g["id"] == group)
    assert listed["representative_id"] is None and listed["title"] is None and listed["size"] == 0

    [again] = client.post("/v1/articles", json={"articles": [item]}).json()["results"]
    assert again["status"] == "new" and again["document_id"] != doc and again["copy_group_id"] != group
    assert again["representative_id"] == again["document_id"]
    new = client.get(f"/v1/documents/{again['document_id']}")
    assert new.status_code == 200 and new.json()["url"] == item["url"]
    assert client.get(f"/v1/copy-groups/{again['copy_group_id']}").json()["members"][0]["document_id"] == new.json()["id"]
    # The deleted one keeps its provenance; sent a third time, the URL is the new document's.
    old = client.get(f"/v1/documents/{doc}", params={"include_deleted": True}).json()
    assert old["deleted"] is True and old["url"] == item["url"]
    [third] = client.post("/v1/articles", json={"articles": [item]}).json()["results"]
    assert third["status"] == "reobserved" and third["document_id"] == again["document_id"]


def test_metrics_counts_stages_merges_and_latency(client):
    client.post("/v1/articles", json={"articles": STORY})
    text = client.get("/metrics").text
    assert 'samestory_merges_total{stage="exact"} 1.0' in text
    assert 'samestory_items_total{stage="exact",status="duplicate"} 1.0' in text
    # new items are counted under "none" (no stage matched them), not under the last stage tried
    new_lines = [line for line in text.splitlines() if line.startswith("samestory_items_total{") and 'status="new"' in line]
    assert new_lines == ['samestory_items_total{stage="none",status="new"} 2.0']
    assert 'samestory_request_seconds_count{code="200",method="POST",route="/v1/articles"} 1.0' in text
    assert 'samestory_index_size{index="clusters"} 2.0' in text
    assert 'samestory_store_rows{table="documents"} 3.0' in text
    assert "samestory_guard_vetoes" in text


def test_metrics_help_says_copy_group_where_it_counts_copy_groups(client):
    """`samestory_merges` counts items joined to a copy group (docs/api.md), not to a story, and the
    index gauge's labels are documents, copy groups and vectors; the HELP lines said "story" and
    "clusters" (the copy groups' old name)."""
    text = client.get("/metrics").text
    helps = {line.split(" ", 3)[2]: line.split(" ", 3)[3] for line in text.splitlines() if line.startswith("# HELP ")}
    assert "copy group" in helps["samestory_merges_total"] and "story" not in helps["samestory_merges_total"]
    assert "copy groups" in helps["samestory_index_size"]
    # the engine's own counters (the verifier, settling, deletion) say what each count is of
    assert "Pairs the pair verifier read" in helps["samestory_verifier_pairs_total"]
    assert "not dedupe" in helps["samestory_verifier_pairs_total"]
    for outcome in ("confirmed", "refused", "rescued", "Korean-English"):
        assert outcome in helps["samestory_verifier_outcomes_total"]
    assert "Seconds" in helps["samestory_verifier_seconds_total"]
    assert "done, failed" in helps["samestory_settle_runs_total"]
    assert "copy group (level copy)" in helps["samestory_settle_moves_total"]
    assert "story (level story)" in helps["samestory_settle_moves_total"]
    assert "representative" in helps["samestory_deletions_total"]


def _metric(text: str, name: str) -> float:
    """The value of the one line ``name`` (with its labels) in a /metrics page."""
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.rsplit(" ", 1)[0] == name]
    assert len(values) == 1, name
    return values[0]


def test_metrics_count_what_the_shipped_verifier_read_and_confirmed(client):
    """The verifier's reads show in /metrics, counted where it is called (thirteenth tour: only its
    vetoes did). The app's engine runs the shipped verifier (the default config)."""
    before = client.get("/metrics").text
    assert _metric(before, "samestory_verifier_pairs_total") == 0.0
    near = [{"title": "Fed raises interest rates by a quarter point", "url": "https://a.example/fed"},
            {"title": "Fed raises interest rates by a quarter point, analysts say", "url": "https://b.example/fed"}]
    results = client.post("/v1/articles", json={"articles": near}).json()["results"]
    assert [r["status"] for r in results] == ["new", "duplicate"]
    assert any(x.startswith("verifier: 1.00") for x in results[1]["decision"]["reasons"])
    text = client.get("/metrics").text
    assert _metric(text, "samestory_verifier_pairs_total") == 1.0
    assert _metric(text, "samestory_verifier_calls_total") == 1.0
    assert _metric(text, 'samestory_verifier_outcomes_total{outcome="confirmed"}') == 1.0
    assert _metric(text, 'samestory_verifier_outcomes_total{outcome="refused"}') == 0.0
    assert _metric(text, 'samestory_verifier_outcomes_total{outcome="rescued"}') == 0.0
    assert _metric(text, "samestory_verifier_seconds_total") > 0.0


def test_settling_and_deletion_are_counted_and_logged_without_texts(make_client, caplog):
    """``POST /v1/settlements`` and ``DELETE /v1/documents/{id}``: counters in /metrics and one info
    line each on ``samestory.engine`` with the numbers (ids, never a text)."""
    from tests.helpers.stories import CHAIN, CHAIN_T0
    # arriving c, b, a, the chain streams to {a}, {b, c}; settled, b is a's copy (test_settle.py)
    feed = [Article(title=CHAIN[k][0], url=f"https://x.example/{k}",
                    published_at=CHAIN_T0.replace(hour=CHAIN[k][1])) for k in ("c", "b", "a")]
    client = make_client(feed)
    caplog.set_level(logging.INFO, logger="samestory.engine")
    body = client.post("/v1/settlements").json()
    assert body["copies"]["moved"] == 1
    text = client.get("/metrics").text
    assert _metric(text, 'samestory_settle_runs_total{outcome="done"}') == 1.0
    assert _metric(text, 'samestory_settle_runs_total{outcome="failed"}') == 0.0
    assert _metric(text, 'samestory_settle_moves_total{level="copy"}') == 1.0
    assert _metric(text, 'samestory_settle_moves_total{level="story"}') == float(body["moved"])
    settled = [r for r in caplog.records if r.name == "samestory.engine" and r.getMessage().startswith("settled")]
    assert len(settled) == 1 and settled[0].levelno == logging.INFO
    assert settled[0].getMessage() == f"settled: 1 copy moves, {body['moved']} story moves"
    assert settled[0].samestory["copy_moves"] == 1 and settled[0].samestory["items"] == body["items"]

    a = 3  # ingested last
    group = client.get(f"/v1/documents/{a}").json()["copy_group_id"]
    rep = client.get(f"/v1/copy-groups/{group}").json()["representative_id"]
    caplog.clear()
    deleted = client.delete(f"/v1/documents/{rep}").json()
    assert deleted["new_representative_id"] is not None
    text = client.get("/metrics").text
    assert _metric(text, 'samestory_deletions_total{new_representative="true"}') == 1.0
    assert _metric(text, 'samestory_deletions_total{new_representative="false"}') == 0.0
    lines = [r for r in caplog.records if r.name == "samestory.engine"]
    assert [r.getMessage() for r in lines] == [f"document {rep} deleted"] and lines[0].levelno == logging.INFO
    assert lines[0].samestory == {"document_id": rep, "copy_group_id": group,
                                  "new_representative_id": deleted["new_representative_id"]}
    titles = {title for title, _ in CHAIN.values()}
    assert not any(t in str(r.__dict__) for r in caplog.records for t in titles)  # no text in any log line


def test_metrics_store_rows_give_every_count_samestory_stats_gives(client):
    """`samestory_store_rows` has a row for each store count `samestory stats` prints, at the same
    value. Before, the stories were missing (the twelfth tour: `stats` said 68, `/metrics` nothing)."""
    client.post("/v1/articles", json={"articles": STORY})
    listed = client.get("/v1/stories").json()["stories"]
    text = client.get("/metrics").text
    rows = {line.split('"')[1]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line.startswith("samestory_store_rows{")}
    assert rows["stories"] == len(listed) >= 1
    assert set(rows) >= {"documents", "live_documents", "versions", "observations", "copy_groups", "stories"}


def test_guard_vetoes_are_counted(client):
    # A different figure in otherwise the same headline: the quantity guard must keep them apart.
    arts = [{"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1"},
            {"title": "Fed raises rates by 50 basis points", "url": "https://b.example/2"}]
    res = client.post("/v1/articles", json={"articles": arts}).json()["results"]
    assert res[1]["status"] == "new", res[1]["decision"]
    assert res[1]["decision"]["blocked_by"]
    guard = res[1]["decision"]["blocked_by"][0]
    assert f'samestory_guard_vetoes_total{{guard="{guard}"}} 1.0' in client.get("/metrics").text


def test_openapi_is_served(client):
    spec = client.get("/openapi.json").json()
    assert {"/v1/articles", "/v1/compare", "/v1/dedupe", "/v1/documents/{document_id}", "/v1/copy-groups",
            "/v1/copy-groups/{copy_group_id}", "/healthz", "/metrics"} <= set(spec["paths"])
    assert "IngestResultOut" in spec["components"]["schemas"]
    assert client.get("/docs").status_code == 200


def test_service_start_runs_the_model_once_before_the_first_request(monkeypatch):
    """The bundled model reads its weights on first use; start-up pays that, not the first caller."""
    from fastapi.testclient import TestClient

    import models.registry
    from service.api import Settings, create_app
    from tests.helpers.embedders import Counting

    fake = Counting()
    fake.name = "use"  # the calibrated threshold of the default model applies
    monkeypatch.setattr(models.registry, "load_embedder", lambda spec, **kwargs: fake)
    app = create_app(Settings(db=":memory:", model="use"))
    with TestClient(app) as client:
        engine = app.state.service.engine
        assert fake.seen == ["samestory warm-up"]  # before any request
        assert engine.ctx.counters["encoder_calls"] == 0  # no item was embedded
        assert engine.restart.warmup_report["encoder_s"] >= 0.0
        r = client.post("/v1/dedupe", json={"texts": ["Fed raises rates by 25bp", "ECB holds rates steady"],
                                            "kind": "headline"})  # headlines: both reach the model
        assert r.status_code == 200, r.text
        assert fake.seen[1:] == ["Fed raises rates by 25bp", "ECB holds rates steady"]


def test_a_founder_reads_stage_none_in_every_view(client):
    # Fifth tour: POST /v1/articles said a new item's stage was "none", but GET /v1/documents/{id}
    # and /v1/copy-groups/{id} showed the stored "minhash"/"embedding" (the last stage the cascade
    # ran) for the same item, as if a stage had matched it.
    res = client.post("/v1/articles", json={"articles": STORY[:2]}).json()["results"]
    assert res[0]["decision"]["stage"] == "none"
    doc = client.get(f"/v1/documents/{res[0]['document_id']}").json()
    assert doc["membership"]["stage"] == doc["membership"]["decision"]["stage"] == "none"
    assert doc["observations"][0]["decision"]["stage"] == "none"
    members = client.get(f"/v1/copy-groups/{res[0]['copy_group_id']}").json()["members"]
    founder, copy = sorted(members, key=lambda m: m["document_id"])
    assert founder["stage"] == founder["decision"]["stage"] == "none"
    assert founder["decision"]["reasons"]  # what the stages saw is still said
    assert copy["stage"] == copy["decision"]["stage"] == "exact"
