"""Date guard: different years, months, quarters, dates block; the same period merges."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from service.guards import GuardInput, GuardSet


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["date"])


def side(text: str, lang: str, at: datetime | None = None) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang, published_at=at)


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb", "ev"),
    [
        ("3월 수출 5% 증가", "ko", "4월 수출 5% 증가", "ko", "month Mar != Apr"),
        ("2025년 최저임금 결정", "ko", "2026년 최저임금 결정", "ko", "year 2025 != 2026"),
        ("Jobless claims for week ending March 8", "en", "Jobless claims for week ending March 15", "en", "Mar 8 != Mar 15"),
        ("삼성전자 2분기 실적", "ko", "Samsung third-quarter results", "en", "quarter Q2 != Q3"),
        ("상반기 수출 증가", "ko", "Exports rise in second half", "en", "half H1 != H2"),
        ("3월 8일 주총", "ko", "Shareholders meet on March 9", "en", "date Mar 8 != Mar 9"),
    ],
)
def test_different_periods_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert v.blocked and v.decided, v
    assert v.evidence.startswith("date: ") and ev in v.evidence


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("2025년 3분기 실적", "ko", "Q3 2025 results", "en"),
        ("3월 수출 증가", "ko", "Exports rose in March", "en"),
        ("Jobless claims for week ending March 8", "en", "3월 8일로 끝난 주 실업수당 청구", "ko"),
        ("Fed May Have to Accelerate Tapering in 2014", "en", "Fed tapering 2014", "en"),
    ],
)
def test_same_period_passes(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked and v.decided, v


def test_relative_phrases_use_published_at(gs: GuardSet) -> None:
    at = datetime(2025, 3, 9, 3, tzinfo=timezone.utc)
    (v,) = gs.check(side("어제 코스피 급락", "ko", at), side("KOSPI plunges on March 8", "en"))
    assert not v.blocked and v.decided and "Mar 8 == Mar 8" in v.evidence
    (v,) = gs.check(side("어제 코스피 급락", "ko", at), side("KOSPI plunges on March 5", "en"))
    assert v.blocked
    # Without published_at "yesterday" cannot be placed: step aside.
    (v,) = gs.check(side("어제 코스피 급락", "ko"), side("KOSPI plunges on March 5", "en"))
    assert not v.blocked and not v.decided


def test_may_the_verb_is_not_a_month(gs: GuardSet) -> None:
    (v,) = gs.check(side("Fed May Have to Accelerate Tapering", "en"), side("Fed to act in June", "en"))
    assert not v.blocked and not v.decided

def test_untimed_relative_years_and_months_compare_as_offsets(gs: GuardSet) -> None:
    # Neither side has a time (a stateless compare): "this year" and "last year" name different
    # years whenever both were written at once.
    (v,) = gs.check(side("올해 수출 7% 증가", "ko"), side("지난해 수출 7% 증가", "ko"))
    assert v.blocked and "relative year this year != last year" in v.evidence
    (v,) = gs.check(side("올해 수출 7% 증가", "ko"), side("Exports rise 7% this year", "en"))
    assert not v.blocked and v.decided
    (v,) = gs.check(side("지난달 물가 3% 상승", "ko"), side("Prices rose 3% this month", "en"))
    assert v.blocked and "relative month last month != this month" in v.evidence
    # Days stay out: a report of "today" rewritten a day later says "yesterday" (KorSTS, MSRpar).
    (v,) = gs.check(side("FTC asked Congress today for more power", "en"),
                    side("FTC asked Congress yesterday for more power", "en"))
    assert not v.decided
    # One side timed: its phrase becomes a calendar year, the other's an offset; no evidence.
    at = datetime(2025, 3, 9, 3, tzinfo=timezone.utc)
    (v,) = gs.check(side("올해 수출 7% 증가", "ko", at), side("지난해 수출 7% 증가", "ko"))
    assert not v.decided


def test_relative_untimed_rejects_an_unknown_unit() -> None:
    from service.guards.date import DateGuard, load_rules

    rules = load_rules()["date"]
    rules = {**rules, "settings": {**rules["settings"], "relative_untimed": ["week"]}}
    with pytest.raises(ValueError, match="relative_untimed takes year, month, day; got 'week'"):
        DateGuard.from_rules(rules)


@pytest.mark.parametrize(("ta", "la", "tb", "lb"), [
    # a count of days is no day of the month (review of the third frames pass: each vetoed before)
    ("Russia and Ukraine agree to 30-day ceasefire on March 11", "en", "러시아·우크라이나, 30일 휴전 합의", "ko"),
    ("Trump pauses Mexico tariffs for 30 days on Feb. 3", "en", "트럼프, 멕시코 관세 30일 유예", "ko"),
    ("Parties campaign on March 4, a month before the vote", "en", "총선 30일 앞두고 여야 총력전", "ko"),
])
def test_a_count_of_days_is_no_day_of_the_month(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    assert not gs.check(side(ta, la), side(tb, lb))[0].blocked


def test_a_day_without_its_month_still_clashes(gs: GuardSet) -> None:
    (v,) = gs.check(side("Summit to be held in Tokyo on Dec. 15", "en"), side("16일 도쿄서 정상회의 개최", "ko"))
    assert v.blocked and "day" in v.evidence, v
