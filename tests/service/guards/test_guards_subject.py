"""Subject guard: seed 000's lead-token gate, generalised across rephrasings and languages."""

from __future__ import annotations

import re

import pytest

from index.text import lead_token
from service.guards import GuardInput, GuardSet
from service.guards.rules import load_rules
from service.guards.subject import SubjectGuard, seed_lead_token
from tests.helpers.labelled_pairs import read_pairs
from tests.paths import DATA_DIR, EVAL_DATA


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["subject"])


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


SEED_BLOCK = [
    ("어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여", "엠젠솔루션, 온디바이스 AI 서비스 실증·확산 사업 참여", "어드밴트 != 엠젠솔루션"),
    ("경북도, 온디바이스 AI 실증사업 공모 2년째 선정", "증평군 온디바이스 AI 실증사업 공모 선정", "경북도 != 증평군"),
]


@pytest.mark.parametrize(("ta", "tb", "ev"), SEED_BLOCK)
def test_seed_000_blocks(gs: GuardSet, ta: str, tb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, "ko"), side(tb, "ko"))
    assert v.blocked and v.decided and v.evidence == f"subject: {ev}"


def test_seed_000_passes(gs: GuardSet) -> None:
    (v,) = gs.check(side("진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", "ko"),
                    side("진천군 온디바이스 AI기반 스마트돌봄 본격화", "ko"))
    assert not v.blocked and v.decided


@pytest.mark.parametrize(
    "title",
    ["[속보] 어드밴트, 온디바이스 AI - 전자신문", "(종합) 진천군 스마트돌봄", "Fed's Williams: Bond buying", "", "!!!", "Ｓａｍｓｕｎｇ 실적"],
)
def test_lead_token_matches_index_text(title: str) -> None:
    assert seed_lead_token(title) == lead_token(title)


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("Apple unveils new iPhone", "en", "Google unveils new Pixel phone", "en"),
        ("삼성전자, 신제품 공개", "ko", "Apple unveils new product", "en"),
        ("Tesla, recall 확대", "ko", "토요타, 리콜 확대", "ko"),
        ("서울시, 따릉이 요금 인상", "ko", "부산시, 공영자전거 요금 인상", "ko"),
    ],
)
def test_different_subjects_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert v.blocked and v.decided and " != " in v.evidence


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("Fed raises rates", "en", "US central bank hikes rates", "en"),  # part_of / alias
        ("연준, 기준금리 인상", "ko", "Fed hikes rates", "en"),  # transliteration alias
        ("삼성전자, 3분기 실적", "ko", "Samsung Electronics Q3 results", "en"),
        ("Williams: Fed Could Slow Bond Purchases Sooner", "en", "Fed's Williams: Bond buying may end early", "en"),
        ("삼성전자, 애플과 특허 소송 합의", "ko", "Apple settles patent suit with Samsung", "en"),
        ("삼성전자가 3분기 실적을 발표했다", "ko", "삼성전자, 3분기 실적 발표", "ko"),  # particle
    ],
)
def test_same_subject_passes(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked and v.decided, v


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("나는 그의 우산이 좋다.", "ko", "I like her umbrella.", "en"),  # unknown names across languages
        ("Stocks fall after Fed comments", "en", "Wall Street slides on Fed", "en"),  # not subjects
        ("그러나, 시장은 하락했다", "ko", "한편, 시장은 하락했다", "ko"),  # adverbs, not subjects
        ("", "ko", "어드밴트, 사업 참여", "ko"),  # no lead token
    ],
)
def test_steps_aside(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(GuardInput(title=ta, text=ta, lang=la), side(tb, lb))
    assert not v.blocked and not v.decided, v


@pytest.mark.parametrize(("ta", "tb"), [
    ("공정위, 쿠팡에 과징금 1628억원 부과", "공정거래위원회, 쿠팡에 과징금 1628억원 부과"),
    ("국토교통부, 수도권 공공택지 3만가구 추가 공급", "국토부, 수도권 공공택지 3만가구 추가 공급"),
])
def test_a_korean_short_form_of_the_other_lead_is_not_another_subject(gs: GuardSet, ta: str, tb: str) -> None:
    # Neither name is in the alias table: the short form takes its syllables in order from the
    # full name, so the two are one subject, not a clash (tests/data/abbrev_pairs.jsonl).
    (v,) = gs.check(side(ta, "ko"), side(tb, "ko"))
    assert not v.blocked and v.decided and v.evidence.endswith("(short form)")


def test_leads_that_are_not_short_forms_of_each_other_still_clash(gs: GuardSet) -> None:
    (v,) = gs.check(side("공정위, 쿠팡에 과징금 부과", "ko"), side("금융위원회, 쿠팡에 과징금 부과", "ko"))
    assert v.blocked


def test_abbreviates_reads_syllables_in_order_from_the_first() -> None:
    from index.text import abbreviates

    assert abbreviates("과기정통부", "과학기술정보통신부") and abbreviates("현대자동차", "현대차")
    assert not abbreviates("워싱턴", "미국") and not abbreviates("정부", "과기정통부") and not abbreviates("", "한은")


def _hand_and_dev_pairs() -> list[tuple[str, str]]:
    """Both orders of every hand-set pair (tests/data/*pairs*.jsonl) and of the first 200 Korean
    pairs of two dev sets (when the dev data is here)."""
    pairs: list[tuple[str, str]] = []
    for path in sorted(DATA_DIR.glob("*pairs*.jsonl")):
        for r in read_pairs(path):
            a, b = (r[k]["text"] if isinstance(r[k], dict) else r[k] for k in "ab")
            pairs += [(a, b), (b, a)]
    for name in ("koen-news-park", "korsts-stsb-koen"):
        path = EVAL_DATA / name / "dev.jsonl"
        if not path.is_file():
            continue
        korean = [r for r in read_pairs(path) if r["a"]["lang"] == r["b"]["lang"] == "ko"][:200]
        pairs += [(r["a"]["text"], r["b"]["text"]) for r in korean] + [(r["b"]["text"], r["a"]["text"]) for r in korean]
    return pairs


def test_names_alike_prefilter_is_the_full_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """``SubjectGuard._names_in`` searches only the names whose first character starts a word of the
    text; every match, its order, and every ``names_alike`` rewrite is the scan of all names'."""
    g = SubjectGuard.from_rules(load_rules()["subject"])

    def full_scan(text: str) -> dict[str, list[re.Match[str]]]:
        found: dict[str, list[re.Match[str]]] = {}
        for entity, _name, pat in g._name_res():
            m = pat.search(text)
            if m is not None:
                found.setdefault(entity, []).append(m)
        return found

    def spans(found: dict[str, list[re.Match[str]]]) -> list[tuple[str, list[tuple[int, int, str]]]]:
        return [(e, [(m.start(), m.end(), m.group(0)) for m in ms]) for e, ms in found.items()]

    pairs = _hand_and_dev_pairs()
    texts = {t for pair in pairs for t in pair}
    with_names = 0
    for text in texts:
        got = g._names_in(text)
        assert spans(got) == spans(full_scan(text)), text
        with_names += bool(got)
    assert with_names >= 50  # the hand sets alone: 194 texts name a table entity in Hangul, 12 pairs rewrite
    prefiltered = [g.names_alike(a, b) for a, b in pairs]
    monkeypatch.setattr(g, "_names_in", full_scan)
    assert prefiltered == [g.names_alike(a, b) for a, b in pairs]
    assert sum(bool(rewrites) for _text, rewrites in prefiltered) >= 10
