"""The who / where guards with a word aligner across scripts (slots.toml align_match / align_none).

A stub aligner stands for index/word_align.py here so that each branch is shown with a chosen
similarity; tests/index/test_word_align.py tests the aligner itself.
"""

from __future__ import annotations

import pytest

from service.guards import GuardInput
from service.guards.rules import load_rules
from service.guards.slotguards import SlotGuard
from service.guards.slots import SlotAnalyzer


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


class Stub:
    """Every span's counterpart is ``span`` with similarity ``sim``; records what was asked."""

    def __init__(self, sim: float, span: str = "x") -> None:
        self.sim, self.span, self.asked = sim, span, []

    def best_counterpart(self, span_a: str, text_a: str, text_b: str) -> tuple[str, float]:
        self.asked.append(span_a)
        return self.span, self.sim


@pytest.fixture()
def sa() -> SlotAnalyzer:
    return SlotAnalyzer(load_rules())


KO, EN = "홋카이도에 폭설로 3명 사망", "Heavy snow kills 3 in Okinawa"


def test_without_an_aligner_the_clash_stands(sa: SlotAnalyzer) -> None:
    v = SlotGuard("who", sa).check(side(KO, "ko"), side(EN, "en"))
    assert v.blocked and v.evidence == "who: 홋카이도 != Okinawa"


def test_a_name_aligned_above_align_match_is_matched(sa: SlotAnalyzer) -> None:
    sa.aligner = Stub(sa.align_match + 0.01, "Okinawa")
    v = SlotGuard("who", sa).check(side(KO, "ko"), side(EN, "en"))
    assert not v.blocked
    assert f"홋카이도 == Okinawa (aligned {sa.align_match + 0.01:.2f})" in v.evidence


def test_a_name_aligned_below_align_match_still_clashes(sa: SlotAnalyzer) -> None:
    sa.aligner = Stub(sa.align_match - 0.01, "Okinawa")
    v = SlotGuard("who", sa).check(side(KO, "ko"), side(EN, "en"))
    assert v.blocked and v.evidence == "who: 홋카이도 != Okinawa"


def test_no_alignment_within_one_script(sa: SlotAnalyzer) -> None:
    stub = Stub(0.99)
    sa.aligner = stub
    v = SlotGuard("who", sa).check(side("Biden meets Kishida in Tokyo", "en"), side("Biden meets Albanese in Tokyo", "en"))
    assert v.blocked and stub.asked == []


def test_a_name_on_one_side_only_is_not_aligned(sa: SlotAnalyzer) -> None:
    stub = Stub(0.99)
    sa.aligner = stub
    SlotGuard("who", sa).check(side("폭설로 3명 사망", "ko"), side(EN, "en"))
    assert stub.asked == []


def test_names_unlike_anything_on_the_other_side_are_a_hard_clash_when_align_none_is_set(sa: SlotAnalyzer) -> None:
    # two leftover names a side on a sentence-length text: not a confident clash by the tables
    a = ("정부는 월요일 홋카이도와 아오모리 일대에 폭설 경보를 내리고 주민들에게 외출 자제를 당부했다고 "
         "현지 언론이 보도했다")
    b = ("Officials in Okinawa and Kagoshima issued heavy snow warnings on Monday and urged residents "
         "to stay indoors, local media reported")
    sa.aligner = Stub(0.1)
    assert not SlotGuard("who", sa).check(side(a, "ko"), side(b, "en")).blocked  # align_none 0: off
    sa.align_none = 0.2
    v = SlotGuard("who", sa).check(side(a, "ko"), side(b, "en"))
    assert v.blocked and not v.soft
