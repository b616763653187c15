"""Follow-ups pass (tests/data/followup_pairs.jsonl): a first report against its next step, the
steps of a criminal case, warrants and bills, deals and proposals planned against done, a nominee
against one appointed, a service down against restored, missing against dead, the n-th day of a
strike or a search, an event to come against one held, an incident against the inquiry into it;
the syndication tags and spellings the slot guards misread. Other sentences than the set's."""

from __future__ import annotations

import pytest

from service.guards import GuardSet
from service.guards.polarity import PolarityGuard, load_rules
from tests.helpers.labelled_pairs import blocked_by, side


@pytest.mark.parametrize(
    ("a", "b", "evidence"),
    [
        ("검찰, 보이스피싱 조직원 구속", "검찰, 보이스피싱 조직원 구속기소", "구속 vs 기소"),
        (
            "Police arrest man over Gangnam hit-and-run",
            "Man indicted over Gangnam hit-and-run",
            "arrest vs indicted",
        ),
        ("경찰, 래퍼 마약 혐의 입건", "래퍼 마약 혐의 검찰 송치", "입건 vs 송치"),
        (
            "Police raid Kakao offices over stock manipulation",
            "Kakao founder summoned over stock manipulation",
            "raid vs summon",
        ),
        (
            "Prosecutors seek arrest warrant for ex-CEO",
            "Court rejects arrest warrant for ex-CEO",
            "seek arrest warrant vs rejects arrest warrant",
        ),
        (
            "Police seek suspect in Suwon stabbing",
            "Suspect in Suwon stabbing arrested",
            "seek suspect vs arrested",
        ),
        ("Prosecutors indict former mayor", "전 시장, 1심서 징역 3년 선고", "indict vs 징역 3년 선고"),
        (
            "Lawmakers table bill to cap card fees",
            "National Assembly passes bill to cap card fees",
            "vs passes",
        ),
        ("국회, 본회의서 추경안 처리 예정", "추경안 국회 본회의 통과", "vs 통과"),
        (
            "LG to acquire US robotics startup",
            "LG completes acquisition of US robotics startup",
            "to acquire vs completes",
        ),
        ("서울시, 버스 요금 인상안 발표", "서울 버스 요금 인상 오늘부터 시행", "vs 시행"),
        (
            "Hyundai names Chang Jae-hoon as CEO nominee",
            "Hyundai shareholders confirm Chang Jae-hoon as CEO",
            "nominee vs confirm",
        ),
        (
            "Blackout hits 5,000 homes in Daegu",
            "Power restored to 5,000 homes in Daegu",
            "blackout vs power restored",
        ),
        ("Naver goes down nationwide", "Naver service restored after outage", "vs service restored"),
        (
            "Boat capsizes off Jeju, 3 missing",
            "Jeju boat capsizing: death toll rises",
            "3 missing vs death toll",
        ),
        ("제주 어선 전복, 선원 3명 실종", "제주 어선 실종 선원 3명 숨진 채 발견", "3명 실종 vs 숨진"),
        ("Blast at Yeosu plant injures workers", "여수 공장 폭발 부상자 2명 숨져", "injures vs 숨져"),
        (
            "Firefighter injured in Busan blaze",
            "Injured firefighter dies after Busan blaze",
            "injured vs dies",
        ),
        ("화물연대 파업 돌입", "화물연대 파업 나흘째", "파업 돌입 vs 나흘째"),
        ("실종 어린이 수색 사흘째", "실종 어린이 수색 열흘째", "사흘째 vs 열흘째"),
        ("Nurses go on strike", "Nurses' strike enters third week", "go on strike vs third week"),
        ("Danuri probe set for launch on Friday", "Danuri probe launched", "set for launch vs launched"),
        ("싸이 콘서트 잠실서 개최 예정", "싸이 잠실 콘서트 성료", "vs 성료"),
        ("Fire breaks out at Ulsan refinery", "울산 정유공장 화재 원인 감식 착수", "fire breaks out vs"),
        ("Naver hit by data breach", "Police launch probe into Naver data breach", "hit by data breach vs"),
        ("대법원, 전 장관 상고심 선고 기일 지정", "대법원, 전 장관 유죄 확정", "선고 기일 vs 유죄"),
        (
            "Bridge collapses in Gwangmyeong",
            "Police launch probe into Gwangmyeong bridge collapse",
            "collapses vs",
        ),
    ],
)
def test_a_first_report_and_its_next_step_are_two(gs: GuardSet, a: str, b: str, evidence: str) -> None:
    assert evidence in blocked_by(gs, a, b).get("polarity", ""), blocked_by(gs, a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Police arrest suspect in Suwon stabbing", "Suwon stabbing suspect arrested"),
        ("검찰, 전 대표 구속기소", "Prosecutors indict and detain former CEO"),
        ("Prosecutors charge ex-CEO with embezzlement", "Ex-CEO indicted for embezzlement"),
        ("경찰, 마약 혐의 배우 체포 후 기소", "Actor arrested and charged over drugs"),
        ("Troops arrest 30 in night raids", "군, 야간 급습으로 30명 체포"),
        ("Power restored after outage in Daegu", "대구 정전 복구"),
        ("한미 정상회담 내일 개최", "Korea-US summit to be held tomorrow"),
        ("철도노조 파업 사흘째", "Railway strike enters third day"),
        ("철도노조 파업 돌입 사흘째", "Railway strike enters third day"),
        ("Missing hiker found alive on Jirisan", "지리산 실종 등산객 무사히 발견"),
        ("2 dead, 5 missing in Gangwon landslide", "강원 산사태로 2명 사망·5명 실종"),
        ("Hyundai names Chang Jae-hoon as new CEO", "현대차, 장재훈 사장 CEO 선임"),
        ("Police raid Kakao offices", "경찰, 카카오 압수수색"),
        ("Samsung to acquire stake in Rainbow Robotics", "Samsung buys stake in Rainbow Robotics"),
        (
            "Police probe cause of fire that broke out at Ulsan refinery",
            "경찰, 울산 정유공장 화재 원인 수사 착수",
        ),
        # the words in other senses
        ("Marathon runner dies of cardiac arrest", "Cardiac arrest kills marathon runner"),
        ("정전 70주년 기념식 열려", "Armistice 70th anniversary ceremony held"),
        ("Kim takes office on first day of new term", "김 시장, 새 임기 첫날 취임"),
    ],
)
def test_copies_and_other_senses_pass(gs: GuardSet, a: str, b: str) -> None:
    assert not blocked_by(gs, a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("(2nd LD) Kia completes $2 bln plant in Mexico", "Kia completes $2 billion Mexico plant"),
        (
            "BREAKING NEWS: N. Korea fires artillery into West Sea",
            "N. Korea fires artillery into West Sea: JCS",
        ),
        ("N. Korea fires artillery into West Sea", "북한, 서해상으로 포격"),
        ("Singer Kim Gun-mo returns to stage", "가수 김건모 무대 복귀"),
    ],
)
def test_syndication_tags_and_spellings_are_no_slot(gs: GuardSet, a: str, b: str) -> None:
    assert not blocked_by(gs, a, b)


def test_a_step_axis_reads_each_side_at_its_last_step() -> None:
    """[steps]: a text naming two steps is at its last; any other axis with two poles never blocks."""
    g = PolarityGuard.from_rules(load_rules()["polarity"])
    assert g.check(side("체포 후 구속기소"), side("경찰, 체포")).blocked
    assert not g.check(side("체포 후 구속기소"), side("검찰, 기소")).blocked
    assert "case_step" in g.steps and "direction" not in g.steps
