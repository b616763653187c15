"""Copy groups are matched through their anchor (earliest member), never the newest (issue 17)."""

from __future__ import annotations

from pathlib import Path

from service.engine import Deduper
from service.types import Article

# A ~ B and B ~ C at the n-gram stage (weighted 3-gram Jaccard >= 0.3, same lead token), A !~ C.
A = "Quantum Foods recalls frozen peas over listeria"
B = "Quantum Foods recalls frozen peas over listeria in nine states"
C = "Quantum Foods faces lawsuits in nine states after peas recall widens"


def _ingest(d: Deduper, titles: list[str]) -> list:
    return [d.ingest(Article(title=t, url=f"https://outlet{i}.example/a")) for i, t in enumerate(titles)]


def test_pairs_are_as_the_rule_needs() -> None:
    from service.config import EngineConfig

    # the n-gram stage's own decisions: the pair verifier (on by default) reads A / B as one report
    d = Deduper.open(":memory:", model=None, guards=None, config=EngineConfig.of(verifier=False))
    assert d.compare(A, B).same and d.compare(B, C).same and not d.compare(A, C).same
    d.close()


def test_no_chaining_through_the_newest_member() -> None:
    d = Deduper.open(":memory:", model=None, guards=None)
    a, b, c = _ingest(d, [A, B, C])
    assert (a.status, b.status, c.status) == ("new", "duplicate", "new")
    assert b.cluster_id == a.cluster_id and c.cluster_id != a.cluster_id
    # B was compared with A (the anchor), and is now the displayed representative (newer).
    assert b.decision.matched_id == a.document_id
    assert b.representative_id == b.document_id
    assert d.store.get_cluster(a.cluster_id).representative_id == b.document_id
    d.close()


def test_the_anchor_survives_a_restart(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    d = Deduper.open(db, model=None, guards=None)
    a, _ = _ingest(d, [A, B])
    d.close()
    for snapshot in (True, False):  # from the saved state, and rebuilt from the store
        from service.config import EngineConfig

        d = Deduper.open(db, model=None, guards=None, config=EngineConfig.of(state_snapshot=snapshot))
        assert d.ctx.state.reps[a.cluster_id] == a.document_id
        d.close()
    d = Deduper.open(db, model=None, guards=None)
    c = d.ingest(Article(title=C, url="https://outlet2.example/a"))
    assert c.status == "new"
    d.close()


def test_a_rewrite_a_news_cycle_later_opens_its_own_copy_group_and_an_exact_copy_does_not() -> None:
    from datetime import datetime, timedelta, timezone

    monday = datetime(2014, 3, 10, 13, 30, tzinfo=timezone.utc)
    d = Deduper.open(":memory:", model=None, guards=None)
    first = d.ingest(Article(title=A, url="https://outlet0.example/a", published_at=monday))
    near = d.ingest(Article(title=B, url="https://outlet1.example/a", published_at=monday + timedelta(hours=3)))
    far = d.ingest(Article(title=B, url="https://outlet2.example/b", published_at=monday + timedelta(hours=30)))
    same = d.ingest(Article(title=A, url="https://outlet3.example/a", published_at=monday + timedelta(hours=30)))
    assert near.cluster_id == first.cluster_id  # a rewrite 3 hours later: a copy
    # B again 30 hours on: an exact copy of ``near`` (same words), so a copy at any distance ...
    assert far.cluster_id == first.cluster_id and far.decision.stage == "exact"
    # ... while a rewrite 30 hours on is refused, with the reason: it is compared with the
    # group's anchor (``first``, 30 hours earlier), not with the exact copies that came since
    late = d.ingest(Article(title="Quantum Foods recalls frozen peas over listeria, nine states",
                            url="https://outlet4.example/a", published_at=monday + timedelta(hours=30)))
    assert same.cluster_id == first.cluster_id
    assert late.cluster_id != first.cluster_id and "time" in late.decision.blocked_by
    assert any("copy_gap_hours 12" in r for r in late.decision.reasons)
    d.close()


def test_a_re_run_a_day_later_does_not_stretch_its_story_to_that_day(tmp_path: Path) -> None:
    """An exact copy published more than copy_gap_hours from its group's anchor joins the group
    but counts at the anchor's time in its story: the story's time span stays the anchor's day,
    live and after a restart (the story evidence rebuilt from the store)."""
    from datetime import datetime, timedelta, timezone

    monday = datetime(2014, 3, 10, 13, 30, tzinfo=timezone.utc)
    db = f"sqlite:///{tmp_path / 's.db'}"
    d = Deduper.open(db, model=None, guards=None)
    first = d.ingest(Article(title=A, url="https://outlet0.example/a", published_at=monday))
    near = d.ingest(Article(title=B, url="https://outlet1.example/a", published_at=monday + timedelta(hours=3)))
    rerun = d.ingest(Article(title=A, url="https://outlet2.example/a", published_at=monday + timedelta(hours=27)))
    assert rerun.cluster_id == first.cluster_id == near.cluster_id and rerun.decision.stage == "exact"
    assert rerun.story_id == first.story_id
    t0 = monday.timestamp()

    def span(dd):
        story = dd.story_level.stories.stories[first.story_id]
        return story.first_time, story.last_time

    assert span(d) == (t0, t0 + 3 * 3600)  # the rewrite 3 h on counts at its own time, the re-run does not
    d.close()
    d = Deduper.open(db, model=None, guards=None)
    assert span(d) == (t0, t0 + 3 * 3600)
    d.close()
    # with the gap off, the re-run counts at its own time (the rule follows copy_gap_hours)
    from service.config import EngineConfig

    d = Deduper.open(f"sqlite:///{tmp_path / 'off.db'}", model=None, guards=None,
                     config=EngineConfig.of(copy_gap_hours=0.0))
    a = d.ingest(Article(title=A, url="https://outlet0.example/a", published_at=monday))
    d.ingest(Article(title=A, url="https://outlet2.example/a", published_at=monday + timedelta(hours=27)))
    assert d.story_level.stories.stories[a.story_id].last_time == t0 + 27 * 3600
    d.close()
