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
    d = Deduper.open(":memory:", model=None, guards=None)
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

        d = Deduper.open(db, model=None, guards=None, config=EngineConfig(state_snapshot=snapshot))
        assert d.state.reps[a.cluster_id] == a.document_id
        d.close()
    d = Deduper.open(db, model=None, guards=None)
    c = d.ingest(Article(title=C, url="https://outlet2.example/a"))
    assert c.status == "new"
    d.close()
