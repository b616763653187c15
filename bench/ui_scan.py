"""How long the story list (``/ui``) takes at its worst: a filter that matches nothing reads
``SCAN_LIMIT`` stories before it gives up. ``python -m bench.ui_scan [--stories 1500]``.

Builds (once) a SQLite store of two-member stories with random-word headlines under ``var/``,
then times the first page without a filter and a search that matches nothing.
"""

from __future__ import annotations

import argparse
import random
import time

from service.engine import Deduper
from service.types import Article
from service.web.stories import Filters, story_list


def build(engine: Deduper, stories: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 9))) for _ in range(5000)]
    items = []
    for i in range(stories):
        title = " ".join(rng.choice(words) for _ in range(8))  # distinct stories, each with one syndicated copy
        items += [Article(title=title, url=f"https://a.example/{i}", lang="en"),
                  Article(title=title, url=f"https://b.example/{i}", lang="en")]
    engine.ingest_many(items, progress=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stories", type=int, default=1500, help="two-member stories in the store (default %(default)s)")
    ap.add_argument("--db", default=None, help="store URL (default sqlite:///var/ui_scan-<stories>.db)")
    args = ap.parse_args(argv)
    engine = Deduper.open(args.db or f"sqlite:///var/ui_scan-{args.stories}.db", model=None)
    try:
        if engine.store.counts()["clusters"] < args.stories:
            build(engine, args.stories)
        for name, filters in (("first page, no filter", Filters()), ("search matching nothing", Filters(q="zzzz qqqq"))):
            started = time.perf_counter()
            page = story_list(engine.store, filters, limit=50)
            ms = (time.perf_counter() - started) * 1000
            print(f"{name}: {page['scanned']} stories read, {len(page['stories'])} shown, {ms:.0f} ms")
    finally:
        engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
