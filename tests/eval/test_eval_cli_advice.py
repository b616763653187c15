"""What `samestory eval` tells an operator: calibrate's advice when no threshold reaches a floor, and --help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main


def _pair(i: int, a: str, b: str, label: int) -> str:
    return json.dumps({"id": f"p{i}", "a": {"text": a, "lang": "en"}, "b": {"text": b, "lang": "en"},
                       "label": label, "kind": "en_test"})


def test_a_floor_the_swept_stage_cannot_reach_names_what_made_the_false_merges(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An exact copy labelled 'not the same' (an editor's split of two identical headlines) is a
    false merge at every embedding threshold: the advice names the exact stage, not a wider grid."""
    f = tmp_path / "editors.jsonl"
    f.write_text("\n".join([_pair(1, "Fed raises rates by a quarter point", "Fed raises rates by a quarter point", 0),
                            _pair(2, "Fed raises rates by a quarter point", "Fed raises rates by a quarter point.", 1)])
                 + "\n", encoding="utf-8")
    rc = main(["eval", "calibrate", str(f), "--thresholds", "0.7,0.9", "--no-progress", "--json"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "widen --thresholds" not in out
    assert "made by: exact 1, which a higher embedding threshold does not undo" in out
    rows = json.loads(out.strip().splitlines()[-1])["rows"][0]
    assert rows[-1]["false_merges"] == {"exact": 1}


def test_sample_help_says_cluster_files_are_sampled_by_whole_gold_clusters(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``eval clusters --sample 300`` gave 315 items: the help promised "N records (pairs: stratified
    by kind)" and said nothing of the whole gold clusters a cluster file is cut into."""
    with pytest.raises(SystemExit):
        main(["eval", "clusters", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "cluster files: whole gold clusters" in help_text


def test_calibrate_recommends_nothing_when_recall_is_flat_on_every_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """UCI dev's recall was 0.026 at every embedding threshold 0.4..0.8 and calibrate recommended
    0.4, the lowest; then the highest of the same recall, which on the sixth tour's templated pairs
    was the top of the grid (USE's ``embedding_threshold = 0.9``, status 0). Pairs that merge alike
    at every threshold cannot choose one: the thresholds meeting the floors are said, none is
    recommended, status 1. Here the positives are exact copies, merged at any n-gram threshold."""
    f = tmp_path / "own.jsonl"
    f.write_text("\n".join([_pair(i, f"Acme unit {i} posts record profit in quarter {i}",
                                  f"ACME UNIT {i} POSTS RECORD PROFIT IN QUARTER {i}", 1) for i in range(30)]
                           + [_pair(100 + i, f"Storm number {i} floods the northern valley towns",
                                    f"Central bank {i} lifts its lending rate again", 0) for i in range(30)])
                 + "\n", encoding="utf-8")
    rc = main(["eval", "calibrate", str(f), "--stage", "ngram", "--thresholds", "0.3,0.4,0.5", "--no-progress",
               "--json"])
    out = capsys.readouterr().out
    assert rc == 1
    obj = json.loads(out.strip().splitlines()[-1])
    assert [r["recall"] for r in obj["rows"][0]] == [1.0, 1.0, 1.0]
    assert obj["threshold"] is None and obj["reliable"] is False
    assert obj["measured_threshold"] == 0.5 and obj["lowest_meeting"] == 0.3
    assert "every threshold from 0.3 to 0.5 meets every floor at the same recall\n" in out
    assert "the highest is taken" not in out and " <-" not in out and "[engine]" not in out
    assert ("WARNING: own: recall is flat (1.000..1.000) from 0.3 to 0.5: the ngram threshold is not what limits "
            "merges on these pairs") in out
    assert "UNRELIABLE: no threshold recommended; recall is flat on every file" in out


def test_sweep_of_a_file_in_the_working_folder_names_it_and_prints_the_shipped_threshold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Sixth tour: ``eval sweep mine.jsonl --stage embedding`` (a file in the working folder) titled
    its plot "(pairs): embedding sweep" (the folder ``.`` has no name), printed the thresholds to two
    decimals (0.625 read "0.62") and its default grid skipped the shipped 0.625 for 0.62; the plot's
    items-remaining axis was ticked 37.2, 37.4, ... for a count."""
    import eval.plots
    from eval.sweep import default_thresholds
    from service.config import EngineConfig

    assert EngineConfig().for_model("use").copy.embedding_threshold in default_thresholds("embedding")
    titles: list[str] = []
    figures: list = []
    real_plot, real_save = eval.plots.plot_sweep, eval.plots._save

    def plot(rows, stage, path, title=""):  # type: ignore[no-untyped-def]
        titles.append(title)
        return real_plot(rows, stage, path, title)

    def save(fig, path):  # type: ignore[no-untyped-def]
        figures.append([float(t) for t in fig.axes[1].get_yticks()])
        return real_save(fig, path)

    monkeypatch.setattr(eval.plots, "plot_sweep", plot)
    monkeypatch.setattr(eval.plots, "_save", save)
    monkeypatch.chdir(tmp_path)
    Path("mine.jsonl").write_text("\n".join([
        _pair(1, "Fed raises rates by a quarter point", "FED RAISES RATES BY A QUARTER POINT", 1),
        _pair(2, "Fed raises rates by a quarter point", "Storm floods the northern valley towns", 0)]) + "\n",
        encoding="utf-8")
    rc = main(["eval", "sweep", "mine.jsonl", "--stage", "embedding", "--thresholds", "0.6,0.625", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert titles == ["mine (pairs): embedding sweep"]
    assert [line.split()[0] for line in out.splitlines() if line.startswith("    0.6")] == ["0.600", "0.625"]
    assert figures and all(t == int(t) for t in figures[0])
