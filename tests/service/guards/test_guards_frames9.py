"""Ninth frames pass (tests/data/frame_pairs_9.jsonl): a forecast against the actual figure, a partial
against a full action, a record tied against broken, one release of a statistic against another, a
plan against its reversal, another alert level (families of the measures scan, polarity.frames9.toml);
and the pass's copy-side self-check: the new words used the ordinary way (a forecast or a result
reported twice, "full-year", "on record", "as expected", a demand for a withdrawal). Other sentences
than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "evidence"),
    [
        # forecast / actual
        ("현대모비스, 2분기 영업이익 6천억원 전망", "현대모비스, 2분기 영업이익 6천억원 기록", "measure forecast: 전망 vs 기록"),
        ("Naver expected to post record second-quarter sales", "Naver posts record second-quarter sales", "measure forecast"),
        ("Japan's exports seen falling 3% in June", "Japan's exports fell 3% in June", "measure forecast"),
        ("반도체 수출, 5월 20% 증가 예상", "반도체 수출, 5월 20% 증가", "measure forecast"),
        ("Analysts expect Fed to cut rates by a quarter point", "Fed cuts rates by a quarter point", "measure forecast"),
        ("코스닥, 1000선 돌파 눈앞", "코스닥, 1000선 돌파", "measure forecast"),
        # partial / full
        ("서울대병원 교수들, 부분 휴진", "서울대병원 교수들, 전면 휴진", "measure extent: 부분 휴진 vs 전면 휴진"),
        ("Busan port partially reopens after typhoon", "Busan port fully reopens after typhoon", "measure extent"),
        ("Kakao buys 25% stake in SM Entertainment", "Kakao takes full control of SM Entertainment", "measure extent"),
        ("철도노조, 전면 파업", "Rail union stages partial strike", "measure extent"),
        # record tied / broken
        ("김민재, 센터백 최다 출전 타이기록", "김민재, 센터백 최다 출전 신기록", "measure record_mark"),
        ("Park ties course record at Jeju", "Park breaks course record at Jeju", "measure record_mark"),
        ("Kospi matches all-time high", "코스피, 사상 최고치 경신", "measure record_mark"),
        # one release, another
        ("2분기 GDP 속보치 0.6%", "2분기 GDP 잠정치 0.6%", "measure release: 속보치 vs 잠정치"),
        ("US GDP grows 3.1% in second estimate", "US GDP grows 3.1% in third estimate", "measure release"),
        ("UK flash PMI rises to 52.1", "UK final PMI rises to 52.1", "measure release"),
        ("LG화학, 3분기 잠정 영업이익 4천억", "LG화학, 3분기 확정 영업이익 4천억", "measure release"),
        # plan / reversal
        ("문체부, 관광세 도입 추진", "문체부, 관광세 도입 백지화", "measure course"),
        ("Busan announces fare hike for city buses", "Busan reverses fare hike for city buses", "measure course"),
        ("Spotify to introduce ad tier in Korea", "Spotify scraps ad tier in Korea", "measure course"),
        ("국토부, 분양가 상한제 폐지 결정", "국토부, 분양가 상한제 폐지 결정 번복", "measure course"),
        # alert levels
        ("Hurricane watch issued for Florida Keys", "Hurricane warning issued for Florida Keys", "measure alert"),
        ("Japan issues tsunami advisory for Okinawa", "일본, 오키나와에 쓰나미 경보", "measure alert"),
        ("감염병 위기경보 '주의'로 하향", "감염병 위기경보 '경계'로 하향", "measure crisis_level"),
    ],
)
def test_the_ninth_pass_frames_block(gs: GuardSet, a: str, b: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert "polarity" in got and evidence in got["polarity"], got


# The most telling copies of the pass's self-check (222 ordinary copies, the set's kind self_copy, and
# the ones below): each new word on one side only, in another sense, or its two members in one text.
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Bank of Korea cuts rate to 3.25%, as expected", "한은, 예상대로 기준금리 3.25%로 인하"),
        ("SK하이닉스 영업이익 7조…시장 예상 상회", "SK Hynix posts 7 trillion won operating profit, beating forecasts"),
        ("Oil rises on expected OPEC output cut", "OPEC 감산 전망에 유가 상승"),
        ("Samsung Biologics to post record sales this year, analysts say", "애널리스트들 \"삼성바이오로직스 올해 사상 최대 매출 전망\""),
        ("Economists expect BOK to cut rates in October", "이코노미스트들, 한은 10월 금리 인하 예상"),
        ("IMF raises Korea growth forecast to 2.5%", "IMF, 한국 성장률 전망 2.5%로 상향"),
        ("Apple expected to unveil new iPhone on Sept. 9", "애플, 9월 9일 새 아이폰 공개 예정"),
        ("Kia posts record full-year profit", "기아, 연간 사상 최대 영업이익"),
        ("Korea lifts indoor mask mandate, with some exceptions", "실내 마스크 의무 해제…일부 시설 제외"),
        ("Seoul bus strike ends, full service resumes", "서울 버스 파업 종료…전 노선 정상 운행"),
        ("Seoul logs hottest August day on record", "서울, 관측 이래 가장 더운 8월"),
        ("Samsung posts record quarterly revenue", "삼성전자, 분기 최대 매출 기록"),
        ("Korea's Q3 GDP grows 0.1% in preliminary data", "3분기 GDP 0.1% 성장…속보치"),
        ("National Assembly holds final vote on budget bill", "국회, 예산안 최종 표결"),
        ("Union announces end of strike", "노조, 파업 철회"),
        ("Ministry announces cancellation of festival", "문체부, 축제 취소"),
        ("Unions urge government to scrap pension plan", "노조, 연금개혁안 철회 촉구"),
        ("Government decides to scrap crypto tax", "정부, 가상자산 과세 백지화"),
        ("교육부, 의대 증원 계획 철회", "Education ministry withdraws plan to increase medical school quota"),
        ("Typhoon watch issued for Guam", "괌에 태풍 주의보 발령"),
    ],
)
def test_the_ninth_pass_self_check_copies_pass(gs: GuardSet, a: str, b: str) -> None:
    assert blocked_by(gs, a, b) == {}
