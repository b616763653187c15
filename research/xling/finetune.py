"""Experiment (issue 8): fine-tune multilingual-e5-small on the dev parallel pairs, on CPU.

The one lever of issue 8 not tried before: contrastive fine-tuning of e5-small
(sentence-transformers model built offline by :func:`models.e5_build.build_e5_small`) with a
symmetric MultipleNegativesRankingLoss on the Korean-English positives of the training folds.

Validation (by group, never by row; folds of :meth:`research.xling.data.PairSet.folds`):

* fold 0 of every training set is the held-out test fold; nothing is learned from it;
* training pairs are the positives (label 1) of folds 1-4 of the three training sets, minus
  every pair whose Korean or English text also occurs in a fold-0 row of any training set
  (hard negatives reuse texts across groups, so this keeps the test texts unseen);
* optional hard negatives: labelled negatives of folds 1-4 that share the Korean text of a
  training pair (and whose English text is not a fold-0 text) are added as extra candidates.

Model: the word-embedding matrix (250k x 384) is frozen, and only the top ``--layers``
transformer layers are trained (the rest, with the position/type embeddings and their
LayerNorm, stay frozen). ``max_seq_length`` is 64 for training. Both sides get the e5
"query: " prefix. The loss is the in-batch softmax over cosine x ``--scale`` in both directions
(ko -> en candidates, en -> ko), with duplicate texts in a batch masked out.

Evaluation on the fold-0 rows of each training set, for USE cosine (``embed_cached("use")``),
the e5-small sentence-transformers model before training and after training (same encoder
settings, ``--eval-max-len`` tokens): recall at precision 0.99 / 0.97 (per-set oracle threshold)
and precision / recall at ONE threshold, the lowest with precision >= 0.99 on both news sets.
Over-merge check (never trained on): the share of KorSTS ko-en label-0 pairs (kinds ``xl_sts``
/ ``xl_translation``) scored at or above that shared threshold, for e5 base and fine-tuned.

Fusion (``--fusion``): a logistic regression over standardised [USE cosine, fine-tuned e5
cosine] (:func:`research.xling.train.fit_logreg`, each set the same total weight), scored on fold 0
by INNER 5-fold cross-validation by group inside fold 0 (:func:`inner_folds`, salt
``inner|set|group``, so the split is independent of the outer folds): fit on 4 inner folds of
the three sets jointly, predict the 5th, pooled out-of-inner-fold logits. For KorSTS the LR is fit
on all fold-0 rows of the three sets and applied to the KorSTS ko-en rows (never trained on).
``--skip-base`` skips encoding with the untrained e5 (the ``e5_base`` row).

An artefact (fp16 delta of the trained layers, ``var/xling_e5_ft_delta.npz``) is written only
when the fine-tuned model beats both USE and e5 base on R@P.99 on all three sets.

    python -m research.xling.finetune --data ../shared/eval-data [--layers 12] [--steps N]
        [--minutes 35] [--time-steps N] [--hard-neg] [--skip-base] [--fusion] [--scores var/....npz]
        [--json] [--report var/xling_finetune.json]

The documented run (docs/xling.md, ~40 min on 2 cores)::

    python -m research.xling.finetune --data ../shared/eval-data --layers 4 --batch 64 --steps 180 \
        --hard-neg --minutes 35 --report var/xling_finetune.json

and the fusion run (same training, ~36 min)::

    python -m research.xling.finetune --data ../shared/eval-data --layers 4 --batch 64 --steps 180 \
        --hard-neg --minutes 35 --skip-base --fusion --scores var/xling_finetune_fusion_scores.npz \
        --report var/xling_finetune_fusion.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch
    from sentence_transformers import SentenceTransformer

    from research.xling.data import PairSet

__all__ = [
    "PREFIX",
    "TrainPair",
    "encode",
    "freeze_for_finetune",
    "fusion_cv",
    "held_out_texts",
    "inner_folds",
    "main",
    "mnrl_loss",
    "oriented",
    "train",
    "trained_delta",
    "training_pairs",
]

#: e5 prefix for symmetric similarity, both sides.
PREFIX = "query: "
TEST_FOLD = 0
ARTEFACT = Path(__file__).resolve().parents[2] / "var" / "xling_e5_ft_delta.npz"
#: name of the fused approach in the table / JSON report
FUSION = "fusion use+e5_ft (LR, inner CV on fold 0)"


@dataclass
class TrainPair:
    """One training translation pair (texts, not indices), with optional hard-negative English texts."""

    ko: str
    en: str
    hard: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- data
def oriented(ps: PairSet) -> tuple[np.ndarray, np.ndarray]:
    """(Korean text index, English text index) of every row; rows that are not ko-en get -1."""
    ko = np.full(len(ps.labels), -1)
    en = np.full(len(ps.labels), -1)
    for i, (la, lb) in enumerate(zip(ps.a_lang, ps.b_lang, strict=True)):
        if la == "ko" and lb == "en":
            ko[i], en[i] = ps.a_idx[i], ps.b_idx[i]
        elif la == "en" and lb == "ko":
            ko[i], en[i] = ps.b_idx[i], ps.a_idx[i]
    return ko, en


def held_out_texts(sets: Sequence[PairSet], test_fold: int = TEST_FOLD) -> set[str]:
    """Every text (either side) of a test-fold row of any of ``sets``."""
    out: set[str] = set()
    for ps in sets:
        for i in np.flatnonzero(ps.folds() == test_fold):
            out.add(ps.texts[ps.a_idx[i]])
            out.add(ps.texts[ps.b_idx[i]])
    return out


def training_pairs(sets: Sequence[PairSet], test_fold: int = TEST_FOLD, *,
                   hard_negatives: bool = False) -> tuple[list[TrainPair], dict[str, Any]]:
    """Text-disjoint training pairs from the non-test folds, and counts per set."""
    banned = held_out_texts(sets, test_fold)
    pairs: list[TrainPair] = []
    stats: dict[str, Any] = {}
    for ps in sets:
        ko, en = oriented(ps)
        train = (ps.folds() != test_fold) & (ko >= 0)
        pos = np.flatnonzero(train & (ps.labels == 1))
        negs: dict[int, list[int]] = {}
        if hard_negatives:
            for i in np.flatnonzero(train & (ps.labels == 0) & ~np.char.startswith(
                    np.array(ps.kinds, dtype=str), "xl_random")):
                if ps.texts[en[i]] not in banned:
                    negs.setdefault(int(ko[i]), []).append(int(en[i]))
        kept = dropped = n_hard = 0
        seen: set[tuple[int, int]] = set()
        for i in pos:
            k, e = int(ko[i]), int(en[i])
            if ps.texts[k] in banned or ps.texts[e] in banned:
                dropped += 1
                continue
            if (k, e) in seen:
                continue
            seen.add((k, e))
            hard = sorted({ps.texts[j] for j in negs.get(k, []) if j != e})
            n_hard += bool(hard)
            pairs.append(TrainPair(ps.texts[k], ps.texts[e], hard))
            kept += 1
        stats[ps.name] = {"positives_train_folds": len(pos), "dropped_text_overlap": dropped,
                          "pairs": kept, "with_hard_negative": n_hard}
    stats["total_pairs"] = len(pairs)
    return pairs, stats


# --------------------------------------------------------------------------- model
def freeze_for_finetune(model: SentenceTransformer, layers: int) -> list[str]:
    """Freeze everything but the top ``layers`` transformer layers; return the trainable names."""
    bert = model[0].auto_model
    n = len(bert.encoder.layer)
    if not 0 < layers <= n:
        raise ValueError(f"layers must be in 1..{n}, got {layers}")
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in bert.encoder.layer[n - layers:]:
        for p in layer.parameters():
            p.requires_grad_(True)
    return [name for name, p in model.named_parameters() if p.requires_grad]


def _embed(model: SentenceTransformer, texts: Sequence[str]) -> torch.Tensor:
    tok = getattr(model, "preprocess", None) or model.tokenize  # preprocess: sentence-transformers >= 6
    return model(dict(tok([PREFIX + t for t in texts])))["sentence_embedding"]


def mnrl_loss(ko: torch.Tensor, en: torch.Tensor, ko_ids: Sequence[str], en_ids: Sequence[str],
              scale: float) -> torch.Tensor:
    """Symmetric MultipleNegativesRankingLoss over L2-normalised embeddings.

    ``ko`` (B, d) are the anchors, ``en`` (B + H, d) the candidates: the first B are the
    translations of the anchors (diagonal), the H others extra hard negatives. A candidate equal
    (as text) to the anchor's own translation is masked, so duplicates are not pushed apart.
    """
    import torch
    import torch.nn.functional as F

    b = ko.shape[0]
    logits = scale * ko @ en.T  # (B, B + H)
    en_arr = np.array(en_ids, dtype=object)
    same = torch.from_numpy(en_arr[None, :] == en_arr[:b, None])
    same[torch.arange(b), torch.arange(b)] = False
    target = torch.arange(b)
    loss_ko = F.cross_entropy(logits.masked_fill(same, float("-inf")), target)
    ko_arr = np.array(ko_ids, dtype=object)
    same_ko = torch.from_numpy(ko_arr[None, :] == ko_arr[:, None])
    same_ko[torch.arange(b), torch.arange(b)] = False
    loss_en = F.cross_entropy(logits[:, :b].T.masked_fill(same_ko, float("-inf")), target)
    return (loss_ko + loss_en) / 2


def train(model: SentenceTransformer, pairs: Sequence[TrainPair], *, steps: int, batch: int = 32, lr: float = 3e-5,
          scale: float = 20.0, warmup: float = 0.1, seed: int = 0, minutes: float | None = None,
          progress: bool = True) -> dict[str, Any]:
    """Fine-tune the trainable parameters of ``model`` in place (AdamW, linear warm-up/decay).

    Batches are drawn without replacement from a seeded shuffle (reshuffled each epoch). Stops
    after ``steps`` steps or ``minutes`` of wall time, whichever comes first.
    """
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    rng = random.Random(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    n_warm = max(1, int(warmup * steps))

    def lr_at(s: int) -> float:
        return (s + 1) / n_warm if s < n_warm else max(0.0, (steps - s) / max(1, steps - n_warm))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    order: list[int] = []
    losses: list[float] = []
    model.train()
    t0 = time.perf_counter()
    bar = tqdm(total=steps, desc="fine-tune e5-small", unit="step", disable=not progress)
    step = 0
    try:
        while step < steps:
            if minutes is not None and time.perf_counter() - t0 > 60 * minutes:
                break
            if len(order) < batch:
                fresh = list(range(len(pairs)))
                rng.shuffle(fresh)
                order += fresh
            idx, order = order[:batch], order[batch:]
            bp = [pairs[i] for i in idx]
            ko_t = [p.ko for p in bp]
            en_t = [p.en for p in bp] + [rng.choice(p.hard) for p in bp if p.hard]
            ko = _embed(model, ko_t)
            en = _embed(model, en_t)
            loss = mnrl_loss(ko, en, ko_t, en_t, scale)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            losses.append(loss.item())
            step += 1
            bar.update()
            bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}")
    finally:
        bar.close()
        model.eval()
    wall = time.perf_counter() - t0
    return {"steps": step, "planned_steps": steps, "batch": batch, "lr": lr, "scale": scale,
            "pairs_seen": step * batch, "epochs": step * batch / max(1, len(pairs)),
            "wall_s": round(wall, 1), "s_per_step": round(wall / max(1, step), 2),
            "loss_first20": float(np.mean(losses[:20])) if losses else None,
            "loss_last20": float(np.mean(losses[-20:])) if losses else None}


def encode(model: SentenceTransformer, texts: Sequence[str], batch: int = 32) -> tuple[np.ndarray, float]:
    """L2-normalised embeddings (``query: `` prefix) and seconds per text.

    Texts are encoded in length order so that padding is small, then put back in order.
    """
    import torch

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    dim = (getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension)()
    out = np.zeros((len(texts), dim), np.float32)
    t0 = time.perf_counter()
    model.eval()
    with torch.inference_mode():
        for s in range(0, len(order), batch):
            ix = order[s:s + batch]
            out[ix] = _embed(model, [texts[i] for i in ix]).float().numpy()
    return out, (time.perf_counter() - t0) / max(1, len(texts))


def trained_delta(model: SentenceTransformer, base: dict[str, torch.Tensor], names: Sequence[str]) -> dict[str, np.ndarray]:
    """fp16 (fine-tuned - base) of the trained parameters."""
    cur = dict(model.named_parameters())
    return {n: (cur[n].detach() - base[n]).to(dtype=cur[n].dtype).numpy().astype(np.float16) for n in names}


# --------------------------------------------------------------------------- evaluation
def _metrics(scores: dict[str, np.ndarray], labels: dict[str, np.ndarray], news: Sequence[str]) -> dict[str, Any]:
    from research.xling.train import pr_at, recall_at_precision, shared_threshold

    out: dict[str, Any] = {}
    thr = shared_threshold([(scores[n], labels[n]) for n in news], 0.99)
    out["shared_threshold"] = thr
    for n in scores:
        r99, _ = recall_at_precision(scores[n], labels[n], 0.99)
        r97, _ = recall_at_precision(scores[n], labels[n], 0.97)
        p, r = pr_at(scores[n], labels[n], thr)
        out[n] = {"r_p99": r99, "r_p97": r97, "shared_p": p, "shared_r": r,
                  "n": len(labels[n]), "pos": int(labels[n].sum())}
    return out


def inner_folds(name: str, groups: Sequence[str], k: int = 5) -> np.ndarray:
    """Inner fold (0..k-1) of each row's group, salted apart from :meth:`PairSet.folds`."""
    return np.array([int(hashlib.sha256(f"inner|{name}|{g}".encode()).hexdigest(), 16) % k for g in groups],
                    dtype=int)


def fusion_cv(x: dict[str, np.ndarray], y: dict[str, np.ndarray], inner: dict[str, np.ndarray], k: int = 5,
              apply: dict[str, np.ndarray] | None = None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray],
                                                                  dict[str, Any]]:
    """Out-of-inner-fold logits of an LR over ``x[set]`` (n, d), fit jointly on all sets.

    For each inner fold f, the LR (:func:`research.xling.train.fit_logreg`, each set the same total
    weight) is fit on the rows of every set with ``inner[set] != f`` and predicts the rows with
    ``inner[set] == f``. ``apply`` (other sets, never trained on) is scored by one LR fit on all
    rows of ``x``. Returns (out-of-fold logits per set, logits per ``apply`` set, the full fit).
    """
    from research.xling.train import fit_logreg, logreg_logit, set_weights

    names = list(x)

    def fit(masks: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        xs = np.concatenate([x[n][masks[n]] for n in names])
        ys = np.concatenate([y[n][masks[n]] for n in names])
        return fit_logreg(xs, ys, set_weights([masks[n] for n in names]))

    oof = {n: np.full(len(y[n]), np.nan) for n in names}
    for f in range(k):
        train_m = {n: inner[n] != f for n in names}
        if not any(((inner[n] == f).any()) for n in names):
            continue
        m = fit(train_m)
        for n in names:
            te = inner[n] == f
            if te.any():
                oof[n][te] = logreg_logit(m, x[n][te])
    full = fit({n: np.ones(len(y[n]), bool) for n in names})
    applied = {n: logreg_logit(full, xx) for n, xx in (apply or {}).items()}
    info = {"mean": full[0].tolist(), "scale": full[1].tolist(), "coef": full[2].tolist(), "intercept": full[3]}
    return oof, applied, info


def _cos(e: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", e[a], e[b]).astype(np.float32)


def run(data_dir: Path, *, layers: int = 12, steps: int | None = None, minutes: float = 35.0, batch: int = 32,
        lr: float = 3e-5, scale: float = 20.0, hard_negatives: bool = False, max_len: int = 64,
        eval_max_len: int = 512, seed: int = 0, time_steps: int = 0, progress: bool = True,
        skip_base: bool = False, fusion: bool = False, scores_out: Path | None = None) -> dict[str, Any]:
    import torch
    from sentence_transformers import SentenceTransformer

    from models.e5_build import build_e5_small
    from models.registry import e5_small_dir
    from research.xling.data import TRAIN_SETS, embed_cached, load_set
    from research.xling.train import NEWS_SETS

    torch.set_num_threads(2)
    torch.manual_seed(seed)
    res: dict[str, Any] = {"config": {"layers": layers, "batch": batch, "lr": lr, "scale": scale,
                                      "hard_negatives": hard_negatives, "max_len": max_len,
                                      "eval_max_len": eval_max_len, "seed": seed, "test_fold": TEST_FOLD,
                                      "skip_base": skip_base, "fusion": fusion}}
    sets = [load_set(data_dir, n) for n in TRAIN_SETS]
    pairs, res["data"] = training_pairs(sets, hard_negatives=hard_negatives)
    print(f"training pairs: {json.dumps(res['data'])}", flush=True)

    model_dir = build_e5_small(e5_small_dir(), onnx=False, progress=progress)
    model = SentenceTransformer(str(model_dir), device="cpu")

    # Evaluation texts: fold-0 rows of the training sets, KorSTS ko-en rows.
    test_rows = {ps.name: np.flatnonzero(ps.folds() == TEST_FOLD) for ps in sets}
    korsts = load_set(data_dir, "korsts-stsb-koen")
    ko_rows = np.flatnonzero(np.isin(np.array(korsts.kinds), ["xl_sts", "xl_translation"]))
    eval_sets = [*sets, korsts]
    eval_rows = {**test_rows, korsts.name: ko_rows}

    def embed_all(tag: str) -> tuple[dict[str, np.ndarray], float]:
        model.max_seq_length = eval_max_len
        out, n, secs = {}, 0, 0.0
        for ps in eval_sets:
            rows = eval_rows[ps.name]
            need = np.unique(np.r_[ps.a_idx[rows], ps.b_idx[rows]])
            e, spt = encode(model, [ps.texts[i] for i in need])
            full = np.zeros((len(ps.texts), e.shape[1]), np.float32)
            full[need] = e
            out[ps.name] = _cos(full, ps.a_idx[rows], ps.b_idx[rows])
            n += len(need)
            secs += spt * len(need)
            print(f"  {tag}: {ps.name} {len(need)} texts, {1000 * spt:.1f} ms/text", flush=True)
        return out, secs / max(1, n)

    labels = {ps.name: ps.labels[eval_rows[ps.name]] for ps in eval_sets}
    scores: dict[str, dict[str, np.ndarray]] = {}
    enc_time: dict[str, float] = {}
    for ps in sets:
        e = embed_cached(ps, "use")
        scores.setdefault("use_cos", {})[ps.name] = _cos(e, ps.a_idx[test_rows[ps.name]], ps.b_idx[test_rows[ps.name]])
    if fusion:  # USE on KorSTS too: its over-merge share, and the fused score there
        e = embed_cached(korsts, "use")
        scores["use_cos"][korsts.name] = _cos(e, korsts.a_idx[ko_rows], korsts.b_idx[ko_rows])
        print(f"  use: {korsts.name} {len(korsts.texts)} texts", flush=True)
    if not skip_base:
        scores["e5_base"], enc_time["e5_base"] = embed_all("e5 base")

    names = freeze_for_finetune(model, layers)
    base = {n: p.detach().clone() for n, p in model.named_parameters() if n in set(names)}
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    n_all = sum(p.numel() for p in model.parameters())
    res["trainable_params"] = {"trained": n_train, "total": n_all}
    model.max_seq_length = max_len
    if time_steps:
        t = train(model, pairs, steps=time_steps, batch=batch, lr=lr, scale=scale, seed=seed, progress=progress)
        print(f"timing: {t['s_per_step']} s/step over {t['steps']} steps", flush=True)
        for n in names:  # undo the timing steps
            dict(model.named_parameters())[n].data.copy_(base[n])
        res["timing"] = t
        if steps is None:
            steps = max(1, int(60 * minutes / t["s_per_step"]))
    if steps is None:
        steps = len(pairs) // batch
    res["train"] = train(model, pairs, steps=steps, batch=batch, lr=lr, scale=scale, seed=seed,
                         minutes=minutes, progress=progress)
    print(f"training: {json.dumps(res['train'])}", flush=True)
    scores["e5_ft"], enc_time["e5_ft"] = embed_all("e5 fine-tuned")
    res["encode_ms_per_text"] = {k: round(1000 * v, 2) for k, v in enc_time.items()}
    if scores_out is not None:  # raw fold-0 scores (ids only), to redo the evaluation without the model
        scores_out.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(scores_out, **{f"{a}|{n}": v for a, sc in scores.items() for n, v in sc.items()},
                            **{f"labels|{n}": v for n, v in labels.items()})
    if fusion:
        groups0 = {ps.name: [ps.groups[i] for i in test_rows[ps.name]] for ps in sets}
        x = {n: np.c_[scores["use_cos"][n], scores["e5_ft"][n]] for n in TRAIN_SETS}
        inner = {n: inner_folds(n, groups0[n]) for n in TRAIN_SETS}
        oof, applied, info = fusion_cv(
            x, {n: labels[n] for n in TRAIN_SETS}, inner,
            apply={korsts.name: np.c_[scores["use_cos"][korsts.name], scores["e5_ft"][korsts.name]]})
        scores[FUSION] = {**oof, **applied}
        res["fusion"] = {"features": ["use_cos", "e5_ft_cos"], "inner_folds": 5,
                         "inner_fold_rows": {n: np.bincount(inner[n], minlength=5).tolist() for n in TRAIN_SETS},
                         "full_fit": info}

    res["results"] = {}
    for approach, sc in scores.items():
        train_sc = {n: sc[n] for n in TRAIN_SETS}
        m = _metrics(train_sc, {n: labels[n] for n in TRAIN_SETS}, NEWS_SETS)
        if korsts.name in sc:
            neg = labels[korsts.name] == 0
            m["korsts_neg_merge"] = float((sc[korsts.name][neg] >= m["shared_threshold"]).mean())
            m["korsts_neg_n"] = int(neg.sum())
        res["results"][approach] = m

    rivals = [a for a in ("use_cos", "e5_base") if a in res["results"]]
    wins = all(res["results"]["e5_ft"][n]["r_p99"] > max(res["results"][a][n]["r_p99"] for a in rivals)
               for n in TRAIN_SETS)
    if fusion:
        res["fusion_beats_use_and_e5_ft_all_sets"] = all(
            res["results"][FUSION][n]["r_p99"] > max(res["results"][a][n]["r_p99"] for a in ("use_cos", "e5_ft"))
            for n in TRAIN_SETS)
    res["beats_baselines_all_sets"] = wins
    if wins:
        delta = trained_delta(model, base, names)
        ARTEFACT.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(ARTEFACT, **delta)
        res["artefact"] = {"path": str(ARTEFACT), "bytes": ARTEFACT.stat().st_size}
    return res


def _table(res: dict[str, Any]) -> str:
    from research.xling.data import TRAIN_SETS

    short = {"ntrex128-kor-eng": "NTREX", "koen-news-park": "Park", "tatoeba-kor-eng": "Tatoeba"}
    head = "| approach | " + " | ".join(f"{short[n]} R@P.99 | {short[n]} R@P.97" for n in TRAIN_SETS)
    head += " | shared thr | " + " | ".join(f"{short[n]} P/R @shared" for n in TRAIN_SETS) + " | KorSTS neg ≥ thr |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for a, m in res["results"].items():
        cells = [f"{m[n]['r_p99']:.3f} | {m[n]['r_p97']:.3f}" for n in TRAIN_SETS]
        pr = [f"{m[n]['shared_p']:.3f} / {m[n]['shared_r']:.3f}" for n in TRAIN_SETS]
        ks = f"{100 * m['korsts_neg_merge']:.1f} %" if "korsts_neg_merge" in m else "n/a"
        lines.append(f"| `{a}` | " + " | ".join(cells) + f" | {m['shared_threshold']:.3f} | " + " | ".join(pr)
                     + f" | {ks} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m research.xling.finetune", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/eval-data"), help="eval-data folder (dev splits)")
    p.add_argument("--layers", type=int, default=12, help="train the top N transformer layers (1-12)")
    p.add_argument("--steps", type=int, help="optimizer steps (default: fit --minutes after --time-steps, "
                                             "else one epoch)")
    p.add_argument("--minutes", type=float, default=35.0, help="wall-time cap of the training loop")
    p.add_argument("--time-steps", type=int, default=0, help="first time this many steps (then undone) to size --steps")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--scale", type=float, default=20.0, help="cosine scale of the loss (1 / temperature)")
    p.add_argument("--hard-neg", action="store_true", help="add one labelled hard negative per anchor when it has one")
    p.add_argument("--max-len", type=int, default=64, help="max_seq_length while training")
    p.add_argument("--eval-max-len", type=int, default=512, help="max_seq_length while evaluating (base and tuned)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-base", action="store_true", help="do not encode with the untrained e5 (no e5_base row)")
    p.add_argument("--fusion", action="store_true",
                   help="add an LR fusion of USE and fine-tuned e5 cosines, inner 5-fold CV by group on fold 0")
    p.add_argument("--scores", type=Path, help="also save the raw fold-0 scores and labels here (.npz, var/...)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--report", type=Path, help="also write the JSON result here (var/..., git-ignored)")
    a = p.parse_args(argv)
    res = run(a.data, layers=a.layers, steps=a.steps, minutes=a.minutes, batch=a.batch, lr=a.lr, scale=a.scale,
              hard_negatives=a.hard_neg, max_len=a.max_len, eval_max_len=a.eval_max_len, seed=a.seed,
              time_steps=a.time_steps, skip_base=a.skip_base, fusion=a.fusion, scores_out=a.scores)
    if a.report:
        a.report.parent.mkdir(parents=True, exist_ok=True)
        a.report.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    if a.json:
        print(json.dumps(res, indent=2))
    else:
        print(_table(res))
        print(json.dumps({k: res[k] for k in ("data", "train", "encode_ms_per_text", "trainable_params",
                                               "beats_baselines_all_sets", "fusion",
                                               "fusion_beats_use_and_e5_ft_all_sets") if k in res}, indent=2))
        if "artefact" in res:
            print(f"artefact: {res['artefact']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
