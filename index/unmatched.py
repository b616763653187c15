"""What one text says that the other does not: the spans a reader checks when the verifier speaks.

The pair verifier (models/verifier.py) gives one number; a decision's reasons should also say
*where* two texts differ. Without a model of alignment that can only be done where the surface
matches, so this is lexical and says so:

* same language: the words and numbers of each side that the other lacks (case-folded, numbers
  without thousands separators, Korean words matched without a trailing particle so that
  particles do not count as differences: 합병을 / 합병이);
* across languages: only numbers can be matched without a dictionary, so only the numbers one
  side has and the other lacks are reported ("unmatched numbers").

An outlet suffix (" - Reuters") is stripped first (index.text.strip_outlet_suffix): it is a
known decoration, not a difference.

>>> describe("Korean Air completes merger with Asiana", "Korean Air scraps merger with Asiana")
"unmatched: 'completes' / 'scraps'"
>>> describe("Fed cuts rates to 3.75% - Reuters", "FED CUTS RATES TO 3.75%")
'unmatched: none'
>>> describe("Kospi closes above 4,000 for the first time", "코스피, 사상 처음 4000선 돌파 마감")
'unmatched numbers: none'
>>> describe("Heavy rain kills 4, 1,200 evacuated", "폭우로 5명 사망…1200명 대피")
"unmatched numbers: '4' / '5'"
"""

from __future__ import annotations

import re

from index.text import detect_lang, strip_outlet_suffix, strip_possessives, tokens

_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
_HANGUL_RE = re.compile(r"[\uac00-\ud7a3]")


def _number(token: str) -> str:
    return token.replace(",", "")


def numbers(text: str) -> list[str]:
    """The numbers of ``text`` as written, without thousands separators ("1,200" -> "1200").

    >>> numbers("Fed cuts by 0.25 points to 3.75%-4%, 1,200 jobs")
    ['0.25', '3.75', '4', '1200']
    """
    return [_number(m.group(0)) for m in _NUMBER_RE.finditer(text)]


# Particles a Korean word carries in one headline and drops in the other, longest first.
_KO_PARTICLES = ("에서", "으로", "까지", "부터", "은", "는", "이", "가", "을", "를", "의", "에", "로",
                 "과", "와", "도", "만", "서")


def _key(word: str) -> str:
    """A Korean word without a trailing particle (합병을 -> 합병; the stem keeps two syllables or
    more), a number without thousands separators, else the word.

    >>> _key("아시아나항공과"), _key("대한항공"), _key("1,200")
    ('아시아나항공', '대한항공', '1200')
    """
    if _HANGUL_RE.match(word):
        for p in _KO_PARTICLES:
            if word.endswith(p) and len(word) - len(p) >= 2:
                return word[: -len(p)]
        return word
    return _number(word)


def _missing(words: list[str], other: set[str], limit: int) -> list[str]:
    out: list[str] = []
    for w in words:
        if _key(w) not in other and w not in out:
            out.append(w)
            if len(out) == limit:
                break
    return out


def unmatched(a: str, b: str, limit: int = 3) -> tuple[list[str], list[str], bool]:
    """(what ``a`` has that ``b`` lacks, what ``b`` has that ``a`` lacks, whether only numbers
    were compared), at most ``limit`` each, in order of appearance.

    >>> unmatched("South Korea beat Japan 2-1", "Japan beat South Korea 2-1")
    ([], [], False)
    >>> unmatched("대한항공, 아시아나항공 합병 완료", "대한항공, 아시아나항공과 합병 무산")
    (['완료'], ['무산'], False)
    >>> unmatched("Samsung's profit rises", "Samsung profit rises")
    ([], [], False)
    """
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    a, b = strip_outlet_suffix(a), strip_outlet_suffix(b)
    lang_a, lang_b = detect_lang(a), detect_lang(b)
    if lang_a != lang_b and "und" not in (lang_a, lang_b):
        na, nb = numbers(a), numbers(b)
        return ([n for n in dict.fromkeys(na) if n not in nb][:limit],
                [n for n in dict.fromkeys(nb) if n not in na][:limit], True)
    # an English possessive is no word of its own: "Samsung's profit" says what "Samsung profit" does
    a, b = strip_possessives(a), strip_possessives(b)
    wa, wb = tokens(a), tokens(b)
    return (_missing(wa, {_key(w) for w in wb}, limit), _missing(wb, {_key(w) for w in wa}, limit), False)


def describe(a: str, b: str, limit: int = 3) -> str:
    """:func:`unmatched` as a reason: ``unmatched: 'x' / 'y'``, ``unmatched: none``, or the
    same with ``unmatched numbers`` across languages (a side with nothing unmatched shows ``-``)."""
    only_a, only_b, numbers_only = unmatched(a, b, limit)
    label = "unmatched numbers" if numbers_only else "unmatched"
    if not only_a and not only_b:
        return f"{label}: none"

    def side(words: list[str]) -> str:
        return ", ".join(f"'{w}'" for w in words) or "-"

    return f"{label}: {side(only_a)} / {side(only_b)}"
