"""Tenth frames pass (tests/data/frame_pairs_10.jsonl): a figure's comparison base, a figure per
another period, the suspect against the victim, no casualties against casualties, a medal or a place,
the other side of a stake deal (poles, polarity.frames10.toml); and the pass's copy-side self-check:
the new words on both sides in one sense, in other notations, or one-sided. Other sentences than the
set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "evidence"),
    [
        # comparison base
        ("9월 산업생산 전월 대비 1.5% 증가", "9월 산업생산 전년 동월 대비 1.5% 증가", "전월 대비 vs 전년 동월 대비"),
        ("Taiwan's exports rise 12% year-on-year in July", "Taiwan's exports rise 12% month-on-month in July", "year-on-year vs month-on-month"),
        ("Singapore GDP grows 1.1% from the previous quarter", "싱가포르 GDP 전년 대비 1.1% 성장", "from the previous quarter vs 전년 대비"),
        ("Home sales fall 8% week on week", "Home sales fall 8% from a year earlier", "week on week vs from a year earlier"),
        # a figure per period
        ("Jeju Air adds 3 flights a week to Osaka", "Jeju Air adds 3 flights a month to Osaka", "a week vs a month"),
        ("보육수당 월 30만원 지급", "보육수당 연 30만원 지급", "월 vs 연"),
        ("코스닥 하루 새 4% 급락", "코스닥 일주일 새 4% 급락", "하루 새 vs 일주일 새"),
        # suspect / victim
        ("광주 흉기 사건 피의자, 병원서 치료 중", "광주 흉기 사건 피해자, 병원서 치료 중", "피의자 vs 피해자"),
        ("Ulsan stabbing victim was a delivery worker", "Ulsan stabbing suspect was a delivery worker", "victim vs suspect"),
        ("Attacker in Suwon bus assault identified", "수원 버스 폭행 피해자 신원 확인", "attacker vs 피해자"),
        # casualties
        ("창원 공장 폭발… 인명 피해 없어", "창원 공장 폭발… 인명 피해 발생", "인명 피해 없 vs 인명 피해 발생"),
        ("Blast at Changwon factory, no injuries", "Blast at Changwon factory, several casualties", "no injuries vs several casualties"),
        ("강릉 산불, 사상자 없어", "Gangneung wildfire leaves casualties", "vs leaves casualties"),
        # medals and places
        ("Kim Min-sun wins bronze in 500m speed skating", "Kim Min-sun wins silver in 500m speed skating", "bronze vs"),
        ("신유빈, 아시안게임 탁구 동메달", "신유빈, 아시안게임 탁구 은메달", "동메달 vs 은메달"),
        ("Pohang finish as FA Cup runners-up", "포항, 코리아컵 우승", "runners-up vs 우승"),
        # stake deals
        ("KCC raises stake in HCC", "KCC trims stake in HCC", "raises stake vs trims stake"),
        ("한국투자증권, 토스 지분 인수", "한국투자증권, 토스 지분 매각", "vs 지분 매각"),
        ("Posco buys shares in Australian lithium miner", "Posco sells shares in Australian lithium miner", "buys shares in vs sells shares in"),
    ],
)
def test_the_tenth_pass_frames_block(gs: GuardSet, a: str, b: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert "polarity" in got and evidence in got["polarity"], got


# The most telling copies of the pass's self-check: each frame word in another notation or language,
# on one side only, in another sense, or the two members in one text.
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("9월 산업생산 전년 동월 대비 1.5% 증가", "September industrial output up 1.5% from a year earlier"),
        ("Taiwan's exports rise 12% on-year", "대만 수출 전년 대비 12% 증가"),
        ("소비자물가 전월 대비 0.3%, 전년 동월 대비 2.1% 상승", "Consumer prices up 2.1% year on year"),
        ("Exports fell 5% from a year ago, the first drop in a year", "수출 1년 전보다 5% 감소"),
        ("Jeju Air adds 3 flights a week to Osaka", "제주항공, 오사카 노선 주 3회 증편"),
        ("Netflix raises price to 17,000 won a month", "넷플릭스, 월 1만7000원으로 요금 인상"),
        ("Rents have risen 2% a year since 2020", "2020년 이후 임대료 연 2% 상승"),
        ("Police arrest suspect in Ulsan stabbing", "울산 흉기 사건 피의자 체포"),
        ("Suspect kills victim's mother in Seoul", "서울서 피의자가 피해자 어머니 살해"),
        ("Victims of Jeju Air crash remembered", "제주항공 참사 희생자 추모"),
        ("Fire at Changwon factory; no casualties reported", "창원 공장 화재… 인명피해 없어"),
        ("Three injured in Changwon factory blast", "창원 공장 폭발로 3명 부상"),
        ("Silver prices hit 12-year high", "은값 12년 만에 최고"),
        ("Korea wins 13 golds, finishes 8th in Paris", "한국, 파리올림픽 금메달 13개로 종합 8위"),
        ("울산, K리그1 우승 도전", "Ulsan eye K League 1 title"),
        ("Hanwha raises stake in Hanwha Ocean", "한화, 한화오션 지분 확대"),
        ("Shinhan sells its Toss stake to Hana", "Hana buys Shinhan's stake in Toss"),
    ],
)
def test_the_tenth_pass_self_check_copies_pass(gs: GuardSet, a: str, b: str) -> None:
    assert blocked_by(gs, a, b) == {}
