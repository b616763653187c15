"""Cross-lingual (Korean/English) pair scoring for the embedding stage.

``PairScorer.load()`` gives the packaged, calibrated scorer (``models/xling/scorer.npz``);
``python -m models.xling.train`` regenerates it and the numbers in ``docs/xling.md``.
"""

from models.xling.scorer import PairScorer

__all__ = ["PairScorer"]
