"""EngineConfig.copy.body_passages: bodies at ingest through the passage path (issue 18)."""

from __future__ import annotations

import pytest

from service.config import EngineConfig
from service.engine import Deduper

BODY = ("The Federal Reserve raised its benchmark rate by a quarter point on Wednesday. "
        "Officials signalled that one more increase is likely this year. "
        "Markets rallied after the announcement.")
# The same story re-published: the same sentences, one typo, line breaks and a byline.
COPY = "(Reuters) - The Federal Reserve raised its benchmark rate by a quarter point on Wedensday.\n" \
       "Officials signalled that one more increase is likely this year.\nMarkets rallied after the announcement."
# Same headline, a body that carries new content: a later paragraph the first one lacks.
UPDATE = BODY + " Bond yields fell to their lowest level since March."


def _art(title: str, body: str | None, n: int) -> dict:
    a = {"title": title, "url": f"https://x.example/{n}", "lang": "en", "published_at": f"2024-11-01T0{n}:00:00Z"}
    if body is not None:
        a["body"] = body
    return a


def _run(on: bool, second_body: str | None, first_body: str | None = BODY) -> list:
    d = Deduper.open(":memory:", model=None, config=EngineConfig.of(body_passages=on))
    try:
        return [d.ingest(_art("Fed raises rates by a quarter point", first_body, 1)),
                d.ingest(_art("Fed raises rates by a quarter point", second_body, 2))]
    finally:
        d.close()


@pytest.mark.parametrize("on", [False, True])
def test_a_body_copy_confirms_the_headline_merge(on: bool) -> None:
    first, second = _run(on, COPY)
    assert second.status == "duplicate" and second.duplicate_of == first.document_id
    body_notes = [r for r in second.decision.reasons if r.startswith("body")]
    assert bool(body_notes) == on
    if on:
        assert "passage copy" in body_notes[0]


def test_a_body_with_new_content_vetoes_the_headline_merge_only_when_on() -> None:
    first, second = _run(False, UPDATE)
    assert second.status == "duplicate"   # the headline cascade alone merges them
    first, second = _run(True, UPDATE)
    assert second.status == "new" and second.copy_group_id != first.copy_group_id
    assert "body" in second.decision.blocked_by
    assert any(r.startswith("body veto") and "new content" in r for r in second.decision.reasons)


@pytest.mark.parametrize("second_body, first_body", [(None, BODY), (UPDATE, None),
                                                     ("One sentence only.", BODY)])
def test_without_two_bodies_of_two_sentences_the_decision_is_the_headline_one(second_body, first_body) -> None:
    off = _run(False, second_body, first_body)[1]
    on = _run(True, second_body, first_body)[1]
    assert on.status == off.status == "duplicate"
    assert on.decision.to_dict() == off.decision.to_dict()
