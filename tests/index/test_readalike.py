"""Figures one side writes in words, in two units or as a regnal numeral, read alike across
Korean and English (``index.readalike``, what the pair verifier reads: ``Cascade.read_pair``).
The notations are those of koen-news-park dev copies the verifier refused with the figure read as
missing (research/notes/xling.md, "Park's fold-0 misses"); the sentences are invented."""

from __future__ import annotations

from index.readalike import conversions_as_written, number_words_as_digits, read_alike, regnal_as_roman


def test_an_english_number_word_is_read_as_the_digits_the_korean_side_counts_with() -> None:
    en, done = number_words_as_digits("Three firefighters were hurt and two residents are missing",
                                      "소방관 3명 부상, 주민 2명 실종")
    assert en == "3 firefighters were hurt and 2 residents are missing"
    assert done == ("Three as 3", "two as 2")


def test_a_number_word_stays_where_the_korean_side_has_no_such_count_or_it_is_an_adjective() -> None:
    # no count of 4 on the Korean side
    assert number_words_as_digits("Four firefighters were hurt", "소방관 3명 부상") == ("Four firefighters were hurt", ())
    # the English side writes the figure in digits already
    assert number_words_as_digits("Three of the 3 firefighters were hurt", "소방관 3명 부상")[1] == ()
    # "two-year": a compound adjective; read as digits the verifier read a changed word (frame_pairs_5)
    assert number_words_as_digits("Ex-mayor gets two-year suspended term", "전 시장, 징역 2년 집행유예 3년")[1] == ()
    # a date is no count: "2일" is the second of the month
    assert number_words_as_digits("Strike ends in two days", "파업 2일 종료")[1] == ()


def test_a_figure_given_with_its_conversion_is_read_in_the_unit_the_korean_side_writes() -> None:
    en, done = conversions_as_written("The typhoon was moving north at 12 mph (19 km/h) overnight",
                                      "태풍은 밤사이 시속 19km로 북상했다")
    assert en == "The typhoon was moving north at 19 km/h overnight"
    assert done == ("12 mph (19 km/h) as 19 km/h",)
    en, _ = conversions_as_written("The crane toppled from 30 meters (98 feet) up", "크레인이 30m 높이에서 넘어졌다")
    assert en == "The crane toppled from 30 meters up"
    # both or neither figure on the Korean side: as written
    assert conversions_as_written("It fell 98 feet (30 meters)", "98피트(30m) 아래로")[1] == ()
    assert conversions_as_written("It fell 98 feet (30 meters)", "크레인 추락")[1] == ()
    # not a unit of measure: as written
    assert conversions_as_written("He scored 2 goals (3 assists)", "3도움")[1] == ()


def test_a_regnal_number_is_read_as_the_roman_numeral_the_english_side_writes() -> None:
    ko, done = regnal_as_roman("교황 레오 14세가 성탄 메시지를 발표했다", "Pope Leo XIV issued his Christmas message")
    assert ko == "교황 레오 XIV가 성탄 메시지를 발표했다" and done == ("14세 as XIV",)
    # an age is no regnal number: no numeral of that value on the English side
    assert regnal_as_roman("52세 가이드 실종", "A 52-year-old guide is missing")[1] == ()
    assert regnal_as_roman("찰스 3세 국왕, 전시회 개막", "King Charles II opens exhibition")[1] == ()


def test_read_alike_rewrites_both_sides_and_names_every_rewrite() -> None:
    ko, en, done = read_alike("찰스 3세 국왕과 소방관 2명", "King Charles III and two firefighters")
    assert (ko, en) == ("찰스 III 국왕과 소방관 2명", "King Charles III and 2 firefighters")
    assert done == ("3세 as III", "two as 2")
    assert read_alike("코스피 4000선 돌파", "Kospi tops 4,000") == ("코스피 4000선 돌파", "Kospi tops 4,000", ())
