"""Fast tests of the cross-lingual pair scorer (research/xling/pairscorer).

No embedding model is loaded: embeddings are synthetic unit vectors, so these tests
check the plumbing (artefact, shapes, lexical evidence, monotonicity), not accuracy.
Accuracy numbers live in docs/xling.md with the commands that reproduce them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from research.xling.pairscorer.lexical import (
    LEXICAL_FEATURES,
    extract_numbers,
    lexical_features,
    romanize,
    skeleton,
)
from research.xling.pairscorer.scorer import (
    ALL_FEATURES,
    DEFAULT_ARTEFACT,
    FeatureBuilder,
    PairBatch,
    PairScorer,
)
from research.xling.train import fit_logreg, pr_at, recall_at_precision, shared_threshold
from tests.paths import EVAL_DATA, REPO_ROOT

needs_artefact = pytest.mark.skipif(not DEFAULT_ARTEFACT.exists(), reason="research/xling/pairscorer/scorer.npz not built")


def _unit(rng: np.random.Generator, n: int, d: int = 512) -> np.ndarray:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


# ------------------------------------------------------------------ lexical
def test_numbers_korean_units_and_english_scales() -> None:
    assert extract_numbers("1억1천만 달러", "ko") == {1.1e8}
    assert extract_numbers("$110 million", "en") == {1.1e8}
    assert extract_numbers("1992년에서 1995년까지 3.5%", "ko") == {1992.0, 1995.0, 3.5}
    assert extract_numbers("20,000 people", "en") == {20000.0}
    assert extract_numbers("천천히 만약", "ko") == set()  # unit syllables without digits are words


def test_transliteration_skeletons_match() -> None:
    assert skeleton(romanize("블라디미르")) == skeleton("Vladimir")
    assert skeleton(romanize("트럼프")) == skeleton("Trump")
    assert skeleton("Macedonia") in skeleton(romanize("마케도니아인들이"))


def test_lexical_features_shape_and_orientation() -> None:
    ko = "트럼프 대통령은 2018년 FIFA 회의에 참석했다."
    en = "President Trump attended the FIFA meeting in 2018."
    f1 = lexical_features([ko], [en], ["ko"], ["en"])
    f2 = lexical_features([en], [ko], ["en"], ["ko"])
    assert f1.shape == (1, len(LEXICAL_FEATURES))
    np.testing.assert_allclose(f1, f2)  # orientation does not matter
    row = dict(zip(LEXICAL_FEATURES, f1[0], strict=True))
    assert row["num_jaccard"] == 1.0 and row["latin_frac"] == 1.0 and row["name_frac"] > 0
    bad = dict(
        zip(
            LEXICAL_FEATURES,
            lexical_features([ko], ["Sales fell 7% in 1999?"], ["ko"], ["en"])[0],
            strict=True,
        )
    )
    assert bad["num_jaccard"] == 0.0 and bad["num_unmatched"] > 0 and bad["punct_mismatch"] == 1


# ------------------------------------------------------------------ training utilities
def test_metrics() -> None:
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    y = np.array([1, 1, 0, 1, 0])
    assert recall_at_precision(s, y, 0.99) == (pytest.approx(2 / 3), 0.8)
    assert pr_at(s, y, 0.6) == (0.75, 1.0)
    assert shared_threshold([(s, y)], 0.99) == 0.8


def test_fit_logreg_separates() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((400, 2))
    y = (x[:, 0] + 0.1 * rng.standard_normal(400) > 0).astype(int)
    _mean, _scale, coef, _icpt = fit_logreg(x, y)
    assert coef[0] > 1.0 and abs(coef[1]) < 0.5


def test_pair_mlp_learns_a_relation_the_cosine_cannot_see() -> None:
    pytest.importorskip("torch")
    from research.xling.data import PairSet
    from research.xling.pairmlp import fit_head, pair_inputs

    rng = np.random.default_rng(0)
    n, d = 600, 4
    e = rng.standard_normal((2 * n, d)).astype(np.float32)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    ps = PairSet(name="toy", ids=[str(i) for i in range(n)], kinds=["k"] * n, labels=np.zeros(n, dtype=int),
                 groups=[str(i) for i in range(n)], a_idx=np.arange(n), b_idx=np.arange(n, 2 * n),
                 a_lang=["en" if i % 2 else "ko" for i in range(n)], b_lang=["ko" if i % 2 else "en" for i in range(n)],
                 texts=[""] * (2 * n), text_lang=["ko"] * (2 * n), emb={"use": e})
    x = pair_inputs(ps)
    assert x.shape == (n, 2 * d + 1)
    assert np.allclose(x[:, -1], ps.cos("use"), atol=1e-6)  # the last column is the cosine
    # Label: do the two sides agree in sign on dimension 0? Invisible to the cosine, visible to u * v.
    y = (x[:, 0] > 0).astype(int)
    head = fit_head(x[:400], y[:400], np.ones(400), hidden=32, epochs=100, seed=0, lr=1e-2)
    assert ((head.logit_from_inputs(x[400:]) > 0) == y[400:]).mean() > 0.9


def _toy_scorer() -> PairScorer:
    rng = np.random.default_rng(1)
    fb = FeatureBuilder(banks={"use_ko": _unit(rng, 50), "use_en": _unit(rng, 50)}, hub_k=5, len_mu=-0.7)
    cols = ("cos_use", "hub_ko_use", "hub_en_use", "num_jaccard", "len_dev")
    return PairScorer(
        name="toy",
        feature_names=cols,
        mean=np.zeros(len(cols)),
        scale=np.ones(len(cols)),
        coef=np.array([10.0, -1.0, -1.0, 1.0, -1.0]),
        intercept=-6.0,
        threshold=0.5,
        builder=fb,
        mono_cos_threshold=0.7,
    )


def test_toy_scorer_roundtrip_and_monotone(tmp_path: Path) -> None:
    sc = _toy_scorer()
    p = tmp_path / "toy.npz"
    sc.save(p)
    sc2 = PairScorer.load(p)
    a = ["삼성전자 3분기 영업이익 10조"] * 5
    b = ["Samsung third-quarter operating profit 10 trillion won"] * 5
    cos = np.linspace(0.2, 0.9, 5)
    s1 = sc.score(PairBatch(a, b, ["ko"] * 5, ["en"] * 5, cos))
    s2 = sc2.score(PairBatch(a, b, ["ko"] * 5, ["en"] * 5, cos))
    np.testing.assert_allclose(s1, s2, rtol=1e-4, atol=1e-4)  # banks are stored as float16
    assert np.all(np.diff(s1) > 0)
    # same-language pairs: plain cosine crossing the threshold at mono_cos_threshold
    m = sc.score(PairBatch(["a"] * 3, ["b"] * 3, ["en"] * 3, ["en"] * 3, np.array([0.69, 0.70, 0.71])))
    assert m[0] < sc.threshold <= m[1] < m[2]


def test_pair_head_feature_roundtrips_and_follows_the_vectors(tmp_path: Path) -> None:
    from research.xling.pairscorer.scorer import PairHead, head_inputs

    rng = np.random.default_rng(3)
    d, hidden = 8, 4
    head = PairHead(mean=np.zeros(2 * d + 1, np.float32), scale=np.ones(2 * d + 1, np.float32),
                    w1=rng.standard_normal((2 * d + 1, hidden)).astype(np.float32),
                    b1=np.zeros(hidden, np.float32), w2=rng.standard_normal(hidden).astype(np.float32), b2=0.5)
    ko, en = _unit(rng, 6, d), _unit(rng, 6, d)
    # The GELU by hand (exact, erf) against the head's own numpy path.
    import math

    h = head_inputs(ko, en) @ head.w1 + head.b1
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(h)
    np.testing.assert_allclose(head.logit(ko, en), gelu @ head.w2 + head.b2, rtol=1e-5, atol=1e-5)
    fb = FeatureBuilder(head=head, hub_mean={"head_use": -3.0})
    sc = PairScorer(name="toy_head", feature_names=("cos_use", "head_use"), mean=np.zeros(2), scale=np.ones(2),
                    coef=np.array([1.0, 1.0]), intercept=0.0, threshold=0.5, builder=fb)
    cos = np.einsum("ij,ij->i", ko, en)
    langs = (["ko", "en"] * 3, ["en", "ko"] * 3)  # either side may be the Korean one
    a = [ko[i] if i % 2 == 0 else en[i] for i in range(6)]
    b = [en[i] if i % 2 == 0 else ko[i] for i in range(6)]
    x = sc.features(PairBatch(["x"] * 6, ["y"] * 6, *langs, cos, emb_use=(np.array(a), np.array(b))))
    np.testing.assert_allclose(x[:, 1], head.logit(ko, en), rtol=1e-5, atol=1e-5)
    assert np.all(sc.features(PairBatch(["x"] * 6, ["y"] * 6, *langs, cos))[:, 1] == -3.0)  # no vectors: imputed
    path = tmp_path / "head.npz"
    sc.save(path)
    again = PairScorer.load(path)
    np.testing.assert_allclose(again.features(PairBatch(["x"] * 6, ["y"] * 6, *langs, cos, emb_use=(np.array(a), np.array(b)))),
                               x, rtol=1e-6)
    headless = PairScorer(name="broken", feature_names=("head_use",), mean=np.zeros(1), scale=np.ones(1),
                          coef=np.ones(1), intercept=0.0, threshold=0.5, builder=FeatureBuilder())
    with pytest.raises(ValueError, match="no pair head"):
        headless.save(tmp_path / "broken.npz")


# ------------------------------------------------------------------ packaged artefact
@needs_artefact
def test_packaged_artefact_loads_small_and_shapes() -> None:
    assert DEFAULT_ARTEFACT.stat().st_size < 5 * 2**20
    sc = PairScorer.load()
    assert 0.0 < sc.threshold < 1.0
    assert {"p97", "issue3", "p99_all_sets"} <= set(sc.alt_thresholds)
    assert set(sc.feature_names) <= set(ALL_FEATURES)
    rng = np.random.default_rng(2)
    ea, eb = _unit(rng, 4), _unit(rng, 4)
    cos = np.einsum("ij,ij->i", ea, eb)
    a = ["나는 그의 우산이 좋다.", "주가가 3% 올랐다.", "서울은 맑다.", "톰은 학교에 갔다."]
    b = ["I like his umbrella.", "Shares rose 3%.", "It is sunny in Seoul.", "Tom went to school."]
    cos_e5 = cos if sc.uses_e5 else None
    x = sc.features(PairBatch(a, b, ["ko"] * 4, ["en"] * 4, cos, cos_e5, emb_use=(ea, eb)))
    assert x.shape == (4, len(sc.feature_names))
    s = sc.score(PairBatch(a, b, ["ko"] * 4, ["en"] * 4, cos, cos_e5, emb_use=(ea, eb)))
    assert s.shape == (4,) and np.all((s >= 0) & (s <= 1))
    # without embeddings the hub columns are imputed; the call still works
    assert sc.score(PairBatch(a, b, ["ko"] * 4, ["en"] * 4, cos, cos_e5)).shape == (4,)


@needs_artefact
def test_packaged_scorer_monotone_in_cosine_and_lexical_evidence() -> None:
    sc = PairScorer.load()
    n = 21
    cos = np.linspace(0.0, 1.0, n)
    a = ["삼성전자는 3분기 영업이익이 10조원이라고 밝혔다."] * n
    b = ["Samsung Electronics said its third-quarter operating profit was 10 trillion won."] * n
    cos_e5 = cos if sc.uses_e5 else None
    s = sc.score(PairBatch(a, b, ["ko"] * n, ["en"] * n, cos, cos_e5))
    assert np.all(np.diff(s) >= 0) and s[-1] > s[0]
    # a number contradiction never raises the score
    b_bad = ["Samsung Electronics said its third-quarter operating profit was 7 trillion won."] * n
    s_bad = sc.score(PairBatch(a, b_bad, ["ko"] * n, ["en"] * n, cos, cos_e5))
    assert np.all(s_bad <= s + 1e-6)


@pytest.mark.evaldata
@pytest.mark.skipif(not (EVAL_DATA / "tatoeba-kor-eng" / "dev.jsonl").exists(), reason="eval-data absent")
def test_group_folds_never_split_a_group() -> None:
    from research.xling.data import load_set

    ps = load_set(EVAL_DATA, "tatoeba-kor-eng")
    f = ps.folds()
    by_group: dict[str, set[int]] = {}
    for g, k in zip(ps.groups, f, strict=True):
        by_group.setdefault(g, set()).add(int(k))
    assert all(len(v) == 1 for v in by_group.values())
    assert len(set(f.tolist())) == 5


def test_the_syllable_table_is_built_once_under_concurrent_first_use() -> None:
    # The HTTP service runs dedupe beside ingestion, so two threads can be the first to need the
    # table; a reader must never see it half built (that raised IndexError). Fresh process: the
    # table is module state.
    import subprocess
    import sys

    code = ("import threading; import research.xling.pairscorer.lexical as L; errs = []\n"
            "def go():\n"
            "    try:\n"
            "        [L._hangul_skeleton('삼성전자') for _ in range(3)]\n"
            "    except Exception as e:\n"
            "        errs.append(repr(e))\n"
            "ts = [threading.Thread(target=go) for _ in range(8)]; [t.start() for t in ts]; [t.join() for t in ts]\n"
            "print(len(errs), len(L._SYL_SKEL))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                         text=True, check=True, timeout=120).stdout.split()
    assert out == ["0", "11172"]
