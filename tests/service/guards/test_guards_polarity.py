"""Polarity guard: opposite directions and stances block; the same direction merges."""

from __future__ import annotations

import pytest

from service.guards import GuardInput, GuardSet


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["polarity"])


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb", "ev"),
    [
        ("한은, 기준금리 인상", "ko", "한은, 기준금리 인하", "ko", "인상 vs 인하"),
        ("한은, 기준금리 동결", "ko", "BOK cuts rates", "en", "동결 vs cut"),
        ("코스피 급등", "ko", "코스피 급락", "ko", "급등 vs 급락"),
        ("Oil prices rise", "en", "Oil prices fall", "en", "rise vs fall"),
        ("Samsung confirms merger talks", "en", "Samsung denies merger talks", "en", "confirms vs denies"),
        ("삼성, 인수설 공식 발표했다", "ko", "삼성, 인수설 부인", "ko", "vs 부인"),
        ("[정정] 삼성전자 영업이익 10조", "ko", "삼성전자 영업이익 10조", "ko", "[정정]"),
        ("국회, 예산안 가결", "ko", "Parliament rejects budget", "en", "vs rejects"),
        # "안" glued to a noun is a bill or proposal (案), not the negation "안 ": the outcome stands
        ("정부, 전기요금 인상안 발표", "ko", "정부, 전기요금 인하안 발표", "ko", "인상 vs 인하"),
        ("여야, 예산안 통과 합의", "ko", "여야, 예산안 부결", "ko", "통과 vs 부결"),
        # outcomes and stages (research/notes/guards.md, "Outcome frames")
        ("법원, 전 대표 배임 혐의 무죄", "ko", "Court convicts ex-CEO of breach of trust", "en", "무죄 vs convicts"),
        ("Jury finds ex-mayor guilty of bribery", "en", "Jury finds ex-mayor not guilty of bribery", "en", "guilty vs"),
        ("검찰, 전 시장 뇌물 혐의 기소", "ko", "Ex-mayor convicted of bribery", "en", "기소 vs convicted"),
        ("카카오, 공정위 상대 소송서 승소", "ko", "카카오, 공정위 상대 소송서 패소", "ko", "승소 vs 패소"),
        ("Nvidia revenue beats estimates", "en", "엔비디아 매출, 시장 예상치 하회", "ko", "vs 하회"),
        ("IMF raises Korea growth forecast to 2%", "en", "IMF, 韓 성장률 전망 2%로 하향", "ko", "vs 하향"),
        ("정부, 대러 수출 제재 해제", "ko", "정부, 대러 수출 제재 부과", "ko", "해제 vs 부과"),
        ("Airline resumes flights to Tel Aviv", "en", "Airline suspends flights to Tel Aviv", "en", "resumes vs suspends"),
        ("총리, 사의 표명 후 사퇴", "ko", "총리 유임 결정", "ko", "사퇴 vs 유임"),
        ("Senators introduce bill to ban TikTok", "en", "Senate passes bill to ban TikTok", "en", "vs passes"),
        ("호주, 청소년 SNS 금지 계획 발표", "ko", "Australia's teen social media ban takes effect", "en", "계획 vs takes effect"),
    ],
)
def test_flipped_stories_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert v.blocked and v.decided, v
    assert v.evidence.startswith("polarity: ") and ev in v.evidence


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("한은, 기준금리 인상", "ko", "BOK raises rates", "en"),
        ("코스피 급등", "ko", "KOSPI surges", "en"),
        ("Oil prices rise", "en", "Oil prices jumped", "en"),
        ("Stocks fall as bonds rise", "en", "Bonds rise", "en"),  # mixed evidence never blocks
        ("법원, 전 대표 배임 혐의 무죄", "ko", "Court acquits ex-CEO of breach of trust", "en"),
        ("엔비디아 매출, 예상치 상회", "ko", "Nvidia revenue tops expectations", "en"),
        ("IMF, 韓 성장률 전망 상향", "ko", "IMF upgrades Korea growth outlook", "en"),
        # a plea is not a verdict: "pleads not guilty" is not an acquittal of the indicted
        ("검찰, 전 시장 뇌물 혐의 기소", "ko", "Ex-mayor indicted on bribery charges, pleads not guilty", "en"),
    ],
)
def test_same_direction_passes(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked and v.decided, v


@pytest.mark.parametrize(
    ("ta", "tb"),
    [
        ("금리 인상하지 않기로", "금리 인하"),  # negated: no evidence
        ("금리 인상 안 한다", "금리 인하"),  # "안" as a word of its own negates
        ("인하대 입학식", "금리 인상"),  # Inha University is not a rate cut
        ("첫인상이 중요하다", "금리 인하"),
        ("Apple ships iPhone", "Samsung ships Galaxy"),
        ("개정 시행령 입법예고", "공사 계획 발표"),  # an enforcement decree is not an entry into force
    ],
)
def test_steps_aside(gs: GuardSet, ta: str, tb: str) -> None:
    (v,) = gs.check(side(ta, "ko"), side(tb, "ko"))
    assert not v.blocked and not v.decided, v


# Frames from the hand sets' last false merges (research/notes/guards.md, "General frames"): each
# with other words and names than the pair it came from, in both languages where it applies.
@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb", "ev"),
    [
        # the governing against the opposition side
        ("Japan's ruling party picks new leader in runoff vote", "en",
         "Japan's main opposition party picks new leader in runoff vote", "en", "ruling party vs main opposition"),
        ("여당, 새 원내대표 선출", "ko", "야당, 새 원내대표 선출", "ko", "여당 vs 야당"),
        ("집권당 대표 선출", "ko", "UK opposition party elects new leader", "en", "집권당 vs opposition party"),
        ("與 \"30조 추경 편성 추진\"", "ko", "野 \"30조 추경 편성 추진\"", "ko", "여당 vs 야당"),  # Hanja read in Hangul
        # an application filed against the approval
        ("FDA accepts Eli Lilly application for obesity pill", "en", "FDA approves Eli Lilly obesity pill", "en",
         "application vs approves"),
        ("식약처, 셀트리온 신약 허가 신청 접수", "ko", "식약처, 셀트리온 신약 허가", "ko", "vs 허가"),
        ("Pfizer files for approval of RSV vaccine", "en", "화이자 RSV 백신, 식약처 승인", "ko", "vs 승인"),
        # a rumour against a signed, disclosed deal
        ("SK하이닉스, 엔비디아에 HBM4 독점 공급설", "ko", "SK하이닉스, 엔비디아와 HBM4 공급계약 체결 공시", "ko", "공급설 vs 체결"),
        ("Samsung reportedly in talks to buy Harman rival", "en", "삼성전자, 하만 경쟁사 인수 계약 체결", "ko", "vs 체결"),
        ("LG엔솔, GM과 합작설", "ko", "LG Energy signs joint venture deal with GM", "en", "vs signs"),
        # growth against a fall, and a flight's incidents
        ("China's exports slow to 2.1% growth in October", "en", "中 10월 수출 2.1% 감소", "ko", "2.1% growth vs 감소"),
        ("3분기 GDP 0.6% 성장", "ko", "Q3 GDP shrinks 0.6%", "en", "vs shrinks"),
        ("Jeju Air plane skids off runway at Muan airport", "en", "제주항공 여객기, 무안공항 비상착륙 성공", "ko",
         "skids off runway vs 비상착륙"),
        ("아시아나 여객기, 엔진 이상으로 회항", "ko", "Asiana jet makes emergency landing after engine trouble", "en",
         "회항 vs emergency landing"),
        # pressure to resign is the setting, the outcome is the other word
        ("카카오 대표, 사퇴 압박 속 유임", "ko", "Kakao CEO resigns amid pressure", "en", "유임 vs resigns"),
        ("Minister refuses to resign despite calls to quit", "en", "장관, 결국 사퇴", "ko", "refuses to resign vs 사퇴"),
    ],
)
def test_general_frames_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str, ev: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert v.blocked and v.decided, v
    assert ev in v.evidence, v


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("Japan's ruling party picks new leader", "en", "일본 집권 여당, 새 총재 선출", "ko"),
        ("여야, 내년 예산 합의", "ko", "Ruling and opposition parties agree on budget", "en"),  # both sides: no clash
        ("FDA approves Eli Lilly obesity pill", "en", "FDA, 일라이 릴리 비만약 승인", "ko"),
        ("SK하이닉스, 엔비디아와 HBM4 공급계약 체결", "ko", "SK Hynix signs HBM4 supply deal with Nvidia", "en"),
        ("China's exports grew 2.1% in October", "en", "中 10월 수출 2.1% 증가", "ko"),
        ("카카오 대표, 사퇴 압박 속 유임", "ko", "Kakao CEO stays on despite pressure to resign", "en"),
    ],
)
def test_general_frames_pass_the_same_report(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked and v.decided, v


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("삼성전자, 보도자료 배포", "ko", "삼성전자, 공급계약 체결", "ko"),  # a press release is no rumour
        ("Economy shows signs of recovery", "en", "경기 회복 보도", "ko"),  # "signs of" is no signature
        ("현대차, 계약 체결 임박", "ko", "현대차 인수설", "ko"),  # a deal pending is not a deal signed
        ("의원들, 장관 사퇴 촉구", "ko", "장관 유임 결정", "ko"),  # calls to resign state no outcome
    ],
)
def test_context_words_are_no_outcome(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    (v,) = gs.check(side(ta, la), side(tb, lb))
    assert not v.blocked, v


def test_a_regex_phrase_wins_over_a_plain_word_at_the_same_place(gs: GuardSet) -> None:
    # "rejects" alone is a vote or an offer refused; "rejects ... resignation" keeps the office
    (v,) = gs.check(side("Board rejects CEO's resignation", "en"), side("CEO steps down", "en"))
    assert v.blocked and "rejects ceo's resignation vs steps down" in v.evidence, v


@pytest.mark.parametrize(("ta", "la", "tb", "lb", "blocks"), [
    # a distance or a jump is no fall: "45마일(72킬로미터) 떨어진 곳" is 45 miles away
    ("수도에서 45마일(72킬로미터) 떨어진 곳의 화산 활동 증가", "ko",
     "An increase in activity at the volcano 45 miles from the capital", "en", False),
    ("바그다드에서 북쪽으로 약 240km 떨어진 지역에서 자폭 테러", "ko", "Suicide bomber hits rally 150 miles north of Baghdad",
     "en", False),
    ("그는 관제탑에서 뛰어내렸다", "ko", "He jumped off the control tower", "en", False),
    # a figure that fell still fell
    ("코스피 40포인트 떨어져 마감", "ko", "Kospi rises 40 points", "en", True),
])
def test_a_distance_or_a_jump_states_no_fall(gs: GuardSet, ta: str, la: str, tb: str, lb: str, blocks: bool) -> None:
    assert bool(gs.blocked(gs.check(side(ta, la), side(tb, lb)))) is blocks


@pytest.mark.parametrize(("ta", "la", "tb", "lb", "blocks"), [
    # a club moved up or down (the eighth user's tour: these merged)
    ("Suwon Samsung Bluewings promoted to K League 1", "en", "Suwon Samsung Bluewings relegated from K League 1", "en", True),
    ("수원 삼성, K리그1 승격 확정", "ko", "Suwon Samsung Bluewings promoted to K League 1", "en", False),
    ("수원 삼성, K리그1 승격 확정", "ko", "Suwon Samsung Bluewings relegated from K League 1", "en", True),
    # an order won or lost; "수주 실패" is no win
    ("Ulsan shipyard wins LNG carrier order", "en", "울산 조선소, LNG 운반선 수주 실패", "ko", True),
    ("Ulsan shipyard wins LNG carrier order", "en", "울산 조선소, LNG 운반선 수주", "ko", False),
    ("Hanwha Ocean wins $1.2 billion order for LNG carriers", "en", "Hanwha Ocean loses $1.2 billion LNG carrier order", "en", True),
    ("Samsung Heavy fails to win LNG carrier order", "en", "삼성중공업, LNG선 수주 실패", "ko", False),
])
def test_promotion_and_orders_won_or_lost(gs: GuardSet, ta: str, la: str, tb: str, lb: str, blocks: bool) -> None:
    assert ("polarity" in gs.blocked(gs.check(side(ta, la), side(tb, lb)))) is blocks


@pytest.mark.parametrize(("ta", "la", "tb", "lb", "blocks"), [
    # put into or removed from an office (tests/data/frame_pairs.jsonl's frames, other sentences)
    ("Hyundai appoints new head of design", "en", "Hyundai fires head of design", "en", True),
    ("해수부 장관에 최모 의원 임명", "ko", "Oceans minister sacked after ferry fire", "en", True),
    ("롯데, 신임 대표에 외부 인사 선임", "ko", "Lotte names outsider as new CEO", "en", False),
    ("KIST 선임연구원, 국제학회 최우수 논문상", "ko", "KIST 연구원 경질", "ko", False),  # 선임연구원 is a rank
    # a forced exit is reported both ways: fired and resigned are one pole; fired against kept is not
    ("Chipmaker CEO ousted by board", "en", "Chipmaker CEO steps down", "en", False),
    ("감독 전격 경질", "ko", "Coach stays on despite losing streak", "en", True),
    # taken into custody or let out; 구속 against 불구속; 보석 is also a jewel
    ("경찰, 마약 투약 배우 체포", "ko", "Actor released on bail in drug case", "en", True),
    ("검찰, 전 시장 구속 기소", "ko", "검찰, 전 시장 불구속 기소", "ko", True),
    ("루브르 보석 도난 용의자 검거", "ko", "Police arrest Louvre jewel theft suspect", "en", False),
    # bans imposed or lifted ("금지 해제" is a lift, not a ban)
    ("Vietnam bans e-cigarettes", "en", "베트남, 전자담배 금지 해제", "ko", True),
    ("베트남, 전자담배 금지 해제", "ko", "Vietnam lifts ban on e-cigarettes", "en", False),
    # a draw against a match decided; won and lost share a pole
    ("FC서울, 포항과 1-1 무승부", "ko", "FC Seoul beat Pohang", "en", True),
    ("FC서울, 포항에 패배", "ko", "Pohang beat FC Seoul", "en", False),
    ("Brazil held to a goalless draw by Peru", "en", "브라질, 페루와 0-0 비겨", "ko", False),
    # a shop or a border opened or closed; "shares close" is no closure
    ("Uniqlo opens flagship store in Myeongdong", "en", "유니클로 명동 플래그십 매장 폐점", "ko", True),
    ("Kospi closes higher on chip rally", "en", "Kospi opens flat", "en", False),
    # joining against leaving
    ("Hungary quits International Criminal Court", "en", "헝가리, 국제형사재판소 가입", "ko", True),
    ("황희찬, 울버햄튼 합류", "ko", "Hwang Hee-chan joins Wolves", "en", False),
    # first against again; "X년 만에 처음" is an again
    ("Gold hits $3,000 an ounce for the first time", "en", "금값, 다시 온스당 3000달러", "ko", True),
    ("코스피, 3년 만에 처음 3000 돌파", "ko", "Kospi tops 3,000 again", "en", False),
    # prices raised or cut in English verbs
    ("Starbucks raises coffee prices in Korea", "en", "스타벅스, 커피 가격 인하", "ko", True),
    ("Starbucks raises coffee prices in Korea", "en", "스타벅스, 커피 가격 인상", "ko", False),
    # held against put off ("출시 연기" is no launch)
    ("현대차, 신형 전기차 출시", "ko", "Hyundai delays new EV launch", "en", True),
    ("현대차, 신형 전기차 출시 연기", "ko", "Hyundai delays new EV launch", "en", False),
])
def test_new_outcome_frames(gs: GuardSet, ta: str, la: str, tb: str, lb: str, blocks: bool) -> None:
    assert ("polarity" in gs.blocked(gs.check(side(ta, la), side(tb, lb)))) is blocks


@pytest.mark.parametrize(("ta", "la", "tb", "lb"), [
    # one report in other senses of the new frames' words (review of the frames, 2026-12-07)
    ("Defender leaves Napoli for Bayern", "en", "수비수, 바이에른 입단", "ko"),  # a transfer
    ("Streaming price hike leaves subscribers angry", "en", "스트리밍 요금 인상에 가입자 불만", "ko"),  # 가입자: subscribers
    ("Airline flies to Rome for the first time after pandemic", "en", "항공사, 팬데믹 이후 로마 노선 다시 운항", "ko"),
    ("코스피, 2021년 이후 처음 3000 돌파", "ko", "Kospi tops 3,000 again", "en"),
    ("UPS cuts shipping fees for small firms", "en", "UPS, 소상공인 배송료 인하", "ko"),  # the carrier, no verb
    ("Delivery startups cut fees for restaurants", "en", "배달 스타트업, 식당 수수료 인하", "ko"),  # no "ups" inside a word
    ("Travel bans lifted as outbreak ebbs", "en", "여행 금지 해제", "ko"),
    ("Court rejects arrest warrant for ex-mayor", "en", "전 시장 구속영장 기각…불구속 수사", "ko"),
    ("Ceasefire talks: prime minister upbeat", "en", "총리 취임 후 첫 휴전 협상", "ko"),
    ("Court dismisses lawsuit against president over appointment", "en", "법원, 대통령 임명 관련 소송 각하", "ko"),
    ("Carmaker discloses Shanghai plant expansion", "en", "자동차회사, 상하이 공장 개장", "ko"),
    ("Gunman opens fire near station", "en", "역 인근 총격…역 폐쇄", "ko"),
    ("Typhoon leaves 3 dead", "en", "태풍으로 3명 사망…군 병력 구조 작업 합류", "ko"),  # a toll, no membership
    ("Premier leaves summit early", "en", "총리, 정상회의 합류 하루 만에 조기 귀국", "ko"),
])
def test_the_new_frames_words_in_other_senses_state_no_outcome(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    assert "polarity" not in gs.blocked(gs.check(side(ta, la), side(tb, lb)))


@pytest.mark.parametrize(("ta", "la", "tb", "lb"), [
    # the second frames pass (tests/data/frame_pairs_2.jsonl's frames, other sentences)
    ("Governor Kim wins re-election", "en", "김 지사 낙선", "ko"),
    ("Ex-minister loses Senate race", "en", "전 장관 상원 선거 당선", "ko"),
    ("Mayor loses re-election bid", "en", "Mayor wins re-election", "en"),  # no order lost
    ("누리호 발사 성공", "ko", "Nuri rocket launch fails", "en"),
    ("LG Energy enters Indian market", "en", "LG에너지, 인도 시장 철수", "ko"),
    ("대표팀, 본선 진출", "ko", "대표팀, 본선 진출 좌절", "ko"),
    ("Toyota ramps up output in Texas", "en", "도요타, 텍사스 공장 감산", "ko"),
    ("Krafton hires 300 engineers", "en", "크래프톤, 엔지니어 300명 감원", "ko"),
    ("카카오게임즈, 코스닥 상장", "ko", "Kakao Games delisted from Kosdaq", "en"),
    ("기관, 삼성전자 순매수", "ko", "기관, 삼성전자 순매도", "ko"),
    ("Court allows rally near embassy", "en", "법원, 대사관 인근 집회 불허", "ko"),
    ("Railway union goes on strike", "en", "철도노조, 파업 철회", "ko"),
    ("철도노조, 파업 예고", "ko", "철도노조, 파업 돌입", "ko"),
    ("Fisherman survives capsizing off Jeju", "en", "제주 해상 어선 전복…어부 숨져", "ko"),
    ("Worker injured in Ulsan plant blast", "en", "울산 공장 폭발 부상자 끝내 숨져", "ko"),
    ("Actor hospitalized after car crash", "en", "배우, 교통사고 후 퇴원", "ko"),
    ("실종 어민 수색 사흘째", "ko", "실종 어민 숨진 채 발견", "ko"),
    ("Wildfire breaks out near Andong", "en", "안동 산불 주불 진화", "ko"),
    ("Trial of ex-Samsung executive begins", "en", "전 삼성 임원 징역 3년 선고", "ko"),
    ("KEPCO posts third-quarter operating profit", "en", "한전, 3분기 영업손실", "ko"),
    ("Korea's trade surplus widens", "en", "Korea's trade deficit widens", "en"),
    ("Spotify adds 5 million subscribers", "en", "Spotify loses 5 million subscribers", "en"),
    ("Samsung raises quarterly dividend", "en", "Samsung cuts quarterly dividend", "en"),
    ("Court upholds impeachment of president", "en", "Court dismisses impeachment of president", "en"),
    ("Hyundai prevails in patent lawsuit", "en", "현대차, 특허소송 패소", "ko"),
    ("기상청, 호우경보 발령", "ko", "기상청, 호우경보 해제", "ko"),
    ("한국거래소, 주식 거래 재개", "ko", "한국거래소, 주식 거래 정지", "ko"),
    ("Fuel tax cut extended to year-end", "en", "Fuel tax cut expires at year-end", "en"),
    ("대통령, 장관 사의 수용", "ko", "대통령, 장관 사의 반려", "ko"),
    ("Everton avoid relegation", "en", "Everton relegated", "en"),
    ("Police name suspect in Busan stabbing", "en", "Police arrest suspect in Busan stabbing", "en"),
    ("Korea signs plastics treaty", "en", "Korea withdraws from plastics treaty", "en"),
])
def test_second_pass_outcome_frames(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    assert gs.blocked(gs.check(side(ta, la), side(tb, lb))) == ["polarity"]


@pytest.mark.parametrize(("ta", "la", "tb", "lb"), [
    # one report: the same pole in other words, or the frames' words in other senses
    ("Jury acquits ex-officer", "en", "Ex-officer found not guilty", "en"),
    ("Supreme Court upholds acquittal", "en", "대법, 무죄 확정", "ko"),
    ("OPEC+ agrees to cut oil output", "en", "OPEC+, 원유 감산 합의", "ko"),
    ("Korea blocks access to Telegram", "en", "방통위, 텔레그램 접속 차단", "ko"),
    ("President rejects prime minister's resignation", "en", "대통령, 총리 사의 반려", "ko"),
    ("Nexon cuts 500 jobs", "en", "넥슨, 500명 감원", "ko"),
    ("Netflix loses 5 million subscribers", "en", "넷플릭스 가입자 500만명 감소", "ko"),
    ("Ceasefire extended as talks resume", "en", "휴전 연장…협상 재개", "ko"),
    ("Gunman opens fire at market, two injured", "en", "시장서 총격…2명 부상", "ko"),
    ("Hyundai extends lead in US EV sales", "en", "현대차, 미국 전기차 판매 격차 확대", "ko"),  # a lead, no duration
    ("Honda profit beats estimates despite loss of market share", "en", "혼다, 점유율 하락에도 이익 예상치 상회", "ko"),
    ("Bus crash kills 2, injures 10", "en", "버스 추락…2명 숨지고 10명 다쳐", "ko"),  # a toll holds both
    ("10 injured in bus crash", "en", "버스 사고로 2명 숨지고 10명 다쳐", "ko"),
    ("안철수, 경선 결선 진출", "ko", "Ahn Cheol-soo advances to runoff", "en"),  # 안철수 is a name
    ("Ex-CEO behind bars", "en", "전 대표, 법정 구속…집회 허용 논란", "ko"),  # no "bars X from"
    ("Police search for missing hiker", "en", "경찰, 실종 등산객 수색", "ko"),
    ("검찰, 본사 압수수색", "ko", "Prosecutors raid headquarters; documents found", "en"),  # a raid, no search for the missing
    ("Year-end rally lifts Kospi", "en", "연말 랠리에 코스피 상승", "ko"),  # year-end is no ending
    ("AI 진화 속도 빨라져", "ko", "Fire breaks out at data center", "en"),  # 진화: evolution
    ("급부상한 AI 스타트업", "ko", "AI startup injured by lawsuit costs", "en"),  # 급부상: rising
    ("Stocks at large caps rise", "en", "대형주 상승, 용의자 검거", "ko"),  # "at large" is no suspect at large
])
def test_second_pass_same_pole_and_other_senses_do_not_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    assert "polarity" not in gs.blocked(gs.check(side(ta, la), side(tb, lb)))


@pytest.mark.parametrize(("ta", "la", "tb", "lb"), [
    # review of the frames passes: the new words in other senses, in invented copies (each vetoed before)
    ("Unexploded WWII bomb successfully defused in Seoul", "en", "서울 공사장서 2차대전 불발탄 발견…안전하게 해체", "ko"),
    ("Maersk profit jumps as crisis in the Red Sea lifts freight rates", "en", "머스크, 홍해 사태에 운임 올라 순이익 급증", "ko"),
    ("Ukraine's trade gap widens as attacks in the Black Sea choke grain exports", "en", "흑해 공격에 우크라이나 무역 적자 확대", "ko"),
    ("Two tourists hurt in Dead Sea flash flood", "en", "사해 돌발 홍수로 관광객 2명 다쳐", "ko"),
    ("Government creates 10,000 jobs, FSS says", "en", "금감원 \"일자리 1만개 창출\"", "ko"),
    ("Kids allowed to wear sunscreen at school", "en", "학교서 어린이 자외선 차단제 사용 가능해져", "ko"),
    ("Fukushima discharged treated water, hitting fishermen's main source of income", "en",
     "후쿠시마 오염수 방류…어민 주 수입원 타격", "ko"),
    ("Police quell illegal protest as wildfires rage nearby", "en", "산불 번지는 가운데 경찰, 불법 시위 진압", "ko"),
    ("Plant restarted after government financial aid", "en", "정부 재정지원 받은 공장 가동 다시 시작", "ko"),
])
def test_review_words_in_other_senses_state_no_outcome(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    assert "polarity" not in gs.blocked(gs.check(side(ta, la), side(tb, lb)))


@pytest.mark.parametrize(("ta", "la", "tb", "lb"), [
    # ... while the outcomes those words state still flip the report
    ("Summit bid succeeds", "en", "정상회담 불발", "ko"),
    ("Airline stays in the red for third quarter", "en", "항공사, 3분기 연속 흑자", "ko"),
    ("Two injured in crash", "en", "Two dead in crash", "en"),
    ("Samsung hires 500", "en", "삼성, 500명 감원", "ko"),
    ("Court allows rally", "en", "법원, 집회 차단", "ko"),
    ("Minister discharged", "en", "장관 입원", "ko"),
    ("Fire breaks out at Busan factory", "en", "부산 공장 불 진화", "ko"),
    ("부산 공장서 불이 발생", "ko", "부산 공장 화재 진화", "ko"),
    ("한국거래소, 주식 거래 재개", "ko", "한국거래소, 주식 거래정지", "ko"),
])
def test_review_outcomes_still_flip(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    assert gs.blocked(gs.check(side(ta, la), side(tb, lb))) == ["polarity"]
