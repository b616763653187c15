"""Sixth frames pass (tests/data/frame_pairs_6.jsonl): outcomes said without the usual verb (a
request ruled on, motions granted or thrown out, measures kept or annulled, decided or withdrawn,
plans scrapped or pushed ahead, hikes on hold, orders clinched or lost out on, talks begun,
concluded or broken off, events held or fallen through, motions lapsed), follow-ups (preliminary /
final figures, called / appeared, verdicts appealed, listings filed, evacuation orders), two members
of one group across scripts, and a group in the possessive as a member's affiliation. Other
sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from tests.helpers.labelled_pairs import blocked_by


@pytest.mark.parametrize(
    ("a", "b", "guard", "evidence"),
    [
        ("법원, 노조 가처분 신청 기각", "법원, 노조 가처분 신청 인용", "polarity", "기각 vs 인용"),
        ("Judge grants Kakao's injunction against Naver", "Judge dismisses Kakao's injunction against Naver", "polarity", "vs"),
        ("법원, 쿠팡 영업정지 처분 취소", "법원, 쿠팡 영업정지 처분 유지", "polarity", "vs"),
        ("부산 지하철 노조, 총파업 확정", "부산 지하철 노조, 총파업 철회", "polarity", "vs"),
        ("정부, 의대 정원 동결 확정", "정부, 의대 정원 동결 방침 철회", "polarity", "확정 vs 철회"),
        ("하이브, 뉴진스 복귀 확정", "하이브, 뉴진스 복귀설 부인", "polarity", "vs"),
        ("Lotte drops plan to build Busan tower", "Lotte moves ahead with plan to build Busan tower", "polarity", "vs"),
        ("Coupang shelves plan to list in Tokyo", "Coupang agrees to sell Taiwan unit", "polarity", "vs"),
        ("도시가스 요금 인상 보류", "Seoul raises gas bills for households", "polarity", "vs"),
        ("Hyundai Rotem clinches Polish tank order", "Hyundai Rotem loses out on Polish tank order", "polarity", "vs"),
        ("한화오션, 호주 호위함 수주전 고배", "Hanwha Ocean wins Australian frigate order", "polarity", "vs"),
        ("한일 어업협상 개시", "한일 어업협상 타결", "polarity", "vs"),
        ("Korea, Japan reach fisheries deal", "Korea-Japan fisheries talks break down", "polarity", "vs"),
        ("K리그 올스타전 대구 개최", "K리그 올스타전 대구 개최 무산", "polarity", "vs"),
        ("황희찬 이적 성사", "황희찬 이적 불발", "polarity", "성사 vs 불발"),
        ("포항 고로 가동 중단", "포항 고로 재가동", "polarity", "vs"),
        ("Kia falls short of annual sales goal", "Kia surpasses annual sales goal", "polarity", "vs"),
        ("장관 탄핵소추안 본회의 통과", "장관 탄핵소추안 자동 폐기", "polarity", "vs"),
        ("LG엔솔 4분기 잠정실적 발표", "LG엔솔 4분기 확정실적 발표", "polarity", "vs"),
        ("Kakao founder to testify at parliamentary audit", "Kakao founder testifies at parliamentary audit", "polarity", "vs"),
        ("검찰, 전 장관 출석 요구", "전 장관 검찰 출석", "polarity", "vs"),
        ("전 시장, 징역 3년 선고", "전 시장, 징역 3년 불복 항소", "polarity", "vs"),
        ("Ex-mayor sentenced to three years in prison", "Ex-mayor appeals three-year sentence", "polarity", "vs"),
        ("Musinsa files for Kospi listing", "Musinsa shares jump in trading debut", "polarity", "vs"),
        ("울릉도 주민 대피령", "울릉도 주민 대피령 해제", "polarity", "vs"),
        ("에스파 카리나, 새 드라마 주연", "aespa's Winter lands lead role in new drama", "who", "카리나 != Winter"),
        ("BTS member Jimin visits Busan", "방탄소년단 정국, 부산 방문", "who", "Jimin != 정국"),
    ],
)
def test_the_sixth_pass_frames_block(gs: GuardSet, a: str, b: str, guard: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert guard in got and evidence in got[guard], got


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("법원, 노조 가처분 신청 기각", "Court rejects union's injunction"),
        ("법원, 노조 가처분 신청 인용", "법원, 노조의 가처분 신청 받아들여 인용"),
        ("Officials denied her request for asylum", "관리들은 그녀의 망명 신청을 거부했다"),
        ("부산 지하철 노조, 총파업 철회", "Busan subway union calls off strike"),
        ("Lotte drops plan to build Busan tower", "Lotte scraps plan for Busan tower"),
        ("Korea puts gas rate hike on hold", "정부, 가스요금 인상 보류"),
        ("Hyundai Rotem clinches Polish tank order", "현대로템, 폴란드 전차 수주"),
        ("한일 어업협상 타결", "Korea, Japan reach fisheries deal"),
        ("K리그 올스타전 대구 개최 무산", "K리그 올스타전 대구 개최 불발"),
        ("Kakao founder testifies at parliamentary audit", "카카오 창업자, 국정감사 출석해 증언"),
        ("Musinsa shares jump in trading debut", "무신사 상장 첫날 주가 급등"),
        ("Appeals court upholds ex-mayor's sentence", "항소심, 전 시장 원심 유지"),
        ("블랙핑크 리사, 새 앨범 발매", "Blackpink's Lisa releases new album"),
        ("트와이스 쯔위, 솔로 데뷔", "Twice's Tzuyu makes solo debut"),
        ("Rose Park to headline festival", "Blackpink's Rose to headline festival"),
        ("인천공항, 5년 만에 최대 여객", "Incheon Airport handles most passengers in five years"),
    ],
)
def test_the_sixth_pass_frames_pass_copies_and_other_senses(gs: GuardSet, a: str, b: str) -> None:
    assert not blocked_by(gs, a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A hike held back in other words than "on hold": read as a hike, it vetoed 인상 보류 / 유보
        ("한전, 전기요금 인상 보류", "KEPCO postpones electricity rate hike"),
        ("한국은행, 금리 인하 유보", "BOK holds off on rate cut"),
        ("Fed delays rate hike", "연준, 금리 인상 연기"),
        # A plan scrapped in Korean words other than 백지화 / 보류 (계획 철회 read as a plan)
        ("정부, 신공항 건설 계획 폐기", "Government drops new airport plan"),
        ("정부, 원전 건설 계획 포기", "Government abandons plan to build reactor"),
        # A bare Korean 출석 has no tense: "to testify" / "to appear before" is no summons against it
        ("김범수, 내일 국감 출석", "Kakao's Kim to testify at parliamentary audit tomorrow"),
        ("Ex-minister to appear before prosecutors", "전 장관, 내일 검찰 출석"),
    ],
)
def test_the_review_of_the_sixth_pass_copies_pass(gs: GuardSet, a: str, b: str) -> None:
    """Copies the sixth pass's rules vetoed (review): each was let through before them."""
    assert not blocked_by(gs, a, b)


@pytest.mark.parametrize(
    ("a", "b", "evidence"),
    [
        ("Fed hikes rates", "연준, 금리 인상 연기", "hikes vs 인상 연기"),
        ("한전, 전기요금 인상", "KEPCO postpones electricity rate hike", "vs postpones"),
        ("Ex-minister appears before prosecutors", "Ex-minister to appear before prosecutors", "vs to appear before"),
        ("정부, 신공항 계획 철회", "정부, 신공항 계획 발표", "vs"),
    ],
)
def test_the_review_of_the_sixth_pass_keeps_the_reports_apart(gs: GuardSet, a: str, b: str, evidence: str) -> None:
    got = blocked_by(gs, a, b)
    assert "polarity" in got and evidence in got["polarity"], got
