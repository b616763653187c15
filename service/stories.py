"""Stories: the event level above copy groups (issue 17).

A *copy group* (the cascade's cluster) is the same report again; a *story* is the same event:
other outlets' own write-ups, follow-ups and updates. Every copy group lies in one story. A new
copy group joins the open story its first item scores best against, if that score reaches the
threshold, or opens a new story; later members of the group follow the group.

The score is the story's evidence against the item's (Miranda et al. 2018, "Multilingual
Clustering of Streaming News": centroid clusters scored on TF-IDF, entity and time features):

- ``centroid``: cosine with the mean of the story's member vectors;
- ``nearest``: the best cosine with the story's kept members in the item's language (its first
  ones and its latest ones), so a story is never represented by its newest member alone;
- ``cross``: the same, against members in another language only (a translation's cosine runs
  lower than a same-language rewrite's, so cross-language evidence earns its own weight);
- ``words``: the IDF-weighted share of the item's words that the story's members use (IDF from the
  stream);
- ``anchors``: the IDF-weighted share of the item's anchors (numbers, Latin and capitalised
  tokens: who, where, which) that the story already holds. A changed number only lowers this a
  little; names the story has never seen lower it a lot;
- ``gap_days``: days between the item and the story's time span (0 inside it); ``long``: the item has a
  body (whole-article cosines run higher than headline cosines).

They combine in a logistic model whose weights (:data:`STORY_WEIGHTS`) and threshold
(``EngineConfig.story_threshold``) were fitted with ``python -m eval.stories calibrate``.

>>> t = StoryTracker(threshold=0.5, window_days=3.0)
>>> a = StoryEvidence.build("Fed raises rates by 25 basis points", "", "en", 0.0, None)
>>> t.add(None, a)
1
>>> t.match(StoryEvidence.build("Fed raises rates by 25 basis points again", "", "en", 3600.0, None)).story_id
1
>>> t.match(StoryEvidence.build("Malaysia Airlines MH370 search widens", "", "en", 3600.0, None)).story_id is None
True
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from index.growable import room
from index.text import nfkc, strip_outlet_suffix, tokens

DAY = 86_400.0

STORY_FEATURES: tuple[str, ...] = ("centroid", "nearest", "cross", "words", "anchors", "gap_days", "long",
                                   "long_nearest")

# Logistic weights over STORY_FEATURES, then the intercept. Fitted by `python -m eval.stories
# calibrate --folds 3 --grid 0.5,0.6,0.7 --train-orders 11,12` (logistic regression on every
# item-vs-open-story decision of the UCI and NTREX dev cluster files streamed with their gold
# stories in file order *and* in two seeded shuffles, both sets weighted equally; USE vectors;
# docs/stories.md). Out of fold: UCI 0.870, NTREX 0.938 in file order, and in held-out shuffles
# UCI 0.83 / 0.82 / 0.85, NTREX 0.77 / 0.69 / 0.77 (the file-order-only fit before: NTREX about
# 0.2 in any shuffle). Refit them with EngineConfig.story_threshold, never one without the other.
# What the fit learnt: the centroid carries the evidence, and one member far closer than the
# centroid counts against (NTREX: a second outlet's write-up of the same event is a different
# gold cluster, however close); a translation's lower cosine is made up for on long articles
# (long_nearest); words and names shared add; every day outside the story's span costs a lot
# (UCI: Google News stories are bursts of hours).
STORY_WEIGHTS: tuple[float, ...] = (21.7502, -14.4367, -11.4783, 11.2346, 4.7379, -44.0278, -6.4909, 11.1435,
                                    -5.0166)

# How much of a body the story vector reads: whole-article cosines separate articles far better
# than headline + first sentence (NTREX dev: the English source is the nearest English article of
# 92 of 93 Korean articles at 600 characters, 79 at the copy level's lead).
STORY_BODY_CHARS = 600
# Members whose vectors a story keeps for ``nearest``: its first ones and its latest ones.
KEEP_FIRST = 4
KEEP_LAST = 4
# Candidate stories scored per item: the nearest open centroids.
CANDIDATES = 12

_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
_LATIN_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*")
_STOP = frozenset({
    "the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "by", "with", "from", "as",
    "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "after",
    "over", "says", "said", "say", "new", "will", "has", "have", "had", "not", "but", "up", "out",
    "into", "than", "more", "about",
})


def story_text(title: str, body: str) -> str:
    """What the story vector encodes: the headline, plus the start of the body when there is one.

    >>> story_text("Fed raises rates - Reuters", "")
    'Fed raises rates'
    >>> story_text("Title", "Title\\nFirst sentence. Second.")
    'Title\\nFirst sentence. Second.'
    """
    headline = strip_outlet_suffix(title) if title.strip() else ""
    body = body.strip()
    if not body:
        return headline
    if not headline or body.startswith(headline):  # whole-article sources repeat the headline
        return body[:STORY_BODY_CHARS]
    return f"{headline}\n{body}"[:STORY_BODY_CHARS]


def anchors_of(text: str) -> frozenset[str]:
    """Numbers and names: digits (separators dropped), Latin words that are capitalised or sit in
    non-Latin text, case-folded.

    >>> sorted(anchors_of("Fed's Plosser sees 1,000 jobs in March"))
    ['1000', 'fed', 'march', 'plosser']
    >>> sorted(anchors_of("삼성전자 3분기 영업이익 10조, AI 반도체"))
    ['10', '3', 'ai']
    """
    text = nfkc(text)
    out = {re.sub(r"[.,]", "", m) for m in _NUMBER_RE.findall(text)}
    latin_script = sum(c.isascii() and c.isalpha() for c in text) >= 0.5 * max(1, sum(c.isalpha() for c in text))
    for word in _LATIN_WORD_RE.findall(text):
        w = word.split("'")[0].split("’")[0]
        if len(w) < 2:
            continue
        if not latin_script or w[0].isupper():
            lowered = w.casefold()
            if lowered not in _STOP:
                out.add(lowered)
    return frozenset(out)


def words_of(text: str) -> tuple[str, ...]:
    """Distinct content words: case-folded tokens of two characters or more, no stop words."""
    return tuple(dict.fromkeys(t for t in tokens(text) if len(t) > 1 and t not in _STOP))


@dataclass(frozen=True)
class StoryEvidence:
    """What one item brings to a story decision."""

    vector: np.ndarray | None
    words: tuple[str, ...]
    anchors: frozenset[str]
    time: float
    lang: str
    long: bool
    headline: str = ""  # what the slot veto reads (who / where / which)

    @classmethod
    def build(cls, title: str, body: str, lang: str, time: float, vector: np.ndarray | None) -> StoryEvidence:
        text = story_text(title, body)
        v = None if vector is None else np.asarray(vector, dtype=np.float32).reshape(-1)
        first = (title if title.strip() else body).strip().split("\n", 1)[0]
        head = strip_outlet_suffix(first).strip() if first else ""
        return cls(v, words_of(text), anchors_of(text), float(time), lang or "und", bool(body.strip()), head)


class StoryVeto(Protocol):
    """Says why an item must not join a story member's story (None: no objection).

    The story level consults it before a join (``service/guards/storyveto.py``: the who, where
    and which slot guards; a changed number is no objection, since updates change numbers).
    """

    def __call__(self, item: StoryEvidence, member: StoryEvidence) -> str | None: ...


@dataclass
class Story:
    """A story's evidence: a running vector sum, kept member vectors, word and anchor counts, times."""

    id: int
    first_time: float
    last_time: float
    size: int = 0
    vec_sum: np.ndarray | None = None
    kept: list[tuple[np.ndarray, str]] = field(default_factory=list)
    # Members the slot veto compares with: the first KEEP_FIRST and the latest KEEP_LAST.
    members: list[StoryEvidence] = field(default_factory=list)
    words: Counter[str] = field(default_factory=Counter)
    anchors: Counter[str] = field(default_factory=Counter)
    langs: Counter[str] = field(default_factory=Counter)
    # The tracker's set of changed story ids (set by :class:`StoryTable` when the story is stored
    # there): ``add`` marks the story so the centroid matrix refreshes its row. None: not stored.
    changed: set[int] | None = field(default=None, repr=False, compare=False)

    def centroid(self) -> np.ndarray | None:
        if self.vec_sum is None:
            return None
        n = float(np.linalg.norm(self.vec_sum))
        return self.vec_sum / n if n > 0 else None

    def add(self, ev: StoryEvidence) -> None:
        self.size += 1
        self.first_time = min(self.first_time, ev.time)
        self.last_time = max(self.last_time, ev.time)
        self.words.update(ev.words)
        self.anchors.update(ev.anchors)
        self.langs[ev.lang] += 1
        if self.changed is not None:
            self.changed.add(self.id)
        if len(self.members) < KEEP_FIRST + KEEP_LAST:
            self.members.append(ev)
        else:
            self.members.pop(KEEP_FIRST)
            self.members.append(ev)
        if ev.vector is not None:
            self.vec_sum = ev.vector.copy() if self.vec_sum is None else self.vec_sum + ev.vector
            if len(self.kept) < KEEP_FIRST + KEEP_LAST:
                self.kept.append((ev.vector, ev.lang))
            else:  # the first KEEP_FIRST stay; the latest ones rotate
                self.kept.pop(KEEP_FIRST)
                self.kept.append((ev.vector, ev.lang))


class StoryTable(dict[int, Story]):
    """The tracker's stories by id; every story stored, replaced, removed or added to is marked in
    ``changed``, so :class:`StoryCentroids` refreshes only those rows.

    >>> t = StoryTable()
    >>> t[3] = Story(3, 0.0, 0.0)
    >>> t[3].add(StoryEvidence.build("Fed raises rates", "", "en", 0.0, None)); sorted(t.changed)
    [3]
    >>> t.changed.clear(); _ = t.pop(3); sorted(t.changed)
    [3]
    """

    def __init__(self) -> None:
        super().__init__()
        self.changed: set[int] = set()

    def __setitem__(self, sid: int, story: Story) -> None:
        story.changed = self.changed
        self.changed.add(sid)
        super().__setitem__(sid, story)

    def __delitem__(self, sid: int) -> None:
        self.changed.add(sid)
        super().__delitem__(sid)

    def pop(self, sid: int, *default: Any) -> Any:
        self.changed.add(sid)
        return super().pop(sid, *default)

    def clear(self) -> None:
        self.changed.update(self)
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        for sid, story in dict(*args, **kwargs).items():
            self[sid] = story

    def setdefault(self, sid: int, default: Story | None = None) -> Story:
        if sid not in self and default is not None:
            self[sid] = default
        return super().__getitem__(sid)


class StoryCentroids:
    """Every story's vector sum, its norm and its time span as numpy rows, so that finding the
    nearest open centroids for an item is one masked matrix product instead of a Python loop and a
    stack of every open story's vector per item (at 20,000 stored items with no times, all
    stories open, that loop was 79 % of the batch decide step: 18 ms of CPU an item, docs/scale.md).

    Rows are refreshed from the table's ``changed`` ids before each search (amortised O(1) per
    change); a removed story's row stays, marked dead, and is reused if the id comes back.
    """

    def __init__(self) -> None:
        self.row_of: dict[int, int] = {}
        self.ids = np.zeros(0, dtype=np.int64)
        self.first = np.zeros(0, dtype=np.float64)
        self.last = np.zeros(0, dtype=np.float64)
        self.alive = np.zeros(0, dtype=bool)
        self.has_vec = np.zeros(0, dtype=bool)
        self.sums: np.ndarray | None = None  # (rows, dim), the dtype of the first vector seen
        self.norms = np.zeros(0, dtype=np.float32)
        self.rows = 0

    def _row(self, sid: int) -> int:
        r = self.row_of.get(sid)
        if r is None:
            r = self.row_of[sid] = self.rows
            self.rows += 1
            self.ids, self.first, self.last = (room(a, self.rows) for a in (self.ids, self.first, self.last))
            self.alive, self.has_vec = room(self.alive, self.rows), room(self.has_vec, self.rows)
            self.norms = room(self.norms, self.rows)
            self.ids[r] = sid
        return r

    def refresh(self, table: StoryTable) -> None:
        for sid in sorted(table.changed):
            story = table.get(sid)
            r = self._row(sid)
            self.alive[r] = story is not None
            if story is None:
                continue
            self.first[r], self.last[r] = story.first_time, story.last_time
            self.has_vec[r] = story.vec_sum is not None
            if story.vec_sum is not None:
                if self.sums is None:
                    self.sums = np.zeros((max(self.rows, 64), story.vec_sum.shape[0]), dtype=story.vec_sum.dtype)
                if self.sums.shape[0] < self.rows:
                    grown = np.zeros((max(self.rows, self.sums.shape[0] * 3 // 2), self.sums.shape[1]),
                                     dtype=self.sums.dtype)
                    grown[: self.sums.shape[0]] = self.sums
                    self.sums = grown
                self.sums[r] = story.vec_sum
                self.norms[r] = np.linalg.norm(story.vec_sum)
        table.changed.clear()

    def open_rows(self, time: float, window: float) -> np.ndarray:
        """Rows of live stories open to an item at ``time`` (``StoryTracker.is_open``'s rule), in row order."""
        n = self.rows
        first, last = self.first[:n], self.last[:n]
        ok = self.alive[:n] & ((np.abs(time - last) <= window) | ((first - window <= time) & (time <= last + window)))
        return np.flatnonzero(ok)

    def nearest(self, rows: np.ndarray, vector: np.ndarray, k: int) -> np.ndarray:
        """Of ``rows``, the (up to) ``k`` with vectors whose centroids are nearest to ``vector``."""
        rows = rows[self.has_vec[rows]]
        if rows.size == 0 or self.sums is None:
            return rows
        sims = (self.sums[rows] @ vector) / np.maximum(self.norms[rows], 1e-9)
        return rows[np.argsort(-sims, kind="stable")[:k]]


@dataclass(frozen=True)
class StoryMatch:
    """The story decision for one item: the story joined (None: a new one), its score and why."""

    story_id: int | None
    score: float
    features: dict[str, float]
    reason: str


def _describe(feats: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in feats.items() if k not in ("long", "long_nearest"))


def _closeness(ev: StoryEvidence, member: StoryEvidence) -> float:
    """How close a member is to the item: cosine when both have vectors, else shared anchors."""
    if ev.vector is not None and member.vector is not None:
        return float(member.vector @ ev.vector)
    return len(ev.anchors & member.anchors) / max(1, len(ev.anchors | member.anchors)) - 2.0


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


class StoryTracker:
    """Streaming story assignment over open stories (those active within ``window_days``)."""

    def __init__(self, *, threshold: float, window_days: float, weights: Sequence[float] = STORY_WEIGHTS,
                 next_id: int = 1, veto: StoryVeto | None = None) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"story threshold must be in [0, 1], got {threshold}")
        if len(weights) != len(STORY_FEATURES) + 1:
            raise ValueError(f"weights must have {len(STORY_FEATURES) + 1} values, got {len(weights)}")
        self.threshold = threshold
        self.window = window_days * DAY
        self.weights = np.asarray(weights, dtype=np.float64)
        self.stories = StoryTable()
        self.centroids = StoryCentroids()
        self.df: Counter[str] = Counter()
        self.docs = 0
        self.next_id = next_id
        self.veto = veto
        self.vetoes = 0  # joins the veto refused (a story that scored above the threshold)

    def __len__(self) -> int:
        return len(self.stories)

    # scoring -----------------------------------------------------------------------------------------
    def _idf(self, term: str) -> float:
        return math.log((1.0 + self.docs) / (1.0 + self.df.get(term, 0))) + 1.0

    def features(self, ev: StoryEvidence, story: Story) -> dict[str, float]:
        """The feature values of ``ev`` against ``story`` (names in ``STORY_FEATURES``)."""
        f = dict.fromkeys(STORY_FEATURES, 0.0)
        if ev.vector is not None and story.kept:
            c = story.centroid()
            f["centroid"] = float(c @ ev.vector) if c is not None else 0.0
            same = [float(v @ ev.vector) for v, lang in story.kept if lang == ev.lang]
            other = [float(v @ ev.vector) for v, lang in story.kept if lang != ev.lang]
            f["nearest"] = max(same, default=0.0)
            f["cross"] = max(other, default=0.0)
        if ev.words and story.size:
            # IDF-weighted share of the item's words the story's members use, each word counted by
            # how many of them use it (half of them or more counts fully): a TF-IDF overlap that
            # costs O(item words), so a large story does not slow every decision down.
            total = sum(self._idf(w) for w in ev.words)
            f["words"] = sum(self._idf(w) * min(1.0, 2.0 * story.words.get(w, 0) / story.size)
                             for w in ev.words) / total
        if ev.anchors:
            total = sum(self._idf(a) for a in ev.anchors)
            f["anchors"] = sum(self._idf(a) for a in ev.anchors if a in story.anchors) / total
        # Days from the story's time span (0 inside it): an item published before the story's
        # latest member (feeds arrive out of order) is measured from the span, not from its end.
        gap = max(0.0, story.first_time - ev.time, ev.time - story.last_time)
        f["gap_days"] = min(gap / DAY, 7.0)
        f["long"] = 1.0 if ev.long else 0.0
        f["long_nearest"] = f["long"] * max(f["nearest"], f["cross"])
        return f

    def score(self, feats: dict[str, float]) -> float:
        x = np.array([feats[n] for n in STORY_FEATURES] + [1.0])
        return _sigmoid(float(x @ self.weights))

    def candidates(self, ev: StoryEvidence) -> list[Story]:
        """Open stories worth scoring: the nearest centroids and those sharing an anchor."""
        self.centroids.refresh(self.stories)
        rows = self.centroids.open_rows(ev.time, self.window)
        if rows.size <= CANDIDATES:
            return [self.stories[int(sid)] for sid in self.centroids.ids[rows]]
        chosen: dict[int, Story] = {}
        if ev.vector is not None:
            for sid in self.centroids.ids[self.centroids.nearest(rows, ev.vector, CANDIDATES)]:
                chosen[int(sid)] = self.stories[int(sid)]
        if ev.vector is None and (ev.anchors or ev.words):  # no vector: the lexical evidence finds them
            open_ = [self.stories[int(sid)] for sid in self.centroids.ids[rows]]
            terms = set(ev.anchors) | set(ev.words)
            overlap = sorted(((sum(self._idf(t) for t in terms if t in s.anchors or t in s.words), s.id)
                              for s in open_), reverse=True)
            for _, sid in overlap[:CANDIDATES]:
                chosen[sid] = self.stories[sid]
        return list(chosen.values())

    def match(self, ev: StoryEvidence) -> StoryMatch:
        """The best open story for ``ev`` if its score reaches the threshold and the veto lets it
        join, else a new-story match.

        A vetoed best story is not replaced by the next best: the next best is most often the same
        event told in another language or by another outlet (a Korean "바이든, 도쿄서 기시다와 회담"
        story took "Biden meets Albanese in Tokyo" once "Biden meets Kishida" vetoed it), and
        over-splitting beats over-merging.
        """
        best: tuple[float, int, dict[str, float]] | None = None
        for s in self.candidates(ev):
            feats = self.features(ev, s)
            p = self.score(feats)
            if best is None or p > best[0] or (p == best[0] and s.id < best[1]):
                best = (p, s.id, feats)
        if best is None:
            return StoryMatch(None, 0.0, {}, "story: no open story")
        p, sid, feats = best
        desc = _describe(feats)
        if p < self.threshold:
            return StoryMatch(None, p, feats, f"story: best score {p:.3f} < {self.threshold} (story {sid}: {desc})")
        why = self.vetoed(ev, self.stories[sid])
        if why is not None:
            self.vetoes += 1
            return StoryMatch(None, p, feats, f"story: score {p:.3f} with story {sid} vetoed, {why} ({desc})")
        return StoryMatch(sid, p, feats, f"story: score {p:.3f} >= {self.threshold} with story {sid} ({desc})")

    def vetoed(self, ev: StoryEvidence, story: Story) -> str | None:
        """Why ``ev`` may not join ``story`` (the veto's word against one of its members), else None.

        The member asked is the one the item is nearest to (by vector; without vectors, the one
        sharing most anchors): the member it would join through. Asking every kept member instead
        would let one off-frame headline in a broad story bar every later item (UCI dev, story
        decision alone: ARI 0.303 asking every kept member, against 0.579 the nearest one, before
        the same-frame condition of ``service/guards/storyveto.py``).
        """
        if self.veto is None or not story.members:
            return None
        member = max(story.members, key=lambda m: _closeness(ev, m))
        why = self.veto(ev, member)
        if why is not None:
            return f"{why} (member: {member.headline[:80]})"
        return None

    # updating ------------------------------------------------------------------------------------------
    def add(self, story_id: int | None, ev: StoryEvidence) -> int:
        """Add ``ev`` to story ``story_id`` (None or unknown: a new story, id from ``next_id``); returns the id."""
        if story_id is None:
            story_id = self.next_id
        story = self.stories.get(story_id)
        if story is None:
            story = self.stories[story_id] = Story(story_id, ev.time, ev.time)
            self.next_id = max(self.next_id, story_id + 1)
        story.add(ev)
        self.docs += 1
        self.df.update(set(ev.words) | ev.anchors)
        return story_id

    def rebuild(self, story_id: int, evidence: Iterable[StoryEvidence]) -> None:
        """Replace story ``story_id``'s evidence by ``evidence`` (its members as they are now), or
        forget the story when there is none. An editor's correction uses it: a member split off
        must stop drawing its look-alikes into the story it left, and a story merged into another
        must bring its evidence along. The stream's word statistics (IDF) are left alone: the
        items are still in the stream."""
        items = list(evidence)
        if not items:
            self.stories.pop(story_id, None)
            return
        story = Story(story_id, items[0].time, items[0].time)
        for ev in items:
            story.add(ev)
        self.stories[story_id] = story
        self.next_id = max(self.next_id, story_id + 1)

    def expire(self, before: float) -> int:
        """Close (forget) stories whose latest member is older than ``before``; returns how many."""
        old = [sid for sid, s in self.stories.items() if s.last_time < before]
        for sid in old:
            del self.stories[sid]
        return len(old)


def stream_stories(evidence: Iterable[StoryEvidence], *, threshold: float, window_days: float,
                   weights: Sequence[float] = STORY_WEIGHTS) -> list[int]:
    """Story ids for items taken one by one as new copy groups (calibration and baselines)."""
    t = StoryTracker(threshold=threshold, window_days=window_days, weights=weights)
    return [t.add(t.match(ev).story_id, ev) for ev in evidence]


def describe(match: StoryMatch) -> dict[str, Any]:
    return {"story_score": round(match.score, 4), "story_reason": match.reason}
