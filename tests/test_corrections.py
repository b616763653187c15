"""Editors' corrections: split, merge, "not the same"; stored with who and when on SQLite and
PostgreSQL, applied to the engine's memory at once and to later decisions, kept across a
restart, and exported as labelled pairs that ``eval calibrate`` reads."""

from __future__ import annotations

import json

import pytest

from eval.data import load_pairs
from service.cascade import Match
from service.corrections import (
    Constraints,
    Correction,
    CorrectionError,
    Editor,
    labelled_pairs,
    list_corrections,
)
from service.engine import Deduper
from service.store import open_store
from service.types import Article, Decision

SYNDICATED = [
    Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://www.nbnnews.co.kr/a/1001", lang="ko"),
    Article(title="진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", url="https://v.daum.net/v/2026112009", lang="ko"),
    Article(title="진천군 온디바이스 AI기반 스마트돌봄 본격화", url="https://www.inews365.com/n/2002", lang="ko"),
]
OTHER = Article(title="연준, 기준금리 0.25%p 인상", url="https://www.yna.co.kr/v/1", lang="ko")


def _engine(db: str = ":memory:") -> Deduper:
    return Deduper(open_store(db), embedder=None)


def _story(engine: Deduper) -> tuple[int, list[int]]:
    results = engine.ingest_many(SYNDICATED)
    assert len({r.cluster_id for r in results}) == 1
    return results[0].cluster_id, [r.document_id for r in results]


def _members(store, story: int) -> list[int]:
    return [m.document_id for m in store.members_of(story)]


def test_split_moves_the_member_records_who_and_when_and_updates_memory():
    engine = _engine()
    story, docs = _story(engine)
    c = Editor(engine).split(docs[1], who="alice", note="a mirror of another story")
    assert (c.kind, c.doc_a, c.story_from, c.who, c.note) == ("split", docs[1], story, "alice", "a mirror of another story")
    assert c.at > 0 and c.label == 0
    assert _members(engine.store, story) == [docs[0], docs[2]]
    assert _members(engine.store, c.story_to) == [docs[1]]
    membership = engine.store.members_of(c.story_to)[0]
    assert membership.stage == "editor"
    assert membership.decision["previous"]["cluster_id"] == story  # the engine's own verdict is kept
    events = engine.store.cluster_events(c.story_to)
    assert events[-1].reason == f"editor alice split document {docs[1]} off story {story}"
    # The engine's memory follows at once: the split document is its new story's representative.
    assert engine.state.reps[c.story_to] == docs[1]
    assert engine.state.entries.cluster_of(docs[1]) == c.story_to
    assert [x.to_dict()["who"] for x in list_corrections(engine.store)] == ["alice"]
    engine.close()


def test_splitting_the_representative_elects_another():
    engine = _engine()
    story, _ = _story(engine)
    rep = engine.store.get_cluster(story).representative_id
    c = Editor(engine).split(rep, who="bob")
    new_rep = engine.store.get_cluster(story).representative_id
    assert new_rep != rep and new_rep in _members(engine.store, story)
    assert "split off by editor bob" in engine.store.cluster_events(story)[-1].reason
    # What the engine compares is each group's anchor, its earliest live member (issue 17), not the
    # displayed representative: the split document anchors its new group, the story the earliest left.
    assert engine.state.reps[story] == min(_members(engine.store, story)) and engine.state.reps[c.story_to] == rep
    assert c.doc_b == new_rep  # the labelled pair: the split document and the story's representative
    engine.close()


def test_merge_moves_every_member_and_not_same_blocks_a_later_merge():
    engine = _engine()
    story, docs = _story(engine)
    other = engine.ingest(OTHER)
    editor = Editor(engine)
    m = editor.merge(story, other.cluster_id, who="alice")
    assert (m.kind, m.label, m.story_from, m.story_to) == ("merge", 1, other.cluster_id, story)
    assert other.document_id in _members(engine.store, story)
    assert _members(engine.store, other.cluster_id) == []
    assert engine.state.entries.cluster_of(other.document_id) == story
    assert other.cluster_id not in engine.state.reps  # the emptied story is no candidate any more
    n = editor.not_same(docs[0], other.document_id, who="carol")
    assert n.kind == "not_same" and n.story_to is not None  # they shared a story: the second one left it
    with pytest.raises(CorrectionError, match=r"marked not the same by carol .* split them first"):
        editor.merge(story, n.story_to, who="alice")
    assert _members(engine.store, n.story_to) == [other.document_id]  # the refused merge changed nothing
    engine.close()


def test_bad_corrections_are_one_line_errors():
    engine = _engine()
    story, docs = _story(engine)
    lone = engine.ingest(OTHER)
    editor = Editor(engine)
    with pytest.raises(CorrectionError, match="does not exist"):
        editor.split(999, who="alice")
    with pytest.raises(CorrectionError, match="only member of story"):
        editor.split(lone.document_id, who="alice")
    with pytest.raises(CorrectionError, match="cannot be merged into itself"):
        editor.merge(story, story, who="alice")
    with pytest.raises(CorrectionError, match="story 77 does not exist"):
        editor.merge(story, 77, who="alice")
    with pytest.raises(CorrectionError, match="always the same as itself"):
        editor.not_same(docs[0], docs[0], who="alice")
    assert list_corrections(engine.store) == []
    engine.close()


def test_must_link_redirects_a_match_into_a_merged_story():
    merged = Correction(1, "merge", 10, 20, story_from=2, story_to=1, who="alice", at=0.0)
    rules = Constraints.from_corrections([merged])

    from types import SimpleNamespace

    state = SimpleNamespace(reps={1: 10})
    hit = Match(Decision(True, "embedding", 0.8, ["embedding: cosine 0.8"], matched_id=20), cluster_id=2, matched_doc=20)
    out = rules.review(hit, state)
    assert out.cluster_id == 1 and out.decision.same
    assert out.decision.reasons[-1].startswith("editor: story 2 was merged into story 1 by alice")
    miss = Match(Decision(False, "embedding", 0.3, []), None, None)
    assert rules.review(miss, state) is miss  # only merges are redirected


def test_corrections_survive_a_restart_and_constrain_the_reopened_engine(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    engine = _engine(db)
    story, docs = _story(engine)
    c = Editor(engine).split(docs[1], who="alice")
    engine.close()
    engine = _engine(db)
    assert _members(engine.store, story) == [docs[0], docs[2]]
    assert engine.state.entries.cluster_of(docs[1]) == c.story_to
    assert engine.constraints.cannot_link([docs[1]], [c.doc_b]) is not None
    engine.close()


def test_labelled_pairs_are_eval_pairs(tmp_path):
    engine = _engine()
    story, docs = _story(engine)
    other = engine.ingest(OTHER)
    editor = Editor(engine)
    editor.split(docs[1], who="alice")
    editor.merge(story, other.cluster_id, who="bob")
    pairs = list(labelled_pairs(engine.store))
    assert [(p["kind"], p["label"]) for p in pairs] == [("editor_split", 0), ("editor_merge", 1)]
    assert pairs[0]["a"] == {"text": SYNDICATED[1].title, "lang": "ko"}
    assert pairs[0]["meta"]["who"] == "alice" and pairs[0]["meta"]["at"].endswith("+00:00")
    path = tmp_path / "corrections.jsonl"
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs), "utf-8")
    loaded = load_pairs(path)  # the loader eval calibrate and eval pairs use
    assert [(p.label, p.kind) for p in loaded] == [(0, "editor_split"), (1, "editor_merge")]
    engine.close()


@pytest.mark.postgres
def test_corrections_on_postgres(pg_url):
    engine = _engine(pg_url)
    story, docs = _story(engine)
    c = Editor(engine).split(docs[1], who="alice")
    other = engine.ingest(OTHER)
    Editor(engine).merge(story, other.cluster_id, who="bob")
    engine.close()
    engine = _engine(pg_url)  # a second process would see the same rows
    assert [(x.kind, x.who) for x in list_corrections(engine.store)] == [("split", "alice"), ("merge", "bob")]
    assert _members(engine.store, c.story_to) == [docs[1]]
    assert sorted(_members(engine.store, story)) == sorted([docs[0], docs[2], other.document_id])
    assert len(list(labelled_pairs(engine.store))) == 2
    engine.close()


def test_cli_lists_and_exports_the_corrections(tmp_path, capsys):
    from service.cli import main

    db = f"sqlite:///{tmp_path / 's.db'}"
    engine = _engine(db)
    _, docs = _story(engine)
    Editor(engine).split(docs[1], who="alice", note="mirror")
    engine.close()
    assert main(["corrections", "list", "--db", db]) == 0
    assert f"#1 split    documents {docs[1]}/" in capsys.readouterr().out
    out = tmp_path / "pairs.jsonl"
    assert main(["corrections", "export", "--db", db, "--out", str(out)]) == 0
    assert "1 labelled pairs ->" in capsys.readouterr().err
    assert [p.label for p in load_pairs(out)] == [0]
    with pytest.raises(SystemExit, match="no SQLite store at"):
        main(["corrections", "list", "--db", f"sqlite:///{tmp_path / 'missing.db'}"])


def test_a_worker_rereads_merges_another_worker_made(tmp_path):
    from types import SimpleNamespace

    db = f"sqlite:///{tmp_path / 's.db'}"
    first = _engine(db)
    story, _ = _story(first)
    other = first.ingest(OTHER)
    second = _engine(db)  # another process on the same store
    assert not second.constraints.merged_into
    Editor(first).merge(story, other.cluster_id, who="alice")
    # The second worker still holds the merged story's vector: a hit on it finds no representative
    # in memory, so it re-reads the corrections and follows the merge.
    hit = Match(Decision(True, "embedding", 0.9, [], matched_id=other.document_id), other.cluster_id, other.document_id)
    out = second.constraints.review(hit, SimpleNamespace(reps={story: 1}))
    assert out.cluster_id == story and "merged into story" in out.decision.reasons[-1]
    first.close()
    second.close()
