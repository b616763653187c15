"""service.representative: which member represents a cluster (seed 000's three ranks).

The rules are built by hand here (one syndicator, one redirector, one host that is both), so
the tests pin the ranking itself rather than the packaged host lists; one test checks that the
packaged lists are what the ranking is fed in production.
"""

from __future__ import annotations

import itertools

import pytest

from index.urls import UrlRules
from service.representative import Candidate, best_of, better, rank

RULES = UrlRules(syndicators=frozenset({"portal.example", "*.aggregator.example", "both.example"}),
                 redirectors=frozenset({"t.example", "both.example"}))

ORIGINAL = "https://www.outlet.example/a"
SYNDICATED = "https://portal.example/v/1"
REDIRECT = "https://t.example/xyz"


def cand(doc_id: int, url: str | None, time: float, source: str | None = None) -> Candidate:
    return Candidate(doc_id, url, source, time)


def test_rank_orders_original_then_direct_then_newest() -> None:
    assert rank(cand(1, ORIGINAL, 5.0), RULES) == (1, 1, 5.0)
    assert rank(cand(1, SYNDICATED, 5.0), RULES) == (0, 1, 5.0)
    assert rank(cand(1, REDIRECT, 5.0), RULES) == (1, 0, 5.0)
    # A host on both lists is demoted on both counts.
    assert rank(cand(1, "https://both.example/r", 5.0), RULES) == (0, 0, 5.0)


def test_syndicator_is_recognised_by_source_name_or_host_pattern() -> None:
    # No URL at all, but the source names a syndicator.
    assert rank(cand(1, None, 0.0, source="Portal.Example"), RULES)[0] == 0
    # A wildcard pattern covers subdomains; the bare parent domain is not covered by "*.".
    assert rank(cand(1, "https://kr.aggregator.example/x", 0.0), RULES)[0] == 0
    assert rank(cand(1, "https://aggregator.example/x", 0.0), RULES)[0] == 1


def test_missing_or_unparseable_url_counts_as_original_and_direct() -> None:
    # Nothing says it is syndicated or redirected, so it is not demoted.
    assert rank(cand(1, None, 3.0), RULES) == (1, 1, 3.0)
    assert rank(cand(1, "http://[::1", 3.0), RULES) == (1, 1, 3.0)


@pytest.mark.parametrize(("challenger", "current", "why"), [
    (cand(2, ORIGINAL, 1.0), cand(1, SYNDICATED, 99.0), "original outlet over syndicator"),
    (cand(2, ORIGINAL, 1.0), cand(1, REDIRECT, 99.0), "direct link over redirect"),
    (cand(2, ORIGINAL, 2.0), cand(1, ORIGINAL, 1.0), "newer"),
    # Syndication outranks the redirect rank: a redirect to an original beats a direct syndicator link.
    (cand(2, REDIRECT, 1.0), cand(1, SYNDICATED, 99.0), "original outlet over syndicator"),
])
def test_better_gives_the_deciding_reason(challenger: Candidate, current: Candidate, why: str) -> None:
    assert better(challenger, current, RULES) == why
    # And never the other way round.
    assert better(current, challenger, RULES) is None


def test_better_keeps_the_current_representative_on_a_tie() -> None:
    a, b = cand(1, ORIGINAL, 5.0), cand(2, "https://other.example/b", 5.0)
    assert better(b, a, RULES) is None
    assert better(a, b, RULES) is None
    assert better(a, a, RULES) is None


def test_newer_only_decides_between_equals_in_the_first_two_ranks() -> None:
    older_original = cand(1, ORIGINAL, 1.0)
    newest_syndicated = cand(2, SYNDICATED, 1e9)
    assert better(newest_syndicated, older_original, RULES) is None


def test_best_of_picks_by_rank_and_lowest_id_on_a_tie() -> None:
    members = [cand(5, SYNDICATED, 50.0), cand(4, ORIGINAL, 10.0), cand(3, "https://x.example/", 10.0),
               cand(9, REDIRECT, 60.0)]
    assert best_of(members, RULES).doc_id == 3
    assert best_of([cand(7, ORIGINAL, 1.0)], RULES).doc_id == 7


def test_best_of_does_not_depend_on_member_order() -> None:
    members = [cand(1, SYNDICATED, 9.0), cand(2, ORIGINAL, 4.0), cand(3, ORIGINAL, 4.0), cand(4, REDIRECT, 8.0),
               cand(5, None, 4.0)]
    chosen = {best_of(list(p), RULES).doc_id for p in itertools.permutations(members)}
    assert chosen == {2}


def test_best_of_agrees_with_challenging_one_newcomer_at_a_time_when_ranks_differ() -> None:
    # Distinct ranks: the incremental rule (better) and the fresh choice (best_of) must agree.
    members = [cand(1, SYNDICATED, 1.0), cand(2, REDIRECT, 2.0), cand(3, ORIGINAL, 3.0), cand(4, ORIGINAL, 4.0),
               cand(5, SYNDICATED, 9.0)]
    current = members[0]
    for newcomer in members[1:]:
        if better(newcomer, current, RULES) is not None:
            current = newcomer
    assert current == best_of(members, RULES)


def test_best_of_an_empty_cluster_is_an_error() -> None:
    with pytest.raises(ValueError):
        best_of([], RULES)


def test_packaged_rules_demote_portals_and_google_news() -> None:
    rules = UrlRules.default()
    naver = cand(1, "https://n.news.naver.com/article/001/0001", 9.0)
    google = cand(2, "https://news.google.com/rss/articles/abc", 9.0)
    outlet = cand(3, "https://www.yna.co.kr/view/AKR1", 1.0)
    assert rank(naver, rules)[0] == 0
    assert rank(google, rules)[:2] == (0, 0)
    assert best_of([naver, google, outlet], rules) is outlet
