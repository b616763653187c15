"""What docs/operations.md and docs/api.md say of ``POST /v1/dedupe`` is what the route takes and
answers: a RAG pipeline writes its client from these two pages."""

from __future__ import annotations

import re
import typing

from service.api.schemas import DedupeRecord, DedupeRequest, DedupeResponse, DroppedOut
from service.api.settings import Settings
from service.types import MAX_BODY_CHARS, StageName
from tests.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"


def _section(page: str, start: str, end: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    return text[text.index(start):text.index(end, text.index(start))]


def test_the_rag_section_names_only_fields_the_route_has() -> None:
    """It once said ``filtered`` (the Python result's attribute) where the answer has ``dropped``,
    and ``text_field`` (a Python argument) where the route reads ``text``."""
    section = _section("operations.md", "## RAG pipelines", "## What to watch")
    known = (set(DedupeRequest.model_fields) | set(DedupeResponse.model_fields) | set(DroppedOut.model_fields)
             | set(DedupeRecord.model_fields) | {"lang", "body_passages"} | set(typing.get_args(StageName)))
    names = set(re.findall(r"`([a-z_]+)`", section))
    assert names and names <= known, names - known


def test_the_api_page_states_the_dedupe_limits() -> None:
    section = _section("api.md", "### `POST /v1/dedupe`", "### `GET /v1/documents")
    assert f"`max_dedupe_texts` ({Settings().max_dedupe_texts:,})" in section
    assert f"{MAX_BODY_CHARS:,} characters" in " ".join(section.split())
    assert "`lang`" in section


def test_the_api_page_names_every_field_of_the_answer() -> None:
    """It said "one `Decision` per input" without the field's name, `decisions`."""
    section = _section("api.md", "### `POST /v1/dedupe`", "### `GET /v1/documents")
    named = set(re.findall(r"`([a-z_]+)`", section))
    # the deprecated alias (clusters) is in the page's "Deprecated names" table instead
    fields = set(DedupeResponse.model_fields) - {old for _, old in DedupeResponse.ALIASES}
    assert "decisions" in fields and fields <= named, fields - named
