"""Metrics on small cases worked out by hand (and cross-checked against scikit-learn)."""

from __future__ import annotations

import json
import math

import pytest

from eval.data import Pair, Side, load_clusters, load_pairs, subsample_clusters, subsample_pairs
from eval.metrics import (
    Confusion,
    adjusted_rand_index,
    average_precision,
    bcubed,
    cluster_scores,
    confusion,
    pairwise_scores,
    pr_curve,
    recall_at_precision,
)
from eval.pairs import Prediction, evaluate


def test_confusion_counts_and_ratios() -> None:
    # labels 1 1 0 0 1 / verdicts T F T F T: tp = 2 (0, 4), fn = 1 (1), fp = 1 (2), tn = 1 (3).
    c = confusion([1, 1, 0, 0, 1], [True, False, True, False, True])
    assert (c.tp, c.fp, c.tn, c.fn) == (2, 1, 1, 1)
    assert c.precision == pytest.approx(2 / 3)
    assert c.recall == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(2 / 3)
    assert c.false_merge_rate == pytest.approx(1 / 2)
    assert c.accuracy == pytest.approx(3 / 5)


def test_undefined_ratios_are_none_not_zero() -> None:
    only_negatives = confusion([0, 0, 0], [False, True, False])
    assert only_negatives.recall is None and only_negatives.f1 is None  # no positives: no F1
    assert only_negatives.false_merge_rate == pytest.approx(1 / 3)
    nothing_merged = confusion([1, 0], [False, False])
    assert nothing_merged.precision is None and nothing_merged.recall == 0.0
    # 2tp / (2tp + fp + fn) = 0 / 1: a method that merges nothing has F1 0, not "undefined".
    assert nothing_merged.f1 == 0.0
    assert (Confusion(1, 0, 0, 0) + Confusion(0, 1, 2, 3)) == Confusion(1, 1, 2, 3)


def test_confusion_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="2 labels but 1 predictions"):
        confusion([1, 0], [True])
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        confusion([2], [True])


def test_average_precision_by_hand() -> None:
    # Ranked: 0.9 (+), 0.8 (-), 0.1 (+). Steps: R 0->.5 at P 1; R .5->1 at P 2/3. AP = .5 + .5*2/3.
    assert average_precision([1, 0, 1], [0.9, 0.8, 0.1]) == pytest.approx(0.5 + 1 / 3)
    # A tie enters together: both at 0.5 -> P 1/2 at R 1.
    assert average_precision([1, 0], [0.5, 0.5]) == pytest.approx(0.5)
    assert average_precision([0, 0], [0.1, 0.2]) is None


def test_blocked_pairs_rank_last() -> None:
    # The positive at -inf (guard-blocked) comes after the negative at 0.2.
    labels, scores = [1, 0, 1], [0.9, 0.2, -math.inf]
    assert average_precision(labels, scores) == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    # -inf is not an operating point: R@P>=0.95 is the 0.9 threshold's recall, 0.5.
    assert recall_at_precision(labels, scores, 0.95) == pytest.approx(0.5)


def test_recall_at_precision_by_hand() -> None:
    labels = [1, 1, 0, 1, 0]
    scores = [0.9, 0.8, 0.7, 0.6, 0.5]
    # Thresholds: .9 P1 R1/3; .8 P1 R2/3; .7 P2/3; .6 P3/4 R1; .5 P3/5.
    assert recall_at_precision(labels, scores, 0.95) == pytest.approx(2 / 3)
    assert recall_at_precision(labels, scores, 0.75) == pytest.approx(1.0)
    curve = pr_curve(labels, scores)
    assert curve.precision[3] == pytest.approx(0.75) and curve.recall[3] == pytest.approx(1.0)


def test_ap_matches_sklearn_on_random_scores() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    import random

    rng = random.Random(3)
    labels = [rng.randint(0, 1) for _ in range(200)]
    scores = [round(rng.random(), 2) for _ in range(200)]  # rounding makes ties
    assert average_precision(labels, scores) == pytest.approx(sklearn_metrics.average_precision_score(labels, scores))


def test_pairwise_bcubed_ari_by_hand() -> None:
    gold = ["a", "a", "a", "b"]
    pred = [1, 1, 2, 2]
    # Gold pairs: (0,1) (0,2) (1,2) = 3. Predicted pairs: (0,1) (2,3) = 2. Shared: (0,1) = 1.
    p, r, f = pairwise_scores(gold, pred)
    assert (p, r) == (pytest.approx(0.5), pytest.approx(1 / 3))
    assert f == pytest.approx(0.4)
    # B-cubed per item: precision 1/1... items 0,1: pred {0,1} all gold a -> 1; item 2: pred {2,3}, 1 of 2 -> .5;
    # item 3 likewise .5 -> P = 3/4. Recall: items 0,1: 2/3; item 2: 1/3; item 3: 1/1 -> R = 8/3/4 = 2/3.
    bp, br, bf = bcubed(gold, pred)
    assert (bp, br) == (pytest.approx(0.75), pytest.approx(2 / 3))
    assert bf == pytest.approx(2 * 0.75 * (2 / 3) / (0.75 + 2 / 3))
    # ARI: index 1, expected 3*2/6 = 1, max (3+2)/2 = 2.5 -> (1-1)/(2.5-1) = 0.
    assert adjusted_rand_index(gold, pred) == pytest.approx(0.0)
    # Perfect disagreement on 2x2: index 0, expected 2*2/6, max 2 -> -(2/3)/(4/3) = -0.5.
    assert adjusted_rand_index(["a", "a", "b", "b"], [1, 2, 1, 2]) == pytest.approx(-0.5)
    assert adjusted_rand_index(["a", "b"], [5, 6]) == 1.0


def test_ari_matches_sklearn() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    gold = [0, 0, 1, 1, 1, 2, 2, 3]
    pred = [5, 5, 5, 6, 6, 7, 8, 8]
    assert adjusted_rand_index(gold, pred) == pytest.approx(sklearn_metrics.adjusted_rand_score(gold, pred))


def test_cluster_scores_singletons() -> None:
    s = cluster_scores(["a", "a", "b"], [1, 2, 3])
    assert s.pairwise_precision is None and s.pairwise_recall == 0.0 and s.pairwise_f1 == 0.0
    assert s.bcubed_precision == 1.0 and s.predicted_clusters == 3 and s.gold_clusters == 2


def test_evaluate_per_kind() -> None:
    sa, sb = Side("a", "en"), Side("b", "en")
    pairs = [Pair("1", sa, sb, 1, "pos"), Pair("2", sa, sb, 0, "neg"), Pair("3", sa, sb, 0, "neg")]
    preds = [Prediction("1", True, 0.9, "embedding", (), 0.9),
             Prediction("2", True, 0.8, "embedding", (), 0.8),
             Prediction("3", False, None, "embedding", ("subject",), -math.inf)]
    r = evaluate("t", pairs, preds).to_dict()
    assert (r["tp"], r["fp"], r["tn"], r["fn"], r["pairs"]) == (1, 1, 1, 0, 3)
    assert r["by_kind"]["neg"]["false_merge_rate"] == pytest.approx(0.5)
    assert r["by_kind"]["neg"]["recall"] is None and r["by_kind"]["pos"]["recall"] == 1.0
    assert r["average_precision"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="aligned"):
        evaluate("t", pairs, list(reversed(preds)))


def _write(tmp_path, name: str, lines: list[object]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def test_loader_errors_name_file_and_line(tmp_path) -> None:
    good = {"id": "x/1", "a": {"text": "t", "lang": "en"}, "b": {"text": "u", "lang": "en"}, "label": 1, "kind": "k"}
    path = _write(tmp_path, "p.jsonl", [good, "{not json"])
    with pytest.raises(ValueError, match=r"p\.jsonl:2: not valid JSON"):
        load_pairs(path)
    path = _write(tmp_path, "q.jsonl", [good, {**good, "id": "x/2", "label": 2}])
    with pytest.raises(ValueError, match=r"q\.jsonl:2: field 'label' must be 0 or 1"):
        load_pairs(path)
    path = _write(tmp_path, "r.jsonl", [good, {**good, "id": "x/2", "b": {"text": "", "lang": "en"}}])
    with pytest.raises(ValueError, match=r"r\.jsonl:2: b\.text must be a non-empty string"):
        load_pairs(path)
    # Fifth tour: a side without "lang" was told it "must be a language code", as if its value were wrong.
    path = _write(tmp_path, "l.jsonl", [good, {**good, "id": "x/2", "a": {"text": "t"}}])
    with pytest.raises(ValueError, match=r"l\.jsonl:2: a\.lang is missing: an eval file names each text's language"):
        load_pairs(path)
    # Eighth tour: what an Article refuses was a traceback from inside the run; now the line says it.
    path = _write(tmp_path, "k.jsonl", [good, {**good, "id": "x/2", "b": {"text": "t", "lang": "korean"}}])
    with pytest.raises(ValueError, match=r"k\.jsonl:2: b\.lang must be a language tag such as 'ko'"):
        load_pairs(path)
    path = _write(tmp_path, "n.jsonl", [good, {**good, "id": "x/2", "a": {"text": "???", "lang": "en"}}])
    with pytest.raises(ValueError, match=r"n\.jsonl:2: a\.text has no letter or digit"):
        load_pairs(path)
    path = _write(tmp_path, "k.clusters.jsonl", [{"id": "1", "cluster": "g", "text": "t", "lang": "english"}])
    with pytest.raises(ValueError, match=r"k\.clusters\.jsonl:1: lang must be a language tag"):
        load_clusters(path)
    path = _write(tmp_path, "s.jsonl", [good, good])
    with pytest.raises(ValueError, match="duplicate pair id"):
        load_pairs(path)
    path = _write(tmp_path, "c.clusters.jsonl", [{"id": "1", "cluster": "g", "text": "t", "lang": "en"},
                                                 {"id": "2", "text": "t", "lang": "en"}])
    with pytest.raises(ValueError, match=r"c\.clusters\.jsonl:2: field 'cluster'"):
        load_clusters(path)


def test_sampling_is_seeded_and_stratified() -> None:
    pairs = [Pair(str(i), Side("x", "en"), Side("y", "en"), int(i < 10), "pos" if i < 10 else "neg")
             for i in range(100)]
    a = subsample_pairs(pairs, sample=20, seed=1)
    assert [p.id for p in a] == [p.id for p in subsample_pairs(pairs, sample=20, seed=1)]
    assert sum(p.kind == "pos" for p in a) == 2 and len(a) == 20
    assert len(subsample_pairs(pairs, sample=20, limit=5, seed=1)) == 5


def test_cluster_sampling_keeps_whole_clusters() -> None:
    from eval.data import ClusterItem

    items = [ClusterItem(str(i), f"g{i // 5}", "t", "en") for i in range(50)]
    got = subsample_clusters(items, sample=12, seed=0)
    sizes = {}
    for it in got:
        sizes[it.cluster] = sizes.get(it.cluster, 0) + 1
    assert set(sizes.values()) == {5} and len(got) == 15
