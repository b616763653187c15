"""index.unmatched: the spans a decision's reasons name beside the verifier's P."""

from __future__ import annotations

import pytest

from index.unmatched import describe, numbers, unmatched


def test_same_language_names_the_changed_words_only() -> None:
    assert unmatched("China imposes tariffs on US soybeans", "US imposes tariffs on Chinese soybeans") == (
        ["china"], ["chinese"], False)
    assert describe("Fed holds rates at 4.5%", "Fed holds rates at 4.25%") == "unmatched: '4.5%' / '4.25%'"


def test_korean_particles_and_spacing_are_not_differences() -> None:
    assert unmatched("정부, 내년 예산 600조원 편성", "정부가 내년 예산을 600조원으로 편성") == ([], [], False)
    assert describe("한은, 기준금리 동결", "한은, 기준금리 인하") == "unmatched: '동결' / '인하'"


def test_across_languages_only_numbers_are_compared() -> None:
    assert unmatched("Fed cuts rates to 3.75%-4%", "美연준, 기준금리 0.25%p 인하…3.75~4%") == ([], ["0.25"], True)
    assert describe("Kospi closes above 4,000", "코스피 4000선 돌파") == "unmatched numbers: none"


def test_a_syndication_suffix_is_a_decoration_not_a_difference() -> None:
    assert describe("Samsung unveils new foldable phone - Reuters", "samsung unveils new foldable phone") == (
        "unmatched: none")


def test_at_most_limit_words_per_side_and_a_bad_limit_is_refused() -> None:
    only_a, only_b, _ = unmatched("a b c d e f", "x", limit=2)
    assert only_a == ["a", "b"] and only_b == ["x"]
    assert describe("a b c", "a b") == "unmatched: 'c' / -"
    with pytest.raises(ValueError, match=r"^limit must be >= 1, got 0$"):
        unmatched("a", "b", limit=0)


def test_numbers_drop_thousands_separators() -> None:
    assert numbers("1,200 evacuated, 4 dead, 3.5% rise") == ["1200", "4", "3.5"]


def test_korean_words_sharing_a_prefix_are_still_different_words() -> None:
    assert describe("대한항공, 아시아나 인수", "대한민국, 아시아나 인수") == "unmatched: '대한항공' / '대한민국'"
