"""Tenth mend (tests/data/mend_pairs_10.jsonl, research/notes/guards.md "Mend 10"): bodies, clubs,
companies and forces named otherwise across languages (안보리 / "UN Security Council", 맨시티 / "Man
City", 라인야후 / "LY Corp", 주한미군 / USFK, 동양생명 / "Tongyang Life"), a hedge a Korean headline
words as a fear (우려), and an act weighed in a report (검토 보도). Other sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("유엔 안보리, 이란 핵 문제 긴급회의", "UN Security Council holds emergency session on Iran nuclear issue"),
        ("안보리, 예멘 제재 1년 연장", "UNSC extends Yemen sanctions by a year"),
        ("UNSC elects five non-permanent members", "UN Security Council elects five non-permanent members"),
        ("유엔 안전보장이사회, 아이티 파병 승인", "안보리, 아이티 파병 승인"),
        ("Man City agree deal for Spanish defender", "Manchester City agree deal for Spanish defender"),
        ("맨시티, 아스널과 2-2 무승부", "Man City draw 2-2 with Arsenal"),
        ("맨유, 홈에서 풀럼에 패배", "Manchester United lose at home to Fulham"),
        ("라인야후, 광고 사업 구조조정", "LY Corp restructures advertising business"),
        ("LINE Yahoo names new CFO", "LY Corp names new CFO"),
        ("주한미군, 드론 대응훈련 실시", "USFK conducts counter-drone drill"),
        ("U.S. Forces Korea to hold change of command ceremony", "USFK to hold change of command ceremony"),
        ("동양생명, 배당 확대", "Tongyang Life raises dividend"),
        ("Heavy rain may halt output at Ulsan refinery", "폭우에 울산 정유공장 생산 중단 우려"),
        ("정부, 공공기관 인력 감축 검토 보도", "Report says government weighing cuts to public agency staff"),
    ],
)
def test_the_tenth_mend_copies_pass(gs: GuardSet, a: str, b: str) -> None:
    assert blocked_by(gs, a, b) == {}


@pytest.mark.parametrize(
    ("a", "b", "guard", "evidence"),
    [
        # another UN organ, another club, another command, another insurer
        ("안보리, 이란 핵 결의안 채택", "UN General Assembly adopts Iran nuclear resolution", "who", "안보리 != UN General Assembly"),
        ("UN Security Council condemns coup in Niger", "UN Human Rights Council condemns coup in Niger", "who", "UN Security Council != UN Human Rights Council"),
        ("Man City agree deal for Spanish defender", "Man United agree deal for Spanish defender", "who", "Man City != Man United"),
        ("맨시티, 아스널과 2-2 무승부", "Manchester United draw 2-2 with Arsenal", "subject", "맨시티 != Manchester"),
        ("주일미군, 드론 대응훈련 실시", "USFK conducts counter-drone drill", "who", "주일미군 != USFK"),
        ("라인야후, 광고 사업 구조조정", "Naver restructures advertising business", "who", "라인야후 != Naver"),
        ("동양생명, 배당 확대", "ABL Life raises dividend", "who", "동양생명 != ABL Life"),
        # a hedge against the act stated; a fear dispelled against the hedge
        ("Strike could halt production at Kia plant", "기아 공장 파업으로 생산 중단", "polarity", "could halt"),
        ("Heavy rain may halt output at Ulsan refinery", "울산 정유공장 생산 중단 우려 해소", "polarity", "may halt"),
    ],
)
def test_the_tenth_mend_keeps_these_apart(gs: GuardSet, a: str, b: str, guard: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert guard in got and evidence in got[guard], got
