"""Cross-lingual (Korean/English) scoring experiments of issues 3 and 8 (docs/xling.md).

The one result that ships, the pair scorer, lives in ``models/xling`` (``PairScorer``,
``models/xling/scorer.npz``); this package holds everything that measured it and the
approaches that did not ship. ``approaches.json`` registers every approach with the command
that reproduces its row, run from the repository root, e.g.::

    python -m research.xling.train --data ../shared/eval-data --out var/scorer.npz
    python -m research.xling.pairmlp --data ../shared/eval-data --stack --hidden 256 --epochs 10
"""
