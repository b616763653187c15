"""Pick an embedder from a spec string (config / ``--model``).

Specs:

``use`` (default)
    Bundled USE-multilingual v3 (numpy; no torch, no download).
``e5-small``
    multilingual-e5-small, built into ``<cache>/models/e5-small`` at first use (~30 s),
    then run with sentence-transformers, or with onnxruntime when torch is not installed.
    Symmetric prompts: ``query: `` on both sides (e5's advice for similarity tasks).
``e5-small-onnx``
    The same model through onnxruntime (no torch at run time once built).
``st:<local path or hub name>``
    Any sentence-transformers model available offline.
``onnx:<dir>``
    An ONNX export with ``tokenizer.json`` (see :mod:`models.onnx_backend`).

The cache directory is ``$SAMESTORY_CACHE`` or ``~/.cache/samestory``; models live under
``<cache>/models/``. Nothing is ever fetched from a model hub.

>>> load_embedder("use", cache_size=0).name
'use-multilingual-v3'
>>> load_embedder("bert")
Traceback (most recent call last):
...
ValueError: unknown model spec 'bert'; valid: 'use', 'e5-small', 'e5-small-onnx', 'st:<local path or hub name>', 'onnx:<dir>'
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from models.base import Embedder, check_device
from models.cache import CachedEmbedder
from models.shared_cache import open_shared_cache

VALID_SPECS: tuple[str, ...] = ("use", "e5-small", "e5-small-onnx", "st:<local path or hub name>", "onnx:<dir>")
E5_NAME = "e5-small"


def default_cache_dir() -> Path:
    """``$SAMESTORY_CACHE`` if set, else ``~/.cache/samestory``."""
    env = os.environ.get("SAMESTORY_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "samestory"


def models_dir(cache_dir: Path | None = None) -> Path:
    """Where built models live: ``<cache>/models``."""
    return (Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()) / "models"


def e5_small_dir(cache_dir: Path | None = None) -> Path:
    """The e5-small build directory inside the cache."""
    return models_dir(cache_dir) / E5_NAME


def has_torch_backend() -> bool:
    """True when torch and sentence-transformers are installed (checked without importing)."""
    return all(importlib.util.find_spec(m) is not None for m in ("torch", "sentence_transformers"))


def has_onnx_export() -> bool:
    """True when an ONNX export can be produced here (torch + onnx)."""
    return has_torch_backend() and importlib.util.find_spec("onnx") is not None


def _load_e5(device: str, cache_dir: Path | None, *, onnx_only: bool) -> Embedder:
    from models.e5_build import build_e5_small, is_built
    from models.st_backend import E5_SYMMETRIC_PROMPTS

    d = e5_small_dir(cache_dir)
    if onnx_only:
        if not is_built(d, onnx=True):
            if not has_onnx_export():
                raise RuntimeError(f"{d} has no ONNX export and building one needs torch + onnx: "
                                   f"pip install torch==2.13.0 && pip install 'samestory[st,e5]', then "
                                   f"`samestory models build e5-small`")
            build_e5_small(d, onnx=True)
        from models.onnx_backend import OnnxEmbedder

        return OnnxEmbedder(d, device=device, prompts=E5_SYMMETRIC_PROMPTS, name=E5_NAME)
    if has_torch_backend():
        if not is_built(d):
            build_e5_small(d, onnx=has_onnx_export())
        from models.st_backend import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(d, device=device, prompts=E5_SYMMETRIC_PROMPTS, name=E5_NAME)
    if is_built(d, onnx=True):
        return _load_e5(device, cache_dir, onnx_only=True)
    raise RuntimeError(f"e5-small is not built in {d} and this install has no torch to build or run it: "
                       f"pip install torch==2.13.0 && pip install 'samestory[st,e5]'")


def load_embedder(spec: str = "use", *, device: str = "cpu", cache_dir: Path | None = None,
                  cache_size: int = 50_000, shared_cache: str | None = None, process: bool = False) -> Embedder:
    """Build the embedder named by ``spec`` (see the module docstring).

    ``cache_size > 0`` wraps the result in a :class:`CachedEmbedder` of that many entries;
    ``0`` returns the bare back-end. ``shared_cache`` (a ``redis://`` URL, see
    ``models.shared_cache``) puts a cache shared by several processes behind that LRU.
    Unknown specs raise ``ValueError`` listing the valid ones. ``process``: the model runs in a
    child process of its own (``models.process.ProcessEmbedder``), so it works on another core
    beside the caller; close it with ``close_embedder``.

    Note: e5-small through sentence-transformers and through ONNX both report the name
    ``e5-small``: their vectors agree to cosine > 0.99999, so indexes built with either mix.
    """
    if not isinstance(spec, str):
        raise ValueError(f"model spec must be a str, got {type(spec).__name__}")
    check_device(device)
    if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
        raise ValueError(f"cache_size must be an int >= 0, got {cache_size!r}")
    if shared_cache and cache_size == 0:
        raise ValueError("a shared embedding cache sits behind the local one: cache_size must be >= 1")
    spec = spec.strip()
    emb: Embedder
    if process:
        if spec not in ("use", E5_NAME, "e5-small-onnx") and not spec.startswith(("st:", "onnx:")):
            raise _unknown_spec(spec)
        from models.process import ProcessEmbedder

        emb = ProcessEmbedder(spec, device=device)
    elif spec == "use":
        from models.use import USEEmbedder

        emb = USEEmbedder(device=device)
    elif spec == E5_NAME:
        emb = _load_e5(device, cache_dir, onnx_only=False)
    elif spec == "e5-small-onnx":
        emb = _load_e5(device, cache_dir, onnx_only=True)
    elif spec.startswith("st:") and len(spec) > 3:
        from models.st_backend import SentenceTransformerEmbedder

        emb = SentenceTransformerEmbedder(spec[3:], device=device)
    elif spec.startswith("onnx:") and len(spec) > 5:
        from models.onnx_backend import OnnxEmbedder

        emb = OnnxEmbedder(spec[5:], device=device)
    else:
        raise _unknown_spec(spec)
    if cache_size == 0:
        return emb
    return CachedEmbedder(emb, maxsize=cache_size, shared=open_shared_cache(shared_cache, emb.name, emb.dim))


def check_spec(spec: str, *, device: str = "cpu") -> None:
    """Refuse, before anything is loaded, a spec :func:`load_embedder` does not know and a device
    its back-end cannot run on (the bundled USE is CPU-only; the others also take ``cuda``).

    >>> check_spec("e5-small", device="cuda")
    >>> check_spec("e5-smol")
    Traceback (most recent call last):
    ...
    ValueError: unknown model spec 'e5-smol'; valid: 'use', 'e5-small', 'e5-small-onnx', 'st:<local path or hub name>', 'onnx:<dir>'
    >>> check_spec("use", device="cuda")
    Traceback (most recent call last):
    ...
    ValueError: the bundled 'use' model runs on the CPU only: --device cuda takes 'e5-small', 'e5-small-onnx', 'st:<local path or hub name>' or 'onnx:<dir>'
    """
    spec = spec.strip()
    if spec not in ("use", E5_NAME, "e5-small-onnx") and not (
            (spec.startswith("st:") and len(spec) > 3) or (spec.startswith("onnx:") and len(spec) > 5)):
        raise _unknown_spec(spec)
    if spec == "use" and check_device(device) != "cpu":
        raise ValueError(f"the bundled 'use' model runs on the CPU only: --device {device} takes "
                         + ", ".join(repr(s) for s in VALID_SPECS[1:-1]) + f" or {VALID_SPECS[-1]!r}")


def _unknown_spec(spec: str) -> ValueError:
    return ValueError(f"unknown model spec {spec!r}; valid: {', '.join(repr(s) for s in VALID_SPECS)}")


def close_embedder(embedder: Embedder | None) -> None:
    """Stop what ``embedder`` runs besides the caller: the child of a ``ProcessEmbedder`` (also
    behind a ``CachedEmbedder``). Other embedders hold nothing to stop.

    >>> close_embedder(load_embedder("use", cache_size=0))
    """
    from models.process import ProcessEmbedder

    inner = embedder.inner if isinstance(embedder, CachedEmbedder) else embedder
    if isinstance(inner, ProcessEmbedder):
        inner.close()
