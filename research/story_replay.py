"""The story level alone, replayed over the engine's copy groups, streamed and settled, in seconds:
a quick loop for story-level changes before the engine confirms them (``python -m eval.stories
engine --settle``).

    PYTHONPATH=$PWD python -m research.story_replay --sets uci-news-aggregator-subset,ntrex128-kor-eng

- ``streamed``: the items in file order, each copy group placed on its first item, the items the
  engine embeds no story vector for without one (``eval.stories.stream_labels``);
- ``settled``: every item with its vector, in ``service.settle.settle_order`` (publication time,
  then content hash; untimed items copy group by copy group by hash), replayed with
  ``service.settle.replay`` as ``Deduper.settle_stories`` does.

The copy groups are the engine's of file order (``eval.stories.with_engine_units``, cached under
var/), so this is not the engine to the digit: on main, NTREX matches it exactly (0.9734 streamed),
UCI streams at 0.810 against the engine's 0.828 (the engine's story evidence of re-runs and copies
differs). ``--trace GROUP``: print each decision and move involving copy groups GROUP (settled).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from eval.metrics import cluster_scores
from eval.stories import StorySet, load_set, slot_veto, stream_labels, with_engine_units
from index.features import ItemFeatures
from service.config import EngineConfig
from service.settle import SettleItem, replay, settle_order
from service.stories import STORY_WEIGHTS, StoryTracker


def settled_labels(s: StorySet, full: StorySet, cfg: EngineConfig, trace: set[int] = frozenset()) -> list[int]:  # type: ignore[assignment]
    """Each item's story once the set's copy groups are replayed as ``Deduper.settle_stories`` does."""
    from eval.data import Side
    from eval.engine import to_article

    units = [int(u) for u in s.unit_list()]  # type: ignore[call-overload]
    items = []
    for i, (it, ev, g) in enumerate(zip(full.items, full.evidence, units, strict=True)):
        a = to_article(Side(it.text, it.lang))
        sha = ItemFeatures.build(a.title, a.body, it.lang, ev.time).content_sha
        items.append(SettleItem(i, g, ev, sha, timed=ev.time > 0))
    tracker = StoryTracker(threshold=cfg.story.threshold, window_days=cfg.story.window_days, weights=STORY_WEIGHTS,
                           veto=slot_veto() if cfg.story.slot_veto else None, revise=cfg.story.revise)
    order = settle_order(items)
    if trace:
        placed = {}
        for it in order:
            if it.group in placed:
                tracker.add(placed[it.group], it.evidence, unit=it.group, settle=False)
                tracker.recheck(it.group, it.evidence)
            else:
                m = tracker.match(it.evidence)
                placed[it.group] = tracker.add(m.story_id, it.evidence, unit=it.group)
                if it.group in trace:
                    print(f"g{it.group} -> {placed[it.group]}: {m.reason[:300]}")
            for mv in tracker.take_moves():
                placed[int(mv.unit)] = mv.target  # type: ignore[call-overload]
                if int(mv.unit) in trace or mv.source in {placed.get(g) for g in trace}:  # type: ignore[call-overload]
                    print(f"  move g{mv.unit} {mv.source} -> {mv.target}: {mv.reason[:300]}")
        return [placed[g] for g in units]
    got = replay(tracker, order)
    return [got[g].story for g in units]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m research.story_replay")
    p.add_argument("--data", type=Path, default=None)
    p.add_argument("--sets", default="uci-news-aggregator-subset,ntrex128-kor-eng")
    p.add_argument("--trace", default="", help="comma-separated copy group ids to trace (settled)")
    args = p.parse_args(argv)
    cfg = EngineConfig.load()
    out = {}
    for name in [n for n in args.sets.split(",") if n]:
        base = load_set(name, data=args.data)
        s = with_engine_units(base)
        full = dataclasses.replace(s, evidence=base.evidence)
        gold = [it.cluster for it in s.items]
        st = stream_labels(s, STORY_WEIGHTS, cfg.story.threshold, cfg.story.window_days,
                           slot_veto() if cfg.story.slot_veto else None, cfg.story.revise)
        se = settled_labels(s, full, cfg, {int(x) for x in args.trace.split(",") if x})
        out[name] = {k: {"ari": round(sc.ari, 4), "p": round(sc.pairwise_precision, 4),
                         "r": round(sc.pairwise_recall, 4)}
                     for k, sc in (("streamed", cluster_scores(gold, st)), ("settled", cluster_scores(gold, se)))}
        print(name, json.dumps(out[name]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
