"""Experiment (issue 8): a Korean-English lexicon learned from the dev parallel pairs.

The scorer's lexical features (``research.xling.pairscorer.lexical``) only see numbers, Latin tokens and
transliterated names. This module learns word translations from the *positive* pairs of the
training folds (IBM Model 1, EM, both directions) and turns them into per-pair coverage
features that the stacked LR can weigh:

* Korean side: every Hangul word (eojeol) gives its prefixes of 1-3 syllables (particles and
  endings attach at the end, so a prefix is a cheap stem); Latin words are kept whole
  (``#word``) and count as their own translation;
* English side: lowercased content words (stopwords dropped, a light ``s/ed/ing`` stemmer);
* forward ``t(e|k)``: for every English content word, its best translation probability among
  the Korean side's tokens; reverse ``t(k|e)``: for every Korean word, the best English word's
  probability summed over that word's prefixes. Only words seen at least twice in the
  lexicon's training pairs count ("known"); pairs with no known word get NaN, which the
  caller imputes.

Columns (:data:`LEXICON_FEATURES`): share of known English words covered (best ``t`` >=
:data:`CUT`), their mean best ``t``, the Model 1 log-likelihood per known English word,
log1p of the number of uncovered known English words, and the same share / mean / uncovered
count for the Korean words.

The experiment (``python -m research.xling.lexicon``) adds these columns to ``full_lr_use`` and
to ``stacked_use`` (the shipped scorer) on the same group folds as ``research.xling.pairmlp``.
Every lexicon is learned strictly inside the training folds and *nested*: the LR's training
rows of outer fold k, fold j, are described by a lexicon that saw neither fold k nor fold j
(the same scheme as the pair head), and a lexicon never learns from a pair that shares a text
with the rows it describes (hard negatives reuse texts across groups). The KorSTS ko-en
false-merge rate comes from the models refitted on all dev rows, at the out-of-fold news
threshold, as ``train.check_sets`` reports it. No artefact is written; results go to stdout.

    python -m research.xling.lexicon --data ../shared/eval-data [--no-head] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from research.xling.data import PairSet

__all__ = [
    "CUT",
    "LEXICON_FEATURES",
    "Corpus",
    "Lexicon",
    "en_words",
    "fit_lexicon",
    "ko_words",
    "lexicon_features",
]

#: Column names of :func:`lexicon_features`, in order.
LEXICON_FEATURES: tuple[str, ...] = (
    "lex_en_cov",  # share of known English content words with best t(e|k) >= CUT
    "lex_en_mean",  # mean best t(e|k) over known English content words
    "lex_en_ll",  # Model 1 log-likelihood per known English word, log(1e-4 + mean_k t(e|k))
    "lex_en_uncov",  # log1p(count of known English words with best t(e|k) < CUT)
    "lex_ko_cov",  # share of known Korean words with best sum_prefix t(k|e) >= CUT
    "lex_ko_mean",  # mean of that best value over known Korean words
    "lex_ko_uncov",  # log1p(count of known Korean words below CUT)
)
#: A word counts as translated when its best translation probability reaches this.
CUT = 0.1
#: EM iterations of IBM Model 1 (each direction).
EM_ITERS = 6
#: A word is "known" when it occurs in at least this many of the lexicon's training pairs.
MIN_COUNT = 2
#: Caps per text (document-level pairs): unique English content words / unique Korean words.
EN_CAP = 80
KO_CAP = 100
NULL = 0
#: Lexicon columns of the experiment's variants: all of them (``*_lex``), and the two
#: threshold-free summaries, one per direction (``*_lex2``), chosen before any run with them.
ALL_LEX = list(range(len(LEXICON_FEATURES)))
SMALL_LEX = [LEXICON_FEATURES.index("lex_en_ll"), LEXICON_FEATURES.index("lex_ko_mean")]

_HANGUL = re.compile(r"[가-힣]+|[A-Za-z][A-Za-z0-9'\-]*")
_EN_WORD = re.compile(r"[a-z][a-z'\-]*[a-z]|[a-z]")
_STOP = frozenset(
    """a an the and or but if then than so as of in on at to for by with from into onto over under about
    after before while during between through against among up down out off again further once here there
    when where why how all any both each few more most other some such no nor not only own same too very
    can will just don should now is are was were be been being am have has had having do does did doing
    would could might must shall may i me my mine myself we us our ours ourselves you your yours yourself
    he him his himself she her hers herself it its itself they them their theirs themselves what which who
    whom whose this that these those 's s t ll re ve d m also""".split()  # noqa: SIM905
)


def _stem(w: str) -> str:
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ed"):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def en_words(text: str) -> list[str]:
    """Unique stemmed English content words, in order of first occurrence."""
    out: dict[str, None] = {}
    for w in _EN_WORD.findall(text.lower()):
        if w in _STOP or len(w) < 2:
            continue
        s = _stem(w)
        if s not in _STOP:
            out.setdefault(s, None)
    return list(out)


def ko_words(text: str) -> list[list[str]]:
    """Unique words of the Korean side, each as its sub-word tokens.

    A Hangul word gives its 1-3 syllable prefixes; a Latin word gives ``#<stemmed lowercase>``.
    """
    seen: dict[str, list[str]] = {}
    for w in _HANGUL.findall(text):
        if w in seen:
            continue
        if "가" <= w[0] <= "힣":
            seen[w] = [w[:i] for i in range(1, min(3, len(w)) + 1)]
        else:
            seen[w] = ["#" + _stem(w.lower())]
    return list(seen.values())


@dataclass
class Vocab:
    """String -> id tables shared by a corpus and the lexicons learned on it (id 0 = NULL)."""

    ko: dict[str, int] = field(default_factory=lambda: {"<null>": NULL})
    en: dict[str, int] = field(default_factory=lambda: {"<null>": NULL})

    def ko_id(self, tok: str, grow: bool) -> int:
        if grow:
            return self.ko.setdefault(tok, len(self.ko))
        return self.ko.get(tok, -1)

    def en_id(self, tok: str, grow: bool) -> int:
        if grow:
            return self.en.setdefault(tok, len(self.en))
        return self.en.get(tok, -1)


class Corpus:
    """(Korean, English) pairs encoded once into the flat entry arrays that EM and the features use.

    Forward entries: every (English word position, Korean token or NULL) of a row, grouped by
    position. Reverse entries: every (Korean word, English word or NULL, prefix token), grouped
    by Korean word, then English word. Unknown strings get id -1 when ``grow`` is False.
    """

    def __init__(self, ko_texts: Sequence[str], en_texts: Sequence[str], vocab: Vocab | None = None,
                 grow: bool = True) -> None:
        if len(ko_texts) != len(en_texts):
            raise ValueError("ko_texts and en_texts must have the same length")
        self.vocab = vocab if vocab is not None else Vocab()
        v = self.vocab
        cache_ko: dict[str, tuple[list[list[int]], bool]] = {}
        cache_en: dict[str, tuple[list[int], bool]] = {}
        f_pos, f_k, f_e, e_row, e_id = [], [], [], [], []
        r_word, r_e, r_k, r_pos, w_row, w_last = [], [], [], [], [], []
        self.truncated = np.zeros(len(ko_texts), dtype=bool)
        n_pos = n_word = n_kpos = 0
        for row, (ko, en) in enumerate(zip(ko_texts, en_texts, strict=True)):
            if ko not in cache_ko:
                words = ko_words(ko)
                cache_ko[ko] = ([[v.ko_id(t, grow) for t in w] for w in words[:KO_CAP]], len(words) > KO_CAP)
            if en not in cache_en:
                ws = en_words(en)
                cache_en[en] = ([v.en_id(w, grow) for w in ws[:EN_CAP]], len(ws) > EN_CAP)
            kw, ktr = cache_ko[ko]
            ew, etr = cache_en[en]
            self.truncated[row] = ktr or etr
            ktoks = np.array([NULL, *dict.fromkeys(t for w in kw for t in w)], dtype=np.int32)
            ea = np.array(ew, dtype=np.int32)
            # forward: position-major, Korean tokens (NULL first) inside
            f_pos.append(np.repeat(np.arange(n_pos, n_pos + len(ea), dtype=np.int32), len(ktoks)))
            f_k.append(np.tile(ktoks, len(ea)))
            f_e.append(np.repeat(ea, len(ktoks)))
            e_row.append(np.full(len(ea), row, dtype=np.int32))
            e_id.append(ea)
            n_pos += len(ea)
            # reverse: Korean word-major, then English word (NULL first), then the word's prefixes
            ea0 = np.r_[np.int32(NULL), ea].astype(np.int32)
            for w in kw:
                wa = np.array(w, dtype=np.int32)
                r_word.append(np.full(len(ea0) * len(wa), n_word, dtype=np.int32))
                r_e.append(np.repeat(ea0, len(wa)))
                r_k.append(np.tile(wa, len(ea0)))
                r_pos.append(np.tile(np.arange(n_kpos, n_kpos + len(wa), dtype=np.int32), len(ea0)))
                w_row.append(row)
                w_last.append(w[-1])
                n_word += 1
                n_kpos += len(wa)
        cat = (lambda xs: np.concatenate(xs).astype(np.int32) if xs else np.zeros(0, np.int32))  # noqa: E731
        self.n = len(ko_texts)
        self.f_pos, self.f_k, self.f_e = cat(f_pos), cat(f_k), cat(f_e)
        self.e_row, self.e_id = cat(e_row), cat(e_id)
        self.r_word, self.r_e, self.r_k, self.r_pos = cat(r_word), cat(r_e), cat(r_k), cat(r_pos)
        self.w_row = np.array(w_row, dtype=np.int32)
        self.w_last = np.array(w_last, dtype=np.int32)  # longest prefix: decides whether a word is known
        self.n_kpos = n_kpos
        # identity: a Latin token "#w" on the Korean side translates the English word w
        k2e = np.full(len(v.ko), -1, dtype=np.int32)
        for tok, i in v.ko.items():
            if tok.startswith("#") and tok[1:] in v.en:
                k2e[i] = v.en[tok[1:]]
        self._k2e = k2e

    def ident(self, k: np.ndarray, e: np.ndarray) -> np.ndarray:
        ok = (k >= 0) & (k < len(self._k2e))
        out = np.zeros(len(k), dtype=bool)
        out[ok] = (self._k2e[k[ok]] == e[ok]) & (e[ok] > NULL)
        return out


@dataclass
class Lexicon:
    """Translation tables learned by :func:`fit_lexicon`: sparse ``t(e|k)`` and ``t(k|e)``."""

    vocab: Vocab
    fwd_keys: np.ndarray  # sorted int64 keys k * n_en + e
    fwd_t: np.ndarray
    rev_keys: np.ndarray  # sorted int64 keys e * n_ko + k
    rev_t: np.ndarray
    n_ko: int
    n_en: int
    en_count: np.ndarray  # training pairs holding each English word
    ko_count: np.ndarray  # training pairs holding each Korean token

    def t_fwd(self, k: np.ndarray, e: np.ndarray) -> np.ndarray:
        return _lookup(self.fwd_keys, self.fwd_t, k.astype(np.int64) * self.n_en + e, (k >= 0) & (e >= 0)
                       & (k < self.n_ko) & (e < self.n_en))

    def t_rev(self, k: np.ndarray, e: np.ndarray) -> np.ndarray:
        return _lookup(self.rev_keys, self.rev_t, e.astype(np.int64) * self.n_ko + k, (k >= 0) & (e >= 0)
                       & (k < self.n_ko) & (e < self.n_en))

    def translations(self, ko_token: str, top: int = 5) -> list[tuple[str, float]]:
        """The ``top`` English words with the highest ``t(e|ko_token)`` (for inspection and tests)."""
        k = self.vocab.ko.get(ko_token)
        if k is None:
            return []
        lo, hi = np.searchsorted(self.fwd_keys, [k * self.n_en + 1, (k + 1) * self.n_en])
        inv = {i: s for s, i in self.vocab.en.items()}
        order = np.argsort(-self.fwd_t[lo:hi])[:top]
        return [(inv[int(self.fwd_keys[lo + i] % self.n_en)], float(self.fwd_t[lo + i])) for i in order]


def _lookup(keys: np.ndarray, vals: np.ndarray, q: np.ndarray, valid: np.ndarray) -> np.ndarray:
    if len(keys) == 0:
        return np.zeros(len(q), dtype=np.float64)
    i = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
    return np.where(valid & (keys[i] == q), vals[i], 0.0)


def _em(pos: np.ndarray, cond: np.ndarray, gen: np.ndarray, n_cond: int, n_gen: int,
        iters: int) -> tuple[np.ndarray, np.ndarray]:
    """IBM Model 1: ``t(gen|cond)`` from entries (generated position, conditioning token, generated token).

    Returns sorted keys ``cond * n_gen + gen`` and their probabilities.
    """
    if len(pos) == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    keys, inv = np.unique(cond.astype(np.int64) * n_gen + gen, return_inverse=True)
    kc = keys // n_gen
    _, pos_c = np.unique(pos, return_inverse=True)
    t = np.ones(len(keys))
    for _ in range(iters):
        tv = t[inv]
        den = np.bincount(pos_c, tv)
        c = np.bincount(inv, tv / den[pos_c], minlength=len(keys))
        tot = np.bincount(kc, c, minlength=n_cond)
        t = c / np.maximum(tot[kc], 1e-300)
    return keys, t


def fit_lexicon(corpus: Corpus | _Concat, rows: np.ndarray, iters: int = EM_ITERS) -> Lexicon:
    """Learn both Model 1 tables from ``corpus`` rows ``rows`` (boolean mask; positive pairs only).

    Truncated rows (document-level pairs above the caps) are skipped.
    """
    rows = np.asarray(rows, dtype=bool) & ~corpus.truncated
    n_ko, n_en = len(corpus.vocab.ko), len(corpus.vocab.en)
    fsel = rows[corpus.e_row][corpus.f_pos]
    fk, fe = corpus.f_k[fsel], corpus.f_e[fsel]
    fwd_keys, fwd_t = _em(corpus.f_pos[fsel], fk, fe, n_ko, n_en, iters)
    rsel = rows[corpus.w_row][corpus.r_word]
    rev_keys, rev_t = _em(corpus.r_pos[rsel], corpus.r_e[rsel], corpus.r_k[rsel], n_en, n_ko, iters)
    # pair counts: English words per row are unique; Korean tokens per row via unique (row, token)
    en_count = np.bincount(corpus.e_id[rows[corpus.e_row]], minlength=n_en)
    kt = np.unique(corpus.w_row[corpus.r_word[rsel]].astype(np.int64) * n_ko + corpus.r_k[rsel])
    ko_count = np.bincount((kt % n_ko).astype(np.int64), minlength=n_ko)
    return Lexicon(vocab=corpus.vocab, fwd_keys=fwd_keys, fwd_t=fwd_t, rev_keys=rev_keys, rev_t=rev_t,
                   n_ko=n_ko, n_en=n_en, en_count=en_count, ko_count=ko_count)


def _segments(group: np.ndarray) -> np.ndarray:
    """Start index of each run of equal, consecutive values in ``group``."""
    return np.flatnonzero(np.r_[True, group[1:] != group[:-1]])



def _coverage(out: np.ndarray, cols: tuple[int, int, int], rows: np.ndarray, best: np.ndarray, n: int,
              mean_col: tuple[int, np.ndarray] | None = None) -> None:
    """Per pair row: share of known words covered (best >= CUT), mean best, log1p(uncovered)
    into ``out[:, cols]``; ``mean_col`` (column, values) adds one more per-row mean."""
    nk = np.bincount(rows, minlength=n).astype(float)
    cov = np.bincount(rows, best >= CUT, minlength=n)
    has = nk > 0
    out[has, cols[0]] = cov[has] / nk[has]
    out[has, cols[1]] = np.bincount(rows, best, minlength=n)[has] / nk[has]
    if mean_col is not None:
        out[has, mean_col[0]] = np.bincount(rows, mean_col[1], minlength=n)[has] / nk[has]
    out[has, cols[2]] = np.log1p(nk[has] - cov[has])

def lexicon_features(lex: Lexicon, corpus: Corpus) -> np.ndarray:
    """(corpus.n, len(LEXICON_FEATURES)) float64; NaN where a side has no known word."""
    out = np.full((corpus.n, len(LEXICON_FEATURES)), np.nan)
    # ---- forward: each English position, its best t(e|k) and the Model 1 likelihood
    if len(corpus.f_pos):
        t = lex.t_fwd(corpus.f_k, corpus.f_e)
        real = corpus.f_k != NULL
        best_in = np.where(real, np.maximum(t, corpus.ident(corpus.f_k, corpus.f_e)), 0.0)
        st = _segments(corpus.f_pos)
        pos = corpus.f_pos[st]
        best = np.maximum.reduceat(best_in, st)
        ll = np.log(1e-4 + np.add.reduceat(t, st) / np.diff(np.r_[st, len(t)]))
        e = corpus.e_id[pos]
        known = (e >= 0) & (e < lex.n_en)
        known[known] = lex.en_count[e[known]] >= MIN_COUNT
        _coverage(out, (0, 1, 3), corpus.e_row[pos][known], best[known], corpus.n, mean_col=(2, ll[known]))
    # ---- reverse: each Korean word, max over English words of sum over its prefixes of t(k|e)
    if len(corpus.r_word):
        t = lex.t_rev(corpus.r_k, corpus.r_e)
        t = np.maximum(t, corpus.ident(corpus.r_k, corpus.r_e))
        grp = corpus.r_word.astype(np.int64) * (lex.n_en + 1) + (corpus.r_e + 1)
        st = _segments(grp)
        s = np.add.reduceat(t, st)
        s[corpus.r_e[st] == NULL] = 0.0
        wst = _segments(corpus.r_word[st])
        best = np.minimum(np.maximum.reduceat(s, wst), 1.0)
        words = corpus.r_word[st][wst]
        k = corpus.w_last[words]
        known = (k >= 0) & (k < lex.n_ko)
        known[known] = lex.ko_count[k[known]] >= MIN_COUNT
        _coverage(out, (4, 5, 6), corpus.w_row[words][known], best[known], corpus.n)
    return out


# ============================================================================ experiment
def _oriented(ps: PairSet) -> tuple[list[str], list[str]]:
    """(Korean texts, English texts) of every row of a PairSet."""
    ko, en = [], []
    for a, b, la in zip(ps.a_texts, ps.b_texts, ps.a_lang, strict=True):
        ko.append(a if la == "ko" else b)
        en.append(b if la == "ko" else a)
    return ko, en


def _impute(x_tr: np.ndarray, x_te: Sequence[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """NaN -> the training rows' column mean (0 when a column is all NaN)."""
    mu = np.nan_to_num(np.nanmean(x_tr, axis=0)) if len(x_tr) else 0.0
    fill = (lambda x: np.where(np.isnan(x), mu, x))  # noqa: E731
    return fill(x_tr), [fill(x) for x in x_te]


def run(data_dir: Path, *, hidden: int = 256, epochs: int = 10, seed: int = 0, head: bool = True,
        check: bool = True, strict: bool = True) -> dict:
    """Out-of-fold comparison of the LRs with and without the lexicon columns (see module docstring)."""
    import warnings

    from research.xling.data import N_FOLDS, TRAIN_SETS, embed_cached, load_set
    from research.xling.pairmlp import _head_logits, pair_inputs
    from research.xling.pairscorer.scorer import ALL_FEATURES
    from research.xling.train import (
        APPROACHES,
        NEWS_SETS,
        _features,
        _make_builder,
        fit_logreg,
        logreg_prob,
        pr_at,
        recall_at_precision,
        set_weights,
        shared_threshold,
    )

    warnings.filterwarnings("ignore", message="Mean of empty slice")
    t0 = time.time()
    if head:
        import torch

        torch.set_num_threads(1)
    sets = [load_set(data_dir, n) for n in TRAIN_SETS]
    for ps in sets:
        embed_cached(ps, "use")
    xs = [pair_inputs(ps) for ps in sets] if head else []
    folds = [ps.folds() for ps in sets]
    vocab = Vocab()
    corp = [Corpus(*_oriented(ps), vocab=vocab) for ps in sets]
    texts = [[(ps.a_idx[i], ps.b_idx[i]) for i in range(len(ps.labels))] for ps in sets]

    def lexicon_for(fit_masks: Sequence[np.ndarray], score_masks: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Lexicon from the positives of ``fit_masks`` (without pairs sharing a text with the scored
        rows when strict); its features for every row of every set."""
        rows = []
        for si, ps in enumerate(sets):
            m = fit_masks[si] & (ps.labels == 1)
            if strict:
                held = set(np.r_[ps.a_idx[score_masks[si]], ps.b_idx[score_masks[si]]].tolist())
                m &= np.array([a not in held and b not in held for a, b in texts[si]])
            rows.append(m)
        lex = _fit_multi(corp, rows)
        return [lexicon_features(lex, c) for c in corp]

    cols = [ALL_FEATURES.index(c) for c in APPROACHES["full_lr_use"][1]]
    cos_col = [ALL_FEATURES.index("cos_use")]
    # name -> (base columns, with the head logit, lexicon columns)
    variants: dict[str, tuple[list[int], bool, list[int]]] = {
        "use_cos_lex": (cos_col, False, ALL_LEX), "full_lr_use": (cols, False, []),
        "full_lr_use_lex": (cols, False, ALL_LEX), "full_lr_use_lex2": (cols, False, SMALL_LEX)}
    if head:
        variants |= {"stacked_use": (cols, True, []), "stacked_use_lex": (cols, True, ALL_LEX),
                     "stacked_use_lex2": (cols, True, SMALL_LEX)}
    oof = {v: [np.zeros(len(ps.labels)) for ps in sets] for v in variants}
    outer_z = [np.zeros(len(ps.labels), dtype=np.float32) for ps in sets]
    outer_l = [np.zeros((len(ps.labels), len(LEXICON_FEATURES))) for ps in sets]
    for k in range(N_FOLDS):
        tr = [f != k for f in folds]
        te = [f == k for f in folds]
        inner_z = [np.zeros(int(m.sum()), dtype=np.float32) for m in tr]
        inner_l = [np.zeros((int(m.sum()), len(LEXICON_FEATURES))) for m in tr]
        for j in range(N_FOLDS):
            if j == k:
                continue
            fit_m = [(f != k) & (f != j) for f in folds]
            sc_m = [f == j for f in folds]
            feats = lexicon_for(fit_m, sc_m)
            for si in range(len(sets)):
                inner_l[si][sc_m[si][tr[si]]] = feats[si][sc_m[si]]
            if head:
                zs = _head_logits(sets, xs, fit_m, sc_m, hidden=hidden, epochs=epochs, seed=seed + 10 * k + j)
                for si, z in enumerate(zs):
                    inner_z[si][sc_m[si][tr[si]]] = z
        feats = lexicon_for(tr, te)
        for si in range(len(sets)):
            outer_l[si][te[si]] = feats[si][te[si]]
        if head:
            for si, z in enumerate(_head_logits(sets, xs, tr, te, hidden=hidden, epochs=epochs,
                                                seed=seed + 10 * k + k)):
                outer_z[si][te[si]] = z
        fb = _make_builder(sets, tr, ["use"], seed=k)
        base_tr = [_features(ps, np.flatnonzero(m), fb, ["use"]) for ps, m in zip(sets, tr, strict=True)]
        base_te = [_features(ps, np.flatnonzero(m), fb, ["use"]) for ps, m in zip(sets, te, strict=True)]
        y = np.concatenate([ps.labels[m] for ps, m in zip(sets, tr, strict=True)])
        w = set_weights(tr)
        for name, (c, use_head, use_lex) in variants.items():
            xtr = [b[:, c] for b in base_tr]
            xte = [b[:, c] for b in base_te]
            if use_head:
                xtr = [np.c_[a, z] for a, z in zip(xtr, inner_z, strict=True)]
                xte = [np.c_[a, outer_z[si][te[si]]] for si, a in enumerate(xte)]
            if use_lex:
                xtr = [np.c_[a, lf[:, use_lex]] for a, lf in zip(xtr, inner_l, strict=True)]
                xte = [np.c_[a, outer_l[si][te[si]][:, use_lex]] for si, a in enumerate(xte)]
            xtr_all, xte = _impute(np.concatenate(xtr), xte)
            fit = fit_logreg(xtr_all, y, w)
            for si, x in enumerate(xte):
                oof[name][si][te[si]] = logreg_prob(fit, x)
        print(f"fold {k} done, {time.time() - t0:.0f} s", flush=True)
    out: dict = {"seconds_cv": round(time.time() - t0, 1), "strict": strict, "seed": seed,
                 "hidden": hidden, "epochs": epochs, "variants": {}}
    news = [si for si, ps in enumerate(sets) if ps.name in NEWS_SETS]
    for name in variants:
        row: dict = {"news_threshold": shared_threshold([(oof[name][si], sets[si].labels) for si in news], 0.99)}
        for si, ps in enumerate(sets):
            row[ps.name] = {"r_at_p99": recall_at_precision(oof[name][si], ps.labels, 0.99)[0],
                            "r_at_p97": recall_at_precision(oof[name][si], ps.labels, 0.97)[0],
                            "pr_at_news_threshold": pr_at(oof[name][si], ps.labels, row["news_threshold"])}
        out["variants"][name] = row
    if check:
        out["korsts_xl_sts"] = _korsts_check(data_dir, sets, corp, vocab, variants, outer_z, outer_l, out, xs,
                                             hidden=hidden, epochs=epochs, seed=seed, head=head)
    out["seconds"] = round(time.time() - t0, 1)
    return out


def _fit_multi(corp: Sequence[Corpus], rows: Sequence[np.ndarray]) -> Lexicon:
    """One lexicon over several corpora that share a :class:`Vocab` (their entries concatenated)."""
    merged = _Concat(corp)
    return fit_lexicon(merged, np.concatenate(rows))


class _Concat:
    """Several corpora with one vocabulary seen as one (row, position and word ids offset)."""

    def __init__(self, corp: Sequence[Corpus]) -> None:
        self.vocab = corp[0].vocab
        ro = po = wo = ko = 0
        parts: dict[str, list[np.ndarray]] = {k: [] for k in ("f_pos", "f_k", "f_e", "e_row", "e_id", "r_word",
                                                               "r_e", "r_k", "r_pos", "w_row", "w_last")}
        for c in corp:
            parts["f_pos"].append(c.f_pos + po)
            parts["f_k"].append(c.f_k)
            parts["f_e"].append(c.f_e)
            parts["e_row"].append(c.e_row + ro)
            parts["e_id"].append(c.e_id)
            parts["r_word"].append(c.r_word + wo)
            parts["r_e"].append(c.r_e)
            parts["r_k"].append(c.r_k)
            parts["r_pos"].append(c.r_pos + ko)
            parts["w_row"].append(c.w_row + ro)
            parts["w_last"].append(c.w_last)
            ro += c.n
            po += len(c.e_row)
            wo += len(c.w_row)
            ko += c.n_kpos
        for name, xs in parts.items():
            setattr(self, name, np.concatenate(xs))
        self.truncated = np.concatenate([c.truncated for c in corp])
        self.n = ro


def _korsts_check(data_dir: Path, sets: Sequence[PairSet], corp: Sequence[Corpus], vocab: Vocab, variants: dict,
                  outer_z: Sequence[np.ndarray], outer_l: Sequence[np.ndarray], res: dict, xs: Sequence[np.ndarray],
                  *, hidden: int, epochs: int, seed: int, head: bool) -> dict:
    """Refit every variant on all dev rows (as ``train_stacked`` does); KorSTS ko-en STS < 4 merged share
    at each variant's out-of-fold news threshold."""
    from research.xling.data import N_FOLDS, embed_cached, load_set
    from research.xling.pairmlp import fit_head
    from research.xling.train import _features, _make_builder, fit_logreg, logreg_prob, pr_at

    ks = load_set(data_dir, "korsts-stsb-koen")
    embed_cached(ks, "use")
    keep = np.flatnonzero(np.array(ks.kinds) == "xl_sts")
    y = ks.labels[keep]
    allm = [np.ones(len(ps.labels), bool) for ps in sets]
    fb = _make_builder(sets, allm, ["use"], seed=N_FOLDS)
    xall = [_features(ps, np.arange(len(ps.labels)), fb, ["use"]) for ps in sets]
    xk = _features(ks, keep, fb, ["use"])
    lex = _fit_multi(corp, [ps.labels == 1 for ps in sets])
    ko, en = _oriented(ks)
    kc = Corpus([ko[i] for i in keep], [en[i] for i in keep], vocab=vocab, grow=False)
    lk = lexicon_features(lex, kc)
    zk = None
    if head:
        hd = fit_head(np.concatenate(xs), np.concatenate([ps.labels for ps in sets]),
                      np.concatenate([np.full(len(ps.labels), 1.0 / len(ps.labels)) for ps in sets]),
                      hidden=hidden, epochs=epochs, seed=seed + 2000)
        e = ks.emb["use"]
        a_ko = np.array([ks.a_lang[i] == "ko" for i in keep])
        zk = hd.logit(e[np.where(a_ko, ks.a_idx[keep], ks.b_idx[keep])], e[np.where(a_ko, ks.b_idx[keep],
                                                                                   ks.a_idx[keep])])
    out = {}
    wts = np.concatenate([np.full(len(ps.labels), 1.0 / len(ps.labels)) for ps in sets])
    for name, (c, use_head, use_lex) in variants.items():
        xtr = np.concatenate([x[:, c] for x in xall])
        xte = xk[:, c]
        if use_head:
            xtr = np.c_[xtr, np.concatenate(outer_z)]
            xte = np.c_[xte, zk]
        if use_lex:
            xtr = np.c_[xtr, np.concatenate(outer_l)[:, use_lex]]
            xte = np.c_[xte, lk[:, use_lex]]
        xtr, (xte,) = _impute(xtr, [xte])
        fit = fit_logreg(xtr, np.concatenate([ps.labels for ps in sets]), wts)
        p = logreg_prob(fit, xte)
        t = res["variants"][name]["news_threshold"]
        out[name] = {"threshold": t, "neg_merged": float((p[y == 0] >= t).mean()), "PR": pr_at(p, y, t),
                     "coef": [float(x) for x in fit[2]]}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m research.xling.lexicon", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/eval-data"), help="eval-data folder (dev splits)")
    p.add_argument("--hidden", type=int, default=256, help="hidden units of the pair head (stacked rows)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--seed", type=int, default=0, help="offset of the heads' seeds, as in pairmlp / models train")
    p.add_argument("--no-head", action="store_true", help="skip the stacked rows (no torch, ~1 min)")
    p.add_argument("--no-check", action="store_true", help="skip the KorSTS ko-en false-merge check")
    p.add_argument("--loose", action="store_true",
                   help="let a lexicon learn from pairs that share a text with the rows it describes")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--report", type=Path, help="also write the JSON result here (var/..., git-ignored)")
    args = p.parse_args(argv)
    res = run(args.data, hidden=args.hidden, epochs=args.epochs, seed=args.seed, head=not args.no_head,
              check=not args.no_check, strict=not args.loose)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(res))
        return 0
    names = ("ntrex128-kor-eng", "koen-news-park", "tatoeba-kor-eng")
    print(f"out of fold, seed {res['seed']}, strict lexicon {res['strict']}, {res['seconds']} s")
    print("| approach | NTREX R@P.99 | NTREX R@P.97 | Park R@P.99 | Park R@P.97 | Tatoeba R@P.99 | Tatoeba R@P.97 "
          "| news thr | KorSTS xl_sts neg merged |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, row in res["variants"].items():
        cells = [f"{row[n][m]:.3f}" for n in names for m in ("r_at_p99", "r_at_p97")]
        ks = res.get("korsts_xl_sts", {}).get(name)
        merged = f"{ks['neg_merged']:.3f}" if ks else "-"
        print(f"| `{name}` | {' | '.join(cells)} | {row['news_threshold']:.4f} | {merged} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
