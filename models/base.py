"""The one protocol every embedding back-end implements, plus the shared plumbing.

Every back-end (bundled USE, sentence-transformers, onnxruntime) returns float32 rows that
are L2-normalised, so a dot product *is* the cosine similarity and FAISS inner-product
indexes can be used unchanged.

>>> import numpy as np
>>> class Toy:
...     name, dim = "toy", 2
...     def encode(self, texts, *, kind="passage", batch_size=64):
...         texts = check_texts(texts)
...         return encode_sorted(texts, batch_size, lambda b: np.array([[len(t), 1.0] for t in b]), 2)
>>> isinstance(Toy(), Embedder)
True
>>> print(Toy().encode(["abc", "a"]).round(3))
[[0.949 0.316]
 [0.707 0.707]]
>>> Toy().encode([]).shape
(0, 2)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, Protocol, cast, runtime_checkable

import numpy as np

Kind = Literal["query", "passage"]
KINDS: tuple[str, ...] = ("query", "passage")

# A device string is "cpu", "cuda" or "cuda:<index>"; anything else is a typo we want to
# reject up front rather than have torch/onnxruntime fail later with a less precise message.
_DEVICE_RE = re.compile(r"^(cpu|cuda(:\d+)?)$")


@runtime_checkable
class Embedder(Protocol):
    """A sentence embedder: texts in, L2-normalised float32 rows out.

    ``name`` identifies the model (it is part of any persisted index's metadata, so two
    indexes built with different models are never mixed); ``dim`` is the row width.
    """

    name: str
    dim: int

    def encode(self, texts: Sequence[str], *, kind: Kind = "passage", batch_size: int = 64) -> np.ndarray:
        """Embed ``texts``; returns float32 ``(len(texts), dim)``, rows L2-normalised.

        ``kind`` selects the prompt for asymmetric models (e5's ``query: `` / ``passage: ``);
        models without prompts ignore it. An empty list gives ``(0, dim)``.
        """
        ...


def check_texts(texts: object) -> list[str]:
    """Validate an ``encode`` argument and return it as a list of ``str``.

    A bare string is rejected: iterating it would silently embed single characters.

    >>> check_texts(("a", "b"))
    ['a', 'b']
    >>> check_texts("abc")
    Traceback (most recent call last):
    ...
    ValueError: texts must be a sequence of str, not a single str; wrap it: ['abc']
    >>> check_texts(["ok", 3])
    Traceback (most recent call last):
    ...
    ValueError: texts[1] must be str, got int
    """
    if isinstance(texts, str | bytes):
        raise ValueError(f"texts must be a sequence of str, not a single {type(texts).__name__}; "
                         f"wrap it: [{texts!r}]")
    if not isinstance(texts, Sequence | np.ndarray) and not hasattr(texts, "__iter__"):
        raise ValueError(f"texts must be a sequence of str, got {type(texts).__name__}")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise ValueError(f"texts[{i}] must be str, got {type(t).__name__}")
    return out


def check_kind(kind: object) -> Kind:
    """Validate ``kind``.

    >>> check_kind("query")
    'query'
    >>> check_kind("doc")
    Traceback (most recent call last):
    ...
    ValueError: kind must be 'query' or 'passage', got 'doc'
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be 'query' or 'passage', got {kind!r}")
    return cast(Kind, kind)


def check_batch_size(batch_size: object) -> int:
    """Validate ``batch_size`` (a positive int; bool is not accepted).

    >>> check_batch_size(0)
    Traceback (most recent call last):
    ...
    ValueError: batch_size must be a positive int, got 0
    """
    if isinstance(batch_size, int) and not isinstance(batch_size, bool) and batch_size >= 1:
        return batch_size
    raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")


def check_device(device: object) -> str:
    """Validate a device string: ``cpu``, ``cuda`` or ``cuda:<n>``.

    >>> check_device("cuda:1")
    'cuda:1'
    >>> check_device("gpu")
    Traceback (most recent call last):
    ...
    ValueError: unknown device 'gpu'; expected 'cpu', 'cuda' or 'cuda:<index>'
    """
    if isinstance(device, str) and _DEVICE_RE.match(device):
        return device
    raise ValueError(f"unknown device {device!r}; expected 'cpu', 'cuda' or 'cuda:<index>'")


def check_prompts(prompts: Mapping[str, str] | None) -> dict[str, str]:
    """Validate a ``{"query": ..., "passage": ...}`` prompt mapping (missing kinds get "").

    >>> check_prompts({"query": "query: "})
    {'query': 'query: ', 'passage': ''}
    """
    if prompts is None:
        return {k: "" for k in KINDS}
    bad = set(prompts) - set(KINDS)
    if bad:
        raise ValueError(f"prompts keys must be among {KINDS}, got extra {sorted(bad)}")
    for k, v in prompts.items():
        if not isinstance(v, str):
            raise ValueError(f"prompts[{k!r}] must be str, got {type(v).__name__}")
    return {k: prompts.get(k, "") for k in KINDS}


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalisation to float32; an all-zero row stays zero instead of NaN.

    >>> print(l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]])))
    [[0.6 0.8]
     [0.  0. ]]
    """
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, np.float32(1e-12))


def encode_sorted(texts: Sequence[str], batch_size: int, fn: Callable[[list[str]], np.ndarray],
                  dim: int) -> np.ndarray:
    """Run ``fn`` over length-sorted batches of ``texts`` and return rows in input order.

    Sorting by length (longest first) keeps texts of similar length together, so a padded
    back-end wastes little compute on padding, and the first batch is the largest, so an
    out-of-memory error shows up immediately rather than at the end of a long run. Memory is
    bounded by one batch of activations plus the ``(n, dim)`` output. Rows from ``fn`` are
    L2-normalised here, so every back-end honours the protocol the same way.

    >>> encode_sorted(["bb", "a", "ccc"], 2, lambda b: np.array([[len(t), 0.0] for t in b]), 2)[:, 0]
    array([1., 1., 1.], dtype=float32)
    """
    check_batch_size(batch_size)
    n = len(texts)
    out = np.empty((n, dim), dtype=np.float32)
    if n == 0:
        return out
    # Stable sort: equal-length texts keep their relative order, so results are reproducible.
    order = sorted(range(n), key=lambda i: -len(texts[i]))
    for start in range(0, n, batch_size):
        idx = order[start:start + batch_size]
        rows = np.asarray(fn([texts[i] for i in idx]), dtype=np.float32)
        if rows.shape != (len(idx), dim):
            raise RuntimeError(f"back-end returned shape {rows.shape}, expected {(len(idx), dim)}")
        out[idx] = l2_normalize(rows)
    return out
