"""onnxruntime back-end: CPU by default, CUDA provider when asked for and present.

Needs only onnxruntime (a core dependency) and ``tokenizers`` (the ``e5`` extra): no torch.
The directory layout is the one ``build_e5_small`` writes (``tokenizer.json`` next to
``onnx/model.onnx``); a plain directory with ``model.onnx`` + ``tokenizer.json`` works too.
A graph whose first output is already pooled (``sentence_embedding``, 2-D) is used as is;
a 3-D ``last_hidden_state`` output is mean-pooled over the attention mask here.

>>> emb = OnnxEmbedder("/path/to/e5-small", prompts=E5_SYMMETRIC_PROMPTS)  # doctest: +SKIP
>>> emb.encode(["삼성전자 실적"]).shape  # doctest: +SKIP
(1, 384)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from models.base import Kind, check_device, check_kind, check_prompts, check_texts, encode_sorted


def _find_files(model_dir: Path, file_name: str | None) -> tuple[Path, Path]:
    """(onnx file, tokenizer.json) for ``model_dir`` (the model dir or its ``onnx/`` subdir)."""
    candidates = [model_dir / file_name] if file_name else []
    candidates += [model_dir / "onnx" / (file_name or "model.onnx"), model_dir / (file_name or "model.onnx")]
    onnx_file = next((c for c in candidates if c.is_file()), None)
    if onnx_file is None:
        raise ValueError(f"no ONNX model in {str(model_dir)!r} (looked for {[str(c) for c in candidates]})")
    for d in (onnx_file.parent, onnx_file.parent.parent, model_dir):
        if (d / "tokenizer.json").is_file():
            return onnx_file, d / "tokenizer.json"
    raise ValueError(f"no tokenizer.json next to or above {str(onnx_file)!r}")


def _providers(device: str) -> list[str | tuple[str, dict[str, str]]]:
    """onnxruntime providers for ``device``; raises when CUDA is asked for but unavailable."""
    import onnxruntime as ort

    if check_device(device) == "cpu":
        # Explicit, so a GPU build of onnxruntime does not silently move work to the GPU.
        return ["CPUExecutionProvider"]
    available = ort.get_available_providers()
    if "CUDAExecutionProvider" not in available:
        raise RuntimeError(f"device={device!r} requested but onnxruntime {ort.__version__} has no "
                           f"CUDAExecutionProvider (available: {available}); install onnxruntime-gpu "
                           f"or use device='cpu'")
    device_id = device.split(":", 1)[1] if ":" in device else "0"
    # CPU stays listed as the fallback for the few ops the CUDA provider does not implement.
    return [("CUDAExecutionProvider", {"device_id": device_id}), "CPUExecutionProvider"]


class OnnxEmbedder:
    """Sentence embeddings from an ONNX export through onnxruntime.

    ``prompts`` as in :class:`~models.st_backend.SentenceTransformerEmbedder`; ``None``
    reads ``config_sentence_transformers.json`` when present. ``threads`` caps intra-op
    threads (default: onnxruntime's choice, every physical core).
    """

    backend = "onnxruntime"

    def __init__(self, model_dir: str | Path, *, device: str = "cpu", file_name: str | None = None,
                 prompts: Mapping[str, str] | None = None, name: str | None = None,
                 max_seq_length: int = 512, threads: int | None = None) -> None:
        import onnxruntime as ort

        try:
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError("the onnx back-end needs the 'tokenizers' package (the 'e5' extra)") from exc
        check_device(device)
        if isinstance(max_seq_length, bool) or not isinstance(max_seq_length, int) or max_seq_length < 2:
            raise ValueError(f"max_seq_length must be an int >= 2, got {max_seq_length!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be a positive int or None, got {threads!r}")
        root = Path(model_dir).expanduser()
        if not root.is_dir():
            raise ValueError(f"model directory {str(root)!r} does not exist")
        onnx_file, tok_file = _find_files(root, file_name)
        self.device = device

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads:
            opts.intra_op_num_threads = threads
        self._session = ort.InferenceSession(str(onnx_file), sess_options=opts, providers=_providers(device))
        self._inputs = {i.name for i in self._session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ValueError(f"{onnx_file} has no 'input_ids' input (inputs: {sorted(self._inputs)})")
        self._output = self._session.get_outputs()[0].name

        self._tok = Tokenizer.from_file(str(tok_file))
        self._tok.no_padding()
        self._tok.enable_truncation(max_seq_length)
        self._pad_id = self._tok.token_to_id("<pad>")
        if self._pad_id is None:
            self._pad_id = self._tok.token_to_id("[PAD]") or 0

        if prompts is None:
            cfg = tok_file.parent / "config_sentence_transformers.json"
            own = json.loads(cfg.read_text(encoding="utf-8")).get("prompts", {}) if cfg.is_file() else {}
            prompts = {k: own[k] for k in ("query", "passage") if k in own}
        self.prompts = check_prompts(prompts)
        self.name: str = name or f"onnx:{model_dir}"
        self.file = onnx_file
        self.dim: int = int(self._run(["x"]).shape[1])

    def _run(self, batch: list[str]) -> np.ndarray:
        encs = self._tok.encode_batch(batch)
        width = max(len(e.ids) for e in encs)
        # Pad to the batch's own longest row: the caller groups texts of similar length.
        ids = np.full((len(encs), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for r, e in enumerate(encs):
            ids[r, :len(e.ids)] = e.ids
            mask[r, :len(e.ids)] = 1
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = self._session.run([self._output], feed)[0]
        if out.ndim == 3:  # token states: mean-pool over real (unmasked) tokens
            m = mask[:, :, None].astype(np.float32)
            out = (out * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return np.asarray(out, dtype=np.float32)

    def encode(self, texts: Sequence[str], *, kind: Kind = "passage", batch_size: int = 64) -> np.ndarray:
        """Embed ``texts`` → float32 ``(n, dim)``, rows L2-normalised."""
        items = check_texts(texts)
        prefix = self.prompts[check_kind(kind)]
        inputs = [(prefix + t).strip() for t in items]
        return encode_sorted(inputs, batch_size, self._run, self.dim)

    def __repr__(self) -> str:
        return f"OnnxEmbedder(name={self.name!r}, dim={self.dim}, file={os.fspath(self.file)!r})"
