"""Cross-lingual (Korean/English) pair scoring for the embedding stage.

``PairScorer.load()`` gives the calibrated scorer (``research/xling/pairscorer/scorer.npz``), the one
part of the cross-lingual work that ships. The experiments that measured it, and the approaches
that did not ship, live in ``research/xling`` (not installed); ``samestory models train xling``
regenerates the artefact from a source checkout (docs/xling.md).
"""

from research.xling.pairscorer.scorer import PairBatch, PairScorer

__all__ = ["PairBatch", "PairScorer"]
