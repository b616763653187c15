"""Shared pieces of the guards: the input type, the Guard protocol and small text helpers.

>>> side = GuardInput(title="연준, 기준금리 0.25%p 인상", text="연준, 기준금리 0.25%p 인상", lang="ko")
>>> side.content
'연준, 기준금리 0.25%p 인상'
>>> GuardInput(title="x", text="x", lang="")
Traceback (most recent call last):
...
ValueError: GuardInput.lang must be a language tag such as 'ko', 'en' or 'und', got ''
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from index.hanja import read_hanja
from index.text import lead_sentence, unescape_html
from service.types import GuardVerdict

# Language tags the guards know; anything else well-formed ("ja", "zh-Hant") becomes "und",
# which every guard treats as "not Korean, not English" (script-based rules still apply).
KNOWN_LANGS = ("ko", "en", "und")
# A figure converted between unit systems ("150 miles" / "240km", "10 pounds" / "4.5kg") is
# rounded by the translator after converting, so it is equal within this share of its value,
# whatever digits it states. Calibrated on koen-news-park's distances (integer kilometres for
# round miles: 0.3-0.6 % apart; "240km" for "150 miles" 0.6 %); "50km" for "30 miles" (3.5 %)
# stays apart. Raising it lets converted figures of different reports match; 0 splits every
# translation that rounds.
UNIT_CONVERSION_TOLERANCE = 0.03


def converts(factor: float) -> bool:
    """A unit factor that converts between unit systems (1609.344 m a mile), not a power of ten
    within one (1000 m a km, 0.01 %p a basis point).

    >>> converts(1609.344), converts(1000.0), converts(0.01), converts(1.0)
    (True, False, False, False)
    """
    if factor <= 0:
        return False
    exponent = math.log10(factor)
    return abs(exponent - round(exponent)) > 1e-9


_LANG_TAG_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")

HANGUL_RE = re.compile(r"[\uac00-\ud7a3]")


@dataclass(frozen=True)
class GuardInput:
    """One side of a proposed merge.

    ``title`` may be "" when only a body exists; ``text`` is the title plus the body's lead,
    raw (not normalised). ``lang`` is normalised to "ko", "en" or "und" ("ko-KR" -> "ko").
    ``published_at`` must be timezone-aware when given (the engine stores UTC).
    """

    title: str
    text: str
    lang: str
    published_at: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("title", "text"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"GuardInput.{name} must be a string, got {type(getattr(self, name)).__name__}")
        if not isinstance(self.lang, str) or not _LANG_TAG_RE.match(self.lang):
            raise ValueError(
                f"GuardInput.lang must be a language tag such as 'ko', 'en' or 'und', got {self.lang!r}"
            )
        primary = self.lang.split("-")[0].split("_")[0].lower()
        object.__setattr__(self, "lang", primary if primary in KNOWN_LANGS else "und")
        if self.published_at is not None:
            if not isinstance(self.published_at, datetime):
                raise ValueError(
                    f"GuardInput.published_at must be a datetime or None, got {type(self.published_at).__name__}"
                )
            if self.published_at.tzinfo is None or self.published_at.utcoffset() is None:
                raise ValueError("GuardInput.published_at must be timezone-aware (UTC)")

    @functools.cached_property
    def content(self) -> str:
        """The text the guards read: ``text`` when present, else ``title``, its one-Hanja
        abbreviations read in Hangul (``index.hanja.read_hanja``: "韓 여자골프" as "한국 여자골프",
        so "韓 ..." / "日 ..." is two countries to the who and where guards)."""
        return read_hanja(self.text if self.text.strip() else self.title)

    @functools.cached_property
    def headline(self) -> str:
        """The title the subject guard reads: ``title`` when present, else ``text`` (Hanja
        abbreviations read as in ``content``)."""
        return read_hanja(self.title if self.title.strip() else self.text)

    @classmethod
    def from_article(cls, article: object, body_chars: int = 300) -> GuardInput:
        """Build from a ``service.types.Article`` (title + the body's first sentence).

        >>> from service.types import Article
        >>> GuardInput.from_article(Article(title="Fed hikes", body="The Fed raised rates. More.")).text
        'Fed hikes The Fed raised rates.'
        """
        title = str(getattr(article, "title", "") or "")
        body = str(getattr(article, "body", "") or "")
        lead = lead_sentence(body, max_chars=body_chars) if body else ""
        text = f"{title} {lead}".strip()
        lang = getattr(article, "lang", None) or "und"
        return cls(title=title, text=text, lang=lang, published_at=getattr(article, "published_at", None))


@runtime_checkable
class Guard(Protocol):
    """A veto on proposed merges. ``check`` must be pure and cheap (it runs on every proposal)."""

    name: str

    def check(self, a: GuardInput, b: GuardInput) -> GuardVerdict: ...


def step_aside(name: str, why: str) -> GuardVerdict:
    """A verdict that neither blocks nor claims to have decided."""
    return GuardVerdict(guard=name, blocked=False, decided=False, evidence=f"{name}: {why}")


def compared(name: str, clashes: list[str], matches: list[str], *, aside: str | None = None,
             anchoring: bool = False) -> GuardVerdict:
    """The verdict of a guard that compared values side by side: blocked on any clash, else
    passed on what matched; with ``aside``, nothing matched either and the guard steps aside.
    ``anchoring``: the matches are figures or names, counted as the verdict's ``anchors``.

    >>> compared("version", ["iOS 17 != iOS 18"], []).blocked
    True
    >>> compared("polarity", [], ["rises ~ 상승"]).evidence
    'polarity: rises ~ 상승'
    >>> compared("polarity", [], [], aside="no stance words").decided
    False
    """
    if clashes:
        return GuardVerdict(name, True, True, f"{name}: " + "; ".join(clashes))
    if matches or aside is None:
        return GuardVerdict(name, False, True, f"{name}: " + "; ".join(matches),
                            anchors=len(matches) if anchoring else 0)
    return step_aside(name, aside)


# The control / format characters index.text.nfkc replaces with spaces, as one regex: that
# function walks the text in Python (about 3 us per character on the shared CI box), which
# was half of all guard time. Private-use and unassigned code points are kept (they never
# carry numbers, dates or subjects).
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e"
                         r"\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")


@functools.lru_cache(maxsize=65536)
def prepare(text: str) -> str:
    """HTML character references decoded (``index.text.unescape_html``, as the engine's item
    features already read them), NFKC + control-character cleanup: every guard reads the same
    prepared text, also where a caller hands the guards raw text (``GuardSet.check``, the passage
    check): read as written, "(CNN) &#8212; Five people died" had a number 8212 against "5명".

    >>> prepare("０.２５％p\u200b인상")
    '0.25%p 인상'
    >>> prepare("(CNN) &#8212; AT&amp;T")
    '(CNN) — AT&T'
    """
    return _CONTROL_RE.sub(" ", unicodedata.normalize("NFKC", unescape_html(text)))


# index.text's token pattern (numbers keep sign, separators and % / %p), on prepared text.
_TOKEN_RE = re.compile(r"[+\-−]?\d+(?:[.,]\d+)*(?:%p|%)?|[^\W_]+", re.UNICODE)


@functools.lru_cache(maxsize=65536)
def fast_tokens(text: str) -> tuple[str, ...]:
    """Same tokens as ``index.text.tokens`` (cached, on ``prepare``'s output).

    >>> from index.text import tokens
    >>> fast_tokens("Fed's Plosser: +0.25%p") == tuple(tokens("Fed's Plosser: +0.25%p"))
    True
    """
    return tuple(_TOKEN_RE.findall(prepare(text).casefold()))


def term_pattern(term: str) -> str:
    """A regex source for one lexicon term.

    "re:..." is taken verbatim. Other terms are escaped; a term that starts (ends) with a Latin
    letter or digit gets a word boundary there, so "rise" does not match "sunrise", while
    Hangul terms match inside words because Korean glues particles and endings to stems.

    >>> term_pattern("rise")
    '(?<![A-Za-z0-9])rise(?![A-Za-z0-9])'
    >>> term_pattern("상승")
    '상승'
    >>> term_pattern("re:인하(?!대)")
    '인하(?!대)'
    """
    if term.startswith("re:"):
        source = term[3:]
        try:
            re.compile(source)
        except re.error as exc:
            raise ValueError(f"invalid regex term {term!r}: {exc}") from exc
        return source
    if not term.strip():
        raise ValueError("empty lexicon term")
    body = r"\s+".join(re.escape(part) for part in term.split())
    if re.match(r"[A-Za-z0-9]", term):
        body = r"(?<![A-Za-z0-9])" + body
    if re.search(r"[A-Za-z0-9]$", term):
        body = body + r"(?![A-Za-z0-9])"
    return body


def is_hangul(text: str) -> bool:
    """True when ``text`` contains a Hangul syllable."""
    return HANGUL_RE.search(text) is not None


def trie_regex(words: list[str] | set[str] | tuple[str, ...]) -> str:
    """A regex alternation of literal ``words`` built as a prefix trie.

    Python's ``re`` tries alternatives one by one at every position; a trie shares prefixes,
    which makes a 300-term lexicon scan about 20x faster than a flat ``a|b|c`` alternation.
    Longer words win over their prefixes (the optional tails are greedy).

    >>> trie_regex(["rise", "rises", "rose"])
    'r(?:ise(?:s)?|ose)'
    >>> import re; re.findall(trie_regex(["인상", "인하"]), "금리 인상, 인하")
    ['인상', '인하']
    """
    root: dict = {}
    for word in words:
        if not word:
            raise ValueError("trie_regex: empty word")
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if "" in node:
            return f"(?:{body})?"
        return body

    return build(root)
