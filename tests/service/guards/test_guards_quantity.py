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


# --- figures written alike for the pair verifier (QuantityGuard.written_alike) ----------------------
@pytest.fixture(scope="module")
def quantity(gs: GuardSet) -> object:
    from service.guards.quantity import QuantityGuard

    return next(g for g in gs.guards if isinstance(g, QuantityGuard))


@pytest.mark.parametrize(("a", "b", "read", "rewrites"), [
    ("연준, 기준금리 0.25%p 인상", "Fed raises rates by 25 basis points", "연준, 기준금리 25 basis points 인상",
     ("0.25%p as 25 basis points",)),
    ("한은, 기준금리 0.25%p 인상", "BOK raises rate by 25bp", "한은, 기준금리 25bp 인상", ("0.25%p as 25bp",)),
    ("한전 3Q 영업이익 3.4조원", "한전, 3분기 영업익 3조4천억원", "한전 3Q 영업이익 3조4천억원", ("3.4조원 as 3조4천억원",)),
])
def test_equal_figures_written_otherwise_are_written_as_the_other_side_writes_them(
        quantity: object, a: str, b: str, read: str, rewrites: tuple[str, ...]) -> None:
    assert quantity.written_alike(a, b) == (read, rewrites)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("a", "b"), [
    ("한은, 기준금리 0.5%p 인상", "BOK raises rate by 25 basis points"),  # a changed figure stays changed
    ("한은, 기준금리 0.25%p 인상", "한은, 기준금리 0.25%p 인상 단행"),  # written alike already
    ("코스피 4000선 돌파", "Kospi closes above 4,000"),  # no quantity with a unit on one side
])
def test_a_pair_without_equal_figures_written_otherwise_is_read_as_it_is(quantity: object, a: str, b: str) -> None:
    text, rewrites = quantity.written_alike(a, b)  # type: ignore[attr-defined]
    assert text is a and rewrites == ()


def test_a_figure_is_rewritten_where_it_stands_on_its_own_not_inside_a_longer_number(quantity: object) -> None:
    # "1%" is also the end of "41%": the rewrite must take the "1%" that stands alone.
    text, rewrites = quantity.written_alike("지지율 41%, 전주보다 1%p 하락", "approval 41%, down 1 percentage point")  # type: ignore[attr-defined]
    assert text == "지지율 41%, 전주보다 1 percentage point 하락", (text, rewrites)


@pytest.mark.parametrize(("ta", "tb", "same"), [
    # a distance converted and rounded by the translator (koen-news-park's storm and crash reports)
    ("바그다드에서 북쪽으로 약 240km 떨어진 곳", "about 150 miles north of Baghdad", True),
    ("화련에서 남동쪽으로 289km 떨어진 지점", "180 miles southeast of Hualien", True),
    ("밴쿠버에서 1907km 비행", "a flight of 1,185 miles from Vancouver", True),
    # 3.5 % apart, and the same number in two unit systems
    ("50km 떨어진 섬", "an island 30 miles away", False),
    ("150km 떨어진 섬", "an island 150 miles away", False),
])
def test_converted_distances_are_equal_within_the_conversion_tolerance(ta: str, tb: str, same: bool) -> None:
    full = GuardSet.from_rules(enabled=["quantity", "number"])
    verdicts = full.check(side(ta, "ko"), side(tb, "en"))
    assert [v.blocked for v in verdicts if v.decided] == [not same, not same], [v.evidence for v in verdicts]


def test_a_figure_is_read_alike_with_the_nearest_equal_one_not_a_converted_neighbour() -> None:
    from service.guards.quantity import QuantityGuard, load_rules

    g = QuantityGuard.from_rules(load_rules()["quantity"])
    # 190 miles is 306 km, within the conversion tolerance of "300 km" too: the nearest wins.
    _, rewrites = g.written_alike("팔루 북쪽 300km(190마일) 해안", "the coastline 300 km (190 miles) north of Palu")
    assert rewrites == ("300km as 300 km", "190마일 as 190 miles")
    number = GuardSet.from_rules(enabled=["number"])
    (v,) = number.check(side("팔루 북쪽 300km(190마일) 해안", "ko"), side("the coastline 300 km (190 miles) north of Palu", "en"))
    assert "190마일 == 190 miles" in v.evidence


@pytest.mark.parametrize(("ta", "tb", "blocked"), [
    # kilometres and kilograms spelt out are the units "km" and "kg"
    ("포토시에서 50km 떨어진 곳", "about 30 miles (50 kilometers) from Potosi", False),
    ("포토시에서 80km 떨어진 곳", "about 50 kilometres from Potosi", True),
    ("코카인 300kg 압수", "police seize 300 kilograms of cocaine", False),
    ("코카인 300kg 압수", "police seize 500 kilos of cocaine", True),
])
def test_units_spelt_out(ta: str, tb: str, blocked: bool) -> None:
    verdict = GuardSet.from_rules(enabled=["quantity"]).check(side(ta, "ko"), side(tb, "en"))[0]
    assert verdict.blocked is blocked, verdict.evidence
