"""Seventh frames pass (tests/data/frame_pairs_7.jsonl): an act considered or signalled against one
done or decided, a denial against the report it denies (one-sided markers, headline-sized texts
only), pursued / decided, instruments, bond kinds, share classes and coins, periods, competitions; and
the same words in other senses or in long sentences. Other sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from service.guards.polarity import PolarityGuard
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "evidence"),
    [
        # modality: considered / signalled / may against done, pursued against decided
        ("ECB weighs end to bond purchases", "ECB ends bond purchases", "(no considered)"),
        ("한전, 전기요금 인상 검토", "한전, 전기요금 인상", "(no considered)"),
        ("Intel may cut 15,000 jobs", "Intel cuts 15,000 jobs", "(no considered)"),
        ("Nvidia mulls Israel data center", "엔비디아, 이스라엘 데이터센터 건립", "(no considered)"),
        ("한국은행, 추가 인하 가능성 시사", "한국은행, 기준금리 추가 인하", "(no considered)"),
        ("쿠팡, 대만 물류센터 건립 추진", "쿠팡, 대만 물류센터 건립 확정", "추진 vs 확정"),
        # denial against the report
        ("Hybe to sell stake in SM: sources", "Hybe denies plan to sell stake in SM", "(no denial)"),
        ("네이버, 라인 지분 매각 검토", "네이버 \"라인 지분 매각 결정된 바 없다\"", "(no denial)"),
        ("Meta rules out return to China", "Meta plans return to China", "(no denial)"),
        ("Police deny leaking suspect's name", "경찰, 피의자 실명 유출", "(no denial)"),
        ("Lotte denies liquidity crisis rumor", "롯데, 유동성 위기설", "(no denial)"),
        ("연준, 금리 인하할 수도", "Fed cuts rates", "(no considered)"),
        ("Board to review merger proposal", "Board approves merger", "(no considered)"),
        # instruments, bond kinds, share classes, coins
        ("LG Chem raises 1 trillion won via rights offering", "LG Chem raises 1 trillion won via bond sale", "instrument"),
        ("카카오, 5천억 교환사채 발행", "카카오, 5천억 신주인수권부사채 발행", "bond_kind"),
        ("Pension fund sells 2 trillion won of domestic equities", "연기금, 국내 채권 2조원 매도", "instrument"),
        ("현대차 우선주 20% 급등", "현대차 보통주 20% 급등", "share_class"),
        ("솔라나 ETF에 하루 5억달러 유입", "Ether ETF draws $500 million in a day", "coin"),
        # periods
        ("SK하이닉스, 2분기 영업이익 5조원", "SK하이닉스, 상반기 영업이익 5조원", "period"),
        ("Car exports rise 9% in first 20 days of May", "Car exports rise 9% in May", "period"),
        ("반도체 수출, 올해 누적 1000억달러", "반도체 수출, 11월 1000억달러", "period"),
        ("KOSDAQ falls 4% this week", "코스닥, 이달 4% 하락", "period"),
        ("Toyota's annual profit doubles", "Toyota's quarterly profit doubles", "period"),
        # competitions
        ("Jeonbuk beat Pohang 3-1 in Korea Cup", "Jeonbuk beat Pohang 3-1 in K League 1", "competition"),
        ("Gen.G beat T1 3-2 in MSI final", "젠지, 롤드컵 결승서 T1 3-2 제압", "competition"),
        ("Korea draw with Iraq in World Cup qualifier", "한국, 이라크와 평가전서 무승부", "competition"),
        ("김효주, LPGA 투어 우승", "김효주, KLPGA 투어 우승", "competition"),
        ("Shin Yu-bin beats Hina Hayata at Asian Games", "신유빈, 하야타 꺾고 올림픽 동메달", "competition"),
    ],
)
def test_the_seventh_pass_frames_block(gs: GuardSet, a: str, b: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert "polarity" in got and evidence in got["polarity"], got


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same modality, period, instrument or competition in other words
        ("ECB weighs end to bond purchases", "ECB mulls ending bond purchases"),
        ("한전, 전기요금 인상 검토", "KEPCO considering electricity rate hike"),
        ("Hybe denies plan to sell stake in SM", "하이브, SM 지분 매각설 부인"),
        ("카카오, 5천억 교환사채 발행", "Kakao issues 500 billion won of EBs"),
        ("현대차, 5천억 전환사채 발행", "Hyundai issues 500 billion won in convertible bonds"),
        ("EcoPro BM raises 1 trillion won via rights offering", "에코프로비엠, 1조원 유상증자"),
        ("SK하이닉스, 2분기 영업이익 5조원", "SK Hynix Q2 operating profit hits 5 trillion won"),
        ("Bitcoin gains 30% this year", "비트코인, 올해 누적 30% 상승"),
        ("손흥민, UCL서 멀티골", "Son scores twice in Champions League"),
        ("Chelsea beat Liverpool in Carabao Cup final", "Chelsea beat Liverpool in League Cup final"),
        ("전북, 코리아컵 결승서 포항 꺾어", "전북, FA컵 결승서 포항 꺾어"),
        # a generic bond against its kind, a mixed period, a denial and a rumour on both sides
        ("롯데, 3000억원 전환사채 발행", "Lotte sells 300 billion won of bonds"),
        ("올해 5월 수출 7% 증가", "Exports rise 7% in May"),
        # the words in other senses: a weight, a player ruled out, a firm's name, an annual meeting
        ("The baby weighs 3 kilograms", "아기 몸무게는 3킬로그램이다"),
        ("Hwang ruled out of Iraq game with injury", "황희찬, 부상으로 이라크전 결장"),
        ("삼성전자 주식회사, 신임 사외이사 선임", "Samsung Electronics names new outside director"),
        ("Netflix's annual meeting this week", "넷플릭스 연례 주주총회 이번 주 개최"),
        # review of the full dev run: market moves, a wife, a passive, a venue, part of a month, a noun
        ("World stocks fall after weak China exports", "China's first bond default rattles markets"),
        ("제시 잭슨 주니어와 아내, 사기죄 인정", "제시 잭슨 주니어, 부인, 사기죄 인정"),
        ("Sharks are not considered dangerous", "상어는 위험하다고 여겨지지 않는다"),
        ("Zheng reaches semifinals at the All England Club", "정친원, 윔블던 준결승 진출"),
        ("Warm weather through the first half of October", "10월 초순까지 따뜻한 날씨"),
        ("Sinhala has a four-way deixis system", "신할라어는 4가지 방식의 지시사 체계를 가진다"),
        ("Yes, it is hard to publish in a peer-reviewed journal", "네, 동료 검토 저널에 게재하기는 어렵다"),
        # review 2 of the pass: copies it vetoed. Market subjects weigh news; a regard, not a review;
        # evidence reviewed; a refusal, not a denial; plural "deny"; 사실 아냐; 우려 일축 is no denial
        # of a report; the Korean hedges of "may"; "looks set to" before a verb "may" does not read;
        # "to review" a proposal; a stadium or a park named after the games is a venue
        ("Stocks mixed as investors weigh Fed comments", "증시 혼조…연준 발언 주시"),
        ("Oil prices rise as traders weigh supply risks", "유가, 공급 위험에 상승"),
        ("Musk considers Twitter a town square", "머스크, 트위터를 광장으로 여겨"),
        ("Police reviewing CCTV footage", "경찰, CCTV 영상 분석 중"),
        ("Police reviewing CCTV footage in murder case", "경찰, 살인 사건 CCTV 검토"),
        ("Apple was denied a patent for its headset", "애플 헤드셋 특허 거절돼"),
        ("Court denies bail for ex-minister", "법원, 전 장관 보석 기각"),
        ("Visa denied for Korean singer", "한국 가수 비자 거부"),
        ("Police deny wrongdoing in crowd crush", "경찰, 압사 사고 책임 부인"),
        ("Samsung: 'Report on HBM failure not true'", "삼성 \"HBM 테스트 탈락 보도 사실 아냐\""),
        ("Fed chair dismisses recession fears", "연준 의장, 경기침체 우려 일축"),
        ("Fed may cut rates in September", "연준, 9월 금리 인하할 수도"),
        ("Apple could delay iPhone launch", "애플, 아이폰 출시 연기 가능성"),
        ("Fed could pause rate hikes", "연준, 금리 인상 멈출 듯"),
        ("Samsung looks set to beat estimates", "삼성전자, 시장 예상 웃돌 듯"),
        ("Board to review merger proposal", "이사회, 합병안 검토"),
        ("정부, 정책 재검토", "Government to review policy again"),
        ("FC Seoul beat Ulsan 2-1 in K League 1", "FC서울, 서울월드컵경기장서 울산 2-1 제압"),
        ("Seoul beat Ulsan at World Cup Stadium", "FC서울, K리그1서 울산 제압"),
        # a denial or a review inside a long sentence is not the report's frame
        (
            "정부는 북한 선박의 영해 운항을 금지하는 방안을 검토하고 있다고 해양수산부 관계자가 오늘 오후 기자들에게 밝혔다.",
            "The government is preparing a plan to ban North Korean ships from its waters, a maritime ministry official told reporters this afternoon.",
        ),
    ],
)
def test_the_seventh_pass_frames_pass_copies_and_other_senses(gs: GuardSet, a: str, b: str) -> None:
    assert not blocked_by(gs, a, b)


def test_markers_scanned_with_the_measures_count_on_headline_sized_texts_only() -> None:
    """A [measure_markers] marker is compared only when both texts have at most max_words words."""
    rules = {
        "axes": {"dummy": {"x": {"terms": ["xx"]}, "y": {"terms": ["yy"]}}},
        "measures": {"m": {"p": {"terms": ["pp"]}, "q": {"terms": ["qq"]}}},
        "measure_markers": {"denial": {"terms": ["denies"]}},
        "measure_marker_settings": {"max_words": 4},
    }
    g = PolarityGuard(rules)
    assert g.measures is not None and g.measures.marker_max_words == 4
    assert g.measures._compare("Acme denies merger", "Acme merger")[0] == ["denies vs (no denial)"]
    assert g.measures._compare("Acme denies merger talks with Beta", "Acme merger")[0] == []
