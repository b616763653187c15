"""Fast tests of the e5-small fine-tuning experiment (research/xling/finetune.py).

Toy sentences written for the test only (no eval data). The real experiment fine-tunes the
offline e5-small build; here a tiny random BERT with a word-level tokenizer stands in for it
(built offline in a temporary folder, a few seconds), so the code path (text-disjoint training
pairs, freezing, the symmetric in-batch loss, two optimizer steps, encoding, the trained-layer
delta) runs in well under 30 s.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sentence_transformers")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from research.xling.data import PairSet, fold_of  # noqa: E402  (after the skips on purpose)
from research.xling.finetune import (  # noqa: E402
    PREFIX,
    TrainPair,
    encode,
    freeze_for_finetune,
    fusion_cv,
    inner_folds,
    mnrl_loss,
    train,
    trained_delta,
    training_pairs,
)

pytestmark = pytest.mark.heavy  # issue 38: many seconds; `make check` leaves it out

KO = ["고양이가 잔다", "개가 짖는다", "나는 사과를 먹는다", "비가 온다", "그는 학교에 간다", "우리는 책을 읽는다"]
EN = ["The cat sleeps.", "The dog barks.", "I eat an apple.", "It is raining.", "He goes to school.",
      "We read books."]


def _group_in(fold: int, name: str, start: int = 0) -> str:
    """First group name ``g<i>`` (i >= start) that falls in ``fold`` of set ``name``."""
    i = start
    while fold_of(name, f"g{i}") != fold:
        i += 1
    return f"g{i}"


def _pairset() -> PairSet:
    """Six translations, one per group; rows 0-1 in fold 0, plus a hard negative and a random one.

    Row 6 (fold != 0) pairs KO[2] with EN[0]: a negative whose English text is a test text, so it
    must not become a hard negative; row 7 pairs KO[3] with EN[4] (a usable hard negative).
    """
    name = "toy"
    test = [_group_in(0, name), _group_in(0, name, int(_group_in(0, name)[1:]) + 1)]
    train_g = []
    i = 0
    while len(train_g) < 4:
        g = _group_in(1 + len(train_g) % 4, name, i)
        train_g.append(g)
        i = int(g[1:]) + 1
    groups = [*test, *train_g, train_g[0], train_g[1]]
    texts = KO + EN
    a_idx = np.array([0, 1, 2, 3, 4, 5, 2, 3])
    b_idx = np.array([6, 7, 8, 9, 10, 11, 6, 10])
    n = len(groups)
    return PairSet(
        name=name, ids=[str(i) for i in range(n)],
        kinds=["xl_translation"] * 6 + ["xl_hard_negative", "xl_hard_negative"],
        labels=np.array([1, 1, 1, 1, 1, 1, 0, 0]), groups=groups, a_idx=a_idx, b_idx=b_idx,
        a_lang=["ko"] * n, b_lang=["en"] * n, texts=texts, text_lang=["ko"] * 6 + ["en"] * 6,
    )


def test_training_pairs_are_text_disjoint_from_fold0() -> None:
    ps = _pairset()
    assert list(ps.folds()[:2]) == [0, 0] and all(ps.folds()[2:6] != 0)
    pairs, stats = training_pairs([ps], hard_negatives=True)
    assert [(p.ko, p.en) for p in pairs] == list(zip(KO[2:], EN[2:], strict=True))
    assert stats["toy"]["pairs"] == 4 and stats["total_pairs"] == 4
    held = set(KO[:2]) | set(EN[:2])
    assert not any(p.ko in held or p.en in held or set(p.hard) & held for p in pairs)
    hard = {p.ko: p.hard for p in pairs}
    assert hard[KO[3]] == [EN[4]] and hard[KO[2]] == []  # EN[0] is a fold-0 text


def test_mnrl_loss_prefers_aligned_and_masks_duplicates() -> None:
    e = torch.nn.functional.normalize(torch.eye(4, 8) + 0.01, dim=1)
    ids = ["a", "b", "c", "d"]
    aligned = mnrl_loss(e, e, ids, ids, scale=20.0)
    shuffled = mnrl_loss(e, e[[1, 0, 3, 2]], ids, ids, scale=20.0)
    assert float(aligned) < 0.01 < float(shuffled)
    # candidate 1 equals anchor 0's translation as text: masked, so it cannot hurt anchor 0
    dup = mnrl_loss(e, torch.cat([e[:1], e[:1], e[2:]]), ids, ["a", "a", "c", "d"], scale=20.0)
    assert torch.isfinite(dup)


def _tiny_model(d: Path):
    """A 2-layer, 32-dim random BERT + word-level tokenizer as a sentence-transformers folder."""
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    words = sorted({w for t in KO + EN for w in (PREFIX + t).split()})
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *words])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                            sep_token="[SEP]").save_pretrained(str(d))
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=32, pad_token_id=0)
    BertModel(cfg).save_pretrained(str(d))
    (d / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]))
    (d / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 16, "do_lower_case": False}))
    (d / "1_Pooling").mkdir()
    (d / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": 32, "pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False,
         "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False}))
    (d / "2_Normalize").mkdir()
    return SentenceTransformer(str(d), device="cpu", local_files_only=True)


def test_two_steps_train_only_the_top_layer(tmp_path: Path) -> None:
    torch.set_num_threads(2)
    model = _tiny_model(tmp_path)
    names = freeze_for_finetune(model, 1)
    assert names and all(".layer.1." in n for n in names)
    base = {n: p.detach().clone() for n, p in model.named_parameters()}
    pairs = [TrainPair(k, e, [EN[(i + 1) % len(EN)]]) for i, (k, e) in enumerate(zip(KO, EN, strict=True))]
    stats = train(model, pairs, steps=2, batch=4, lr=1e-3, seed=0, progress=False)
    assert stats["steps"] == 2 and np.isfinite(stats["loss_last20"])
    cur = dict(model.named_parameters())
    changed = {n for n in cur if not torch.equal(cur[n].detach(), base[n])}
    assert changed and changed <= set(names)  # word embeddings and lower layers untouched
    delta = trained_delta(model, base, names)
    assert set(delta) == set(names) and all(v.dtype == np.float16 for v in delta.values())
    emb, spt = encode(model, KO + EN, batch=4)
    assert emb.shape == (12, 32) and spt > 0
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    one, _ = encode(model, [KO[3]])
    assert np.allclose(one[0], emb[3], atol=1e-5)  # length-sorted batching keeps the order


def _auc(s: np.ndarray, y: np.ndarray) -> float:
    pos, neg = s[y == 1], s[y == 0]
    return float((pos[:, None] > neg[None, :]).mean())


def test_inner_folds_are_by_group_and_salted_apart_from_outer_folds() -> None:
    groups = [f"g{i // 3}" for i in range(300)]  # 3 rows per group
    f = inner_folds("toy", groups)
    assert f.shape == (300,) and set(f.tolist()) == set(range(5))
    assert all(len(set(f[i:i + 3].tolist())) == 1 for i in range(0, 300, 3))  # a group never straddles folds
    assert np.array_equal(f, inner_folds("toy", groups))  # deterministic
    outer = np.array([fold_of("toy", g) for g in groups])
    assert (f != outer).any()  # a different salt from PairSet.folds


def test_fusion_cv_is_out_of_fold_and_combines_two_views() -> None:
    rng = np.random.default_rng(0)
    x, y, inner = {}, {}, {}
    for name, n in (("a", 400), ("b", 150)):  # two sets of different sizes, trained jointly
        yy = (rng.random(n) < 0.3).astype(int)
        x[name] = np.c_[yy + rng.normal(0, 0.8, n), yy + rng.normal(0, 0.8, n)]  # two independent noisy views
        y[name] = yy
        inner[name] = inner_folds(name, [f"g{i // 2}" for i in range(n)])
    oof, applied, info = fusion_cv(x, y, inner, apply={"other": x["a"][:7]})
    assert all(oof[n].shape == y[n].shape and np.isfinite(oof[n]).all() for n in x)
    assert info["coef"][0] > 0 and info["coef"][1] > 0
    for n in x:  # the fused logit ranks better than either view alone
        assert _auc(oof[n], y[n]) > max(_auc(x[n][:, 0], y[n]), _auc(x[n][:, 1], y[n]))
    # "other" is scored by the fit on all rows: same as the full fit applied by hand
    z = (x["a"][:7] - np.array(info["mean"])) / np.array(info["scale"])
    assert np.allclose(applied["other"], z @ np.array(info["coef"]) + info["intercept"])
    # no leakage: flipping the labels of inner fold 0 leaves fold 0's predictions unchanged
    y2 = {n: np.where(inner[n] == 0, 1 - y[n], y[n]) for n in y}
    oof2, _, _ = fusion_cv(x, y2, inner)
    for n in x:
        m = inner[n] == 0
        assert m.any() and np.allclose(oof2[n][m], oof[n][m])
        assert not np.allclose(oof2[n][~m], oof[n][~m])
