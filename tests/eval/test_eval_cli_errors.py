"""What `samestory eval` says when its input is wrong: one line naming the problem, before any set runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main


def _pair_line(i: int) -> str:
    return json.dumps({"id": f"p{i}", "a": {"text": "Fed raises rates", "lang": "en"},
                       "b": {"text": "Fed lifts rates", "lang": "en"}, "label": i % 2, "kind": "en_test"})


def _data_folder(root: Path) -> Path:
    """Two sets: ``a`` well formed, ``b`` with a malformed third line."""
    for name, lines in (("a", [_pair_line(1), _pair_line(2)]), ("b", [_pair_line(1), _pair_line(2), "[1, 2]"])):
        (root / name).mkdir(parents=True)
        (root / name / "dev.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _one_line(exc: pytest.ExceptionInfo[SystemExit]) -> str:
    message = str(exc.value.code)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_report_input_errors_are_one_line_before_any_set_runs(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # Each of these was a traceback (FileNotFoundError / ValueError out of run_report); a malformed
    # line in the last set only after every set before it had run.
    import eval.report

    def no_set_may_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("a set was evaluated before every file was read")

    monkeypatch.setattr(eval.report, "run_set_pairs", no_set_may_run)
    data = _data_folder(tmp_path / "data")
    out = str(tmp_path / "out")
    with pytest.raises(SystemExit) as exc:
        main(["eval", "report", "--data", str(tmp_path / "nosuch"), "--out", out, "--no-progress"])
    assert _one_line(exc).startswith(f"eval data folder not found: {tmp_path / 'nosuch'}")
    with pytest.raises(SystemExit) as exc:
        main(["eval", "report", "--data", str(data), "--out", out, "--sets", "a,c", "--no-progress"])
    assert _one_line(exc) == f"unknown set(s) c; the sets under {data}: a, b"
    with pytest.raises(SystemExit) as exc:
        main(["eval", "report", "--data", str(data / "a"), "--out", out, "--no-progress"])
    assert _one_line(exc) == (f"{data / 'a'} is one eval set, not a folder of them: pass its parent as --data "
                              "and --sets a")
    with pytest.raises(SystemExit) as exc:
        main(["eval", "report", "--data", str(data), "--out", out, "--no-progress"])
    assert _one_line(exc) == f"{data / 'b' / 'dev.jsonl'}:3: expected a JSON object, got list"
    assert not (tmp_path / "out" / "RESULTS.md").exists()


def test_a_folder_of_own_sets_under_other_file_names_names_what_it_found(tmp_path: Path) -> None:
    # "no eval sets ... under DIR" alone left an operator with mine/pairs.jsonl guessing.
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "pairs.jsonl").write_text(_pair_line(1) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["eval", "report", "--data", str(tmp_path), "--out", str(tmp_path / "out"), "--no-progress"])
    assert _one_line(exc) == (f"no eval sets (<set>/dev.jsonl or <set>/dev.clusters.jsonl) under {tmp_path}; found "
                              "mine/pairs.jsonl: name a set's pairs dev.jsonl and its cluster items dev.clusters.jsonl")


def test_a_folder_or_a_file_of_the_other_kind_says_so(tmp_path: Path) -> None:
    # A folder was "no such file"; a cluster file given to `eval pairs` was "field 'label' must be 0
    # or 1, got None", a pair file given to `eval clusters` "field 'cluster' must be ...".
    with pytest.raises(SystemExit) as exc:
        main(["eval", "pairs", str(tmp_path), "--no-progress"])
    assert _one_line(exc) == f"{tmp_path}: a folder, not a file"
    clusters = tmp_path / "items.jsonl"
    clusters.write_text(json.dumps({"id": "i1", "cluster": "c1", "text": "Fed raises rates", "lang": "en"}) + "\n",
                        encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["eval", "pairs", str(clusters), "--no-progress"])
    assert _one_line(exc) == (f"{clusters}:1: a cluster file's item (id, cluster, text), not a labelled pair: "
                              "eval clusters reads cluster files")
    pairs = _data_folder(tmp_path / "data") / "a" / "dev.jsonl"
    with pytest.raises(SystemExit) as exc:
        main(["eval", "clusters", str(pairs), "--no-progress"])
    assert _one_line(exc) == (f"{pairs}:1: a labelled pair (id, a, b, label), not a cluster file's item: "
                              "eval pairs reads pair files")



def test_clusters_counts_one_gold_cluster_in_the_singular(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # a file of one gold cluster (a hand-made check) printed "5 items, 1 gold clusters"
    import eval.clusters

    monkeypatch.setattr(eval.clusters, "predict_samestory", lambda items, **kwargs: list(range(len(items))))
    one = tmp_path / "one.clusters.jsonl"
    one.write_text("".join(json.dumps({"id": f"i{i}", "cluster": "c1", "text": f"Fed raises rates by {i} points",
                                       "lang": "en"}) + "\n" for i in range(5)), encoding="utf-8")
    assert main(["eval", "clusters", str(one), "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"{one}: 5 items, 1 gold cluster"
