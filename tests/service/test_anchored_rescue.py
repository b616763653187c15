"""The verifier's anchored floor (``verifier_anchored_floor``): below ``verifier_floor`` a
Korean-English pair is read by the verifier only when the guards let it through and match a
name or figure on both sides (``GuardVerdict.anchors``). USE puts translated names far apart
("Lee Jae-myung holds summit with Ishiba in Tokyo" / "이재명 대통령, 도쿄서 이시바 총리와 정상회담":
cosine 0.40); a name matched on both sides is what keeps the unrelated pairs of a stream out.

The guard tests read the packaged rules; the engine tests use a table embedder and a stand-in
verifier (tests/service/test_verifier_engine.py), so every cosine and probability is fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

from service.config import ConfigError, CopyConfig, EngineConfig
from service.engine import Deduper
from service.guards import GuardSet
from service.guards.base import GuardInput
from service.store import open_store
from service.types import Article
from tests.helpers.labelled_pairs import read_pairs, shipped_verdicts
from tests.helpers.verifier_fakes import DIM, VECTORS, FakeVerifier, TableEmbedder
from tests.helpers.verifier_fakes import unit as _unit
from tests.paths import REPO_ROOT

LEE_EN = "Lee Jae-myung holds summit with Ishiba in Tokyo"
LEE_KO = "이재명 대통령, 도쿄서 이시바 총리와 정상회담"
SNOW_EN = "Heavy snow closes mountain roads"
SNOW_KO = "폭설로 산간 도로 통제"
BUSAN_EN = "Police arrest suspect in Busan stabbing"
BUSAN_KO = "부산 흉기 난동 피의자 구속 기소"


def anchors(a: str, b: str) -> dict[str, int]:
    """Each guard's anchors for the pair (English first, Korean second), the guards that have any."""
    verdicts = GuardSet.default().check(GuardInput("", a, "en"), GuardInput("", b, "ko"))
    return {v.guard: v.anchors for v in verdicts if v.anchors}


def test_names_matched_with_names_anchor_a_pair() -> None:
    got = anchors(LEE_EN, LEE_KO)
    assert got.get("who", 0) >= 2  # Lee Jae-myung == 이재명, Ishiba == 이시바
    assert "where" not in got  # Tokyo == 도쿄: a place anchors nothing


def test_a_place_and_a_phonetic_guess_are_no_anchor() -> None:
    # Busan == 부산 is a place; "Police" matched only by its sound in some Hangul word
    assert anchors(BUSAN_EN, BUSAN_KO) == {}


def test_figures_and_known_subjects_anchor_but_the_unsaid_home_country_does_not() -> None:
    assert anchors("Nvidia market value tops $5 trillion", "엔비디아 시가총액 5조달러 돌파") == {
        "quantity": 1,
        "subject": 1,
        "who": 1,
    }
    # "Korea's" against nothing: matched as the home country left unsaid, not as a name
    assert anchors(
        "Korea's household debt hits record 1,900 trillion won", "가계부채 1900조원…사상 최대"
    ) == {"quantity": 1}


@pytest.fixture
def low_pairs() -> object:
    """LEE_* and SNOW_* at cosine 0.40 (under verifier_floor 0.45, above the anchored floor
    0.30); BUSAN_* at 0.40 too."""
    added = {
        LEE_KO: _unit(np.eye(DIM)[3]),
        LEE_EN: _unit(np.eye(DIM)[3] * 0.4 + np.eye(DIM)[4] * np.sqrt(0.84)),
        SNOW_KO: _unit(np.eye(DIM)[5]),
        SNOW_EN: _unit(np.eye(DIM)[5] * 0.4 + np.eye(DIM)[6] * np.sqrt(0.84)),
        BUSAN_KO: _unit(np.eye(DIM)[7]),
        BUSAN_EN: _unit(np.eye(DIM)[7] * 0.4 + np.eye(DIM)[8] * np.sqrt(0.84)),
    }
    VECTORS.update(added)
    yield
    for text in added:
        del VECTORS[text]


def engine(verifier: FakeVerifier, **config: object) -> Deduper:
    cfg = EngineConfig.of(embedding_threshold=0.625, verifier=True, **config)  # type: ignore[arg-type]
    return Deduper(
        open_store(":memory:"),
        embedder=TableEmbedder(),
        config=cfg,
        guards=GuardSet.default(),
        verifier=verifier,
    )


@pytest.mark.usefixtures("low_pairs")
def test_below_the_floor_a_pair_with_names_matched_is_read_and_rescued() -> None:
    v = FakeVerifier(default=0.9)
    d = engine(v)
    ko = d.ingest(Article(title=LEE_KO, url="https://a.example/1"))
    en = d.ingest(Article(title=LEE_EN, url="https://b.example/1"))
    assert en.status == "duplicate" and en.cluster_id == ko.cluster_id
    assert en.decision.score == pytest.approx(0.40, abs=1e-5)
    assert en.decision.reasons[0].startswith("verifier: 0.90 (cosine 0.40)")
    assert "a name or figure matched on both sides" in en.decision.reasons[0]
    assert v.pairs == [(LEE_KO, LEE_EN)]
    compared = d.compare(Article(title=LEE_KO), Article(title=LEE_EN))
    assert compared.same and "a name or figure matched on both sides" in compared.reasons[0]


@pytest.mark.usefixtures("low_pairs")
def test_below_the_floor_a_pair_without_an_anchor_is_never_read() -> None:
    v = FakeVerifier(default=0.99)
    d = engine(v)
    for ko, en in ((SNOW_KO, SNOW_EN), (BUSAN_KO, BUSAN_EN)):
        d.ingest(Article(title=ko, url=f"https://a.example/{len(ko)}"))
        assert d.ingest(Article(title=en, url=f"https://b.example/{len(en)}")).status == "new"
        assert not d.compare(Article(title=ko), Article(title=en)).same
    assert v.calls == []


@pytest.mark.usefixtures("low_pairs")
def test_the_anchored_floor_off_or_above_the_cosine_reads_nothing_below_verifier_floor() -> None:
    for setting in (None, 0.45, 0.41):
        v = FakeVerifier(default=0.99)
        d = engine(v, verifier_anchored_floor=setting)
        d.ingest(Article(title=LEE_KO, url="https://a.example/1"))
        assert d.ingest(Article(title=LEE_EN, url="https://b.example/1")).status == "new", setting
        assert v.calls == []


@pytest.mark.usefixtures("low_pairs")
def test_an_anchored_pair_the_verifier_refuses_stays_apart() -> None:
    v = FakeVerifier(default=0.3)  # under the rescue threshold 0.6
    d = engine(v)
    d.ingest(Article(title=LEE_KO, url="https://a.example/1"))
    assert d.ingest(Article(title=LEE_EN, url="https://b.example/1")).status == "new"
    assert v.pairs == [(LEE_KO, LEE_EN)]


def test_the_rescue_floor_is_the_lower_of_the_two_and_the_setting_is_checked() -> None:
    assert CopyConfig().rescue_floor == 0.30
    assert CopyConfig(verifier_anchored_floor=0.5).rescue_floor == 0.45
    with pytest.raises(ConfigError, match="verifier_anchored_floor"):
        EngineConfig.of(verifier_anchored_floor=1.5)


@pytest.mark.usefixtures("low_pairs")
def test_below_verifier_floor_the_rescue_asks_a_higher_probability() -> None:
    """P 0.62 rescues a pair of the band above verifier_floor (threshold 0.6), not an anchored one
    (ANCHORED_RESCUE_THRESHOLD 0.65: a follow-up naming the same person had P 0.60)."""
    v = FakeVerifier(default=0.62)
    d = engine(v)
    d.ingest(Article(title=LEE_KO, url="https://a.example/1"))
    en = d.ingest(Article(title=LEE_EN, url="https://b.example/1"))
    assert en.status == "new" and v.pairs == [(LEE_KO, LEE_EN)]
    assert any(
        r.startswith("verifier: 0.62 < 0.65 at best for the 1 other-language hit")
        for r in en.decision.reasons
    )
    assert not d.compare(Article(title=LEE_KO), Article(title=LEE_EN)).same
    assert (
        d.compare(Article(title=LEE_KO), Article(title=LEE_EN))
        .reasons[0]
        .endswith("verifier: 0.62 < 0.65 (cosine 0.40); unmatched numbers: none")
    )


NAMES = REPO_ROOT / "tests" / "data" / "names_pairs.jsonl"


def test_the_names_set_is_well_formed() -> None:
    recs = read_pairs(NAMES)
    assert len({r["id"] for r in recs}) == len(recs) == 64
    assert {(r["kind"], r["label"]) for r in recs} == {("xl_copy", 1), ("xl_follow_up", 0)}


@pytest.mark.heavy
def test_the_shipped_engine_on_the_names_set() -> None:
    """Measured (research/notes/verifier.md, "An anchored floor"): 28 of 40 copies and 2 false
    merges of 24 follow-ups without the anchored floor (both rescued at cosine >= 0.45); 32 and 2
    with it (P >= 0.65; at the rescue threshold 0.6 a third follow-up merged, P 0.60). After the
    tenth mend, 32 and 3: 가자지구 / Gaza is one place now, so "교황 레오 14세, 가자지구 방문 계획 발표" /
    "Pope Leo XIV calls for ceasefire in Gaza" is no longer kept apart by a wrong "가자지구 != Gaza"
    and the verifier rescues it (P 0.74, cosine 0.43): a follow-up the guards do not read (a visit
    planned against a call for a ceasefire), left as measured."""
    found, false_merges = shipped_verdicts(read_pairs(NAMES))
    assert sum(found.values()) >= 32 and sum(false_merges.values()) <= 3, (found, false_merges)


def test_the_cheap_anchor_question_agrees_with_the_full_check() -> None:
    """``GuardSet.anchors`` (asked of every Korean-English hit under the rescue floor before the
    ten guards are): some anchors (it stops at the first guard that finds any), 0 when one of
    the anchoring guards blocks or none matched."""
    gs = GuardSet.default()
    en = lambda t: GuardInput("", t, "en")  # noqa: E731
    ko = lambda t: GuardInput("", t, "ko")  # noqa: E731
    assert gs.anchors(en(LEE_EN), ko(LEE_KO)) >= 1 and sum(anchors(LEE_EN, LEE_KO).values()) >= 3
    assert gs.anchors(en(BUSAN_EN), ko(BUSAN_KO)) == 0
    assert gs.anchors(en("Nvidia market value tops $5 trillion"), ko("엔비디아 시가총액 5조달러 돌파")) >= 1
    # $5 trillion against 4조달러: the quantity guard blocks, so Nvidia == 엔비디아 counts for nothing
    assert gs.anchors(en("Nvidia market value tops $5 trillion"), ko("엔비디아 시가총액 4조달러 돌파")) == 0
