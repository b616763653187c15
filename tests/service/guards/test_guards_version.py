"""Version guard: different releases and model numbers block; the same release merges."""

from __future__ import annotations

import pytest

from service.guards import GuardInput, GuardSet


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["version"])


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb", "ev"),
    [
        ("Apple releases iOS 18.1", "en", "Apple releases iOS 18.1.1", "en", "iOS 18.1 != iOS 18.1.1"),
        ("Node v22 released", "en", "Node v24 released", "en", "!="),
        ("SDK version 2.0 out", "en", "SDK version 2.0.1 out", "en", "!="),
        ("iOS 19 beta 2 배포", "ko", "iOS 19 beta 3 arrives", "en", "beta 2 != beta 3"),
        ("갤럭시 S24 출시", "ko", "Samsung launches Galaxy S25", "en", "!="),
        ("오픈AI GPT-4o 공개", "ko", "OpenAI unveils GPT-5", "en", "GPT-4o != GPT-5"),
        ("윈도우 10 지원 종료", "ko", "윈도우 11 지원 종료", "ko", "!="),
    ],
)
def test_different_versions_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert v.blocked and v.decided, v
    assert v.evidence.startswith("version: ") and ev in v.evidence


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("Apple releases iOS 18.1", "en", "애플, iOS 18.1 배포", "ko"),
        ("갤럭시S24 울트라 출시", "ko", "Samsung launches Galaxy S24 Ultra", "en"),
        ("SDK version 2.0 out", "en", "SDK v2 out", "en"),
        ("아이폰 16 공개", "ko", "Apple unveils iPhone 16", "en"),
    ],
)
def test_same_versions_pass(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked and v.decided, v


@pytest.mark.parametrize(
    ("ta", "tb"),
    [("Apple releases iOS 18.1", "Google ships Android 15"), ("3분기 실적 발표", "Q3 results"), ("no versions", "none")],
)
def test_steps_aside(gs: GuardSet, ta: str, tb: str) -> None:
    (v,) = gs.check(side(ta, "en"), side(tb, "en"))
    assert not v.blocked and not v.decided, v


def test_unknown_family_named_by_preceding_word():
    # the issue's own example: no known product family, yet 2.0 and 2.0.1 are different releases
    from service.guards import GuardInput, GuardSet

    g = GuardSet.default()

    def blocked(a: str, b: str) -> bool:
        return "version" in g.blocked(g.check(GuardInput(title=a, text=a, lang="ko"), GuardInput(title=b, text=b, lang="ko")))

    assert blocked("캐시 엔진 2.0 공개", "캐시 엔진 2.0.1 공개")
    assert blocked("Cache engine 2.0 released", "Cache engine 2.0.1 released")
    assert not blocked("캐시 엔진 2.0이 공개됐다", "캐시 엔진 2.0 출시")
