"""Ninth mend (tests/data/mend_pairs_9.jsonl, research/notes/guards.md "Mend 9"): names translated
or shortened across languages (EPL / Premier League, KB금융 / KB Financial, Ether / Ethereum / 이더리움,
전영오픈 / All England Open), the two chambers (상원 / Senate, 하원 / House), a hedge a translation
words as a forecast ("may cut" / "인하 관측"), Korean follow-ups (후속 조치 / 후속 대책, "follow-up
talks") and a bill passed in Korean's 처리. Other sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from service.guards.polarity import PolarityGuard
from service.guards.rules import load_rules
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # one league, group, coin or tournament in two languages or spellings
        ("KB금융, 비은행 부문 순익 증가", "KB Financial's non-bank profit rises"),
        ("하나금융, 자사주 소각 결정", "Hana Financial Group to cancel treasury shares"),
        ("Ethereum hits three-year high", "Ether hits three-year high"),
        ("김가은, 전영오픈 4강 진출", "Kim Ga-eun reaches All England Open semifinal"),
        ("울버햄프턴, EPL 잔류 확정", "Wolves secure Premier League survival"),
        # a chamber named on both sides, the country on one
        ("美 상원, 중국 견제 법안 가결", "Senate passes China competition bill"),
        ("美 하원, 우크라이나 지원안 처리", "US House approves Ukraine aid"),
        # a senator is a person, not the chamber
        ("뉴욕 상원 의원, 대선 출마 선언", "New York senator announces presidential bid"),
        # a hedge against a forecast, and two hedges
        ("Apple could delay foldable iPhone, analysts say", "애널리스트들, 애플 폴더블 아이폰 출시 연기 전망"),
        ("Fed may cut rates in December", "연준, 12월 금리 인하 관측"),
        ("LG엔솔, 美 공장 가동 미룰 듯", "LG Energy Solution may delay start of US plant"),
        # a follow-up on both sides, and 후속 of a successor model
        ("정부, 집중호우 피해 후속 대책 발표", "Government unveils follow-up measures for flood damage"),
        ("삼성, 폴드6 후속 모델 준비", "Samsung readies Fold 6 successor"),
    ],
)
def test_the_ninth_mend_copies_pass(gs: GuardSet, a: str, b: str) -> None:
    assert blocked_by(gs, a, b) == {}


@pytest.mark.parametrize(
    ("a", "b", "guard", "evidence"),
    [
        ("Senate passes defense bill", "美 하원, 국방법안 통과", "who", "Senate != "),
        ("美 상원, 중국 견제 법안 가결", "美 하원, 중국 견제 법안 가결", "who", "상원 != 하원"),
        # another bank of the group, another group: one sound or one shared word is no alignment
        ("KB Kookmin Bank posts record profit", "KB금융, 사상 최대 실적", "who", "KB Kookmin Bank != KB금융"),
        ("Hana Financial raises dividend", "Woori Financial raises dividend", "who", "Hana Financial != Woori Financial"),
        # a hedge against the act, a commitment or a denial
        ("Fed may cut rates in December", "Fed cuts rates in December", "polarity", "may cut vs"),
        ("Fed may cut rates in December", "Fed will cut rates in December, Powell says", "polarity", "may cut vs"),
        ("Apple could delay foldable iPhone", "Apple denies report it will delay foldable iPhone", "polarity", "denies"),
        # a follow-up against its first report
        ("정부, 집중호우 피해 대책 발표", "정부, 집중호우 피해 후속 대책 발표", "polarity", "후속 대책"),
        ("Korea, Japan agree on fisheries deal", "Korea, Japan open follow-up talks on fisheries deal", "polarity", "follow-up talks"),
        # a bill passed against one that failed
        ("국회, 예산안 처리", "국회, 예산안 처리 무산", "polarity", "처리 vs 처리 무산"),
    ],
)
def test_the_ninth_mend_keeps_these_apart(gs: GuardSet, a: str, b: str, guard: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert guard in got and evidence in got[guard], got


def test_an_excuse_must_name_a_marker() -> None:
    rules = load_rules()["polarity"]
    bad = {**rules, "measure_marker_excuses": {"nonesuch": {"hedges": ["may"], "terms": ["전망"]}}}
    with pytest.raises(ValueError, match="nonesuch"):
        PolarityGuard.from_rules(bad)


def test_a_follow_up_is_another_report_of_the_same_story(gs: GuardSet) -> None:
    """The follow-up marker keeps a follow-up out of its first report's copy group; the story level's
    veto (slot guards and subjects, no polarity) does not keep it out of the story."""
    from service.guards.slots import SlotAnalyzer
    from service.guards.storyveto import SlotVeto
    from service.guards.subject import SubjectGuard
    from service.stories import StoryEvidence

    rules = load_rules()
    veto = SlotVeto(SlotAnalyzer(rules), subject=SubjectGuard.from_rules(rules["subject"]))
    first, follow = "교육부, 늘봄학교 운영 방안 발표", "교육부, 늘봄학교 후속 조치 발표"
    assert "polarity" in blocked_by(gs, first, follow)
    assert veto(*(StoryEvidence.build(t, "", "ko", 0.0, None) for t in (first, follow))) is None
