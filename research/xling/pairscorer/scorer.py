"""Calibrated Korean/English pair scorer for the embedding stage (pure numpy at run time).

For a candidate pair (new item, cluster representative) the engine already has the
USE-multilingual v3 embeddings and their cosine. :class:`PairScorer` turns them, plus
cheap lexical evidence, into a calibrated probability that the two texts are
translations / the same item, and ships ONE threshold chosen for precision >= 0.99
on group-held-out dev validation of the news sets (see ``docs/xling.md``).

Features of a cross-lingual pair, oriented (Korean side, English side):

* ``cos_use``: USE cosine;
* ``hub_ko_use`` / ``hub_en_use``: hubness of each side, the mean cosine of its
  ``hub_k`` nearest neighbours in a reference bank of the *other* language (the
  CSLS correction terms, learned weights instead of the fixed ``2cos - r_x - r_y``);
* optionally the same three for multilingual-e5-small (``*_e5``);
* lexical evidence from :mod:`research.xling.pairscorer.lexical`.

Same-language pairs are outside what the logistic model was trained on: for them
:meth:`PairScorer.score` is a monotone map of ``cos_use`` that crosses
:attr:`PairScorer.threshold` exactly at :attr:`PairScorer.mono_cos_threshold` (the
plain-cosine threshold recommended for issue 3), i.e. plain-cosine behaviour.

The artefact is one ``.npz`` (LR weights, standardisation, threshold and the
float16 reference banks); no sklearn is needed to load or run it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from research.xling.pairscorer.lexical import LEXICAL_FEATURES, lexical_features

__all__ = ["ALL_FEATURES", "DEFAULT_ARTEFACT", "FeatureBuilder", "PairBatch", "PairScorer"]

DEFAULT_ARTEFACT = Path(__file__).resolve().parent / "scorer.npz"

_EMB_FEATURES = ("cos_use", "hub_ko_use", "hub_en_use", "cos_e5", "hub_ko_e5", "hub_en_e5")
_LEX_EXTRA = ("len_dev", "log_len_en")
#: Every column FeatureBuilder can produce; a trained scorer uses a subset (``feature_names``).
#: ``head_use`` is the logit of a :class:`PairHead` over the two USE vectors.
ALL_FEATURES: tuple[str, ...] = _EMB_FEATURES + LEXICAL_FEATURES + _LEX_EXTRA + ("head_use",)


def head_inputs(ko: np.ndarray, en: np.ndarray) -> np.ndarray:
    """``[ko * en, |ko - en|, cos]`` of L2-normalised vectors: a pair head's input rows."""
    ko, en = np.asarray(ko, dtype=np.float32), np.asarray(en, dtype=np.float32)
    cos = np.einsum("ij,ij->i", ko, en)[:, None]
    return np.concatenate([ko * en, np.abs(ko - en), cos], axis=1)


@dataclass
class PairHead:
    """A one-hidden-layer MLP over :func:`head_inputs` (trained by ``research.xling.pairmlp``).

    Inputs are standardised with ``mean`` / ``scale``; the hidden layer uses the exact (erf)
    GELU, as torch's default does, so the numpy logits equal the trained network's.
    """

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray  # (inputs, hidden)
    b1: np.ndarray
    w2: np.ndarray  # (hidden,)
    b2: float

    def __post_init__(self) -> None:
        n_in, hidden = self.w1.shape
        if self.mean.shape != (n_in,) or self.scale.shape != (n_in,) or self.b1.shape != (hidden,) \
                or self.w2.shape != (hidden,):
            raise ValueError(f"pair head shapes disagree: w1 {self.w1.shape}, mean {self.mean.shape}, "
                             f"scale {self.scale.shape}, b1 {self.b1.shape}, w2 {self.w2.shape}")

    def logit(self, ko: np.ndarray, en: np.ndarray) -> np.ndarray:
        """Logit that a Korean row and an English row are the same item."""
        return self.logit_from_inputs(head_inputs(ko, en))

    def logit_from_inputs(self, x: np.ndarray) -> np.ndarray:
        """The same, from ready-made :func:`head_inputs` rows."""
        from scipy.special import erf

        h = ((x - self.mean) / self.scale) @ self.w1 + self.b1
        h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
        return (h @ self.w2 + self.b2).astype(np.float32)


def _nonspace_len(s: str) -> int:
    return sum(1 for c in s if not c.isspace())


def _hub(emb: np.ndarray, bank: np.ndarray, k: int) -> np.ndarray:
    """Mean cosine of each row's ``k`` nearest neighbours in ``bank`` (CSLS r-term)."""
    if len(emb) == 0:
        return np.zeros(0, np.float32)
    sims = emb.astype(np.float32) @ bank.astype(np.float32).T
    k = min(k, bank.shape[0])
    top = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:]
    return top.mean(axis=1).astype(np.float32)


@dataclass
class FeatureBuilder:
    """Builds :data:`ALL_FEATURES` columns; holds the reference banks for the hubness terms.

    ``banks`` maps ``"use_ko" | "use_en" | "e5_ko" | "e5_en"`` to L2-normalised rows.
    ``len_mu`` is the median ``log((ko_chars+1)/(en_chars+1))`` of dev translations.
    ``hub_mean`` holds the value imputed for a hub column when embeddings are not passed.
    """

    banks: dict[str, np.ndarray] = field(default_factory=dict)
    hub_k: int = 10
    len_mu: float = -0.7
    hub_mean: dict[str, float] = field(default_factory=dict)
    head: PairHead | None = None

    def build(
        self,
        a_texts: Sequence[str],
        b_texts: Sequence[str],
        a_langs: Sequence[str],
        b_langs: Sequence[str],
        cos_use: np.ndarray,
        cos_e5: np.ndarray | None = None,
        emb: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
        lex: np.ndarray | None = None,
    ) -> np.ndarray:
        """(n, len(ALL_FEATURES)) float32; ``emb`` maps "use"/"e5" to (a_rows, b_rows).

        ``lex`` may pass precomputed :func:`lexical_features` rows (training reuses them).
        """
        n = len(a_texts)
        if not (len(b_texts) == len(a_langs) == len(b_langs) == len(cos_use) == n):
            raise ValueError("a_texts, b_texts, a_langs, b_langs and cos_use must have the same length")
        out = np.zeros((n, len(ALL_FEATURES)), dtype=np.float32)
        col = {name: i for i, name in enumerate(ALL_FEATURES)}
        out[:, col["cos_use"]] = np.asarray(cos_use, dtype=np.float32)
        if cos_e5 is not None:
            out[:, col["cos_e5"]] = np.asarray(cos_e5, dtype=np.float32)
        a_is_ko = np.array([la == "ko" for la in a_langs], dtype=bool)
        for model in ("use", "e5"):
            names = (f"hub_ko_{model}", f"hub_en_{model}")
            pair = (emb or {}).get(model)
            if pair is None or f"{model}_ko" not in self.banks:
                for nm in names:
                    out[:, col[nm]] = self.hub_mean.get(nm, 0.0)
                continue
            ea, eb = (np.asarray(x, dtype=np.float32) for x in pair)
            ko = np.where(a_is_ko[:, None], ea, eb)
            en = np.where(a_is_ko[:, None], eb, ea)
            out[:, col[names[0]]] = _hub(ko, self.banks[f"{model}_en"], self.hub_k)
            out[:, col[names[1]]] = _hub(en, self.banks[f"{model}_ko"], self.hub_k)
        use_pair = (emb or {}).get("use")
        if self.head is not None and use_pair is not None:
            ea, eb = (np.asarray(x, dtype=np.float32) for x in use_pair)
            out[:, col["head_use"]] = self.head.logit(np.where(a_is_ko[:, None], ea, eb),
                                                      np.where(a_is_ko[:, None], eb, ea))
        else:
            out[:, col["head_use"]] = self.hub_mean.get("head_use", 0.0)
        if lex is None:
            lex = lexical_features(a_texts, b_texts, a_langs, b_langs)
        j0 = col[LEXICAL_FEATURES[0]]
        out[:, j0 : j0 + len(LEXICAL_FEATURES)] = lex
        lr = lex[:, LEXICAL_FEATURES.index("len_logratio")]
        out[:, col["len_dev"]] = np.abs(lr - self.len_mu)
        en_len = [
            _nonspace_len(b if la == "ko" else a) for a, b, la in zip(a_texts, b_texts, a_langs, strict=True)
        ]
        out[:, col["log_len_en"]] = np.log1p(np.asarray(en_len, dtype=np.float32))
        return out


@dataclass(frozen=True)
class PairBatch:
    """``n`` candidate pairs as :class:`PairScorer` takes them (side a, side b, row by row).

    One object for what :meth:`PairScorer.features` and :meth:`PairScorer.score` both take, so the
    two cannot drift apart. ``cos_use`` (and ``cos_e5`` when the scorer :attr:`~PairScorer.uses_e5`)
    are the pairs' cosines; ``emb_use`` / ``emb_e5`` = (rows of a, rows of b), L2-normalised, are
    needed for the hubness columns: without them those columns are imputed with their dev mean
    (the score then loses the hubness correction; see docs/xling.md for the cost).
    """

    a_texts: Sequence[str]
    b_texts: Sequence[str]
    a_langs: Sequence[str]
    b_langs: Sequence[str]
    cos_use: np.ndarray
    cos_e5: np.ndarray | None = None
    emb_use: tuple[np.ndarray, np.ndarray] | None = None
    emb_e5: tuple[np.ndarray, np.ndarray] | None = None


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


class PairScorer:
    """Logistic-regression pair scorer over :data:`ALL_FEATURES` (a subset).

    ``threshold`` (on the calibrated probability) was chosen so that precision >= 0.99
    on the group-held-out (out-of-fold) dev predictions of both news sets (NTREX, Park);
    ``alt_thresholds`` holds other operating points (``p99_all_sets``, ``p97``, ``issue3``).
    """

    name: str
    threshold: float

    def __init__(
        self,
        name: str,
        feature_names: Sequence[str],
        mean: np.ndarray,
        scale: np.ndarray,
        coef: np.ndarray,
        intercept: float,
        threshold: float,
        builder: FeatureBuilder,
        mono_cos_threshold: float = 0.7,
        mono_slope: float = 20.0,
        alt_thresholds: dict[str, float] | None = None,
    ) -> None:
        self.name = name
        self.feature_names = tuple(feature_names)
        unknown = set(self.feature_names) - set(ALL_FEATURES)
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}")
        self._cols = np.array([ALL_FEATURES.index(f) for f in self.feature_names], dtype=int)
        self.mean = np.asarray(mean, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.coef = np.asarray(coef, dtype=np.float64)
        self.intercept = float(intercept)
        self.threshold = float(threshold)
        self.builder = builder
        self.mono_cos_threshold = float(mono_cos_threshold)
        self.mono_slope = float(mono_slope)
        #: other operating points chosen on the same out-of-fold predictions ("p97", "issue3")
        self.alt_thresholds = dict(alt_thresholds or {})

    @property
    def uses_e5(self) -> bool:
        """True when the scorer needs multilingual-e5-small cosines at run time."""
        return any(f.endswith("_e5") for f in self.feature_names)

    # ------------------------------------------------------------------ io
    @classmethod
    def load(cls, path: Path | None = None) -> PairScorer:
        """Load a scorer artefact (the packaged ``research/xling/pairscorer/scorer.npz`` by default)."""
        p = Path(path) if path is not None else DEFAULT_ARTEFACT
        with np.load(p, allow_pickle=False) as z:
            banks = {k[5:]: z[k].astype(np.float32) for k in z.files if k.startswith("bank_")}
            hub_names = [str(x) for x in z["hub_mean_names"]]
            head = None
            if "head_w1" in z.files:
                head = PairHead(mean=z["head_mean"], scale=z["head_scale"], w1=z["head_w1"], b1=z["head_b1"],
                                w2=z["head_w2"], b2=float(z["head_b2"]))
            builder = FeatureBuilder(
                banks=banks,
                hub_k=int(z["hub_k"]),
                len_mu=float(z["len_mu"]),
                hub_mean=dict(zip(hub_names, (float(x) for x in z["hub_mean_values"]), strict=True)),
                head=head,
            )
            return cls(
                name=str(z["name"]),
                feature_names=[str(x) for x in z["feature_names"]],
                mean=z["mean"],
                scale=z["scale"],
                coef=z["coef"],
                intercept=float(z["intercept"]),
                threshold=float(z["threshold"]),
                builder=builder,
                mono_cos_threshold=float(z["mono_cos_threshold"]),
                mono_slope=float(z["mono_slope"]),
                alt_thresholds=dict(
                    zip(
                        (str(x) for x in z["alt_threshold_names"]),
                        (float(x) for x in z["alt_threshold_values"]),
                        strict=True,
                    )
                ),
            )

    def save(self, path: Path) -> None:
        """Write the artefact (banks as float16, weights as float64)."""
        hub_names = sorted(self.builder.hub_mean)
        arrays: dict[str, np.ndarray] = {
            "name": np.array(self.name),
            "feature_names": np.array(self.feature_names),
            "mean": self.mean,
            "scale": self.scale,
            "coef": self.coef,
            "intercept": np.array(self.intercept),
            "threshold": np.array(self.threshold),
            "hub_k": np.array(self.builder.hub_k),
            "len_mu": np.array(self.builder.len_mu),
            "hub_mean_names": np.array(hub_names),
            "hub_mean_values": np.array([self.builder.hub_mean[k] for k in hub_names]),
            "mono_cos_threshold": np.array(self.mono_cos_threshold),
            "mono_slope": np.array(self.mono_slope),
            "alt_threshold_names": np.array(sorted(self.alt_thresholds), dtype=str),
            "alt_threshold_values": np.array([self.alt_thresholds[k] for k in sorted(self.alt_thresholds)]),
        }
        head = self.builder.head
        if "head_use" in self.feature_names:
            if head is None:
                raise ValueError(f"scorer {self.name!r} uses head_use but its builder has no pair head")
            arrays.update({"head_mean": head.mean, "head_scale": head.scale, "head_w1": head.w1,
                           "head_b1": head.b1, "head_w2": head.w2, "head_b2": np.array(head.b2)})
        needed = {m for m in ("use", "e5") if f"hub_ko_{m}" in self.feature_names}
        for key, bank in self.builder.banks.items():
            if key.split("_")[0] in needed:
                arrays[f"bank_{key}"] = bank.astype(np.float16)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        # numpy's stubs give savez_compressed an allow_pickle keyword that **arrays could fill.
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    # ------------------------------------------------------------ scoring
    def features(self, pairs: PairBatch) -> np.ndarray:
        """(n, len(feature_names)) raw feature matrix of this scorer."""
        if self.uses_e5 and pairs.cos_e5 is None:
            raise ValueError(f"scorer {self.name!r} needs cos_e5 (multilingual-e5-small cosines)")
        emb: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if pairs.emb_use is not None:
            emb["use"] = pairs.emb_use
        if pairs.emb_e5 is not None:
            emb["e5"] = pairs.emb_e5
        full = self.builder.build(pairs.a_texts, pairs.b_texts, pairs.a_langs, pairs.b_langs, pairs.cos_use,
                                  pairs.cos_e5, emb)
        return full[:, self._cols]

    def _logit_from_features(self, x: np.ndarray) -> np.ndarray:
        return ((x - self.mean) / self.scale) @ self.coef + self.intercept

    def score(self, pairs: PairBatch) -> np.ndarray:
        """Calibrated probability in [0, 1]; merge when ``score >= self.threshold``."""
        cos_use = np.asarray(pairs.cos_use, dtype=np.float64)
        x = self.features(replace(pairs, cos_use=cos_use))
        p = _sigmoid(self._logit_from_features(x.astype(np.float64)))
        mono = np.array([la == lb for la, lb in zip(pairs.a_langs, pairs.b_langs, strict=True)], dtype=bool)
        if mono.any():
            t = min(max(self.threshold, 1e-9), 1 - 1e-9)
            z = self.mono_slope * (cos_use[mono] - self.mono_cos_threshold) + math.log(t / (1 - t))
            p[mono] = _sigmoid(z)
        return p.astype(np.float32)

    def __repr__(self) -> str:
        return f"PairScorer(name={self.name!r}, features={len(self.feature_names)}, threshold={self.threshold:.4f})"
