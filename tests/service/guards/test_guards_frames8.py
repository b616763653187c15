"""Eighth frames pass (tests/data/frame_pairs_8.jsonl): outcomes said in other words (혐의 벗어 /
실형, 시공권 따내 / 놓쳐, 유치 성공 / 고배, cleared / rebuffed by a regulator, clears / stalls in
committee, seals a sale / the sale unravels, reaches orbit / crashes after liftoff, aces / flunks,
averts a strike / it goes ahead, 회수 명령 / 해제); and the pass's copy-side self-check: copies with
these words on one side only or in two spellings, and Korean group affiliates whose English name
translates the trade word (LG화학 / LG Chem). Other sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "evidence"),
    [
        # cleared against convicted
        ("가수 C씨, 사기 혐의 벗어", "가수 C씨, 사기 혐의 실형", "혐의 벗어 vs 실형"),
        ("Judge clears her of insider trading", "Judge convicts her of insider trading", "clears her of vs convicts"),
        # contracts and host bids won or lost
        ("대우건설, 체코 원전 시공권 따내", "대우건설, 체코 원전 시공권 놓쳐", "따내 vs"),
        ("광주, 유니버시아드 유치 확정", "광주, 유니버시아드 유치 고배", "유치 확정 vs"),
        ("Doosan's bid for Saudi turbine order comes up short", "Doosan lands Saudi turbine order", "comes up short vs"),
        ("LG CNS, 차세대 시스템 우선협상대상자 선정", "LG CNS, 차세대 시스템 우선협상대상자 선정서 탈락", "선정 vs"),
        ("Osaka wins race to host 2031 Games", "Osaka beaten in race to host 2031 Games", "vs beaten in"),
        ("Labour claims victory in Welsh vote", "Labour concedes defeat in Welsh vote", "claims victory vs"),
        # regulators, committees, shareholders
        ("Nexon's buyout cleared by Japanese regulator", "Nexon's buyout rebuffed by Japanese regulator", "cleared by vs"),
        ("Crypto bill clears Senate banking committee", "Crypto bill stalls in Senate banking committee", "vs stall"),
        ("부산시의회, 공공기관 통폐합 조례 의결", "부산시의회, 공공기관 통폐합 조례 처리 불발", "의결 vs"),
        ("Shareholders back Kakao spin-off", "Shareholders vote down Kakao spin-off", "back vs vote down"),
        # sales and launches
        ("Posco seals sale of Chinese steel mill", "Posco's sale of Chinese steel mill falls apart", "seals sale vs"),
        ("SK, 美 자회사 매각 계약 마무리", "SK, 美 자회사 매각 계약 막판 좌초", "마무리 vs"),
        ("Perigee rocket reaches orbit on first launch", "Perigee rocket crashes after liftoff on first launch", "vs crashes after liftoff"),
        # exams, strikes, recall orders
        ("Teen aces bar exam", "Teen flunks bar exam", "aces bar exam vs flunks"),
        ("Deal averts Busan subway strike", "Busan subway strike goes ahead", "averts busan subway strike vs"),
        ("Nurses call off walkout at Seoul hospitals", "Nurses walk off the job at Seoul hospitals", "call off walkout vs"),
        ("식약처, 탈모 샴푸 회수 명령", "식약처, 탈모 샴푸 회수 명령 해제", "회수 명령 vs"),
    ],
)
def test_the_eighth_pass_outcomes_block(gs: GuardSet, a: str, b: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert "polarity" in got and evidence in got["polarity"], got


# The 20 most telling copies of the pass's self-check (177 invented copies, research/notes/guards.md
# "Frames pass 8"): each new word on one side only, against another word of its axis, or in another
# sense; and the affiliates whose copies the who guard vetoed before.
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("배우 A씨, 마약 혐의 벗어", "검찰, 배우 A씨 마약 혐의 무혐의 처분"),
        ("전 대표, 횡령 혐의 모두 벗어", "Ex-CEO acquitted of all embezzlement charges"),
        ("Hanwha Ocean wins $1 billion LNG carrier order", "한화오션, LNG선 4척 수주 따내"),
        ("부산, 2034 아시안게임 유치 확정", "부산 2034 아시안게임 개최 확정"),
        ("Riyadh beaten in race to host 2034 Asian Games", "리야드, 2034 아시안게임 유치 실패"),
        ("Trump claims victory as Harris concedes", "트럼프 당선…해리스 패배 인정"),
        ("Suspect cleared by police after CCTV review", "경찰, CCTV 확인 후 용의자 혐의 없음 결론"),
        ("OpenAI board rebuffs Musk's $97 billion bid", "오픈AI 이사회, 머스크 인수 제안 거부"),
        ("정부, 국회 의결 법안에 거부권 행사", "President vetoes bill passed by assembly"),
        ("사외이사 선임안, 표 대결 끝에 좌절", "Shareholders reject board nominee in proxy fight"),
        ("Lawmakers back down on tax hike", "의원들, 증세안 철회"),
        ("Lotte Shopping seals sale of Lotte Card stake", "Lotte Shopping completes sale of Lotte Card stake"),
        ("HMM 매각 막판 좌초", "HMM sale falls through"),
        ("US economy lands softly as inflation cools", "美 경제 연착륙…물가 둔화"),
        ("Samsung aces Nvidia's HBM test", "삼성전자, 엔비디아 HBM 테스트 통과"),
        ("Last-minute deal averts Seoul bus strike", "서울 버스 노사 막판 타결…파업 철회"),
        ("식약처, 어린이 해열제 회수 명령", "식약처, 어린이 해열제 판매중지·회수"),
        ("LG화학, 양극재 공장 매각 계약 마무리", "LG Chem completes sale of cathode plant"),
        ("Samsung Heavy's Qatar bid comes up empty", "삼성중공업, 카타르 LNG선 수주전 고배"),
        ("서울시의회, 학생인권조례 폐지안 의결", "Seoul council passes bill to scrap student rights ordinance"),
    ],
)
def test_the_eighth_pass_self_check_copies_pass(gs: GuardSet, a: str, b: str) -> None:
    assert blocked_by(gs, a, b) == {}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("LG Chem sells cathode plant", "LG Energy Solution sells cathode plant"),
        ("서울시의회, 조례 폐지", "부산시의회, 조례 폐지"),
        ("삼성중공업, LNG선 수주", "한화오션, LNG선 수주"),
    ],
)
def test_an_affiliate_alias_is_one_identity_not_its_group(gs: GuardSet, a: str, b: str) -> None:
    assert "who" in blocked_by(gs, a, b)
