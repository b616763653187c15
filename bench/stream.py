"""A seeded, realistic news stream with known duplicate groups and hard negatives, built from
named sets of ``../shared/eval-data``.

Every item belongs to a *group*; the first item of a group is its original and every later
item of the group is a copy that a good deduper should put with it. Copies are the kinds real
feeds carry:

* ``syndicated``: the same title with an outlet suffix (" - 연합뉴스", " | Reuters"), new URL;
* ``respaced``: spaces removed or doubled (Korean sites re-space freely), new URL;
* ``case``: upper/lower/title case changes, new URL;
* ``reworded``: a human paraphrase or re-spelling of the original from the data (same language);
* ``translated``: the original's human translation from the data (Korean <-> English);
* ``recrawl``: the very same item fetched again from the same URL;
* ``tracking``: the same URL with tracking parameters (``utm_*``, ``fbclid``) appended.

**Only real texts.** Every original is a headline or sentence of one of the sets named in
:data:`DEFAULT_SETS` (or the ``sets`` argument); nothing is generated. Only the named folders
are read, so a new set dropped into the data folder does not change the stream.

**No false labels.** The data's positive pairs and clusters are unioned into components (a
*story* each) and each component yields at most one original, so two originals are never
labelled "the same" anywhere in the named sets; the other members of a component supply its
``reworded``/``translated`` copies. Pairs the data scores as "roughly equivalent" but below its
positive threshold (STS scores in [3, 4)) are neither: their two stories are never both
originals (:data:`STS_AMBIGUOUS_FROM`).

**Hard negatives.** The data's labelled negative pairs (PAWS-X word swaps, low-score
KorSTS/KLUE pairs, UCI headlines of other stories, the parallel corpora's hard and same-document
negatives; random negatives are skipped) are placed with *both* sides as originals, next to
each other, for about ``negative_share`` of the originals. Merging them is a false merge, and
:attr:`Stream.negatives` lists them so a scorer can report how many each method merged.

**Size.** The named sets hold a few tens of thousands of stories (:func:`max_size` says how
many items that supports at a copy share); a longer stream is refused rather than padded, since
an original reused as a new group would be a false label. No eval-data text is written into the
repository: the stream is rebuilt in memory from the data folder each run.

>>> max_size(0.4, 600), max_size(0.7, 600)
(1000, 2001)
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.data import eval_data_dir

# The sets the stream is built from, by folder name. Headlines and sentences only: the
# rag-chunks set (4-6 sentence windows) is left out, and a set is only ever added here, in code,
# so that a new folder in the data directory cannot change the benchmark.
DEFAULT_SETS = ("klue-sts-dev", "ko-question-pair", "koen-news-park", "korsts-stsb-koen", "ntrex128-kor-eng",
                "parakqc-ko", "pawsx-ko", "tatoeba-kor-eng", "uci-news-aggregator-subset")
STS_KINDS = frozenset({"ko_sts", "en_sts", "xl_sts"})
# STS pairs scored in [3, 4) ("roughly equivalent, some information differs") are labelled 0 by
# the data's 4.0 threshold but are not clean negatives either: their stories are never both
# originals, and only pairs below 3.0 serve as hard negatives. Raising this bound turns more
# near-paraphrases into "false merges" the labels cannot defend; lowering it drops real negatives.
STS_AMBIGUOUS_FROM = 3.0
COPY_KINDS = ("syndicated", "respaced", "case", "reworded", "translated", "recrawl", "tracking")
# Shares of the copy kinds among duplicates. Syndication dominates real feeds; re-crawls and
# tracking-parameter variants are what URL canonicalisation is for.
COPY_WEIGHTS = {"syndicated": 0.30, "respaced": 0.10, "case": 0.10, "reworded": 0.15, "translated": 0.15,
                "recrawl": 0.10, "tracking": 0.10}
KO_OUTLETS = ("연합뉴스", "뉴시스", "전자신문", "한겨레", "조선일보", "매일경제", "KBS 뉴스")
EN_OUTLETS = ("Reuters", "AP News", "Yahoo News", "The Korea Herald", "Bloomberg", "BBC News")
TRACKING = ("utm_source=newsletter&utm_medium=email", "fbclid=IwAR0bench", "utm_campaign=feed&ref=rss",
            "gclid=bench123")
STREAM_START = 1_700_000_000.0  # a fixed epoch, so runs are reproducible
STREAM_SPAN_S = 3 * 86_400.0  # the whole stream falls inside one candidate window: worst case
MAX_TEXT_CHARS = 300  # headline/sentence-sized items; the data's few whole documents are skipped


@dataclass(frozen=True)
class Story:
    """One original text, the data's human variants of it (text, lang), and the set it came from."""

    text: str
    lang: str
    variants: tuple[tuple[str, str], ...] = ()
    origin: str = ""


@dataclass(frozen=True)
class Pool:
    """What the named sets offer: the stories, and the labelled negative pairs between them."""

    stories: tuple[Story, ...]
    negatives: tuple[tuple[int, int], ...]  # indices into ``stories``; labelled "not the same"
    sets: tuple[str, ...]
    stats: dict[str, int]


@dataclass(frozen=True)
class StreamItem:
    """One feed item: what is ingested, plus the ground truth (``group``, ``kind``)."""

    title: str
    lang: str
    url: str
    source: str
    published_at: float
    group: int
    kind: str  # "original" or one of COPY_KINDS

    def article(self) -> dict[str, Any]:
        """The ``Article.from_dict`` form the engine ingests (ground truth left out)."""
        from datetime import datetime, timezone

        return {"title": self.title, "lang": self.lang, "url": self.url, "source": self.source,
                "published_at": datetime.fromtimestamp(self.published_at, tz=timezone.utc).isoformat()}


@dataclass
class Stream:
    items: list[StreamItem]
    seed: int
    dup_share: float
    stats: dict[str, Any] = field(default_factory=dict)
    negatives: list[tuple[int, int]] = field(default_factory=list)  # (group, group): hard negatives

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[StreamItem]:
        return iter(self.items)


class _UF:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        p = self.parent.setdefault(x, x)
        while p != x:
            self.parent[x] = self.parent.setdefault(p, p)
            x, p = p, self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def max_size(dup_share: float, stories: int) -> int:
    """The longest stream at ``dup_share`` copies that ``stories`` distinct originals support.

    >>> max_size(0.4, 31_000)
    51667
    """
    if not 0.0 <= dup_share < 1.0:
        raise ValueError(f"dup_share must be in [0, 1), got {dup_share}")
    size = math.floor(stories / (1.0 - dup_share) + 1e-9)
    while size > 1 and _originals(size, dup_share) > stories:
        size -= 1
    while _originals(size + 1, dup_share) <= stories:  # rounding can leave room for one more
        size += 1
    return size


def _originals(size: int, dup_share: float) -> int:
    return max(1, round(size * (1.0 - dup_share)))


def load_pool(data_dir: str | Path | None = None, sets: Sequence[str] = DEFAULT_SETS) -> Pool:
    """Stories and negative pairs from the named sets' dev files, in a deterministic order.

    Only the folders named in ``sets`` are read (see the module docstring); a missing one is an
    error rather than a silently smaller stream.
    """
    root = eval_data_dir(data_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"eval data folder not found: {root} (set SAMESTORY_EVAL_DATA)")
    names = sorted(set(sets))
    if not names:
        raise ValueError("sets must name at least one eval-data folder")
    missing = [n for n in names if not (root / n / "dev.jsonl").is_file() and not (root / n / "dev.clusters.jsonl").is_file()]
    if missing:
        raise FileNotFoundError(f"eval-data set(s) {', '.join(missing)} not found in {root} "
                                f"(each needs dev.jsonl or dev.clusters.jsonl)")
    uf = _UF()
    lang: dict[str, str] = {}
    origin: dict[str, str] = {}
    negative: list[tuple[str, str]] = []
    ambiguous: list[tuple[str, str]] = []
    for name in names:
        pairs, clusters = root / name / "dev.jsonl", root / name / "dev.clusters.jsonl"
        if pairs.is_file():
            with pairs.open(encoding="utf-8") as fh:
                for line in fh:
                    r = json.loads(line)
                    a, b = r["a"], r["b"]
                    for side in (a, b):
                        lang.setdefault(side["text"], side["lang"])
                        origin.setdefault(side["text"], name)
                        uf.find(side["text"])
                    if r["label"] == 1:
                        uf.union(a["text"], b["text"])
                    elif r["kind"] in STS_KINDS and float(r.get("meta", {}).get("score", 0.0)) >= STS_AMBIGUOUS_FROM:
                        ambiguous.append((a["text"], b["text"]))
                    elif "random" not in r["kind"]:  # random negatives are not hard: any two stories are those
                        negative.append((a["text"], b["text"]))
        if clusters.is_file():
            first: dict[str, str] = {}
            with clusters.open(encoding="utf-8") as fh:
                for line in fh:
                    r = json.loads(line)
                    lang.setdefault(r["text"], r["lang"])
                    origin.setdefault(r["text"], name)
                    uf.union(r["text"], first.setdefault(r["cluster"], r["text"]))
    comps: dict[str, list[str]] = defaultdict(list)
    long_texts = 0
    for text in sorted(lang):
        if 0 < len(text) <= MAX_TEXT_CHARS and text.strip():
            comps[uf.find(text)].append(text)
        else:
            long_texts += 1
    keys = sorted(comps)
    index = {k: i for i, k in enumerate(keys)}

    def comp(text: str) -> int | None:
        return index.get(uf.find(text)) if text in lang else None

    # Ambiguous pairs: keep the first story of each, drop the second (greedy, in sorted order).
    dropped: set[int] = set()
    for ta, tb in sorted(ambiguous):
        ca, cb = comp(ta), comp(tb)
        if ca is None or cb is None or ca == cb or ca in dropped or cb in dropped:
            continue
        dropped.add(max(ca, cb))
    keep = [i for i in range(len(keys)) if i not in dropped]
    renumber = {old: new for new, old in enumerate(keep)}
    stories = []
    for i in keep:
        members = comps[keys[i]]
        head = members[0]
        stories.append(Story(head, lang[head], tuple((t, lang[t]) for t in members[1:]), origin[head]))
    neg_pairs: set[tuple[int, int]] = set()
    contradictory = 0
    for ta, tb in negative:
        ca, cb = comp(ta), comp(tb)
        if ca is None or cb is None:
            continue  # a side too long to be a headline or sentence
        if ca == cb:
            contradictory += 1  # labelled different here, linked by positives elsewhere: skipped
            continue
        if ca in renumber and cb in renumber:
            neg_pairs.add((min(renumber[ca], renumber[cb]), max(renumber[ca], renumber[cb])))
    stats = {"texts": len(lang), "texts_too_long": long_texts, "components": len(keys),
             "ambiguous_dropped": len(dropped), "stories": len(stories), "negative_pairs": len(neg_pairs),
             "negative_pairs_contradictory": contradictory}
    return Pool(tuple(stories), tuple(sorted(neg_pairs)), tuple(names), stats)


def load_stories(data_dir: str | Path | None = None, sets: Sequence[str] = DEFAULT_SETS) -> list[Story]:
    """The stories of :func:`load_pool` alone."""
    return list(load_pool(data_dir, sets).stories)


def _copy_text(rng: random.Random, kind: str, story: Story) -> tuple[str, str]:
    text, lang = story.text, story.lang
    if kind == "syndicated":
        return f"{text} - {rng.choice(KO_OUTLETS if lang == 'ko' else EN_OUTLETS)}", lang
    if kind == "respaced":
        if lang == "ko" and " " in text:
            parts = text.split(" ")
            i = rng.randrange(len(parts) - 1)
            return " ".join([*parts[:i], parts[i] + parts[i + 1], *parts[i + 2:]]), lang
        return re.sub(" ", "  ", text, count=2) + " ", lang
    if kind == "case":
        return (text.upper() if rng.random() < 0.5 else text.title()) if lang != "ko" else text.swapcase(), lang
    same = [v for v in story.variants if v[1] == lang]
    other = [v for v in story.variants if v[1] != lang]
    return rng.choice(same if kind == "reworded" else other)


def _choose_originals(rng: random.Random, pool: Pool, n_orig: int, negative_share: float) -> tuple[list[int], int]:
    """Story indices of the originals in stream order, and how many hard-negative pairs lead it.

    About ``negative_share`` of the originals come in labelled negative pairs, the two sides
    next to each other (related stories arrive together); the rest are single stories.
    """
    negatives = list(pool.negatives)
    rng.shuffle(negatives)
    want_pairs = int(n_orig * negative_share) // 2
    used: set[int] = set()
    units: list[tuple[int, ...]] = []
    for a, b in negatives:
        if len(units) >= want_pairs:
            break
        if a not in used and b not in used:
            units.append((a, b) if rng.random() < 0.5 else (b, a))
            used.update((a, b))
    pairs = len(units)
    rest = [i for i in range(len(pool.stories)) if i not in used]
    rng.shuffle(rest)
    units += [(i,) for i in rest[:n_orig - 2 * pairs]]
    rng.shuffle(units)
    return [i for unit in units for i in unit], pairs


def build_stream(size: int, *, dup_share: float = 0.4, seed: int = 0, data_dir: str | Path | None = None,
                 sets: Sequence[str] = DEFAULT_SETS, pool: Pool | None = None,
                 negative_share: float = 0.3) -> Stream:
    """``size`` items of which about ``dup_share`` are copies of an earlier item's story.

    Copies follow their original closely (within the previous ~2,000 items and 6 hours), as
    syndication and re-crawls do. ``pool`` (from :func:`load_pool`) saves re-reading the data;
    otherwise the ``sets`` of ``data_dir`` are read. Raises ``ValueError`` when the sets do not
    hold enough distinct stories for ``size`` items at ``dup_share`` (see :func:`max_size`).
    """
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    if not 0.0 <= dup_share < 1.0:
        raise ValueError(f"dup_share must be in [0, 1), got {dup_share}")
    if not 0.0 <= negative_share <= 1.0:
        raise ValueError(f"negative_share must be in [0, 1], got {negative_share}")
    pool = pool if pool is not None else load_pool(data_dir, sets)
    n_orig = _originals(size, dup_share)
    if n_orig > len(pool.stories):
        raise ValueError(f"a {size}-item stream at {dup_share:.0%} copies needs {n_orig} distinct originals; the "
                         f"named sets hold {len(pool.stories)}, enough for {max_size(dup_share, len(pool.stories))} "
                         f"items at this copy share")
    rng = random.Random(seed)
    order, neg_pairs = _choose_originals(rng, pool, n_orig, negative_share)
    chosen = [pool.stories[i] for i in order]
    # Decide the slots: which positions are originals, which are copies.
    is_copy = [False] + [rng.random() < dup_share for _ in range(size - 1)]
    n_copies = sum(is_copy)
    # Re-balance so exactly n_orig originals exist (the first slot is always an original).
    slots = [i for i in range(1, size)]
    rng.shuffle(slots)
    need_copies = size - n_orig
    for i in slots:
        if n_copies > need_copies and is_copy[i]:
            is_copy[i] = False
            n_copies -= 1
        elif n_copies < need_copies and not is_copy[i]:
            is_copy[i] = True
            n_copies += 1
        if n_copies == need_copies:
            break
    step = STREAM_SPAN_S / size
    items: list[StreamItem] = []
    group_first: list[int] = []  # group -> index of its original
    kinds = list(COPY_WEIGHTS)
    weights = [COPY_WEIGHTS[k] for k in kinds]
    for i in range(size):
        t = STREAM_START + i * step
        if not is_copy[i] or not group_first:
            g = len(group_first)
            story = chosen[g]
            group_first.append(i)
            url = f"https://{'news.example.kr' if story.lang == 'ko' else 'news.example.com'}/a/{g}"
            items.append(StreamItem(story.text, story.lang, url, "origin", t, g, "original"))
            continue
        # a recent group: copies follow their original within ~2,000 items
        lo = max(0, len(group_first) - 2_000)
        kind = rng.choices(kinds, weights)[0]
        # Human variants exist for only some stories: look among recent groups for one that has
        # the variant this copy kind needs, so the kind shares stay near COPY_WEIGHTS.
        for _ in range(30):
            g = rng.randrange(lo, len(group_first))
            story = chosen[g]
            if kind not in ("reworded", "translated") or any(
                    (v[1] == story.lang) == (kind == "reworded") for v in story.variants):
                break
        orig = items[group_first[g]]
        if kind == "reworded" and not any(v[1] == story.lang for v in story.variants):
            kind = "syndicated"
        if kind == "translated" and not any(v[1] != story.lang for v in story.variants):
            kind = "case"
        if kind == "recrawl":
            text, lang, url, source = orig.title, orig.lang, orig.url, orig.source
        elif kind == "tracking":
            text, lang, source = orig.title, orig.lang, orig.source
            url = f"{orig.url}?{rng.choice(TRACKING)}"
        else:
            text, lang = _copy_text(rng, kind, story)
            source = f"outlet{rng.randrange(50)}"
            url = f"https://{source}.example.net/{kind}/{i}"
        items.append(StreamItem(text, lang, url, source, max(t, orig.published_at + rng.uniform(0, 6 * 3600)),
                                g, kind))
    # Every labelled negative pair whose two stories are both originals here (the placed pairs,
    # and any that met by chance), as group ids.
    group_of_story = {s: g for g, s in enumerate(order)}
    negatives = sorted({(min(group_of_story[a], group_of_story[b]), max(group_of_story[a], group_of_story[b]))
                        for a, b in pool.negatives if a in group_of_story and b in group_of_story})
    by_kind: dict[str, int] = defaultdict(int)
    for it in items:
        by_kind[it.kind] += 1
    by_set: dict[str, int] = defaultdict(int)
    for story in chosen:
        by_set[story.origin] += 1
    stats = {"items": size, "groups": len(group_first), "copies": size - len(group_first),
             "dup_share": round((size - len(group_first)) / size, 4), "by_kind": dict(sorted(by_kind.items())),
             "sets": list(pool.sets), "stories_available": len(pool.stories),
             "max_size_at_this_share": max_size(dup_share, len(pool.stories)),
             "originals_by_set": dict(sorted(by_set.items())),
             "hard_negative_pairs_placed": neg_pairs, "hard_negative_pairs_in_stream": len(negatives),
             "pool": pool.stats}
    return Stream(items, seed, dup_share, stats, negatives)


# Items per block of a long stream: what the named sets' ~31,000 stories hold at 40 % copies with
# room to spare (max_size(0.4, 31_000) = 51,667).
LONG_BLOCK = 48_000
_URL_HOST = re.compile(r"^(https://[^/]+/)")


def build_long_stream(size: int, *, per_day: float, dup_share: float = 0.4, seed: int = 0,
                      data_dir: str | Path | None = None, pool: Pool | None = None,
                      block: int = LONG_BLOCK) -> Stream:
    """A stream longer than the named sets' stories allow, for throughput at scale (issue 37's
    1,000,000-item run): blocks of :func:`build_stream` (``block`` items each, seeds ``seed``,
    ``seed + 1``, ...) one after the other at ``per_day`` items a day.

    Texts are reused from block to block (a story's headline comes back about once a block);
    URLs are not (each block's under its own path), and each block's three days are stretched
    over ``block / per_day`` days, so the whole stream runs at an even rate and the engine's
    time windows (the copy level's, the story level's) hold about ``per_day`` times their days of
    items. Quality cannot be scored on such a stream (a reused text is a copy of nothing the
    labels know): ``group`` is unique per block, ``negatives`` is empty.
    """
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    if not per_day > 0:
        raise ValueError(f"per_day must be > 0, got {per_day}")
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    pool = pool if pool is not None else load_pool(data_dir, DEFAULT_SETS)
    items: list[StreamItem] = []
    groups = 0
    k = 0
    while len(items) < size:
        n = min(block, size - len(items))
        part = build_stream(n, dup_share=dup_share, seed=seed + k, pool=pool)
        start = STREAM_START + k * block / per_day * 86_400.0
        stretch = (n / per_day * 86_400.0) / STREAM_SPAN_S
        for it in part.items:
            items.append(StreamItem(it.title, it.lang, _URL_HOST.sub(rf"\1b{k}/", it.url), it.source,
                                    start + (it.published_at - STREAM_START) * stretch, groups + it.group, it.kind))
        groups += part.stats["groups"]
        k += 1
    stats = {"items": size, "blocks": k, "block": block, "per_day": per_day, "days": round(size / per_day, 2),
             "groups": groups, "distinct_texts": len({it.title for it in items})}
    return Stream(items, seed, dup_share, stats, [])
