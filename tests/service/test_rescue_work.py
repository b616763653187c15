"""The Korean-English rescue (``Cascade._rescue_hits``) does each test once per hit, cheapest
first, and decides as it did when it repeated them (issue 37): the time test only for a hit in
one of the two bands, and once; the anchored band's guard verdicts reused when the pair is
proposed, and equal to what the guards say when asked again.

A table embedder and a stand-in verifier fix every cosine and probability
(tests/helpers/verifier_fakes.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from index.features import ItemFeatures
from service.cascade import Cascade
from service.config import EngineConfig
from service.engine import Deduper
from service.guards import GuardSet
from service.store import open_store
from service.types import Article, GuardVerdict
from tests.helpers.verifier_fakes import DIM, VECTORS, FakeVerifier, TableEmbedder
from tests.helpers.verifier_fakes import unit as _unit

# names matched on both sides (the who guard anchors it), cosine 0.40: the anchored band
ANCHORED_KO = "이재명 대통령, 오사카서 기시다 총리와 회담"
ANCHORED_EN = "Lee Jae-myung meets Kishida in Osaka"
# cosine 0.50: the rescue band [verifier_floor 0.45, embedding_threshold 0.625)
BAND_KO = "태풍 북상에 제주 항공편 결항"
BAND_EN = "Typhoon grounds flights on Jeju island"
# English, cosine 0.50 to BAND_EN: a hit in neither band (same language)
SAME_EN = "Storm season begins with quiet forecasts"
T0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)


@pytest.fixture
def table() -> Iterator[None]:
    e = np.eye(DIM)
    added = {
        ANCHORED_KO: _unit(e[9]),
        ANCHORED_EN: _unit(e[9] * 0.4 + e[10] * np.sqrt(0.84)),
        BAND_KO: _unit(e[11]),
        BAND_EN: _unit(e[11] * 0.5 + e[12] * np.sqrt(0.75)),
        SAME_EN: _unit(e[12] / np.sqrt(3) + e[13] * np.sqrt(2 / 3)),
    }
    VECTORS.update(added)
    yield
    for text in added:
        del VECTORS[text]


def engine(verifier: FakeVerifier) -> Deduper:
    return Deduper(open_store(":memory:"), embedder=TableEmbedder(),
                   config=EngineConfig.of(embedding_threshold=0.625, verifier=True),
                   guards=GuardSet.default(), verifier=verifier)


def article(title: str, n: int, hours: float = 0.0) -> Article:
    return Article(title=title, url=f"https://news.example/{n}", published_at=T0 + timedelta(hours=hours))


@pytest.mark.usefixtures("table")
def test_the_time_test_is_asked_once_and_only_of_a_hit_in_a_band(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: Counter[tuple[str, str]] = Counter()
    too_far = Cascade.too_far

    def counted(self: Cascade, a: ItemFeatures, b: ItemFeatures) -> str | None:
        asked[(a.title, b.title)] += 1
        return too_far(self, a, b)

    monkeypatch.setattr(Cascade, "too_far", counted)
    v = FakeVerifier(default=0.99)
    d = engine(v)
    d.ingest(article(BAND_KO, 1))
    d.ingest(article(SAME_EN, 2, hours=29.0))
    # 30 hours after the Korean report (copy_gap_hours 12), one after the English one
    got = d.ingest(article(BAND_EN, 3, hours=30.0))
    assert got.status == "new" and v.calls == []  # too far apart: never read
    cos = {f"{a}|{b}": round(float(VECTORS[a] @ VECTORS[b]), 2) for a, b in ((BAND_EN, BAND_KO), (BAND_EN, SAME_EN))}
    assert cos == {f"{BAND_EN}|{BAND_KO}": 0.5, f"{BAND_EN}|{SAME_EN}": 0.5}
    # before: twice for the band's hit (once more on the anchored band's branch) and once for
    # the same-language hit, which neither band reads
    assert asked[(BAND_EN, BAND_KO)] == 1
    assert asked[(BAND_EN, SAME_EN)] == 0


@pytest.mark.usefixtures("table")
def test_an_anchored_pair_is_vetted_once_and_its_verdicts_are_the_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[ItemFeatures, ItemFeatures, list[GuardVerdict]]] = []
    vet = Cascade.vet

    def recorded(self: Cascade, a: ItemFeatures, b: ItemFeatures, *args: object) -> tuple[bool, list[GuardVerdict]]:
        allowed, verdicts = vet(self, a, b, *args)  # type: ignore[arg-type]
        calls.append((a, b, verdicts))
        return allowed, verdicts

    monkeypatch.setattr(Cascade, "vet", recorded)
    v = FakeVerifier(default=0.9)
    d = engine(v)
    ko = d.ingest(article(ANCHORED_KO, 1))
    en = d.ingest(article(ANCHORED_EN, 2, hours=1.0))
    assert en.status == "duplicate" and en.cluster_id == ko.cluster_id
    assert "a name or figure matched on both sides" in en.decision.reasons[0]
    assert v.pairs == [(ANCHORED_KO, ANCHORED_EN)]
    # before: asked by the anchored band, and again when the pair was proposed
    assert [(a.title, b.title) for a, b, _ in calls] == [(ANCHORED_EN, ANCHORED_KO)]
    a, b, verdicts = calls[0]
    assert sum(x.anchors for x in verdicts) > 0
    # the reused verdicts are what the guards say of the pair asked afresh
    again = vet(d.ctx.cascade, a, b)
    assert again == (True, verdicts) and en.decision.guards == verdicts
