"""Batch deduplication of a whole corpus: the streaming engine's decisions, planned for a cluster.

``plan`` holds the stages as pure functions over batches, ``neighbours`` the sharded vector
search; ``local`` and ``ray_engine`` execute them; ``decide`` replays the corpus through the
streaming engine with the precomputed vectors, its vector searches answered from the search
stage's pairs by ``candidates``;
``run`` ties them together; ``io`` reads JSONL/Parquet and writes Parquet; ``cli`` is
``samestory batch``. docs/scale.md has the measurements and the cost model.
"""

from service.batch.run import BatchOutput, run_batch

__all__ = ["BatchOutput", "run_batch"]
