"""samestory: cross-lingual near-duplicate news detection.

>>> from service import Deduper, Article
"""

from service.config import EngineConfig
from service.types import Article, ArticleError, Decision, IngestResult, RepeatedIdWarning


def __getattr__(name: str):  # lazy: importing service.types must not load the engine
    if name in ("Deduper", "DedupeResult"):
        from service import engine

        return getattr(engine, name)
    raise AttributeError(name)


__all__ = ["Article", "ArticleError", "Decision", "DedupeResult", "Deduper", "EngineConfig", "IngestResult",
           "RepeatedIdWarning"]
