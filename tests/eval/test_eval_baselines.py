"""The seeds' baselines on small synthetic inputs written for these tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.baselines import EmbedEverything, Seed000, Seed001, Seed003
from eval.baselines.base import Baseline, unique_texts
from eval.baselines.seed000 import batch_idf
from eval.baselines.seed001 import normalize
from eval.baselines.seed003 import n_groups
from eval.data import Side


def en(text: str) -> Side:
    return Side(text, "en")


def ko(text: str) -> Side:
    return Side(text, "ko")


def test_all_follow_the_protocol() -> None:
    fake = EmbedEverything(0.9, encoder=lambda texts: np.ones((len(texts), 2), dtype=np.float32))
    for b in (Seed001(), Seed000(), fake):
        assert isinstance(b, Baseline)


def test_seed001_normalisation_is_the_seeds() -> None:
    # The seed's own documented trade-off: punctuation inside numbers is lost.
    assert normalize("Fed: Rate +0.25%!") == "fed rate 025"
    assert normalize("  FED   RAISES rates ") == "fed raises rates"


def test_seed001_exact_near_and_far() -> None:
    long = "fed raises rates by 25 basis points today as inflation cools across major economies"
    pairs = [(en("Fed raises rates!"), en("FED RAISES RATES")),        # exact after normalising
             (en(long), en(long.replace("today", "now"))),             # one word of 14: Jaccard ~0.87
             (en("Fed raises rates"), ko("연준 금리 인상")),                # cross-lingual: no shared word
             (en("Apple unveils new iPhone"), en("Fed raises rates"))]
    v = Seed001().pair_verdicts(pairs)
    assert [x.same for x in v] == [True, True, False, False]
    assert v[0].score == 1.0 and v[3].score < 0.2


def test_seed001_stream_joins_first_representative() -> None:
    items = [en("Fed raises rates"), en("Apple unveils iPhone"), en("fed raises rates."), en("APPLE unveils iPhone!")]
    assert Seed001().cluster(items) == [0, 1, 0, 1]


def test_seed000_idf_formula() -> None:
    idf = batch_idf([frozenset({"aa"}), frozenset({"aa", "bb"}), frozenset({"cc"})])
    # N = 3: df(aa) = 2 -> log(1 + 3/3); df(bb) = 1 -> log(1 + 3/2).
    assert idf["aa"] == pytest.approx(math.log(2)) and idf["bb"] == pytest.approx(math.log(2.5))


def test_seed000_gate_blocks_different_subjects() -> None:
    # Seed 000's own cases: same municipality merged, different companies / councils kept apart.
    pairs = [(ko("진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수"), ko("진천군 온디바이스 AI기반 스마트돌봄 본격화")),
             (ko("어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여"), ko("엠젠솔루션, 온디바이스 AI 서비스 실증·확산 사업 참여")),
             (ko("경북도, 온디바이스 AI 실증사업 공모 2년째 선정"), ko("증평군 온디바이스 AI 실증사업 공모 선정"))]
    v = Seed000().pair_verdicts(pairs)
    assert [x.same for x in v] == [True, False, False]
    assert v[1].score == -math.inf and v[0].score >= 0.30


def test_seed000_greedy_compares_with_representatives_only() -> None:
    items = [ko("진천군, 스마트 돌봄 구축 본격 착수"), ko("진천군 스마트돌봄 본격 착수"), ko("증평군 스마트 돌봄 구축 착수")]
    labels = Seed000().cluster(items)
    assert labels[0] == labels[1] and labels[2] == 2


@pytest.fixture(scope="module")
def seed003() -> Seed003:
    # kiwipiepy: loads in seconds everywhere; Okt needs a JVM and is exercised by the report.
    return Seed003(tokenizer="kiwi")


@pytest.mark.slow
def test_seed003_k_and_within_group_cosine(seed003: Seed003) -> None:
    assert n_groups(1787) == 14  # the write-up's own example
    text = "삼성전자 반도체 공장 증설 투자 발표"
    pairs = [(ko(text), ko(text + " 예정")),
             (ko(text), ko("현대차 전기차 판매 실적 증가")),
             (ko("정부 부동산 대책 발표"), ko("정부 부동산 대책 발표"))]
    v = seed003.pair_verdicts(pairs)
    # Exact copies count (the seed's `<= 0.99999` bound would have dropped them; see the module doc).
    assert [x.same for x in v] == [True, False, True]
    labels = seed003.cluster([p for pair in pairs[:2] for p in pair])
    assert labels[0] == labels[1] == labels[2] and labels[3] != labels[0]


def test_embed_everything_threshold_and_stream() -> None:
    table = {"a": [1.0, 0.0], "a2": [0.95, 0.31], "b": [0.0, 1.0], "c": [0.7, 0.7]}

    def enc(texts: list[str]) -> np.ndarray:
        return np.array([table[t] for t in texts], dtype=np.float32)

    b = EmbedEverything(0.9, encoder=enc)
    v = b.pair_verdicts([(en("a"), en("a2")), (en("a"), en("b")), (en("a"), en("c"))])
    assert [x.same for x in v] == [True, False, False]
    assert v[1].score == pytest.approx(0.0, abs=1e-6)
    # c is 0.707 from a and from b: a new representative.
    assert b.cluster([en("a"), en("b"), en("a2"), en("c")]) == [0, 1, 0, 3]


def test_unique_texts_is_the_batch() -> None:
    assert unique_texts([(en("x"), en("y")), (en("x"), en("z"))]) == ["x", "y", "z"]
