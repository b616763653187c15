"""GET /v1/stories and /v1/stories/{id}; ingest results carry copy_group_id, matched_copy, story_id."""

from __future__ import annotations

from tests.paths import REPO_ROOT

ITEMS = [
    {"title": "Indonesia quake toll rises to 384 in Palu", "url": "https://www.reuters.com/q", "source": "Reuters",
     "lang": "en", "published_at": "2018-09-29T06:00:00Z"},
    {"title": "Indonesia quake toll rises to 384 in Palu", "url": "https://news.google.com/articles/q",
     "source": "Google News", "lang": "en", "published_at": "2018-09-29T06:20:00Z"},
    {"title": "Macedonia holds referendum on its name", "url": "https://www.bbc.com/mk", "source": "BBC",
     "lang": "en", "published_at": "2018-09-30T05:00:00Z"},
]


def test_stories_routes(make_client):
    client = make_client()
    res = client.post("/v1/articles", json={"articles": ITEMS}).json()["results"]
    assert res[1]["copy_group_id"] == res[0]["copy_group_id"] and res[1]["story_id"] == res[0]["story_id"]
    assert res[1]["matched_copy"] == res[0]["document_id"] and res[0]["matched_copy"] is None
    assert res[2]["story_id"] != res[0]["story_id"]

    story = client.get(f"/v1/stories/{res[0]['story_id']}").json()
    assert story["start"] == "2018-09-29T06:00:00Z" and story["end"] == "2018-09-29T06:20:00Z"
    assert story["languages"] == ["en"] and story["outlets"] == ["Google News", "Reuters"]
    [group] = story["copy_groups"]
    assert group["id"] == res[0]["copy_group_id"] and group["size"] == 2
    # The original outlet stays the representative over the aggregator's copy (seed 000).
    assert group["representative_id"] == res[0]["document_id"]
    assert group["representative_reason"] == "first member" and group["story_reason"].startswith("new story")

    page = client.get("/v1/stories", params={"limit": 1}).json()
    assert [s["id"] for s in page["stories"]] == [res[2]["story_id"]] and page["next_offset"] == 1
    assert client.get("/v1/stories/999").status_code == 404
    assert client.get("/v1/stories", params={"limit": 0}).status_code == 422


def test_the_story_list_gives_what_api_md_says(make_client):
    # docs/api.md: "title, languages, outlets, time span"; the list gave ids, counts and times only.
    client = make_client()
    res = client.post("/v1/articles", json={"articles": ITEMS}).json()["results"]
    listed = {s["id"]: s for s in client.get("/v1/stories").json()["stories"]}
    for sid in {r["story_id"] for r in res}:
        story = client.get(f"/v1/stories/{sid}").json()
        for key in ("title", "languages", "outlets", "start", "end"):  # the one story had no title
            assert listed[sid][key] == story[key], key
    assert listed[res[0]["story_id"]]["outlets"] == ["Google News", "Reuters"]
    assert listed[res[0]["story_id"]]["start"] == "2018-09-29T06:00:00Z"


def test_an_editors_decision_reads_back_through_the_api(make_client):
    """A split member's membership decision says stage ``editor`` and keeps the one it replaced;
    the cluster and the document that carry it answer 200 (the contract allowed only the
    engine's stages there, so both answered 500 after any split)."""
    client = make_client()
    res = client.post("/v1/articles", json={"articles": ITEMS}).json()["results"]
    split = res[1]["document_id"]
    assert client.post("/v1/corrections", json={"kind": "split", "document_id": split}).status_code == 201
    doc = client.get(f"/v1/documents/{split}")
    assert doc.status_code == 200
    decision = doc.json()["membership"]["decision"]
    assert decision["stage"] == "editor" and decision["previous"]["copy_group_id"] == res[0]["copy_group_id"]
    cluster = client.get(f"/v1/copy-groups/{doc.json()['copy_group_id']}")
    assert cluster.status_code == 200 and cluster.json()["members"][0]["decision"]["stage"] == "editor"
    # An engine's decision has no "previous" key at all: it reads as Decision.to_dict() wrote it.
    first = client.get(f"/v1/copy-groups/{res[0]['copy_group_id']}").json()["members"][0]["decision"]
    assert "previous" not in first


def _plain(annotation: object) -> object:
    """``annotation`` without ``Annotated`` metadata, also inside a union."""
    import functools
    import operator
    import typing

    if typing.get_origin(annotation) is typing.Annotated:
        return _plain(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, __import__("types").UnionType):
        return functools.reduce(operator.or_, [_plain(a) for a in typing.get_args(annotation)])
    return annotation


def test_row_models_name_only_fields_of_their_rows():
    """The answers built from a store row (service.api.schemas.from_row) show row fields under the
    row's names and types, so a renamed row field fails here instead of vanishing from the answer."""
    import dataclasses
    import typing

    from service.api import schemas
    from service.store import base

    # The store's rows still say cluster_id; the answers name it copy_group_id (and keep cluster_id
    # as its deprecated alias).
    row_name = {"copy_group_id": "cluster_id"}
    added = {"membership", "versions", "observations"}  # DocumentOut's reads of other rows
    for model, row in [(schemas.VersionOut, base.VersionRow), (schemas.ObservationOut, base.ObservationRow),
                       (schemas.MembershipOut, base.MembershipRow), (schemas.CopyGroupEventOut, base.ClusterEventRow),
                       (schemas.DocumentOut, base.DocumentRow)]:
        row_types = typing.get_type_hints(row)
        shown = {row_name.get(name, name) for name in model.model_fields} - added
        assert {f.name for f in dataclasses.fields(row)} >= shown, model
        for name, field in model.model_fields.items():
            if name not in ("status", "decision", *added):  # narrowed to the contract's literal / model
                # A time is the row's float (written as ISO 8601 in JSON: schemas.UtcTime).
                assert _plain(field.annotation) == row_types[row_name.get(name, name)], (model, name)
    assert set(schemas.DocumentOut.model_fields) - added == {f.name for f in dataclasses.fields(base.DocumentRow)} | {
        "copy_group_id"}


def test_the_views_import_first():
    """``samestory copy-groups`` imports service.views before anything of the API: the views build the
    contract's models and the routers answer with the views, and neither import may find the
    other half-done (a fresh interpreter: this process has long imported both)."""
    import os
    import subprocess
    import sys

    root = REPO_ROOT
    for module in ("service.views", "service.web.stories", "service.api.schemas"):
        done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, cwd=root,
                              env={**os.environ, "PYTHONPATH": str(root)})
        assert done.returncode == 0, done.stderr[-2000:]
