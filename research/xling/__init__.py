"""Cross-lingual (Korean/English) scoring experiments of issues 3 and 8 (docs/xling.md).

The pair scorer (``research/xling/pairscorer``: ``PairScorer``, its artefact ``scorer.npz``)
shipped opt-in in the engine (``embedding_scorer = "xling"``) until issue 37 moved it here: it
never gained on every set in the engine (research/notes/xling.md, "In the engine") and stayed
off. This package holds it, everything that measured it and the approaches that did not ship. ``approaches.json`` registers every approach with the command
that reproduces its row, run from the repository root, e.g.::

    python -m research.xling.train --data ../shared/eval-data --out var/scorer.npz
    python -m research.xling.pairmlp --data ../shared/eval-data --stack --hidden 256 --epochs 10
"""
