"""The Korean numeral readers: pinned outputs of the three callers, and the shared core.

The three tables were written from the readers as they were before ``index.numerals`` (commit
39ed071: ``service.stories.figure_value``, ``QuantityGuard._parse_number``,
``service.guards.slots.korean_numeral_step``), quirks included ("0만" reads as 1만 in the two
string readers and as 0 in the slot reader; "만억" as one 억 in the slot reader), so that moving
them onto one core changes no output.
"""

from __future__ import annotations

import pytest

from service.guards.quantity import QuantityGuard
from service.guards.rules import load_rules
from service.guards.slots import korean_numeral_step
from service.stories import figure_value

FIGURES: list[tuple[str, str]] = [
    ("5만", "50000"),
    ("5억", "500000000"),
    ("1만8천", "18000"),
    ("3조4천억", "3400000000000"),
    ("1,200", "1200"),
    ("1.2 million", "1200000"),
    ("120만", "1200000"),
    ("0.25", "0.25"),
    ("0만", "10000"),
    ("만", "10000"),
    ("억", "100000000"),
    ("천", "1000"),
    ("백만", "1000000"),
    ("3천5백만", "35000000"),
    ("10조8천억", "10800000000000"),
    ("2조5천억", "2500000000000"),
    ("1.5만", "15000"),
    ("1.25만3천", "15500"),
    ("3억5000만", "350000000"),
    ("1만2천0.1", "12000.1"),
    ("1.2.3", "1.2.3"),
    ("1.2.3만", "1.2.3"),
    ("5 bn", "5000000000"),
    ("2 thousand", "2000"),
    ("3천 million", "3000000000"),
    ("1억 billion", "100000000000000000"),
    ("1,234.5", "1234.5"),
    ("2,5만", "250000"),
    ("0.001만5천", "5010"),
    ("12조", "12000000000000"),
    ("7십", "70"),
    ("십만", "100000"),
    ("1십2", "12"),
    ("5천억", "500000000000"),
    ("100", "100"),
    ("1,000,000", "1000000"),
    ("3.5조", "3500000000000"),
    ("1조0", "1000000000000"),
    ("4만4", "40004"),
    ("9억9천9백9십9만9천9백9십9", "999999999"),
]
QUANTITIES: list[tuple[str, tuple[float, float] | None]] = [
    ("5만", (50000.0, 10000.0)),
    ("5억", (500000000.0, 100000000.0)),
    ("1만8천", (18000.0, 1000.0)),
    ("3조4천억", (3400000000000.0, 100000000000.0)),
    ("1,200", (1200.0, 1.0)),
    ("1.2 million", (1.2, 0.1)),
    ("120만", (1200000.0, 10000.0)),
    ("0.25", (0.25, 0.01)),
    ("0만", (10000.0, 10000.0)),
    ("만", (10000.0, 10000.0)),
    ("억", (100000000.0, 100000000.0)),
    ("천", (1000.0, 1000.0)),
    ("백만", (1000000.0, 1000000.0)),
    ("3천5백만", (35000000.0, 1000000.0)),
    ("10조8천억", (10800000000000.0, 100000000000.0)),
    ("2조5천억", (2500000000000.0, 100000000000.0)),
    ("1.5만", (15000.0, 1000.0)),
    ("1.25만3천", (15500.0, 1000.0)),
    ("3억5000만", (350000000.0, 10000.0)),
    ("1만2천0.1", (12000.1, 0.1)),
    ("1.2.3", None),
    ("1.2.3만", None),
    ("5 bn", (5.0, 1.0)),
    ("2 thousand", (2.0, 1.0)),
    ("3천 million", (3000.0, 1000.0)),
    ("1억 billion", (100000000.0, 100000000.0)),
    ("1,234.5", (1234.5, 0.1)),
    ("2,5만", (25000.0, 1000.0)),
    ("0.001만5천", (5010.0, 1000.0)),
    ("12조", (12000000000000.0, 1000000000000.0)),
    ("7십", (70.0, 10.0)),
    ("십만", (100000.0, 100000.0)),
    ("1십2", (12.0, 1.0)),
    ("5천억", (500000000000.0, 100000000000.0)),
    ("100", (100.0, 1.0)),
    ("1,000,000", (1000000.0, 1.0)),
    ("3.5조", (3500000000000.0, 100000000000.0)),
    ("1조0", (1000000000000.0, 1.0)),
    ("4만4", (40004.0, 1.0)),
    ("9억9천9백9십9만9천9백9십9", (999999999.0, 1.0)),
    ("오백만", (5000000.0, 1000000.0)),
    ("천", (1000.0, 1000.0)),
    ("이", None),
    ("사", None),
    ("삼천", (3000.0, 1000.0)),
    ("일억", (100000000.0, 100000000.0)),
    ("이조삼천억", (2300000000000.0, 100000000000.0)),
    ("오십", (50.0, 10.0)),
    ("구천구백", (9900.0, 100.0)),
    ("3 조 5천억", (3500000000000.0, 100000000000.0)),
    ("1,234.5만", (12345000.0, 1000.0)),
    ("2.0.1", None),
    ("1.234.567", (1234567.0, 1.0)),
    ("2,5", (2.5, 0.1)),
    ("1,2,3", None),
    ("경", (1e16, 1e16)),
    ("3경", (3e16, 1e16)),
    ("오", None),
    ("만오천", (15000.0, 1000.0)),
    ("3조 5", (3000000000005.0, 1.0)),
    ("0", (0.0, 1.0)),
    ("0억", (100000000.0, 100000000.0)),
]
SLOT_NUMERALS: list[tuple[list[str], int, tuple[float | None, float, int]]] = [
    (["3/SN", "천/NR", "5/SN", "백만/NR", "달러/NNB"], 0, (35000000.0, 1000000.0, 4)),
    (["3/SN", "천/NR", "5/SN", "백만/NR", "달러/NNB"], 2, (5000000.0, 1000000.0, 4)),
    (["200/SN", "만/NR"], 0, (2000000.0, 10000.0, 2)),
    (["1.5/SN"], 0, (1.5, 0.1, 1)),
    (["3/SN", "억/NR", "5000/SN", "만/NR", "원/NNB"], 0, (350000000.0, 10000.0, 4)),
    (["3/SN", "억/NR", "5000/SN", "만/NR", "원/NNB"], 2, (50000000.0, 10000.0, 4)),
    (["10/SN", "조/NR", "8/SN", "천억/NR"], 0, (10800000000000.0, 100000000000.0, 4)),
    (["10/SN", "조/NR", "8/SN", "천억/NR"], 2, (800000000000.0, 100000000000.0, 4)),
    (["1.25/SN", "만/NR", "3/SN", "천/NR"], 0, (15500.0, 100.0, 4)),
    (["1.25/SN", "만/NR", "3/SN", "천/NR"], 2, (3000.0, 1000.0, 4)),
    (["0/SN", "만/NR"], 0, (0.0, 10000.0, 2)),
    (["0/SN", "백만/NR"], 0, (0.0, 1000000.0, 2)),
    (["5/SN", "천백/NR"], 0, (500000.0, 100000.0, 2)),
    (["5/SN", "만억/NR"], 0, (500000000.0, 100000000.0, 2)),
    (["5/SN", "십만/NNG"], 0, (500000.0, 100000.0, 2)),
    (["5/SN", "만/MM"], 0, (50000.0, 10000.0, 2)),
    (["5/SN", "만/NNB", "3/SN"], 0, (50003.0, 1.0, 3)),
    (["5/SN", "만/NNB", "3/SN"], 2, (3.0, 1.0, 3)),
    (["5/SN", "명/NNB"], 0, (5.0, 1.0, 1)),
    (["5/SN", "만명/NNB"], 0, (5.0, 1.0, 1)),
    (["1,000/SN", "억/NR"], 0, (100000000000.0, 100000000.0, 2)),
    (["3,000/SN"], 0, (3000.0, 1.0, 1)),
    (["2,5/SN", "만/NR"], 0, (25000.0, 1000.0, 2)),
    (["1.2.3/SN"], 0, (None, 0.0, 1)),
    (["7/SN", "조/NR", "1.2.3/SN"], 0, (None, 0.0, 3)),
    (["7/SN", "조/NR", "1.2.3/SN"], 2, (None, 0.0, 3)),
    (["손/NNP", "5/SN"], 1, (5.0, 1.0, 2)),
    (["12/SN", "조/NR", "3/SN", "천/NR", "4/SN", "백/NR", "억/NR"], 0, (12000000003400.0, 100.0, 6)),
    (["12/SN", "조/NR", "3/SN", "천/NR", "4/SN", "백/NR", "억/NR"], 2, (3400.0, 100.0, 6)),
    (["12/SN", "조/NR", "3/SN", "천/NR", "4/SN", "백/NR", "억/NR"], 4, (400.0, 100.0, 6)),
    (["0.001/SN", "만/NR", "5/SN", "천/NR"], 0, (5010.0, 10.0, 4)),
    (["0.001/SN", "만/NR", "5/SN", "천/NR"], 2, (5000.0, 1000.0, 4)),
    (["1/SN", "만/NR", "2/SN", "천/NR", "0.1/SN"], 0, (12000.1, 0.1, 5)),
    (["1/SN", "만/NR", "2/SN", "천/NR", "0.1/SN"], 2, (2000.1, 0.1, 5)),
    (["1/SN", "만/NR", "2/SN", "천/NR", "0.1/SN"], 4, (0.1, 0.1, 5)),
]


@pytest.fixture(scope="module")
def quantity_guard() -> QuantityGuard:
    return QuantityGuard.from_rules(load_rules()["quantity"])


@pytest.mark.parametrize(("figure", "anchor"), FIGURES)
def test_figure_value_is_pinned(figure: str, anchor: str) -> None:
    assert figure_value(figure) == anchor


@pytest.mark.parametrize(("raw", "parsed"), QUANTITIES)
def test_quantity_parse_number_is_pinned(
    quantity_guard: QuantityGuard, raw: str, parsed: tuple[float, float] | None
) -> None:
    assert quantity_guard._parse_number(raw) == parsed


@pytest.mark.parametrize(("tokens", "start", "read"), SLOT_NUMERALS)
def test_slot_numeral_step_is_pinned(
    tokens: list[str], start: int, read: tuple[float | None, float, int]
) -> None:
    toks = tuple((form, tag, 0, 0) for form, tag in (t.split("/") for t in tokens))
    assert korean_numeral_step(toks, start) == read


def test_a_figure_no_float_holds_is_read_as_written() -> None:
    """A run of 309 digits or more is infinity as a float: ``figure_value`` raised OverflowError,
    which failed the ingest of any item with such a number in its text."""
    from service.stories import anchors_of

    huge = "9" * 400
    assert figure_value(huge) == huge and figure_value(f"{huge}조") == f"{huge}조"
    assert huge in anchors_of(f"Lottery draws number {huge}")
