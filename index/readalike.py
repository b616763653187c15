"""Figures a Korean text and its English translation write in different notations, read alike.

What the pair verifier reads (``service.cascade.Cascade.read_pair``). Trained to refuse a changed
figure, it reads a figure that one side writes in digits and the other in another notation as a
figure the other side lacks, and refuses clear translations for it (koen-news-park dev copies,
P before / after the rewrite: pos/test/1739, a count in words, 0.40 / 0.62; pos/test/1411, a speed
with its conversion, 0.37 / 0.98; pos/test/46, a regnal number, 0.42 / 0.75; research/notes/
xling.md, "Park's fold-0 misses"). Three notations, each rewritten only where the other side
writes the figure and this side does not:

* an English number word (one to twenty) where the Korean side counts with that number in digits
  ("3명", "2년"): the word as digits, in the English text;
* an English figure given with its conversion in brackets ("12 mph (19 km/h)", "30 meters (98
  feet)") where the Korean side writes one of the two figures and not the other: the one it
  writes, in the English text;
* a Korean regnal number ("찰스 3세") where the English side writes that numeral after a name
  ("Charles III"): the Roman numeral, in the Korean text.

Pure and deterministic, like ``index.text``.

>>> read_alike("소방관 3명 부상", "Three firefighters hurt")
('소방관 3명 부상', '3 firefighters hurt', ('Three as 3',))
"""

from __future__ import annotations

import re

__all__ = ["conversions_as_written", "number_words_as_digits", "read_alike", "regnal_as_roman"]

_NUMBER_WORDS = {w: i for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))}
# A number word on its own: not part of a compound ("two-year", "twenty-two"), which the verifier
# read as a changed word once in digits (tests/data/frame_pairs_5.jsonl xl_copy/15: P 0.64 -> 0.40).
_WORD_RE = re.compile(r"(?<![-\w])(" + "|".join(_NUMBER_WORDS) + r")(?![-\w])", re.IGNORECASE)
# Korean counters after a count ("2명", "3년간", "15개국"); not 일 or 월 (a date: "2일" is the
# second of the month) and not 세 (an age, or a regnal number: below).
_COUNTERS = ("명", "개국", "개월", "개", "척", "대", "건", "곳", "마리", "채", "가지", "차례", "번", "년", "주",
             "시간", "가구", "편", "발", "배")
_KO_COUNT_RE = re.compile(r"(?<![\d.,])(\d{1,2})\s?(?:" + "|".join(_COUNTERS) + ")")
_DIGITS_RE = re.compile(r"\d+(?:[.,]\d+)*")

# Units of measure a writer converts in brackets, longest first within the alternation.
_UNITS = sorted(["mph", "miles", "mile", "feet", "foot", "ft", "inches", "inch", "yards", "yard", "pounds", "lbs",
                 "lb", "ounces", "oz", "gallons", "acres", "degrees", "km/hr", "km/h", "kph", "kmh", "km",
                 "kilometers", "kilometres", "meters", "metres", "m", "cm", "centimeters", "centimetres",
                 "kilograms", "kg", "tons", "tonnes", "liters", "litres", "hectares", "square miles",
                 "square kilometers", "square kilometres", "sq km", "Fahrenheit", "Celsius", "F", "C"],
                key=len, reverse=True)
_UNIT = r"(?:" + "|".join(re.escape(u) for u in _UNITS) + r")(?![A-Za-z])"
_FIGURE = r"\d+(?:[.,]\d+)*"
_CONVERSION_RE = re.compile(rf"({_FIGURE})\s?-?\s?({_UNIT})\s*\(\s*(?:about |some |nearly |around )?"
                            rf"({_FIGURE})\s?-?\s?({_UNIT})\s*\)")

_ROMAN = {"II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10, "XI": 11,
          "XII": 12, "XIII": 13, "XIV": 14, "XV": 15, "XVI": 16, "XVII": 17, "XVIII": 18}
# A numeral after a capitalised name ("Charles III", "John Paul II"), not a sentence's "I".
_EN_REGNAL_RE = re.compile(r"\b[A-Z][a-z]+ (" + "|".join(sorted(_ROMAN, key=len, reverse=True)) + r")\b")
# "찰스 3세": a number and 세 after a Hangul word and a space (an age is written "48세 여성",
# and only a value the English side writes as a numeral after a name is rewritten).
_KO_REGNAL_RE = re.compile(r"(?<=[가-힣] )(\d{1,2})세")


def _numbers(text: str) -> set[str]:
    return {m.group(0).replace(",", "") for m in _DIGITS_RE.finditer(text)}


def number_words_as_digits(en: str, ko: str) -> tuple[str, tuple[str, ...]]:
    """``en`` with each number word that ``ko`` counts with in digits, and ``en`` does not write
    in digits, written as digits; and those rewrites.

    >>> number_words_as_digits("Five miners rescued", "광부 5명 구조")
    ('5 miners rescued', ('Five as 5',))
    """
    counts = {m.group(1) for m in _KO_COUNT_RE.finditer(ko)}
    if not counts:
        return en, ()
    written = _numbers(en)
    done: list[str] = []

    def digits(m: re.Match[str]) -> str:
        value = str(_NUMBER_WORDS[m.group(1).lower()])
        if value not in counts or value in written:
            return m.group(0)
        done.append(f"{m.group(1)} as {value}")
        return value

    out = _WORD_RE.sub(digits, en)
    return out, tuple(done)


def conversions_as_written(en: str, ko: str) -> tuple[str, tuple[str, ...]]:
    """``en`` with each figure given with its conversion in brackets cut to the figure ``ko``
    writes, where ``ko`` writes one of the two and not the other; and those rewrites.

    >>> conversions_as_written("about 60 miles (97 kilometers) south of Seoul", "서울에서 남쪽으로 97km 떨어진")
    ('about 97 kilometers south of Seoul', ('60 miles (97 kilometers) as 97 kilometers',))
    """
    written = _numbers(ko)
    done: list[str] = []

    def cut(m: re.Match[str]) -> str:
        first, second = m.group(1).replace(",", ""), m.group(3).replace(",", "")
        if (first in written) == (second in written):
            return m.group(0)
        kept = f"{m.group(1)} {m.group(2)}" if first in written else f"{m.group(3)} {m.group(4)}"
        done.append(f"{m.group(0)} as {kept}")
        return kept

    out = _CONVERSION_RE.sub(cut, en)
    return out, tuple(done)


def regnal_as_roman(ko: str, en: str) -> tuple[str, tuple[str, ...]]:
    """``ko`` with each regnal number ("2세" after a name) written as the Roman numeral ``en``
    writes after a name for that value; and those rewrites.

    >>> regnal_as_roman("찰스 3세 국왕, 전시회 개막", "King Charles III opens exhibition")
    ('찰스 III 국왕, 전시회 개막', ('3세 as III',))
    """
    numerals = {_ROMAN[m.group(1)]: m.group(1) for m in _EN_REGNAL_RE.finditer(en)}
    if not numerals:
        return ko, ()
    done: list[str] = []

    def roman(m: re.Match[str]) -> str:
        numeral = numerals.get(int(m.group(1)))
        if numeral is None:
            return m.group(0)
        done.append(f"{m.group(0)} as {numeral}")
        return numeral

    out = _KO_REGNAL_RE.sub(roman, ko)
    return out, tuple(done)


def read_alike(ko: str, en: str) -> tuple[str, str, tuple[str, ...]]:
    """A Korean text and an English one with the three notations above read alike: (``ko``,
    ``en``, the rewrites in the order made)."""
    ko, regnal = regnal_as_roman(ko, en)
    en, words = number_words_as_digits(en, ko)
    en, conversions = conversions_as_written(en, ko)
    return ko, en, regnal + words + conversions
