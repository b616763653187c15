"""The cascade and its stages on their own, against a fake candidate state; the candidate state on
its own (no store, no engine, no embedder).

The fake state hands the stages fixed candidate lists, so each test states exactly what a stage
found and checks what the walk does with it: thresholds, one proposal per cluster, vetoes, the
decision's stage and reasons.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pytest

from index.exact import ExactIndex
from index.features import ItemFeatures
from index.minhash import BandTable
from index.ngram import GatedNgramIndex
from service.cascade import Cascade
from service.config import EngineConfig
from service.guards import GuardInput
from service.stages import (
    ExactStage,
    MinHashStage,
    NgramStage,
    PairScore,
    Probe,
    Stage,
    veto_reason,
)
from service.state import CandidateState, Entry
from service.types import GuardVerdict

CFG = EngineConfig().for_model("use-multilingual-v3")  # the calibrated thresholds
T0 = 1_700_000_000.0


def feats(title: str, t: float = T0, body: str = "") -> ItemFeatures:
    return ItemFeatures.build(title, body, "en", t)


# a fake candidate state ----------------------------------------------------------------------------
@dataclass
class FakeTable:
    docs: dict[int, tuple[int, ItemFeatures]] = field(default_factory=dict)  # doc -> (cluster, features)

    def __contains__(self, doc: object) -> bool:
        return doc in self.docs

    def cluster_of(self, doc: int) -> int:
        return self.docs[doc][0]

    def time_of(self, doc: int) -> float:
        return self.docs[doc][1].time

    def features(self, doc: int) -> ItemFeatures:
        return self.docs[doc][1]


@dataclass
class FakeExact:
    keys: dict[int, list[int]] = field(default_factory=dict)
    lookups: int = 0

    def lookup(self, key: int) -> list[int]:
        self.lookups += 1
        return list(self.keys.get(key, []))


@dataclass
class FakeHits:
    """Fixed (doc, score) hits, best first, whatever the query; ``outside``: those a search with a
    window finds outside it (best first). ``searches`` counts the searches."""

    hits: list[tuple[int, float]] = field(default_factory=list)
    outside: list[tuple[int, float]] = field(default_factory=list)
    searches: int = 0

    def candidates(self, *args: object, **kwargs: object) -> list[tuple[int, float]]:
        self.searches += 1
        return list(self.hits)

    def candidates_split(self, *args: object) -> tuple[list[tuple[int, float]], object]:
        self.searches += 1
        floor = args[-1]
        assert isinstance(floor, float)
        return list(self.hits), lambda: [h for h in self.outside if h[1] >= floor]


@dataclass
class FakeState:
    entries: FakeTable = field(default_factory=FakeTable)
    exact: FakeExact = field(default_factory=FakeExact)
    ngram: FakeHits = field(default_factory=FakeHits)
    minhash: FakeHits = field(default_factory=FakeHits)
    reps: dict[int, int] = field(default_factory=dict)
    vectors: None = None

    def add(self, doc: int, cluster: int, f: ItemFeatures) -> None:
        self.entries.docs[doc] = (cluster, f)
        self.reps.setdefault(cluster, doc)


@dataclass
class FakeGuards:
    """Blocks every proposed merge with a document whose title is in ``block`` (evidence: that title)."""

    block: set[str] = field(default_factory=set)
    asked: list[str] = field(default_factory=list)

    def check(self, a: GuardInput, b: GuardInput) -> list[GuardVerdict]:
        title = b.title
        self.asked.append(title)
        if title in self.block:
            return [GuardVerdict("subject", True, True, f"subject: {title!r} differs")]
        return [GuardVerdict("subject", False, True, "subject: same")]


def no_vector() -> np.ndarray | None:
    return None


def match(state: FakeState, f: ItemFeatures, guards: FakeGuards | None = None,
          window: tuple[float, float] | None = None):
    return Cascade(CFG, guards).match(f, state, no_vector, window)


# the walk ---------------------------------------------------------------------------------------------
def test_the_stages_are_one_tuple_cheapest_first():
    c = Cascade(CFG, None)
    assert [s.name for s in c.stages] == ["exact", "ngram", "minhash", "embedding"]
    assert [s.settles_cheaply for s in c.stages] == [True, True, True, False]
    assert [s.threshold for s in c.stages] == [1.0, CFG.copy.ngram_threshold, CFG.copy.minhash_threshold,
                                               CFG.copy.embedding_threshold]


def test_an_exact_copy_settles_at_the_first_stage_and_says_which_key():
    s, f = FakeState(), feats("Fed raises rates", body="The Fed raised rates.")
    s.add(7, 70, f)
    s.exact.keys = {f.content_key: [7], f.title_key: [7]}
    d = match(s, f).decision
    assert (d.same, d.stage, d.score, d.matched_id) == (True, "exact", 1.0, 7)
    assert d.reasons == ["exact: same normalised title and body as document 7"]

    other = feats("Fed raises rates", body="Another body.")
    s.exact.keys = {other.title_key: [7]}
    assert match(s, other).decision.reasons == ["exact: same normalised title as document 7"]


def test_an_exact_headline_copy_says_title_not_title_and_body():
    """A headline with no body is filed under its whole-text key too (the hash of its title and an
    empty body); a match found there names only the title."""
    s, f = FakeState(), feats("Fed raises rates")
    s.add(7, 70, f)
    s.exact.keys = {f.content_key: [7], f.title_key: [7]}
    copy = feats("FED RAISES RATES!")
    assert copy.content_key == f.content_key
    assert match(s, copy).decision.reasons == ["exact: same normalised title as document 7"]


def test_an_exact_copy_outside_the_window_is_not_a_candidate():
    s, f = FakeState(), feats("Fed raises rates")
    s.add(7, 70, feats("Fed raises rates", t=T0 - 30 * 86_400))
    s.exact.keys = {f.content_key: [7]}
    d = match(s, f, window=(T0 - 86_400, T0 + 86_400)).decision
    assert not d.same and "exact" not in d.scores
    # The reason says so: it was "no candidate above any stage's threshold".
    assert d.reasons == ["a candidate outside the window: exact: same normalised title as document 7, "
                         "30.0 days apart (window_days 7)"]
    s.exact.keys = {}
    assert match(s, f, window=(T0 - 86_400, T0 + 86_400)).decision.reasons == [
        "no candidate above any stage's threshold"]


def counted_searches(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts, by name, the cheap indices' searches: an exact-key lookup, an n-gram bucket scored
    (``_pack``: every n-gram search reads its bucket through it), a MinHash LSH query."""
    counts: Counter[str] = Counter()

    def spy(name: str, orig: Callable[..., object]) -> Callable[..., object]:
        def counted(*args: object) -> object:
            counts[name] += 1
            return orig(*args)
        return counted

    for name, cls, attr in (("exact", ExactIndex, "lookup"), ("ngram", GatedNgramIndex, "_pack"),
                            ("minhash", BandTable, "query")):
        monkeypatch.setattr(cls, attr, spy(name, getattr(cls, attr)))
    return counts


def real_state(*docs: tuple[int, ItemFeatures]) -> CandidateState:
    """A candidate state (real indices) with each document the anchor of its own copy group."""
    s = CandidateState(CFG, None)
    for doc, f in docs:
        s.put(Entry(doc, doc, 10 * doc, f, None, None))
        s.set_rep(10 * doc, doc)
    return s


@pytest.mark.parametrize(("old_title", "reason"), [
    ("Fed raises rates by a quarter point", "exact: same normalised title as document 7"),
    ("Fed raises rates by a quarter point, stocks fall", "ngram: weighted 3-gram Jaccard 0.6"),  # IDF: 0.6..
    ("BREAKING: Fed raises rates by a quarter point", "minhash: 3-gram Jaccard 0.775 >= 0.6 with anchor 7"),
    ("Quake hits Turkey", None),
])
def test_an_item_with_no_candidate_searches_each_cheap_index_once_and_names_one_outside_the_window(
        monkeypatch: pytest.MonkeyPatch, old_title: str, reason: str | None) -> None:
    # Issue 37: the reason "a candidate outside the window" came from a second search of every
    # cheap index, without the window; now each stage keeps its hits outside the window from its one
    # search. An exact-key lookup is one per key, plus the one the exact reason's wording makes.
    f = feats("Fed raises rates by a quarter point")
    s = real_state((2, feats("Fed chair speaks on jobs", t=T0 - 20 * 86_400)),  # in the n-gram bucket 'fed'
                   (3, feats("Quake hits Turkey", t=T0)), (7, feats(old_title, t=T0 - 30 * 86_400)))
    counts = counted_searches(monkeypatch)
    d = match(s, f, window=(T0 - 86_400, T0 + 86_400)).decision
    assert not d.same and len(d.reasons) == 1
    if reason is None:
        assert d.reasons == ["no candidate above any stage's threshold"]
    else:
        assert d.reasons[0].startswith(f"a candidate outside the window: {reason}")
        assert d.reasons[0].endswith(", 30.0 days apart (window_days 7)")
    assert counts == {"exact": len(f.exact_keys) + (reason is not None and reason.startswith("exact")),
                      "ngram": 1, "minhash": 1}


def test_the_reason_outside_the_window_skips_the_excluded_document_and_prefers_the_earlier_stage() -> None:
    f = feats("Fed raises rates by a quarter point")
    old = T0 - 30 * 86_400
    s = real_state((5, feats("Fed raises rates by a quarter point, stocks fall", t=old - 86_400)),
                   (7, feats("Fed raises rates by a quarter point", t=old)))
    window = (T0 - 86_400, T0 + 86_400)
    c = Cascade(CFG, None)
    assert c.match(f, s, no_vector, window).decision.reasons[0].startswith(
        "a candidate outside the window: exact: same normalised title as document 7, 30.0 days")
    # Document 7 is the item itself (a settling replay): the n-gram stage's hit is named.
    reason = c.match(f, s, no_vector, window, exclude_doc=7).decision.reasons[0]
    assert reason.startswith("a candidate outside the window: ngram: weighted 3-gram Jaccard 0.")
    assert reason.endswith(" >= 0.3 with anchor 5 (lead 'fed'), 31.0 days apart (window_days 7)")
    # In the window, a candidate is proposed (and would be named): no reason outside it.
    assert c.match(f, s, no_vector, (old - 86_400, T0)).decision.reasons[0].startswith("exact: same normalised")
    # Without a window (stateless dedupe) nothing is outside it.
    assert c.match(f, s, no_vector, None).decision.matched_id == 7


def test_the_walk_stops_at_the_first_hit_below_the_threshold():
    s, f = FakeState(), feats("Fed raises rates again")
    for doc in (1, 2, 3):
        s.add(doc, 10 * doc, feats(f"title {doc}"))
    t = CFG.copy.ngram_threshold
    # Hits come best first: the walk stops at the first below the threshold, so doc 3 (out of
    # order) is never proposed.
    s.ngram.hits = [(1, t + 0.2), (2, t - 0.01), (3, t + 0.3)]
    guards = FakeGuards(block={"title 1"})
    d = match(s, f, guards).decision
    assert guards.asked == ["title 1"]
    assert not d.same and d.scores["ngram"] == pytest.approx(t + 0.2)
    assert (d.stage, d.blocked_by) == ("ngram", ["subject"])


def test_nothing_above_a_threshold_names_the_last_stage_that_ran():
    s, f = FakeState(), feats("Fed raises rates again")
    s.add(1, 10, feats("title 1"))
    s.minhash.hits = [(1, CFG.copy.minhash_threshold - 0.1)]
    d = match(s, f).decision  # no vector index: minhash is the last stage
    assert (d.same, d.stage, d.score) == (False, "minhash", pytest.approx(CFG.copy.minhash_threshold - 0.1))
    assert d.reasons == ["no candidate above any stage's threshold"]


def test_a_vetoed_cluster_is_proposed_once_and_the_next_cluster_gets_its_turn():
    s, f = FakeState(), feats("Fed raises rates by 25bp")
    s.add(1, 10, feats("blocked one"))
    s.add(2, 10, feats("same cluster"))
    s.add(3, 30, feats("allowed"))
    s.ngram.hits = [(1, 0.9), (2, 0.8), (3, 0.7)]
    guards = FakeGuards(block={"blocked one"})
    m = match(s, f, guards)
    assert guards.asked == ["blocked one", "allowed"]  # doc 2 shares doc 1's cluster: not asked again
    assert (m.decision.same, m.decision.stage, m.cluster_id, m.matched_doc) == (True, "ngram", 30, 3)
    assert m.decision.reasons[0].startswith("ngram: weighted 3-gram Jaccard 0.900")
    assert m.decision.reasons[0].endswith(", vetoed: subject: 'blocked one' differs")
    assert m.decision.reasons[1:] == [f"ngram: weighted 3-gram Jaccard 0.700 >= {CFG.copy.ngram_threshold} with "
                                      f"anchor 3 (lead '{f.lead}')", "guard subject: same"]


def test_every_proposal_vetoed_reports_the_best_vetoed_stage_and_its_guards():
    s, f = FakeState(), feats("Fed raises rates by 25bp")
    s.add(1, 10, feats("blocked one"))
    s.add(2, 20, feats("blocked two"))
    s.ngram.hits = [(1, 0.5)]
    s.minhash.hits = [(2, 0.95)]
    d = match(s, f, FakeGuards(block={"blocked one", "blocked two"})).decision
    assert (d.same, d.stage, d.score, d.blocked_by) == (False, "minhash", 0.95, ["subject"])
    assert len(d.reasons) == 2 and all(", vetoed: subject:" in r for r in d.reasons)


def test_a_stage_is_any_object_with_the_stage_interface():
    """A stage added to the tuple runs in ``match`` and ``pair`` with nothing else changed."""

    class FirstWord(Stage):
        name = "exact"

        @property
        def threshold(self) -> float:
            return 1.0

        def candidates(self, probe: Probe) -> Iterable[tuple[int, float]]:
            word = probe.item.title.split()[0]
            return [(d, 1.0) for d, (_, g) in probe.state.entries.docs.items()
                    if g.title.split()[0] == word]

        def describe(self, probe: Probe, doc: int, score: float) -> str:
            return f"first word as document {doc}"

        def score_pair(self, a, b, inputs) -> PairScore:
            same = a.title.split()[0] == b.title.split()[0]
            return PairScore(float(same), {"exact": float(same)}, "first word" if same else None)

    s = FakeState()
    s.add(5, 50, feats("Samsung profit falls"))
    c = Cascade(CFG, None, stages=[FirstWord(), MinHashStage(CFG)])
    m = c.match(feats("Samsung shares rise"), s, no_vector, None)
    assert (m.decision.same, m.matched_doc, m.decision.reasons) == (True, 5, ["first word as document 5"])
    d = c.pair(feats("Samsung a"), feats("Samsung b"), GatedNgramIndex(), lambda: None)
    assert (d.same, d.reasons) == (True, ["first word"])


# pairs ------------------------------------------------------------------------------------------------
def test_pair_proposes_at_the_first_stage_that_reaches_its_threshold():
    c = Cascade(CFG, None)
    a, b = feats("Fed raises rates"), feats("FED RAISES RATES")
    d = c.pair(a, b, GatedNgramIndex(), lambda: None)
    assert (d.same, d.stage, d.scores) == (True, "exact", {"exact": 1.0})
    d = c.pair(a, b, GatedNgramIndex(), lambda: None, all_scores=True)
    assert list(d.scores) == ["exact", "ngram", "minhash"]  # no vectors: no embedding score


def test_pair_without_a_proposal_names_the_last_stage_that_scored():
    c = Cascade(CFG, None)
    a, b = feats("Fed raises rates"), feats("Samsung profit falls")
    d = c.pair(a, b, GatedNgramIndex(), lambda: None)
    assert (d.same, d.stage, d.reasons) == (False, "minhash", ["no stage reached its threshold"])
    v = np.array([1.0, 0.0], dtype=np.float32)
    d = c.pair(a, b, GatedNgramIndex(), lambda: (v, v))
    assert (d.same, d.stage, d.score) == (True, "embedding", pytest.approx(1.0))
    assert d.reasons == [f"embedding: cosine 1.000 >= {CFG.copy.embedding_threshold}"]


def test_one_veto_formatter_for_match_and_pair():
    blocking = [GuardVerdict("quantity", True, True, "quantity: 0.25%p != 0.5%p"), GuardVerdict("date", True, True)]
    assert veto_reason(blocking) == "vetoed: quantity: 0.25%p != 0.5%p; date"
    guards = FakeGuards(block={"Fed raises rates 0.5%p"})
    d = Cascade(CFG, guards).pair(feats("Fed raises rates 0.25%p"), feats("Fed raises rates 0.5%p"),
                                  GatedNgramIndex(), lambda: None)
    # as ``match`` writes a vetoed proposal: the stage's reason, then the veto, in one line
    assert not d.same and d.reasons[-1].startswith("ngram: weighted 3-gram Jaccard")
    assert d.reasons[-1].endswith(", vetoed: subject: 'Fed raises rates 0.5%p' differs")


# the prefetch's prediction ------------------------------------------------------------------------------
def test_cheaply_unsettled_skips_what_the_state_or_an_earlier_batch_item_settles():
    state = CandidateState(CFG, None)
    known = feats("Hyundai recalls two million vehicles")
    state.put(Entry(1, 1, 1, known, None, None))
    state.set_rep(1, 1)
    batch = [feats("Hyundai recalls two million vehicles"),  # exact copy of the state
             feats("Samsung opens a chip plant in Texas"),  # new
             feats("Samsung opens a chip plant in Texas"),  # copy of the item before it
             feats("A completely different headline")]  # new
    assert Cascade(CFG, None).cheaply_unsettled(batch, state) == [1, 3]


# the candidate state on its own ---------------------------------------------------------------------------
def test_state_compares_with_the_anchor_and_files_every_member_under_its_exact_keys():
    s = CandidateState(CFG, None)
    a, b = feats("Fed raises rates by a quarter point"), feats("Fed lifts rates a quarter point")
    s.put(Entry(1, 1, 10, a, None, None))
    s.set_rep(10, 1)
    s.put(Entry(2, 2, 10, b, None, None))  # a member, not the anchor
    assert s.reps == {10: 1}
    assert s.exact.lookup(b.title_key) == [2]
    assert [d for d, _ in s.ngram.candidates(b.lead, b.grams)] == [1]  # only the anchor is searched
    assert [d for d, _ in s.minhash.candidates(a.grams)] == [1]


def test_state_removing_the_anchor_promotes_the_earliest_remaining_member():
    s = CandidateState(CFG, None)
    for doc in (3, 5, 4):
        s.put(Entry(doc, doc, 10, feats(f"Fed raises rates story {doc}"), None, None))
    s.set_rep(10, 3)
    s.remove(3)
    assert s.reps[10] == 4 and 3 not in s.entries
    s.remove(4)
    s.remove(5)
    assert 10 not in s.reps and len(s) == 0


def test_state_expire_and_retain_forget_from_memory_only():
    s = CandidateState(CFG, None)
    old, new = feats("Old story about rates", t=T0 - 10 * 86_400), feats("New story about chips", t=T0)
    s.put(Entry(1, 1, 1, old, None, None))
    s.set_rep(1, 1)
    s.put(Entry(2, 2, 2, new, None, None))
    s.set_rep(2, 2)
    assert s.expire(T0 - 86_400) == 1
    assert list(s.entries) == [2] and s.reps == {2: 2} and s.exact.lookup(old.content_key) == []
    assert s.retain({99}) == 1 and len(s) == 0 and not s.reps


def test_exact_stage_describes_by_the_key_it_was_found_under():
    """``ExactStage.describe`` reads the key back from the index: a doc under the whole-text key
    is described as such even when it is also under the title key."""
    s = CandidateState(CFG, None)
    f = feats("Fed raises rates", body="The body.")
    s.put(Entry(1, 1, 1, f, None, None))
    probe = Probe(f, s, no_vector, None)
    assert list(ExactStage().candidates(probe)) == [(1, 1.0), (1, 1.0)]
    assert ExactStage().describe(probe, 1, 1.0).startswith("exact: same normalised title and body")
    assert NgramStage(CFG).name == "ngram"


# the copy gap (EngineConfig.copy.copy_gap_hours) ---------------------------------------------------------
HOUR = 3600.0


def test_a_rewrite_a_news_cycle_away_is_not_a_copy_and_no_guard_is_asked():
    s = FakeState()
    s.add(1, 10, feats("Wall St opens lower after S&P's record close", t=T0))
    s.ngram.hits = [(1, 0.8)]
    later = feats("Wall Street opens lower after the S&P's record close", t=T0 + 27.7 * HOUR)
    guards = FakeGuards()
    d = match(s, later, guards).decision
    assert (d.same, d.stage, d.blocked_by) == (False, "ngram", ["time"])
    assert d.reasons[0].endswith(", vetoed: time: published 27.7 h apart > copy_gap_hours 12 (not the same words)")
    assert guards.asked == []
    # the same rewrite within the gap is a copy
    s.entries.docs[1] = (10, feats("Wall St opens lower after S&P's record close", t=T0 + 20 * HOUR))
    assert match(s, later, guards).decision.same


def test_the_same_words_are_a_copy_at_any_distance_in_the_window_and_a_gap_of_0_is_off():
    s, f = FakeState(), feats("Mt. Gox files for US bankruptcy", t=T0 + 7 * 24 * HOUR - 1)
    s.add(7, 70, feats("Mt. Gox files for US bankruptcy", t=T0))
    s.exact.keys = {f.content_key: [7]}
    assert match(s, f).decision.stage == "exact" and match(s, f).decision.same
    s2 = FakeState()
    s2.add(1, 10, feats("Wall St opens lower after S&P's record close", t=T0))
    s2.ngram.hits = [(1, 0.8)]
    later = feats("Wall Street opens lower after the S&P's record close", t=T0 + 27.7 * HOUR)
    assert Cascade(CFG.replace(copy_gap_hours=0.0), None).match(later, s2, no_vector, None).decision.same


def test_the_same_letters_respaced_or_with_an_outlet_tail_are_a_copy_past_the_gap():
    """A Korean re-run spaced otherwise and a syndicated headline with an outlet's tail say the same
    words: the gap does not apply (the bench stream's re-runs 12-40 h later were new groups)."""
    for first, rerun in (("부산 지하철 파업 돌입", "부산지하철 파업 돌입"),
                         ("Volcanic eruption closes 3 airports", "Volcanic eruption closes 3 airports - Yahoo News")):
        s = FakeState()
        s.add(1, 10, feats(first, t=T0))
        s.ngram.hits = [(1, 0.9)]
        d = match(s, feats(rerun, t=T0 + 30 * HOUR)).decision
        assert d.same and d.blocked_by == [], (rerun, d.reasons)
    s = FakeState()
    s.add(1, 10, feats("Volcanic eruption closes 3 airports", t=T0))
    s.ngram.hits = [(1, 0.9)]
    d = match(s, feats("Volcanic eruption closes 4 airports - Yahoo News", t=T0 + 30 * HOUR)).decision
    assert (d.same, d.blocked_by) == (False, ["time"])


def test_compare_applies_the_gap_only_when_both_items_carry_a_time():
    c = Cascade(CFG, None)
    idf = GatedNgramIndex()
    a = feats("Wall St opens lower after S&P's record close", t=T0)
    b = feats("Wall St opens lower after S&P record close", t=T0 + 30 * HOUR)
    far = c.pair(a, b, idf, lambda: None)
    assert (far.same, far.blocked_by) == (False, ["time"]) and ", vetoed: time: published 30.0 h" in far.reasons[-1]
    untimed = c.pair(feats(a.title, t=0.0), feats(b.title, t=0.0), idf, lambda: None)
    assert untimed.same and untimed.blocked_by == []


def test_the_guards_do_not_veto_the_same_letters():
    """A North Korean respelling spaced otherwise ("로동당기관지" / "노동당 기관지", koen-news-park):
    nothing a guard compares differs, so a guard's veto is no veto (the who guard read the glued
    words as another name), and the reasons say so; another word is vetoed."""
    south = "북한의 노동당 기관지 노동신문은 대북대화 제의를 거부했다"
    north = "북한의 로동당기관지 로동신문은 대북대화제의를 거부했다"
    other_paper = "북한의 노동당 기관지 민주조선은 대북대화 제의를 거부했다"
    guards = FakeGuards(block={south, other_paper})
    for other in (south, other_paper):
        s = FakeState()
        s.add(1, 10, ItemFeatures.build(other, "", "ko", T0))
        s.ngram.hits = [(1, 0.9)]
        d = match(s, ItemFeatures.build(north, "", "ko", T0), guards).decision
        if other == south:
            assert d.same and d.blocked_by == [], d.reasons
            assert f"guard subject: {south!r} differs (the same letters (spacing, case, punctuation apart): no veto)" \
                in d.reasons
        else:
            assert not d.same and d.blocked_by == ["subject"]


def test_the_date_guard_still_vetoes_the_same_letters():
    """The same words published days apart may say different days ("오늘 ..."): the date guard reads
    each side by its publication time, so its veto stands on a same-letter pair."""

    class DateGuard:
        def check(self, a: GuardInput, b: GuardInput) -> list[GuardVerdict]:
            return [GuardVerdict("date", True, True, "date: date Dec 1 != Dec 3")]

    s = FakeState()
    s.add(1, 10, ItemFeatures.build("오늘 코스피 2% 상승 마감", "", "ko", T0))
    s.ngram.hits = [(1, 0.9)]
    d = match(s, ItemFeatures.build("오늘 코스피 2%  상승마감", "", "ko", T0 + 3600), DateGuard()).decision  # type: ignore[arg-type]
    assert not d.same and d.blocked_by == ["date"]
