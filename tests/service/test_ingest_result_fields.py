"""What an ingest result's document fields name, as docs/concepts.md and the OpenAPI schema say
(the thirteenth tour: the page said ``duplicate_of`` names the document an item matched; it names
the copy group's representative when the item joined, ``matched_copy`` the matched document)."""

from __future__ import annotations

from service.api.schemas import IngestResultOut
from service.engine import Deduper
from tests.paths import REPO_ROOT

ORIGINAL = {"title": "Fire at Busan warehouse forces 340 to evacuate", "url": "https://a.example/fire",
            "published_at": "2026-12-07T00:30:00Z"}


def test_duplicate_of_is_the_representative_and_matched_copy_the_matched_document() -> None:
    d = Deduper.open(":memory:", model=None)
    try:
        a = d.ingest(ORIGINAL)
        # A later copy at another original outlet becomes the representative ("newer").
        b = d.ingest({**ORIGINAL, "url": "https://b.example/fire", "published_at": "2026-12-07T00:40:00Z"})
        assert b.representative_id == b.document_id
        # A third copy is matched with the group's anchor, the first report; its group is shown by b.
        c = d.ingest({**ORIGINAL, "url": "https://c.example/fire", "published_at": "2026-12-07T00:35:00Z"})
        assert c.status == "duplicate" and c.matched_copy == a.document_id == c.decision.matched_id
        assert c.duplicate_of == b.document_id != c.matched_copy
    finally:
        d.close()


def test_the_docs_name_the_matched_document_by_its_field() -> None:
    concepts = (REPO_ROOT / "docs" / "concepts.md").read_text("utf-8")
    assert "`matched_copy` names the document it matched" in concepts
    assert "`duplicate_of` names the document it matched" not in concepts
    fields = IngestResultOut.model_json_schema()["properties"]
    assert "representative" in fields["duplicate_of"]["description"]
