"""Role guard, fourth Korean test: word order where both texts use the same bag of words.

Every sentence here is invented for these tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.guards import GuardInput, GuardSet


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["role"])


def side(text: str, lang: str = "ko") -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


def verdict(gs: GuardSet, ta: str, tb: str, lang: str = "ko"):
    (v,) = gs.check(side(ta, lang), side(tb, lang))
    assert v.guard == "role"
    return v


SERIES_A = "첫 번째 공연은 관객들에게 두 번째 공연보다 큰 호응을 얻었고 입장권도 일찍 매진되었다."
SERIES_B = "두 번째 공연은 관객들에게 첫 번째 공연보다 큰 호응을 얻었고 입장권도 일찍 매진되었다."
FINAL_A = "2003년 Hartley는 부산에서 열린 대회에서 미첼을 꺾고 우승했으며 이듬해 은퇴를 발표했다."
FINAL_B = "2003년 Mitchell은 부산에서 열린 대회에서 하틀리를 꺾고 우승했으며 이듬해 은퇴를 발표했다."
RIVER = "한솔 강은 충청북도 남부에 위치한 누리 강의 지류이며 길이는 약 40킬로미터로 알려져 있습니다."
RIVER_SWAP = "누리 강은 충청북도 남부에 위치한 한솔 강의 지류이며 길이는 약 40킬로미터로 알려져 있습니다."


@pytest.mark.parametrize(
    ("ta", "tb", "ev"),
    [
        # numeral words swapped, every particle in place: the particle test sees "공연" twice
        (SERIES_A, SERIES_B, "role: 8 of 10 shared words in the same order; moved: 첫, 두 (order)"),
        # two names swapped, each spelt in Latin on one side and in Hangul on the other
        (FINAL_A, FINAL_B, "role: 9 of 11 shared words in the same order; moved: Hartley, 미첼 (order)"),
        # two river names swapped; the particles sit on the shared head noun "강"
        (RIVER, RIVER_SWAP, "role: 7 of 9 shared words in the same order; moved: 한솔, 누리 (order)"),
    ],
)
def test_same_bag_reordering_blocks(gs: GuardSet, ta: str, tb: str, ev: str) -> None:
    v = verdict(gs, ta, tb)
    assert v.blocked and v.decided, v
    assert v.evidence == ev


@pytest.mark.parametrize(
    ("ta", "tb"),
    [
        (SERIES_A, SERIES_A),
        # the same order, names in the other script: aligned by phonetic key, nothing moved
        (FINAL_A, "2003년 하틀리는 부산에서 열린 대회에서 Mitchell을 꺾고 우승했으며 이듬해 은퇴를 발표했다."),
        # a re-spelt copy (spacing, punctuation, a unit written otherwise)
        (RIVER, "한솔강은 충청북도 남부에 위치한 누리강의 지류이며, 길이는 약 40km로 알려져 있습니다."),
        # one displaced word (a name moved to the front) is no swap
        (RIVER, "충청북도 남부에 위치한 한솔 강은 누리 강의 지류이며 길이는 약 40킬로미터로 알려져 있습니다."),
        # a rewrite: too few shared words for the same-bag regime, so order is not read
        (RIVER, "충청북도의 산간 지역을 따라 흐르는 한솔 강은 하류에서 누리 강과 만나며 유역에는 작은 마을들이 모여 있다."),
        # short texts (headlines) are outside the regime: word order alone never blocks there
        ("정부는 내년 예산안을 국회에 제출했다", "국회에 정부는 내년 예산안을 제출했다"),
    ],
)
def test_kept_pairs_pass(gs: GuardSet, ta: str, tb: str) -> None:
    v = verdict(gs, ta, tb)
    assert not v.blocked, v


def test_same_bag_paraphrase_is_refused(gs: GuardSet) -> None:
    # The price of the rule (over-splitting beats over-merging): a true paraphrase of the same
    # words that moves two of them (the subject to the front) is refused, as in PAWS-X.
    a = "1998년 대전에서 태어난 가수 김하늘은 2015년 첫 음반을 발표했고 2019년 전국 공연을 시작했다."
    b = "가수 김하늘은 1998년 대전에서 태어났고 2015년 첫 음반을 발표했으며 2019년 전국 공연을 시작했다."
    v = verdict(gs, a, b)
    assert v.blocked and v.evidence == "role: 11 of 13 shared words in the same order; moved: 가수, 김하늘 (order)"


def test_english_order_is_not_read(gs: GuardSet) -> None:
    # The order test is Korean only: no English calibration set has the same-bag regime.
    a = "In 2003 in Busan, Hartley beat Mitchell in the final and announced his retirement a year later"
    b = "Hartley beat Mitchell in the final in Busan in 2003 and announced his retirement a year later"
    v = verdict(gs, a, b, "en")
    assert not v.blocked and "(order)" not in v.evidence, v


def test_order_test_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / "role.off.toml").write_text("[order]\nenabled = false\n", encoding="utf-8")
    off = GuardSet.from_rules([tmp_path], enabled=["role"])
    assert off.blocked(off.check(side(SERIES_A), side(SERIES_B))) == []


def test_bad_order_rules_are_precise_errors(tmp_path: Path) -> None:
    (tmp_path / "role.toml").write_text("[order]\nmin_shared_share = 1.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match="min_shared_share"):
        GuardSet.from_rules([tmp_path])
    (tmp_path / "role.toml").write_text('[order]\nenabled = "yes"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="enabled"):
        GuardSet.from_rules([tmp_path])
    (tmp_path / "role.toml").write_text("[order.numerals]\n\"일곱\" = 7\n", encoding="utf-8")
    with pytest.raises(ValueError, match="numerals"):
        GuardSet.from_rules([tmp_path])
