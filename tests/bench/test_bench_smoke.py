"""Smoke test of the benchmark harness at a tiny size: JSON keys and sanity, never timings.

Skips cleanly where the eval data is absent (``$SAMESTORY_EVAL_DATA``, default
``../shared/eval-data`` relative to the repository root). Runs the cheap passes only
(``--model none``) so CI does not pay for the encoder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.paths import EVAL_DATA

DATA = EVAL_DATA

pytestmark = [pytest.mark.heavy, pytest.mark.evaldata,
              pytest.mark.skipif(not DATA.is_dir(), reason=f"eval data not found at {DATA}")]


def test_stream_is_seeded_and_has_known_duplicates() -> None:
    from bench.stream import build_stream

    a = build_stream(300, dup_share=0.4, seed=7, data_dir=str(DATA))
    b = build_stream(300, dup_share=0.4, seed=7, data_dir=str(DATA))
    assert [x.title for x in a.items] == [x.title for x in b.items]
    assert a.stats["copies"] == 120 and a.stats["groups"] == 180
    assert {it.kind for it in a.items} >= {"original", "syndicated"}


def test_a_size_the_data_cannot_support_is_a_one_line_error() -> None:
    from service.cli import main

    with pytest.raises(SystemExit, match=r"at most \d+ items"):
        main(["bench", "--size", "60000", "--model", "none", "--eval-data", str(DATA)])


def test_score_labels_counts_recall_and_false_merges() -> None:
    from bench.harness import score_labels
    from bench.stream import StreamItem

    items = [StreamItem("a", "en", "u0", "s", 0.0, 0, "original"), StreamItem("b", "en", "u1", "s", 0.0, 1, "original"),
             StreamItem("a!", "en", "u2", "s", 0.0, 0, "case"), StreamItem("c", "en", "u3", "s", 0.0, 2, "original")]
    q = score_labels(items, [0, 1, 0, 1])
    assert q["recall"] == 1.0 and q["false_merges"] == 1 and q["merged"] == 2


def test_bench_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli import main

    rc = main(["bench", "--size", "400", "--repeats", "1", "--json", "--model", "none", "--probe", "20",
               "--alternatives", "seed001,seed000", "--window", "100", "--eval-data", str(DATA)])
    assert rc == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for key in ("size", "throughput_items_per_s", "speedup_vs_embed_all", "stage_share", "encoder_calls",
                "ingest_latency_ms", "restart", "guards_check", "methods", "stream"):
        assert key in result, key
    assert result["size"] == 400
    assert result["speedup_vs_embed_all"] is None  # embed-all was not run
    ours = result["methods"]["samestory"]
    assert 0.0 <= ours["recall"] <= 1.0 and ours["throughput"] > 0
    assert abs(sum(result["status_share"].values()) - 1.0) < 1e-6
    assert result["restart"]["documents"] > 0
    # The clean close left a snapshot; the second restart ignores it and rebuilds, to the same state.
    assert result["restart"]["state_from"] == "snapshot"
    assert result["restart_rebuild"]["state_from"] == "store"
    assert result["restart_rebuild"]["documents"] == result["restart"]["documents"]
    for name in ("seed001", "seed000"):
        assert 0.0 <= result["methods"][name]["recall"] <= 1.0
        assert result["methods"][name]["windows"]  # streaming: items/s per window as the store grows
    # Precision beside recall, for every method; hard-negative pairs are in the stream.
    for m in result["methods"].values():
        assert 0.0 <= m["pairwise_precision"] <= 1.0 and 0.0 <= m["false_merge_rate"] <= 1.0
        assert m["hard_negatives"] == result["stream"]["hard_negative_pairs_in_stream"] > 0
    assert [w["stored"] for w in ours["windows"]] == [100, 200, 300, 400]  # --window 100 (no probe: 1,000 > 400)
    assert result["encoder_limit"] is None  # --model none: no encoder to measure
    assert result["run_order"] == [["samestory", "seed001", "seed000"]]


def test_vector_memory_script_reports_the_index_it_built(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.vector_memory import main as vector_memory

    assert vector_memory(["300", "--dim", "16", "--exact-until", "100", "--chunk", "128"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["vectors"] == 300 and out["kind"] == "hnsw" and out["dim"] == 16
    assert "bytes_per_vector" in out


def test_ab_script_reports_decisions_and_times(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.ab import main as ab

    runs = []
    for _ in range(2):
        assert ab(["ingest", "--size", "150", "--label", "x", "--eval-data", str(DATA)]) == 0
        runs.append(json.loads(capsys.readouterr().out.strip().splitlines()[-1]))
    assert runs[0]["label"] == "x" and runs[0]["items"] == 150 and runs[0]["items_per_s"] > 0
    assert runs[0]["decisions_sha256"] == runs[1]["decisions_sha256"]  # the same engine decides the same
    assert runs[0]["results_sha256"] == runs[1]["results_sha256"]  # with the same reasons
    assert ab(["ingest", "--size", "150", "--verifier", "--eval-data", str(DATA)]) == 0
    verified = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert runs[0]["verifier"] is False and verified["verifier"] is True
    assert verified["results_sha256"] != runs[0]["results_sha256"]  # the verifier's reasons are in the results
    assert ab(["dedupe", "--size", "300", "--calls", "2", "--eval-data", str(DATA)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["texts"] == 100 and out["wall_p50_ms"] > 0 and out["engine_cpu_ms"] >= 0


def test_restart_script_measures_a_start_after_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.restart import main

    db = str(tmp_path / "r.db")
    common = ["--db", db, "--model", "none", "--eval-data", str(DATA)]
    assert main([*common, "--build", "300"]) == 0
    assert main([*common, "--crash-after", "400", "--leave"]) == 0
    assert main([*common, "--leave"]) == 0  # --leave: the same start, measured again
    first, again = (json.loads(line) for line in capsys.readouterr().out.strip().splitlines()[-2:])
    # No checkpoint during 400 items (the default is every 50,000 changes): the clean close's
    # snapshot is the base, and every change since is replayed.
    assert first["crash_checkpoints"] == 0 and first["crash_changes_after_checkpoint"] > 300
    for r in (first, again):
        assert r["state_from"] == "snapshot" and r["replayed"] > 0 and r["replay_pending"] == 0
    assert again["replayed"] == first["replayed"] and again["documents"] == first["documents"]


def test_checkpoint_script_times_a_snapshot_of_a_stored_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.checkpoint import main
    from service.config import EngineConfig
    from service.engine import Deduper
    from service.store import open_store
    from service.types import Article

    db = tmp_path / "c.db"
    e = Deduper(open_store(f"sqlite:///{db}"), embedder=None, config=EngineConfig())
    e.ingest_many([Article(title=f"검증용 제목 {i} number {i * 7}", url=f"https://c.example/{i}") for i in range(60)])
    e.close()
    assert main([f"{db}.state.npz", "--repeats", "2", "--dead", "10"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["documents"] == 60 and out["dead"] == 10 and len(out["pause_s"]) == 2 and out["file_bytes"] > 0


@pytest.mark.redis
def test_shared_cache_script_serves_the_second_worker_from_redis(redis_prefix: tuple[str, str],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from bench.shared_cache import main

    url, _ = redis_prefix
    assert main(["--redis", url, "--size", "40", "--repeats", "1", "--eval-data", str(DATA)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["texts"] == 40 and out["b_model_calls"] == 0
    assert out["a_ms_per_text"] > 0 and out["b_ms_per_text"] > 0


def test_dedupe_under_ingest_script_times_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.dedupe_under_ingest import main

    assert main(["--size", "300", "--batch", "100", "--calls", "2", "--rounds", "1", "--eval-data", str(DATA)]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for mode in ("free", "locked"):
        assert out[mode]["busy_p50_ms"] > 0 and out[mode]["idle_p50_ms"] > 0
        assert out["ingested_while_timed"][mode][0] > 0


def test_a_candidate_verifier_runs_beside_the_shipped_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--candidate-verifier: one more method in the rotation, with its own verifier figures and its
    ratio to samestory (here without a verifier); an artefact that is not there is a one-line error."""
    from models.verifier import DEFAULT_ARTEFACT
    from service.cli import main

    with pytest.raises(SystemExit, match="--candidate-verifier: no verifier artefact at"):
        main(["bench", "--size", "300", "--model", "none", "--eval-data", str(DATA),
              "--candidate-verifier", str(tmp_path / "absent.npz")])
    rc = main(["bench", "--size", "300", "--repeats", "1", "--json", "--model", "none", "--throughput-only",
               "--alternatives", "none", "--verifier", "off", "--candidate-verifier", str(DEFAULT_ARTEFACT),
               "--eval-data", str(DATA)])
    assert rc == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["run_order"] == [["samestory", "samestory+candidate"]]
    ours, candidate = result["methods"]["samestory"], result["methods"]["samestory+candidate"]
    assert "verifier" not in ours  # --verifier off
    assert candidate["verifier_path"] == str(DEFAULT_ARTEFACT) and candidate["throughput_ratio_to_samestory"] > 0
    assert candidate["verifier"]["pairs"] > 0 and 0.0 <= candidate["recall"] <= 1.0
    assert "pair verifier (samestory+candidate):" in out
