"""Passage features: sentences, boilerplate, character shingles, hashes (RAG chunks, article bodies).

A headline is one short sentence; a passage (a retrieved chunk, an article body) is several, and
two overlapping chunker windows share whole sentences while each still carries new ones. So a
passage is read sentence by sentence: ``split_sentences`` cuts it (Korean and English rules),
``strip_boilerplate`` removes the bylines and footers syndication adds at either end, and the
copy tests look at character 5-gram shingles of the whole passage *and* of each sentence, so a
chunk whose sentences are not all found in the other one is never called a copy of it.

Pure and deterministic, like ``index.text``: the same text gives the same keys everywhere.

>>> split_sentences("Troops fired on Oct. 2, 1968. More than 300 died. 2010: a quake hit.")
['Troops fired on Oct. 2, 1968.', 'More than 300 died.', '2010: a quake hit.']
>>> split_sentences("수백 명이 사망했다. 2006년: 지진이 자바 섬을 강타했다.")
['수백 명이 사망했다.', '2006년: 지진이 자바 섬을 강타했다.']
>>> strip_boilerplate("(Reuters) - Fed raises rates. 무단전재 및 재배포 금지")
('Fed raises rates.', ('(Reuters) -', '무단전재 및 재배포 금지'))
>>> a = Passage.build("Fed raises rates by 25bp. Markets rallied on the news.")
>>> b = Passage.build("Photo: AP  Fed raises rates by 25bp.\\nMarkets rallied on the news.")
>>> a.norm_key == b.norm_key, a.lang
(True, 'en')
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from index.minhash import jaccard
from index.outlets import TAIL_CHARS, strip_dateline, strip_trailer
from index.text import detect_lang, nfkc, normalize, unescape_html

# Character 5-grams of the normalised text. Word n-grams (text-dedup, datatrove) lose a whole
# n-gram per changed word, which hurts Korean most (few, long eojeol): on the rag-chunks-ntrex dev
# typo copies the minimum word 3-gram Jaccard was 0.57, overlapping windows reached 0.53, so
# the two classes touch; with character 5-grams typo copies stay >= 0.80 and overlapping
# windows <= 0.63 (var/explore1.py numbers, reproduced by `python -m eval.passages`).
SHINGLE_CHARS = 5

# A word counts as a typo of another (one edit apart) only from this length: shorter words one
# edit apart are often different words ("won"/"win"), which is new content. Hangul counts
# syllables, so a Korean word is short in characters: the rag-chunks-ntrex typo copies hold
# '발견다했' (발견했다), '때문' (때문에), 'tiem' (time), 'dake' (make). 5 for both kept only 42 % of the
# dev typo copies; these values keep 89 % (the rest changed a three-letter English word: 'mne',
# 'ben'). 3 for Latin would take those too, and with them "he" -> "she" (new content).
# "rose"/"rise" already passes at 4; the polarity guard vets the changes that flip a meaning
# (인상/인하). Higher keeps more typo copies as new content.
TYPO_MIN_LATIN = 4
TYPO_MIN_HANGUL = 2
# ... and only up to this length: the one-edit test looks up each of a word's one-deletion
# variants, as many as its letters and each as long, so a word of L characters costs L^2 (a
# 200,000-character text without spaces is one word: 40 billion characters, out of memory). The
# longest normalised word in the rag-chunks-ntrex dev chunks has 18 characters; a longer absent
# word (a URL, unspaced Korean) is new content, as any absent word is. Lower would call more
# long typos new content (keeps the chunk); higher only costs time.
TYPO_MAX_CHARS = 64

# Words whose trailing period does not end an English sentence ("Oct. 2, 1968", "Mr. Lee").
_ABBREVIATIONS = frozenset(
    ["mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "gen", "gov", "sen", "rep", "lt", "col", "sgt", "capt", "cmdr", "vs", "no", "inc", "corp", "co", "ltd", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "u.n", "e.g", "i.e", "etc", "approx", "fig", "est", "mt", "ft", "pp"])
_SENTENCE_END_RE = re.compile(r"([.!?。？！])([\"”’')\]]*)(\s+)")
_WORD_BEFORE_RE = re.compile(r"([\w.]+)\.$")
# How many characters before a period ``split_sentences`` reads for the word it ends. The word
# matters only when it is an abbreviation (the longest, "approx", has 6 letters) or one letter,
# so a word cut at this length decides the same as the whole one. Reading from the sentence's
# start instead made a line of many skipped periods ("x. y. z. ...") quadratic: 1.5 s for
# 10,000 characters. Anything above 8 decides the same; lower would cut "approx".
WORD_BEFORE_CHARS = 32

# Boilerplate that syndication and scrapers put before or after a story: bylines, photo
# credits, copyright and subscription footers. Removed only at either end of a passage (one after
# another), never from its middle. The list holds every line the rag-chunks-ntrex generator adds
# (its README) plus their common variants; what it misses still reaches the shingle pass, where
# the unexplained line makes the chunk "new content" unless it is covered elsewhere.
# The copyright sign as it reaches the patterns: "©", "(c)" as typed, or a lone "c", which is what
# NFKC makes of "ⓒ" (the patterns read ``nfkc(text)``; a "ⓒ" in them never matched: the tenth tour's
# "ⓒ 2026 Harbor Wire. All rights reserved." and "(c) ..." footers stayed content).
_SIGN = r"(?:©|\(c\)|(?<![a-z])c(?![a-z]))"
_KO_FOOTER = (r"무단\s*전재\s*(?:및|&|[-·,/])?\s*재배포(?:\s*(?:,|및)\s*AI\s*학습\s*(?:및|·)?\s*(?:활용|이용))?\s*금지"
              r"(?:\s*[>\])])?")
_BOILERPLATE = [
    r"\((?:Reuters|AP|AFP|Yonhap|CNN|Bloomberg)\)\s*+[-–—]?",
    r"\(\w{1,10}=\w{1,10}(?:\s\w{1,10})?\)",                # (서울=연합뉴스), (서울=뉴스1) 홍길동 기자
    r"\[(?:사진|그래픽|영상)\s*=\s*[^\]]{1,20}\]",             # [사진=연합뉴스]
    # The Korean copyright footer, alone or as outlets write it with their name (the tenth tour:
    # these were content): "<저작권자 © 매체, 무단전재 및 재배포 금지>", "ⓒ 매체 무단 전재-재배포,
    # AI 학습 및 활용 금지", "[ⓒ 매체 & site.kr, ...]". Up to three name words after a bracket,
    # 저작권자 or the sign (NFKC: ⓒ -> c; "(c)" as typed); without one, the name must start a line
    # or follow a sentence's stop, so an unstopped last sentence keeps its words (at most three
    # words after a stop are taken). Every word is whole (possessive): no text splits more than one way.
    r"(?:[<\[(]\s*+)?(?:(?:저작권자\s*+)?" + _SIGN + r"|저작권자|(?<=[<\[(])|(?<=\n)|(?<=[.!?]\s))"
    r"\s*+(?:[\w&]++(?:\.[\w&]++)*+\s*+){0,3}?,?\s*+" + _KO_FOOTER,
    _KO_FOOTER,
    r"기사\s*제보\s*및\s*보도\s*자료",
    r"저작권자\s*+[ⓒ©]?(?:\s*[\w.]{1,20})?",
    r"▶\s*관련\s*기사\s*더보기",
    r"구독하기",
    r"Read more:?",
    r"Photo:\s*(?:AP|AFP|Reuters|Getty Images|EPA|Yonhap)",
    r"Sign up for our newsletter\.?",
    r"Share this article:?",
    r"Advertisement",
    # Up to four words before "All rights reserved", the last one possibly glued to it. Written
    # as "(?:[\w.]+\s*){0,4}" it let the engine split a long word every possible way: "©" and
    # 300 letters took 54 s. Now each word is whole (possessive) and only the glued one is lazy.
    _SIGN + r"\s*(?:\d{4}\s*)?(?:[\w.]++\s++){0,3}(?:[\w.]++\s++|[\w.]*?)All rights reserved\.?",
    # The same footer without the sign ("Copyright 2024 Example News. All rights reserved."), or
    # the phrase alone (the seventh tour: a chunk ending "All rights reserved." was new content).
    r"Copyright\s*+(?:" + _SIGN + r"\s*)?(?:\d{4}\s*)?(?:[\w.]++\s++){0,3}(?:[\w.]++\s++|[\w.]*?)All rights reserved\.?",
    r"All rights reserved\.?",
]
_BOILERPLATE_START_RE = re.compile(r"^\s*(?:" + "|".join(_BOILERPLATE) + r")\s*", re.IGNORECASE)
# Possessive leading whitespace, never started inside a run of it: see ``index.outlets._TRAILER_RE``.
_BOILERPLATE_END_RE = re.compile(r"(?<!\s)\s*+(?:" + "|".join(_BOILERPLATE) + r")\s*$", re.IGNORECASE)
# At most this many boilerplate pieces are taken from each end of a passage: each one copies the
# rest of the text, so a text of 15,000 "Advertisement" lines cost quadratic time. The
# rag-chunks-ntrex dev chunks carry at most one piece; syndicated bodies, two or three (dateline
# and photo credit; footer and byline). Lower leaves stacked boilerplate in as content.
MAX_BOILERPLATE_PIECES = 16
# Datelines and bylines (index.outlets): "(서울=연합뉴스) 홍길동 기자 =" at the start (the pattern
# above took the dateline and left "홍길동 기자 =" as content), "홍길동 기자 gildong@example.kr" and
# "Reporting by ...; Editing by ..." at the end. A copy that carries them says nothing more.

_HAS_CONTENT_RE = re.compile(r"[^\W_]")
_HANGUL_RE = re.compile(r"[\uac00-\ud7a3]")
# Numbers as the normaliser keeps them ("1,100", "0.25%", "2024"): a copy states the same ones.
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: cut after ``. ! ?`` (and CJK stops) followed by a space, and at line breaks.

    A period after a known abbreviation or a single letter ("Oct.", "U.S.", "J.") or before a
    lower-case word does not end a sentence. Korean sentences end in "다." / "요." and the rule is
    the same. Pieces without a letter or digit are dropped.
    """
    out: list[str] = []
    for line in nfkc(text).split("\n"):
        start = 0
        for m in _SENTENCE_END_RE.finditer(line):
            if m.group(1) == ".":
                word = _WORD_BEFORE_RE.search(line[max(start, m.start(1) + 1 - WORD_BEFORE_CHARS) : m.start(1) + 1])
                w = word.group(1).lower() if word else ""
                if w in _ABBREVIATIONS or (len(w) == 1 and w.isalpha()) or line[m.end() : m.end() + 1].islower():
                    continue
            piece = line[start : m.end(2)].strip()
            if _HAS_CONTENT_RE.search(piece):
                out.append(piece)
            start = m.end()
        piece = line[start:].strip()
        if _HAS_CONTENT_RE.search(piece):
            out.append(piece)
    return out


def strip_boilerplate(text: str) -> tuple[str, tuple[str, ...]]:
    """``(core, removed)``: the text without the boilerplate lines at its start and end.

    >>> strip_boilerplate("Advertisement Read more: The vote passed. Sign up for our newsletter.")
    ('The vote passed.', ('Advertisement', 'Read more:', 'Sign up for our newsletter.'))
    """
    removed_start: list[str] = []
    removed_end: list[str] = []
    core = nfkc(text).strip()
    while len(removed_start) < MAX_BOILERPLATE_PIECES:
        m = _BOILERPLATE_START_RE.match(core)
        rest = strip_dateline(core)
        if rest != core and (not m or len(core) - len(rest) >= m.end()):
            removed_start.append(core[: len(core) - len(rest)].strip())
            core = rest
            continue
        if not m or m.end() == 0 or m.end() >= len(core):
            break
        removed_start.append(m.group(0).strip())
        core = core[m.end() :]
    while len(removed_end) < MAX_BOILERPLATE_PIECES:
        m = _BOILERPLATE_END_RE.search(core, max(0, len(core) - TAIL_CHARS))
        rest = strip_trailer(core)
        if rest != core and rest.strip():
            removed_end.append(core[len(rest):].strip())
            core = rest
            continue
        if not m or m.start() == 0 or m.start() == m.end():
            break
        removed_end.append(m.group(0).strip())
        core = core[: m.start()]
    return core.strip(), (*removed_start, *reversed(removed_end))


_M61 = np.uint64((1 << 61) - 1)
_BASE = np.uint64(1_000_003)


def window_hashes(norm: str, n: int = SHINGLE_CHARS) -> np.ndarray:
    """32-bit hash of every character ``n``-gram window of ``norm``, in order (not unique).

    A polynomial hash of each window's code points, computed in one vectorised pass; a string
    shorter than ``n`` is one window.
    """
    if not norm:
        return np.zeros(0, dtype=np.uint32)
    cp = np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n = min(n, int(cp.size))
    k = cp.size - n + 1
    h = np.zeros(k, dtype=np.uint64)
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps, which is the hash
        for j in range(n):
            h = h * _BASE + cp[j : j + k] + np.uint64(1)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(32)
    return (h & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def shingle_ids(norm: str, n: int = SHINGLE_CHARS) -> np.ndarray:
    """Sorted unique 32-bit ids of the character ``n``-grams of a normalised string (spaces included).

    >>> bool((shingle_ids("fed raises") == shingle_ids("fed raises")).all()), shingle_ids("fed raises").size
    (True, 6)
    """
    return np.unique(window_hashes(norm, n))


def _one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by exactly one insertion, deletion, substitution or swap of
    two neighbouring characters (Damerau-Levenshtein distance 1)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]


def _deletions(w: str) -> set[str]:
    """``w`` with one character removed, at every position (the symmetric-delete neighbourhood)."""
    return {w[:i] + w[i + 1 :] for i in range(len(w))}


def containment(part: np.ndarray, whole: np.ndarray) -> float:
    """Share of ``part``'s shingles that ``whole`` also has (1.0 for an empty part)."""
    if part.size == 0:
        return 1.0
    return np.intersect1d(part, whole, assume_unique=True).size / part.size


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Passage:
    """One passage's features. Build with :meth:`build`.

    ``core`` is the text without boilerplate at its ends (``removed``); ``exact_key`` hashes the
    raw text (whitespace at the ends stripped), ``norm_key`` the normalised core (case,
    punctuation, spacing, quotes and dashes, line breaks); ``shingles`` are the core's character
    5-gram ids and ``sentence_shingles`` each core sentence's; ``numbers`` the numbers it states.
    """

    text: str
    lang: str
    core: str
    removed: tuple[str, ...]
    sentences: tuple[str, ...]
    exact_key: str
    norm_key: str
    shingles: np.ndarray
    numbers: frozenset[str]
    # Each sentence's (start, length) in the normalised core, and the core's window hashes:
    # a sentence's shingles are a slice of them, computed only when a check needs them.
    spans: tuple[tuple[int, int], ...] = ()
    windows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32), repr=False)

    @classmethod
    def build(cls, text: str, lang: str | None = None) -> Passage:
        """Features of ``text``; ``lang`` ("ko", "en", ...) is detected from the script when None."""
        if not isinstance(text, str):
            raise ValueError(f"a passage must be a string, got {type(text).__name__}")
        # HTML references read as their characters, as an article's are (index.features); the
        # exact hash below (``_sha(text)``) still reads the text as given.
        core, removed = strip_boilerplate(unescape_html(text))
        sentences = tuple(split_sentences(core))
        # The normalised core is its sentences' normalised forms joined by spaces: the same
        # tokens whatever line breaks or spacing cut the text (sentences end at whitespace).
        parts = [normalize(s) for s in sentences]
        spans, at = [], 0
        for part in parts:
            spans.append((at, len(part)))
            at += len(part) + 1
        norm = " ".join(parts)
        windows = window_hashes(norm)
        lang = (lang or detect_lang(core) or "und").split("-")[0].split("_")[0].lower()
        return cls(text, lang, core, removed, sentences, _sha(text.strip()), _sha(norm), np.unique(windows),
                   frozenset(_NUMBER_RE.findall(norm)), tuple(spans), windows)

    @cached_property
    def sentence_shingles(self) -> tuple[np.ndarray, ...]:
        """Each sentence's shingle ids (sorted, unique)."""
        out = []
        for start, length in self.spans:
            if length >= SHINGLE_CHARS:
                out.append(np.unique(self.windows[start : start + length - SHINGLE_CHARS + 1]))
            else:
                out.append(shingle_ids(self.core_norm[start : start + length]))
        return tuple(out)

    @cached_property
    def core_norm(self) -> str:
        return " ".join(normalize(s) for s in self.sentences)

    @property
    def empty(self) -> bool:
        return self.shingles.size == 0

    def jaccard(self, other: Passage) -> float:
        """Jaccard of the two cores' shingle sets."""
        return jaccard(self.shingles, other.shingles)

    @cached_property
    def words(self) -> frozenset[str]:
        """The normalised words of the core (``index.text.tokens``)."""
        return frozenset(self.core_norm.split())

    @cached_property
    def _nospace(self) -> str:
        return self.core_norm.replace(" ", "")

    def new_words(self, other: Passage) -> tuple[list[str], list[str]]:
        """``(new, typos)``: this passage's words that ``other`` lacks (new content), and those that
        are one edit (insertion, deletion, substitution, swap of neighbours) from a word of
        ``other`` (typos; words of at least ``TYPO_MIN_LATIN`` letters or ``TYPO_MIN_HANGUL``
        syllables).

        A word of two or more characters found inside ``other`` with its spaces removed is
        neither: Korean spacing varies ("스마트돌봄" / "스마트 돌봄"), and so does the splitting of
        contractions ("don't" / "dont").

        >>> a = Passage.build("The Fed raised rates. Markets rallied on the news.")
        >>> Passage.build("The Fed raised rates. Markets ralied on the news. Bonds fell.").new_words(a)
        (['bonds', 'fell'], ['ralied'])
        """
        new: list[str] = []
        typos: list[str] = []
        missing = self.absent_words(other)
        if not missing:
            return new, typos
        near = other._one_deletion
        for w in missing:
            least = TYPO_MIN_HANGUL if _HANGUL_RE.search(w) else TYPO_MIN_LATIN
            # Only words sharing ``w`` or one of its one-deletion variants can be one edit from it
            # (substitution, insertion, deletion and neighbour swap all leave such a variant in
            # common), so ``_one_edit`` checks those few instead of every word of ``other``.
            if least <= len(w) <= TYPO_MAX_CHARS and any(_one_edit(w, o) for key in (w, *_deletions(w)) for o in near.get(key, ())):
                typos.append(w)
            else:
                new.append(w)
        return new, typos

    def absent_words(self, other: Passage) -> list[str]:
        """This passage's distinct words that ``other`` lacks, in order: neither one of its words
        nor (two or more characters, or ASCII) found in it with its spaces removed. ``new_words``
        sorts them into typos and new content.

        >>> Passage.build("Markets ralied. Bonds fell.").absent_words(Passage.build("Markets rallied."))
        ['ralied', 'bonds', 'fell']
        """
        return [w for w in dict.fromkeys(self.core_norm.split()) if w not in other.words
                and not ((len(w) >= 2 or w.isascii()) and w in other._nospace)]

    @cached_property
    def _one_deletion(self) -> dict[str, tuple[str, ...]]:
        """Each word of the core and each of its one-deletion variants -> the words it comes from."""
        out: dict[str, list[str]] = {}
        for o in self.words:
            if len(o) > TYPO_MAX_CHARS + 1:  # one edit from no word new_words tests
                continue
            for key in (o, *_deletions(o)):
                out.setdefault(key, []).append(o)
        return {k: tuple(v) for k, v in out.items()}

    def new_numbers(self, other: Passage) -> list[str]:
        """Numbers this passage states that ``other`` does not ("11 months" vs "12 months"): new content.

        >>> Passage.build("Inflation stayed high for 12 months.").new_numbers(Passage.build("... for 11 months."))
        ['12']
        """
        return sorted(self.numbers - other.numbers)

    @cached_property
    def number_sequence(self) -> tuple[str, ...]:
        """The numbers the normalised core states, in order, each as often as it is stated."""
        return tuple(_NUMBER_RE.findall(self.core_norm))

    def misplaced_numbers(self, other: Passage) -> list[str]:
        """This passage's numbers that ``other`` does not state in this order or as often: a figure
        changed to a number stated elsewhere ("350 passengers" -> "40 passengers" beside "40
        bicycles") or swapped ("9 to 4" / "4 to 9"), which ``new_numbers`` (a set) lets through.
        [] when its numbers are a subsequence of ``other``'s (a copy, a window inside it).

        >>> a = Passage.build("It passed 9 to 4. Ferries carry 350 people and 40 bikes.")
        >>> Passage.build("It passed 9 to 4. Ferries carry 40 people and 40 bikes.").misplaced_numbers(a)
        ['40']
        >>> Passage.build("Ferries carry 350 people and 40 bikes.").misplaced_numbers(a)
        []
        """
        theirs = other.number_sequence
        out: list[str] = []
        at = 0
        for n in self.number_sequence:
            try:
                at = theirs.index(n, at) + 1
            except ValueError:
                out.append(n)
        return out
