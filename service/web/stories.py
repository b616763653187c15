"""The pages' view-model: stories as editors read them, built on today's clusters.

Every page reads the store through this module only, so the day "story" means the two-level
stories (copy groups inside stories) instead of today's clusters, only this file changes. A
story here is one cluster of ``service.views``; its copy groups are the members that joined by
identical text (stage ``exact`` or ``url``), linked through the document they matched.

Times are epoch seconds in the store and ISO 8601 on the page (:func:`local_iso`).

>>> from service.engine import Deduper
>>> from service.types import Article
>>> d = Deduper.open(":memory:", model=None)
>>> _ = d.ingest(Article(title="Fed raises rates", url="https://a.example/1", lang="en"))
>>> _ = d.ingest(Article(title="FED RAISES RATES", url="https://b.example/2", lang="en"))
>>> page = story_list(d.store)
>>> [(s["id"], s["size"], s["langs"], s["outlets"]) for s in page["stories"]]
[(1, 2, ['en'], ['a.example', 'b.example'])]
>>> [len(g["members"]) for g in story_detail(d.store, 1)["groups"]]
[2]
>>> d.close()
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from service.views import cluster_view

# Filtering reads stories newest first and stops after this many, so a page answers in bounded
# time on a store of millions (the page says when it stopped short). Reads hold the engine lock
# like every store read of the service, so this bounds how long a search can hold up ingestion:
# a search matching nothing read 1,500 two-member stories in 1.0-1.2 s and 2,000 in 2.4 s on
# SQLite on the 2-core VM (python -m bench.ui_scan --stories 1500 / 2500).
SCAN_LIMIT = 1_000


def local_iso(t: float | None, tz: Any = None) -> str | None:
    """Epoch seconds as ISO 8601 with the offset of ``tz`` (default: the server's local zone).

    >>> local_iso(0.0, timezone.utc)
    '1970-01-01T00:00:00+00:00'
    """
    if t is None:
        return None
    return datetime.fromtimestamp(t, tz=timezone.utc).astimezone(tz).isoformat(timespec="seconds")


def utc_iso(t: float | None) -> str | None:
    return local_iso(t, timezone.utc)


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


def outlet_of(url: str | None, source: str | None) -> str:
    """The outlet a reader recognises: the item's source, else its URL's host without ``www.``."""
    if source:
        return source
    host = urlsplit(url).hostname if url else None
    if not host:
        return "unknown"
    return host[4:] if host.startswith("www.") else host


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


def _member_rows(store: Any, cluster_id: int) -> list[dict[str, Any]]:
    """Each member's document, latest version and when it was published (or first seen)."""
    out = []
    for m in store.members_of(cluster_id):
        doc = store.get_document(m.document_id)
        if doc is None:
            continue
        ver = store.get_version(doc.latest_version_id) if doc.latest_version_id is not None else None
        when = doc.published_at if doc.published_at is not None else doc.first_seen
        out.append({"membership": m, "doc": doc, "version": ver, "when": when,
                    "title": (ver.title or ver.body[:200]) if ver else None,
                    "lang": ver.lang if ver else "und", "outlet": outlet_of(doc.url, doc.source)})
    return out


def _title_for(rows: list[dict[str, Any]], rep_id: int, reader_lang: str | None) -> tuple[str | None, str | None]:
    """The title in the reader's language where the story has one (the representative's first,
    then the earliest member's), else the representative's; and that title's language."""
    rep = next((r for r in rows if r["doc"].id == rep_id), rows[0] if rows else None)
    if reader_lang:
        if rep is not None and rep["lang"] == reader_lang:
            return rep["title"], rep["lang"]
        for r in sorted(rows, key=lambda r: r["when"]):
            if r["lang"] == reader_lang and r["title"]:
                return r["title"], r["lang"]
    return (rep["title"], rep["lang"]) if rep else (None, None)


def _summary(store: Any, cluster: Any, reader_lang: str | None) -> dict[str, Any] | None:
    rows = _member_rows(store, cluster.id)
    if not rows:  # a story emptied by an editor's merge: its members live on in the other story
        return None
    title, title_lang = _title_for(rows, cluster.representative_id, reader_lang)
    times = [r["when"] for r in rows]
    return {"id": cluster.id, "title": title, "title_lang": title_lang, "representative_id": cluster.representative_id,
            "size": len(rows), "langs": sorted({r["lang"] for r in rows}),
            "outlets": sorted({r["outlet"] for r in rows}),
            "first": min(times), "last": max(times), "updated_at": cluster.updated_at,
            "titles": [r["title"] or "" for r in rows]}


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
        needle = f.q.casefold()
        if not any(needle in t.casefold() for t in s["titles"]):
            return False
    return True


def story_list(store: Any, filters: Filters | None = None, *, reader_lang: str | None = None, limit: int = 50,
               offset: int = 0, scan_limit: int = SCAN_LIMIT) -> dict[str, Any]:
    """Stories, most recently updated first, narrowed by ``filters``: each with its title (in
    ``reader_lang`` where it has one), languages, outlets, member count and time span.

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
        rows = store.list_clusters(min(batch, scan_limit - scanned), pos)
        if not rows:
            break
        pos += len(rows)
        for c in rows:
            scanned += 1
            s = _summary(store, c, reader_lang)
            if s is not None and _keep(s, filters):
                kept.append(s)
                if len(kept) >= want:
                    break
    page = kept[offset : offset + limit]
    return {"stories": page, "offset": offset, "limit": limit, "scanned": scanned, "truncated": truncated,
            "next_offset": offset + limit if len(kept) > offset + limit else None}


def _copy_groups(members: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Members that joined by identical text (``exact``/``url``) sit in one group with the member
    they matched; every other member (a rewrite, a translation) starts its own group."""
    ids = {m["document_id"] for m in members}
    parent = {m["document_id"]: m["document_id"] for m in members}

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for m in members:
        if m["stage"] in ("exact", "url") and m["matched_id"] in ids:
            parent[root(m["document_id"])] = root(m["matched_id"])
    groups: dict[int, list[dict[str, Any]]] = {}
    for m in members:
        groups.setdefault(root(m["document_id"]), []).append(m)
    return sorted(groups.values(), key=lambda g: min(x["when"] for x in g))


def story_detail(store: Any, story_id: int, *, reader_lang: str | None = None) -> dict[str, Any] | None:
    """A story: its copy groups and members (stage, score, reasons, guard verdicts: why each joined),
    the representative and why it is one, and the representative's history; None if absent."""
    view = cluster_view(store, story_id)
    if view is None:
        return None
    rows = {r["doc"].id: r for r in _member_rows(store, story_id)}
    members = []
    for m in view["members"]:
        r = rows.get(m["document_id"])
        decision = m["decision"] or {}
        members.append({**m, "lang": r["lang"] if r else "und", "outlet": r["outlet"] if r else "unknown",
                        "when": r["when"] if r else m["joined_at"],
                        "reasons": decision.get("reasons", []), "guards": decision.get("guards", []),
                        "blocked_by": decision.get("blocked_by", []), "previous": decision.get("previous"),
                        # The member no earlier item matched: it started the story (or an editor's split did).
                        "started": not decision.get("same", True) and m["stage"] != "editor",
                        "is_representative": m["document_id"] == view["representative_id"]})
    members.sort(key=lambda m: m["when"])
    title, title_lang = _title_for(list(rows.values()), view["representative_id"], reader_lang) if rows else (None, None)
    rep = next((m for m in members if m["is_representative"]), None)
    times = [m["when"] for m in members]
    return {"id": story_id, "title": title, "title_lang": title_lang, "representative": rep,
            "representative_reason": view["representative_reason"], "events": view["events"],
            "members": members, "groups": [{"members": g} for g in _copy_groups(members)],
            "size": len(members), "langs": sorted({m["lang"] for m in members}),
            "outlets": sorted({m["outlet"] for m in members}),
            "first": min(times) if times else None, "last": max(times) if times else None,
            "created_at": view["created_at"], "updated_at": view["updated_at"]}
