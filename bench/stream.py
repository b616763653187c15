"""A seeded, realistic news stream with known duplicate groups, built from ``../shared/eval-data``.

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

Which texts may be *different* originals: the data's positive pairs and clusters are unioned
into components and each component yields at most one original, so two originals are never
labelled "the same" anywhere in the data; the other members of its component supply its
``reworded``/``translated`` copies. Negative pairs (often hard negatives) may both become
originals, which is the point: merging them is a false merge.

The data holds a few tens of thousands of such components. Beyond that, the stream is filled
with *filler* stories: seeded random word sequences drawn from the data's own vocabulary (same
scripts, same lengths), which are mutually distinct; they only get mechanical copies. The
filler share is reported with every stream, so no result hides it. No eval-data text is
written into the repository: the stream is rebuilt in memory from the data folder each run.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.data import eval_data_dir

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
    """One original text and the data's human variants of it (text, lang)."""

    text: str
    lang: str
    variants: tuple[tuple[str, str], ...] = ()
    filler: bool = False


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


def load_stories(data_dir: str | Path | None = None) -> list[Story]:
    """Stories from every pair and cluster file, in a deterministic order (see module docstring)."""
    root = eval_data_dir(data_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"eval data folder not found: {root} (set SAMESTORY_EVAL_DATA)")
    uf = _UF()
    lang: dict[str, str] = {}
    for path in sorted(root.glob("*/dev.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                a, b = r["a"], r["b"]
                for side in (a, b):
                    lang.setdefault(side["text"], side["lang"])
                    uf.find(side["text"])
                if r["label"] == 1:
                    uf.union(a["text"], b["text"])
    for path in sorted(root.glob("*/dev.clusters.jsonl")):
        first: dict[str, str] = {}
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                lang.setdefault(r["text"], r["lang"])
                uf.union(r["text"], first.setdefault(r["cluster"], r["text"]))
    comps: dict[str, list[str]] = defaultdict(list)
    for text in sorted(lang):
        if 0 < len(text) <= MAX_TEXT_CHARS and text.strip():
            comps[uf.find(text)].append(text)
    stories = []
    for root_text in sorted(comps):
        members = comps[root_text]
        head = members[0]
        stories.append(Story(head, lang[head], tuple((t, lang[t]) for t in members[1:])))
    return stories


def _vocabulary(stories: list[Story]) -> dict[str, list[str]]:
    words: dict[str, set[str]] = {"ko": set(), "en": set()}
    for s in stories:
        key = "ko" if s.lang == "ko" else "en"
        words[key].update(w for w in re.findall(r"[^\W\d_]{2,}", s.text))
    return {k: sorted(v) for k, v in words.items()}


def _filler(rng: random.Random, vocab: dict[str, list[str]], n: int) -> list[Story]:
    """Mutually distinct random headlines (6-12 words) in the data's Korean and English vocabulary."""
    out = []
    for _ in range(n):
        lang = "ko" if rng.random() < 0.5 else "en"
        words = rng.sample(vocab[lang], rng.randint(6, 12))
        out.append(Story(" ".join(words), lang, (), filler=True))
    return out


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


def build_stream(size: int, *, dup_share: float = 0.4, seed: int = 0, data_dir: str | Path | None = None,
                 stories: list[Story] | None = None) -> Stream:
    """``size`` items of which about ``dup_share`` are copies of an earlier item's story.

    Copies follow their original closely (within the previous ~2,000 items and 6 hours), as
    syndication and re-crawls do.
    """
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    if not 0.0 <= dup_share < 1.0:
        raise ValueError(f"dup_share must be in [0, 1), got {dup_share}")
    rng = random.Random(seed)
    pool = list(stories if stories is not None else load_stories(data_dir))
    rng.shuffle(pool)
    n_orig = max(1, round(size * (1.0 - dup_share)))
    n_real = min(n_orig, len(pool))
    chosen = pool[:n_real]
    if n_orig > n_real:
        chosen += _filler(rng, _vocabulary(pool), n_orig - n_real)
        rng.shuffle(chosen)
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
    next_story = 0
    kinds = list(COPY_WEIGHTS)
    weights = [COPY_WEIGHTS[k] for k in kinds]
    for i in range(size):
        t = STREAM_START + i * step
        if not is_copy[i] or not group_first:
            story = chosen[next_story % len(chosen)]
            g = len(group_first)
            next_story += 1
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
            story = chosen[g % len(chosen)]
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
    by_kind: dict[str, int] = defaultdict(int)
    for it in items:
        by_kind[it.kind] += 1
    stats = {"items": size, "groups": len(group_first), "copies": size - len(group_first),
             "dup_share": round((size - len(group_first)) / size, 4), "by_kind": dict(sorted(by_kind.items())),
             "real_stories_available": len(pool), "filler_stories": max(0, n_orig - n_real),
             "filler_share_of_originals": round(max(0, n_orig - n_real) / n_orig, 4)}
    return Stream(items, seed, dup_share, stats)
