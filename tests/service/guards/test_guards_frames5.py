"""Fifth frames pass (tests/data/frame_pairs_5.jsonl): durations (contract years, prison terms, bond
tenors, "first time in N months"), Roman phase numbers, ranks written "fifth-largest", Korean 첫
against 두 번째, approvals won with a qualifier, weather warnings against advisories, nominations and
their withdrawal, prison terms served or suspended, the court's instance, ratings kept against
raised, and a move between two clubs the other way; and the same words in other senses. Other
sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "guard", "evidence"),
    [
        (
            "Ryu Hyun-jin signs three-year deal with Hanwha",
            "Ryu Hyun-jin signs two-year deal with Hanwha",
            "number",
            "three year != two year",
        ),
        ("류현진, 한화와 4년 계약", "류현진, 한화와 8년 계약", "number", "4년 != 8년"),
        (
            "Ex-governor gets 7 years in prison for bribery",
            "Ex-governor gets 4 years in prison for bribery",
            "number",
            "7 years != 4 years",
        ),
        (
            "Industrial output falls for first time in 8 months",
            "산업생산 11개월 만에 감소",
            "number",
            "8 months != 11개월",
        ),
        ("국고채 5년물 금리 하락", "국고채 30년물 금리 하락", "number", "5년 != 30년"),
        ("징역 1년 6개월 선고", "sentenced to three years in prison", "number", "1년6개월 != three years"),
        (
            "Samsung Biologics drug enters Phase II study",
            "Samsung Biologics drug enters Phase I study",
            "number",
            "!=",
        ),
        (
            "Japan becomes world's third-largest car market",
            "Japan becomes world's fourth-largest car market",
            "number",
            "third-largest != fourth-largest",
        ),
        ("방탄소년단, 그래미 첫 수상", "방탄소년단, 그래미 세 번째 수상", "number", "!="),
        ("Celltrion biosimilar gets EU approval", "셀트리온 바이오시밀러 유럽 허가 신청", "polarity", "vs"),
        (
            "Samsung Bioepis wins Health Canada approval",
            "Samsung Bioepis files for Health Canada approval",
            "polarity",
            "vs",
        ),
        ("부산 폭염경보 발령", "부산 폭염주의보 발령", "polarity", "폭염경보 vs 폭염주의보"),
        ("Heat wave warning issued for Daegu", "Heat wave advisory issued for Daegu", "polarity", "vs"),
        (
            "Prime minister nominates new defence chief",
            "Prime minister appoints new defence chief",
            "polarity",
            "nominates vs appoints",
        ),
        ("대통령, 법무장관 후보자 지명 철회", "대통령, 법무장관 후보자 지명", "polarity", "지명 철회 vs"),
        ("전 시장, 징역 1년 실형", "전 시장, 징역 1년에 집행유예 2년", "polarity", "실형 vs 집행유예"),
        ("前 의원, 뇌물 혐의 2심서 유죄", "前 의원, 뇌물 혐의 1심서 유죄", "polarity", "2심 vs 1심"),
        (
            "Appeals court clears ex-lawmaker of bribery",
            "Supreme Court clears ex-lawmaker of bribery",
            "polarity",
            "vs",
        ),
        ("Fitch affirms Japan's rating at A", "Fitch downgrades Japan's rating to A-", "polarity", "vs"),
        ("무디스, 한국 신용등급 Aa2 유지", "무디스, 한국 신용등급 Aa2로 하향", "polarity", "vs"),
        (
            "Jeong Woo-yeong moves from Stuttgart to Union Berlin",
            "Jeong Woo-yeong moves from Union Berlin to Stuttgart",
            "role",
            "(the other way)",
        ),
        (
            "정우영, 슈투트가르트서 우니온 베를린으로 이적",
            "Jeong Woo-yeong joins Stuttgart from Union Berlin",
            "role",
            "(the other way)",
        ),
    ],
)
def test_the_fifth_pass_frames_block(gs: GuardSet, a: str, b: str, guard: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert guard in got and evidence in got[guard], got


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # one duration in two notations, a calendar year, an age
        ("류현진, 한화와 4년 계약", "Ryu Hyun-jin signs four-year deal with Hanwha"),
        ("Industrial output falls for first time in 8 months", "산업생산 8개월 만에 감소"),
        ("징역 1년 6개월 선고", "sentenced to 18 months in prison"),
        ("Ex-governor gets one-year prison term", "전 지사, 징역 1년 선고"),
        ("25년 1분기 실적 발표", "2025년 1분기 실적 발표"),
        ("Boy, 10 years old, rescued from river", "Boy, 10, rescued from river"),
        # a record's span names no asset (a UCI same-story pair had two assets' highs and lows)
        ("Euro zone factory growth hits 32-month high", "Sterling at one-month low as ECB holds rates"),
        ("원화, 16년 만에 최고", "Won hits 15-year high against yen"),
        # one phase, one rank, one first, in two notations
        ("Samsung Biologics drug enters Phase II study", "Samsung Biologics drug enters phase 2 study"),
        ("Japan becomes world's third-largest car market", "일본, 세계 3위 자동차 시장"),
        ("방탄소년단, 그래미 첫 수상", "BTS wins Grammy for the first time"),
        # approvals, alerts, offices, sentences, courts and ratings said the same way twice
        ("Celltrion biosimilar gets EU approval", "셀트리온 바이오시밀러 유럽 허가 획득"),
        ("부산 폭염경보 발령", "Heat wave warning issued for Busan"),
        ("대구 호우주의보 해제", "Heavy rain advisory lifted for Daegu"),
        ("Prime minister nominates new defence chief", "총리, 새 국방장관 후보자 지명"),
        ("전 시장, 징역 1년에 집행유예 2년", "Ex-mayor gets suspended one-year prison term"),
        ("Supreme Court clears ex-lawmaker of bribery", "대법, 전 의원 뇌물 혐의 무죄 확정"),
        ("1심 유죄 뒤집고 항소심서 무죄", "항소심서 무죄…1심 뒤집혀"),
        ("Fitch affirms Japan's rating at A", "피치, 일본 신용등급 A 유지"),
        (
            "정우영, 슈투트가르트서 우니온 베를린으로 이적",
            "Jeong Woo-yeong joins Union Berlin from Stuttgart",
        ),
        # the words in other senses: an early warning, an advisory board, a place name (지명)
        (
            "North Korea launches missile, early warning radar tracks it",
            "북한 미사일 발사…조기경보 레이더 포착",
        ),
        ("Government names advisory board on AI", "정부, AI 자문위원회 구성"),
        ("Team Phase wins esports final", "Team Phase wins esports final"),
        # review of the 29th session: a kept rating or forecast stays in its clause and holds no revision
        ("Fed holds rates steady, raises growth forecast", "연준 금리 동결…성장률 전망 상향"),
        ("BOK keeps rate on hold, lowers outlook", "한은 금리 동결, 전망 하향"),
        ("무디스, 한국 신용등급 전망 상향…Aa2 유지", "Moody's raises Korea's rating outlook"),
        ("Fitch holds off on rating cut", "피치, 등급 하향 보류"),
        # the instance a ruling acts on is not the one that rules
        ("1심 판결 뒤집혀", "Appeals court overturns ruling"),
        ("Supreme Court upholds lower court ruling", "대법, 항소심 판결 유지"),
    ],
)
def test_the_fifth_pass_frames_pass_copies_and_other_senses(gs: GuardSet, a: str, b: str) -> None:
    assert not blocked_by(gs, a, b)
