"""Role guard: the same words in swapped roles block; reordering, passives and paraphrases pass.

Every sentence here is invented for these tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.guards import GuardInput, GuardSet


@pytest.fixture(scope="module")
def gs() -> GuardSet:
    return GuardSet.from_rules(enabled=["role"])


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


def verdict(gs: GuardSet, ta: str, tb: str, la: str = "ko", lb: str | None = None):
    (v,) = gs.check(side(ta, la), side(tb, lb or la))
    assert v.guard == "role"
    return v


@pytest.mark.parametrize(
    ("ta", "tb", "ev"),
    [
        # Korean: the case particles trade places (subject/object, source/goal, possessor/subject).
        ("삼성이 애플을 제소했다", "애플이 삼성을 제소했다", "role: 삼성(subject) vs 삼성(object); 애플(object) vs 애플(subject)"),
        ("한빛전자가 누리소프트를 인수했다", "누리소프트가 한빛전자를 인수했다", "한빛전자(subject) vs 한빛전자(object)"),
        ("대표팀이 일본을 3대1로 꺾었다", "일본이 대표팀을 3대1로 꺾었다", "대표팀(subject) vs 대표팀(object)"),
        # A headline's comma topic is its subject: "A, B에 승리" / "B, A에 승리".
        ("대표팀, 일본에 2-1 역전승", "일본, 대표팀에 2-1 역전승", "대표팀(subject) vs 대표팀(locative)"),
        ("울산, 포항 꺾고 K리그 우승", "포항, 울산 꺾고 K리그 우승", "울산, 포항 꺾고 vs 포항, 울산 꺾고"),
        ("화물선은 인천에서 부산으로 향했다", "화물선은 부산에서 인천으로 향했다", "인천(locative) vs 인천(direction)"),
        ("김민수는 박지현의 제자였다", "박지현은 김민수의 제자였다", "김민수(subject) vs 김민수(genitive)"),
        ("민수는 지현의 소설을 번역했다", "지현은 민수의 소설을 번역했다", "민수(subject) vs 민수(genitive)"),
        # Passive with an agent: "X가 Y에 의해 V됐다" means Y did it, so swapping X and Y still blocks.
        ("한빛전자가 누리소프트를 고소했다", "한빛전자가 누리소프트에 의해 고소됐다", "한빛전자(subject) vs 한빛전자(object)"),
        # Clauses: each argument belongs to the predicate after it (Korean is head-final).
        ("그는 대구에서 태어났고 광주에서 일했다", "그는 광주에서 태어났고 대구에서 일했다", "(clauses)"),
        ("1998년 대전 공장이 문을 열었고 2004년 울산 공장이 닫았다",
         "1998년 울산 공장이 문을 열었고 2004년 대전 공장이 닫았다", "(clauses)"),
        # Modifiers: a noun modifies the noun after it.
        ("캐나다 기자가 호주 작가를 인터뷰했다", "호주 기자가 캐나다 작가를 인터뷰했다",
         "role: 캐나다 기자, 호주 작가 vs 캐나다 작가, 호주 기자 (modifiers)"),
        ("그는 캐나다 기자였고 호주 작가가 되었다", "그는 호주 기자였고 캐나다 작가가 되었다", "role: "),
    ],
)
def test_korean_swaps_block(gs: GuardSet, ta: str, tb: str, ev: str) -> None:
    v = verdict(gs, ta, tb)
    assert v.blocked and v.decided, v
    assert v.evidence.startswith("role: ") and ev in v.evidence
    assert gs.blocked([v]) == ["role"]


@pytest.mark.parametrize(
    ("ta", "tb", "ev"),
    [
        ("Samsung sues Apple over patents", "Apple sues Samsung over patents", "role: Samsung sues Apple vs Apple sues Samsung"),
        ("Germany beat Brazil 3-1 in Berlin", "Brazil beat Germany 3-1 in Berlin", "Germany beat Brazil vs Brazil beat Germany"),
        ("Acme will acquire Globex", "Globex will acquire Acme", "Acme acquire Globex vs Globex acquire Acme"),
        ("Acme was sued by Globex", "Globex was sued by Acme", "vs"),
    ],
)
def test_english_swaps_block(gs: GuardSet, ta: str, tb: str, ev: str) -> None:
    v = verdict(gs, ta, tb, "en")
    assert v.blocked and v.decided, v
    assert ev in v.evidence


@pytest.mark.parametrize(
    ("ta", "tb"),
    [
        ("삼성이 애플을 제소했다", "삼성이 애플을 제소했다"),  # the same sentence
        ("경찰은 용의자를 서울역에서 체포했다", "용의자를 서울역에서 경찰이 체포했다"),  # free word order, same particles
        ("한빛전자가 누리소프트를 인수했다", "누리소프트를 한빛전자가 인수했다"),
        ("한빛전자가 누리소프트를 고소했다", "누리소프트가 한빛전자에 의해 고소됐다"),  # passive with an agent
        ("그는 대구에서 태어났고 광주에서 일했다", "그는 광주에서 일했고 대구에서 태어났다"),  # clauses reordered
        ("애플과 삼성이 특허 소송에서 합의했다", "삼성과 애플이 특허 소송에서 합의했다"),  # coordination
        ("사과와 빨간 배가 식탁에 있다", "빨간 배와 사과가 식탁에 있다"),  # coordination across an adjective
        ("민수는 지현과 결혼했다", "지현은 민수와 결혼했다"),  # symmetric act: the comitative never decides
        ("건축가는 김민수였다", "김민수는 건축가였다"),  # copula identity: subject/complement never decides
        ("지원금을 통해 연구소는 장비를 샀다", "연구소는 지원금으로 장비를 샀다"),  # a postposition is no object
        ("대표팀, 일본에 2-1 역전승", "대표팀이 일본에 2-1로 역전승했다"),  # the comma topic is the subject
        ("그러나, 대표팀이 일본에 졌다", "대표팀이 일본에 졌다"),  # an opening conjunction is no topic
    ],
)
def test_korean_reorderings_pass(gs: GuardSet, ta: str, tb: str) -> None:
    v = verdict(gs, ta, tb)
    assert not v.blocked, v


@pytest.mark.parametrize(
    ("ta", "tb"),
    [
        ("Samsung sues Apple over patents", "Samsung sues Apple over patents"),
        ("Samsung sues Apple over patents", "Samsung sued Apple over two patents"),
        ("Samsung sues Apple over patents", "Apple was sued by Samsung over patents"),  # passive equivalent
        ("Acme to acquire Globex", "Globex to be acquired by Acme"),
        ("Obama meets Putin in Geneva", "Putin meets Obama in Geneva"),  # symmetric verb
        ("Fed will raise rates, says Yellen", "Yellen says Fed will raise rates"),  # reporting verb
        ("Oil prices rise as stocks fall", "Stocks fall as oil prices rise"),  # clauses reordered
    ],
)
def test_english_paraphrases_pass(gs: GuardSet, ta: str, tb: str) -> None:
    v = verdict(gs, ta, tb, "en")
    assert not v.blocked, v


def test_evidence_of_kept_roles_and_passive(gs: GuardSet) -> None:
    v = verdict(gs, "경찰은 용의자를 체포했다", "용의자를 경찰이 체포했다")
    assert v.decided and v.evidence == "role: 경찰(subject) == 경찰(subject); 용의자(object) == 용의자(object)"
    v = verdict(gs, "Samsung sues Apple", "Apple was sued by Samsung", "en")
    assert v.decided and v.evidence == "role: Samsung sues Apple ~ Apple sued Samsung (passive)"


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        ("삼성이 애플을 고소했다", "ko", "Apple sues Samsung", "en"),  # cross-lingual: no frame for 고소
        ("삼성, 애플 고소", "ko", "애플, 삼성 고소", "ko"),  # headline style: no particles, no roles
        ("민수가 도착했다", "ko", "지현이 떠났다", "ko"),  # nothing shared
        ("Apple was sued", "en", "Apple sues Samsung", "en"),  # a passive without its agent
        ("Rain expected today", "en", "Sunny weekend ahead", "en"),
    ],
)
def test_steps_aside(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    v = verdict(gs, ta, tb, la, lb)
    assert not v.blocked and not v.decided, v


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb"),
    [
        # fourth frames pass (tests/data/frame_pairs_4.jsonl): a suit read as a result, across
        # languages and in headlines with no particle; the same order with one passive and its agent
        ("삼성이 애플을 제소했다", "ko", "Apple sues Samsung", "en"),
        ("삼성, 애플 제소", "ko", "애플, 삼성 제소", "ko"),
        ("Apple sues Samsung", "en", "Apple was sued by Samsung", "en"),
    ],
)
def test_suits_and_passives_with_their_agent_block(gs: GuardSet, ta: str, la: str, tb: str, lb: str) -> None:
    v = verdict(gs, ta, tb, la, lb)
    assert v.blocked, v
    assert v.evidence.startswith("role: ")


def test_single_role_change_never_blocks(gs: GuardSet) -> None:
    # One word changing its particle (topicalised object, restructured clause) is no swap.
    assert not verdict(gs, "그 책은 민수가 읽었다", "민수가 그 책을 읽었다").blocked
    assert not verdict(gs, "연구소의 장비가 고장났다", "연구소에 장비가 고장났다").blocked


def test_default_set_uses_role_guard() -> None:
    gs = GuardSet.default()
    assert "role" in gs.names
    verdicts = gs.check(side("삼성이 애플을 제소했다", "ko"), side("애플이 삼성을 제소했다", "ko"))
    assert gs.blocked(verdicts) == ["role"]


def test_user_rules_extend_the_lexicon(tmp_path: Path) -> None:
    a, b = side("Acme collaborates with Globex", "en"), side("Globex collaborates with Acme", "en")
    ta, tb = side("Acme partners Globex", "en"), side("Globex partners Acme", "en")
    default = GuardSet.from_rules(enabled=["role"])
    assert not default.blocked(default.check(ta, tb))  # "partners" is a listed symmetric verb
    assert not default.blocked(default.check(a, b))  # "with" is no gap word: no triple
    (tmp_path / "role.symmetric.toml").write_text('[en]\nstopwords = ["acme"]\n', encoding="utf-8")
    gs = GuardSet.from_rules([tmp_path], enabled=["role"])
    x, y = side("Acme blames Globex", "en"), side("Globex blames Acme", "en")
    assert default.blocked(default.check(x, y)) == ["role"]
    assert gs.blocked(gs.check(x, y)) == []  # a user stopword is no argument


def test_bad_rule_file_is_a_precise_error(tmp_path: Path) -> None:
    (tmp_path / "role.toml").write_text('[ko.particles]\nsubject = ["x"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="must be Hangul"):
        GuardSet.from_rules([tmp_path])
    (tmp_path / "role.toml").write_text('[ko.particles]\nobject = ["이"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="listed twice"):
        GuardSet.from_rules([tmp_path])
    (tmp_path / "role.toml").write_text('[ko]\nnon_deciding_roles = ["colour"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="unknown role"):
        GuardSet.from_rules([tmp_path])


@pytest.mark.parametrize(
    ("en", "ko", "blocked"),
    [
        # a match result across languages: winner and loser swapped blocks, the same result passes
        ("Brazil beat Argentina 2-1 in World Cup qualifier", "아르헨티나, 월드컵 예선서 브라질에 2-1 승리", True),
        ("Brazil beat Argentina 2-1 in World Cup qualifier", "브라질, 월드컵 예선서 아르헨티나에 2-1 승리", False),
        ("Japan falls to South Korea in Asian Games final", "日, 아시안게임 결승서 韓 꺾어", True),
        ("Japan falls to South Korea in Asian Games final", "한국이 아시안게임 결승서 일본을 꺾었다", False),
        ("Argentina beat Brazil 2-1", "아르헨티나, 브라질에 1-2 패배", True),
    ],
)
def test_a_result_is_read_across_languages(gs: GuardSet, en: str, ko: str, blocked: bool) -> None:
    v = verdict(gs, en, ko, "en", "ko")
    assert v.decided and v.blocked == blocked, v
    v = verdict(gs, ko, en, "ko", "en")  # either order
    assert v.decided and v.blocked == blocked, v


@pytest.mark.parametrize(
    ("ta", "tb", "blocked"),
    [
        ("Japan beat South Korea 2-1 in Asian Cup", "Japan falls to South Korea in Asian Cup", True),
        ("Japan beat South Korea 2-1 in Asian Cup", "South Korea falls to Japan in Asian Cup", False),
        ("Celtics rout Lakers 120-98", "Celtics lose to Lakers 98-120", True),
    ],
)
def test_an_english_result_with_two_verbs(gs: GuardSet, ta: str, tb: str, blocked: bool) -> None:
    assert verdict(gs, ta, tb, "en").blocked == blocked


@pytest.mark.parametrize(
    ("ta", "la", "tb", "lb", "blocked"),
    [
        # a takeover is read as a result, the buyer winning: buyer and target swapped blocks
        ("Kakao acquires Nexon", "en", "넥슨, 카카오 인수", "ko", True),
        ("Kakao acquires Nexon", "en", "카카오, 넥슨 인수", "ko", False),
        ("Samsung to buy Google", "en", "구글, 삼성전자 인수", "ko", True),
        ("카카오, 넥슨 인수 추진", "ko", "넥슨, 카카오 인수 추진", "ko", True),
        # the passive and other words are no frame: "넥슨, 카카오에 인수돼" is Nexon acquired by Kakao
        ("Kakao acquires Nexon", "en", "넥슨, 카카오에 인수돼", "ko", False),
        ("Kakao acquires Nexon", "en", "넥슨, 카카오에 인수", "ko", False),  # the passive, its ending dropped
        ("Kakao acquires Nexon", "en", "넥슨, 카카오가 인수", "ko", False),  # the buyer as subject
        ("Kakao acquires Nexon", "en", "넥슨, 카카오 품으로…1조에 인수", "ko", False),  # no score across the ellipsis
        ("카카오, 넥슨 인수위 출범", "ko", "넥슨, 카카오 인수위 출범", "ko", False),
    ],
)
def test_a_takeover_is_read_as_a_result(gs: GuardSet, ta: str, la: str, tb: str, lb: str, blocked: bool) -> None:
    assert verdict(gs, ta, tb, la, lb).blocked == blocked


def test_a_result_whose_names_are_unknown_steps_aside(gs: GuardSet) -> None:
    v = verdict(gs, "Hanbit Rovers beat Nuri United 2-1", "누리 유나이티드, 한빛 로버스에 2-1 승리", "en", "ko")
    assert not v.blocked
    v = verdict(gs, "Samsung sues Apple over patents", "애플, 삼성 상대로 특허 소송", "en", "ko")
    assert not v.blocked and not v.decided  # no result frame: roles are not compared across languages


@pytest.mark.parametrize(
    ("en", "ko", "blocked"),
    [
        # two persons as the subject of a short sentence
        ("He gave me the keys yesterday.", "나는 어제 그에게 열쇠를 주었다.", True),
        ("He's moving to Busan next month.", "그녀는 다음 달 부산으로 이사한다.", True),
        # literary Korean writes 그 for a woman too
        ("She's moving to Busan next month.", "그는 다음 달 부산으로 이사한다.", False),
        # a clause's subject, a frame of saying or thinking, a quotation: not the sentence's subject
        ("I'll call you when she comes back.", "그녀가 돌아오면 전화할게.", False),
        ("I think we're going to win the final.", "우리는 결승에서 이길 것 같다.", False),
        ("\"We have to act now,\" he said.", "그는 \"이제 해야 한다\"고 말했다.", False),
        ("You have to finish the report today.", "나는 오늘 보고서를 끝내고 싶다.", True),
        # one person, or a side without a pronoun (Korean drops most): no say
        ("I gave him the keys yesterday.", "나는 어제 그에게 열쇠를 주었다.", False),
        ("We're moving to Busan next month.", "다음 달 부산으로 이사한다.", False),
        # news prose longer than max_words: a translator may name the subject instead
        ("He said the ministry would announce the new rules for the pension fund after the talks on Monday.",
         "그녀는 월요일 회담 후 보건복지부가 국민연금 기금 운용 규정을 새로 발표할 것이라고 말했다.", False),
    ],
)
def test_the_subject_person_across_languages(gs: GuardSet, en: str, ko: str, blocked: bool) -> None:
    assert verdict(gs, en, ko, "en", "ko").blocked == blocked


@pytest.mark.parametrize(
    ("en", "ko", "blocked"),
    [
        # a request against an offer
        ("Let me carry your bag to the station.", "역까지 가방을 들어 주세요.", True),
        ("Please carry my bag to the station.", "역까지 가방을 들어 줄게요.", True),
        ("Show me the way to the station.", "내가 역까지 가는 길을 알려 드릴게요.", True),
        # the same mood, or none said
        ("Please carry my bag to the station.", "역까지 가방을 들어 주세요.", False),
        ("I'll carry your bag to the station.", "역까지 가방을 들어 줄게.", False),
        ("Carry the bag to the station.", "역까지 가방을 들어 주세요.", False),
        # "let me know" asks: the longer phrase says it
        ("Let me know when you arrive.", "도착하면 알려 주세요.", False),
        ("Let me know when you arrive.", "도착하면 알려 줄게요.", True),
    ],
)
def test_a_request_against_an_offer_across_languages(gs: GuardSet, en: str, ko: str, blocked: bool) -> None:
    assert verdict(gs, en, ko, "en", "ko").blocked == blocked


def test_the_subject_and_the_mood_read_only_an_english_side(gs: GuardSet) -> None:
    """A Latin side declared in another language ("es" is "und" to the guards) was read with the
    English tables: Spanish "He" ("I have") was the pronoun he against 나는."""
    assert not verdict(gs, "He perdido las llaves otra vez.", "나는 또 열쇠를 잃어버렸다.", "es", "ko").blocked
    assert verdict(gs, "He lost the keys again.", "나는 또 열쇠를 잃어버렸다.", "en", "ko").blocked
