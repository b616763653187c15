"""Settling: the open copy groups and stories re-decided in publication order
(``service/settle.py``, ``Deduper.settle``, ``settle_copies``, ``settle_stories``, ``samestory
settle``, ``POST /v1/settlements``)."""

from __future__ import annotations

import itertools
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import service.stories
from service.config import EngineConfig
from service.engine import Deduper
from service.settle import SettleItem, keep_ids, publication_order, settle_order, translation_partners
from service.stories import StoryEvidence
from service.types import Article
from tests.helpers.stories import CHAIN, CHAIN_T0, TWO_EVENTS, UNTIMED_TWO_EVENTS, FixedEmbedder, partition
from tests.paths import EVAL_DATA

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def _item(doc: int, group: int, t: float, h: str) -> SettleItem:
    return SettleItem(doc, group, StoryEvidence.build(f"headline {doc}", "", "en", t, None), h)


def test_publication_order_depends_on_the_items_not_their_arrival() -> None:
    items = [_item(1, 1, 50.0, "c"), _item(2, 2, 10.0, "b"), _item(3, 3, 10.0, "a"), _item(4, 1, 99.0, "a")]
    orders = {tuple(i.doc_id for i in publication_order(random.Random(s).sample(items, 4))) for s in range(10)}
    assert orders == {(3, 2, 1, 4)}  # time, then content hash


def test_keep_ids_gives_each_stored_story_to_the_replayed_story_that_shares_most_items() -> None:
    before = {1: 10, 2: 10, 3: 11, 4: 12}
    after = {1: 1, 2: 2, 3: 2, 4: 2}
    weight = {1: 5, 2: 1, 3: 3, 4: 1}
    # replayed story 1 shares 5 items with 10, story 2 shares 3 with 11 (and 1 each with 10, 12)
    assert keep_ids(before, after, weight) == {1: 10, 2: 11}


def _ingest_two_events(order: tuple[str, ...], *, revise: bool, db: str = ":memory:") -> Deduper:
    cfg = EngineConfig.of(embedding_threshold=0.99, verifier=False, story_revise=revise)  # every item its own copy group (no verifier rescue)
    d = Deduper.open(db, model=FixedEmbedder(), config=cfg)  # type: ignore[arg-type]
    times = {k: T0 + timedelta(minutes=i) for i, k in enumerate(TWO_EVENTS)}  # fixed publication times
    for k in order:
        title, lang, _ = TWO_EVENTS[k]
        d.ingest(Article(title=title, url=f"https://x.example/{k}", lang=lang, published_at=times[k]))
    return d


def _stories(d: Deduper) -> list[list[str]]:
    """The stored stories as a partition of the fixture's keys (documents 1-4 by title)."""
    by_title = {title: k for k, (title, _, _) in TWO_EVENTS.items()}
    labels = {}
    for doc_id in range(1, 5):
        doc = d.store.get_document(doc_id)
        assert doc is not None and doc.cluster_id is not None and doc.latest_version_id is not None
        title = d.store.get_version(doc.latest_version_id).title
        labels[by_title[title]] = d.store.get_cluster(doc.cluster_id).story_id
    return partition(labels)


@pytest.mark.heavy  # issue 38: many seconds
def test_settled_stories_do_not_depend_on_arrival_order() -> None:
    """Without revision the streamed stories differ between the 24 orders of the fixture; once
    settled, every order gives the same stories, and settling again moves nothing."""
    streamed, settled = set(), set()
    for order in itertools.permutations(TWO_EVENTS):
        d = _ingest_two_events(order, revise=False)
        streamed.add(repr(_stories(d)))
        report = d.settle_stories()
        assert report.skipped is None and report.items == 4 and report.groups == 4
        settled.add(repr(_stories(d)))
        assert d.settle_stories().moved == 0  # a settled store is already in publication order
        # the live tracker holds the settled stories: what the store says, group by group
        for g, sid in d.story_level.group_story.items():
            assert d.store.get_cluster(g).story_id == sid
        d.close()
    assert len(streamed) > 1
    assert len(settled) == 1


def test_a_settled_move_is_stored_with_its_reason_and_survives_a_restart(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    cfg = EngineConfig.of(embedding_threshold=0.99, verifier=False, story_revise=False)
    # An order whose streamed stories are not the publication-order ones.
    for order in itertools.permutations(TWO_EVENTS):
        d = _ingest_two_events(order, revise=False)
        before = _stories(d)
        report = d.settle_stories()
        after = _stories(d)
        d.close()
        if before != after:
            break
    else:
        pytest.fail("no order of the fixture streams differently from publication order")
    d = _ingest_two_events(order, revise=False, db=db)
    report = d.settle_stories()
    assert report.moved >= 1 and len(report.moves) == report.moved
    mv = report.moves[0]
    cluster = d.store.get_cluster(mv["copy_group_id"])
    assert cluster.story_id == mv["to_story"]
    assert cluster.story_reason.startswith(f"story: settled in publication order, moved from story {mv['from_story']}")
    settled = _stories(d)
    d.close()
    d = Deduper.open(db, model=FixedEmbedder(), config=cfg)  # type: ignore[arg-type]
    assert _stories(d) == settled
    assert d.settle_stories().moved == 0
    d.close()


@pytest.mark.heavy  # issue 38: many seconds
def test_items_without_a_publication_time_settle_to_one_story_level_in_every_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Untimed items follow the timed ones copy group by copy group (``settle_order``): the 24
    arrival orders of the fixture, which stream to different stories, settle to one. (At the
    story threshold: the higher one of short untimed texts, ``UNTIMED_THRESHOLD``, keeps every
    item of the fixture in a story of its own, in every order.)"""
    monkeypatch.setattr(service.stories, "UNTIMED_THRESHOLD", 0.0)
    cfg = EngineConfig.of(embedding_threshold=0.99, verifier=False, story_revise=False)  # every item its own copy group
    streamed, settled = set(), set()
    for order in itertools.permutations(UNTIMED_TWO_EVENTS):
        d = Deduper.open(":memory:", model=FixedEmbedder(UNTIMED_TWO_EVENTS), config=cfg)  # type: ignore[arg-type]
        for k in order:
            title, lang, _ = UNTIMED_TWO_EVENTS[k]
            d.ingest(Article(title=title, url=f"https://x.example/{k}", lang=lang))
        streamed.add(repr(_stories(d)))
        report = d.settle_stories()
        assert (report.items, report.untimed, report.groups, report.skipped) == (4, 4, 4, None)
        settled.add(repr(_stories(d)))
        assert d.settle_stories().moved == 0
        d.close()
    assert len(streamed) > 1
    assert len(settled) == 1


def test_settle_order_puts_untimed_groups_after_the_timed_items_whole_and_by_hash() -> None:
    timed = [_item(1, 1, 50.0, "c"), _item(2, 2, 10.0, "b")]
    untimed = [SettleItem(3, 3, StoryEvidence.build("x", "", "en", 5.0, None), "e", timed=False),
               SettleItem(4, 4, StoryEvidence.build("y", "", "en", 1.0, None), "d", timed=False),
               SettleItem(5, 3, StoryEvidence.build("z", "", "en", 9.0, None), "a", timed=False),
               SettleItem(6, 1, StoryEvidence.build("w", "", "en", 2.0, None), "f", timed=False)]
    orders = {tuple(i.doc_id for i in settle_order(random.Random(s).sample([*timed, *untimed], 6)))
              for s in range(20)}
    # timed by time; then group 3 (smallest hash "a": items "a", "e"), group 4 ("d"), then the
    # untimed member of timed group 1 ("f"), whatever their first-seen times
    assert orders == {(2, 1, 5, 3, 4, 6)}


def _untimed(doc: int, group: int, lang: str, vec: tuple[float, ...] | None, h: str) -> SettleItem:
    v = None if vec is None else np.array(vec, dtype=np.float32) / np.linalg.norm(vec)
    return SettleItem(doc, group, StoryEvidence.build(f"headline {doc}", "", lang, 0.0, v), h, timed=False)


# An English article (group 1), its Korean translation the copy level missed (group 2), another
# outlet's write-up of the same event in both languages (group 3), and an unrelated Korean report
# (group 4). The translation is closer to the other outlet's Korean text than to its own source,
# as NTREX dev's "Arrest made in shooting death of LSU's Sims" is (0.82 against 0.63).
MISSED_TRANSLATION = [
    _untimed(1, 1, "en", (1.0, 0.2, 0.0), "a1"),
    _untimed(2, 2, "ko", (0.8, 0.6, 0.0), "f2"),
    _untimed(3, 3, "ko", (0.7, 0.7, 0.1), "c3"),
    _untimed(4, 3, "en", (0.6, 0.8, 0.0), "c4"),
    _untimed(5, 4, "ko", (0.0, 0.1, 1.0), "b5"),
]


def test_translation_partners_pair_one_language_groups_that_are_mutually_nearest() -> None:
    # group 3 holds both languages: an article with its translation already, never a partner;
    # group 4's nearest English group is group 1, whose nearest Korean one is group 2: not mutual
    assert translation_partners(MISSED_TRANSLATION) == {1: 2}
    for seed in range(10):  # the items' order does not matter
        assert translation_partners(random.Random(seed).sample(MISSED_TRANSLATION, 5)) == {1: 2}
    # without vectors, or in one language only, nothing pairs
    assert translation_partners([_untimed(1, 1, "en", None, "a"), _untimed(2, 2, "ko", None, "b")]) == {}
    assert translation_partners([_untimed(1, 1, "ko", (1.0, 0.0), "a"), _untimed(2, 2, "ko", (1.0, 0.1), "b")]) == {}


def test_settle_order_replays_a_missed_translation_at_once_after_its_partner() -> None:
    orders = {tuple(i.doc_id for i in settle_order(random.Random(s).sample(MISSED_TRANSLATION, 5)))
              for s in range(20)}
    # by the groups' smallest hashes: 1 ("a1"), then its partner 2 ("f2", last by hash alone), then
    # 4 ("b5") and 3 ("c3", "c4")
    assert orders == {(1, 2, 5, 3, 4)}


@pytest.mark.heavy  # NTREX dev through the engine, three orders: about 30 s
@pytest.mark.skipif(not (EVAL_DATA / "ntrex128-kor-eng").is_dir(), reason=f"eval data not found at {EVAL_DATA}")
def test_ntrex_dev_settles_to_one_story_level_above_the_issue_bar() -> None:
    """Issue 36's bar for NTREX (one article in Korean and English per gold story): story ARI >=
    0.95 settled, the same stories in file order and shuffles. Before missed translations were
    replayed beside their partners (``translation_partners``) it was 0.948 in every order."""
    from eval.stories import engine_orders

    got = engine_orders("ntrex128-kor-eng", [0, 1, 2], data=EVAL_DATA, settle=True)
    assert all(r["story_same"] and r["copy_same"] for r in got.values())
    assert got["0"]["story_ari"] >= 0.95  # type: ignore[operator]


def test_settling_honours_an_editors_split_and_replays_the_rest() -> None:
    """A split is a cannot-link: the settling holds the split-off member and the story it left
    where the editor put them, replays the other groups, and says how many corrections it honoured
    (issue 36: one correction used to switch settling off for the whole store)."""
    from service.corrections import Editor

    d = _ingest_two_events(("A-ko", "A-en", "B-ko", "B-en"), revise=False)
    assert ["A-en", "A-ko"] in _stories(d)
    Editor(d).split(2, who="editor", note="test")  # A-en, out of its translation's story
    assert ["A-en"] in _stories(d)
    report = d.settle()
    assert report.skipped is None and report.corrected == 1 and report.held >= 1
    assert report.copies is not None and report.copies.skipped is None and report.copies.corrected == 1
    # A replay of all four (no constraint) puts A-en back with A-ko (the gold stories, as in
    # test_settled_stories_do_not_depend_on_arrival_order); held, each stays in its own story,
    # which the replayed B items may join (in this fixture a cross-language cosine of 0.6 scores
    # above the threshold against a lone member).
    assert not any({"A-en", "A-ko"} <= set(s) for s in _stories(d))
    assert (report.groups, report.held) == (2, 2)  # B-ko and B-en replayed; A-ko and A-en held
    d.close()


def test_settling_honours_an_editors_merge() -> None:
    """A merge is a must-link: the settled stories keep the merged story whole, though the replay
    alone would split it into the two events again."""
    from service.corrections import Editor

    d = _ingest_two_events(("A-ko", "A-en", "B-ko", "B-en"), revise=False)
    d.settle()
    assert _stories(d) == [["A-en", "A-ko"], ["B-en", "B-ko"]]
    story = {k: d.store.get_cluster(d.store.get_document(i).cluster_id).story_id  # type: ignore[union-attr]
             for i, k in enumerate(("A-ko", "A-en", "B-ko", "B-en"), 1)}
    Editor(d).merge(story["A-ko"], story["B-ko"], who="editor")
    report = d.settle()
    assert report.skipped is None and report.corrected == 1 and report.moved == 0
    assert _stories(d) == [["A-en", "A-ko", "B-en", "B-ko"]]
    d.close()


def test_copies_without_a_story_vector_are_embedded_and_their_vectors_stored() -> None:
    class Counting(FixedEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.texts: list[str] = []

        def encode(self, texts: list[str], **kwargs: object) -> np.ndarray:
            self.texts.extend(texts)
            return super().encode(texts)

    emb = Counting()
    d = Deduper.open(":memory:", model=emb, config=EngineConfig.of(embedding_threshold=0.99, verifier=False))  # type: ignore[arg-type]
    title, lang, _ = TWO_EVENTS["A-en"]
    d.ingest(Article(title=title, url="https://x.example/1", lang=lang, published_at=T0))
    copy = d.ingest(Article(title=title, url="https://y.example/1", lang=lang, published_at=T0))
    assert copy.status == "duplicate" and copy.decision.stage == "exact"  # settled by a cheap stage: no vector
    emb.texts.clear()
    report = d.settle_stories()
    assert report.embedded == 1 and emb.texts == [title]
    assert d.store.load_vectors([copy.version_id], "fixed#story")
    assert d.settle_stories().embedded == 0  # stored: not embedded twice
    d.close()


def test_cli_settle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli import main

    path = tmp_path / "feed.jsonl"
    rows = [{"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1",
             "published_at": "2026-03-11T09:00:00Z"},
            {"title": "Volcano erupts in southwest Iceland", "url": "https://b.example/2"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["ingest", str(path), "--db", db, "--model", "none", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["settle", "--db", db, "--model", "none"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("copy groups: replayed 2 items of 2 copy groups: 2 -> 2 groups, 0 items moved")
    assert out[1].startswith("stories: settled 2 items in 2 copy groups (1 without a publication time, replayed "
                             "after the timed ones by copy group)")
    assert main(["settle", "--db", db, "--model", "none", "--json"]) == 0
    got: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert (got["items"], got["untimed"], got["moved"], got["skipped"]) == (2, 1, 0, None)
    assert (got["copies"]["items"], got["copies"]["held"], got["copies"]["moved"]) == (2, 0, 0)
    assert main(["settle", "--db", db, "--model", "none", "--keep-copy-groups", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["copies"] is None
    assert main(["settle", "--db", db, "--model", "none", "--hours", "24", "--json"]) == 0
    # an untimed item counts at its first sight (today): the March item is older than 24 h before it
    got = json.loads(capsys.readouterr().out)
    assert got["held"] == 1 and (got["copies"]["items"], got["copies"]["held"]) == (1, 1)
    with pytest.raises(SystemExit, match="--hours must be > 0"):
        main(["settle", "--db", db, "--model", "none", "--hours", "0"])
    with pytest.raises(SystemExit, match="--show must be >= 0"):
        main(["settle", "--db", db, "--model", "none", "--show", "-1"])
    with pytest.raises(SystemExit, match=r"samestory settle: no SQLite store at .*absent\.db"):
        main(["settle", "--db", f"sqlite:///{tmp_path / 'absent.db'}", "--model", "none"])


def test_api_settle(make_client: Any) -> None:
    items = [{"title": "Indonesia quake toll rises to 384 in Palu", "url": "https://www.reuters.com/q",
              "lang": "en", "published_at": "2018-09-29T06:00:00Z"}]
    client = make_client(items)
    r = client.post("/v1/settlements")
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["items"], body["groups"], body["moved"], body["skipped"]) == (1, 1, 0, None)
    assert (body["copies"]["items"], body["copies"]["moved"], body["copies"]["skipped"]) == (1, 0, None)
    assert client.post("/v1/settlements", params={"copies": "false"}).json()["copies"] is None
    assert client.post("/v1/settlements", params={"hours": 24}).json()["items"] == 1
    assert client.post("/v1/settlements", params={"hours": 0}).status_code == 422
    locked = make_client(items, api_key="k")
    assert locked.post("/v1/settlements").status_code == 401
    assert locked.post("/v1/settlements", headers={"X-API-Key": "k"}).status_code == 200


@pytest.mark.heavy  # issue 38: many seconds
def test_hours_replays_only_the_recent_groups_and_holds_the_rest() -> None:
    """``hours``: groups published before the window stay in their stories (context the recent
    ones may join); a window that covers everything is a whole settling."""
    for order in itertools.permutations(TWO_EVENTS):
        whole = _ingest_two_events(order, revise=False)
        report = whole.settle_stories()
        settled = _stories(whole)
        whole.close()
        d = _ingest_two_events(order, revise=False)
        before = {g: d.store.get_cluster(g).story_id for g in range(1, 5)}
        # published at minutes 0-3 (fixture order); the last 90 s hold minutes 2 and 3
        part = d.settle_stories(hours=1.5 / 60)
        assert (part.items, part.held, part.groups) == (2, 2, 2)
        moved = {m["copy_group_id"] for m in part.moves}
        # one copy group per document here, numbered alike
        held_groups = {g for g in range(1, 5) if d.store.get_document(g).published_at < T0.timestamp() + 120}
        assert not moved & held_groups
        assert all(d.store.get_cluster(g).story_id == before[g] for g in held_groups)
        d.close()
        d = _ingest_two_events(order, revise=False)
        assert d.settle_stories(hours=1.0).moved == report.moved and _stories(d) == settled
        d.close()
    d = Deduper.open(":memory:", model=None)
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="hours must be a number > 0"):
            d.settle_stories(hours=bad)
    d.close()


def test_a_correction_made_by_another_worker_is_honoured_by_the_settling(tmp_path: Path) -> None:
    from service.corrections import Editor

    db = f"sqlite:///{tmp_path / 's.db'}"
    a = _ingest_two_events(("A-ko", "A-en", "B-ko", "B-en"), revise=False, db=db)
    cfg = EngineConfig.of(embedding_threshold=0.99, verifier=False, story_revise=False)
    b = Deduper.open(db, model=FixedEmbedder(), config=cfg)  # type: ignore[arg-type]
    Editor(b).split(2, who="editor", note="on the other worker")  # A-en
    b.close()
    report = a.settle_stories()
    assert report.skipped is None and report.corrected == 1
    assert not any({"A-en", "A-ko"} <= set(s) for s in _stories(a))
    a.close()


def test_settling_with_another_model_than_the_stores_is_refused(tmp_path: Path) -> None:
    """Stories decided on one model's vectors are not re-decided on another's, nor on words alone."""
    db = f"sqlite:///{tmp_path / 's.db'}"
    _ingest_two_events(("A-ko", "B-ko", "B-en", "A-en"), revise=False, db=db).close()
    d = Deduper.open(db, model=None)
    with pytest.raises(ValueError, match="embedded with fixed: settle with that model, not none"):
        d.settle_stories()
    # a refused settling counts as failed in the engine's counters (/metrics: samestory_settle_runs_total)
    with pytest.raises(ValueError, match="embedded with fixed"):
        d.settle()
    assert (d.stats()["counters"]["settle_failed"], d.stats()["counters"].get("settle_runs", 0)) == (1, 0)
    d.close()


def _ingest_chain(order: tuple[str, ...], db: str = ":memory:") -> tuple[Deduper, dict[str, int]]:
    d = Deduper.open(db, model=None)
    docs = {}
    for k in order:
        title, hours = CHAIN[k]
        r = d.ingest(Article(title=title, url=f"https://x.example/{k}", published_at=CHAIN_T0 + timedelta(hours=hours)))
        docs[k] = r.document_id
    return d, docs


def _copy_groups(d: Deduper, docs: dict[str, int]) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for k, doc in sorted(docs.items()):
        row = d.store.get_document(doc)
        assert row is not None and row.cluster_id is not None
        groups.setdefault(row.cluster_id, []).append(k)
    return sorted(groups.values())


def test_settled_copy_groups_do_not_depend_on_arrival_order() -> None:
    """The six arrival orders of the chain stream to three different partitions; settled, every
    order gives the publication-order groups ({a, b}: c is 20 h from a), anchored on a, and
    settling again changes nothing."""
    streamed, settled = set(), set()
    for order in itertools.permutations(CHAIN):
        d, docs = _ingest_chain(order)
        streamed.add(repr(_copy_groups(d, docs)))
        report = d.settle()
        assert report.copies is not None and report.copies.skipped is None
        assert (report.copies.items, report.copies.held, report.copies.groups_after) == (3, 0, 2)
        groups = _copy_groups(d, docs)
        settled.add(repr(groups))
        group_a = d.store.get_document(docs["a"]).cluster_id
        assert d.ctx.state.reps[group_a] == docs["a"]  # the live state compares the group through its earliest report
        assert d.store.members_of(group_a)[0].document_id == min(docs["a"], docs["b"])
        again = d.settle()
        assert again.copies is not None and (again.copies.moved, again.copies.anchors, again.moved) == (0, 0, 0)
        assert _copy_groups(d, docs) == groups
        # every document is still in a copy group, and every copy group in a story
        for doc in docs.values():
            row = d.store.get_document(doc)
            assert row is not None and d.store.get_cluster(row.cluster_id).story_id is not None
        d.close()
    assert len(streamed) == 3
    assert settled == {repr([["a", "b"], ["c"]])}


def test_a_settled_copy_move_is_stored_with_its_reason_and_its_anchor_survives_a_restart(tmp_path: Path) -> None:
    """Order c, b, a streams to {a}, {b, c}: b, compared with c first, joined it. Settled, b is a's
    copy: its membership says so, keeps the streamed one as ``previous``, and after a restart the
    group is compared through a (its founder), not through b, its smallest document id."""
    db = f"sqlite:///{tmp_path / 's.db'}"
    d, docs = _ingest_chain(("c", "b", "a"), db=db)
    assert _copy_groups(d, docs) == [["a"], ["b", "c"]]
    streamed_group_of_b = d.store.get_document(docs["b"]).cluster_id
    report = d.settle()
    assert report.copies is not None and report.copies.moved == 1
    mv = report.copies.moves[0]
    group_a = d.store.get_document(docs["a"]).cluster_id
    assert (mv["document_id"], mv["from_copy_group"], mv["to_copy_group"]) == (docs["b"], streamed_group_of_b, group_a)
    m = next(m for m in d.store.members_of(group_a) if m.document_id == docs["b"])
    assert m.matched_id == docs["a"] and m.stage == mv["stage"]
    assert m.decision["reasons"][-1] == f"copy: settled in publication order, moved from copy group {streamed_group_of_b}"
    assert m.decision["previous"]["cluster_id"] == streamed_group_of_b
    assert m.decision["previous"]["matched_id"] == docs["c"]
    # b's old group lost b, its displayed representative was chosen again from what is left
    assert d.store.get_cluster(streamed_group_of_b).representative_id == docs["c"]
    live_anchors = dict(d.ctx.state.reps)
    d.close()
    for saved in tmp_path.glob("s.db.*"):  # the state snapshot: rebuild the state from the store's rows
        if saved.suffix in (".npz", ".faiss"):
            saved.unlink()
    d = Deduper.open(db, model=None)
    assert d.restart.warmup_report["state"] == "store"
    assert _copy_groups(d, docs) == [["a", "b"], ["c"]]
    assert docs["b"] < docs["a"] and d.ctx.state.reps[group_a] == docs["a"]
    assert dict(d.ctx.state.reps) == live_anchors  # the settled live state is what a restart builds
    # a new rewrite an hour after a joins a's group through its anchor
    r = d.ingest(Article(title=CHAIN["a"][0] + ", airlines say", url="https://y.example/d",
                         published_at=CHAIN_T0 + timedelta(hours=1)))
    assert r.cluster_id == group_a and r.matched_copy == docs["a"]
    d.close()


# Three headlines in different words whose vectors chain: a ~ b and b ~ c (cosine 0.8), a !~ c
# (0.28), at an embedding threshold of 0.7. Without times, the copy group a streamed feed forms
# depends on which of them arrived first.
_UNTIMED = {"a": ("Volcano erupts in Iceland", (1.0, 0.0, 0.0)),
            "b": ("Eruption grounds flights over the North Atlantic", (0.8, 0.6, 0.0)),
            "c": ("Ash cloud closes airports across Europe", (0.28, 0.96, 0.0))}


class _TableEmbedder:
    name = "table"
    dim = 3

    def encode(self, texts: list[str], **kwargs: object) -> np.ndarray:
        by_title = {title: np.asarray(v, dtype=np.float32) for title, v in _UNTIMED.values()}
        return np.stack([by_title[t.strip()] for t in texts])


def test_items_without_a_publication_time_settle_to_one_set_of_copy_groups_in_every_order() -> None:
    """Untimed items have no order but their arrival: they are replayed after the timed ones in
    content-hash order (``copy_order``), an order of the items alone, so the six arrival orders
    that stream to three partitions settle to one."""
    streamed, settled = set(), set()
    for order in itertools.permutations(_UNTIMED):
        # toy texts and vectors: the pair verifier (on by default) would refuse every merge
        d = Deduper.open(":memory:", model=_TableEmbedder(),  # type: ignore[arg-type]
                         config=EngineConfig.of(embedding_threshold=0.7, verifier=False), guards=None)
        docs = {k: d.ingest(Article(title=_UNTIMED[k][0], url=f"https://x.example/{k}", lang="en")).document_id
                for k in order}
        streamed.add(repr(_copy_groups(d, docs)))
        report = d.settle()
        assert report.copies is not None and (report.copies.items, report.copies.held) == (3, 0)
        settled.add(repr(_copy_groups(d, docs)))
        d.close()
    assert len(streamed) == 3 and len(settled) == 1


def test_copy_order_puts_the_timed_items_first_then_the_untimed_by_content_hash() -> None:
    from index.features import ItemFeatures
    from service.settle import CopyItem, copy_order

    def item(doc: int, title: str, t: float, timed: bool = True) -> CopyItem:
        return CopyItem(doc, doc, doc, ItemFeatures.build(title, "", "en", t), timed=timed)

    timed = [item(1, "Fed raises rates", 50.0), item(2, "Volcano erupts", 10.0)]
    untimed = [item(3, "Quake hits Chile", 99.0, timed=False), item(4, "Storm nears Florida", 5.0, timed=False)]
    orders = {tuple(i.doc_id for i in copy_order(random.Random(k).sample([*timed, *untimed], 4))) for k in range(8)}
    assert len(orders) == 1
    (order,) = orders
    assert order[:2] == (2, 1)  # the timed ones by publication
    by_hash = sorted(untimed, key=lambda i: i.features.content_sha)
    assert order[2:] == tuple(i.doc_id for i in by_hash)  # then by content hash, not by first sight


def test_keep_copy_groups_settles_the_stories_only() -> None:
    d, docs = _ingest_chain(("c", "b", "a"))
    streamed = _copy_groups(d, docs)
    report = d.settle(copies=False)
    assert report.copies is None and report.skipped is None
    assert _copy_groups(d, docs) == streamed
    d.close()


def test_copy_hours_replays_only_the_recent_groups() -> None:
    """``hours`` at the copy level: a group with an item older than the window is held whole, as
    context the replayed items may join."""
    d, docs = _ingest_chain(("c", "b", "a"))  # {a}, {b, c}: b at 10 h and c at 20 h
    group_a = d.store.get_document(docs["a"]).cluster_id
    report = d.settle(hours=15.0)  # newest item at 20 h: the window starts at 5 h, so a's group is held
    assert report.copies is not None and (report.copies.items, report.copies.held) == (2, 1)
    # b, replayed first, is compared with a's held group (10 h) and joins it; c is 20 h from a
    assert _copy_groups(d, docs) == [["a", "b"], ["c"]]
    assert d.store.get_document(docs["a"]).cluster_id == group_a and d.ctx.state.reps[group_a] == docs["a"]
    d.close()


def test_a_copy_group_without_members_is_not_shown_in_its_story() -> None:
    """A group whose members all left (deleted, or moved by a settling) stays a row, but a story
    shows, counts and titles only groups with members."""
    from service.views import story_page, story_view

    d = Deduper.open(":memory:", model=None)
    a = d.ingest(Article(title="Volcano erupts near Reykjavik", url="https://x.example/1", published_at=CHAIN_T0))
    b = d.ingest(Article(title="Vulkan bricht bei Reykjavik aus", url="https://x.example/2", published_at=CHAIN_T0))
    d.store.set_cluster_story(b.cluster_id, a.story_id, None, "test: the same story", 0.0)
    assert len(story_view(d.store, a.story_id).copy_groups) == 2
    d.delete_document(b.document_id)
    view = story_view(d.store, a.story_id)
    assert [g.id for g in view.copy_groups] == [a.cluster_id]
    summary = next(s for s in story_page(d.store, 10, 0).stories if s.id == a.story_id)
    assert (summary.copy_groups, summary.items) == (1, 1)
    d.close()


def test_another_worker_reads_the_settled_copy_groups_before_its_next_decision(tmp_path: Path) -> None:
    """The copy moves go through the change feed: a second engine on the same store, opened before
    the settling, compares through the settled groups and anchors at its next decision."""
    db = f"sqlite:///{tmp_path / 's.db'}"
    a, docs = _ingest_chain(("c", "b", "a"), db=db)
    b = Deduper.open(db, model=None)
    assert b.ctx.state.entries.cluster_of(docs["b"]) == b.ctx.state.entries.cluster_of(docs["c"])  # as streamed
    a.settle()
    r = b.ingest(Article(title="Fed raises rates by 25 basis points", url="https://y.example/fed",
                         published_at=CHAIN_T0))
    group_a = a.store.get_document(docs["a"]).cluster_id
    assert b.ctx.state.entries.cluster_of(docs["b"]) == group_a and b.ctx.state.reps[group_a] == docs["a"]
    assert {g: d for g, d in b.ctx.state.reps.items() if g != r.cluster_id} == dict(a.ctx.state.reps)
    a.close()
    b.close()


def test_settle_help_says_corrections_are_honoured() -> None:
    from service.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    text = " ".join(sub.choices["settle"].format_help().split())  # type: ignore[union-attr]
    # it said "Stores with editors' corrections are not settled", which the code and docs contradict
    assert "not settled" not in text
    assert "Editors' corrections are honoured: their splits, merges and 'not the same' pairs hold" in text


def test_settle_lines_count_in_the_singular_and_the_plural() -> None:
    """`samestory settle` printed "1 copy groups moved, 1 new stories"."""
    from service.cli import settle_copies_line, settle_stories_line
    from service.settle import CopySettleReport, SettleReport

    copies = CopySettleReport(items=1, held=1, groups_before=1, groups_after=1, moved=1, anchors=1, new_groups=1,
                              embedded=1)
    line = settle_copies_line(copies)
    assert ("replayed 1 item of 1 copy group, 1 item of groups reaching outside the window held as they are: "
            "1 -> 1 group, 1 item moved, 1 anchor changed, 1 new group, 1 item embedded") in line
    one = SettleReport(items=1, held=1, groups=1, stories_before=1, stories_after=1, moved=1, new_stories=1,
                       embedded=1, corrected=1)
    assert ("settled 1 item in 1 copy group (0 without a publication time, replayed after the timed ones by copy "
            "group, 1 older item held as context, 1 editor's correction honoured (their groups held)): 1 -> 1 story, "
            "1 copy group moved, 1 new story, 1 item embedded") in settle_stories_line(one)
    two = SettleReport(items=2, groups=2, stories_before=2, stories_after=2, moved=2, new_stories=2, corrected=2)
    assert "2 editors' corrections honoured" in settle_stories_line(two)
    assert "2 -> 2 stories, 2 copy groups moved, 2 new stories, 0 items embedded" in settle_stories_line(two)
