"""One leftmost-first scan over many regex alternatives, with the alternatives a text cannot match
left out before the scan.

Python's ``re`` tries the alternatives of ``a|b|c`` one by one at every position of the text; with
two hundred phrase regexes (the polarity lexicon's ``re:`` terms) that is most of a guard's time,
though a headline matches two or three of them at most. Most such regexes need a literal word
("raise", "인하", "%"), so :func:`required_literals` reads one set of words of which every match
holds at least one, and :class:`GatedScanner` scans a text with only the alternatives whose word
is in the text. The matches are the ones the full alternation
gives: the same alternatives in the same order, and an alternative left out cannot match.

>>> scanner = GatedScanner([r"(?<![a-z])rais(?:es|ed)\\s+rates", r"인하(?!대)"], "r(?:ise|ose)")
>>> [m.group(0) for m in scanner.finditer("fed raised rates; yields rose")]
['raised rates', 'rose']
>>> [m.group(0) for m in scanner.finditer("금리 인하")]
['인하']
>>> sorted(required_literals(r"(?:raises?|hikes?)\\s+rates"))  # every match holds "rates"
['rates']
>>> sorted(required_literals(r"(?:raises?|hikes?)\\s+(?:\\S+\\s+)?rates?"))
['hike', 'raise']
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["GatedScanner", "required_literals"]

sre_parse: Any
sre_c: Any
try:  # the parser behind re.compile; private, so a Python without it scans ungated
    sre_parse = importlib.import_module("re._parser")
    sre_c = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - CPython 3.11-3.13 have both
    sre_parse = sre_c = None

# Characters that re.IGNORECASE equates with an ASCII letter although text.casefold() keeps them
# apart: a text holding one is scanned with every alternative (the gate compares plain substrings).
_CASE_TWINS = frozenset("ıİ")


def _literal_char(code: int) -> str | None:
    ch = chr(code)
    folded = ch.casefold()
    if len(folded) != 1 or (not ch.isascii() and ch.lower() != ch.upper()):
        return None  # a cased non-ASCII letter: IGNORECASE's classes are not casefold's
    return folded


def _needles(items: Any) -> frozenset[str] | None:
    """Words of which every match of the parsed sequence ``items`` holds one, or None.

    Each literal run, group, required repeat and branch in the sequence gives a candidate set; the
    one whose shortest word is longest is kept (the most selective gate)."""
    best: frozenset[str] | None = None

    def consider(cand: frozenset[str] | None) -> None:
        nonlocal best
        if cand and all(cand) and (best is None or min(map(len, cand)) > min(map(len, best))):
            best = cand

    run = ""
    for op, av in items:
        ch = _literal_char(av) if op is sre_c.LITERAL else None
        if ch is not None:
            run += ch
            continue
        if run:
            consider(frozenset([run]))
            run = ""
        if op is sre_c.SUBPATTERN:
            consider(_needles(av[3]))
        elif op is sre_c.BRANCH:
            parts = [_needles(alt) for alt in av[1]]
            if parts and all(p is not None for p in parts):
                consider(frozenset().union(*[p for p in parts if p is not None]))
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT) and av[0] >= 1:
            consider(_needles(av[2]))
        elif op is sre_c.ATOMIC_GROUP:
            consider(_needles(av))
    if run:
        consider(frozenset([run]))
    return best


@functools.lru_cache(maxsize=4096)
def required_literals(source: str) -> frozenset[str] | None:
    """Casefolded words of which every match of ``source`` (compiled with re.IGNORECASE, run on
    casefolded text) holds at least one; None when no such set can be read off the pattern.

    >>> sorted(required_literals(r"(?<![\\d.,])\\d+(?:[.,]\\d+)?\\s?%\\s+growth"))
    ['growth']
    >>> required_literals(r"\\d+") is None
    True
    """
    if sre_parse is None:
        return None
    try:
        parsed = sre_parse.parse(source, re.IGNORECASE)
    except (re.error, RecursionError):
        return None
    return _needles(parsed.data)


class GatedScanner:
    """``re.compile("|".join(gated) + "|" + tail, flags).finditer`` with the gated alternatives a
    text cannot match left out; ``tail`` (e.g. a trie of plain words) is always scanned, after the
    gated ones at a position. Texts are expected casefolded (the gate compares substrings)."""

    def __init__(self, gated: Sequence[str], tail: str | None = None, flags: int = re.IGNORECASE) -> None:
        self.sources = tuple(gated)
        self.needles = tuple(required_literals(s) for s in self.sources)
        self.flags = flags
        self.tail = re.compile(tail, flags) if tail else None
        self._always = frozenset(i for i, n in enumerate(self.needles) if n is None)
        # Needle -> the alternatives it gates, found through the text's character pairs: a
        # headline holds about a hundred pairs, the lexicon a few hundred needles.
        self._by_pair: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
        owners: dict[str, list[int]] = {}
        for i, words in enumerate(self.needles):
            for w in words or ():
                owners.setdefault(w, []).append(i)
        self._single = tuple((w, tuple(ix)) for w, ix in owners.items() if len(w) == 1)
        for w, ix in owners.items():
            if len(w) > 1:
                self._by_pair.setdefault(w[:2], []).append((w, tuple(ix)))
        # Each alternative compiled alone: a text's few are merged by start, then by their order
        # (no per-text compile: a stream's texts give thousands of distinct subsets).
        self._patterns = tuple(re.compile(src, flags) for src in self.sources)
        # Every alternative, for a text the gate cannot read (see _CASE_TWINS).
        self._all = tuple(range(len(self.sources)))

    def subset(self, text: str) -> tuple[int, ...]:
        """Indices of the gated alternatives that may match ``text``, in their order."""
        if any(c in _CASE_TWINS for c in text):
            return self._all
        hit = set(self._always)
        for w, ix in self._single:
            if w in text:
                hit.update(ix)
        by_pair = self._by_pair
        for pair in {text[i : i + 2] for i in range(len(text) - 1)}.intersection(by_pair):
            for w, ix in by_pair[pair]:
                if w in text:
                    hit.update(ix)
        return tuple(sorted(hit))

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The non-overlapping leftmost matches, the earlier alternative first at one position (the
        full alternation's): at the smallest start among the candidates' next matches, the first
        candidate's wins, and a candidate whose next match starts inside it is searched again."""
        pats = [self._patterns[i] for i in self.subset(text)]
        if self.tail is not None:
            pats.append(self.tail)
        if len(pats) == 1:
            yield from pats[0].finditer(text)
            return
        nxt = [p.search(text) for p in pats]
        while True:
            best: re.Match[str] | None = None
            for m in nxt:
                if m is not None and (best is None or m.start() < best.start()):
                    best = m
            if best is None:
                return
            yield best
            pos = best.end() if best.end() > best.start() else best.end() + 1
            for k, m in enumerate(nxt):
                if m is not None and m.start() < pos:
                    nxt[k] = pats[k].search(text, pos)
