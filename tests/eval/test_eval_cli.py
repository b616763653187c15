"""The eval CLI end to end on CI-sized subsets of ../shared/eval-data (skipped where it is absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main
from eval.data import eval_data_dir, load_pairs

DATA = eval_data_dir()
pytestmark = [pytest.mark.heavy, pytest.mark.evaldata,
              pytest.mark.skipif(not (DATA / "tatoeba-kor-eng" / "dev.jsonl").is_file(),
                                 reason=f"eval data not found at {DATA}")]


def _last_json(capsys: pytest.CaptureFixture[str]) -> dict:
    out = capsys.readouterr().out.strip().splitlines()
    return json.loads(out[-1])


@pytest.mark.parametrize("name", ["tatoeba-kor-eng", "pawsx-ko"])
def test_eval_pairs_json_and_predictions(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preds = tmp_path / "preds.jsonl"
    rc = main(["eval", "pairs", str(DATA / name / "dev.jsonl"), "--sample", "200", "--json", "--no-progress",
               "--predictions", str(preds)])
    assert rc == 0
    obj = _last_json(capsys)
    for key in ("pairs", "tp", "fp", "tn", "fn", "precision", "recall", "f1", "by_kind", "average_precision",
                "recall_at_p95", "recall_at_p99"):
        assert key in obj
    n = obj["pairs"]
    # Stratified by kind with per-kind rounding: 200 give or take a pair per kind.
    assert n == obj["tp"] + obj["fp"] + obj["tn"] + obj["fn"] and abs(n - 200) <= 3
    for kind, m in obj["by_kind"].items():
        assert {"tp", "fp", "tn", "fn", "precision", "recall"} <= set(m), kind
    assert sum(m["pairs"] for m in obj["by_kind"].values()) == n
    lines = [json.loads(x) for x in preds.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == n and {"id", "same", "score", "stage", "blocked_by"} <= set(lines[0])
    assert sum(x["same"] for x in lines) == obj["tp"] + obj["fp"]


def test_eval_clusters_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["eval", "clusters", str(DATA / "ntrex128-kor-eng" / "dev.clusters.jsonl"), "--sample", "40",
               "--json", "--no-progress"])
    assert rc == 0
    obj = _last_json(capsys)
    for key in ("pairwise_precision", "pairwise_recall", "pairwise_f1", "ari", "bcubed_f1"):
        assert key in obj
    assert -1.0 <= obj["ari"] <= 1.0 and obj["items"] >= 40


def test_eval_clusters_settled_stories(capsys: pytest.CaptureFixture[str]) -> None:
    """``--settle`` scores the level asked for once both are settled (UCI items carry their
    times): the stories, and the copy groups settling re-decided in publication order."""
    path = str(DATA / "uci-news-aggregator-subset" / "dev.clusters.jsonl")
    rc = main(["eval", "clusters", path, "--sample", "60", "--level", "story", "--settle", "--json", "--no-progress"])
    assert rc == 0
    obj = _last_json(capsys)
    assert obj["settled"] is True and obj["level"] == "story" and obj["method"].endswith("stories, settled")
    rc = main(["eval", "clusters", path, "--sample", "60", "--level", "copy", "--settle", "--json", "--no-progress"])
    assert rc == 0
    obj = _last_json(capsys)
    assert obj["settled"] is True and obj["level"] == "copy" and obj["method"].endswith("copy groups, settled")
    assert 1 <= obj["predicted_clusters"] <= 60


def test_eval_sweep_table_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "sweep.png"
    rc = main(["eval", "sweep", str(DATA / "tatoeba-kor-eng" / "dev.jsonl"), "--stage", "embedding",
               "--thresholds", "0.5,0.8", "--sample", "60", "--plot", str(plot), "--json", "--no-progress"])
    assert rc == 0
    obj = _last_json(capsys)
    lo, hi = obj["rows"]
    assert plot.stat().st_size > 1000
    # A higher cosine threshold never merges more pairs.
    assert hi["merged"] <= lo["merged"] and hi["items_remaining"] >= lo["items_remaining"]


@pytest.mark.slow
def test_eval_report_cites_ids_never_texts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["eval", "report", "--data", str(DATA), "--out", str(tmp_path), "--sets",
               "tatoeba-kor-eng,uci-news-aggregator-subset", "--sample", "60", "--cluster-sample", "30",
               "--no-progress"])
    assert rc == 0
    text = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    assert "## Summary" in text and "## Clusters" in text and "(no guards)" in text
    assert "## Stories (the event level)" in text and "| samestory stories |" in text
    assert "| samestory stories, settled |" in text
    assert "## Cross-lingual scorers tried (issue 8)" in text
    assert (tmp_path / "figures" / "f1_by_set.png").is_file()
    # No eval text may leak into the report (licences; the data stays in its folder).
    for name in ("tatoeba-kor-eng", "uci-news-aggregator-subset"):
        for p in load_pairs(DATA / name / "dev.jsonl")[:300]:
            for t in (p.a.text, p.b.text):
                if len(t) >= 12:
                    assert t not in text


def test_malformed_file_is_a_precise_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "a": {"text": "t", "lang": "en"}, "b": {"text": "u", "lang": "en"}, '
                   '"label": 1, "kind": "k"}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"bad\.jsonl:2: expected a JSON object"):
        main(["eval", "pairs", str(bad), "--no-progress"])
    with pytest.raises(SystemExit, match=r"missing\.jsonl: no such file"):
        main(["eval", "calibrate", str(tmp_path / "missing.jsonl"), "--no-progress"])
    # a missing *.clusters.jsonl was "a cluster file (use eval sweep for those)"
    for cmd in (["calibrate"], ["sweep", "--stage", "ngram"]):
        with pytest.raises(SystemExit, match=r"missing\.clusters\.jsonl: no such file$"):
            main(["eval", *cmd, str(tmp_path / "missing.clusters.jsonl"), "--no-progress"])


def test_eval_calibrate_picks_the_lowest_threshold_meeting_every_floor_unless_a_higher_has_its_recall(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(DATA / "tatoeba-kor-eng" / "dev.jsonl"), str(DATA / "pawsx-ko" / "dev.jsonl")]
    rc = main(["eval", "calibrate", *files, "--floors", "0.90,0.60", "--thresholds", "0.6,0.7,0.8,0.9",
               "--sample", "120", "--no-progress", "--json"])
    obj = _last_json(capsys)
    assert obj["field"] == "embedding_threshold"
    assert obj["reliable"] is True and obj["warnings"] == []  # >= 30 positives and negatives per file
    rows = obj["rows"]
    ok = [all(r[i]["precision"] is None or r[i]["precision"] >= fl for r, fl in zip(rows, (0.90, 0.60), strict=True))
          for i in range(4)]
    if any(ok):
        # the lowest meeting every floor, or the highest above it with the same recall on every file
        lo = hi = ok.index(True)
        while hi + 1 < 4 and ok[hi + 1] and all(r[hi + 1]["recall"] == r[lo]["recall"] for r in rows):
            hi += 1
        assert rc == 0 and obj["lowest_meeting"] == [0.6, 0.7, 0.8, 0.9][lo]
        assert obj["threshold"] == [0.6, 0.7, 0.8, 0.9][hi]
        assert all(f["precision"] is None or f["precision"] >= f["floor"] for f in obj["files"])
    else:
        assert rc == 1 and obj["threshold"] is None


def test_eval_calibrate_rejects_bad_arguments() -> None:
    tatoeba = str(DATA / "tatoeba-kor-eng" / "dev.jsonl")
    with pytest.raises(SystemExit, match="--floors has 2 values for 1 files"):
        main(["eval", "calibrate", tatoeba, "--floors", "0.9,0.9"])
    with pytest.raises(SystemExit, match="precision floors must be in"):
        main(["eval", "calibrate", tatoeba, "--floor", "1.5"])
    with pytest.raises(SystemExit, match="cluster file"):
        main(["eval", "calibrate", str(DATA / "parakqc-ko" / "dev.clusters.jsonl")])


@pytest.mark.parametrize("argv", [["pairs", "--limit", "0"], ["pairs", "--sample", "0"], ["clusters", "--limit", "0"],
                                  ["clusters", "--sample", "-1"], ["report", "--out", "o", "--cluster-sample", "0"]])
def test_counts_below_one_are_refused_in_the_parser(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # --limit 0 used to end in a traceback (ValueError: --limit must be >= 1, got 0) from eval.data
    command, *rest = argv
    with pytest.raises(SystemExit) as exc:
        main(["eval", command, *([] if command == "report" else [str(DATA / "koen-news-park" / "dev.jsonl")]), *rest])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err
    flag = next(a for a in rest if a.startswith("--") and a != "--out")
    assert err.strip().splitlines()[-1] == (f"samestory eval {command}: error: argument {flag}: must be an integer "
                                            f">= 1, got '{rest[rest.index(flag) + 1]}'")


def test_bad_model_and_output_paths_are_one_line_before_the_run(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    pairs = str(DATA / "koen-news-park" / "dev.jsonl")
    with pytest.raises(SystemExit) as exc:
        main(["eval", "pairs", pairs, "--model", "bogus"])
    assert exc.value.code == 2 and "argument --model: unknown model spec 'bogus'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["eval", "clusters", str(DATA / "parakqc-ko" / "dev.clusters.jsonl"), "--model", "none"])
    assert str(exc.value.code) == ("samestory eval clusters: --model none runs only with 'eval pairs --route "
                                   "dedupe'; this needs an embedder")
    missing = tmp_path / "no" / "p.jsonl"
    with pytest.raises(SystemExit) as exc:
        main(["eval", "pairs", pairs, "--limit", "2", "--predictions", str(missing), "--no-progress"])
    assert str(exc.value.code) == f"--predictions {missing}: no folder {missing.parent}"
    with pytest.raises(SystemExit, match=r"^--plot .*: a folder, not a file$"):
        main(["eval", "sweep", pairs, "--stage", "ngram", "--limit", "2", "--plot", str(tmp_path), "--no-progress"])
    with pytest.raises(SystemExit, match=r"^--out .*: a file, not a folder$"):
        main(["eval", "report", "--out", pairs, "--limit", "2", "--no-progress"])


def test_no_progress_bars_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    """A long eval run logged to a file must not fill it with redrawn bars (as ingest and settle):
    without --no-progress, and with stderr captured (not a terminal), no bar is drawn."""
    from tests.paths import REPO_ROOT

    rc = main(["eval", "pairs", str(REPO_ROOT / "tests" / "data" / "verifier_pairs.jsonl"), "--limit", "4", "--json"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "it/s" not in err and "%|" not in err, err


def test_pairs_help_says_what_the_file_and_the_columns_are(capsys: pytest.CaptureFixture[str]) -> None:
    # `eval pairs --help` listed "file" with no word on it, and the table's FMR and AP were nowhere explained.
    with pytest.raises(SystemExit):
        main(["eval", "pairs", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "a pair file (eval-data JSONL: id, a, b, label, kind)" in out
    assert "FMR (false-merge rate: merged share of the label-0 pairs, fp / (fp + tn))" in out
    assert "AP (average precision of the embedding cosine, a pair a guard blocked ranked last" in out


def test_eval_calibrate_recommends_when_one_file_of_two_is_flat(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Recall flat on one file only: the other file's recall still chooses, and a threshold is
    recommended (no recommendation only when every file is flat)."""
    flat = tmp_path / "flat.jsonl"
    flat.write_text("\n".join(json.dumps({"id": f"p{i}", "a": {"text": f"Acme unit {i} posts record profit", "lang": "en"},
                                          "b": {"text": f"Acme unit {i} posts record profit", "lang": "en"},
                                          "label": 1, "kind": "en_copy"}) for i in range(30))
                    + "\n" + "\n".join(json.dumps({"id": f"n{i}", "a": {"text": f"Storm {i} floods the valley towns", "lang": "en"},
                                                   "b": {"text": f"Central bank {i} lifts its lending rate", "lang": "en"},
                                                   "label": 0, "kind": "en_other"}) for i in range(30)) + "\n",
                    encoding="utf-8")
    pawsx = str(DATA / "pawsx-ko" / "dev.jsonl")  # its recall moves with the threshold (tatoeba's barely)
    rc = main(["eval", "calibrate", str(flat), pawsx, "--floors", "0.5,0.5", "--thresholds", "0.6,0.7,0.8,0.9",
               "--sample", "120", "--no-progress", "--json"])
    obj = _last_json(capsys)
    assert len(obj["flat_recall"]) == 1 and obj["flat_recall"][0].startswith("flat: recall is flat")
    assert rc == 0 and obj["reliable"] is True and obj["threshold"] is not None
