"""The Markdown eval report: every set of an eval-data folder, samestory next to the baselines.

``run_report`` evaluates; ``render_markdown`` writes. The report cites wrong verdicts by pair id
and scores only: eval texts are never copied into the report or the repository.

Reading rules the report states and follows:

* kinds are tabulated separately (translation, same story, STS >= threshold, paraphrase mean
  different things); a set's pooled row is shown but the per-kind rows are the ones to act on;
* for a kind with only positives the meaningful number is recall, for one with only negatives
  the false-merge rate (fp / negatives); F1 only exists where both labels occur;
* "samestory beats or matches a baseline" means its F1 is >= the baseline's minus 0.005 (the
  precision the tables print at); anything else is listed under "Where samestory loses".
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import platform
import shlex
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from tqdm import tqdm

from eval import clusters as cluster_eval
from eval import pairs as pair_eval
from eval.baselines import default_baselines
from eval.baselines.base import Baseline
from eval.data import (
    REPO_ROOT,
    ClusterItem,
    EvalSet,
    Pair,
    discover_sets,
    eval_data_dir,
    load_clusters,
    load_pairs,
    subsample_clusters,
    subsample_pairs,
)
from eval.metrics import ClusterScores, Confusion, PRCurve, cluster_scores, pr_curve

SAMESTORY = "samestory"
SAMESTORY_NO_GUARDS = "samestory (no guards)"
# The engine with the pair verifier off (issue 35: it is on by default; ``--verifier``): pair sets only.
SAMESTORY_NO_VERIFIER = "samestory (no verifier)"
SAMESTORY_STORIES = "samestory stories"
SAMESTORY_SETTLED = "samestory stories, settled"
MATCH_TOLERANCE = 0.005


@dataclass
class MethodRun:
    """One method on one set's pairs: its metrics and what the plots and error tables need."""

    result: pair_eval.PairResult
    preds: list[pair_eval.Prediction]
    seconds: float


@dataclass
class SetReport:
    """Everything measured on one eval set."""

    name: str
    is_news: bool
    # False: an operator's own set (not one of eval.data.PUBLIC_SETS). The report then describes
    # it by ``profile`` (what its files hold) and words nothing after the public sets' README.
    public: bool = True
    profile: dict[str, Any] = field(default_factory=dict)
    pairs_total: int = 0
    pairs: list[Pair] = field(default_factory=list)
    runs: dict[str, MethodRun] = field(default_factory=dict)
    cluster_items_total: int = 0
    cluster_items: int = 0
    cluster_gold: int = 0
    clusters: dict[str, cluster_eval.ClusterResult] = field(default_factory=dict)
    cluster_seconds: dict[str, float] = field(default_factory=dict)
    # The story level (issue 17) on the same cluster items: samestory's stories and the story
    # baselines (seed 000, seed 003, the USE centroid stream).
    stories: dict[str, cluster_eval.ClusterResult] = field(default_factory=dict)
    story_seconds: dict[str, float] = field(default_factory=dict)
    # The same items in other arrival orders (issue 17's order independence): per order ("0" is
    # file order; others random.Random(seed) shuffles), story ARI streamed and settled, and
    # whether the settled copy groups and stories are exactly file order's.
    story_orders: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        own = {} if self.public else {"public": False, "profile": self.profile}
        return {"name": self.name, "is_news": self.is_news, **own, "pairs_total": self.pairs_total,
                "pairs_used": len(self.pairs),
                "pairs": {m: {**r.result.to_dict(), "seconds": round(r.seconds, 2)} for m, r in self.runs.items()},
                "cluster_items_total": self.cluster_items_total, "cluster_items_used": self.cluster_items,
                "clusters": {m: {**c.to_dict(), "seconds": round(self.cluster_seconds.get(m, 0.0), 2)}
                             for m, c in self.clusters.items()},
                "stories": {m: {**c.to_dict(), "seconds": round(self.story_seconds.get(m, 0.0), 2)}
                            for m, c in self.stories.items()},
                "story_orders": self.story_orders}


@dataclass
class Report:
    """A whole run: the settings and one :class:`SetReport` per set."""

    settings: dict[str, Any]
    sets: list[SetReport]
    methods: list[str]
    baseline_descriptions: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"settings": self.settings, "methods": self.methods,
                "baselines": self.baseline_descriptions, "sets": [s.to_dict() for s in self.sets]}


def run_set_pairs(pairs: Sequence[Pair], baselines: Sequence[Baseline], model: str = "use",
                  progress: bool = False, verifier: bool = False) -> dict[str, MethodRun]:
    """samestory (guards on and off; ``verifier``: also guards on with the pair verifier off) and
    every baseline on ``pairs``."""
    runs: dict[str, MethodRun] = {}
    ours: list[tuple[str, bool, dict[str, float] | None]] = [(SAMESTORY, True, None), (SAMESTORY_NO_GUARDS, False, None)]
    if verifier:
        ours.append((SAMESTORY_NO_VERIFIER, True, {"verifier": False}))
    for name, guards, overrides in ours:
        t0 = time.perf_counter()
        preds = pair_eval.predict_samestory(pairs, guards=guards, model=model, overrides=overrides, progress=progress)
        runs[name] = MethodRun(pair_eval.evaluate(name, pairs, preds), preds, time.perf_counter() - t0)
    for b in baselines:
        t0 = time.perf_counter()
        preds = pair_eval.predict_baseline(b, pairs, progress=progress)
        runs[b.name] = MethodRun(pair_eval.evaluate(b.name, pairs, preds), preds, time.perf_counter() - t0)
    return runs


def _partition(items: Sequence[ClusterItem], labels: Sequence[int]) -> frozenset[frozenset[str]]:
    groups: dict[int, set[str]] = {}
    for it, label in zip(items, labels, strict=True):
        groups.setdefault(label, set()).add(it.id)
    return frozenset(frozenset(g) for g in groups.values())


def run_set_stories(rep: SetReport, items: Sequence[ClusterItem], baselines: Sequence[Baseline], model: str = "use",
                    progress: bool = False, orders: Sequence[int] = ()) -> None:
    """samestory's stories and the story baselines on one cluster file's items (into ``rep``);
    ``orders``: shuffle seeds the items are also ingested in (``random.Random(seed)``), each
    streamed and settled, for the arrival-order table.

    A baseline already run at the copy level on the same items (seed 000, seed 003: they have one
    grouping, no levels) is scored again from that run, not re-run.
    """
    from eval.engine import ingest_stories
    from eval.stories import shuffle_order

    t0 = time.perf_counter()
    levels = ingest_stories(items, guards=True, model=model, progress=progress, settle=True)
    rep.stories[SAMESTORY_STORIES] = cluster_eval.evaluate(SAMESTORY_STORIES, items, levels.story)
    rep.stories[SAMESTORY_SETTLED] = cluster_eval.evaluate(SAMESTORY_SETTLED, items, levels.settled_story)
    rep.story_seconds[SAMESTORY_STORIES] = rep.story_seconds[SAMESTORY_SETTLED] = time.perf_counter() - t0
    first = (_partition(items, levels.settled_copy), _partition(items, levels.settled_story))
    for seed in (0, *orders):
        order = [items[i] for i in shuffle_order(len(items), seed)] if seed else list(items)
        lv = levels if not seed else ingest_stories(order, guards=True, model=model, progress=progress, settle=True)
        gold = [it.cluster for it in order]
        rep.story_orders[str(seed)] = {
            "streamed_ari": cluster_scores(gold, lv.story).ari, "settled_ari": cluster_scores(gold, lv.settled_story).ari,
            "settled_copy_same": _partition(order, lv.settled_copy) == first[0],
            "settled_story_same": _partition(order, lv.settled_story) == first[1]}
    for b in baselines:
        if b.name in rep.clusters:
            rep.stories[b.name] = rep.clusters[b.name]
            rep.story_seconds[b.name] = rep.cluster_seconds.get(b.name, 0.0)
            continue
        t0 = time.perf_counter()
        labels = cluster_eval.predict_baseline(b, items, progress=progress)
        rep.stories[b.name] = cluster_eval.evaluate(b.name, items, labels)
        rep.story_seconds[b.name] = time.perf_counter() - t0


@dataclass(frozen=True)
class LoadedSet:
    """One eval set with its files read (``None`` where the set has no such file)."""

    set: EvalSet
    pairs: list[Pair] | None
    clusters: list[ClusterItem] | None


def load_sets(data_dir: str | Path | None = None, only: Sequence[str] | None = None) -> list[LoadedSet]:
    """Every set of ``data_dir`` (or the ``only`` ones) with its files read, before any set is
    evaluated: a missing folder, an unknown set name or a malformed line raises at once
    (``FileNotFoundError`` / ``ValueError`` naming it), not after the sets before it have run."""
    sets: list[EvalSet] = discover_sets(data_dir)
    if only:
        unknown = set(only) - {s.name for s in sets}
        if unknown:
            raise ValueError(f"unknown set(s) {', '.join(sorted(unknown))}; the sets under "
                             f"{eval_data_dir(data_dir)}: {', '.join(s.name for s in sets)}")
        sets = [s for s in sets if s.name in only]
    return [LoadedSet(s, load_pairs(s.pairs_path) if s.pairs_path is not None else None,
                      load_clusters(s.clusters_path) if s.clusters_path is not None else None) for s in sets]


def run_report(data_dir: str | Path | None = None, *, with_baselines: bool = True, sample: int | None = None,
               limit: int | None = None, cluster_sample: int | None = None, seed: int = 0,
               model: str = "use", only: Sequence[str] | None = None, tokenizer: str = "okt",
               progress: bool = True, stories: bool = True, story_orders: Sequence[int] = (1, 2, 3),
               verifier: bool = False, loaded: Sequence[LoadedSet] | None = None) -> Report:
    """Evaluate every set of ``data_dir`` (or the ``only`` ones; ``loaded``: those sets already
    read by :func:`load_sets`); ``stories``: also the story level on every cluster file, in file
    order and the ``story_orders`` shuffles; ``verifier``: also the engine with the pair verifier
    off, on the pair sets."""
    from eval.engine import make_config

    t_start = time.perf_counter()
    config = make_config().for_model(model)
    sets = list(loaded) if loaded is not None else load_sets(data_dir, only)
    baselines = default_baselines(config.copy.embedding_threshold, model=model, tokenizer=tokenizer) if with_baselines else []
    methods = [SAMESTORY, SAMESTORY_NO_GUARDS, *([SAMESTORY_NO_VERIFIER] if verifier else [])] + [b.name for b in baselines]
    story_baselines = cluster_eval.story_baselines(model=model, tokenizer=tokenizer) if with_baselines else []
    out: list[SetReport] = []
    for loaded_set in tqdm(sets, desc="eval sets", disable=not progress):
        s = loaded_set.set
        rep = SetReport(s.name, s.is_news, public=s.is_public)
        if not s.is_public:
            rep.profile = describe_set(loaded_set.pairs, loaded_set.clusters)
        if loaded_set.pairs is not None:
            all_pairs = loaded_set.pairs
            rep.pairs_total = len(all_pairs)
            rep.pairs = subsample_pairs(all_pairs, sample=sample, limit=limit, seed=seed)
            rep.runs = run_set_pairs(rep.pairs, baselines, model=model, progress=progress, verifier=verifier)
        if loaded_set.clusters is not None:
            items = loaded_set.clusters
            rep.cluster_items_total = len(items)
            items = subsample_clusters(items, sample=cluster_sample, limit=limit, seed=seed)
            rep.cluster_items = len(items)
            rep.cluster_gold = len({it.cluster for it in items})
            for name, guards in ((SAMESTORY, True), (SAMESTORY_NO_GUARDS, False)):
                t0 = time.perf_counter()
                labels = cluster_eval.predict_samestory(items, guards=guards, model=model, progress=progress)
                rep.clusters[name] = cluster_eval.evaluate(name, items, labels)
                rep.cluster_seconds[name] = time.perf_counter() - t0
            for b in baselines:
                t0 = time.perf_counter()
                labels = cluster_eval.predict_baseline(b, items, progress=progress)
                rep.clusters[b.name] = cluster_eval.evaluate(b.name, items, labels)
                rep.cluster_seconds[b.name] = time.perf_counter() - t0
            if stories:
                run_set_stories(rep, items, story_baselines, model=model, progress=progress, orders=story_orders)
        out.append(rep)
    tok = next((getattr(b, "tokenizer_name", None) for b in baselines if hasattr(b, "tokenizer_name")), None)
    settings = {"data_dir": str(eval_data_dir(data_dir)), "sample": sample, "limit": limit,
                "cluster_sample": cluster_sample, "seed": seed, "model": model,
                "embedding_threshold": config.copy.embedding_threshold, "ngram_threshold": config.copy.ngram_threshold,
                "minhash_threshold": config.copy.minhash_threshold, "seed003_tokenizer": tok, "verifier": verifier,
                "seconds": round(time.perf_counter() - t_start, 1), "python": platform.python_version()}
    return Report(settings, out, methods, {b.name: b.description for b in baselines})


def _tally(values: Sequence[str]) -> dict[str, int]:
    """How often each value occurs, most frequent first (ties by name)."""
    return dict(sorted(Counter(values).items(), key=lambda kv: (-kv[1], kv[0])))


def describe_set(pairs: Sequence[Pair] | None, clusters: Sequence[ClusterItem] | None) -> dict[str, Any]:
    """What an operator's own set holds, read from every row of its files (before any sample):
    the report's only description of a set it does not know.

    >>> from eval.data import Side
    >>> ps = [Pair("1", Side("a", "ko"), Side("b", "en"), 1, "xl"), Pair("2", Side("a", "ko"), Side("c", "ko"), 0, "ko")]
    >>> describe_set(ps, None)
    {'pairs': 2, 'positives': 1, 'negatives': 1, 'kinds': {'ko': 1, 'xl': 1}, 'langs': {'ko-en': 1, 'ko-ko': 1}}
    >>> describe_set(None, [ClusterItem("i1", "x", "t", "en"), ClusterItem("i2", "x", "u", "ko")])
    {'cluster_items': 2, 'gold_clusters': 1, 'cluster_langs': {'en': 1, 'ko': 1}}
    """
    out: dict[str, Any] = {}
    if pairs:
        positives = sum(p.label for p in pairs)
        out.update(pairs=len(pairs), positives=positives, negatives=len(pairs) - positives,
                   kinds=_tally([p.kind for p in pairs]), langs=_tally([f"{p.a.lang}-{p.b.lang}" for p in pairs]))
    if clusters:
        out.update(cluster_items=len(clusters), gold_clusters=len({it.cluster for it in clusters}),
                   cluster_langs=_tally([it.lang for it in clusters]))
    return out


# ---------------------------------------------------------------------------------------------
# Markdown


def _f(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None) -> list[str]:
    align = align or ("l" + "r" * (len(header) - 1))
    sep = ["---:" if a == "r" else "---" for a in align]
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"] + \
        ["| " + " | ".join(r) + " |" for r in rows]


#: Issue 8's goals: recall at precision 0.99 on NTREX-, Park- and Tatoeba-style pairs.
XLING_GOALS = (0.95, 0.85, 0.85)


EVAL_DIR = Path(__file__).resolve().parent


def _in_checkout(out_dir: str | Path | None) -> bool:
    """Whether a report written to ``out_dir`` (default ``eval/``) lies in the source checkout."""
    return (Path(out_dir).resolve() if out_dir is not None else EVAL_DIR).is_relative_to(REPO_ROOT)


def _doc_link(label: str, target: str, out_dir: str | Path | None = None) -> str:
    """A link from a report written to ``out_dir`` (default ``eval/``, where the committed report
    lives) to ``target`` (a source-checkout path, ``#anchor`` allowed); ``label`` in code, unlinked,
    where the report lies outside the checkout or the file is not there (an installed package,
    a report written to /tmp): a relative link would point at nothing.

    >>> _doc_link("docs/guards.md", "docs/guards.md#slots")
    '[docs/guards.md](../docs/guards.md#slots)'
    >>> _doc_link("docs/guards.md", "docs/guards.md#slots", "/tmp/report")
    '`docs/guards.md`'
    """
    file, _, anchor = target.partition("#")
    out = Path(out_dir).resolve() if out_dir is not None else EVAL_DIR
    dest = REPO_ROOT / file
    if not dest.is_file() or not out.is_relative_to(REPO_ROOT):  # _in_checkout, on the path resolved above
        return label if label.startswith("`") else f"`{label}`"
    rel = Path(os.path.relpath(dest, out)).as_posix()
    return f"[{label}]({rel}{'#' + anchor if anchor else ''})"


def _cell(text: str) -> str:
    """A Markdown table cell: a literal ``|`` would end the cell."""
    return text.replace("|", "\\|")


def _approaches_module() -> Any:
    """``research/xling/approaches.py`` of the source checkout, loaded by path: the laboratory
    is not installed (nothing shipped imports it), and the ``samestory`` console script does not
    put the checkout on ``sys.path``. None outside a checkout."""
    path = Path(__file__).resolve().parents[1] / "research" / "xling" / "approaches.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("samestory_research_approaches", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _xling_section(out_dir: str | Path | None = None) -> list[str]:
    """The register of cross-lingual approaches (research/xling/approaches.json) as a table;
    its links lead from ``out_dir`` (see :func:`_doc_link`).

    These figures are not re-measured by this report: each comes from its row's command, on
    every dev pair of the three sets (research/notes/xling.md has the protocol and the full tables).
    """
    approaches = _approaches_module()
    if approaches is None:
        return ["## Cross-lingual scorers tried (issue 8)", "",
                "The register (`research/xling/approaches.json`) is in the source checkout only.", ""]
    rows = []
    for a in approaches.load_approaches():
        cells = [f"{v:.3f}" for v in a.r_at_p99]
        name = _doc_link(f"`{a.name}`", f"research/notes/xling.md#{a.section}", out_dir)
        if a.protocol != "5-fold OOF":
            name += f" ({a.protocol})"
        rows.append([_cell(name), _cell(a.what), _cell(a.trained_on), *cells, _cell(a.cost), _cell(a.status)])
    goals = " / ".join(f"{g:.2f}" for g in XLING_GOALS)
    return ["## Cross-lingual scorers tried (issue 8)", "",
            "Recall at precision 0.99 of every Korean-English scoring approach tried, on all dev pairs of "
            "NTREX, Park and Tatoeba (every negative kind), pooled out-of-fold over 5 group folds unless the "
            f"row says otherwise. Issue 8's goals: {goals}. These are not re-measured by this report: "
            "`research/xling/approaches.json` keeps the command that measured each row, and the "
            + ("linked section" if _in_checkout(out_dir) else "row's section") + " of "
            "research/notes/xling.md its full table.", "",
            *_table(["approach", "what", "trained on", "NTREX", "Park", "Tatoeba", "cost beyond USE", "status"],
                    rows, "lllrrrll"), ""]


def rag_chunks_section(path: str | Path | None = None) -> list[str]:
    """The passage path of dedupe on rag-chunks-ntrex (issue 18), from ``eval/rag_chunks.json``.

    Not re-measured by this report (the cross-validation re-embeds every sentence): the JSON
    records the command that measured it; [] when the file is absent.
    """
    path = Path(path) if path is not None else Path(__file__).resolve().parent / "rag_chunks.json"
    if not path.is_file():
        return []
    obj = json.loads(path.read_text(encoding="utf-8"))
    oof, shipped, compare = obj["out_of_fold"], obj["shipped"], obj.get("compare_route")

    def cell(m: dict[str, Any] | None) -> str:
        if m is None:
            return "–"
        if m["tp"] + m["fn"]:
            return f"R {_f(m['recall'])} ({m['tp']}/{m['tp'] + m['fn']})"
        return f"merged {m['fp']}/{m['fp'] + m['tn']}"

    rows = [[f"`{k}`", str(m["pairs"]), cell(m), cell(shipped["by_kind"].get(k)),
             cell(compare["by_kind"].get(k) if compare else None)] for k, m in sorted(oof["by_kind"].items())]
    rows.append(["**all**", str(oof["pairs"]), f"P {_f(oof['precision'], 4)} / R {_f(oof['recall'], 4)}",
                 f"P {_f(shipped['precision'], 4)} / R {_f(shipped['recall'], 4)}",
                 f"P {_f(compare['precision'], 4)} / R {_f(compare['recall'], 4)}" if compare else "–"])
    folds = ", ".join(f"{t['shingle_jaccard']:.3f} / {t['alignment_score']:.2f} / {t['alignment_coverage']:.2f}"
                      for t in obj["thresholds_per_fold"])
    return ["## RAG chunk dedupe (issue 18)", "",
            f"`dedupe`'s passage path (`service/passages.py`) on `{obj['file']}` ({obj['pairs']} pairs): a pair "
            "counts as merged when `dedupe([a, b])` drops `b` as a copy of `a`, the code behind `/v1/dedupe`. "
            f"Thresholds chosen by {obj['folds']}-fold cross-validation grouped by article (`meta.doc`); "
            "*out of fold* scores each fold with thresholds chosen on the other four, *shipped* runs the "
            "`PassageConfig` defaults over every pair (in sample), *compare route* is the headline cascade "
            "(`samestory eval pairs` without `--route dedupe`), which dedupe used before. Per fold "
            f"(shingle Jaccard / alignment score / coverage): {folds}. Measured with `{obj['command']}`"
            + (f"; the compare route with `{obj['compare_route_command']}`" if obj.get("compare_route_command")
               and obj["compare_route_command"] != obj["command"] else "") + ".", "",
            *_table(["kind", "pairs", "out of fold", "shipped", "compare route"], rows, "lrrrr"), ""]


def _count(n: int, noun: str) -> str:
    """``n noun(s)``: the settings name how many sets a run covered (``--sets`` picks fewer).

    >>> _count(1, "public set"), _count(9, "public set")
    ('1 public set', '9 public sets')
    """
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


def kind_cell(m: pair_eval.KindMetrics) -> str:
    """The number that means something for a kind: F1 if mixed, recall if all-same, FMR if all-different."""
    c = m.confusion
    if c.positives and c.negatives:
        return f"F1 {_f(c.f1)}"
    if c.positives:
        return f"R {_f(c.recall)}"
    return f"FMR {_f(c.false_merge_rate)}"


class Loss(NamedTuple):
    """A set where a baseline's F1 is above samestory's."""

    set: str
    what: str  # "pairs" or "clusters" (pairwise F1 of the cluster run)
    baseline: str
    ours: float  # samestory's F1
    theirs: float  # the baseline's F1

    @property
    def gap(self) -> float:
        return self.theirs - self.ours


def losses(report: Report) -> list[Loss]:
    """A :class:`Loss` wherever samestory's F1 is below a baseline's.

    Every shortfall is listed, however small; the report marks those within
    ``MATCH_TOLERANCE`` as ties rather than hiding them. ``what`` is "pairs" or "clusters"
    (pairwise F1 of the cluster run).
    """
    out = []
    ours_names = (SAMESTORY, SAMESTORY_NO_GUARDS, SAMESTORY_NO_VERIFIER)
    for s in report.sets:
        if SAMESTORY in s.runs:
            ours = s.runs[SAMESTORY].result.confusion.f1 or 0.0
            for m, r in s.runs.items():
                theirs = r.result.confusion.f1 or 0.0
                if m not in ours_names and ours < theirs:
                    out.append(Loss(s.name, "pairs", m, ours, theirs))
        if SAMESTORY in s.clusters:
            ours = s.clusters[SAMESTORY].scores.pairwise_f1 or 0.0
            for m, c in s.clusters.items():
                theirs = c.scores.pairwise_f1 or 0.0
                if m not in ours_names and ours < theirs:
                    out.append(Loss(s.name, "clusters", m, ours, theirs))
    return out


def _veto_counts(s: SetReport) -> Counter[tuple[str, int]]:
    """Proposed merges each guard vetoed on ``s``, by (guard, gold label); empty without a samestory run.

    A pair counts once per guard that blocked it."""
    counts: Counter[tuple[str, int]] = Counter()
    run = s.runs.get(SAMESTORY)
    if run is not None:
        for p, q in zip(s.pairs, run.preds, strict=True):
            for g in q.blocked_by:
                counts[(g, p.label)] += 1
    return counts


def _guard_table(s: SetReport) -> list[str]:
    if SAMESTORY not in s.runs:
        return []
    blocks = _veto_counts(s)
    if not blocks:
        return ["No guard vetoed a proposed merge on this set.", ""]
    rows = []
    for g in sorted({g for g, _ in blocks}):
        saved, cost = blocks[(g, 0)], blocks[(g, 1)]
        rows.append([g, str(saved), str(cost), _f(saved / (saved + cost))])
    return ["Guard vetoes of proposed merges (a pair can be vetoed by several guards):", "",
            *_table(["guard", "vetoed gold-different (saved)", "vetoed gold-same (cost)", "veto precision"], rows),
            ""]


SLOT_GUARDS = ("who", "where", "which", "number")


def _slot_veto_section(report: Report, out_dir: str | Path | None = None) -> list[str]:
    """Vetoes per slot guard (who / where / which / number) on every set: issue 19's counts
    (links from ``out_dir``, see :func:`_doc_link`).

    A pair counts once per slot guard that blocked its proposed merge; the polarity guard is the
    "what happened" slot and is listed beside them.
    """
    rows = []
    for s in report.sets:
        if SAMESTORY not in s.runs:
            continue
        counts = _veto_counts(s)
        rows.append([s.name, *[f"{counts[(g, 0)]} / {counts[(g, 1)]}" for g in (*SLOT_GUARDS, "polarity")]])
    if not rows:
        return []
    return ["## Slot vetoes (who, where, which, number, what happened)", "",
            "Proposed merges each slot guard vetoed, as gold-different (saved) / gold-same (cost); "
            "`polarity` is the what-happened slot. Rules: "
            f"{_doc_link('docs/guards.md', 'docs/guards.md#slots-who-where-which-number', out_dir)}; measured: "
            f"{_doc_link('research/notes/guards.md', 'research/notes/guards.md#slots-measured', out_dir)}.",
            "", *_table(["set", "who", "where", "which", "number", "polarity"], rows), ""]


#: What the gold clusters of a public cluster file are, for the stories section's reading note.
GOLD_CLUSTERS = {"uci-news-aggregator-subset": "UCI: Google News stories",
                 "ntrex128-kor-eng": "NTREX: one article, Korean + English"}


def stories_section(report: Report) -> list[str]:
    """The story level (issue 17): samestory's stories against the story baselines, per cluster file.

    Same items as the cluster table (file order, each with its time). ARI leads: it is what the
    issue's targets are stated in; pairwise P/R/F1 show which way a method errs.
    """
    st = [s for s in report.sets if s.stories]
    if not st:
        return []
    lines = ["## Stories (the event level)", "",
             "Each cluster file's items again, scored at the story level: samestory's `story_id` (copy groups "
             "joined into stories, `samestory eval clusters FILE --level story`; \"settled\": the same ingest, "
             "then `samestory settle`, `--settle`) against seed 000's greedy "
             "representatives, seed 003's K-means and a plain USE centroid stream (seed 000 and 003 have a "
             "single grouping: the cluster table's run, scored again here). Gold: the files' clusters"
             + _gold_note(st) + ".", ""]
    rows = []
    verdicts = []
    for s in st:
        rows += [_cluster_row(s, m, c.scores, bcubed=False) for m, c in s.stories.items()]
        ours = s.stories.get(SAMESTORY_STORIES)
        others = {m: c.scores.ari for m, c in s.stories.items() if m not in (SAMESTORY_STORIES, SAMESTORY_SETTLED)}
        if ours is not None and others:
            best_m = max(others, key=others.__getitem__)
            best = others[best_m]
            word = "beats every baseline" if ours.scores.ari > best else "does not beat every baseline"
            verdicts.append(f"- {s.name}: samestory stories ARI {_f(ours.scores.ari)} {word} "
                            f"(best baseline: {best_m}, {_f(best)}).")
    lines += _table(["set", "method", "items", "gold", "predicted", "pair P", "pair R", "pair F1", "ARI"], rows,
                    "ll" + "r" * 7)
    lines += ["", *verdicts, ""] if verdicts else [""]
    return lines + _orders_section(st, None if all(s.public for s in st) else report.settings["data_dir"])


def _gold_note(sets: Sequence[SetReport]) -> str:
    """`` (UCI: ...; NTREX: ...)``: what gold means in the public cluster files among ``sets``."""
    names = {s.name for s in sets if s.public}
    notes = [note for name, note in GOLD_CLUSTERS.items() if name in names]
    return f" ({'; '.join(notes)})" if notes else ""


def _orders_section(sets: Sequence[SetReport], data_dir: str | None = None) -> list[str]:
    """Issue 17's order independence: the same items in file order and shuffled, streamed and
    settled (``samestory settle``: both levels re-decided in publication order). ``data_dir``:
    the folder the command that re-runs them must name (sets of one's own; the public ones are
    its default)."""
    sets = [s for s in sets if len(s.story_orders) > 1]
    if not sets:
        return []
    seeds = sorted({k for s in sets for k in s.story_orders}, key=int)
    names = ["file order" if k == "0" else f"shuffle {k}" for k in seeds]
    lines = ["### Arrival order", "",
             "The same items ingested in file order and in shuffled orders (`random.Random(seed)`, seeds "
             f"{', '.join(k for k in seeds if k != '0')}; `{_stories_command(sets, data_dir)}` runs the whole "
             "files), story ARI as streamed and once settled; 'same': the settled copy groups and stories are "
             "exactly file order's.", ""]
    rows = []
    for s in sets:
        o = [s.story_orders[k] for k in seeds if k in s.story_orders]
        for what in ("streamed", "settled"):
            aris = [s.story_orders[k][f"{what}_ari"] if k in s.story_orders else None for k in seeds]
            present = [a for a in aris if a is not None]
            same = ""
            if what == "settled":
                same = "copy groups and stories" if all(r["settled_copy_same"] and r["settled_story_same"] for r in o) \
                    else "stories" if all(r["settled_story_same"] for r in o) else "no"
            rows.append([s.name, what, *[_f(a) for a in aris], _f(max(present) - min(present)), same])
    lines += _table(["set", "stories", *names, "spread", "same in every order"], rows, "ll" + "r" * (len(names) + 1) + "l")
    return [*lines, ""]


def _stories_command(sets: Sequence[SetReport], data_dir: str | None) -> str:
    """The command that runs the arrival-order check on the whole files of ``sets``.

    >>> _stories_command([SetReport("mine", False, public=False)], "/data/own labels")
    "python -m eval.stories engine --settle --data '/data/own labels' --sets mine"
    """
    cmd = "python -m eval.stories engine --settle"
    if data_dir is None:
        return cmd
    return f"{cmd} --data {shlex.quote(data_dir)} --sets {shlex.quote(','.join(s.name for s in sets))}"


def _error_rows(errs: Sequence[pair_eval.PairError]) -> list[list[str]]:
    return [[f"`{e.id}`", e.kind, e.stage, ", ".join(e.blocked_by) or "–",
             _f(e.scores.get("ngram")), _f(e.scores.get("minhash")), _f(e.scores.get("embedding"))] for e in errs]


@dataclass(frozen=True)
class Figures:
    """Where the report's figures go: ``folder`` on disk, linked from the Markdown as ``link``/name."""

    folder: Path
    link: str

    def path(self, name: str) -> Path:
        return self.folder / name

    def href(self, name: str) -> str:
        return f"{self.link}/{name}"


def _news(s: SetReport) -> str:
    """A set's name in the tables, with ★ before news sets."""
    return ("★ " if s.is_news else "") + s.name


def header_section(report: Report, command: str) -> list[str]:
    """The title and the command that generated the report."""
    return ["# samestory evaluation results", "",
            f"Generated by `{command}` ({report.settings['seconds']:.0f} s on this machine). Do not edit by hand; "
            "re-run the command.", ""]


def _public_names(report: Report) -> set[str]:
    """The report's public eval-data sets (their README's wording applies)."""
    return {s.name for s in report.sets if s.public}


def _public(report: Report) -> int:
    """How many of the report's sets are public eval-data sets."""
    return len(_public_names(report))


def _own(report: Report) -> list[SetReport]:
    """The operator's own sets of the report (described from their files)."""
    return [s for s in report.sets if not s.public]


def _data_line(report: Report) -> str:
    """The settings' Data line: the public sets by their README, one's own sets by the Your sets
    section (a folder of one's own has no README that describes them, and no public set)."""
    st, own, public = report.settings, len(_own(report)), _public(report)
    name = Path(st["data_dir"]).name
    if not own:
        return f"- Data: the dev splits of `{name}` ({_count(public, 'public set')}; see its README). "
    yours = f"{_count(own, 'set')} of your own (described under \"Your sets\" from their files)"
    if not public:
        return f"- Data: `{st['data_dir']}`, {yours}. "
    return f"- Data: `{name}`: the dev splits of {_count(public, 'public set')} (see its README) and {yours}. "


def _verifier_note(report: Report) -> str:
    """Where the pair verifier's training rows are: in-sample figures flatter it, on the public
    sets only (it never saw an operator's own)."""
    where = "research/notes/verifier.md"
    if not _own(report):
        return (" The default engine runs the pair verifier, trained on 4 of 5 folds of these dev rows: its "
                f"figures flatter it (out-of-fold figures: {where}).")
    if not _public(report):
        return (" The default engine runs the pair verifier, trained on the public eval-data dev sets and "
                f"synthetic pairs ({where}), not on sets of your own.")
    return (" The default engine runs the pair verifier, trained on 4 of 5 folds of the public sets' dev rows: "
            f"their figures flatter it (out-of-fold figures: {where}); it was not trained on sets of your own.")


def settings_section(report: Report) -> list[str]:
    """The data, samples and engine settings of the run, how the tables rank, and the baselines."""
    st = report.settings
    # a set with no more pairs than --sample runs whole (its "pairs" cell reads 8/8)
    whole = st["sample"] and any(0 < s.pairs_total <= st["sample"] for s in report.sets)
    sample_note = (f"a seeded sample of {st['sample']} pairs per set, stratified by kind (seed {st['seed']}"
                   + ("; every pair of a set that has no more" if whole else "") + ")"
                   if st["sample"] else "every pair")
    if st["limit"]:
        sample_note += f", at most {st['limit']} per set"
    csample = (f"seeded whole gold clusters up to about {st['cluster_sample']} items per set"
               if st["cluster_sample"] else "every item")
    lines = ["## Settings", "",
             _data_line(report) + f"Pairs: {sample_note}. Clusters: {csample}, ingested in file order.",
             f"- samestory: `Deduper.open(':memory:', model={st['model']!r})`, default `EngineConfig` "
             f"(ngram {st['ngram_threshold']}, minhash {st['minhash_threshold']}, embedding "
             f"{st['embedding_threshold']}); pair verdicts from `compare_pairs` (the `compare` decision), "
             "clusters from `ingest`. \"samestory (no guards)\" is the same engine with `guards=None`."
             + _verifier_note(report)
             + (" \"samestory (no verifier)\" is the same engine with `verifier = false` (pair sets only)."
                if st.get("verifier") else ""),
             "- AP and R@P (recall at precision 0.95 / 0.99) rank the embedding cosine; a pair a guard vetoed "
             "ranks last (-inf), since it can never merge. The engine consults guards only when a stage "
             "proposes a merge, so pairs below every threshold keep their cosine. Baselines rank by their own "
             "score (-inf where their gate rules the pair out).",
             f"- \"Beats or matches\" = samestory F1 >= baseline F1 - {MATCH_TOLERANCE}.", ""]
    if report.baseline_descriptions:
        lines += ["Baselines (the methods of the four design write-ups this project started from, \"seeds\" "
                  "000-003, rebuilt in `eval/baselines/` so they run on the same pairs; and embedding every "
                  "text):", ""]
        lines += [f"- **{n}**: {d}." for n, d in report.baseline_descriptions.items()]
        lines += ["", "For pairs, streaming methods see `a` then `b` in a fresh state; batch methods (seed 000's "
                  "in-batch IDF, seed 003's K-means) run once over a batch made of every distinct text of the "
                  "set's evaluated pairs, and a pair is merged when the batch output puts its two texts together. "
                  "That batch mixes many unrelated sentences, which is how the seeds ran (a day's crawl), but "
                  "the batch size and mix differ from the seeds' own.", ""]
    return lines


def _tallied(counts: dict[str, int] | None) -> str:
    """``{"ko-en": 6, "ko-ko": 2}`` as ``ko-en 6, ko-ko 2`` (a table cell)."""
    return _cell(", ".join(f"{k} {v}" for k, v in counts.items())) if counts else "–"


def own_sets_section(report: Report) -> list[str]:
    """The operator's own sets, described by what their files hold (every row, before any sample):
    the report knows nothing else about them. Empty when every set is a public one."""
    own = _own(report)
    if not own:
        return []
    rows = []
    for s in own:
        pr = s.profile
        rows.append([s.name, str(pr.get("pairs", "–")),
                     f"{pr['positives']}/{pr['negatives']}" if "pairs" in pr else "–",
                     _tallied(pr.get("kinds")), _tallied(pr.get("langs")), str(pr.get("cluster_items", "–")),
                     str(pr.get("gold_clusters", "–")), _tallied(pr.get("cluster_langs"))])
    return ["## Your sets", "",
            "Sets that are not public eval-data sets, as their files hold them (every row, before any sample): "
            "pairs from `<set>/dev.jsonl` (+/-: gold-same / gold-different; languages: `a.lang-b.lang`), "
            "items from `<set>/dev.clusters.jsonl`.", "",
            *_table(["set", "pairs", "+/-", "kinds", "languages", "cluster items", "gold clusters",
                     "item languages"], rows, "lrrllrrl"), ""]


def summary_section(report: Report, figures: Figures) -> list[str]:
    """Pooled pair F1 of every method on every pair set (and its bar chart, written to ``figures``)."""
    from eval import plots

    methods = report.methods
    lines = ["## Summary: pair F1 per set", "",
             "Pooled over the set's kinds (read the per-kind tables before acting on these). "
             "**Bold**: the best F1 of the row." + (" News sets are marked ★." if _public(report) else ""), ""]
    rows = []
    f1_map: dict[str, dict[str, float | None]] = {}
    for s in report.sets:
        if not s.runs:
            continue
        f1s = {m: s.runs[m].result.confusion.f1 for m in methods if m in s.runs}
        f1_map[s.name] = f1s
        best = max((v for v in f1s.values() if v is not None), default=None)
        cells = [("**" + _f(f1s.get(m)) + "**") if best is not None and f1s.get(m) == best else _f(f1s.get(m))
                 for m in methods]
        rows.append([_news(s), f"{len(s.runs[SAMESTORY].preds)}/{s.pairs_total}", *cells])
    lines += _table(["set", "pairs", *methods], rows)
    lines += [""]
    if f1_map:
        plots.plot_f1_bars(f1_map, figures.path("f1_by_set.png"), "pair F1 per set and method")
        lines += [f"![pair F1 per set]({figures.href('f1_by_set.png')})", ""]
    return lines


def _confusion_cells(c: Confusion) -> list[str]:
    """tp, fp, tn, fn, P, R, F1, FMR."""
    return [str(c.tp), str(c.fp), str(c.tn), str(c.fn), _f(c.precision), _f(c.recall), _f(c.f1),
            _f(c.false_merge_rate)]


def detail_section(report: Report) -> list[str]:
    """samestory with and without guards on every pair set: counts, P/R/F1, FMR, AP, R@P."""
    rows = []
    for s in report.sets:
        for m in (SAMESTORY, SAMESTORY_NO_GUARDS):
            if m not in s.runs:
                continue
            r = s.runs[m].result.overall
            rows.append([s.name, m, *_confusion_cells(r.confusion), _f(r.average_precision), _f(r.recall_at_p95),
                         _f(r.recall_at_p99)])
    return ["### samestory in detail", "",
            *_table(["set", "method", "tp", "fp", "tn", "fn", "P", "R", "F1", "FMR", "AP", "R@P.95", "R@P.99"], rows,
                    "ll" + "r" * 11),
            "", "FMR = false-merge rate, fp / (fp + tn).", ""]


def losses_section(report: Report) -> list[str]:
    """Every set and eval where a baseline's F1 is above samestory's, ties marked as such."""
    lost = losses(report)
    news = {s.name for s in report.sets if s.is_news}
    lines = ["## Where samestory loses to a baseline", ""]
    if not report.baseline_descriptions:  # "Nowhere" would claim a comparison that was not run
        return [*lines, "Not measured: this run has no baselines (`samestory eval report --baselines`).", ""]
    if not lost:
        return [*lines, "Nowhere: on every set samestory's F1 (pairs, and pairwise F1 on cluster sets) is at least "
                "every baseline's.", ""]
    real = [x for x in lost if x.gap > MATCH_TOLERANCE]
    on_news = (f"; {len({x.set for x in real if x.set in news})} of those are on news sets (★)"
               if _public(report) else "")
    lines += [f"Every case where samestory's F1 is below a baseline's, however small. {len(real)} of "
              f"{len(lost)} exceed the {MATCH_TOLERANCE} tie margin{on_news}.", ""]
    lines += _table(["set", "eval", "baseline", "samestory F1", "baseline F1", "gap", "verdict"],
                    [[("★ " if x.set in news else "") + x.set, x.what, x.baseline, _f(x.ours), _f(x.theirs),
                      _f(x.gap), "loss" if x.gap > MATCH_TOLERANCE else "tie (within margin)"] for x in lost],
                    "lllrrrl")
    lines += [""]
    if any(x.what == "pairs" for x in lost):
        lines += ["The per-kind tables below show which kinds a pair gap comes from.", ""]
    return lines


def guards_section(report: Report) -> list[str]:
    """samestory with guards against the same engine without them, per pair set."""
    rows = []
    for s in report.sets:
        if SAMESTORY not in s.runs or SAMESTORY_NO_GUARDS not in s.runs:
            continue
        a, b = s.runs[SAMESTORY].result.confusion, s.runs[SAMESTORY_NO_GUARDS].result.confusion
        rows.append([s.name, str(b.fp - a.fp), str(b.tp - a.tp), _f(b.false_merge_rate), _f(a.false_merge_rate),
                     _f(b.recall), _f(a.recall), _f(b.f1), _f(a.f1)])
    return ["## What the guards buy and cost", "",
            "samestory with guards minus the same engine without: merges the guards prevented on gold-different "
            "pairs (false merges saved) and on gold-same pairs (true merges lost).", "",
            *_table(["set", "false merges saved", "true merges lost", "FMR off", "FMR on", "R off", "R on",
                     "F1 off", "F1 on"], rows),
            ""]


def _cluster_row(s: SetReport, method: str, sc: ClusterScores, bcubed: bool = True) -> list[str]:
    """One method's clustering of a set's items: counts, pairwise P/R/F1, B³ P/R/F1 (``bcubed``), ARI."""
    b3 = [_f(sc.bcubed_precision), _f(sc.bcubed_recall), _f(sc.bcubed_f1)] if bcubed else []
    return [s.name, method, f"{sc.items}/{s.cluster_items_total}", str(sc.gold_clusters), str(sc.predicted_clusters),
            _f(sc.pairwise_precision), _f(sc.pairwise_recall), _f(sc.pairwise_f1), *b3, _f(sc.ari)]


def clusters_section(report: Report) -> list[str]:
    """Every method's copy-level clusters of each cluster file against the gold ones."""
    cl = [s for s in report.sets if s.clusters]
    if not cl:
        return []
    rows = [_cluster_row(s, m, c.scores) for s in cl for m, c in s.clusters.items()]
    return ["## Clusters", "",
            "Items ingested in file order into a fresh store; predicted clusters against the gold ones.", "",
            *_table(["set", "method", "items", "gold", "predicted", "pair P", "pair R", "pair F1", "B³ P",
                     "B³ R", "B³ F1", "ARI"], rows, "ll" + "r" * 10),
            ""]


def _kind_tables(s: SetReport, methods: Sequence[str]) -> list[str]:
    """One pair set's kinds: every method's telling number per kind, then samestory's counts per kind."""
    kinds = sorted({p.kind for p in s.pairs})
    comp = Counter((p.kind, p.label) for p in s.pairs)
    ran = [m for m in methods if m in s.runs]
    rows = [[k, f"{comp[(k, 1)]}/{comp[(k, 0)]}", *[kind_cell(s.runs[m].result.by_kind[k]) for m in ran]]
            for k in kinds]
    by_kind = s.runs[SAMESTORY].result.by_kind
    ours = [[k, *_confusion_cells(by_kind[k].confusion), _f(by_kind[k].average_precision)] for k in kinds]
    return ["Cells: F1 where a kind has both labels, R (recall) where it has only gold-same pairs, "
            "FMR (false-merge rate) where it has only gold-different ones.", "",
            *_table(["kind", "+/-", *ran], rows), "",
            "samestory per kind:", "",
            *_table(["kind", "tp", "fp", "tn", "fn", "P", "R", "F1", "FMR", "AP"], ours), ""]


def _set_figures(s: SetReport, figures: Figures, embedding_threshold: float) -> list[str]:
    """Write one pair set's PR curves and cosine histogram; the Markdown line showing both."""
    from eval import plots

    labels = [p.label for p in s.pairs]
    curves: dict[str, PRCurve] = {m: pr_curve(labels, [q.rank_score for q in r.preds]) for m, r in s.runs.items()}
    pr, cosine = f"{_slug(s.name)}_pr.png", f"{_slug(s.name)}_cosine.png"
    plots.plot_pr_curves(curves, figures.path(pr), f"{s.name}: precision-recall of each method's score")
    cos = [q.scores.get("embedding", math.nan) for q in s.runs[SAMESTORY_NO_GUARDS].preds]
    plots.plot_score_histogram(labels, [c if math.isfinite(c) else -math.inf for c in cos],
                               embedding_threshold, figures.path(cosine), f"{s.name}: embedding cosine by gold label")
    return [f"![{s.name} PR]({figures.href(pr)}) ![{s.name} cosine]({figures.href(cosine)})", ""]


def _worst_errors(s: SetReport, worst: int) -> list[str]:
    """samestory's ``worst`` most confident wrong merges and wrong splits on one pair set, by pair id."""
    merged, split = pair_eval.errors(s.pairs, s.runs[SAMESTORY].preds, k=worst)
    hdr = ["pair id", "kind", "stage", "blocked by", "ngram", "minhash", "cosine"]
    lines: list[str] = []
    if merged:
        lines += [f"Worst wrong merges (highest cosine first, {len(merged)} shown):", "",
                  *_table(hdr, _error_rows(merged), "lllllrr"), ""]
    if split:
        lines += [f"Worst wrong splits (guard vetoes first, then highest cosine; {len(split)} shown):", "",
                  *_table(hdr, _error_rows(split), "lllllrr"), ""]
    return lines


def set_section(report: Report, s: SetReport, figures: Figures, worst: int = 8) -> list[str]:
    """One pair set in detail: per-kind tables, false merges by stage, guard vetoes, figures, worst errors."""
    lines = [f"### {s.name}" + (" ★" if s.is_news else ""), "", *_kind_tables(s, report.methods)]
    stages = Counter(q.stage for q, p in zip(s.runs[SAMESTORY].preds, s.pairs, strict=True) if q.same and not p.label)
    if stages:
        lines += ["False merges by deciding stage: " + ", ".join(f"{k} {v}" for k, v in stages.most_common()) + ".", ""]
    return [*lines, *_guard_table(s), *_set_figures(s, figures, report.settings["embedding_threshold"]),
            *_worst_errors(s, worst)]


def per_set_section(report: Report, figures: Figures, worst: int = 8) -> list[str]:
    """:func:`set_section` of every pair set."""
    return ["## Per set", "", *[line for s in report.sets if s.runs for line in set_section(report, s, figures, worst)]]


#: A public set's own caveat, said only where that set is in the report (:func:`caveats_section`).
_SET_CAVEATS = {
    "ntrex128-kor-eng": "- NTREX `xl_same_doc_negative` is 0 at sentence level only; at story level those pairs are "
                        "the same story, so a story-level detector is expected to 'fail' some of them.",
    "uci-news-aggregator-subset": "- UCI stories are Google News clusters: a few hard negatives are arguably the "
                                  "same event.",
}
CAVEATS: tuple[str, ...] = ("## Caveats", "",
           "- Dev splits only; the 30 % holdout is not in this folder, so thresholds tuned on these numbers "
           "need the holdout before they are trusted.",
           "- Sampled runs: per-kind counts are small for rare kinds (e.g. NTREX document pairs); "
           "the `+/-` column gives the counts behind every cell.",
           *_SET_CAVEATS.values(),
           "- Pair verdicts are stateless (`compare`); ingest-time behaviour (representatives, windows) is "
           "measured only by the cluster sets.", "")
#: The caveats of a report on sets of one's own only: nothing about a holdout, NTREX or UCI.
OWN_CAVEATS: tuple[str, ...] = (
    "## Caveats", "",
    "- A threshold chosen from these figures needs pairs held out from that choice before it is trusted.",
    "- Small sets and sampled runs: the `+/-` column gives the counts behind every cell; where a kind has few "
    "pairs one pair moves its cell far (one of ten is 0.1 of recall).",
    CAVEATS[-2], "")
#: The sets the sections measured once on the public data (not by the run) were measured on.
XLING_SETS = frozenset({"ntrex128-kor-eng", "koen-news-park", "tatoeba-kor-eng"})
RAG_CHUNK_SET = "rag-chunks-ntrex"


def caveats_section(report: Report) -> list[str]:
    """The public sets' caveats where the report has a public set (a set's own line only where
    that set is in it, plus a line for one's own sets beside them), else :data:`OWN_CAVEATS`."""
    if not _public(report):
        return list(OWN_CAVEATS)
    names = _public_names(report)
    absent = {said for name, said in _SET_CAVEATS.items() if name not in names}
    lines = [line for line in CAVEATS[:-1] if line not in absent]
    if "ntrex128-kor-eng" not in names:
        lines = [line.replace(" (e.g. NTREX document pairs)", "") for line in lines]
    if _own(report):
        lines.append("- Sets of your own: a threshold chosen from their figures needs pairs held out from "
                     "that choice before it is trusted.")
    return [*lines, ""]


def render_markdown(report: Report, out_dir: str | Path, command: str, figures_dir: str = "figures",
                    worst: int = 8) -> str:
    """Write the figures under ``out_dir/figures_dir`` and return the Markdown text: the sections
    in order, each rendered by its own function."""
    figures = Figures(Path(out_dir) / figures_dir, figures_dir)
    sections: list[Sequence[str]] = [
        header_section(report, command),
        settings_section(report),
        own_sets_section(report),
        summary_section(report, figures),
        detail_section(report),
        losses_section(report),
        guards_section(report),
        _slot_veto_section(report, out_dir),
        clusters_section(report),
        stories_section(report),
        per_set_section(report, figures, worst),
        # measured once on the public sets, not by this run: only beside the figures of a set
        # they were measured on
        _xling_section(out_dir) if _public_names(report) & XLING_SETS else [],
        rag_chunks_section() if RAG_CHUNK_SET in _public_names(report) else [],
        caveats_section(report),
    ]
    return "\n".join(line for section in sections for line in section)


def write_report(report: Report, out_dir: str | Path, command: str, name: str = "RESULTS.md") -> Path:
    """Write ``out_dir/name`` (Markdown), its figures and ``out_dir/results.json``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = render_markdown(report, out, command)
    path = out / name
    path.write_text(text, encoding="utf-8")
    (out / "results.json").write_text(json.dumps(report.to_dict(), indent=1, ensure_ascii=False, default=str) + "\n",
                                      encoding="utf-8")
    return path
