"""Re-implementations of the seeds' dedup methods, run next to samestory in the eval report.

Each module is one method; :mod:`eval.baselines.base` holds the protocol they share.
"""

from __future__ import annotations

from eval.baselines.base import Baseline, Verdict
from eval.baselines.embedding import EmbedEverything
from eval.baselines.seed000 import Seed000
from eval.baselines.seed001 import Seed001
from eval.baselines.seed003 import Seed003

__all__ = ["Baseline", "EmbedEverything", "Seed000", "Seed001", "Seed003", "Verdict", "default_baselines"]


def default_baselines(embedding_threshold: float, model: str = "use", tokenizer: str = "okt") -> list[Baseline]:
    """The four baselines of issue 6, in the report's row order."""
    return [Seed001(), Seed000(), Seed003(tokenizer=tokenizer),
            EmbedEverything(embedding_threshold, model=model)]
