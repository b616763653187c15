"""sentence-transformers back-end (torch; the ``st`` extra). Local models only.

torch and sentence_transformers are imported inside the constructor, never at module
import, so the default torch-free install can import ``models`` freely.

>>> emb = SentenceTransformerEmbedder("/path/to/e5-small", prompts=E5_SYMMETRIC_PROMPTS)  # doctest: +SKIP
>>> emb.encode(["삼성전자 실적", "Samsung earnings"]).shape  # doctest: +SKIP
(2, 384)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from models.base import Kind, check_device, check_kind, check_prompts, check_texts, encode_sorted

# For symmetric tasks (dedup compares passage with passage) e5's model card recommends the
# "query: " prefix on both sides; "passage: " is for the document side of retrieval.
E5_SYMMETRIC_PROMPTS: dict[str, str] = {"query": "query: ", "passage": "query: "}


def force_hf_offline() -> None:
    """Make every Hugging Face library refuse network access in this process.

    Set before transformers / huggingface_hub are imported (they read it at import time);
    ``local_files_only=True`` is passed as well, for processes that imported them earlier.
    """
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def resolve_torch_device(device: str) -> str:
    """Validate ``device`` against what torch can actually use; clear error if CUDA is absent."""
    import torch

    device = check_device(device)
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise RuntimeError(
                f"device={device!r} requested but torch {torch.__version__} sees no CUDA device "
                f"(built with CUDA: {torch.version.cuda or 'no'}); use device='cpu'")
        index = int(device.split(":", 1)[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise RuntimeError(f"device={device!r} requested but only {torch.cuda.device_count()} CUDA device(s)")
    return device


class SentenceTransformerEmbedder:
    """Any sentence-transformers model from a local directory or the local HF cache.

    ``prompts`` maps ``kind`` to the text prefix; ``None`` takes the model's own
    ``query``/``passage`` prompts when it defines them, else no prefix. Inputs are
    whitespace-stripped after prefixing (``(prompt + text).strip()``), which is what
    sentence-transformers does anyway; the ONNX back-end does the same so both agree.
    """

    backend = "sentence-transformers"

    def __init__(self, model: str | Path, *, device: str = "cpu", prompts: Mapping[str, str] | None = None,
                 name: str | None = None, max_seq_length: int | None = None) -> None:
        check_device(device)
        if not isinstance(model, str | Path) or not str(model):
            raise ValueError(f"model must be a local path or hub name, got {model!r}")
        force_hf_offline()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError("the sentence-transformers back-end needs the 'st' extra: "
                              "pip install torch==2.13.0 && pip install 'samestory[st]'") from exc
        self.device = resolve_torch_device(device)
        path = Path(model).expanduser()
        looks_local = path.is_absolute() or str(model).startswith((".", "~")) or path.exists()
        if looks_local and not path.is_dir():
            raise ValueError(f"model directory {str(path)!r} does not exist")
        try:
            self._model = SentenceTransformer(str(path) if looks_local else str(model), device=self.device,
                                              local_files_only=True)
        except OSError as exc:
            raise ValueError(f"cannot load {str(model)!r} offline: not a local model directory and not in "
                             f"the local Hugging Face cache (run-time downloads are disabled)") from exc
        if max_seq_length is not None:
            if isinstance(max_seq_length, bool) or not isinstance(max_seq_length, int) or max_seq_length < 1:
                raise ValueError(f"max_seq_length must be a positive int, got {max_seq_length!r}")
            self._model.max_seq_length = max_seq_length
        if prompts is None:
            own = getattr(self._model, "prompts", None) or {}
            prompts = {k: own[k] for k in ("query", "passage") if k in own}
        self.prompts = check_prompts(prompts)
        # sentence-transformers 6 renamed the accessor; keep working with >= 3.0 as pyproject allows.
        get_dim = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if not dim:
            raise ValueError(f"{model!r} does not declare its embedding dimension")
        self.dim: int = int(dim)
        self.name: str = name or f"st:{model}"

    def encode(self, texts: Sequence[str], *, kind: Kind = "passage", batch_size: int = 64) -> np.ndarray:
        """Embed ``texts`` → float32 ``(n, dim)``, rows L2-normalised."""
        items = check_texts(texts)
        prefix = self.prompts[check_kind(kind)]
        inputs = [(prefix + t).strip() for t in items]

        def run(batch: list[str]) -> np.ndarray:
            return self._model.encode(batch, batch_size=len(batch), convert_to_numpy=True,
                                      normalize_embeddings=True, show_progress_bar=False)

        return encode_sorted(inputs, batch_size, run, self.dim)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(name={self.name!r}, dim={self.dim}, device={self.device!r})"
