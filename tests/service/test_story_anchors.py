"""The anchors share of a Korean item (``service.stories.UNREAD_NAME_IDF``)."""

from __future__ import annotations

from service.stories import UNREAD_NAME_IDF, StoryEvidence, StoryTracker


def _share(item: str, member: str) -> float:
    tracker = StoryTracker(threshold=0.7, window_days=3.0)
    first = StoryEvidence.build(member, "", "und", 0.0, None)
    sid = tracker.add(None, first, unit="a", settle=False)
    return tracker.features(StoryEvidence.build(item, "", "und", 600.0, None), tracker.stories[sid])["anchors"]


def test_one_shared_latin_name_is_not_full_evidence_in_korean() -> None:
    assert UNREAD_NAME_IDF > 0
    korean = _share("LG화학, 미국 배터리 공장 증설 발표", "LG전자, 2분기 영업이익 1조원 돌파")
    english = _share("LG Chem expands US battery plant", "LG Electronics posts record profit")
    assert StoryEvidence.build("LG화학, 미국 배터리 공장 증설 발표", "", "ko", 0.0, None).latin is False
    # English reads its names (capitalised words): "LG" is one of several, as before.
    assert 0 < english < 1
    # Korean names are in Hangul: the one Latin word shared no longer makes the share 1.0.
    assert 0 < korean < 0.75


def test_a_korean_item_sharing_all_its_names_still_scores_high() -> None:
    share = _share("SK하이닉스 HBM4 3조2천억원 공급 계약", "SK하이닉스, 3조2천억원 규모 HBM4 공급 계약 공시")
    assert share > 0.75


def test_figures_are_anchors_by_value_not_by_their_first_digits() -> None:
    # "5만명" (50,000 people) and "5억" (500 million won) were both the anchor "5": a factory fire's
    # damage estimate shared its one figure with a housing lottery's headline and joined its story.
    assert _share("신평동 공장 화재 재산피해 5억 추산", "세종 더리브 파크 무순위 3가구에 5만명 몰려…시세차익 3억") == 0.0
    # One value written in two scripts is one anchor: "120만" and "1.2 million".
    assert _share("Samsung sells 1.2 million foldables", "삼성 폴더블 120만대 판매") > 0.0
    assert _share("Samsung sells 2.1 million foldables", "삼성 폴더블 120만대 판매") == 0.0
