"""Print the story level's mistakes on a dev cluster file: gold stories split over several engine
stories, and engine stories holding several gold stories, with each copy group's story reason.

    PYTHONPATH=$PWD python -m research.story_mistakes --set uci-news-aggregator-subset [--settle]

Counts only, per mistake: the gold cluster ids are opaque hashes, and the printed headlines are
for reading on this machine (never copied into the repository). The pair counts say how much each
mistake costs the ARI: ``split pairs`` (same gold story, different engine stories) and ``merged
pairs`` (different gold stories, same engine story).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from eval.data import eval_data_dir, load_clusters
from eval.engine import cluster_articles, item_time, open_engine
from eval.metrics import cluster_scores
from service.recorder import stored_groups, stored_stories


def pairs(n: int) -> int:
    return n * (n - 1) // 2


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m research.story_mistakes")
    p.add_argument("--data", type=Path, default=None)
    p.add_argument("--set", default="uci-news-aggregator-subset")
    p.add_argument("--settle", action="store_true")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--dump", type=Path, default=None, help="write every item's labels and reasons as JSONL")
    args = p.parse_args(argv)
    items = load_clusters(eval_data_dir(args.data) / args.set / "dev.clusters.jsonl")
    with open_engine() as d:
        results = d.ingest_many(cluster_articles(items))
        streamed = [int(s) for s in stored_stories(d.store, results)]  # type: ignore[arg-type]
        if args.settle:
            d.settle()
        groups = stored_groups(d.store, results)
        stories = [int(s) for s in stored_stories(d.store, results)]  # type: ignore[arg-type]
        reason = {}
        for g in set(groups):
            c = d.store.get_cluster(g)
            reason[g] = (c.story_score, c.story_reason) if c is not None else (None, None)
    if args.settle:
        st = cluster_scores([it.cluster for it in items], streamed)
        print(f"{args.set} streamed: ARI {st.ari:.4f} P {st.pairwise_precision:.4f} R {st.pairwise_recall:.4f}")
    gold = [it.cluster for it in items]
    sc = cluster_scores(gold, stories)
    print(f"{args.set} {'settled' if args.settle else 'streamed'}: ARI {sc.ari:.4f} P {sc.pairwise_precision:.4f} "
          f"R {sc.pairwise_recall:.4f} stories {sc.predicted_clusters}")
    times = [item_time(it) for it in items]
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as f:
            for i, it in enumerate(items):
                t = times[i]
                f.write(json.dumps({"i": i, "gold": it.cluster, "group": groups[i], "story": stories[i],
                                    "streamed": streamed[i],
                                    "time": t.timestamp() if t else None, "text": it.text,
                                    "lang": it.lang, "score": reason[groups[i]][0],
                                    "reason": reason[groups[i]][1]}, ensure_ascii=False) + "\n")
    by_gold: dict[str, Counter[int]] = defaultdict(Counter)
    by_story: dict[int, Counter[str]] = defaultdict(Counter)
    for g, s in zip(gold, stories, strict=True):
        by_gold[g][s] += 1
        by_story[s][g] += 1
    split = sorted(((sum(c.values()) ** 2 - sum(v * v for v in c.values())) // 2, g) for g, c in by_gold.items())
    merged = sorted(((sum(c.values()) ** 2 - sum(v * v for v in c.values())) // 2, s) for s, c in by_story.items())
    total_split = sum(x for x, _ in split)
    total_merged = sum(x for x, _ in merged)
    print(f"split pairs {total_split}, merged pairs {total_merged}, gold pairs {sum(pairs(sum(c.values())) for c in by_gold.values())}")
    print("\n== most split gold stories ==")
    for cost, g in reversed(split[-args.top:]):
        if not cost:
            continue
        print(f"\n-- gold {g[:8]} split cost {cost}: {dict(by_gold[g])}")
        idx = [i for i, x in enumerate(gold) if x == g]
        seen: set[int] = set()
        for i in idx:
            if groups[i] in seen:
                continue
            seen.add(groups[i])
            _, rs = reason[groups[i]]
            t = times[i]
            print(f"   s{stories[i]} g{groups[i]} {format(t, '%m-%d %H:%M') if t else 'untimed'} | {items[i].text[:90]}\n        {str(rs)[:300]}")
    print("\n== most merged engine stories ==")
    for cost, s in reversed(merged[-args.top:]):
        if not cost:
            continue
        print(f"\n-- story {s} merge cost {cost}: { {k[:8]: v for k, v in by_story[s].items()} }")
        idx = [i for i, x in enumerate(stories) if x == s]
        seen = set()
        for i in idx:
            if groups[i] in seen:
                continue
            seen.add(groups[i])
            _, rs = reason[groups[i]]
            t = times[i]
            print(f"   {gold[i][:8]} g{groups[i]} {format(t, '%m-%d %H:%M') if t else 'untimed'} | {items[i].text[:90]}\n        {str(rs)[:300]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
