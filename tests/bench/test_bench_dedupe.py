"""The RAG chunk benchmark's stream and scoring (no encoder: the MinHash baseline only)."""

from __future__ import annotations

import pytest

from bench.dedupe_chunks import chunk_stream, run_minhash, score
from eval.data import eval_data_dir

DATA = eval_data_dir()
pytestmark = [pytest.mark.heavy, pytest.mark.evaldata,
              pytest.mark.skipif(not (DATA / "ntrex128-kor-eng" / "dev.jsonl").is_file(),
                                 reason=f"eval data not found at {DATA}")]


def test_stream_has_the_asked_copies_and_every_copy_follows_its_original() -> None:
    s = chunk_stream(400, dup_share=0.3, seed=1)
    assert len(s.records) == 400 and s.kind.count("original") == 280
    assert set(s.kind) == {"original", "format", "boilerplate", "typo", "translated"}
    for i, o in enumerate(s.original):
        if o is not None:
            assert o < i and s.original[o] is None
            if s.kind[i] == "translated":
                assert s.records[i]["lang"] != s.records[o]["lang"]
    assert {r["lang"] for r in s.records} == {"ko", "en"}
    assert chunk_stream(400, dup_share=0.3, seed=1).records == s.records   # seeded


def test_scoring_and_the_minhash_baseline() -> None:
    s = chunk_stream(200, dup_share=0.3, seed=2)
    perfect = [i if o is None else o for i, o in enumerate(s.original)]
    r = score(s, perfect)
    assert (r["precision"], r["recall"], r["originals_dropped"]) == (1.0, 1.0, 0)
    labels, _ = run_minhash(s)
    m = score(s, labels)
    assert m["recall_by_kind"]["translated"] == 0.0 and m["recall_by_kind"]["format"] == 1.0
    with pytest.raises(ValueError, match="dup_share"):
        chunk_stream(100, dup_share=1.0)


def test_issue_scenario_keeps_every_window_and_drops_the_copies(capsys) -> None:
    import json

    from bench.rag_scenario import main

    assert main(["--model", "none"]) == 0
    passage, headline = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert passage["distinct_windows_dropped"] == 0 and passage["copies_dropped"] == passage["copies"] == 40
    assert passage["encoder_texts"] == 0   # one language: the encoder is never called
    assert headline["kind"] == "headline"


def test_before_and_after_paths_run_on_the_same_stream_without_an_encoder() -> None:
    from bench.dedupe_chunks import run_samestory

    s = chunk_stream(200, dup_share=0.3, seed=3)
    after, encoded = run_samestory(s, None)
    before, _ = run_samestory(s, None, before=True)
    # Without an encoder the gate never runs: both are the lexical stages, the same decisions.
    assert after == before and encoded == 0
    assert score(s, after)["recall_by_kind"]["format"] == 1.0


def test_stage_profile_times_the_stages_and_restores_them() -> None:
    import index.passages as ip
    import service.passages as sp
    from bench.dedupe_stages import measure

    before = (ip.Passage.__dict__["build"], sp.PassageDeduper._lexical, sp.align)
    r = measure(200, seed=3, model="none")
    assert (ip.Passage.__dict__["build"], sp.PassageDeduper._lexical, sp.align) == before
    assert r["sentences_embedded"] == 0 and r["cpu_s"] > 0
    assert {"passage features", "lexical stages"} <= set(r["stages_cpu_s"])
    assert r["score"]["precision"] == 1.0 and r["score"]["recall_by_kind"]["format"] == 1.0
