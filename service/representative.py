"""Which member of a cluster represents it (seeds 000 and 002).

Rank, highest first: (1) an original outlet over a syndicator (v.daum.net, news.naver.com,
news.google.com, ...), (2) a direct link over an opaque redirect (Google News links hide the
original domain), (3) the newest. Ties keep the current representative, so the choice is stable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from index.urls import UrlRules


@dataclass(frozen=True)
class Candidate:
    doc_id: int
    url: str | None
    source: str | None
    time: float


def rank(c: Candidate, rules: UrlRules) -> tuple[int, int, float]:
    return (0 if rules.is_syndicator(c.url, c.source) else 1, 0 if rules.is_redirect(c.url) else 1, c.time)


def better(challenger: Candidate, current: Candidate, rules: UrlRules) -> str | None:
    """Why ``challenger`` should replace ``current`` as representative, or None if it should not.

    >>> rules = UrlRules.default()
    >>> orig = Candidate(1, "https://www.inews365.com/a", None, 10.0)
    >>> synd = Candidate(2, "https://v.daum.net/v/123", None, 20.0)
    >>> better(orig, synd, rules)
    'original outlet over syndicator'
    >>> better(synd, orig, rules) is None
    True
    """
    rc, rk = rank(challenger, rules), rank(current, rules)
    if rc <= rk:
        return None
    if rc[0] != rk[0]:
        return "original outlet over syndicator"
    if rc[1] != rk[1]:
        return "direct link over redirect"
    return "newer"


def best_of(candidates: Sequence[Candidate], rules: UrlRules) -> Candidate:
    """The member that should represent a cluster by ``rank``, the lowest document id on a tie:
    chosen afresh over the members (a representative deleted, members moved by a settling),
    rather than challenged one newcomer at a time (``better``).

    >>> rules = UrlRules.default()
    >>> best_of([Candidate(1, "https://v.daum.net/v/1", None, 30.0), Candidate(2, "https://www.yna.co.kr/a", None, 10.0),
    ...          Candidate(3, "https://www.hani.co.kr/b", None, 10.0)], rules).doc_id
    2
    """
    return max(candidates, key=lambda c: (rank(c, rules), -c.doc_id))
