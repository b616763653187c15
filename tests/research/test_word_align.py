"""research/word_align.py: e5 token vectors and a name's counterpart across scripts.

The headlines are made up here; the figures they give at layer 8 are in research/notes/guards.md
("Word alignment across scripts").
"""

from __future__ import annotations

import numpy as np
import pytest

from research.word_align import LAYER, WordAligner


@pytest.fixture(scope="module")
def wa() -> WordAligner:
    return WordAligner.shared()


def test_vectors_are_unit_rows_over_the_visible_pieces(wa: WordAligner) -> None:
    tv = wa.vectors("Heavy snow in Hokkaido")
    assert tv.vecs.shape == (len(tv.spans), 384)
    assert np.allclose(np.linalg.norm(tv.vecs, axis=1), 1.0, atol=1e-4)
    # a piece's span never starts on the space before its word
    assert all(not tv.text[s:e].startswith(" ") for s, e in tv.spans)
    assert "".join(tv.text[s:e] for s, e in tv.spans) == "HeavysnowinHokkaido"
    assert wa.vectors("Heavy snow in Hokkaido") is tv  # cached


@pytest.mark.parametrize(("span", "a", "true_b", "other_b", "want"), [
    ("기시다", "기시다 총리, 내달 서울 방문", "Kishida to visit Seoul next month",
     "Albanese to visit Seoul next month", "Kishida"),
    ("삼성전자", "삼성전자, 3분기 영업이익 9조원", "Samsung Electronics posts 9 trillion won operating profit",
     "LG Electronics posts 9 trillion won operating profit", "Samsung"),
    ("Hokkaido", "Heavy snow in Hokkaido cancels 200 flights", "홋카이도에 폭설…항공편 200편 결항",
     "오키나와에 폭설…항공편 200편 결항", "홋카이도"),
])
def test_a_name_aligns_with_its_translation_better_than_with_another_name(
        wa: WordAligner, span: str, a: str, true_b: str, other_b: str, want: str) -> None:
    hit, sim = wa.best_counterpart(span, a, true_b)
    _, other = wa.best_counterpart(span, a, other_b)
    assert hit == want
    assert sim > other + 0.05


def test_a_span_missing_from_its_text_has_no_counterpart(wa: WordAligner) -> None:
    assert wa.best_counterpart("Seoul", "Heavy snow in Hokkaido", "홋카이도에 폭설") == ("", 0.0)
    assert wa.best_counterpart("hokkaido", "Heavy snow in Hokkaido", "") == ("", 0.0)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="layer"):
        WordAligner(layer=0)
    with pytest.raises(ValueError, match="cache"):
        WordAligner(cache=0)
    with pytest.raises(ValueError, match="span_a is empty"):
        WordAligner.shared().best_counterpart(" ", "a", "b")
    with pytest.raises(ValueError, match="text must be a str"):
        WordAligner.shared().vectors(None)  # type: ignore[arg-type]


def test_the_cache_keeps_the_most_recent_texts() -> None:
    small = WordAligner(layer=LAYER, cache=2)
    first = small.vectors("one")
    small.vectors("two")
    small.vectors("three")
    assert small.vectors("one") is not first  # evicted, computed again
    assert np.allclose(small.vectors("one").vecs, first.vecs)
