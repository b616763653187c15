"""The Markdown report, section by section, on a small synthetic Report worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from eval import clusters as cluster_eval
from eval.data import ClusterItem, Pair, Side
from eval.pairs import Prediction, evaluate
from eval.report import (
    SAMESTORY,
    SAMESTORY_NO_GUARDS,
    SAMESTORY_NO_VERIFIER,
    Figures,
    MethodRun,
    Report,
    SetReport,
    clusters_section,
    detail_section,
    guards_section,
    losses_section,
    render_markdown,
    set_section,
)

BASELINE = "toy baseline"
SETTINGS = {"data_dir": "x", "sample": None, "limit": None, "cluster_sample": None, "seed": 0, "model": "use",
            "embedding_threshold": 0.625, "ngram_threshold": 0.3, "minhash_threshold": 0.6,
            "seed003_tokenizer": None, "seconds": 0.0, "python": "3"}
LABELS = (1, 1, 0, 0, 0, 1)


def _pairs() -> list[Pair]:
    kinds = ("translation",) * 3 + ("paraphrase",) * 3
    return [Pair(f"p{i}", Side(f"secret text a{i}", "en"), Side(f"secret text b{i}", "en"), label, kind)
            for i, (label, kind) in enumerate(zip(LABELS, kinds, strict=True))]


def _run(pairs: list[Pair], method: str, verdicts: list[tuple[bool, str, tuple[str, ...], float]]) -> MethodRun:
    preds = [Prediction(p.id, same, cos, stage, blocked, -math.inf if blocked else cos, {"embedding": cos})
             for p, (same, stage, blocked, cos) in zip(pairs, verdicts, strict=True)]
    return MethodRun(evaluate(method, pairs, preds), preds, 0.0)


def _pair_set() -> SetReport:
    pairs = _pairs()
    # With guards: p0, p5 merged (tp 2), p1 vetoed by "number" (fn 1), p2 merged by the n-gram
    # stage (fp 1), p3 vetoed by "who" and p4 below every threshold (tn 2): F1 4/6.
    guarded = [(True, "embedding", (), 0.9), (False, "embedding", ("number",), 0.8), (True, "ngram", (), 0.7),
               (False, "embedding", ("who",), 0.75), (False, "embedding", (), 0.3), (True, "exact", (), 1.0)]
    # Without guards the two vetoed pairs merge: tp 3, fp 2, tn 1, fn 0: F1 6/8.
    unguarded = [(True, "embedding", (), 0.9), (True, "embedding", (), 0.8), (True, "ngram", (), 0.7),
                 (True, "embedding", (), 0.75), (False, "embedding", (), 0.3), (True, "exact", (), 1.0)]
    perfect = [(bool(label), "baseline", (), float(label)) for label in LABELS]
    return SetReport("toy-news", True, pairs_total=10, pairs=pairs,
                     runs={SAMESTORY: _run(pairs, SAMESTORY, guarded),
                           SAMESTORY_NO_GUARDS: _run(pairs, SAMESTORY_NO_GUARDS, unguarded),
                           BASELINE: _run(pairs, BASELINE, perfect)})


def _cluster_set() -> SetReport:
    items = [ClusterItem(id=f"toy/{i}", cluster=g, text="secret item", lang="en") for i, g in enumerate("aabb")]
    rep = SetReport("toy-clusters", False, cluster_items_total=4, cluster_items=4, cluster_gold=2)
    rep.clusters[SAMESTORY] = cluster_eval.evaluate(SAMESTORY, items, [1, 1, 2, 2])
    rep.clusters[BASELINE] = cluster_eval.evaluate(BASELINE, items, [1, 1, 1, 1])
    return rep


def _report() -> Report:
    return Report(dict(SETTINGS), [_pair_set(), _cluster_set()], [SAMESTORY, SAMESTORY_NO_GUARDS, BASELINE],
                  {BASELINE: "a perfect toy"})


def test_detail_and_guard_sections_count_by_hand() -> None:
    rep = _report()
    detail = detail_section(rep)
    assert "| toy-news | samestory | 2 | 1 | 2 | 1 | 0.667 | 0.667 | 0.667 | 0.333 |" in "\n".join(detail)
    assert "| toy-news | samestory (no guards) | 3 | 2 | 1 | 0 | 0.600 | 1.000 | 0.750 | 0.667 |" in "\n".join(detail)
    # guards saved one false merge (p3) and lost one true merge (p1)
    assert "| toy-news | 1 | 1 | 0.667 | 0.333 | 1.000 | 0.667 | 0.750 | 0.667 |" in guards_section(rep)


def test_losses_section_lists_the_baseline_that_wins_and_says_nowhere_otherwise() -> None:
    rep = _report()
    text = "\n".join(losses_section(rep))
    assert "| ★ toy-news | pairs | toy baseline | 0.667 | 1.000 | 0.333 | loss |" in text
    # the baseline's single cluster (pairwise F1 0.5) is below samestory's 1.0: no cluster loss
    assert "toy-clusters" not in text
    assert "1 of 1 exceed the 0.005 tie margin; 1 of those are on news sets" in text
    rep.sets[0].runs.pop(BASELINE)
    assert losses_section(rep)[2].startswith("Nowhere:")


def test_clusters_section_rows_carry_pairwise_bcubed_and_ari() -> None:
    lines = clusters_section(_report())
    assert lines[0] == "## Clusters"
    assert "| toy-clusters | samestory | 4/4 | 2 | 2 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |" in lines
    # one predicted cluster: pair P 2/6, R 1, F1 0.5; B³ P 0.5, R 1, F1 2/3; ARI 0
    assert "| toy-clusters | toy baseline | 4/4 | 2 | 1 | 0.333 | 1.000 | 0.500 | 0.500 | 1.000 | 0.667 | 0.000 |" \
        in lines


def test_set_section_names_stages_guards_figures_and_worst_errors(tmp_path: Path) -> None:
    rep = _report()
    lines = set_section(rep, rep.sets[0], Figures(tmp_path / "figs", "figs"), worst=2)
    text = "\n".join(lines)
    assert lines[0] == "### toy-news ★"
    assert "| translation | 2/1 | F1 0.500 | F1 0.800 | F1 1.000 |" in lines
    assert "| paraphrase | 1/2 | F1 1.000 | F1 0.667 | F1 1.000 |" in lines
    assert "False merges by deciding stage: ngram 1." in text
    assert "| number | 0 | 1 | 0.000 |" in lines and "| who | 1 | 0 | 1.000 |" in lines
    assert "![toy-news PR](figs/toy-news_pr.png) ![toy-news cosine](figs/toy-news_cosine.png)" in lines
    assert (tmp_path / "figs" / "toy-news_pr.png").stat().st_size > 0
    assert (tmp_path / "figs" / "toy-news_cosine.png").stat().st_size > 0
    merges = lines.index("Worst wrong merges (highest cosine first, 1 shown):")
    assert lines[merges + 4].startswith("| `p2` | translation | ngram | – |")
    splits = lines.index("Worst wrong splits (guard vetoes first, then highest cosine; 1 shown):")
    assert lines[splits + 4].startswith("| `p1` | translation | embedding | number |")


def test_render_markdown_joins_the_sections_in_order_and_cites_ids_only(tmp_path: Path) -> None:
    text = render_markdown(_report(), tmp_path, "samestory eval report --out x")
    heads = [line for line in text.split("\n") if line.startswith("## ")]
    # then the cross-lingual register and the RAG chunk table, from files of the source checkout
    assert heads[:7] == ["## Settings", "## Summary: pair F1 per set", "## Where samestory loses to a baseline",
                         "## What the guards buy and cost", "## Slot vetoes (who, where, which, number, what happened)",
                         "## Clusters", "## Per set"]
    assert heads[-1] == "## Caveats"
    assert text.startswith("# samestory evaluation results\n\nGenerated by `samestory eval report --out x`")
    assert "- **toy baseline**: a perfect toy." in text
    assert "| ★ toy-news | 6/10 | 0.667 | 0.750 | **1.000** |" in text
    assert (tmp_path / "figures" / "f1_by_set.png").is_file()
    assert "secret" not in text


def test_the_verifier_column_runs_the_engine_with_it_off_and_is_not_a_baseline(monkeypatch: pytest.MonkeyPatch) -> None:
    from eval import pairs as pair_eval
    from eval import report as report_mod

    asked: list[tuple[bool, dict[str, float] | None]] = []

    def fake(pairs: list[Pair], guards: bool = True, model: str = "use", overrides: dict[str, float] | None = None,
             progress: bool = False) -> list[Prediction]:
        asked.append((guards, overrides))
        on = bool(overrides and overrides.get("verifier") is False)  # the no-verifier column: every pair right
        return [Prediction(p.id, bool(p.label) if on else True, 0.9, "embedding", (), 0.9, {}) for p in pairs]

    monkeypatch.setattr(pair_eval, "predict_samestory", fake)
    pairs = _pairs()
    assert set(report_mod.run_set_pairs(pairs, [], verifier=False)) == {SAMESTORY, SAMESTORY_NO_GUARDS}
    runs = report_mod.run_set_pairs(pairs, [], verifier=True)
    assert asked[-1] == (True, {"verifier": False}) and list(runs)[-1] == SAMESTORY_NO_VERIFIER
    rep = Report(dict(SETTINGS, verifier=True), [SetReport("toy-news", True, pairs_total=6, pairs=pairs, runs=runs)],
                 [SAMESTORY, SAMESTORY_NO_GUARDS, SAMESTORY_NO_VERIFIER], {})
    assert report_mod.losses(rep) == []  # our own column beating the default is not a loss
    assert "\"samestory (no verifier)\" is the same engine with `verifier = false`" in "\n".join(
        report_mod.settings_section(rep))


def test_a_run_without_baselines_says_so_instead_of_nowhere_and_counts_its_sets() -> None:
    """``eval report`` without ``--baselines`` compared nothing: "Nowhere: ... at least every
    baseline's" claimed a win, and the settings said "nine public sets" for a ``--sets`` run of two."""
    rep = Report(dict(SETTINGS), [_pair_set(), _cluster_set()], [SAMESTORY, SAMESTORY_NO_GUARDS], {})
    text = "\n".join(losses_section(rep))
    assert "Nowhere" not in text and "Not measured: this run has no baselines" in text
    from eval import report as report_mod

    assert "(2 public sets; see its README)" in "\n".join(report_mod.settings_section(rep))
