"""Fourth frames pass (tests/data/frame_pairs_4.jsonl): figures in words against digits, multiples,
orders of magnitude in words, temperatures and other signed figures, targets met / missed, share
offerings, martial law declared / lifted, prizes won / their ceremonies, passive roles with their
agent, Korean mergers and suits with no particle, one result in both voices, a county with and
without its 군; and the same words in other senses. Other sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "guard", "evidence"),
    [
        (
            "Naver cuts marketing spend by a fifth",
            "Naver cuts marketing spend by 15%",
            "quantity",
            "by a fifth != 15%",
        ),
        ("Shipbuilder orders fall by half", "조선 수주 40% 감소", "quantity", "by half != 40%"),
        (
            "Bitcoin loses a third of its value in a month",
            "Bitcoin loses 20% of its value in a month",
            "quantity",
            "!=",
        ),
        (
            "Kia triples hybrid sales in Europe",
            "기아, 유럽 하이브리드 판매 두 배로",
            "quantity",
            "triples != 두 배",
        ),
        ("LG엔솔, 북미 생산 2배 확대", "LG엔솔, 북미 생산 4배 확대", "quantity", "2배 != 4배"),
        (
            "Dozens of flights cancelled at Jeju",
            "Thousands of flights cancelled at Jeju",
            "quantity",
            "Dozens != Thousands",
        ),
        ("제주공항 항공편 수십 편 결항", "Thousands of flights cancelled at Jeju", "quantity", "!="),
        ("대관령 영하 20도", "Daegwallyeong at minus 10C", "quantity", "!="),
        ("부산 낮 기온 영상 3도", "부산 낮 기온 영하 3도", "quantity", "!="),
        ("Home prices -2% on year", "Home prices +2% on year", "polarity", "-2% vs +2%"),
        ("Retail sales up 4% in October", "10월 소매판매 -4%", "polarity", "vs -4%"),
        (
            "Kia hits annual sales target",
            "Kia falls short of annual sales target",
            "polarity",
            "vs falls short",
        ),
        ("현대차, 연간 판매 목표 달성", "현대차, 연간 판매 목표 미달", "polarity", "vs 목표 미달"),
        (
            "두산로보틱스 공모주 청약 흥행",
            "두산로보틱스 공모주 청약 흥행 실패",
            "polarity",
            "vs 청약 흥행 실패",
        ),
        (
            "Thai PM declares state of emergency in Bangkok",
            "Thai PM lifts state of emergency in Bangkok",
            "polarity",
            "vs lifts",
        ),
        ("봉준호 감독, 칸 황금종려상 수상", "봉준호 감독, 칸 시상식 참석", "polarity", "vs 시상식"),
        (
            "Samsung SDI sued by LG Chem over separators",
            "Samsung SDI sues LG Chem over separators",
            "role",
            "(one passive)",
        ),
        ("Gwangju beaten by Daegu in cup semifinal", "광주, 컵 준결승서 대구 꺾어", "role", "vs"),
        ("한화솔루션, 한화케미칼 흡수합병", "한화케미칼, 한화솔루션 흡수합병", "role", "vs"),
        (
            "Netflix sued by SK Broadband over network fees",
            "넷플릭스, SK브로드밴드 망 사용료 청구로 제소",
            "role",
            "vs",
        ),
    ],
)
def test_the_fourth_pass_frames_block(gs: GuardSet, a: str, b: str, guard: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert guard in got and evidence in got[guard], got


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same figure in words and in digits, the same sign in words and in symbols
        ("Naver cuts marketing spend by a fifth", "Naver cuts marketing spend by 20%"),
        ("Bitcoin loses a third of its value in a month", "Bitcoin loses 33% of its value in a month"),
        ("Shipbuilder orders fall by half", "조선 수주 반토막"),
        ("Kia triples hybrid sales in Europe", "기아, 유럽 하이브리드 판매 세 배로"),
        ("LG엔솔, 미국 생산 2배 확대", "LG Energy Solution doubles US output"),
        ("Dozens of flights cancelled at Jeju", "제주공항 항공편 수십 편 결항"),
        ("Thousands fled their homes", "수만 명이 집을 떠났다"),  # one order apart: a translator's rounding
        (
            "Tropical storm to hit Texas or Louisiana coasts by Monday",
            "Tropical storm to hit Louisiana coast Monday",
        ),
        ("Village hit by landslide", "Landslide hit village"),
        ("Most started at 20, but a third of the group started younger", "대부분 20세에 시작, 25%는 더 일찍"),
        ("대관령 영하 20도", "Daegwallyeong at minus 20C"),
        ("대관령 -20도", "Daegwallyeong hits minus 20 degrees"),
        ("Seoul hits 36C", "서울 36도 폭염"),
        ("Home prices -2% on year", "Home prices fall 2% from a year earlier"),
        ("Retail sales up 4% in October", "10월 소매판매 4% 증가"),
        ("Kia hits annual sales target", "기아, 연간 판매 목표 달성"),
        ("Thai PM declares state of emergency in Bangkok", "Thailand imposes state of emergency in Bangkok"),
        ("Samsung SDI sued by LG Chem over separators", "LG Chem sues Samsung SDI over separators"),
        ("Gwangju beaten by Daegu in cup semifinal", "대구, 컵 준결승서 광주 꺾어"),
        ("광주, 대구에 0-2 패배", "대구, 광주에 2-0 승리"),
        ("한화솔루션, 한화케미칼 흡수합병", "한화솔루션이 한화케미칼을 흡수합병"),
        ("Netflix sued by SK Broadband over network fees", "SK브로드밴드, 넷플릭스 망 사용료 청구로 제소"),
        ("양평군 폭설로 도로 통제", "양평 폭설로 도로 통제"),
        # the words in other senses
        ("Fed cuts rates by a quarter point", "Fed cuts rates by 25 basis points"),
        ("Fed cuts rates by a quarter-point", "연준, 기준금리 0.25%p 인하"),
        ("BOK cuts rate by half a percentage point", "BOK cuts rate by 50 basis points"),
        ("Half of Korean firms expect slower growth", "Half of Korean companies expect slower growth"),
        ("An Se-young wins mixed doubles title", "An Se-young wins mixed doubles title in Paris"),
        ("Trump doubles down on tariff threat", "Trump doubles down on tariff threats"),
        ("SM 창업자 이수만, 지분 매각", "Lee Soo-man sells SM stake"),
        ("수천억 원대 사기 적발", "Fraud worth hundreds of billions of won uncovered"),
        ("Millions of dollars lost to crypto scam", "코인 사기로 수백만 달러 피해"),
        ("화씨 95도 폭염", "Heat wave hits 35C"),
        ("휴전선 38도선 인근 총격", "Shots fired near the 38th parallel"),
        ("배터리 3배터리팩 공개", "Three battery packs unveiled"),
        ("수상한 택배 신고 잇따라", "시상식장 주변 수상한 택배 신고"),
        ("Ceasefire talks resume", "Ceasefire talks resumed"),
        ("Growth seen at 2-3% next year", "Growth forecast at 2-3% next year"),
    ],
)
def test_the_fourth_pass_frames_pass_copies_and_other_senses(gs: GuardSet, a: str, b: str) -> None:
    assert not blocked_by(gs, a, b)
