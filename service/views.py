"""Read-only views of the store for people: a document, a copy group with its members and the
reasons, a story, a page of copy groups or stories.

Each view is a model of the HTTP contract (``service.api.schemas``) built from the store's row
dataclasses; the HTTP routes answer with it, the CLI (``samestory copy-groups``, ``samestory
stories``) prints it and the editors' pages (``service.web.stories``) read it, so all three
explain a story the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast, overload
from urllib.parse import urlsplit

from index.text import strip_outlet_suffix
from index.urls import UrlRules
from service.api.schemas import (
    CopyGroupDetailOut,
    CopyGroupEventOut,
    CopyGroupMemberOut,
    CopyGroupOut,
    CopyGroupPage,
    CopyGroupSummaryOut,
    DocumentOut,
    MembershipOut,
    ObservationOut,
    StoryFields,
    StoryOut,
    StoryPage,
    StorySummaryOut,
    UtcTime,
    VersionOut,
    from_row,
)
from service.store.base import ClusterRow, DocumentRow, MembershipRow, ObservationRow, Store
from service.types import StageName, matched_stage


# What the editors' pages read on top of the /v1 answer (``story_view(members=True)``): not part
# of the HTTP contract, so these models live here rather than in service.api.schemas.
class MemberFacts(CopyGroupMemberOut):
    lang: str
    outlet: str
    when: UtcTime  # published, else first seen (else joined)


class CopyGroupDetail(CopyGroupOut):
    members: list[MemberFacts]
    events: list[CopyGroupEventOut]
    created_at: UtcTime


class StoryDetail(StoryFields):
    title: str | None  # ``story_title``'s: the earliest original-outlet headline, as written
    title_lang: str | None
    copy_groups: list[CopyGroupDetail]
    # The span again (the pages' filters read these names); like every time, epoch seconds in
    # Python and ISO 8601 in JSON.
    first: UtcTime | None
    last: UtcTime | None


# A headline counts as all capitals ("TURKEY EARTHQUAKE DEATH TOLL RISES TO 3,000", a wire's
# style) when it has at least this many cased letters, every one upper-case, and they are most of
# its letters: "BTS 정국, 11월 솔로 앨범 발매" (three capitals in a Korean headline) is not shouting.
SHOUTING_MIN_LETTERS = 8


def shouting(title: str) -> bool:
    """Whether a headline is written in capitals throughout.

    >>> shouting("TURKEY EARTHQUAKE DEATH TOLL RISES TO 3,000"), shouting("Turkey earthquake toll rises")
    (True, False)
    >>> shouting("BTS 정국, 11월 솔로 앨범 발매"), shouting("NASA")
    (False, False)
    """
    letters = [c for c in title if c.isalpha()]
    cased = [c for c in letters if c.lower() != c.upper()]
    return len(cased) >= SHOUTING_MIN_LETTERS and 2 * len(cased) >= len(letters) and all(c.isupper() for c in cased)


def story_title(members: Sequence[MemberFacts], rules: UrlRules | None = None) -> MemberFacts | None:
    """The member whose headline is a story's title: the earliest original outlet's (a syndicator
    or a redirect only when no original outlet wrote one), never an all-capital headline while
    another exists (``shouting``); the lowest document id on a tie. An editor reads the story under
    the words its first outlet chose, in the case they were written, not under its newest copy
    (issue 36: the AP's capitals had replaced Reuters' headline). None: no member has a title.

    >>> m = lambda i, t, url, when: MemberFacts.model_construct(document_id=i, url=url, source=None, title=t,
    ...                                                          lang="en", when=when)
    >>> story_title([m(2, "TURKEY QUAKE TOLL RISES TO 3,000", "https://apnews.com/a", 0.0),
    ...              m(1, "Turkey quake toll rises to 3,000", "https://www.reuters.com/b", 60.0),
    ...              m(3, "Turkey quake toll rises to 3,000", "https://v.daum.net/v/1", 30.0)]).document_id
    1
    """
    rules = rules or _RULES
    titled = [m for m in members if m.title and m.title.strip()]
    if not titled:
        return None

    def rank(m: MemberFacts) -> tuple[bool, bool, bool, float, int]:
        return (shouting(m.title or ""), rules.is_syndicator(m.url, m.source), rules.is_redirect(m.url),
                m.when, m.document_id)

    return min(titled, key=rank)


def title_text(member: MemberFacts) -> str:
    """A title member's headline as shown: as written, without an outlet suffix (" - Reuters")."""
    title = member.title or ""
    return strip_outlet_suffix(title).strip() or title


_RULES = UrlRules.default()


def _title(store: Store, document_id: int) -> tuple[DocumentRow | None, str | None]:
    doc = store.get_document(document_id)
    if doc is None or doc.latest_version_id is None:
        return doc, None
    ver = store.get_version(doc.latest_version_id)
    return doc, (ver.title or ver.body[:200]) if ver else None


def founded(stage: str, decision: dict[str, Any]) -> bool:
    """Whether a membership founded its copy group: its decision joined nothing. An editor's move
    joined nothing either, but its stage says who put the document there ("editor")."""
    return not decision.get("same", True) and stage != "editor"


def _membership_shown(m: MembershipRow) -> dict[str, Any]:
    """A membership's ``stage`` and ``decision`` as every view shows them: a founder's stage is
    "none" (``service.types.matched_stage``), as ``POST /v1/articles`` answered for it, not the
    stored last stage the cascade ran ("embedding", "minhash"); its score and reasons stay."""
    if not founded(m.stage, m.decision):
        return {}
    return {"stage": "none", "decision": {**m.decision, "stage": "none"}}


def _observation_shown(o: ObservationRow) -> dict[str, Any]:
    """An observation's decision with the stage ``POST /v1/articles`` answered with (``matched_stage``)."""
    stage = o.decision.get("stage")
    if not isinstance(stage, str) or stage == "editor":
        return {}
    return {"decision": {**o.decision, "stage": matched_stage(o.status, cast(StageName, stage))}}


def document_view(store: Store, document_id: int) -> DocumentOut | None:
    """Everything the store knows about one document, or None."""
    doc = store.get_document(document_id)
    if doc is None:
        return None
    membership = None
    if doc.cluster_id is not None:
        # members_of hides deleted documents; provenance of a deleted one is still readable.
        for m in store.members_of(doc.cluster_id):
            if m.document_id == doc.id:
                membership = from_row(MembershipOut, m, **_membership_shown(m))
    return from_row(DocumentOut, doc, membership=membership,
                       versions=[from_row(VersionOut, v) for v in store.versions_of(doc.id)],
                       observations=[from_row(ObservationOut, o, **_observation_shown(o))
                                     for o in store.observations_of(doc.id)])


def copy_group_view(store: Store, copy_group_id: int) -> CopyGroupDetailOut | None:
    """A copy group with every member (how and why it joined), its representative and the reason
    it is one, and the representative changes; None when there is no such copy group."""
    cluster = store.get_cluster(copy_group_id)
    if cluster is None:
        return None
    members = _members(store, cluster, facts=False)
    events = _events(store, cluster)
    rep, why = _shown_representative(store, cluster, _reason(cluster, events))
    return from_row(CopyGroupDetailOut, cluster, representative_id=rep, representative_reason=why, members=members,
                    events=events)


def _shown_representative(store: Store, cluster: ClusterRow, reason: str | None) -> tuple[int | None, str | None]:
    """The copy group's representative and why, or None and why not when that document was deleted
    and no live member took its place (a copy group whose only member was deleted)."""
    doc = store.get_document(cluster.representative_id)
    if doc is not None and doc.deleted:
        return None, f"representative document {doc.id} was deleted and no live member took its place"
    return cluster.representative_id, reason


@overload
def _members(store: Store, cluster: ClusterRow, *, facts: Literal[True]) -> list[MemberFacts]: ...
@overload
def _members(store: Store, cluster: ClusterRow, *, facts: Literal[False]) -> list[CopyGroupMemberOut]: ...
def _members(store: Store, cluster: ClusterRow, *, facts: bool) -> list[MemberFacts] | list[CopyGroupMemberOut]:
    """The copy group's live members; ``facts`` adds each member's ``lang``, ``outlet`` and ``when``
    (published, else first seen) from the same reads."""
    plain: list[CopyGroupMemberOut] = []
    rich: list[MemberFacts] = []
    for m in store.members_of(cluster.id):
        doc = store.get_document(m.document_id)
        ver = store.get_version(doc.latest_version_id) if doc is not None and doc.latest_version_id is not None else None
        shown = {"url": doc.url if doc else None, "source": doc.source if doc else None,
                 "title": (ver.title or ver.body[:200]) if ver else None, **_membership_shown(m)}
        if not facts:
            plain.append(from_row(CopyGroupMemberOut, m, **shown))
            continue
        when = None if doc is None else (doc.published_at if doc.published_at is not None else doc.first_seen)
        rich.append(from_row(MemberFacts, m, **shown, lang=ver.lang if ver is not None else "und",
                             outlet=outlet_of(doc.url if doc else None, doc.source if doc else None),
                             when=when if when is not None else m.joined_at))
    return rich if facts else plain


def _events(store: Store, cluster: ClusterRow) -> list[CopyGroupEventOut]:
    return [from_row(CopyGroupEventOut, e) for e in store.cluster_events(cluster.id)]


def _reason(cluster: ClusterRow, events: list[CopyGroupEventOut]) -> str | None:
    # The last event that installed the current representative says why it is the representative.
    return next((e.reason for e in reversed(events) if e.new_representative == cluster.representative_id), None)


def copy_group_page(store: Store, limit: int, offset: int) -> CopyGroupPage:
    """Copy groups, most recently updated first: id, representative, its title and the size."""
    # One row more than asked tells whether there is a next page without a COUNT(*).
    rows = store.list_clusters(limit + 1, offset)
    out = []
    for c in rows[:limit]:
        doc, title = _title(store, c.representative_id)
        gone = doc is not None and doc.deleted  # no deleted document's id or title in a listing
        out.append(from_row(CopyGroupSummaryOut, c, representative_id=None if gone else c.representative_id,
                            title=None if gone else title, size=len(store.members_of(c.id))))
    return CopyGroupPage(copy_groups=out,
                       limit=limit, offset=offset, next_offset=offset + limit if len(rows) > limit else None)


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


@overload
def story_view(store: Store, story_id: int, *, members: Literal[False] = False) -> StoryOut | None: ...
@overload
def story_view(store: Store, story_id: int, *, members: Literal[True]) -> StoryDetail | None: ...
def story_view(store: Store, story_id: int, *, members: bool = False) -> StoryOut | StoryDetail | None:
    """A story (issue 17) with its copy groups: each group's representative and why, its members'
    languages and outlets, why the group is in the story, and the story's time span (from the
    members' publication times, else first-seen); None when there is no such story.

    ``members=True`` (the editors' pages) gives a :class:`StoryDetail`: each group also has its
    members as ``copy_group_view`` shows them (with ``lang``, ``outlet`` and ``when``) and its
    representative history (``events``), and the story its span again as ``first`` and
    ``last``: the same reads, so the pages and ``GET /v1/stories/{id}`` never tell a story two ways."""
    story = store.get_story(story_id)
    if story is None:
        return None
    plain: list[CopyGroupOut] = []
    rich: list[CopyGroupDetail] = []
    facts: list[MemberFacts] = []
    for c in store.clusters_of_story(story_id):
        rows = _members(store, c, facts=True)
        if not rows:  # every member deleted, or moved to another group by a settling
            continue
        events = _events(store, c)
        facts += rows
        group = _spread(rows)
        rep = next((m for m in rows if m.document_id == c.representative_id), None)
        title = rep.title if rep is not None else _title(store, c.representative_id)[1]
        shown = {"title": title, "representative_reason": _reason(c, events), "size": len(rows),
                 "languages": group["languages"], "outlets": group["outlets"]}
        if members:  # the row's created_at too (CopyGroupDetail names it)
            rich.append(from_row(CopyGroupDetail, c, **shown, events=events,
                                 members=sorted(rows, key=lambda m: (m.when, m.document_id))))
        else:
            plain.append(from_row(CopyGroupOut, c, **shown))
    spread = _spread(facts)
    if members:
        top = story_title([m for g in rich for m in g.members])
        return from_row(StoryDetail, story, **spread,
                        title=None if top is None else title_text(top), title_lang=None if top is None else top.lang,
                        copy_groups=rich, first=spread["start"], last=spread["end"])
    top = story_title(facts)
    return from_row(StoryOut, story, **spread, title=None if top is None else title_text(top), copy_groups=plain)


def _spread(facts: Sequence[MemberFacts]) -> dict[str, Any]:
    """The languages, known outlets and time span (``start``, ``end``: publication, else first
    seen) of live members: what ``story_view`` and ``story_page`` show of a story, and
    ``story_view`` of each copy group (its languages and outlets)."""
    times = [m.when for m in facts]
    return {"languages": sorted({m.lang for m in facts}),
            "outlets": sorted({m.outlet for m in facts if m.outlet != "unknown"}),
            "start": min(times, default=None), "end": max(times, default=None)}


def story_page(store: Store, limit: int, offset: int) -> StoryPage:
    """Stories, most recently updated first: id, the title (``story_title``), sizes, languages,
    outlets and time span (as ``story_view`` gives them, from the same member reads)."""
    rows = store.list_stories(limit + 1, offset)
    out = []
    for s in rows[:limit]:
        # Groups without live members (every member deleted, or moved by a settling) are not shown.
        sizes = [(g, _members(store, g, facts=True)) for g in store.clusters_of_story(s.id)]
        groups = [g for g, ms in sizes if ms]
        facts = [m for _, ms in sizes for m in ms]
        top = story_title(facts)
        out.append(from_row(StorySummaryOut, s, title=None if top is None else title_text(top),
                            copy_groups=len(groups), items=len(facts), **_spread(facts)))
    return StoryPage(stories=out, limit=limit, offset=offset,
                     next_offset=offset + limit if len(rows) > limit else None)

