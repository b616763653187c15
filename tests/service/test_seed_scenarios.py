"""The seed write-ups' own scenarios (seeds 000 and 002), run through the real engine."""

from __future__ import annotations

import pytest

from service.engine import Deduper
from service.store import open_store
from service.types import Article


@pytest.fixture
def engine():
    d = Deduper(open_store(":memory:"), embedder=None)  # cheap passes + guards
    yield d
    d.close()


def test_seed_000_jincheon_from_four_outlets_is_one_story(engine):
    feed = [
        ("진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", "https://www.nbnnews.co.kr/news/1", "nbnnews"),
        ("진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", "https://v.daum.net/v/20261120091500123", "v.daum.net"),
        ("진천군 온디바이스 AI기반 스마트돌봄 본격화", "https://www.inews365.com/news/2", "inews365"),
        ("진천군, 온디바이스 AI 스마트돌봄 구축 착수", "https://www.ccdailynews.com/news/3", "ccdailynews"),
    ]
    results = [engine.ingest(Article(title=t, url=u, source=s, published_at=f"2026-11-20T0{9 + i % 1}:{10 + i}:00+09:00"))
               for i, (t, u, s) in enumerate(feed)]
    assert len({r.cluster_id for r in results}) == 1
    assert [r.status for r in results] == ["new", "duplicate", "duplicate", "duplicate"]
    rep = results[-1].representative_id
    assert rep != results[1].document_id, "the syndicator (v.daum.net) must not represent the story"
    cluster = engine.store.get_cluster(results[0].cluster_id)
    assert cluster.representative_id == rep
    events = engine.store.cluster_events(results[0].cluster_id)
    assert events[0].reason == "first member" and all(e.reason for e in events)


@pytest.mark.parametrize("a, b", [
    ("어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여", "엠젠솔루션, 온디바이스 AI 서비스 실증·확산 사업 참여"),
    ("경북도, 온디바이스 AI 실증사업 공모 2년째 선정", "증평군 온디바이스 AI 실증사업 공모 선정"),
])
def test_seed_000_different_subjects_stay_apart(engine, a, b):
    ra = engine.ingest(Article(title=a, url="https://a.example/1"))
    rb = engine.ingest(Article(title=b, url="https://b.example/2"))
    assert ra.cluster_id != rb.cluster_id
    assert rb.status == "new"


def test_seed_000_original_outlet_preferred_even_when_it_arrives_last(engine):
    title = "진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수"
    r1 = engine.ingest(Article(title=title, url="https://v.daum.net/v/1", published_at="2026-11-20T10:00:00+09:00"))
    r2 = engine.ingest(Article(title="진천군 온디바이스 AI기반 스마트돌봄 본격화", url="https://www.inews365.com/news/2",
                               published_at="2026-11-20T09:00:00+09:00"))
    assert r2.cluster_id == r1.cluster_id and r2.decision.stage == "ngram"
    assert r2.representative_id == r2.document_id  # original outlet beats a newer syndicated copy
    reasons = [e.reason for e in engine.store.cluster_events(r1.cluster_id)]
    assert "original outlet over syndicator" in reasons


def test_seed_002_nine_observations_seven_documents_eight_versions(engine):
    release = "캐시 엔진 2.0이 공개됐다. 새 버전은 메모리 사용량을 30% 줄였다."
    corrected = "캐시 엔진 2.0이 공개됐다. 새 버전은 메모리 사용량을 25% 줄였다. 수치를 바로잡았다."
    feed = [
        dict(title="캐시 엔진 2.0 공개", body=release, url="https://release.example.org/cache-engine-2.0?utm_source=rss", channel="rss"),
        dict(title="캐시 엔진 2.0 공개", body=release, url="https://release.example.org/cache-engine-2.0?utm_source=mail", channel="rss"),
        dict(title="캐시 엔진 2.0 공개", body=corrected, url="https://release.example.org/cache-engine-2.0", channel="rss"),
        dict(title="캐시 엔진 2.0 성능 분석: 운영에서 주의할 점", body="벤치마크와 운영상의 우려를 짚었다.",
             url="https://analysis.example.com/cache-engine-review", channel="rss"),
        dict(title="캐시 엔진 2.0 공개", body=corrected, url="https://news.example.com/press/cache-engine-2-0", channel="rss"),
        dict(title="캐시 엔진 2.0.1 공개", body="캐시 엔진 2.0.1이 공개됐다. 2.0에서 발견된 장애를 고친 패치다.",
             url="https://release.example.org/cache-engine-2.0.1", channel="rss"),
        dict(title="연간 보안 보고서", body="2025년 연간 보안 보고서를 공개합니다.", url="https://reports.example.net/report?id=2025", channel="rss"),
        dict(title="연간 보안 보고서", body="2026년 연간 보안 보고서를 공개합니다.", url="https://reports.example.net/report?id=2026", channel="rss"),
        dict(title="캐시 엔진 2.0 공개", body=corrected, url="https://release.example.org/cache-engine-2.0", channel="mail"),
    ]
    r = [engine.ingest(Article(**item)) for item in feed]
    counts = engine.store.counts()
    assert counts["observations"] == 9
    assert counts["documents"] == 7
    assert counts["versions"] == 8
    assert r[1].status == "reobserved" and r[1].document_id == r[0].document_id
    assert r[2].status == "new_version" and r[2].document_id == r[0].document_id
    # a republished copy keeps its own document but joins the original's cluster
    assert r[4].document_id != r[0].document_id and r[4].cluster_id == r[0].cluster_id and r[4].status == "duplicate"
    # follow-up patch release and the other year's report stay apart, whatever their titles say
    assert r[5].cluster_id != r[0].cluster_id
    assert r[7].cluster_id != r[6].cluster_id and r[7].status == "new"
    assert r[7].decision.blocked_by, "identical titles are kept apart by a guard, which is named"
    # another channel is another document
    assert r[8].document_id not in {x.document_id for x in r[:8]}
    docs = engine.store.versions_of(r[0].document_id)
    assert len(docs) == 2  # the correction is a version, the original body is kept


def test_spacing_and_case_variants_are_duplicates(engine):
    a = engine.ingest(Article(title="진천군 스마트돌봄 사업 본격 추진", url="https://a.example/1"))
    b = engine.ingest(Article(title="진천군 스마트 돌봄 사업 본격 추진", url="https://b.example/1"))
    c = engine.ingest(Article(title="FED RAISES RATES", url="https://a.example/2"))
    d = engine.ingest(Article(title="Fed raises rates", url="https://b.example/2"))
    assert b.status == "duplicate" and b.cluster_id == a.cluster_id
    assert d.status == "duplicate" and d.cluster_id == c.cluster_id and d.decision.stage == "exact"


def test_every_decision_explains_itself(engine):
    engine.ingest(Article(title="연준, 기준금리 0.25%p 인상", url="https://a.example/1"))
    r = engine.ingest(Article(title="연준, 기준금리 0.5%p 인상", url="https://b.example/1"))
    assert r.status == "new"
    assert "quantity" in r.decision.blocked_by
    assert any("0.25" in reason and "0.5" in reason for reason in r.decision.reasons)
    d = r.decision.to_dict()
    assert set(d) >= {"stage", "score", "reasons", "blocked_by"}
