"""Polarity guard: opposite directions and stances block; the same direction merges."""

from __future__ import annotations

import pytest

from service.guards import GuardInput, GuardSet


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["polarity"])


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb", "ev"),
    [
        ("한은, 기준금리 인상", "ko", "한은, 기준금리 인하", "ko", "인상 vs 인하"),
        ("한은, 기준금리 동결", "ko", "BOK cuts rates", "en", "동결 vs cut"),
        ("코스피 급등", "ko", "코스피 급락", "ko", "급등 vs 급락"),
        ("Oil prices rise", "en", "Oil prices fall", "en", "rise vs fall"),
        ("Samsung confirms merger talks", "en", "Samsung denies merger talks", "en", "confirms vs denies"),
        ("삼성, 인수설 공식 발표했다", "ko", "삼성, 인수설 부인", "ko", "vs 부인"),
        ("[정정] 삼성전자 영업이익 10조", "ko", "삼성전자 영업이익 10조", "ko", "[정정]"),
        ("국회, 예산안 가결", "ko", "Parliament rejects budget", "en", "vs rejects"),
        # outcomes and stages (research/notes/guards.md, "Outcome frames")
        ("법원, 전 대표 배임 혐의 무죄", "ko", "Court convicts ex-CEO of breach of trust", "en", "무죄 vs convicts"),
        ("Jury finds ex-mayor guilty of bribery", "en", "Jury finds ex-mayor not guilty of bribery", "en", "guilty vs"),
        ("검찰, 전 시장 뇌물 혐의 기소", "ko", "Ex-mayor convicted of bribery", "en", "기소 vs convicted"),
        ("카카오, 공정위 상대 소송서 승소", "ko", "카카오, 공정위 상대 소송서 패소", "ko", "승소 vs 패소"),
        ("Nvidia revenue beats estimates", "en", "엔비디아 매출, 시장 예상치 하회", "ko", "vs 하회"),
        ("IMF raises Korea growth forecast to 2%", "en", "IMF, 韓 성장률 전망 2%로 하향", "ko", "vs 하향"),
        ("정부, 대러 수출 제재 해제", "ko", "정부, 대러 수출 제재 부과", "ko", "해제 vs 부과"),
        ("Airline resumes flights to Tel Aviv", "en", "Airline suspends flights to Tel Aviv", "en", "resumes vs suspends"),
        ("총리, 사의 표명 후 사퇴", "ko", "총리 유임 결정", "ko", "사퇴 vs 유임"),
        ("Senators introduce bill to ban TikTok", "en", "Senate passes bill to ban TikTok", "en", "vs passes"),
        ("호주, 청소년 SNS 금지 계획 발표", "ko", "Australia's teen social media ban takes effect", "en", "계획 vs takes effect"),
    ],
)
def test_flipped_stories_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert v.blocked and v.decided, v
    assert v.evidence.startswith("polarity: ") and ev in v.evidence


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("한은, 기준금리 인상", "ko", "BOK raises rates", "en"),
        ("코스피 급등", "ko", "KOSPI surges", "en"),
        ("Oil prices rise", "en", "Oil prices jumped", "en"),
        ("Stocks fall as bonds rise", "en", "Bonds rise", "en"),  # mixed evidence never blocks
        ("법원, 전 대표 배임 혐의 무죄", "ko", "Court acquits ex-CEO of breach of trust", "en"),
        ("엔비디아 매출, 예상치 상회", "ko", "Nvidia revenue tops expectations", "en"),
        ("IMF, 韓 성장률 전망 상향", "ko", "IMF upgrades Korea growth outlook", "en"),
        # a plea is not a verdict: "pleads not guilty" is not an acquittal of the indicted
        ("검찰, 전 시장 뇌물 혐의 기소", "ko", "Ex-mayor indicted on bribery charges, pleads not guilty", "en"),
    ],
)
def test_same_direction_passes(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked and v.decided, v


@pytest.mark.parametrize(
    ("ta", "tb"),
    [
        ("금리 인상하지 않기로", "금리 인하"),  # negated: no evidence
        ("인하대 입학식", "금리 인상"),  # Inha University is not a rate cut
        ("첫인상이 중요하다", "금리 인하"),
        ("Apple ships iPhone", "Samsung ships Galaxy"),
        ("개정 시행령 입법예고", "공사 계획 발표"),  # an enforcement decree is not an entry into force
    ],
)
def test_steps_aside(gs: GuardSet, ta: str, tb: str) -> None:
    (v,) = gs.check(side(ta, "ko"), side(tb, "ko"))
    assert not v.blocked and not v.decided, v
