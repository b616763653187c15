"""Streaming a feed in publication order and settling it give the same copy groups and stories
(issue 37): settling replays the open window in publication order, so a feed that arrived in
that order has nothing to move. Checked with hypothesis over generated feeds of news headlines
(Korean and English, copies, retitles, updates and unrelated reports, at generated times)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from service.config import EngineConfig
from service.engine import Deduper
from service.types import Article

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)

# Events, each with reports that are copies, rewrites, translations or updates of one another:
# what a real feed mixes. Written for this test.
EVENTS: list[list[tuple[str, str]]] = [
    [("Bank of Korea holds key rate at 3.5%", "en"), ("Bank of Korea holds key rate at 3.5% - Yonhap", "en"),
     ("한국은행, 기준금리 연 3.5%로 동결", "ko"), ("BOK keeps benchmark rate unchanged at 3.5 percent", "en")],
    [("Turkey earthquake death toll rises to 3,000", "en"), ("Turkey earthquake death toll rises to 5,000", "en"),
     ("튀르키예 지진 사망자 3천명으로 늘어", "ko"), ("TURKEY EARTHQUAKE DEATH TOLL RISES TO 3,000", "en")],
    [("Samsung unveils Galaxy S26 with new AI features", "en"), ("삼성전자, AI 기능 강화한 갤럭시 S26 공개", "ko"),
     ("Samsung launches Galaxy S26 smartphone", "en")],
    [("Heavy rain kills 4 in South Chungcheong, 1,200 evacuated", "en"), ("충남 폭우로 4명 사망…1200명 대피", "ko")],
    [("Kospi closes above 4,000 for the first time", "en"), ("코스피, 사상 처음 4000선 돌파 마감", "ko"),
     ("Kospi ends above 4,000 for first time ever", "en")],
    [("Volcano erupts near Reykjavik, flights grounded", "en")],
]
REPORTS = [(e, t, lang) for e, reports in enumerate(EVENTS) for t, lang in reports]


@st.composite
def feeds(draw: st.DrawFn) -> list[tuple[int, int]]:
    """(report index, minutes after T0) pairs, in publication order, each report at most once."""
    picks = draw(st.lists(st.integers(0, len(REPORTS) - 1), min_size=2, max_size=14, unique=True))
    minutes = draw(st.lists(st.integers(0, 72 * 60), min_size=len(picks), max_size=len(picks), unique=True))
    return sorted(zip(picks, minutes, strict=True), key=lambda p: p[1])


def partition(d: Deduper, n: int) -> tuple[frozenset[frozenset[int]], frozenset[frozenset[int]]]:
    """Copy groups and stories of documents 1..n, as sets of document ids (also the hunt's,
    research/hunt_stream_settle.py)."""
    copies: dict[int, set[int]] = {}
    stories: dict[int, set[int]] = {}
    for doc_id in range(1, n + 1):
        doc = d.store.get_document(doc_id)
        assert doc is not None and doc.cluster_id is not None
        copies.setdefault(doc.cluster_id, set()).add(doc_id)
        story = d.store.get_cluster(doc.cluster_id).story_id
        assert story is not None
        stories.setdefault(story, set()).add(doc_id)
    return (frozenset(frozenset(g) for g in copies.values()), frozenset(frozenset(s) for s in stories.values()))


@pytest.fixture(scope="module")
def use_model():  # type: ignore[no-untyped-def]
    from models.registry import load_embedder

    return load_embedder("use")


@pytest.mark.heavy  # USE over 60 generated feeds: about 10 s, plus loading USE
# derandomize: CI runs the same 60 feeds every time. One random run on 2026-12-04 failed and its
# example was lost; 1,500 more random feeds did not find it again. A later hunt found a failing
# feed about once in 2,600 of this strategy's (the feed below; research/notes/stories.md).
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(feed=feeds())
# The first feed hypothesis found: an exact copy of "3,000" 12 h after it (a re-run, which counts at
# its anchor's time in its story) was replayed first, as its group's lead, and drew the "5,000"
# report into the story that streaming had kept it out of (settle_order now replays each item where
# it was published: ``SettleItem.published``).
@example(feed=[(6, 0), (5, 1), (4, 2), (8, 3), (7, 721)])
def test_a_feed_streamed_in_publication_order_settles_to_itself(use_model, feed) -> None:  # type: ignore[no-untyped-def]
    _check_streamed_settles_to_itself(use_model, feed)


def _check_streamed_settles_to_itself(model, feed: list[tuple[int, int]],  # type: ignore[no-untyped-def]
                                      config: EngineConfig | None = None) -> None:
    d = Deduper.open(":memory:", model=model, config=config)
    try:
        for k, (i, minute) in enumerate(feed):
            _, title, lang = REPORTS[i]
            d.ingest(Article(title=title, url=f"https://news{k}.example/{i}", lang=lang,
                             published_at=T0 + timedelta(minutes=minute)))
        streamed = partition(d, len(feed))
        report = d.settle()
        assert partition(d, len(feed)) == streamed
        assert report.moved == 0 and report.copies is not None and report.copies.moved == 0
    finally:
        d.close()


@pytest.mark.heavy  # loads USE
def test_a_cheaply_settled_copy_gets_its_story_vector_only_when_settling(use_model) -> None:  # type: ignore[no-untyped-def]
    """Found by research/hunt_stream_settle.py (2026-12-04), shrunk by hand to three reports:
    "Kospi ends above 4,000 for first time ever" at 09:02, its retitle "Kospi closes above 4,000
    for the first time" at 09:05 (one copy group, joined by a cheap stage: no story vector) and
    the Korean "코스피, 사상 처음 4000선 돌파 마감" at 11:29. Streamed, the Korean report scores
    0.6996 against the Kospi story (centroid cosine 0.54) and opens its own; settling embeds the
    retitle first (``settle_stories``: "items without a story vector ... are embedded now"), the
    centroid cosine is 0.55 and the replay puts the Korean report in the Kospi story (0.744).
    With the pair verifier on (the default) the Korean report joins the copy group (a rescued
    translation), so this feed no longer shows it (below). Nor does it with the verifier off since
    a Korean item's anchors count one name they cannot read (``UNREAD_NAME_IDF``): the one anchor
    the Korean report shares, 4000, gives 0.50, not 1.0, and it stays out of the Kospi story both
    ways (it was a strict xfail until then). The story level's cause stays: a copy a cheap stage
    settled has no story vector until settling embeds it."""
    _check_streamed_settles_to_itself(use_model, [(15, 2), (13, 5), (14, 149)], EngineConfig.of(verifier=False))


@pytest.mark.heavy  # loads USE and the pair verifier
def test_the_counter_example_settles_to_itself_with_the_verifier_on(use_model) -> None:  # type: ignore[no-untyped-def]
    _check_streamed_settles_to_itself(use_model, [(15, 2), (13, 5), (14, 149)])
