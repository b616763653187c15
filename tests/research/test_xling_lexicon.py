"""Fast tests of the learned bilingual lexicon experiment (research/xling/lexicon.py).

Toy sentences written for the test only (no eval data): the lexicon must learn the obvious
word pairs from a handful of parallel lines, and the pair features must order a translation
above a mismatched pair.
"""

from __future__ import annotations

import numpy as np

from research.xling.lexicon import LEXICON_FEATURES, Corpus, en_words, fit_lexicon, ko_words, lexicon_features

KO = [
    "고양이가 잔다",
    "고양이를 본다",
    "개가 잔다",
    "개를 본다",
    "나는 사과를 먹는다",
    "나는 고양이를 좋아한다",
    "나는 개를 좋아한다",
    "사과가 맛있다",
]
EN = [
    "The cat sleeps.",
    "I see the cat.",
    "The dog sleeps.",
    "I see the dog.",
    "I eat an apple.",
    "I like the cat.",
    "I like the dog.",
    "The apple is tasty.",
]
COL = {n: i for i, n in enumerate(LEXICON_FEATURES)}


def _lexicon(rows: np.ndarray | None = None):
    corpus = Corpus(KO, EN)
    return corpus, fit_lexicon(corpus, np.ones(len(KO), bool) if rows is None else rows)


def test_tokenisers() -> None:
    assert en_words("The cats were sleeping, and the cat's dog sleeps.") == ["cat", "sleep", "dog"]
    assert ko_words("고양이가 잔다 고양이가 FIFA") == [["고", "고양", "고양이"], ["잔", "잔다"], ["#fifa"]]


def test_learns_obvious_pairs() -> None:
    _, lex = _lexicon()
    assert lex.translations("고양")[0][0] == "cat"
    assert lex.translations("개")[0][0] == "dog"
    assert lex.translations("사과")[0][0] == "apple"
    assert lex.translations("고양")[0][1] > 0.5
    assert lex.translations("없는말") == []


def test_features_order_translation_above_mismatch() -> None:
    corpus, lex = _lexicon()
    test = Corpus(["고양이가 잔다", "개를 본다", "나는 사과를 먹는다"],
                  ["The cat sleeps.", "The cat sleeps.", "I eat an apple."], vocab=corpus.vocab, grow=False)
    f = lexicon_features(lex, test)
    assert f.shape == (3, len(LEXICON_FEATURES))
    for name in ("lex_en_cov", "lex_en_mean", "lex_en_ll", "lex_ko_cov", "lex_ko_mean"):
        assert f[0, COL[name]] > f[1, COL[name]], name
    for name in ("lex_en_uncov", "lex_ko_uncov"):
        assert f[0, COL[name]] < f[1, COL[name]], name
    assert f[0, COL["lex_en_cov"]] == 1.0
    assert f[2, COL["lex_en_cov"]] == 1.0
    assert np.all((f[:, [COL["lex_en_cov"], COL["lex_ko_cov"]]] >= 0) & (f[:, [COL["lex_en_cov"],
                                                                               COL["lex_ko_cov"]]] <= 1))


def test_unknown_words_give_nan() -> None:
    corpus, lex = _lexicon()
    test = Corpus(["무슨 말인지", "FIFA 고양이"], ["Completely unrelated words.", "FIFA cat"],
                  vocab=corpus.vocab, grow=False)
    f = lexicon_features(lex, test)
    assert np.isnan(f[0]).all()  # no word the lexicon has seen twice: the caller imputes
    assert f[1, COL["lex_en_cov"]] == 1.0  # "cat" is known and covered; the unseen "fifa" is not counted


def test_fit_uses_only_the_given_rows() -> None:
    no_dog = np.array(["dog" not in e for e in EN])
    corpus, lex = _lexicon(no_dog)
    assert lex.translations("개") == []
    assert lex.translations("고양")[0][0] == "cat"
    test = Corpus(["개가 잔다"], ["The dog sleeps."], vocab=corpus.vocab, grow=False)
    assert np.isnan(lexicon_features(lex, test)).all()  # "dog" unseen, "sleep" seen once: nothing known
