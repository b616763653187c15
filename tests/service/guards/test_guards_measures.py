"""Measures and scopes (service/rules/guards/polarity.measures.toml, read by the polarity guard): the
same figure of another measure (profit / sales, exports / imports, CPI / core CPI, deposits / loans)
or of another population (men / women, 수도권 / 전국, SMEs / large firms) is another report; the same
measure in other words, notation or language is not, and a measure named on one side only is no
evidence. Other sentences than tests/data/measure_pairs.jsonl's."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.guards import GuardSet
from service.guards.polarity import PolarityGuard
from service.guards.rules import load_rules
from tests.helpers.labelled_pairs import blocked_by


@pytest.fixture(scope="module")
def measures() -> PolarityGuard:
    guard = PolarityGuard.from_rules(load_rules()["polarity"]).measures
    assert guard is not None
    return guard


def families(guard: PolarityGuard, text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for hit in guard.extract(text):
        out.setdefault(hit.axis, set()).add(hit.pole)
    return out


@pytest.mark.parametrize(
    ("a", "b", "evidence"),
    [
        (
            "SK hynix Q2 operating profit hits 5 trillion won",
            "SK hynix Q2 revenue hits 5 trillion won",
            "measure earnings: operating profit vs revenue",
        ),
        (
            "네이버 2분기 매출액 2조5천억원",
            "네이버 2분기 당기순이익 2조5천억원",
            "measure earnings: 매출액 vs 당기순이익",
        ),
        ("Kakao net income falls 30%", "카카오 영업익 30% 감소", "measure earnings: net income vs 영업익"),
        ("11월 수입 5% 감소", "Korea's November exports fall 5%", "measure trade: 수입 vs exports"),
        ("Japan core CPI rises 2.8%", "일본 소비자물가 2.8% 상승", "measure prices: core cpi vs 소비자물가"),
        ("생산자물가 0.3% 상승", "소비자물가 0.3% 상승", "measure prices: 생산자물가 vs 소비자물가"),
        ("9월 무역수지 37억달러 흑자", "9월 경상수지 37억달러 흑자", "measure balance: 무역수지 vs 경상수지"),
        ("1분기 GNI 1.1% 증가", "Korea's Q1 GDP grows 1.1%", "measure output: gni vs gdp"),
        ("청년 고용률 46%", "청년 실업률 46%", "measure labour: 고용률 vs 실업률"),
        ("3분기 출생아 5만명", "3분기 사망자 5만명", "measure population: 출생아 vs 사망자"),
        (
            "Busan apartment jeonse prices fall for 8th week",
            "부산 아파트 매매가격 8주 연속 하락",
            "measure housing_price: jeonse prices vs 매매가격",
        ),
        ("금리 상승에 원화 약세", "환율 상승에 원화 약세", "measure market_rate: 금리 vs 환율"),
        (
            "Deposit rates cut at major banks",
            "주요 은행 대출금리 인하",
            "measure banking: deposit rates vs 대출",
        ),
        ("총리 지지율 28%", "총리 부정평가 28%", "measure approval: 지지율 vs 부정평가"),
        ("코스닥 3% 급등", "Kospi jumps 3%", "measure index: 코스닥 vs kospi"),
        ("Unemployment among women rises", "남성 실업 증가", "measure sex: among women vs 남성"),
        ("Female workers' wages rise 3%", "남성 근로자 임금 3% 상승", "measure sex: female vs 남성"),
        (
            "비수도권 아파트 거래 20% 감소",
            "수도권 아파트 거래 20% 감소",
            "measure region: 비수도권 vs 수도권",
        ),
        ("Greater Seoul housing starts fall", "전국 주택 착공 감소", "measure region: greater seoul vs 전국"),
        # "Seoul-area" is 수도권 (it named no scope), still not 지방 / nationwide
        ("Seoul-area apartment prices rise 0.3%", "지방 아파트값 0.3% 상승", "measure region: seoul-area vs 지방 "),
        ("서울·수도권 아파트값 상승", "Nationwide apartment prices rise", "measure region: 수도권/서울 vs nationwide"),
        ("남성 기대수명 80세", "Life expectancy for women hits 80", "measure sex: 남성 vs for women"),
        ("여성의 고용률 60% 돌파", "남성 고용률 60% 돌파", "measure sex: 여성 vs 남성"),
        (
            "Kia's overseas sales rise 7%",
            "기아 국내 판매 7% 증가",
            "measure market: overseas sales vs 국내 판매",
        ),
        ("Hyundai's US sales rise 9%", "현대차 해외 판매 9% 증가", "measure market: us sales vs 해외 판매"),
        ("저축은행 연체율 4%대", "은행권 연체율 4%대", "measure lender: 저축은행 vs 은행권"),
        ("대기업 체감경기 악화", "중소기업 체감경기 악화", "measure firm_size: 대기업 vs 중소기업"),
        ("가계대출 증가세 둔화", "기업대출 증가세 둔화", "measure debtor: 가계대출 vs 기업대출"),
        ("노인 취업자 증가", "청년 취업자 증가", "measure age: 노인 vs 청년"),
    ],
)
def test_a_swapped_measure_or_scope_blocks(gs: GuardSet, a: str, b: str, evidence: str) -> None:
    assert blocked_by(gs, a, b) == {"polarity": f"polarity: {evidence}"}


@pytest.mark.parametrize(
    ("a", "b", "family"),
    [
        ("현대차 영업익 4조", "Hyundai Motor operating profit 4 trillion won", "earnings"),
        ("Hyundai Motor Q2 OP 4 trillion won", "현대차 2분기 영업이익 4조", "earnings"),
        ("Naver sales top 2.5 trillion won", "네이버 매출 2조5천억 돌파", "earnings"),
        ("Kakao net profit falls", "Kakao net income falls", "earnings"),
        ("美 근원 CPI 3.3%", "US core inflation at 3.3%", "prices"),
        ("Korea's GDP shrinks 0.2%", "2분기 국내총생산 0.2% 감소", "output"),
        ("수도권 주택 공급 감소", "Housing supply in greater Seoul falls", "region"),
        # one scope: Seoul metropolitan area = 수도권 (서울·수도권 names the city too)
        ("수도권 아파트값 0.3% 상승", "Seoul-area apartment prices rise 0.3%", "region"),
        ("수도권 아파트값 5주 연속 상승", "Seoul metro area apartment prices up for 5th week", "region"),
        ("서울·수도권 아파트값 0.3% 상승", "Seoul apartment prices rise 0.3%", "region"),
        ("서울과 수도권 아파트값 상승", "Greater Seoul apartment prices rise", "region"),
        ("Global tablet shipments fall 5%", "세계 태블릿 출하량 5% 감소", "market"),
        ("Hyundai's U.S. sales rise 9%", "현대차 미국 판매 9% 증가", "market"),
        # a side naming two members shares one with the other side
        ("삼성전자 영업이익 10조…매출 80조", "Samsung operating profit 10 trillion won", "earnings"),
    ],
)
def test_the_same_measure_in_other_words_passes(
    gs: GuardSet, measures: PolarityGuard, a: str, b: str, family: str
) -> None:
    fa, fb = families(measures, a), families(measures, b)
    assert fa.get(family) and fa[family] & fb.get(family, set()), (fa, fb)
    assert not blocked_by(gs, a, b)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("Samsung Q3 earnings rise 20%", "earnings"),  # earnings, profit, 실적, 이익: no line named
        ("현대차 1분기 이익 15% 감소", "earnings"),
        ("US inflation cools to 3.1%", "prices"),  # inflation, 물가: no index named
        ("서울 아파트값 12주 연속 상승", "housing_price"),  # 아파트값: sale or jeonse unsaid
        ("Samsung profit jumps on strong chip sales", "earnings"),  # a cause, not the figure
        ("반도체 매출 호조에 이익 급증", "earnings"),
        ("수출입은행, 원자재 구매 지원", "trade"),  # a name
        ("농가 수입 10% 감소", "trade"),  # income, not imports
        ("Lithium deposits found in Nevada", "banking"),
        ("전세사기 피해 지원 확대", "housing_price"),
        ("Debt rises to 50% of GDP", "output"),  # a denominator
        ("Police arrest three men over fraud", "sex"),  # people, not a scope
        ("Woman, 40, killed by male partner", "sex"),  # one person's sex (review of the 29th session)
        ("It has to be a female betta", "sex"),
        # 남성 / 여성 naming one person, or inside a word, is no population scope
        ("여성 최초 대법원장 취임", "sex"),
        ("40대 여성, 흉기에 찔려 숨져", "sex"),
        ("남성 A씨 사기 혐의 구속", "sex"),
        ("여성가족부 장관 사퇴", "sex"),
        ("Hyundai holds global dealer conference", "market"),  # no figure after global
        ("Domestic violence reports rise 10%", "market"),
        ("전국민 지원금 지급", "region"),
        ("중기 재정 계획 발표", "firm_size"),  # medium-term, not SMEs
    ],
)
def test_words_that_name_no_measure(measures: PolarityGuard, text: str, absent: str) -> None:
    assert absent not in families(measures, text), families(measures, text)


@pytest.mark.parametrize(
    ("text", "family", "member"),
    [
        ("US core CPI rises", "prices", "core"),  # the longer name wins over CPI
        ("근원 소비자물가 2%", "prices", "core"),
        ("비수도권 미분양 증가", "region", "noncapital"),  # not 수도권
        ("당기순이익 1조", "earnings", "net"),
        ("Unemployment rate for men", "sex", "men"),
        ("Seoul apartment prices", "region", "seoul"),
        ("Apartment prices in Seoul metropolitan area", "region", "capital"),
    ],
)
def test_the_longest_name_decides(measures: PolarityGuard, text: str, family: str, member: str) -> None:
    assert families(measures, text).get(family) == {member}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("남성 A씨, 보이스피싱 혐의 구속", "여성 B씨, 보이스피싱 혐의 구속"),  # persons: other guards' to tell
        ("여성 최초 대법원장 취임", "First woman chief justice takes office"),
        ("40대 남성, 흉기 난동 후 체포", "40대 여성, 흉기 난동 후 체포"),
    ],
)
def test_one_persons_sex_is_no_scope(measures: PolarityGuard, a: str, b: str) -> None:
    """A veto needs a population reading on both sides (employment, wages, life expectancy of men vs
    women): 남성 / 여성 naming one person named a scope and vetoed such pairs."""
    assert "sex" not in families(measures, a) and "sex" not in families(measures, b)


def test_a_user_file_adds_a_family(tmp_path: Path) -> None:
    (tmp_path / "polarity.extra.toml").write_text(
        '[measures.fuel.gasoline]\nterms = ["휘발유", "gasoline"]\n[measures.fuel.diesel]\nterms = ["경유", "diesel"]\n',
        encoding="utf-8",
    )
    gs = GuardSet.from_rules(extra_dirs=[tmp_path], enabled=["polarity"])
    assert blocked_by(gs, "휘발유 가격 5주째 하락", "경유 가격 5주째 하락") == {
        "polarity": "polarity: measure fuel: 휘발유 vs 경유"
    }
    assert not blocked_by(
        GuardSet.from_rules(enabled=["polarity"]), "휘발유 가격 5주째 하락", "경유 가격 5주째 하락"
    )
