"""Third frames pass (tests/data/frame_pairs_3.jsonl): votes scheduled / held, plants announced /
completed, injured / dead, streak lengths, percentage points against per cent, times of day, a
Korean day without its month, drug names, ranges, Pfizer; and the same words in other senses."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "guard", "evidence"),
    [
        ("노동개혁법, 오늘 본회의 표결 예정", "노동개혁법 국회 본회의 통과", "polarity", "표결 예정 vs 통과"),
        (
            "Dockworkers union to hold strike vote on Friday",
            "Dockworkers union votes to strike",
            "polarity",
            "to hold strike vote vs votes to strike",
        ),
        ("Senate to vote on budget bill", "Senate passes budget bill", "polarity", "vs passes"),
        (
            "Kia announces $2 billion EV plant in Mexico",
            "Kia completes $2 billion EV plant in Mexico",
            "polarity",
            "vs completes",
        ),
        ("부산시, 오페라하우스 건립 계획 발표", "부산 오페라하우스 준공", "polarity", "계획 vs 준공"),
        ("대전 공장 화재로 작업자 중상", "대전 공장 화재 작업자 끝내 숨져", "polarity", "중상 vs 숨져"),
        (
            "Jeonbuk win league for third straight year",
            "전북, 리그 4년 연속 우승",
            "quantity",
            "third straight != 4년 연속",
        ),
        ("Prices rise for fifth consecutive month", "물가 6개월 연속 상승", "quantity", "fifth consecutive"),
        ("대출금리 0.3%p 올라", "대출금리 0.3% 올라", "quantity", "0.3%p != 0.3%"),
        ("Blackout hits Busan at 9 p.m.", "Blackout hits Busan at 9 a.m.", "date", "time 21:00 != 09:00"),
        ("부산 오후 9시 정전", "Blackout hits Busan at 9 a.m.", "date", "time 21:00 != 09:00"),
        ("Leaders to meet in Seoul on Nov. 20", "정상들, 21일 서울서 회담", "date", "day 20 != 21"),
        (
            "FDA approves osimertinib for early lung cancer",
            "FDA approves lazertinib for early lung cancer",
            "which",
            "osimertinib != lazertinib",
        ),
        ("LG expects profit of 2-3 trillion won", "LG, 영업이익 3조~4조원 전망", "quantity", "!="),
        (
            "France returns looted manuscripts to Korea",
            "Korea returns looted manuscripts to France",
            "role",
            "France returns ... to Korea vs Korea returns ... to France",
        ),
        ("Chelsea sign winger from Napoli", "Napoli sign winger from Chelsea", "role", "from Napoli vs"),
        (
            "Thailand deports fraud suspect to South Korea",
            "South Korea deports fraud suspect to Thailand",
            "role",
            "to Korea vs",
        ),
    ],
)
def test_the_third_pass_frames_block(gs: GuardSet, a: str, b: str, guard: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert guard in got and evidence in got[guard], got


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same report in other words, other notations, other senses of the frame's words
        ("LG announces completion of Texas battery plant", "LG completes Texas battery plant"),
        ("Dockworkers union votes to strike", "항만노조, 파업 찬반투표 가결"),
        ("Court votes to strike down the rule", "Court strikes down the rule"),
        ("신청사 준공 예정…내년 입주", "신청사 건립 계획 발표"),
        ("중상모략 혐의로 고소", "중상모략 혐의 고소"),
        ("Jeonbuk win league for third straight year", "전북, 리그 3년 연속 우승"),
        ("Exports fall for second straight month", "수출 2개월 연속 감소"),
        ("기준금리 0.25%p 인하", "기준금리 0.25%포인트 인하"),
        ("기준금리 0.25%p 인하", "Bank of Korea cuts rate by 0.25 percent"),
        ("금리 0.5%p 인상", "금리 50bp 인상"),
        ("Blackout hits Busan at 9 p.m.", "부산 오후 9시 정전"),
        ("밤 10시 반 정전", "Outage at 10:30 p.m."),
        ("Leaders to meet in Seoul on Nov. 20", "정상들, 11월 20일 서울서 회담"),
        ("Leaders to meet in Seoul on Nov. 20", "정상들, 20일 서울서 회담"),
        ("France returns looted manuscripts to Korea", "Looted manuscripts returned to Korea by France"),
        ("Samsung shifts production from China to India", "Samsung shifts production to India from China"),
        ("Hyundai builds plant from scratch in Georgia", "Hyundai builds plant from scratch in Georgia"),
        # counts of days, not days of the month
        ("파업 3일간 이어져", "파업 5일 돌입"),
        ("주 5일 근무제 도입", "4일 발표"),
        ("30일 만에 복구", "Dec 29 restoration"),
        ("파업 15일째", "Strike enters day 15 on Dec 14"),
        ("무비자 체류 30일로 연장", "7일 발표"),
        # words ending like a drug stem, and a drug against a capitalised name
        ("New peptide concept beats estimates", "New peptide concept tops estimates"),
        ("Lilly's donanemab approved in Japan", "Lilly's donanemab wins approval in Japan"),
        ("Samsung expects Q3 profit of 9-10 trillion won", "삼성전자, 3분기 영업이익 9조~10조원 전망"),
        ("Korea beat Jordan 3-0", "한국, 요르단에 3-0 승리"),
        (
            "Samsung Biologics wins manufacturing deal from Pfizer",
            "삼성바이오로직스, 화이자로부터 위탁생산 계약 수주",
        ),
    ],
)
def test_the_third_pass_frames_pass_copies_and_other_senses(gs: GuardSet, a: str, b: str) -> None:
    assert not blocked_by(gs, a, b)
