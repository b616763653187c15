"""The pages' view-model: stories (issue 17's event level) as editors read them.

A story holds copy groups (the cascade's clusters: the same report again), and each group its
members. Every page reads the store through this module only, and this module reads stories
through ``service.views.story_view``, the function ``GET /v1/stories/{id}`` and ``samestory
stories`` answer with: the pages only add what a reader needs on top (the title in the reader's
language, filters, which member started its group), never a second way of telling a story.
The list reads its model (``service.views.StoryDetail``); a story's page, the dictionaries it dumps to.

Times are epoch seconds in the store and ISO 8601 on the page: the reader's local time shown
(:func:`local_iso`), the UTC one (``service.types.utc_iso``, as in every JSON answer) in ``<time datetime>``.

>>> from service.engine import Deduper
>>> from service.types import Article
>>> d = Deduper.open(":memory:", model=None)
>>> _ = d.ingest(Article(title="Fed raises rates", url="https://a.example/1", lang="en"))
>>> _ = d.ingest(Article(title="FED RAISES RATES", url="https://b.example/2", lang="en"))
>>> page = story_list(d.store)
>>> [(s["id"], s["size"], s["groups"], s["langs"], s["outlets"]) for s in page["stories"]]
[(1, 2, 1, ['en'], ['a.example', 'b.example'])]
>>> [len(g["members"]) for g in story_detail(d.store, 1)["groups"]]
[2]
>>> d.close()
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from service.types import utc_iso
from service.views import StoryDetail, outlet_of, story_title, story_view, title_text

__all__ = ["SCAN_LIMIT", "Filters", "local_iso", "outlet_of", "parse_when", "story_detail", "story_list", "utc_iso"]

# Filtering reads stories newest first and stops after this many, so a page answers in bounded
# time on a store of millions (the page says when it stopped short). Reads hold the engine lock
# like every store read of the service, so this bounds how long a search can hold up ingestion:
# a search matching nothing read these 1,000 stories (one two-member copy group each) in
# 0.96-1.54 s on SQLite on the 2-core VM under a load of ~19, against 0.61-0.85 s for the
# cluster list the pages read before stories, measured side by side (python -m bench.ui_scan
# --stories 1500; docs/ui.md). With the limit at 2,000 a search took 2.4 s before stories.
SCAN_LIMIT = 1_000


def local_iso(t: float | None, tz: Any = None) -> str | None:
    """Epoch seconds as ISO 8601 with the offset of ``tz`` (default: the server's local zone).

    >>> local_iso(0.0, timezone.utc)
    '1970-01-01T00:00:00+00:00'
    """
    if t is None:
        return None
    return datetime.fromtimestamp(t, tz=timezone.utc).astimezone(tz).isoformat(timespec="seconds")


def parse_when(value: str | None, what: str) -> float | None:
    """An ISO 8601 date or time from a filter box as epoch seconds (a date alone is its midnight
    UTC; a time without an offset is UTC); empty: None.

    >>> parse_when("1970-01-02", "since")
    86400.0
    >>> parse_when("yesterday", "since")
    Traceback (most recent call last):
    ...
    ValueError: since must be an ISO 8601 date or time (2026-11-20 or 2026-11-20T09:00+09:00), got 'yesterday'
    """
    if value is None or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{what} must be an ISO 8601 date or time (2026-11-20 or 2026-11-20T09:00+09:00),"
                         f" got {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


@dataclass(frozen=True)
class Filters:
    """What the story list is narrowed to; every field optional."""

    lang: str | None = None
    outlet: str | None = None
    since: float | None = None
    until: float | None = None
    q: str | None = None

    @property
    def active(self) -> bool:
        return any(v not in (None, "") for v in (self.lang, self.outlet, self.since, self.until, self.q))


def _title_for(view: StoryDetail, reader_lang: str | None) -> tuple[str | None, str | None]:
    """The story's title (``service.views.story_title``, as ``GET /v1/stories`` gives it: the
    earliest original-outlet headline as written) unless the reader reads another language and a
    member is in it: then the same rule over the members in the reader's language; and that
    title's language."""
    if not view.copy_groups:
        return None, None
    if reader_lang and view.title_lang != reader_lang:
        ours = story_title([m for g in view.copy_groups for m in g.members if m.lang == reader_lang])
        if ours is not None:
            return title_text(ours), ours.lang
    return view.title, view.title_lang


def _summary(view: StoryDetail, reader_lang: str | None) -> dict[str, Any] | None:
    members = [m for g in view.copy_groups for m in g.members]
    if not members:  # a story an editor merged into another keeps its row, with no groups left
        return None
    title, title_lang = _title_for(view, reader_lang)
    return {"id": view.id, "title": title, "title_lang": title_lang, "size": len(members),
            "groups": len(view.copy_groups), "langs": view.languages, "outlets": view.outlets,
            "first": view.first, "last": view.last, "updated_at": view.updated_at,
            "titles": [m.title or "" for m in members]}


def _keep(s: dict[str, Any], f: Filters) -> bool:
    if f.lang and f.lang not in s["langs"]:
        return False
    if f.outlet and not any(f.outlet.lower() in o.lower() for o in s["outlets"]):
        return False
    if f.since is not None and s["last"] < f.since:
        return False
    if f.until is not None and s["first"] > f.until:
        return False
    if f.q:
        # Every word of the query in one member's title, in any order (the box asks for "words";
        # as one phrase "gwangju strike" missed "Gwangju teachers' union to begin general strike").
        words = f.q.casefold().split()
        if not any(all(w in t.casefold() for w in words) for t in s["titles"]):
            return False
    return True


def story_list(store: Any, filters: Filters | None = None, *, reader_lang: str | None = None, limit: int = 50,
               offset: int = 0, scan_limit: int = SCAN_LIMIT) -> dict[str, Any]:
    """Stories, most recently updated first (``store.list_stories``, as ``GET /v1/stories``),
    narrowed by ``filters``: each with its title (in ``reader_lang`` where it has one),
    languages, outlets, copy groups, member count and time span.

    ``scanned`` says how many stories were read; ``truncated`` that the scan stopped at
    ``scan_limit`` before the store's end (older stories were not searched).
    """
    filters = filters or Filters()
    kept: list[dict[str, Any]] = []
    scanned, batch, pos, truncated = 0, 200, 0, False
    want = offset + limit + 1
    while len(kept) < want:
        if scanned >= scan_limit:
            truncated = True
            break
        rows = store.list_stories(min(batch, scan_limit - scanned), pos)
        if not rows:
            break
        pos += len(rows)
        for row in rows:
            scanned += 1
            view = story_view(store, row.id, members=True)
            s = _summary(view, reader_lang) if view is not None else None
            if s is not None and _keep(s, filters):
                kept.append(s)
                if len(kept) >= want:
                    break
    page = kept[offset : offset + limit]
    return {"stories": page, "offset": offset, "limit": limit, "scanned": scanned, "truncated": truncated,
            "next_offset": offset + limit if len(kept) > offset + limit else None}


def _member(m: dict[str, Any], representative_id: int) -> dict[str, Any]:
    """A member as the story page shows it: how it joined its copy group (the decision's reasons
    and guard verdicts), whether it started the group, whether it represents it."""
    decision = m["decision"] or {}
    return {**m, "reasons": decision.get("reasons", []), "guards": decision.get("guards", []),
            "blocked_by": decision.get("blocked_by", []), "previous": decision.get("previous"),
            # No earlier item matched it: it started its copy group (an editor's split is shown as such).
            "started": not decision.get("same", True) and m["stage"] != "editor",
            "is_representative": m["document_id"] == representative_id}


def story_detail(store: Any, story_id: int, *, reader_lang: str | None = None) -> dict[str, Any] | None:
    """A story: its copy groups (why each is in the story: its story score and reason), inside
    each its members (stage, score, reasons, guard verdicts: why each joined the group), the
    group's representative, why it is one and its history; None if there is no such story."""
    detail = story_view(store, story_id, members=True)
    if detail is None:
        return None
    view = detail.model_dump()  # the page's templates read plain dictionaries
    groups = []
    for g in view["copy_groups"]:
        members = [_member(m, g["representative_id"]) for m in g["members"]]
        rep = next((m for m in members if m["is_representative"]), None)
        groups.append({**g, "members": members, "representative": rep})
    members = [m for g in groups for m in g["members"]]
    title, title_lang = _title_for(detail, reader_lang)
    return {"id": story_id, "title": title, "title_lang": title_lang, "groups": groups, "members": members,
            "size": len(members), "langs": view["languages"], "outlets": view["outlets"],
            "first": view["first"], "last": view["last"], "start": view["start"], "end": view["end"],
            "created_at": view["created_at"], "updated_at": view["updated_at"]}
