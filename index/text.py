"""Text features shared by every candidate finder and guard.

Everything here is pure and deterministic: the same input gives the same key on every
machine and after every restart, which is what lets a warm restart decide exactly as before.

>>> normalize("Fed: Rate +0.25%!")
'fed rate +0.25%'
>>> normalize("FED  RAISES   RATES") == normalize("Fed raises rates")
True
>>> lead_token("어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여 - 전자신문")
'어드밴트'
>>> detect_lang("삼성전자, 3분기 영업이익 사상 최대")
'ko'
"""

from __future__ import annotations

import hashlib
import html
import html.entities
import math
import re
import unicodedata
from collections.abc import Iterable

# A number keeps its sign, decimal point, thousands separators and a trailing percent /
# percentage-point marker, so "+0.25%" stays "+0.25%" (seed 001's own regret: stripping all
# punctuation turned it into "025", which no later stage can tell from 0.025 or 25).
_NUMBER = r"[+\-−]?\d+(?:[.,]\d+)*(?:%p|%)?"
_TOKEN_RE = re.compile(rf"{_NUMBER}|[^\W_]+", re.UNICODE)

_HANGUL_RE = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_LATIN_RE = re.compile(r"[A-Za-z]")

# Outlet suffixes that aggregators append to titles: "Title - 전자신문", "Title | Reuters".
# Only a short tail after a spaced dash / bar is removed, so a hyphenated word stays intact.
_POSSESSIVE_RE = re.compile(r"(?<=[A-Za-z])['\u2019]s\b")
_OUTLET_SUFFIX_RE = re.compile(r"\s+[-|–—]\s+([^-|–—]{1,40})$")
# An outlet name has at most four words ("The Wall Street Journal", "South China Morning Post");
# a longer tail is a subtitle that carries content ("Game review - a shooter with giant robots"
# would match a bare "Game Review" as an exact title; a UCI dev pair did). Raising it strips
# more subtitles and merges on the shortened titles; lowering it keeps long outlet names, which
# then only the n-gram and embedding stages can see through.
_OUTLET_MAX_WORDS = 4

# A letter or digit of any script: Python's Unicode ``\w`` without the underscore. The API
# contract (service.api.schemas) declares the same pattern, so what the schema accepts is what
# the engine accepts. A text without one (punctuation, symbols, zero-width spaces) says nothing.
WORD_CHAR_PATTERN = r"[^\W_]"
_WORD_CHAR_RE = re.compile(WORD_CHAR_PATTERN)
_HANGUL_SYLLABLE_RE = re.compile(r"[\uac00-\ud7a3]")

# Lead-token separators (seed 000): spaces, commas, middle dots and colons.
_LEAD_SPLIT_RE = re.compile(r"[\s,，·•:：]+")


def nfkc(text: str) -> str:
    """NFKC-normalise and replace control characters with spaces."""
    text = unicodedata.normalize("NFKC", text)
    if text.isprintable() or text.replace("\n", " ").replace("\t", " ").isprintable():
        # Fast path: a printable string has no character of category C (nor \n, \t), so the
        # per-character scan below would return it unchanged; it ran ~3x per ingested item.
        return text
    return "".join(" " if unicodedata.category(ch).startswith("C") and ch not in "\n\t" else ch for ch in text)


def tokens(text: str) -> list[str]:
    """Case-folded word and number tokens of ``text`` (numbers keep their punctuation)."""
    return _TOKEN_RE.findall(nfkc(text).casefold())


def has_word_chars(text: str) -> bool:
    """Whether ``text`` holds a letter or a digit (see ``WORD_CHAR_PATTERN``).

    >>> has_word_chars("...!!!"), has_word_chars("\u200b\u200b"), has_word_chars("5"), has_word_chars("가")
    (False, False, True, True)
    """
    return _WORD_CHAR_RE.search(text) is not None


def content_units(text: str) -> int:
    """How much ``text`` says: its letters and digits, a Hangul syllable counting 2 (one
    syllable carries two or three letters' worth of sound; "뉴스" says as much as "news").

    >>> content_units("a"), content_units("Fed!"), content_units("가"), content_units("AI 칩")
    (1, 3, 2, 4)
    """
    return len(_WORD_CHAR_RE.findall(text)) + len(_HANGUL_SYLLABLE_RE.findall(text))


# An HTML character reference with its semicolon ("&amp;", "&#39;", "&#x2014;"): scraped feeds
# leave them in titles, and unread they become words and numbers ("&#8212;" a number 8212 to
# the number guard). A bare "&" ("R&D", "AT&T") is no reference and stays.
_HTML_REF_RE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def unescape_html(text: str) -> str:
    """``text`` with its HTML character references read as the characters they name.

    >>> unescape_html("Trump&#39;s tariffs &amp; Samsung&#8230; R&D")
    "Trump's tariffs & Samsung… R&D"
    >>> unescape_html("&notareference; AT&T")
    '&notareference; AT&T'
    """
    if "&" not in text:
        return text
    return _HTML_REF_RE.sub(_read_reference, text)


def _read_reference(m: re.Match[str]) -> str:
    ref = m.group(0)
    if ref[1] == "#":
        return html.unescape(ref)
    # A name only as a whole: html.unescape reads "&notareference;" as "¬areference;".
    return html.entities.html5.get(ref[1:], ref)


def normalize(text: str) -> str:
    """Surface normalisation for exact hashing: NFKC, case, punctuation, whitespace.

    Numbers are kept as tokens with their decimal point, separators and percent sign.
    """
    return " ".join(tokens(text))


def has_latin(text: str) -> bool:
    """Whether ``text`` holds a Latin letter (A-Z, either case).

    >>> has_latin("코스피 4000선"), has_latin("Kospi 4000")
    (False, True)
    """
    return _LATIN_RE.search(text) is not None


def has_hangul(text: str) -> bool:
    """Whether ``text`` holds a Hangul letter or syllable.

    >>> has_hangul("Kospi 4000"), has_hangul("코스피 4000")
    (False, True)
    """
    return _HANGUL_RE.search(text) is not None


def _initial_sound_table() -> dict[int, str]:
    # Hangul syllable = 0xAC00 + (initial * 21 + vowel) * 28 + final. South Korean spelling
    # writes an initial ㄹ as ㄴ, and as ㅇ before ㅑ ㅕ ㅖ ㅛ ㅠ ㅣ, and an initial ㄴ before those
    # vowels as ㅇ (두음법칙); North Korean spelling keeps ㄹ and ㄴ, and writes 렬 / 률 after a
    # vowel or ㄴ where the South writes 열 / 율 (분렬 / 분열). Every syllable is folded, not only a
    # word's first, since the two sides space words differently.
    nieun, rieul, ieung = 2, 5, 11
    y_vowels = {2, 6, 7, 12, 17, 20}
    table: dict[int, str] = {}
    for vowel in range(21):
        for final in range(28):
            to = ieung if vowel in y_vowels else nieun
            table[0xAC00 + (rieul * 21 + vowel) * 28 + final] = chr(0xAC00 + (to * 21 + vowel) * 28 + final)
            if vowel in y_vowels:
                table[0xAC00 + (nieun * 21 + vowel) * 28 + final] = chr(0xAC00 + (ieung * 21 + vowel) * 28 + final)
    return table


_INITIAL_SOUND_TABLE = _initial_sound_table()


def fold_initial_sounds(text: str) -> str:
    """``text`` with every Hangul syllable's initial ㄹ / ㄴ written as South Korean spelling
    writes it at a word's start (두음법칙), so North and South Korean spellings of one word
    compare alike: 로동 / 노동, 력사 / 역사, 랭각 / 냉각, 분렬 / 분열. For comparing, not for showing.

    >>> fold_initial_sounds("로인 2명"), fold_initial_sounds("력사적인 립증"), fold_initial_sounds("분렬")
    ('노인 2명', '역사적인 입증', '분열')
    """
    return text.translate(_INITIAL_SOUND_TABLE)


def fold_word_initial_sounds(text: str) -> str:
    """``text`` with the initial ㄹ / ㄴ of each word's first syllable only written as South Korean
    spelling writes it: a name's North Korean spelling (로동당, 리설주) compares alike with the
    South's (노동당, 이설주), while the syllables inside a name stay as written (a name is no
    place for the mid-word folds of :func:`fold_initial_sounds`). For comparing, not for showing.

    >>> fold_word_initial_sounds("로동당 리설주"), fold_word_initial_sounds("분렬 런던")
    ('노동당 이설주', '분렬 넌던')
    """
    return re.sub(r"(?<!\S)\S", lambda m: m.group(0).translate(_INITIAL_SOUND_TABLE), text)


# Where a headline's clauses part: a colon, a bar, a semicolon, a comma, an ellipsis or a dash
# between spaces ("Monday morning: Seoul subway workers strike", "삼성전자, 3분기 영업익 10조").
_CLAUSE_MARK_RE = re.compile(r"[:|;,…]|\.\.\.|\s[-–—]\s")


def _clause_cuts(text: str) -> set[int]:
    """The token positions at which ``text``'s clauses part (the count of tokens before each mark)."""
    return {len(tokens(text[:m.start()])) for m in _CLAUSE_MARK_RE.finditer(text)}


def clause_moved(a: str, b: str) -> bool:
    """The two say the same words in the same order but for one clause moved from one end to the
    other, at a clause mark of either text: a headline's dateline or lead moved after the rest.
    A swap of roles ("South Korea beat Japan" / "Japan beat South Korea") is no such move.

    >>> clause_moved("Seoul subway workers go on strike Monday morning", "Monday morning: Seoul subway workers go on strike")
    True
    >>> clause_moved("South Korea beat Japan 2-1", "Japan beat South Korea 2-1")
    False
    >>> clause_moved("삼성전자, 3분기 영업익 10조", "3분기 영업익 10조…삼성전자"), clause_moved("a b c", "a b c")
    (True, False)
    """
    ta, tb = tokens(a), tokens(b)
    n = len(ta)
    if n < 2 or len(tb) != n or ta == tb:
        return False
    cuts_a, cuts_b = _clause_cuts(a), _clause_cuts(b)
    return any(tb == ta[k:] + ta[:k] and (k in cuts_a or n - k in cuts_b) for k in range(1, n))


def same_letters(a: str, b: str) -> bool:
    """The two say the same words letter for letter, whatever their spacing, case and
    punctuation: Korean headlines space compounds as each outlet likes. A Hangul syllable's
    initial ㄹ / ㄴ is read as South Korean spelling writes it (:func:`fold_initial_sounds`), so a
    North Korean respelling of a report ("로인 2명이 사망" / "노인 2명이 사망") has the same letters.

    >>> same_letters("부산 지하철 파업 돌입", "부산지하철 파업 돌입"), same_letters("Fed Holds Rates", "fed holds rates!")
    (True, True)
    >>> same_letters("캐시 엔진 2.0 공개", "캐시 엔진 2.0.1 공개"), same_letters("", "")
    (False, False)
    >>> same_letters("분위기를 랭각시켰다", "분위기를 냉각시켰다"), same_letters("노인 2명", "노인 3명")
    (True, False)
    """
    joined_a = fold_initial_sounds("".join(tokens(a)))
    return bool(joined_a) and joined_a == fold_initial_sounds("".join(tokens(b)))


def abbreviates(x: str, y: str) -> bool:
    """One name is a short form of the other: the shorter one's letters appear in order in the
    longer one, the first letters alike ("한은" / "한국은행", "과기정통부" / "과학기술정보통신부"; not
    "워싱턴" / "미국" or "모스크바" / "러시아").

    >>> abbreviates("한은", "한국은행"), abbreviates("현대자동차", "현대차"), abbreviates("워싱턴", "미국")
    (True, True, False)
    """
    short, long = sorted(("".join(x.split()), "".join(y.split())), key=len)
    if not short or short[0] != long[0]:
        return False
    rest = iter(long)
    return all(ch in rest for ch in short)


def strip_possessives(text: str) -> str:
    """English possessive endings removed from a text ("Samsung's" -> "Samsung"): no word of their own.

    >>> strip_possessives("Samsung’s third-quarter profit, Apple's too")
    'Samsung third-quarter profit, Apple too'
    """
    return _POSSESSIVE_RE.sub("", text)


def strip_outlet_suffix(title: str) -> str:
    """Remove an aggregator's " - Outlet" / " | Outlet" tail from a title."""
    title = title.strip()
    m = _OUTLET_SUFFIX_RE.search(title)
    if m is None or len(m.group(1).split()) > _OUTLET_MAX_WORDS:
        return title
    return title[: m.start()] or title


def lead_token(title: str) -> str:
    """The subject gate's bucket key (seed 000).

    The title's outlet suffix is removed, the first piece before a space, comma, middle dot
    or colon is taken, and only its letters and digits are kept, case-folded. "어드밴트," and
    "어드밴트" give the same key. An empty key means the title has no usable lead token; the
    gate then steps aside.
    """
    title = nfkc(strip_outlet_suffix(title)).strip()
    # Leading bracketed tags such as "[속보]" or "(종합)" are labels, not subjects.
    title = re.sub(r"^(?:[\[(【<][^\])】>]{0,12}[\])】>]\s*)+", "", title)
    for piece in _LEAD_SPLIT_RE.split(title):
        key = "".join(ch for ch in piece if ch.isalnum()).casefold()
        if key:
            return key
    return ""


def ngrams_of_normalized(norm: str, n: int = 3) -> frozenset[str]:
    """Character n-grams of an already normalised string (see :func:`char_ngrams`)."""
    if not norm:
        return frozenset()
    if len(norm) <= n:
        return frozenset([norm])
    return frozenset(norm[i : i + n] for i in range(len(norm) - n + 1))


def char_ngrams(text: str, n: int = 3) -> frozenset[str]:
    """Character n-grams of the normalised text, spaces included (seed 000).

    Korean spacing varies by outlet: "스마트돌봄" and "스마트 돌봄" share no word token but
    share the 3-gram "스마트". Texts shorter than ``n`` yield the whole text as one gram.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return ngrams_of_normalized(normalize(text), n)


def detect_lang(text: str) -> str:
    """'ko' when Hangul dominates the letters, 'en' when Latin does, else 'und'."""
    hangul = len(_HANGUL_RE.findall(text))
    latin = len(_LATIN_RE.findall(text))
    if hangul == 0 and latin == 0:
        return "und"
    # Korean headlines routinely carry Latin acronyms (AI, LG, SK); a third Hangul is enough.
    return "ko" if hangul * 2 >= latin else "en"


def lead_sentence(body: str, max_chars: int = 300) -> str:
    """The first sentence (or the first ``max_chars`` characters) of a body."""
    body = " ".join(nfkc(body).split())
    if not body:
        return ""
    match = re.search(r"(?<=[.!?。])\s|(?<=다\.)\s", body)
    first = body[: match.start()] if match else body
    return first[:max_chars]


def content_hash(*parts: str) -> str:
    """SHA-256 of the normalised parts, joined by a separator no normalised text contains."""
    return hash_normalized(*(normalize(p) for p in parts))


def hash_normalized(*normalized_parts: str) -> str:
    """:func:`content_hash` of parts that are already normalised."""
    return hashlib.sha256("\x1f".join(normalized_parts).encode("utf-8")).hexdigest()


def weighted_jaccard(a: Iterable[str], b: Iterable[str], weight: dict[str, float] | None = None,
                     default_weight: float = 1.0) -> float:
    """Jaccard of two gram sets with per-gram weights (seed 000's IDF-weighted form).

    Intersection and union are sums of weights instead of counts; with no weights this is
    plain Jaccard.

    >>> round(weighted_jaccard({"ab", "bc"}, {"bc", "cd"}), 3)
    0.333
    """
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 0.0
    if weight is None:
        return len(sa & sb) / len(sa | sb)
    # math.fsum is exactly rounded, so the score does not depend on set iteration order (string
    # hashes differ per process): a plain sum made tied scores of a batch rank differently per run.
    inter = math.fsum(weight.get(g, default_weight) for g in sa & sb)
    union = math.fsum(weight.get(g, default_weight) for g in sa | sb)
    return inter / union if union > 0 else 0.0
