"""bench/story_index_plot.py: a story_index run drawn from its --out JSON or from its printed log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.story_index_plot import load_windows, main, parse_log

_WINDOWS = [{"stored": s, "cpu_ms_per_item": c, "story_search_ms_per_item": c / 5, "vector_search_ms_per_item": c / 6,
             "rss_mb": 900.0 + s / 1000, "store_mb": s / 200} for s, c in ((10_000, 4.0), (20_000, 5.0), (30_000, 5.5))]


def test_the_log_and_the_out_json_give_the_same_windows(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("stream {\"days\": 10}\n1000 of 2000 headlines (5 embedded)\n"
                   + "".join(f"base+voff {json.dumps(w)}\n" for w in _WINDOWS)
                   + 'base+voff profile {"x": 1.0}\nbase+voff {"config": "base+voff", "wall_s": 3.0}\n')
    out = tmp_path / "out.json"
    out.write_text(json.dumps({"size": 30_000, "runs": [{"config": "base+voff", "windows": _WINDOWS}]}))
    assert load_windows(log) == load_windows(out) == {"base+voff": _WINDOWS}
    assert parse_log(["nothing here"]) == {}


def test_the_figure_is_written_and_a_file_without_windows_is_refused(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.json"
    out.write_text(json.dumps({"runs": [{"config": "base", "windows": _WINDOWS}]}))
    png = tmp_path / "fig" / "cost.png"
    main([str(out), "--out", str(png), "--title", "toy"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    empty = tmp_path / "empty.log"
    empty.write_text("no windows\n")
    with pytest.raises(SystemExit):
        main([str(empty), "--out", str(png)])
    assert "neither a bench/story_index.py --out JSON nor its log" in capsys.readouterr().err
