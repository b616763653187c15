"""Read-only views of the store for people: a cluster with its members and the reasons, a page of clusters.

The HTTP routes (``service.api.routers.clusters``) and the CLI (``samestory clusters``) show the
same dictionaries, so both explain a story the same way.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


def _title(store: Any, document_id: int) -> tuple[Any, str | None]:
    doc = store.get_document(document_id)
    if doc is None or doc.latest_version_id is None:
        return doc, None
    ver = store.get_version(doc.latest_version_id)
    return doc, (ver.title or ver.body[:200]) if ver else None


def cluster_view(store: Any, cluster_id: int) -> dict[str, Any] | None:
    """A cluster with every member (how and why it joined), its representative and the reason it
    is one, and the representative changes; None when there is no such cluster."""
    cluster = store.get_cluster(cluster_id)
    return None if cluster is None else _cluster_view(store, cluster)


def _cluster_view(store: Any, cluster: Any, *, facts: bool = False) -> dict[str, Any]:
    """``cluster_view`` of a cluster row; ``facts`` adds each member's ``lang``, ``outlet`` and
    ``when`` (published, else first seen) from the same reads."""
    members = []
    for m in store.members_of(cluster.id):
        doc = store.get_document(m.document_id)
        ver = store.get_version(doc.latest_version_id) if doc is not None and doc.latest_version_id is not None else None
        row = {"document_id": m.document_id, "url": doc.url if doc else None, "source": doc.source if doc else None,
               "title": (ver.title or ver.body[:200]) if ver else None, "joined_at": m.joined_at,
               "stage": m.stage, "score": m.score, "matched_id": m.matched_id, "decision": m.decision}
        if facts:
            when = None if doc is None else (doc.published_at if doc.published_at is not None else doc.first_seen)
            row.update(lang=ver.lang if ver is not None else "und",
                       outlet=outlet_of(doc.url if doc else None, doc.source if doc else None),
                       when=when if when is not None else m.joined_at)
        members.append(row)
    events = [{"id": e.id, "old_representative": e.old_representative, "new_representative": e.new_representative,
               "reason": e.reason, "at": e.at} for e in store.cluster_events(cluster.id)]
    # The last event that installed the current representative says why it is the representative.
    reason = next((e["reason"] for e in reversed(events) if e["new_representative"] == cluster.representative_id), None)
    return {"id": cluster.id, "representative_id": cluster.representative_id, "representative_reason": reason,
            "created_at": cluster.created_at, "updated_at": cluster.updated_at, "members": members, "events": events}


def cluster_page(store: Any, limit: int, offset: int) -> dict[str, Any]:
    """Clusters, most recently updated first: id, representative, its title and the size."""
    # One row more than asked tells whether there is a next page without a COUNT(*).
    rows = store.list_clusters(limit + 1, offset)
    out = []
    for c in rows[:limit]:
        _, title = _title(store, c.representative_id)
        out.append({"id": c.id, "representative_id": c.representative_id, "title": title,
                    "size": len(store.members_of(c.id)), "created_at": c.created_at, "updated_at": c.updated_at})
    return {"clusters": out, "limit": limit, "offset": offset,
            "next_offset": offset + limit if len(rows) > limit else None}


def _iso(t: float | None) -> str | None:
    from datetime import datetime, timezone

    return None if t is None else datetime.fromtimestamp(t, tz=timezone.utc).isoformat()


def outlet_of(url: str | None, source: str | None) -> str:
    """The outlet a reader recognises: the item's source, else its URL's host without ``www.``.

    >>> outlet_of("https://www.yna.co.kr/view/1", None), outlet_of(None, "Reuters"), outlet_of(None, None)
    ('yna.co.kr', 'Reuters', 'unknown')
    """
    if source:
        return source
    host = urlsplit(url).hostname if url else None
    if not host:
        return "unknown"
    return host[4:] if host.startswith("www.") else host


def story_view(store: Any, story_id: int, *, members: bool = False) -> dict[str, Any] | None:
    """A story (issue 17) with its copy groups: each group's representative and why, its members'
    languages and outlets, why the group is in the story, and the story's time span (ISO 8601,
    from the members' publication times, else first-seen); None when there is no such story.

    ``members=True`` (the editors' pages) also gives each group its members as ``cluster_view``
    shows them (with ``lang``, ``outlet`` and ``when``) and its representative history
    (``events``), and the story its span as epoch seconds (``first``, ``last``): the same reads,
    so the pages and ``GET /v1/stories/{id}`` never tell a story two ways."""
    story = store.get_story(story_id)
    if story is None:
        return None
    groups, langs, outlets, times = [], set(), set(), []
    for c in store.clusters_of_story(story_id):
        view = _cluster_view(store, c, facts=True)
        rows = view["members"]
        group_langs = {m["lang"] for m in rows}
        group_outlets = {m["outlet"] for m in rows if m["outlet"] != "unknown"}
        times += [m["when"] for m in rows]
        rep = next((m for m in rows if m["document_id"] == c.representative_id), None)
        title = rep["title"] if rep is not None else _title(store, c.representative_id)[1]
        langs |= group_langs
        outlets |= group_outlets
        group = {"id": c.id, "representative_id": c.representative_id, "title": title,
                 "representative_reason": view["representative_reason"], "size": len(view["members"]),
                 "languages": sorted(group_langs), "outlets": sorted(group_outlets),
                 "story_score": c.story_score, "story_reason": c.story_reason}
        if members:
            group.update(members=sorted(rows, key=lambda m: (m["when"], m["document_id"])), events=view["events"],
                         created_at=c.created_at)
        groups.append(group)
    out = {"id": story.id, "created_at": story.created_at, "updated_at": story.updated_at,
           "languages": sorted(langs), "outlets": sorted(outlets),
           "start": _iso(min(times)) if times else None, "end": _iso(max(times)) if times else None,
           "copy_groups": groups}
    if members:
        out.update(first=min(times) if times else None, last=max(times) if times else None)
    return out


def story_page(store: Any, limit: int, offset: int) -> dict[str, Any]:
    """Stories, most recently updated first: id, the first group's representative title, sizes."""
    rows = store.list_stories(limit + 1, offset)
    out = []
    for s in rows[:limit]:
        groups = store.clusters_of_story(s.id)
        title = _title(store, groups[0].representative_id)[1] if groups else None
        out.append({"id": s.id, "title": title, "copy_groups": len(groups),
                    "items": sum(len(store.members_of(g.id)) for g in groups),
                    "created_at": s.created_at, "updated_at": s.updated_at})
    return {"stories": out, "limit": limit, "offset": offset,
            "next_offset": offset + limit if len(rows) > limit else None}
