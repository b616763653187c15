"""Embedding back-ends behind one protocol (:class:`models.base.Embedder`).

``load_embedder(spec)`` is the entry point; see :mod:`models.registry` for the specs.
Importing this package never imports torch.
"""

from models.base import Embedder
from models.cache import CachedEmbedder
from models.registry import default_cache_dir, load_embedder

__all__ = ["CachedEmbedder", "Embedder", "default_cache_dir", "load_embedder"]
