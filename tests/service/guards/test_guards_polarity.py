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
    ],
)
def test_steps_aside(gs: GuardSet, ta: str, tb: str) -> None:
    (v,) = gs.check(side(ta, "ko"), side(tb, "ko"))
    assert not v.blocked and not v.decided, v
