"""Issue 36 ("The first real feed"), the copy level: each case with the inputs the issue gives.

1. Outlet suffixes are outlets, never a "who": syndicated copies join one copy group.
2. A body on one side never hides a translation: the headlines are compared too.
6. A mirror's copy of a document's first version joins it after the publisher corrected it.
7. RAG passages: Korean datelines and bylines, trailing bylines and wire credits are stripped,
   and a chunk wholly contained in an earlier kept chunk is dropped.
And the who-slot: "블랙핑크 리사/제니, 11월 솔로 컴백" never joins "BTS 정국, 11월 솔로 앨범 발매".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.engine import Deduper

KST = "+09:00"


@pytest.fixture(scope="module")
def use_engine() -> Iterator[Deduper]:
    """One engine with the shipped model and guards, for the stateless ``compare`` cases."""
    with Deduper.open(":memory:", model="use") as d:
        yield d


# 1. outlet suffixes ------------------------------------------------------------------------------
def test_syndicated_copies_with_other_outlet_suffixes_join_one_copy_group() -> None:
    with Deduper.open(":memory:", model="use") as d:
        herald, yonhap = d.ingest_many([
            {"title": "Bank of Korea holds key rate at 3.5% - The Korea Herald", "source": "The Korea Herald",
             "url": "https://www.koreaherald.com/view.php?ud=20251127000101",
             "published_at": f"2025-11-27T09:10:00{KST}"},
            {"title": "Bank of Korea holds key rate at 3.5% | Yonhap News Agency", "source": "Yonhap News Agency",
             "url": "https://en.yna.co.kr/view/AEN20251127000100", "published_at": f"2025-11-27T09:20:00{KST}"},
        ])
    assert yonhap.status == "duplicate" and yonhap.cluster_id == herald.cluster_id
    assert yonhap.decision.stage == "exact" and not yonhap.decision.blocked_by
    assert not any("Yonhap" in r or "Herald" in r for r in yonhap.decision.reasons)


@pytest.mark.parametrize("a, b", [
    ("Korean Air completes merger with Asiana Airlines - Reuters",
     "Korean Air completes merger with Asiana Airlines | CNBC"),
    ("대한항공, 아시아나항공 합병 완료 - 연합뉴스", "대한항공, 아시아나항공 합병 완료 - 뉴스1"),
])
def test_compare_reads_outlet_suffixes_as_outlets(use_engine: Deduper, a: str, b: str) -> None:
    d = use_engine.compare(a, b)
    assert d.same and d.stage == "exact", d.reasons
    assert "who" not in d.blocked_by


def test_an_unknown_tail_is_still_read_by_the_guards(use_engine: Deduper) -> None:
    # Not an outlet (no source, no host, not in the table): the number it carries still vetoes.
    d = use_engine.compare("Samsung lifts dividend - 5 trillion won buyback", "Samsung lifts dividend - 3 trillion won buyback")
    assert not d.same


# 2. a body on one side ---------------------------------------------------------------------------
BOK_BODY = ("한국은행 금융통화위원회는 27일 통화정책방향 회의를 열고 기준금리를 연 3.50%로 동결했다. 물가 상승세가 "
            "둔화하고 있지만 가계부채 증가세와 환율 변동성을 고려해 현 수준을 유지하기로 했다.")
QUAKE_BODY = ("Turkey's disaster agency said the death toll from the earthquake had risen to 5,000. Rescue teams "
              "are still searching collapsed buildings in the south of the country.")


@pytest.mark.parametrize("bodied, bare", [
    ({"title": "한국은행, 기준금리 연 3.50%로 동결", "body": BOK_BODY, "lang": "ko"},
     {"title": "Bank of Korea holds key rate at 3.50%", "lang": "en"}),
    ({"title": "Turkey earthquake death toll rises to 5,000", "body": QUAKE_BODY, "lang": "en"},
     {"title": "튀르키예 지진 사망자 5천명으로 늘어", "lang": "ko"}),
])
def test_a_body_on_one_side_does_not_hide_a_translation(use_engine: Deduper, bodied: dict, bare: dict) -> None:
    from service.types import Article

    d = use_engine.compare(Article.from_dict(bodied), Article.from_dict(bare))
    assert d.same and d.stage == "embedding", d.reasons
    assert "headline with headline" in d.reasons[0]
    with Deduper.open(":memory:", model="use") as e:
        first, second = e.ingest_many([{**bodied, "published_at": f"2025-11-27T09:05:00{KST}"},
                                       {**bare, "published_at": f"2025-11-27T09:30:00{KST}"}])
    assert second.status == "duplicate" and second.cluster_id == first.cluster_id, second.decision.reasons


def test_the_headline_score_does_not_merge_another_figure(use_engine: Deduper) -> None:
    from service.types import Article

    d = use_engine.compare(Article(title="Turkey earthquake death toll rises to 5,000", body=QUAKE_BODY),
                           Article(title="튀르키예 지진 사망자 3천명으로 늘어"))
    assert not d.same, d.reasons


# 6. a republished first version ------------------------------------------------------------------
V1 = ("정부가 내년 전기요금 인상 폭을 절반으로 줄이기로 했다. 산업통상자원부는 27일 이런 내용의 요금 조정안을 "
      "발표했다. 가구당 부담은 월 1천원 안팎 늘어난다.")
V2 = ("정부가 내년 전기요금 인상 폭을 줄이기로 했다. 산업통상자원부는 27일 이런 내용의 요금 조정안을 "
      "발표했다. 가구당 부담은 월 1천원 안팎 늘어난다.")


def test_a_mirror_of_the_first_version_joins_the_corrected_document() -> None:
    title = "정부, 내년 전기요금 인상 폭 줄인다"
    with Deduper.open(":memory:", model=None) as d:
        first = d.ingest({"title": title, "body": V1, "url": "https://www.publisher.example/a/1"})
        corrected = d.ingest({"title": title, "body": V2, "url": "https://www.publisher.example/a/1"})
        assert corrected.document_id == first.document_id and corrected.version_id != first.version_id
        mirror = d.ingest({"title": title, "body": V1, "url": "https://mirror.example.org/copy/77"})
        # A mirror that adds a sentence is still new content against every version.
        longer = d.ingest({"title": title, "body": V1 + " 야당은 인상 자체를 철회하라고 요구했다.",
                           "url": "https://other.example.org/9"})
    assert mirror.status == "duplicate" and mirror.cluster_id == first.cluster_id, mirror.decision.reasons
    assert any("earlier version's body" in r for r in mirror.decision.reasons)
    assert longer.status == "new" and "body" in longer.decision.blocked_by


# 7. RAG passages ---------------------------------------------------------------------------------
def test_korean_dateline_and_byline_are_stripped_from_a_passage() -> None:
    from index.passages import strip_boilerplate

    core, removed = strip_boilerplate("(서울=연합뉴스) 홍길동 기자 = 한국은행이 기준금리를 동결했다. 물가가 둔화했다.")
    assert core == "한국은행이 기준금리를 동결했다. 물가가 둔화했다."
    assert removed == ("(서울=연합뉴스) 홍길동 기자 =",)


@pytest.mark.parametrize("trailer", ["홍길동 기자 gildong@example.kr", "Reporting by Hong Gil-dong; Editing by Kim Chul-soo"])
def test_a_trailing_byline_is_not_new_content(trailer: str) -> None:
    from service.passages import PassageDeduper

    text = "The Bank of Korea held its key rate at 3.50%. Inflation has slowed. Household debt is still rising."
    res = PassageDeduper().dedupe([text, f"{text} {trailer}"])
    assert res.keep == [0], res.verdicts[1].reasons
    assert res.verdicts[1].stage == "exact"


def test_a_chunk_inside_an_earlier_kept_chunk_is_dropped() -> None:
    from service.passages import PassageDeduper

    long = ("The Bank of Korea held its key rate at 3.50%. Inflation has slowed. Household debt is still rising. "
            "The won fell against the dollar. The next meeting is in January.")
    inside = "Household debt is still rising. The won fell against the dollar."
    overlapping = "The won fell against the dollar. The next meeting is in January. Exports rose 5%."
    res = PassageDeduper().dedupe([long, inside, overlapping])
    assert res.keep == [0, 2]
    assert res.verdicts[1].duplicate_of == 0 and "wholly contained" in res.verdicts[1].reasons[0]


# the who-slot in a shared Korean frame --------------------------------------------------------
@pytest.mark.parametrize("other", ["블랙핑크 리사, 11월 솔로 컴백", "블랙핑크 제니, 11월 솔로 컴백"])
def test_another_groups_member_in_the_same_frame_is_another_who(use_engine: Deduper, other: str) -> None:
    from service.guards import GuardInput

    assert use_engine.ctx.guards is not None
    base = "BTS 정국, 11월 솔로 앨범 발매"
    who = next(v for v in use_engine.ctx.guards.check(GuardInput(title=other, text=other, lang="ko"),
                                                  GuardInput(title=base, text=base, lang="ko")) if v.guard == "who")
    assert who.blocked and "정국" in (who.evidence or ""), who
    assert not use_engine.compare(other, base).same


def test_the_same_member_in_a_paraphrased_frame_is_not_vetoed(use_engine: Deduper) -> None:
    from service.guards import GuardInput

    assert use_engine.ctx.guards is not None
    a, b = "블랙핑크 리사, 11월 솔로 컴백", "블랙핑크 리사, 11월 솔로 앨범 발매"
    assert not any(v.blocked for v in use_engine.ctx.guards.check(GuardInput(title=a, text=a, lang="ko"),
                                                             GuardInput(title=b, text=b, lang="ko")))


@pytest.mark.parametrize(("a", "b"), [("BTS 정국, 11월 솔로 앨범 발매", "방탄소년단 정국, 11월 솔로 앨범 발매"),
                                    ("BLACKPINK 리사, 11월 솔로 컴백", "블랙핑크 리사, 11월 솔로 컴백")])
def test_a_group_named_in_either_script_is_not_another_who(use_engine: Deduper, a: str, b: str) -> None:
    from service.guards import GuardInput

    assert use_engine.ctx.guards is not None
    verdicts = use_engine.ctx.guards.check(GuardInput(title=a, text=a, lang="ko"), GuardInput(title=b, text=b, lang="ko"))
    who = next(v for v in verdicts if v.guard == "who")
    assert not who.blocked and "==" in (who.evidence or ""), who


def test_another_group_and_member_in_a_shared_frame_is_a_same_frame_clash(use_engine: Deduper) -> None:
    from service.guards import GuardInput

    assert use_engine.ctx.guards is not None
    a, b = "블랙핑크 리사, 11월 솔로 컴백", "BTS 지민, 11월 솔로 앨범 발매"
    who = next(v for v in use_engine.ctx.guards.check(GuardInput(title=a, text=a, lang="ko"),
                                                  GuardInput(title=b, text=b, lang="ko")) if v.guard == "who")
    assert who.blocked and who.evidence == "who: 리사 != 지민 (same frame)", who


def test_feed_members_stay_out_of_another_members_copy_group() -> None:
    with Deduper.open(":memory:", model="use") as d:
        jk, lisa, jennie = d.ingest_many([
            {"title": "BTS 정국, 11월 솔로 앨범 발매", "source": "스포츠조선", "published_at": f"2025-11-27T10:00:00{KST}"},
            {"title": "블랙핑크 리사, 11월 솔로 컴백", "source": "스타뉴스", "published_at": f"2025-11-27T13:30:00{KST}"},
            {"title": "블랙핑크 제니, 11월 솔로 컴백", "source": "텐아시아", "published_at": f"2025-11-27T14:00:00{KST}"},
        ])
    assert len({jk.cluster_id, lisa.cluster_id, jennie.cluster_id}) == 3


# start-up ----------------------------------------------------------------------------------------
def test_warm_guards_loads_the_korean_analyser_at_start_up() -> None:
    from service.guards import slots

    with Deduper.open(":memory:", model=None) as d:
        d.ctx.warm_guards()
        assert slots._KIWI is not None
        assert "guards_s" in d.restart.warmup_report
    with Deduper.open(":memory:", model=None, guards=None) as off:
        assert off.ctx.warm_guards() == 0.0 and "guards_s" not in off.restart.warmup_report


# the exact stage: only an outlet's tail is cut ----------------------------------------------------
def test_the_exact_stage_cuts_only_a_recognised_outlet_tail() -> None:
    """Any " - X" tail of up to four words used to be cut before the title was keyed, so "... - live
    updates" and "... - analysis" were one normalised title. Only the item's own source (or URL
    host) and the outlets of index/outlets.txt are cut now."""
    from index.features import ItemFeatures

    def key(title: str, source: str | None = None) -> int:
        return ItemFeatures.build(title, "", "en", 0.0, source=source).title_key

    assert key("Apple unveils new iPhone - live updates") != key("Apple unveils new iPhone - analysis")
    assert key("Apple unveils new iPhone - live updates") != key("Apple unveils new iPhone")
    assert key("Bank of Korea holds key rate at 3.5% - Reuters") == key("Bank of Korea holds key rate at 3.5% | CNBC")
    assert key("Volcano erupts near Reykjavik - The Gazette", "The Gazette") == key("Volcano erupts near Reykjavik")
