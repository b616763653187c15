"""Score the engine on a labelled feed: copy groups and stories, streamed and settled.

A labelled feed is a JSONL file of articles (the fields ``samestory ingest`` reads) where each
line also carries its gold ``copy`` label (items with the same label are the same report) and
its gold ``story`` label (the same event). ``python -m eval.feed FILE`` ingests the articles in
file order into a fresh in-memory engine, scores the copy groups (pairwise precision and recall)
and the stories (ARI), settles, and scores them again.

Example::

    python -m eval.feed tests/data/first_feed.jsonl

The gold labels are removed before ingesting, so the engine never sees them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from eval.data import _iter_json_lines
from eval.metrics import adjusted_rand_index, pairwise_scores
from service.engine import Deduper
from service.recorder import stored_groups, stored_stories
from service.types import IngestResult

GOLD_FIELDS = ("copy", "story")


@dataclass(frozen=True)
class FeedScores:
    """Copy-group pairwise precision/recall and story ARI of one labelled feed at one moment."""

    copy_precision: float | None
    copy_recall: float | None
    story_ari: float
    copy_groups: int
    stories: int


@dataclass(frozen=True)
class FeedReport:
    """The scores after streaming (file order) and after settling."""

    items: int
    streamed: FeedScores
    settled: FeedScores

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_feed(path: Path) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Read a labelled feed: (articles without gold fields, gold copy labels, gold story labels).

    Raises FileNotFoundError for a missing file, ValueError naming the line when a line is not a
    JSON object or lacks a label (the lines are read as the eval data's, ``eval.data``).
    """
    articles: list[dict[str, Any]] = []
    copies: list[str] = []
    stories: list[str] = []
    for n, rec in _iter_json_lines(path):
        if any(k not in rec for k in GOLD_FIELDS):
            raise ValueError(f"{path}:{n}: a labelled feed line is a JSON object with 'copy' and 'story' labels")
        copies.append(str(rec.pop("copy")))
        stories.append(str(rec.pop("story")))
        articles.append(rec)
    if not articles:
        raise ValueError(f"{path}: no articles")
    return articles, copies, stories


def _scores(gold_copy: Sequence[str], gold_story: Sequence[str], copy_ids: Sequence[int],
            story_ids: Sequence[int]) -> FeedScores:
    prf = pairwise_scores(gold_copy, copy_ids)
    return FeedScores(copy_precision=prf.precision, copy_recall=prf.recall,
                      story_ari=round(adjusted_rand_index(gold_story, story_ids), 4),
                      copy_groups=len(set(copy_ids)), stories=len(set(story_ids)))


def _stories(engine: Deduper, results: Sequence[IngestResult]) -> list[int]:
    # A copy group in no story (none should be) counts as a story of its own.
    return [sid if sid is not None else -r.cluster_id
            for r, sid in zip(results, stored_stories(engine.store, results), strict=True)]


def score_feed(path: Path, *, model: str = "use") -> FeedReport:
    """Ingest a labelled feed into a fresh in-memory engine and score it streamed and settled."""
    articles, gold_copy, gold_story = load_feed(path)
    with Deduper.open(":memory:", model=model) as engine:
        results = engine.ingest_many(articles)
        streamed = _scores(gold_copy, gold_story, stored_groups(engine.store, results), _stories(engine, results))
        engine.settle()
        settled = _scores(gold_copy, gold_story, stored_groups(engine.store, results), _stories(engine, results))
    return FeedReport(items=len(articles), streamed=streamed, settled=settled)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.feed", description=__doc__.split("\n\n")[0])
    parser.add_argument("feed", type=Path, help="labelled feed (JSONL with 'copy' and 'story' labels)")
    parser.add_argument("--model", default="use", help="embedder spec (default: use)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        report = score_feed(args.feed, model=args.model)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return 0
    print(f"{args.feed}: {report.items} items")
    for name, s in (("streamed", report.streamed), ("settled", report.settled)):
        p = "n/a" if s.copy_precision is None else f"{s.copy_precision:.3f}"
        r = "n/a" if s.copy_recall is None else f"{s.copy_recall:.3f}"
        print(f"  {name:8s}  copy groups {s.copy_groups:3d}  pair precision {p}  recall {r}"
              f"   stories {s.stories:3d}  ARI {s.story_ari:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
