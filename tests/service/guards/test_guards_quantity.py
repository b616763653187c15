"""Quantity guard: same quantity type with different values blocks; restatements merge."""

from __future__ import annotations

import pytest

from service.guards import GuardInput, GuardSet


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["quantity"])


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


BLOCK = [
    ("한은, 기준금리 0.25%p 인상", "ko", "한은, 기준금리 0.5%p 인상", "ko", "0.25%p != 0.5%p"),
    ("Fed raises rates by 25 basis points", "en", "Fed raises rates by 50 basis points", "en", "!="),
    ("삼성전자 영업이익 10조8천억원", "ko", "Samsung operating profit 10.7 trillion won", "en", "!="),
    ("현대차 200만대 리콜", "ko", "Hyundai recalls 3 million vehicles", "en", "!="),
    ("Tesla sells 1.2 million cars", "en", "Tesla sells 1.8 million cars", "en", "!="),
    ("물가 2,5% 상승", "ko", "물가 3.5% 상승", "ko", "!="),
]
PASS = [
    ("한은, 기준금리 0.25%p 인상", "ko", "BOK raises rate by 25bp", "en", "0.25%p == 25bp"),
    ("한은, 기준금리 0.25%p 인상", "ko", "BOK raises rate by a quarter-point", "en", "=="),
    ("현대차 200만대 리콜", "ko", "Hyundai recalls 2 million vehicles", "en", "=="),
    ("삼성전자 영업이익 10조8천억원", "ko", "Samsung operating profit 10.8 trillion won", "en", "=="),
    ("1억1천만 달러 규모 슈퍼컴퓨터", "ko", "the $110 million supercomputer", "en", "=="),
    ("Sales rose 3.5%", "en", "Sales rose 3,5%", "en", "=="),
    ("오백만 원 지원", "ko", "5,000,000원 지원", "ko", "=="),
]


@pytest.mark.parametrize(("ta", "la", "tb", "lb", "ev"), BLOCK)
def test_different_quantities_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert v.blocked and v.decided, v
    assert v.evidence.startswith("quantity: ") and ev in v.evidence


@pytest.mark.parametrize(("ta", "la", "tb", "lb", "ev"), PASS)
def test_restated_quantities_pass(gs: GuardSet, ta: str, la: str, tb: str, lb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked and v.decided, v
    assert ev in v.evidence


@pytest.mark.parametrize(
    ("ta", "tb"),
    [
        ("현대차 200만대 리콜", "Hyundai recalls 2 million"),  # unit on one side only
        ("3대 1로 승리", "4대 0으로 승리"),  # a score, not vehicles
        ("3원칙 발표", "5원칙 발표"),  # principles, not won
        ("Apple unveils iPhone", "애플 아이폰 공개"),
    ],
)
def test_steps_aside_without_comparable_quantities(gs: GuardSet, ta: str, tb: str) -> None:
    (v,) = gs.check(side(ta, "ko"), side(tb, "ko"))
    assert not v.blocked and not v.decided, v
