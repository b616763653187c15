"""Outlet names at the end of a headline, and datelines and bylines at the start or end of a body.

Aggregators and syndication add the outlet to a headline ("... - The Korea Herald", "... |
Yonhap News Agency", "... - 연합뉴스") and a dateline and byline to a body ("(서울=연합뉴스) 홍길동
기자 = ...", "... 홍길동 기자 gildong@example.kr", "Reporting by ...; Editing by ..."). They say who
carried the report, not who is in it: read as a name, two copies of one report clash on the
"who" slot ("who: Yonhap News Agency != Korea Herald"). So they are recognised here and removed
before the guards read the text.

A headline's tail is an outlet when it is the item's own ``source``, when it names the item's
URL host ("The Korea Herald" on koreaherald.com), or when it is in the table of outlets in both
languages (``index/outlets.txt``, for ``compare`` and items that carry neither). A tail that is
none of these stays: "Apple to buy Beats - sources" keeps its last word for the guards.

Pure and deterministic, like ``index.text``.

>>> cut_outlet("Bank of Korea holds key rate at 3.5% | Yonhap News Agency")
'Bank of Korea holds key rate at 3.5%'
>>> cut_outlet("Korean Air completes merger - Example Daily", source="Example Daily")
'Korean Air completes merger'
>>> cut_outlet("Mall opens - The Gazette", url="https://www.thegazette.example/x")
'Mall opens'
>>> cut_outlet("Apple to buy Beats - sources")
'Apple to buy Beats - sources'
>>> strip_dateline("(서울=연합뉴스) 홍길동 기자 = 한국은행이 기준금리를 동결했다.")
'한국은행이 기준금리를 동결했다.'
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import urlsplit

from index.text import nfkc

_TABLE = Path(__file__).with_name("outlets.txt")

# A headline's last piece after a spaced dash or bar (index.text's outlet suffix rule): only
# that piece is ever a candidate, so a hyphenated word stays whole.
_TAIL_RE = re.compile(r"\s+[-|–—]\s+([^-|–—]{1,60})$")
# Host labels that name no outlet: subdomains for language, device or section, and the
# generic and country parts of a domain.
_HOST_NOISE = frozenset(["www", "m", "en", "kr", "ko", "eng", "english", "news", "mobile", "amp", "view",
                         "com", "co", "net", "org", "uk", "jp", "us", "io", "tv", "biz", "info", "or",
                         "example"])

# Korean datelines and bylines at the start of a body: "(서울=연합뉴스) 홍길동 기자 =",
# "(워싱턴=뉴스1) 김철수 특파원 =", "[서울=뉴시스]홍길동 기자 =", and a byline alone "홍길동 기자 =".
# A name is two to four Hangul syllables (joined names by "·"); the "=" ends the byline, so the
# pattern never eats a sentence. The English wire dateline "SEOUL (Reuters) -" too.
_NAME = r"(?<![가-힣])[가-힣]{2,4}(?:\s*[·,]\s*[가-힣]{2,4}){0,3}"
_ROLE = r"(?:기자|특파원|통신원|객원기자|선임기자|논설위원|리포터)"
_KO_DATELINE = r"[(\[][^()\[\]=]{1,12}=[^()\[\]]{1,15}[)\]]"
_DATELINE_RE = re.compile(
    rf"^\s*(?:{_KO_DATELINE}\s*(?:{_NAME}\s*{_ROLE}\s*=\s*)?|{_NAME}\s*{_ROLE}\s*=\s*"
    rf"|[A-Z][A-Z .,'-]{{1,40}}\((?:Reuters|AP|AFP|Yonhap|Bloomberg|CNN)\)\s*[-–—]\s*)")
# A trailing byline: "홍길동 기자 gildong@example.kr", "홍길동 기자", an e-mail alone, and the
# English wire credit "Reporting by ...; Editing by ..." (in brackets or not).
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
# The whitespace before the trailer (and after the role word) is possessive (``\s*+``) and the
# search never starts inside a run of whitespace (``(?<!\s)``): with two plain ``\s*`` in a row
# the engine tried every split of a run between them, from every start in it, and 1,000 spaces
# in a text took 12 s. The leftmost match starts where it did (at the run's first space).
_TRAILER = (rf"(?:{_NAME}\s*{_ROLE}\s*+(?:\(?{_EMAIL}\)?)?|\(?{_EMAIL}\)?"
            r"|[(\[]?\s*(?:Additional\s+)?Reporting\s+by\s[^()\[\]\n]{1,300}?[)\]]?\.?)")
_TRAILER_RE = re.compile(rf"(?<!\s)\s*+{_TRAILER}\s*$")
# How far from a text's end a trailer (or an end boilerplate line, ``index.passages``) is looked
# for: the search is end-anchored, yet ``re`` tries every start position, each scanning towards
# the end, so over a whole 200,000-character text with no spaces it took minutes (quadratic).
# The longest trailer the pattern takes is a 300-character "Reporting by" credit in brackets, or
# a name, role and e-mail (64-character local part, 255-character domain) with some spacing:
# under 700 characters. Lower would leave a long credit in the text (the chunk then carries it
# as content); higher only costs time (quadratic within the window: 1,024 is under 10 ms).
TAIL_CHARS = 1024


def outlet_key(name: str) -> str:
    """A name's matching key: letters and digits only, case-folded, a leading "the" dropped.

    >>> outlet_key("The Korea Herald") == outlet_key("Korea herald") == "koreaherald"
    True
    """
    words = nfkc(name).casefold().split()
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    return "".join(ch for ch in "".join(words) if ch.isalnum())


@functools.lru_cache(maxsize=1)
def known_outlets() -> frozenset[str]:
    """The keys of the outlet table (``index/outlets.txt``)."""
    lines = _TABLE.read_text(encoding="utf-8").splitlines()
    return frozenset(k for line in lines if line.strip() and not line.startswith("#") and (k := outlet_key(line)))


def host_keys(url: str | None) -> frozenset[str]:
    """The labels of a URL's host that can name its outlet ("koreaherald" for
    www.koreaherald.com; "yna" for en.yna.co.kr)."""
    if not url:
        return frozenset()
    try:
        host = urlsplit(url if "//" in url else f"//{url}").hostname or ""
    except ValueError:
        return frozenset()
    keys = {k for label in host.split(".") if (k := outlet_key(label)) and k not in _HOST_NOISE}
    # "thegazette.example" is "The Gazette": a run-together leading "the" is optional too.
    return frozenset(keys | {k[3:] for k in keys if k.startswith("the") and len(k) > 5})


def is_outlet(name: str, source: str | None = None, url: str | None = None) -> bool:
    """``name`` is the item's source, names its URL host, or is a known outlet."""
    key = outlet_key(name)
    if not key:
        return False
    if key in known_outlets():
        return True
    if source and key == outlet_key(source):
        return True
    # A host label is a run-together name ("koreaherald", "joongang"): the tail's key equals it,
    # or is it with a common word around it ("koreajoongangdaily" on joongang.co.kr is not
    # taken: only equality counts, so a tail never matches a host by a shared fragment).
    return key in host_keys(url)


def cut_outlet(title: str, source: str | None = None, url: str | None = None) -> str:
    """``title`` without a " - Outlet" / " | Outlet" tail that :func:`is_outlet` recognises."""
    stripped = title.strip()
    m = _TAIL_RE.search(stripped)
    if m is None or not is_outlet(m.group(1), source, url):
        return title
    return stripped[: m.start()].rstrip() or title


def strip_dateline(body: str) -> str:
    """A body without the dateline and byline at its start ("(서울=연합뉴스) 홍길동 기자 =")."""
    m = _DATELINE_RE.match(body)
    if m is None or m.end() >= len(body.rstrip()):
        return body
    return body[m.end():]


def strip_trailer(text: str) -> str:
    """A text without the byline or wire credit at its end ("홍길동 기자 gildong@example.kr",
    "Reporting by ...; Editing by ...")."""
    m = _TRAILER_RE.search(text, max(0, len(text) - TAIL_CHARS))  # lookbehinds still see before pos
    if m is None or m.start() == 0:
        return text
    return text[: m.start()]
