"""The engine's stateless comparisons: pairs compared, and lists of headlines deduplicated,
through the same cascade and guards as ``ingest``, without the store or the candidate state
(``Deduper.compare``, ``compare_pairs``, ``dedupe(kind="headline")``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from index.features import ItemFeatures
from service.cascade import Cascade
from service.context import EngineContext
from service.passages import DroppedRecord
from service.placement import enter_copy, place_copy
from service.scoring import CosineScorer
from service.stages import Refs
from service.types import Article, ArticleError, Decision


@dataclass
class DedupeResult:
    """Stateless dedupe of a batch of headlines (``Deduper.dedupe(kind="headline")``).

    ``clusters`` lists input indices per group, ``keep`` the index kept from each group (the
    first occurrence), ``decisions`` one Decision per input. ``selected`` are the kept records as
    given and ``filtered`` the dropped ones with why, as the passage kind gives them
    (``records`` holds the inputs; empty when the result was built from positions alone).
    ``rethreshold`` re-groups with a stricter embedding threshold without re-embedding (semhash
    style).
    """

    clusters: list[list[int]]
    keep: list[int]
    decisions: list[Decision]
    duplicate_of: list[int | None] = field(default_factory=list)
    records: list[Any] = field(default_factory=list)

    @property
    def selected(self) -> list[Any]:
        """The kept records, in input order."""
        return [self.records[i] for i in sorted(self.keep)] if self.records else []

    @property
    def filtered(self) -> list[DroppedRecord]:
        """The dropped records, each with the input it copies and the stage that decided."""
        if not self.records:
            return []
        return [DroppedRecord(i, self.records[i], j, d.stage, d.score, tuple(d.reasons))
                for i, (j, d) in enumerate(zip(self.duplicate_of, self.decisions, strict=True)) if j is not None]

    def rethreshold(self, threshold: float) -> DedupeResult:
        """Split off items merged by the embedding stage below ``threshold`` (only ever stricter)."""
        dup = list(self.duplicate_of)
        decisions = list(self.decisions)
        for i, d in enumerate(decisions):
            if dup[i] is not None and d.stage == "embedding" and (d.score or 0.0) < threshold:
                dup[i] = None
        return _group(dup, decisions, self.records)


def _group(dup: list[int | None], decisions: list[Decision], records: Sequence[Any] = ()) -> DedupeResult:
    root = list(range(len(dup)))
    for i, j in enumerate(dup):
        if j is not None:
            root[i] = root[j]
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(root):
        groups.setdefault(r, []).append(i)
    clusters = list(groups.values())
    return DedupeResult(clusters, [g[0] for g in clusters], decisions, dup, list(records))


def pair_features(pair: object, name: str) -> tuple[ItemFeatures, ItemFeatures]:
    """Both sides' features; a refusal names the side (``a: an article needs ...``).

    >>> pair_features(("Fed raises rates", None), "pairs[0]")
    Traceback (most recent call last):
    ...
    TypeError: pairs[0].b must be an Article or a string, got NoneType
    """
    # Any two items but a string's characters or a mapping's keys: a tuple, a list, a row of a
    # numpy array (``df[["a", "b"]].to_numpy()``), as ``for a, b in pairs`` read them before.
    sides: tuple[object, ...] | None
    try:
        sides = None if isinstance(pair, (str, bytes, Mapping, Article)) else tuple(pair)  # type: ignore[arg-type]
    except TypeError:
        sides = None
    if sides is None or len(sides) != 2:
        raise TypeError(f"{name} must be a pair (a, b), got {pair!r}"[:200])
    out = []
    for side, item in zip("ab", sides, strict=True):
        where = f"{name}.{side}" if name else side
        if not isinstance(item, (Article, str)):
            raise TypeError(f"{where} must be an Article or a string, got {type(item).__name__}")
        try:
            out.append(features(item))
        except ArticleError as exc:
            raise ArticleError(f"{where}: {exc}") from None
    return out[0], out[1]


def features(item: Article | str) -> ItemFeatures:
    """An item compared without a store (untimed unless it says when it was published)."""
    a = item if isinstance(item, Article) else Article(title=item)
    t = a.published_at.timestamp() if a.published_at else 0.0
    return ItemFeatures.build(a.title, a.body, a.lang or "und", t, source=a.source, url=a.url)


def compare_pairs(ctx: EngineContext, pairs: Sequence[tuple[Article | str, Article | str]], *,
                  progress: bool = False, all_scores: bool = False, batch_size: int = 512,
                  where: Callable[[int], str] = lambda i: f"pairs[{i}]") -> list[Decision]:
    """Each pair's verdict, with the embedder called in batches (``Deduper.compare_pairs``). A
    refused side is named by ``where(index)`` and ``a`` or ``b`` (``pairs[2].b: title must ...``)."""
    feats = [pair_features(pair, where(i)) for i, pair in enumerate(pairs)]
    out: list[Decision] = []
    bar = tqdm(total=len(feats), disable=not progress, unit="pair", desc="compare")
    for start in range(0, len(feats), batch_size):
        chunk = feats[start : start + batch_size]
        vec: dict[str, np.ndarray] = {}
        if ctx.embedder is not None:
            texts = list(dict.fromkeys(ctx.embed_text(f) for pair in chunk for f in pair))
            if texts:
                vec = dict(zip(texts, ctx.encode(texts), strict=True))
        for fa, fb in chunk:
            def vectors(fa: ItemFeatures = fa, fb: ItemFeatures = fb,
                        vec: dict[str, np.ndarray] = vec) -> tuple[np.ndarray, np.ndarray] | None:
                if not vec:
                    return None
                return vec[ctx.embed_text(fa)], vec[ctx.embed_text(fb)]
            out.append(ctx.cascade.pair(fa, fb, ctx.state.ngram, vectors, all_scores=all_scores))
        bar.update(len(chunk))
    bar.close()
    return out


def dedupe_headlines(ctx: EngineContext, texts: Sequence[str], *, threshold: float | None = None,
                     progress: bool = False, records: Sequence[Any] | None = None) -> DedupeResult:
    """Each text is matched, in order, against the groups formed so far, through the same
    cascade and guards as ``ingest`` (``progress``: a bar on stderr). ``records``: the inputs the
    texts came from (the result's ``selected`` / ``filtered``); the texts themselves if None."""
    if not isinstance(texts, (list, tuple)) or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a list of strings")
    config = ctx.config if threshold is None else ctx.config.replace(embedding_threshold=threshold)
    # An explicit threshold is a cosine threshold: the caller re-thresholds plain similarity.
    scorer = ctx.scorer if threshold is None or ctx.scorer is None else CosineScorer(threshold)
    # Reasons name inputs by position (#0), as the passage kind does: each input is its own document.
    cascade = Cascade(config, ctx.guards, scorer, verifier=ctx.verifier, refs=Refs(positions=True))
    state = ctx.new_state(config)  # headlines only: no body on either side, no encoder needed
    feats = [ItemFeatures.build(t, "", "und", 0.0) for t in texts]
    # The cascade's principle holds here too: only chunks the cheap passes cannot settle
    # against earlier chunks are embedded, in one batch.
    vecs = ctx.prefetch_vectors(feats, state, cascade)
    decisions: list[Decision] = []
    dup: list[int | None] = []
    for i, f in enumerate(tqdm(feats, desc="dedupe", unit="item", disable=not progress)):
        text = cascade.embed_text(f)

        def vector_fn(text: str = text) -> np.ndarray | None:
            if ctx.embedder is None:
                return None
            if text not in vecs:
                vecs[text] = ctx.encode([text])[0]
            return vecs[text]

        if f.empty:
            decisions.append(Decision(False, "none", None, ["empty text"]))
            dup.append(None)
            continue
        # The ingest's own copy decision and its application (service.placement): each text is its
        # own document and, when it founds a group, the group's id.
        p = place_copy(cascade, state, f, vector_fn, None)
        # A text that founds a group brings its vector for the later texts, embedded now if no
        # stage needed it (the ingest keeps only a vector it had to compute).
        group = enter_copy(state, p, doc_id=i, version_id=i, features=f, url=None, source=None,
                           new_group=functools.partial(int, i), vector=None if p.joins else vector_fn())
        dup.append(state.reps[group] if p.joins else None)
        # A text that joined nothing is kept: its stage is "none", as the passage kind and the ingest
        # say it (service.types.matched_stage), not the last stage the cascade ran; score, reasons
        # and blocked_by still say what the stages saw.
        decisions.append(p.decision if p.joins else dataclasses.replace(p.decision, stage="none"))
    return _group(dup, decisions, texts if records is None else records)

