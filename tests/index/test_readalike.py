"""Figures one side writes in words, in two units or as a regnal numeral, read alike across
Korean and English (``index.readalike``, what the pair verifier reads: ``Cascade.read_pair``).
The pairs are koen-news-park dev copies the verifier refused with the figure read as missing
(research/notes/xling.md, "Park's fold-0 misses"), written anew here."""

from __future__ import annotations

from index.readalike import conversions_as_written, number_words_as_digits, read_alike, regnal_as_roman


def test_an_english_number_word_is_read_as_the_digits_the_korean_side_counts_with() -> None:
    en, done = number_words_as_digits("Two miners were rescued and four others are missing", "광부 2명 구조, 4명 실종")
    assert en == "2 miners were rescued and 4 others are missing"
    assert done == ("Two as 2", "four as 4")


def test_a_number_word_stays_where_the_korean_side_has_no_such_count_or_it_is_an_adjective() -> None:
    # no count of 3 on the Korean side
    assert number_words_as_digits("Three miners were rescued", "광부 2명 구조") == ("Three miners were rescued", ())
    # the English side writes the figure in digits already
    assert number_words_as_digits("Two of the 2 miners were rescued", "광부 2명 구조")[1] == ()
    # "two-year": a compound adjective; read as digits the verifier read a changed word (frame_pairs_5)
    assert number_words_as_digits("Former CEO gets suspended two-year prison term", "전 대표, 징역 2년에 집행유예 3년")[1] == ()
    # a date is no count: "2일" is the second of the month
    assert number_words_as_digits("Talks resume in two days", "협상 2일 재개")[1] == ()


def test_a_figure_given_with_its_conversion_is_read_in_the_unit_the_korean_side_writes() -> None:
    en, done = conversions_as_written("The storm was moving at near 14 mph (22 km/hr) away from the islands",
                                      "폭풍은 시속 22km로 이동하고 있다")
    assert en == "The storm was moving at near 22 km/hr away from the islands"
    assert done == ("14 mph (22 km/hr) as 22 km/hr",)
    en, _ = conversions_as_written("The devices were placed 15 meters (49 feet) apart", "폭발물은 15m 간격으로 설치됐다")
    assert en == "The devices were placed 15 meters apart"
    # both or neither figure on the Korean side: as written
    assert conversions_as_written("It fell 650 feet (200 meters)", "650피트(200m) 아래로")[1] == ()
    assert conversions_as_written("It fell 650 feet (200 meters)", "계곡으로 추락")[1] == ()
    # not a unit of measure: as written
    assert conversions_as_written("He scored 2 goals (3 assists)", "3도움")[1] == ()


def test_a_regnal_number_is_read_as_the_roman_numeral_the_english_side_writes() -> None:
    ko, done = regnal_as_roman("교황 요한 바오로 2세가 선언했다", "Pope John Paul II declared")
    assert ko == "교황 요한 바오로 II가 선언했다" and done == ("2세 as II",)
    # an age is no regnal number: no numeral of that value on the English side
    assert regnal_as_roman("48세 여성이 풀려났다", "A 48-year-old woman was freed")[1] == ()
    assert regnal_as_roman("황제 니콜라이 2세의 자녀", "children of Czar Nicholas III")[1] == ()


def test_read_alike_rewrites_both_sides_and_names_every_rewrite() -> None:
    ko, en, done = read_alike("교황 요한 바오로 2세와 신자 2명", "Pope John Paul II and two believers")
    assert (ko, en) == ("교황 요한 바오로 II와 신자 2명", "Pope John Paul II and 2 believers")
    assert done == ("2세 as II", "two as 2")
    assert read_alike("코스피 4000선 돌파", "Kospi tops 4,000") == ("코스피 4000선 돌파", "Kospi tops 4,000", ())
