"""A match result read in both languages: who beat whom ("South Korea beat Japan 2-0" /
"일본, 한국에 2-0 승리").

The role guard compares roles within one language (case particles in Korean, the two sides of a
shared verb in English) and steps aside across languages, where words cannot be compared. A
result is the one frame where that leaves a real hole: a Korean-English pair with the winner and
the loser swapped shares every name, every number and nearly every meaning a cosine or the pair
verifier reads (hand-written sets: "South Korea beat Japan 2-0 at East Asian Cup" / "일본,
동아시안컵서 한국에 2-0 승리", verifier P 0.66). This module reads (winner, loser) from each side
with a few frames per language, listed in ``role.toml [result]``; the role guard then asks a name
matcher (the slot guards' gazetteer and phonetic keys) whether the two winners are one.

>>> frames = ResultFrames.from_table(load_rules()["role"]["result"])
>>> frames.english("South Korea beat Japan 2-0 at East Asian Cup")
Result(winner='South Korea', loser='Japan', shown='South Korea beat Japan')
>>> frames.english("South Korea falls to Japan at World Baseball Classic")
Result(winner='Japan', loser='South Korea', shown='South Korea falls to Japan')
>>> frames.korean("일본, 동아시안컵서 한국에 2-0 승리")
Result(winner='일본', loser='한국', shown='일본, 한국 승리')
>>> frames.korean("韓 야구대표팀, WBC서 일본 꺾어").winner
'한국 야구대표팀'
>>> frames.korean("한국이 일본을 2-1로 꺾었다")
Result(winner='한국', loser='일본', shown='한국, 일본 꺾었')
>>> frames.korean("코스피, 사상 처음 4000선 돌파") is None
True
>>> frames.english("Naver acquires Poshmark"), frames.korean("포시마크, 네이버에 인수돼") is None
(Result(winner='Naver', loser='Poshmark', shown='Naver acquires Poshmark'), True)
>>> frames.korean("포시마크, 네이버에 인수") is None, frames.korean("포시마크, 네이버가 인수") is None
(True, True)
>>> frames.korean("포시마크, 네이버 품으로…1.6조에 인수") is None
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from index.hanja import read_hanja
from service.guards.base import HANGUL_RE, prepare
from service.guards.rules import load_rules, str_list
from service.guards.slots import SlotAnalyzer, phonetic_key

__all__ = ["Result", "ResultFrames", "load_rules", "name_matcher"]

# A name in an English headline: one to four capitalised words or acronyms ("South Korea", "LAFC",
# "Real Madrid"); the lower-case words around a verb ("as", "at") end it.
_EN_NAME = r"(?:[A-Z][\w'’.\-]*|\d+ers)(?:\s+(?:[A-Z][\w'’.\-]*)){0,3}"
# A score between the loser and the result word: "2-0", "3대1로", "2:1"; not across an ellipsis
# ("포시마크, 네이버 품으로…1.6조에 인수" has no score after 네이버).
_SCORE_CHAR = r"(?:(?!\.\.)[^\s…])"  # prepare() writes … as "..."
_SCORE = rf"(?:{_SCORE_CHAR}*\d{_SCORE_CHAR}*\s+)?"
# A Korean name token: Hangul, Latin or digits, without the particle.
_KO_TOKEN = r"[가-힣A-Za-z0-9]+?"
_KO_LOSER_PARTICLES = r"(?P<p>에게|에|을|를|전)?"
_KO_SUBJECT_PARTICLES = r"(?:이|가|은|는)"


@dataclass(frozen=True)
class Result:
    """Who won and who lost, as the text names them, and the frame as read."""

    winner: str
    loser: str
    shown: str


def _subject_particle(word: str) -> bool:
    """``word`` ends in the subject particle: 가 after a syllable without a final consonant, 이
    after one with it ("네이버가", "쿠팡이"); not the end of a name (11번가, LG디스플레이, 우루과이).
    After a Latin letter or a digit it is taken for the particle ("KT가").

    >>> [_subject_particle(w) for w in ("네이버가", "쿠팡이", "11번가", "LG디스플레이", "KT가", "가")]
    [True, True, False, False, True, False]
    """
    if len(word) < 2 or word[-1] not in "이가":
        return False
    prev = word[-2]
    if not "가" <= prev <= "힣":
        return True
    closed = (ord(prev) - 0xAC00) % 28 != 0
    return closed == (word[-1] == "이")


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


class ResultFrames:
    """Result frames of each language, built from ``role.toml [result]``."""

    def __init__(self, en_win: list[str], en_lose: list[str], ko_win: list[str], ko_lose: list[str],
                 ko_not_after: list[str] | None = None, ko_object_only: list[str] | None = None,
                 ko_far: list[str] | None = None) -> None:
        if not (en_win and en_lose and ko_win and ko_lose):
            raise ValueError("role rules: [result] needs en_win, en_lose, ko_win and ko_lose, each non-empty")
        self._en = [
            (re.compile(rf"(?P<x>{_EN_NAME})\s+(?P<v>{_alternation(en_win)})\s+(?P<y>{_EN_NAME})"), True),
            (re.compile(rf"(?P<x>{_EN_NAME})\s+(?P<v>{_alternation(en_lose)})\s+(?P<y>{_EN_NAME})"), False),
        ]
        # The loser is the word right before the result word (a score may sit between); the
        # winner is the headline's comma topic ("일본, ... 한국에 승리") or a subject ("한국이 ...").
        loser = rf"(?<=\s)(?P<y>{_KO_TOKEN}){_KO_LOSER_PARTICLES}\s+{_SCORE}"
        # A result word glued to one of ko_not_after is another word or the passive ("인수돼" is
        # acquired, "인수위" a committee): no frame.
        stop = rf"(?!{_alternation(ko_not_after)})" if ko_not_after else ""
        self._ko = [(re.compile(rf"{loser}(?P<v>{_alternation(ko_win)}){stop}"), True),
                    (re.compile(rf"{loser}(?P<v>{_alternation(ko_lose)}){stop}"), False)]
        # After a name with 에 / 에게 these are the passive ("포시마크, 네이버에 인수": bought by
        # Naver), where a match's result word takes its loser so ("한국, 일본에 승리"); after one
        # with 이 / 가 the name is the buyer ("포시마크, 네이버가 인수"; _subject_particle).
        self._ko_object_only = frozenset(ko_object_only or ())
        # A merger or a suit whose other party stands apart from the verb ("애플, 삼성디스플레이 OLED
        # 특허 침해로 제소"): the first word after the comma topic, with no particle, when the
        # headline ends in one of ko_far (role.toml).
        self._ko_far = frozenset(ko_far or ())
        self._ko_far_end = re.compile(rf"(?:{_alternation(list(ko_far or ()))}){stop}\S{{0,3}}$") if ko_far else None
        self._ko_topic = re.compile(r"^(?P<x>[^,，…]+)[,，]")
        self._ko_subject = re.compile(rf"^(?P<x>{_KO_TOKEN}){_KO_SUBJECT_PARTICLES}\s")
        # read once per text, as the other guards' extractions are: the role guard asks on every pair
        self.english = functools.lru_cache(maxsize=65536)(self._english)
        self.korean = functools.lru_cache(maxsize=65536)(self._korean)

    @classmethod
    def from_table(cls, table: object) -> ResultFrames:
        if not isinstance(table, dict):
            raise ValueError("role rules: [result] must be a table")
        where = "role rules: result"
        return cls(*(str_list(table.get(key, []), f"{where}.{key}")
                     for key in ("en_win", "en_lose", "ko_win", "ko_lose", "ko_not_after", "ko_object_only", "ko_far")))

    def _english(self, text: str) -> Result | None:
        """The first result frame of an English text, or None."""
        clean = " ".join(prepare(text).split())
        for pattern, wins in self._en:
            m = pattern.search(clean)
            if m is not None:
                x, y = m.group("x"), m.group("y")
                return Result(x if wins else y, y if wins else x, f"{x} {m.group('v')} {y}")
        return None

    def _korean(self, text: str) -> Result | None:
        """The result of a Korean headline whose winner is its comma topic or its subject, or None."""
        clean = " ".join(read_hanja(prepare(text)).split())
        topic = self._ko_topic.match(clean) or self._ko_subject.match(clean)
        if topic is None:
            return None
        x = topic.group("x").strip()
        rest = clean[topic.end():]
        for pattern, wins in self._ko:
            m = pattern.search(" " + rest)
            if m is not None and m.group("v") in self._ko_far and m.group("y").endswith("로"):
                return self._korean_far(x, rest)  # "침해로 제소": a reason, not the party
            if m is not None and m.group("v") in self._ko_object_only and (
                    m.group("p") in ("에", "에게") or _subject_particle(m.group("y"))):
                return None  # bought by the name with 에 or 가: no frame is read
            if m is not None and m.group("y") not in x:
                y = m.group("y")
                return Result(x if wins else y, y if wins else x, f"{x}, {y} {m.group('v')}")
        return None

    def _korean_far(self, x: str, rest: str) -> Result | None:
        """The party of a ko_far verb that ends the headline: the first word after the topic, with no
        particle (을 / 를 dropped), or None.

        >>> frames = ResultFrames.from_table(load_rules()["role"]["result"])
        >>> frames.korean("애플, 삼성디스플레이 OLED 특허 침해로 제소")
        Result(winner='애플', loser='삼성디스플레이', shown='애플, 삼성디스플레이 제소')
        >>> frames.korean("애플, 美법원에 특허 침해로 제소") is None
        True
        """
        words = rest.split()
        if len(words) < 2 or self._ko_far_end is None or not (end := self._ko_far_end.search(words[-1])):
            return None
        y = re.sub(r"(?<=[가-힣A-Za-z0-9])[을를]$", "", words[0])
        if (not re.fullmatch(r"[가-힣A-Za-z0-9]+", y) or y in x or _subject_particle(y)
                or re.search(r"(?:에|에게|에서|서|의|와|과|로|도|만|은|는)$", y)
            or any(re.search(r"(?:에|에게|에서|서)$", w) for w in words[1:-1])):
            return None  # "美 법원에 ... 제소": the first word names a court's country, not the party
        return Result(x, y, f"{x}, {y} {end.group(0)}")


def name_matcher(analyzer: SlotAnalyzer) -> Callable[[str, str], bool | None]:
    """Whether a Latin name and a Korean one (a few words, Hanja read) name one thing: True, False
    (both known to the gazetteer as different things), or None (no way to tell). Known names
    compare by gazetteer identity; a Latin word written in the Korean text compares as written;
    otherwise the phonetic keys the slot guards use across scripts (Seattle / 시애틀).

    >>> same = name_matcher(SlotAnalyzer(load_rules()))
    >>> same("South Korea", "한국 야구대표팀"), same("Japan", "한국"), same("Seattle", "시애틀")
    (True, False, True)
    """

    def same(latin: str, korean: str) -> bool | None:
        tokens = [t for t in korean.split() if t]
        latin_ids = analyzer.lookup(latin)[0]
        for candidate in (korean, *tokens):
            ids = analyzer.lookup(candidate)[0]
            if ids:
                if latin_ids:
                    return bool(latin_ids & ids)
                break
        if any(t.casefold() == latin.casefold() for t in tokens):
            return True
        key = phonetic_key(latin)
        if key and any(analyzer.close(key, k) for t in tokens if HANGUL_RE.search(t) for k in analyzer.hangul_keys(t)):
            return True
        return None

    return same
