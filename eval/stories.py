"""Story-level calibration: fit the story score and pick its threshold by group-fold cross-validation.

``python -m eval.stories calibrate`` reads the dev cluster files (UCI same-story headlines with
their times, NTREX Korean article + English source), embeds each item's story text once (cached
under ``var/story_vectors/``), and for each of K folds over whole gold clusters:

1. streams the training clusters' items in file order with the *gold* stories, recording every
   (item, open candidate story) feature row with label "is its gold story" (the decisions the
   tracker has to make);
2. fits a logistic regression on those rows (both sets pooled);
3. picks the threshold with the best mean ARI of the streamed training clusters;
4. streams the held-out fold's clusters with that model and threshold and scores ARI.

It prints the out-of-fold ARI per set, and the weights and threshold refitted on all dev clusters
(what ``service.stories.STORY_WEIGHTS`` and ``EngineConfig.story.threshold`` hold).
``python -m eval.stories order`` prints the shipped story decision's ARI in file order and in
three seeded shuffles per set (``--no-revise``: each decision final when made, as before
``EngineConfig.story.revise``).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from eval.data import REPO_ROOT, ClusterItem, Side, eval_data_dir, load_clusters
from eval.engine import item_time, to_article
from eval.metrics import cluster_scores
from service.placement import stream_stories
from service.stories import STORY_FEATURES, StoryEvidence, StoryTracker, StoryVeto, story_text

SETS = ("uci-news-aggregator-subset", "ntrex128-kor-eng")
GRID = (0.3, 0.4, 0.5, 0.6, 0.7)
# The shuffles `order` reports and `calibrate --train-orders` scores held-out folds in; the
# training shuffles use other seeds (--train-orders, default none), so no order is fitted on.
ORDER_SEEDS = (1, 2, 3)


def item_seconds(it: ClusterItem) -> float:
    """An item's time in epoch seconds (``eval.engine.item_time``), 0 when it has none."""
    t = item_time(it)
    return t.timestamp() if t is not None else 0.0


def story_texts(items: Sequence[ClusterItem]) -> list[str]:
    out = []
    for it in items:
        a = to_article(Side(it.text, it.lang))
        out.append(story_text(a.title, a.body))
    return out


def cached_vectors(texts: Sequence[str], model: str = "use", cache_dir: Path | None = None) -> np.ndarray:
    """The model's vectors of ``texts``, cached on disk by a hash of the texts (experiments only)."""
    cache_dir = cache_dir or REPO_ROOT / "var" / "story_vectors"
    key = hashlib.sha256(("\x1e".join([model, *texts])).encode()).hexdigest()[:20]
    path = cache_dir / f"{key}.npy"
    if path.exists():
        return np.load(path)
    from eval.engine import load_embedder

    vecs = np.asarray(load_embedder(model).encode(list(texts)), dtype=np.float32)
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs)
    return vecs


def evidence(items: Sequence[ClusterItem], vectors: np.ndarray | None) -> list[StoryEvidence]:
    out = []
    for i, it in enumerate(items):
        a = to_article(Side(it.text, it.lang))
        out.append(StoryEvidence.build(a.title, a.body, it.lang, item_seconds(it),
                                       None if vectors is None else vectors[i], timed=item_time(it) is not None))
    return out


@dataclass
class StorySet:
    """One dev cluster file's items in some order, each with its story evidence. ``units``: each
    item's copy group as the engine formed it (``with_engine_units``): the story level places a
    group as a whole, decided on its first item; None: every item is its own group (the story
    decision alone)."""

    name: str
    items: list[ClusterItem]
    evidence: list[StoryEvidence]
    units: list[Hashable] | None = None

    def unit_list(self) -> list[Hashable]:
        return list(range(len(self.items))) if self.units is None else list(self.units)

    def subset(self, clusters: set[str]) -> StorySet:
        keep = [i for i, it in enumerate(self.items) if it.cluster in clusters]
        units = None if self.units is None else [self.units[i] for i in keep]
        return StorySet(self.name, [self.items[i] for i in keep], [self.evidence[i] for i in keep], units)

    def reordered(self, idx: Sequence[int]) -> StorySet:
        units = None if self.units is None else [self.units[i] for i in idx]
        return StorySet(self.name, [self.items[i] for i in idx], [self.evidence[i] for i in idx], units)


def load_set(name: str, model: str = "use", data: Path | None = None) -> StorySet:
    items = load_clusters(eval_data_dir(data) / name / "dev.clusters.jsonl")
    return StorySet(name, items, evidence(items, cached_vectors(story_texts(items), model)))


_REPLAYED = frozenset({"story_threshold", "story_window_days", "story_slot_veto", "story_revise"})


def with_engine_units(s: StorySet, model: str = "use", cache_dir: Path | None = None) -> StorySet:
    """The set with the engine's copy groups as its units, in the set's order: the whole engine
    (``eval.engine.ingest_units``, the ``SAMESTORY_*`` settings of the environment) ingests the
    items once, and the result is cached on disk by the items, their order and the settings.
    An item the engine gave no story vector (a copy a cheap stage settled) loses its vector here
    too, so a replay over these units makes the engine's story decisions (UCI dev, file order:
    the same ARI and vetoes as ``samestory eval clusters --level story``)."""
    from service.config import EngineConfig

    cache_dir = cache_dir or REPO_ROOT / "var" / "story_units"
    # The story decision's own settings change neither the copy groups nor which items have a
    # story vector, so they are not part of the key (the replay applies them).
    settings = {k: v for k, v in EngineConfig.load().flat().items() if k not in _REPLAYED}
    cfg = json.dumps(settings, sort_keys=True, default=str)
    key = hashlib.sha256("\x1e".join([model, cfg, *(f"{it.id}\x1f{it.text}" for it in s.items)]).encode()
                         ).hexdigest()[:20]
    path = cache_dir / f"{s.name}-{key}.json"
    if path.exists():
        got = json.loads(path.read_text(encoding="utf-8"))
        groups, has_vec = got["groups"], got["has_vector"]
    else:
        from eval.engine import ingest_units

        groups, has_vec = ingest_units(s.items, model)
        cache_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"groups": groups, "has_vector": has_vec}), encoding="utf-8")
    ev = [e if h else dataclasses.replace(e, vector=None) for e, h in zip(s.evidence, has_vec, strict=True)]
    return StorySet(s.name, s.items, ev, list(groups))


class FeatureRows(NamedTuple):
    """One set's story decisions: a row of STORY_FEATURES each, and whether it was the gold story."""

    x: np.ndarray  # (decisions, len(STORY_FEATURES)) float64
    y: np.ndarray  # (decisions,) 1 = the candidate is the item's gold story, else 0


def training_rows(s: StorySet, window_days: float, orders: Sequence[int] = ()) -> FeatureRows:
    """Feature rows of every (item, candidate open story) decision, streamed with the gold stories:
    in file order, then in each seeded shuffle of ``orders``.

    File order alone teaches the fit only the decisions that order poses: in NTREX's file every
    Korean article is followed by its English source, so the fit never sees an article arriving
    while its partner is absent, the case that breaks shuffled orders (docs/stories.md, "Order").
    """
    if orders:
        parts = [training_rows(o, window_days) for o in [s, *(shuffled(s, k) for k in orders)]]
        return FeatureRows(np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts]))
    t = StoryTracker(threshold=0.5, window_days=window_days)
    gold_ids: dict[str, int] = {}
    unit_story: dict[Hashable, int] = {}
    xs, ys = [], []
    for it, ev, unit in zip(s.items, s.evidence, s.unit_list(), strict=True):
        if unit in unit_story:  # a later member of a copy group follows it: no decision
            t.add(unit_story[unit], ev)
            continue
        for story in t.candidates(ev):
            f = t.features(ev, story)
            xs.append([f[n] for n in STORY_FEATURES])
            ys.append(1 if gold_ids.get(it.cluster) == story.id else 0)
        gold_ids[it.cluster] = unit_story[unit] = t.add(gold_ids.get(it.cluster), ev)
    return FeatureRows(np.asarray(xs, dtype=np.float64).reshape(-1, len(STORY_FEATURES)), np.asarray(ys))


# Sign constraints of the fit, per feature of STORY_FEATURES: more similarity (vectors, words,
# names) never counts against a story (>= 0), a longer gap never counts for it (<= 0); "long"
# (an item with a body) is free: whole-article cosines run higher, so it may raise the bar. An
# unconstrained fit learnt that a member much closer than the centroid counts *against* (NTREX
# keeps different outlets' write-ups of one event apart), which then split plain updates.
BOUNDS = {"centroid": (0, None), "nearest": (0, None), "cross": (0, None), "words": (0, None),
          "anchors": (0, None), "gap_days": (None, 0), "long": (None, None), "long_nearest": (0, None),
          "headline_nearest": (None, None)}


def _balanced_weights(rows: Sequence[FeatureRows]) -> np.ndarray:
    """A weight per decision: each set weighs the same in total, and within a set positives as much
    as negatives (UCI's thousands of headlines would otherwise drown NTREX's 93 cross-lingual
    decisions)."""
    return np.concatenate([np.where(r.y == 1, 0.5 / max(1, r.y.sum()), 0.5 / max(1, (r.y == 0).sum()))
                           for r in rows])


def fit_weights(rows: Sequence[FeatureRows], constrained: bool = False,
                l2: float = 1e-6) -> tuple[float, ...]:
    """Logistic regression over the feature rows, each set weighing the same; weights then intercept.

    ``constrained``: signs bounded as in ``BOUNDS`` (L-BFGS-B). Shipped: unconstrained (better
    out-of-fold ARI on both sets; docs/stories.md has both).
    """
    x = np.concatenate([r.x for r in rows])
    y = np.concatenate([r.y for r in rows])
    w = _balanced_weights(rows)
    if not constrained:
        from sklearn.linear_model import LogisticRegression

        lr = LogisticRegression(C=1.0, max_iter=5000).fit(x, y, sample_weight=w * len(y))
        return tuple(round(float(c), 4) for c in [*lr.coef_[0], lr.intercept_[0]])
    from scipy.optimize import minimize

    y = y.astype(np.float64)
    w = w / w.sum()
    xb = np.hstack([x, np.ones((len(x), 1))])

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = xb @ theta
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))
        nll = -np.sum(w * (y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))
        grad = xb.T @ (w * (p - y))
        reg = l2 * np.sum(theta[:-1] ** 2)
        grad[:-1] += 2 * l2 * theta[:-1]
        return nll + reg, grad

    bounds = [BOUNDS[n] for n in STORY_FEATURES] + [(None, None)]
    res = minimize(loss, np.zeros(xb.shape[1]), jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": 5000})
    return tuple(round(float(v), 4) for v in res.x)


def slot_veto() -> StoryVeto:
    """The engine's story veto (who / where / which slot guards, and the subject guard for Korean
    headlines), as ``Deduper`` builds it."""
    from service.guards.rules import load_rules
    from service.guards.slots import SlotAnalyzer
    from service.guards.storyveto import SlotVeto
    from service.guards.subject import SubjectGuard

    rules = load_rules()
    return SlotVeto(SlotAnalyzer(rules), subject=SubjectGuard.from_rules(rules["subject"]))


def stream_labels(s: StorySet, weights: Sequence[float], threshold: float, window_days: float,
                  veto: StoryVeto | None = None, revise: bool = False) -> list[int]:
    """Each item's story when the set has been streamed: a copy group's first item is decided as
    the engine decides a new group, later members follow their group (``s.units``; without units
    every item is its own group). With ``revise`` a group's story may change after its decision:
    the final one counts."""
    t = StoryTracker(threshold=threshold, window_days=window_days, weights=weights, veto=veto, revise=revise)
    units = s.unit_list()
    # The engine's own story placement (service.placement): decisions, rechecks and revisions.
    placed = stream_stories(t, zip(units, s.evidence, strict=True))
    return [placed[u].story for u in units]


def stream_ari(s: StorySet, weights: Sequence[float], threshold: float, window_days: float,
               veto: StoryVeto | None = None, revise: bool = False) -> float:
    labels = stream_labels(s, weights, threshold, window_days, veto, revise)
    return cluster_scores([it.cluster for it in s.items], labels).ari


def folds_of(s: StorySet, k: int, seed: int) -> list[set[str]]:
    clusters = sorted({it.cluster for it in s.items})
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(clusters))
    return [{clusters[j] for j in order[i::k]} for i in range(k)]


def calibrate(sets: Sequence[StorySet], k: int = 5, seed: int = 0, window_days: float = 3.0,
              grid: Sequence[float] = GRID, constrained: bool = False,
              train_orders: Sequence[int] = (), veto: StoryVeto | None = None,
              revise: bool = False) -> dict[str, object]:
    """Group-fold calibration (module docstring); ``train_orders``: also fit on those seeded
    shuffles of the training clusters (``training_rows``), and report each held-out fold's ARI
    in its shuffles too, so a fit that only works in file order shows it. ``veto`` and
    ``revise``: the thresholds are chosen, and the folds scored, with the engine's slot veto and
    revision (``calibrate --engine``); the sets' ``units`` say whether decisions are over copy
    groups."""
    folds = {s.name: folds_of(s, k, seed) for s in sets}
    oof: dict[str, list[float]] = {s.name: [] for s in sets}
    oof_shuffled: dict[str, list[list[float]]] = {s.name: [] for s in sets}
    chosen = []
    for f in range(k):
        train = [s.subset(set().union(*(folds[s.name][g] for g in range(k) if g != f))) for s in sets]
        test = [s.subset(folds[s.name][f]) for s in sets]
        weights = fit_weights([training_rows(s, window_days, train_orders) for s in train], constrained)
        best = max(grid, key=lambda th: (np.mean([stream_ari(s, weights, th, window_days, veto, revise)
                                                  for s in train]), -th))
        chosen.append(best)
        for s in test:
            oof[s.name].append(stream_ari(s, weights, best, window_days, veto, revise))
            if train_orders:
                oof_shuffled[s.name].append([stream_ari(shuffled(s, j), weights, best, window_days, veto, revise)
                                             for j in ORDER_SEEDS])
        print(f"fold {f}: threshold {best}, " + ", ".join(f"{s.name} {oof[s.name][-1]:.3f}" for s in test),
              file=sys.stderr)
    weights = fit_weights([training_rows(s, window_days, train_orders) for s in sets], constrained)
    per_th = {th: [stream_ari(s, weights, th, window_days, veto, revise) for s in sets] for th in grid}
    best = max(grid, key=lambda th: (np.mean(per_th[th]), -th))
    return {
        "features": list(STORY_FEATURES),
        "weights": list(weights),
        "threshold": best,
        "folds": k,
        "fold_thresholds": chosen,
        "out_of_fold_ari": {n: round(float(np.mean(v)), 4) for n, v in oof.items()},
        "out_of_fold_ari_per_fold": {n: [round(x, 4) for x in v] for n, v in oof.items()},
        "train_orders": list(train_orders),
        "engine_units": all(s.units is not None for s in sets),
        "veto": veto is not None,
        "revise": revise,
        "out_of_fold_ari_shuffled": {n: [round(float(np.mean([f[j] for f in v])), 4) for j in range(len(ORDER_SEEDS))]
                                     for n, v in oof_shuffled.items() if v},
        "dev_ari_at_threshold": {s.name: round(per_th[best][i], 4) for i, s in enumerate(sets)},
        "dev_ari_by_threshold": {str(th): [round(x, 4) for x in v] for th, v in per_th.items()},
    }


def shuffle_order(n: int, seed: int) -> list[int]:
    """The indices of ``n`` items in shuffle ``seed``'s order (``random.Random(seed)``), the one
    order every command here calls shuffle ``seed``.

    >>> sorted(shuffle_order(5, 1)) == list(range(5)), shuffle_order(5, 1) == shuffle_order(5, 1)
    (True, True)
    """
    import random

    idx = list(range(n))
    random.Random(seed).shuffle(idx)
    return idx


def shuffled(s: StorySet, seed: int) -> StorySet:
    """The set's items in a seeded random order (times kept: a feed that arrives out of order)."""
    return s.reordered(shuffle_order(len(s.items), seed))


def unit_ceiling(s: StorySet) -> float:
    """ARI of the best any story level can do over the set's units: every copy group in the gold
    story most of its items are in (copy groups are never split by the story level)."""
    from collections import Counter

    units = s.unit_list()
    votes: dict[Hashable, Counter[str]] = {}
    for it, u in zip(s.items, units, strict=True):
        votes.setdefault(u, Counter())[it.cluster] += 1
    best = {u: c.most_common(1)[0][0] for u, c in votes.items()}
    return round(cluster_scores([it.cluster for it in s.items], [best[u] for u in units]).ari, 4)


def order_aris(s: StorySet, weights: Sequence[float], threshold: float, window_days: float,
               seeds: Sequence[int] = ORDER_SEEDS, veto: StoryVeto | None = None, revise: bool = False) -> list[float]:
    """ARI of the story decision in file order, then in each seeded shuffle of the items."""
    out = [stream_ari(o, weights, threshold, window_days, veto, revise) for o in [s, *(shuffled(s, k) for k in seeds)]]
    return [round(x, 4) for x in out]


def engine_orders(name: str, seeds: Sequence[int], model: str = "use", data: Path | None = None,
                  settle: bool = False, hours: float | None = None) -> dict[str, dict[str, float | bool | None]]:
    """The engine's story and copy-level scores on one dev cluster file, per order: seed 0 is file
    order, any other seed the items shuffled with ``random.Random(seed)`` (as ``shuffled``), each
    ingested into a fresh store (``eval.engine.ingest_stories``); ``settle``: both levels once
    settled after the ingest (``Deduper.settle``). ``copy_same`` / ``story_same``: whether the
    order's partition of the items is exactly the first order's (by item id); the ingest's and
    (``settle``) each level's settling's seconds and moves; ``hours``: the settling's window
    (``Deduper.settle(hours=...)``), with the items each level replayed and held."""
    from eval.engine import ingest_stories

    items = load_clusters(eval_data_dir(data) / name / "dev.clusters.jsonl")
    def r4(v: float | None) -> float | None:
        return None if v is None else round(v, 4)

    def partition(order: Sequence[ClusterItem], labels: Sequence[int]) -> frozenset[frozenset[str]]:
        groups: dict[int, set[str]] = {}
        for it, label in zip(order, labels, strict=True):
            groups.setdefault(label, set()).add(it.id)
        return frozenset(frozenset(g) for g in groups.values())

    out: dict[str, dict[str, float | bool | None]] = {}
    first: tuple[frozenset[frozenset[str]], frozenset[frozenset[str]]] | None = None
    for seed in seeds:
        order = [items[i] for i in shuffle_order(len(items), seed)] if seed else list(items)
        lv = ingest_stories(order, model=model, settle=settle, settle_hours=hours)
        copy, story = (lv.settled_copy, lv.settled_story) if settle else (lv.copy, lv.story)
        gold = [it.cluster for it in order]
        c, st = cluster_scores(gold, copy), cluster_scores(gold, story)
        parts = (partition(order, copy), partition(order, story))
        first = first or parts
        out[str(seed)] = {"story_ari": r4(st.ari), "story_p": r4(st.pairwise_precision),
                          "story_r": r4(st.pairwise_recall), "stories": st.predicted_clusters,
                          "copy_ari": r4(c.ari), "copy_p": r4(c.pairwise_precision), "copy_r": r4(c.pairwise_recall),
                          "copy_same": parts[0] == first[0], "story_same": parts[1] == first[1],
                          "ingest_s": round(lv.ingest_seconds, 1)}
        if lv.settled is not None:  # what the settling did and took, per level
            cp = lv.settled.copies
            out[str(seed)].update({
                "settle_stories_s": round(lv.settled.seconds - (cp.seconds if cp is not None else 0.0), 1),
                "story_moves": lv.settled.moved, "stories_replayed": lv.settled.items, "stories_held": lv.settled.held,
                **({"settle_copies_s": round(cp.seconds, 1), "copy_moves": cp.moved, "anchors_changed": cp.anchors,
                    "new_copy_groups": cp.new_groups, "copies_embedded": cp.embedded, "copies_replayed": cp.items,
                    "copies_held": cp.held} if cp is not None else {})})
        print(name, seed, out[str(seed)], file=sys.stderr, flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.stories", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("calibrate", help="fit the story score and threshold with group-fold CV")
    c.add_argument("--data", type=Path, default=None)
    c.add_argument("--sets", default=",".join(SETS))
    c.add_argument("--folds", type=int, default=5)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--window-days", type=float, default=3.0)
    c.add_argument("--model", default="use")
    c.add_argument("--constrained", action="store_true", help="similarity weights >= 0, gap weight <= 0")
    c.add_argument("--train-orders", default="", help="comma-separated shuffle seeds to fit on besides file "
                   "order (e.g. 11,12); held-out folds are then also scored in shuffles 1, 2, 3")
    c.add_argument("--grid", default=",".join(map(str, GRID)), help="thresholds tried")
    c.add_argument("--engine", action="store_true", help="engine-shaped: decisions over the engine's copy "
                   "groups (file order), thresholds chosen and folds scored with its slot veto and revision")
    o = sub.add_parser("order", help="story ARI in file order and three shuffles (shipped weights and threshold)")
    o.add_argument("--data", type=Path, default=None)
    o.add_argument("--sets", default=",".join(SETS))
    o.add_argument("--model", default="use")
    o.add_argument("--revise", action=argparse.BooleanOptionalAction, default=None,
                   help="revisable story membership (default: EngineConfig.story.revise)")
    o.add_argument("--engine", action="store_true", help="over the engine's copy groups of file order "
                   "(shuffles reorder those groups' items)")
    e = sub.add_parser("engine", help="the whole engine: story and copy-level ARI in file order (seed 0) and "
                       "seeded shuffles, one ingest each (the environment's SAMESTORY_* settings)")
    e.add_argument("--data", type=Path, default=None)
    e.add_argument("--sets", default=",".join(SETS))
    e.add_argument("--model", default="use")
    e.add_argument("--seeds", default="0,1,2,3", help="0: file order; others: random.Random(seed) shuffles")
    e.add_argument("--settle", action="store_true",
                   help="settle both levels once the feed is in (Deduper.settle), then score them")
    e.add_argument("--hours", type=float, default=None,
                   help="with --settle: replay only the copy groups of the last HOURS (samestory settle --hours)")
    args = p.parse_args(argv)
    if args.cmd == "engine":
        if args.hours is not None and not (args.settle and args.hours > 0):
            raise SystemExit("python -m eval.stories engine: --hours needs --settle and a number > 0")
        print(json.dumps({n: engine_orders(n, [int(x) for x in args.seeds.split(",") if x], args.model, args.data,
                                           args.settle, args.hours)
                          for n in args.sets.split(",") if n}))
        return 0
    sets = [load_set(n, args.model, args.data) for n in args.sets.split(",") if n]
    if args.engine:
        sets = [with_engine_units(s, args.model) for s in sets]
    from service.config import EngineConfig

    if args.cmd == "order":
        from service.stories import STORY_WEIGHTS

        cfg = EngineConfig.load()
        veto = slot_veto() if cfg.story.slot_veto else None
        revise = cfg.story.revise if args.revise is None else args.revise
        print(json.dumps({s.name: order_aris(s, STORY_WEIGHTS, cfg.story.threshold, cfg.story.window_days, veto=veto,
                                             revise=revise) for s in sets}))
        if args.engine:  # what no story level over these copy groups can exceed (file order)
            print(json.dumps({f"{s.name} ceiling": unit_ceiling(s) for s in sets}))
        return 0
    cfg = EngineConfig.load()
    out = calibrate(sets, k=args.folds, seed=args.seed, window_days=args.window_days,
                    constrained=args.constrained, grid=[float(x) for x in args.grid.split(",") if x],
                    train_orders=[int(x) for x in args.train_orders.split(",") if x],
                    veto=slot_veto() if args.engine and cfg.story.slot_veto else None,
                    revise=bool(args.engine and cfg.story.revise))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
