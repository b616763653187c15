"""Hunt for a feed that, streamed in publication order, ``settle`` still changes (the property of
tests/service/test_stream_settle_property.py; research/notes/stories.md, "Streaming equals
settling"). Not part of the product: nothing in service/ imports it.

    PYTHONPATH=$PWD nice -n 15 python -m research.hunt_stream_settle --strategy base --seed 1 --examples 500

Each run draws up to ``--examples`` feeds from one strategy with hypothesis (random, not
derandomized, no example database; ``--seed`` is hypothesis' seed), ingests each in
publication order into a fresh in-memory engine on USE and settles it. The first failing feed is
shrunk and printed as a literal ``[(report, minute), ...]`` (minute ``None``: no publication
time) with the groups and stories that moved; ``--time-budget`` stops drawing (not shrinking)
after that many seconds; ``--count`` counts the failing feeds over the whole budget instead (the
rate), unshrunk. Strategies:

- ``base``: the test's own strategy (2-14 distinct reports, distinct minutes over 72 h);
- ``wide``: 8 to all of the reports, distinct minutes over 72 h;
- ``ties``: whole hours over 0-12 h, so many reports share a publication time (streamed among
  equals in settling's order, content hash, unless ``--tie-order draw``);
- ``untimed``: a third of the reports without a publication time, streamed at random places
  (settling replays them after the timed ones: outside the property as the test states it);
- ``reruns``: reports may come back (exact re-runs) up to 7 days later, past ``copy_gap_hours``;
- ``xfirst``: each event's Korean reports published before its English ones;
- ``numbers``: the reports plus near-duplicates differing by one number, wide;
- ``days``: distinct minutes over 10 days (past the 7-day window);
- ``mixed``: reruns, ties, number variants and spans of days together (all timed).

``--embed-copies``: streaming embeds the story vector of every copy a cheap stage settled, as
settling does (a patch of ``StoryLevel.evidence`` in this process only), to look for failures of
another cause than the one found on 2026-12-04 (research/notes/stories.md).

``--cache``: ``shared`` (one embedding cache across feeds, as the test's module-scoped model),
``fresh`` (a new cache per feed) or ``none``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import timedelta

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from index.features import ItemFeatures
from models.cache import CachedEmbedder
from service.engine import Deduper
from service.types import Article
from tests.service.test_stream_settle_property import REPORTS, T0, feeds, partition

# Near-duplicates of the test's reports that differ by one number (event index as in EVENTS).
NUMBER_VARIANTS: list[tuple[int, str, str]] = [
    (0, "Bank of Korea holds key rate at 3.25%", "en"),
    (0, "한국은행, 기준금리 연 3.25%로 동결", "ko"),
    (1, "Turkey earthquake death toll rises to 3,100", "en"),
    (1, "튀르키예 지진 사망자 5천명으로 늘어", "ko"),
    (2, "Samsung unveils Galaxy S25 with new AI features", "en"),
    (3, "Heavy rain kills 5 in South Chungcheong, 1,200 evacuated", "en"),
    (4, "Kospi closes above 4,100 for the first time", "en"),
]
ALL_REPORTS = REPORTS + NUMBER_VARIANTS

Feed = list[tuple[int, int | None]]


def _sorted(pairs: list[tuple[int, int | None]]) -> Feed:
    return sorted(pairs, key=lambda p: p[1] if p[1] is not None else -1)


@st.composite
def wide(draw: st.DrawFn, n_reports: int = len(REPORTS), span: int = 72 * 60) -> Feed:
    picks = draw(st.lists(st.integers(0, n_reports - 1), min_size=8, max_size=n_reports, unique=True))
    minutes = draw(st.lists(st.integers(0, span), min_size=len(picks), max_size=len(picks), unique=True))
    return _sorted(list(zip(picks, minutes, strict=True)))


@st.composite
def ties(draw: st.DrawFn) -> Feed:
    picks = draw(st.lists(st.integers(0, len(REPORTS) - 1), min_size=3, max_size=len(REPORTS), unique=True))
    hours = draw(st.lists(st.integers(0, 12), min_size=len(picks), max_size=len(picks)))
    return _sorted([(p, h * 60) for p, h in zip(picks, hours, strict=True)])


@st.composite
def untimed(draw: st.DrawFn) -> Feed:
    picks = draw(st.lists(st.integers(0, len(REPORTS) - 1), min_size=3, max_size=14, unique=True))
    minutes = draw(st.lists(st.integers(0, 72 * 60), min_size=len(picks), max_size=len(picks), unique=True))
    timed = _sorted([(p, m) for p, m in zip(picks, minutes, strict=True)])
    out: Feed = []
    for p, m in timed:
        if draw(st.integers(0, 2)) == 0:
            # An untimed report at a random place among the ones already streamed.
            out.insert(draw(st.integers(0, len(out))), (p, None))
        else:
            out.append((p, m))
    return out


@st.composite
def reruns(draw: st.DrawFn) -> Feed:
    picks = draw(st.lists(st.integers(0, len(REPORTS) - 1), min_size=3, max_size=12))
    minutes = draw(st.lists(st.integers(0, 7 * 24 * 60), min_size=len(picks), max_size=len(picks), unique=True))
    return _sorted(list(zip(picks, minutes, strict=True)))


@st.composite
def xfirst(draw: st.DrawFn) -> Feed:
    picks = draw(st.lists(st.integers(0, len(REPORTS) - 1), min_size=3, max_size=len(REPORTS), unique=True))
    minutes = sorted(draw(st.lists(st.integers(0, 72 * 60), min_size=len(picks), max_size=len(picks), unique=True)))
    # Korean reports take the earliest times, in draw order; then the others.
    order = [p for p in picks if REPORTS[p][2] == "ko"] + [p for p in picks if REPORTS[p][2] != "ko"]
    return list(zip(order, minutes, strict=True))


@st.composite
def mixed(draw: st.DrawFn) -> Feed:
    n = len(ALL_REPORTS)
    picks = draw(st.lists(st.integers(0, n - 1), min_size=4, max_size=20))
    step = draw(st.sampled_from([1, 30, 60, 360]))
    minutes = draw(st.lists(st.integers(0, 10 * 24 * 60 // step), min_size=len(picks), max_size=len(picks)))
    return _sorted([(p, m * step) for p, m in zip(picks, minutes, strict=True)])


STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Feed]]] = {
    "base": feeds,
    "wide": wide,
    "ties": ties,
    "untimed": untimed,
    "reruns": reruns,
    "xfirst": xfirst,
    "numbers": lambda: wide(n_reports=len(ALL_REPORTS)),
    "days": lambda: wide(span=10 * 24 * 60),
    "mixed": mixed,
}


class OutOfTime(BaseException):
    """The drawing budget is spent."""


def hash_ties(feed: Feed) -> Feed:
    """``feed`` with the reports of one publication time in settling's order among equals (content
    hash; exact repeats keep their order, as the document id does), the untimed ones left where
    they are: publication order as ``service.settle.publication_order`` defines it."""
    def sha(i: int) -> str:
        return ItemFeatures.build(ALL_REPORTS[i][1], "", ALL_REPORTS[i][2], 0.0).content_sha

    timed = iter(sorted((p for p in feed if p[1] is not None), key=lambda p: (p[1], sha(p[0]))))
    return [p if p[1] is None else next(timed) for p in feed]


def run_feed(model: object, feed: Feed) -> str | None:
    """Stream ``feed``, settle it; None when nothing moved, else what did."""
    d = Deduper.open(":memory:", model=model)
    try:
        for k, (i, minute) in enumerate(feed):
            _, title, lang = ALL_REPORTS[i]
            at = None if minute is None else T0 + timedelta(minutes=minute)
            d.ingest(Article(title=title, url=f"https://news{k}.example/{i}", lang=lang, published_at=at))
        streamed = partition(d, len(feed))
        report = d.settle()
        settled = partition(d, len(feed))
        moved = report.moved, (report.copies.moved if report.copies is not None else None)
        if settled == streamed and moved == (0, 0):
            return None
        return f"streamed {sorted(map(sorted, streamed[0]))} / {sorted(map(sorted, streamed[1]))}\n" \
               f"settled  {sorted(map(sorted, settled[0]))} / {sorted(map(sorted, settled[1]))}\nmoved {moved}"
    finally:
        d.close()


def embed_copies() -> None:
    """Make streaming give a cheaply settled copy its own story vector, as ``settle_stories`` does
    (it embeds every item without one before the replay)."""
    from dataclasses import replace

    from service.stories import story_text
    from service.story_level import StoryLevel

    evidence = StoryLevel.evidence

    def patched(self: StoryLevel, article: Article, f: object, vector: object, version_id: int, *,
                embed: bool = True, cluster_id: int | None = None) -> object:
        ev = evidence(self, article, f, vector, version_id, embed=embed, cluster_id=cluster_id)  # type: ignore[arg-type]
        if ev.vector is None and embed and self.ctx.embedder is not None:
            vec = self.ctx.encode([story_text(article.title, article.body)])[0]
            self.recorder.vector(version_id, vec, kind="#story")
            ev = replace(ev, vector=vec)
        return ev

    StoryLevel.evidence = patched  # type: ignore[method-assign,assignment]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strategy", choices=sorted(STRATEGIES), default="base")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--examples", type=int, default=500)
    ap.add_argument("--time-budget", type=float, default=300.0, help="seconds of drawing before giving up")
    ap.add_argument("--cache", choices=["shared", "fresh", "none"], default="shared")
    ap.add_argument("--tie-order", choices=["draw", "hash"], default="hash",
                    help="stream reports of one time in draw order or in settling's (content hash)")
    ap.add_argument("--embed-copies", action="store_true", help="streaming embeds cheaply settled copies too")
    ap.add_argument("--count", action="store_true",
                    help="count the failing feeds for the whole budget instead of shrinking the first")
    args = ap.parse_args(argv)
    if args.embed_copies:
        embed_copies()

    from models.registry import load_embedder

    base = load_embedder("use", cache_size=0)
    shared = CachedEmbedder(base) if args.cache == "shared" else None

    def model() -> object:
        return shared if shared is not None else CachedEmbedder(base) if args.cache == "fresh" else base

    tried = [0]
    failing: list[Feed] = []
    start = time.monotonic()
    stop_at = start + args.time_budget
    strategy = STRATEGIES[args.strategy]()

    @seed(args.seed)
    @settings(max_examples=args.examples, database=None, derandomize=False, deadline=None,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck),
              report_multiple_bugs=False)
    @given(feed=strategy)
    def hunt(feed: Feed) -> None:
        if args.tie_order == "hash":
            feed = hash_ties(feed)
        if not failing and time.monotonic() > stop_at:
            raise OutOfTime  # not an Exception: hypothesis stops at once, with nothing to shrink
        if args.count and time.monotonic() > stop_at:
            raise OutOfTime
        tried[0] += 1
        moved = run_feed(model(), feed)
        if moved is not None:
            failing.append(feed)  # hypothesis replays the shrunk example last
            if not args.count:
                raise AssertionError(moved)

    found: Feed | None = None
    try:
        hunt()
    except AssertionError:
        found = failing[-1]
    except OutOfTime:
        pass
    secs = time.monotonic() - start
    print(f"strategy={args.strategy} seed={args.seed} cache={args.cache} embed_copies={args.embed_copies} tie_order={args.tie_order} tried={tried[0]} failing={len(failing)} "
          f"secs={secs:.0f}")
    if args.count:
        for feed in failing[:3]:
            print(f"failing feed={feed!r}")
        return 1 if failing else 0
    if found is None:
        print("no counter-example")
        return 0
    print(f"COUNTER-EXAMPLE feed={found!r}")
    for i, m in found:
        print(f"  {m!s:>6}  {ALL_REPORTS[i][2]}  {ALL_REPORTS[i][1]}")
    print(run_feed(model(), found))
    return 1


if __name__ == "__main__":
    sys.exit(main())
