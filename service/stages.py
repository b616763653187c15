"""The cascade's stages, each written once: exact, gated n-gram, MinHash, embedding.

A :class:`Stage` knows its name, its threshold, how to find candidates for one item in the
candidate state (best first), how to score one pair, and whether it can settle an item without
the encoder. ``Cascade.match`` (an item against the state), ``Cascade.pair`` (two items) and
the vector prefetch (which items of a batch the cheap stages cannot settle) all iterate the
same tuple of stages, so adding or retuning a stage is one class here.

The stages only *propose*: the cascade walks their candidates, asks the guards about each, and
keeps the evidence (``Trace``). Every threshold read here is ``EngineConfig``'s, where each is
commented with what it was calibrated on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from index.exact import ExactIndex
from index.features import ItemFeatures
from index.minhash import MinHashIndex, jaccard
from index.ngram import GatedNgramIndex
from index.text import content_units
from service.config import EngineConfig
from service.scoring import EmbeddingScorer, Scored
from service.types import GuardVerdict, StageName

if TYPE_CHECKING:
    from service.doctable import DocTable
    from service.state import CandidateState

VectorFn = Callable[[], "np.ndarray | None"]
Encode = Callable[[Sequence[str]], np.ndarray]
PairVectors = Callable[[], "tuple[np.ndarray, np.ndarray] | None"]
Window = tuple[float, float]


# The fewest letters and digits (a Hangul syllable counts 2: index.text.content_units) the text
# the encoder reads must hold before the embedding alone may call a pair the same. Below it an
# encoder's vectors mean little: USE-multilingual scores the single letters "a" and "b" at
# cosine 0.79, over its 0.625 threshold. 3 is the shortest text that can name something ("Fed",
# "AI 칩", "북한" = 4). Measured on every dev pair set of /work/shared/eval-data (~130,000 texts):
# 15 texts fall under it (ko-question-pair and koen-news-park, one-syllable chat like "야"), and
# two verdicts change: ko-question-pair/kor_pair_train.csv/3642 (label 0, cosine 0.774) is no
# longer a false positive, kor_pair_train.csv/4979 (label 1, 0.896) becomes a false negative.
# Raising it stops short-but-real headlines ("Fed" alone, 3) from merging by embedding; lowering
# it lets two letters merge again. The exact, n-gram and MinHash stages, which read the
# characters themselves, are not held back.
MIN_EMBED_CONTENT = 3


def too_little_content(text: str) -> str | None:
    """Why the embedding alone may not judge ``text`` the same as another, or None.

    >>> too_little_content("a")
    "embedding: too little content to judge by meaning ('a': 1 letters/digits < 3)"
    >>> too_little_content("가나") is None
    True
    """
    units = content_units(text)
    if units >= MIN_EMBED_CONTENT:
        return None
    shown = text if len(text) <= 40 else text[:39] + "…"
    return f"embedding: too little content to judge by meaning ({shown!r}: {units} letters/digits < {MIN_EMBED_CONTENT})"


@dataclass
class Trace:
    """Evidence gathered while walking the stages for one item."""

    reasons: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)
    guards: list[GuardVerdict] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    tried: set[int] = field(default_factory=set)
    best: tuple[StageName, float] | None = None

    def saw(self, stage: StageName, score: float) -> None:
        self.scores[stage] = max(score, self.scores.get(stage, float("-inf")))
        if self.best is None or score > self.best[1]:
            self.best = (stage, score)


@dataclass(frozen=True)
class Refs:
    """How a reason names what an item matched: the store's documents and copy groups (ingest,
    settling), or, with ``positions``, input positions as the passage kind of dedupe names them
    (``#0``): the stateless headline dedupe's documents are its inputs, each group named by its
    anchor, the first input in it.

    >>> Refs().group(7, 12), Refs(positions=True).group(0, 0), Refs(positions=True).doc(3)
    ('copy group 7 (anchor 12)', '#0', '#3')
    """

    positions: bool = False

    def doc(self, doc: int) -> str:
        return f"#{doc}" if self.positions else f"document {doc}"

    def anchor(self, doc: int) -> str:
        return f"#{doc}" if self.positions else f"anchor {doc}"

    def group(self, cluster: int, doc: int) -> str:
        return f"#{doc}" if self.positions else f"copy group {cluster} (anchor {doc})"


@dataclass
class Probe:
    """One item on its way through the stages against a candidate state.

    ``vector`` embeds the item on first call (None without an embedder); ``window`` bounds the
    candidates' times (None: no bound, stateless dedupe); ``scored`` is the embedding stage's
    per-representative scores, kept for the reasons it writes.
    """

    item: ItemFeatures
    state: CandidateState
    vector: VectorFn
    window: Window | None
    exclude_doc: int | None = None
    trace: Trace = field(default_factory=Trace)
    scored: dict[int, Scored] = field(default_factory=dict)
    # Representatives scored headline with headline (only one side has a body): their reason says so.
    headline_only: set[int] = field(default_factory=set)
    refs: Refs = field(default_factory=Refs)
    # Per cheap stage that searched with a window: its hits outside the window at or above its
    # threshold, best first, from the same search (computed when called). An item no stage found
    # a candidate for names the first as its reason (``Cascade._outside_window``).
    outside: dict[StageName, Callable[[], list[tuple[int, float]]]] = field(default_factory=dict)

    def in_window(self, doc: int) -> bool:
        return self.window is None or self.window[0] <= self.state.entries.time_of(doc) <= self.window[1]


@dataclass(frozen=True)
class PairScore:
    """One stage's score for a pair: the scores it adds to ``Decision.scores`` (in order), and
    the reason when it proposes the pair as the same (None when it does not)."""

    score: float
    scores: dict[str, float]
    reason: str | None


@dataclass(frozen=True)
class PairInputs:
    """What ``Cascade.pair`` gives every stage: the n-gram IDF weights and the two vectors."""

    idf: GatedNgramIndex
    vectors: PairVectors
    embed_text: Callable[[ItemFeatures], str]
    # Embeds headlines for the like-with-like score (``EmbeddingStage.encode``); None: not scored.
    encode: Encode | None = None


class CheapIndices(Protocol):
    """What the cheap stages read to predict a settlement: the candidate state, or the earlier
    items of the same batch (:class:`BatchIndices`)."""

    @property
    def entries(self) -> Container[int]: ...
    @property
    def exact(self) -> ExactIndex: ...
    @property
    def ngram(self) -> GatedNgramIndex: ...
    @property
    def minhash(self) -> MinHashIndex | None: ...


class BatchIndices:
    """The earlier items of one batch, for the prefetch's prediction: exact and gated n-grams,
    the two passes that settle most copies (syndicated copies often arrive together). A MinHash
    index per batch would cost more than it saves, so ``minhash`` is None."""

    minhash: MinHashIndex | None = None

    def __init__(self) -> None:
        self.entries: set[int] = set()
        self.exact = ExactIndex()
        self.ngram = GatedNgramIndex()

    def add(self, i: int, f: ItemFeatures) -> None:
        self.entries.add(i)
        self.exact.add(i, [f.content_key, f.title_key])
        self.ngram.add(i, f.lead, f.grams, f.time)


class Stage(ABC):
    """One pass of the cascade. Subclasses fill in the threshold, the candidates, the reasons and
    the pair score; ``active`` and ``settles`` have defaults."""

    name: StageName
    settles_cheaply: bool = True  # decides without the encoder (the prefetch skips what these settle)

    @property
    @abstractmethod
    def threshold(self) -> float: ...

    def active(self, state: CandidateState) -> bool:
        """Whether the stage runs against this state (the embedding stage needs a vector index)."""
        return True

    @abstractmethod
    def candidates(self, probe: Probe) -> Iterable[tuple[int, float]]:
        """(document, score) pairs, best first; the walk stops at the first below ``threshold``.
        A cheap stage searching with a window also files its hits outside it in ``probe.outside``."""

    @abstractmethod
    def describe(self, probe: Probe, doc: int, score: float) -> str:
        """The reason recorded when ``doc`` is proposed."""

    def settles(self, f: ItemFeatures, where: CheapIndices, window: Window) -> bool:
        """Whether a candidate in ``where`` reaches the threshold (guards aside): the prefetch's
        prediction that the item will not need its vector."""
        return False

    @abstractmethod
    def score_pair(self, a: ItemFeatures, b: ItemFeatures, inputs: PairInputs) -> PairScore | None:
        """The pair's score, or None when the stage cannot score it (no vectors)."""


def exact_match_words(f: ItemFeatures, whole: bool) -> str:
    """What an exact match of ``f`` matched on: its whole-text key (``whole``) or its title key.
    An item with no body (a headline, ``dedupe --kind headline``) has a whole-text key that hashes
    its title alone, so a match on it is "title", not "title and body".

    >>> from index.features import ItemFeatures
    >>> exact_match_words(ItemFeatures.build("Fed raises rates", "", "en", 0.0), whole=True)
    'title'
    >>> exact_match_words(ItemFeatures.build("Fed raises rates", "The Fed raised rates.", "en", 0.0), whole=True)
    'title and body'
    """
    return "title and body" if whole and f.body_lead_text else "title"


def same_words(a: ItemFeatures, b: ItemFeatures) -> bool:
    """The two say the same words: the same normalised title and body, or the same title (the
    exact stage's keys)."""
    keys = a.exact_keys  # a key of a text with no words is not among them
    return (a.content_key == b.content_key and a.content_key in keys) or (a.title_key == b.title_key
                                                                            and a.title_key in keys)


class ExactStage(Stage):
    """Identical normalised title and body, then identical title. Every member counts."""

    name: StageName = "exact"

    @property
    def threshold(self) -> float:
        return 1.0  # an exact hit scores 1.0: every one is proposed

    def candidates(self, probe: Probe) -> Iterable[tuple[int, float]]:
        state, exclude = probe.state, probe.exclude_doc
        found = [d for key in probe.item.exact_keys for d in state.exact.lookup(key)
                 if d != exclude and d in state.entries]
        if probe.window is None:
            return [(d, 1.0) for d in found]
        if found:
            probe.outside[self.name] = lambda: [(d, 1.0) for d in found if not probe.in_window(d)]
        return ((d, 1.0) for d in found if probe.in_window(d))

    def describe(self, probe: Probe, doc: int, score: float) -> str:
        # A document found under the item's whole-text key was found there first.
        whole = doc in probe.state.exact.lookup(probe.item.content_key)
        return f"exact: same normalised {exact_match_words(probe.item, whole)} as {probe.refs.doc(doc)}"

    def settles(self, f: ItemFeatures, where: CheapIndices, window: Window) -> bool:
        # Any time: a copy outside the window is rare, and then embedded on its own later.
        return any(d in where.entries for k in f.exact_keys for d in where.exact.lookup(k))

    def score_pair(self, a: ItemFeatures, b: ItemFeatures, inputs: PairInputs) -> PairScore:
        if same_words(a, b):
            what = exact_match_words(a, a.content_key == b.content_key)
            return PairScore(1.0, {"exact": 1.0}, f"exact: same normalised {what}")
        return PairScore(0.0, {"exact": 0.0}, None)


class ConfiguredStage(Stage):
    """A stage whose threshold is a field of the engine's config (read on each use)."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config


class NgramStage(ConfiguredStage):
    """Subject-gated IDF-weighted 3-gram Jaccard against anchors in the same lead-token bucket.

    An empty lead token buckets with other empty keys (seed 000): the gate steps aside.
    """

    name: StageName = "ngram"

    @property
    def threshold(self) -> float:
        return self.config.copy.ngram_threshold

    def candidates(self, probe: Probe) -> Iterable[tuple[int, float]]:
        f = probe.item
        if probe.window is None:
            return probe.state.ngram.candidates(f.lead, f.grams)
        inside, probe.outside[self.name] = probe.state.ngram.candidates_split(f.lead, f.grams, probe.window,
                                                                               self.threshold)
        return inside

    def describe(self, probe: Probe, doc: int, score: float) -> str:
        return (f"ngram: weighted 3-gram Jaccard {score:.3f} >= {self.threshold} "
                f"with {probe.refs.anchor(doc)} (lead '{probe.item.lead}')")

    def settles(self, f: ItemFeatures, where: CheapIndices, window: Window) -> bool:
        return bool(where.ngram.candidates(f.lead, f.grams, window=window, min_score=self.threshold))

    def score_pair(self, a: ItemFeatures, b: ItemFeatures, inputs: PairInputs) -> PairScore:
        gated = a.lead == b.lead
        s = inputs.idf.score(a.grams, b.grams) if gated else 0.0
        reason = (f"ngram: weighted 3-gram Jaccard {s:.3f} >= {self.threshold} (lead '{a.lead}')"
                  if gated and s >= self.threshold else None)
        return PairScore(s, {"ngram": s}, reason)


class MinHashStage(ConfiguredStage):
    """MinHash LSH across the history, each hit verified by the exact 3-gram Jaccard."""

    name: StageName = "minhash"

    @property
    def threshold(self) -> float:
        return self.config.copy.minhash_threshold

    def candidates(self, probe: Probe) -> Iterable[tuple[int, float]]:
        if probe.window is None:
            return probe.state.minhash.candidates(probe.item.grams)
        inside, probe.outside[self.name] = probe.state.minhash.candidates_split(probe.item.grams, probe.window,
                                                                                 self.threshold)
        return inside

    def describe(self, probe: Probe, doc: int, score: float) -> str:
        return f"minhash: 3-gram Jaccard {score:.3f} >= {self.threshold} with {probe.refs.anchor(doc)}"

    def settles(self, f: ItemFeatures, where: CheapIndices, window: Window) -> bool:
        if where.minhash is None:
            return False
        return any(s >= self.threshold for _, s in where.minhash.candidates(f.grams, window=window)[:1])

    def score_pair(self, a: ItemFeatures, b: ItemFeatures, inputs: PairInputs) -> PairScore:
        s = jaccard(a.grams, b.grams)
        reason = f"minhash: 3-gram Jaccard {s:.3f} >= {self.threshold}" if s >= self.threshold else None
        return PairScore(s, {"minhash": s}, reason)


class EmbeddingStage(Stage):
    """The survivors' vectors against one vector per cluster, scored by the engine's scorer
    (plain cosine, or the learned cross-lingual scorer)."""

    name: StageName = "embedding"
    settles_cheaply = False

    def __init__(self, config: EngineConfig, scorer: EmbeddingScorer, embed_text: Callable[[ItemFeatures], str]
                 ) -> None:
        self.config = config
        self.scorer = scorer
        self.embed_text = embed_text
        # Set by the cascade when a slot-confirmed band exists (guards on): hits down to this
        # cosine are scored too, so the cascade can try them once no stage took a candidate.
        self.confirm_floor: float | None = None
        # Set by the cascade when a pair verifier is on: hits down to this cosine are scored too,
        # for its Korean-English rescue (``Cascade._rescue_hits``).
        self.verify_floor: float | None = None
        # Set by the engine (``Cascade.use_encoder``): embeds headlines, so that a pair where only
        # one side has a body is also scored headline with headline (:meth:`_headline_scores`).
        self.encode: Encode | None = None

    def has_body(self, f: ItemFeatures) -> bool:
        """What the stage embeds for ``f`` is more than its headline (a body lead is read too)."""
        return bool(f.title.strip()) and self.embed_text(f) != f.embed_headline

    def stored_has_body(self, entries: DocTable, doc: int) -> bool:
        """:meth:`has_body` of a stored document. One without a body lead has none to embed: its
        column says so without building its features, as most hits are headlines (issue 37)."""
        return entries.has_lead_text(doc) and self.has_body(entries.features(doc))

    def _headline_scores(self, probe: Probe, vec: np.ndarray, hits: list[tuple[int, float]]) -> dict[int, Scored]:
        """Like compared with like: where only one side has a body, the headline-with-headline
        score of each such cluster among the hits (and, for an item with a body, among the
        hits of its headline alone), by cluster.

        A headline plus a lead against a bare headline scores a translation low: "한국은행,
        기준금리 연 3.50%로 동결" with its body against "Bank of Korea holds key rate at 3.50%"
        gave cosine 0.47, headline to headline 0.71 (issue 36). The better of the two scores
        stands; the guards vet the merge as any other (they read the body's lead too).
        """
        if self.encode is None:
            return {}
        state, f = probe.state, probe.item
        vectors = state.vectors
        assert vectors is not None
        entries = state.entries
        out: dict[int, Scored] = {}
        if self.has_body(f):
            head_vec = self.encode([f.embed_headline])[0]
            head_hits = vectors.search(head_vec.reshape(1, -1), self.config.copy.embedding_k, window=probe.window)[0]
            bare = [(c, state.reps[c]) for c, _ in head_hits
                    if c in state.reps and not self.stored_has_body(entries, state.reps[c])]
            if bare:
                feats = [entries.features(r) for _, r in bare]
                scored = self.scorer.score(f, head_vec, feats, vectors.get([c for c, _ in bare]),
                                           (f.headline, [rf.headline for rf in feats]))
                out.update((c, sc) for (c, _), sc in zip(bare, scored, strict=True))
            return out
        bodied = [(c, state.reps[c]) for c, _ in hits
                  if c in state.reps and self.stored_has_body(entries, state.reps[c])]
        if bodied:
            feats = [entries.features(r) for _, r in bodied]
            heads = self.encode([rf.embed_headline for rf in feats])
            scored = self.scorer.score(f, vec, feats, heads, (f.headline, [rf.headline for rf in feats]))
            out.update((c, sc) for (c, _), sc in zip(bodied, scored, strict=True))
        return out

    @property
    def threshold(self) -> float:
        return self.scorer.threshold

    def active(self, state: CandidateState) -> bool:
        return state.vectors is not None

    def candidates(self, probe: Probe) -> Iterable[tuple[int, float]]:
        state, trace, f = probe.state, probe.trace, probe.item
        vectors = state.vectors
        if vectors is None:
            return []
        thin = too_little_content(self.embed_text(f))
        if thin is not None:  # no vector of it is worth a search (MIN_EMBED_CONTENT)
            trace.reasons.append(thin)
            return []
        vec = probe.vector()
        if vec is None or not len(vectors):
            return []
        hits = vectors.search(vec.reshape(1, -1), self.config.copy.embedding_k, window=probe.window)[0]
        heads = self._headline_scores(probe, vec, hits)
        # The scorer's floor (plain cosine: its threshold), lowered to the slot-confirmed band and
        # the verifier's rescue band when those are on.
        floor = self.scorer.floor
        for low in (self.confirm_floor, self.verify_floor):
            if low is not None:
                floor = min(floor, low)
        clusters = [c for c, s in hits if c in state.reps and s >= floor]
        clusters += [c for c, sc in heads.items() if c not in clusters and sc.cosine >= floor]
        reps = [state.reps[c] for c in clusters]
        if not reps:
            if hits:
                trace.saw("embedding", hits[0][1] if not self.scorer.learned else 0.0)
                trace.scores["cosine"] = hits[0][1]
            return []
        rep_feats = [state.entries.features(r) for r in reps]
        rep_texts = [self.embed_text(rf) for rf in rep_feats]
        # A representative with too little content is never joined by its vector alone either.
        keep = [i for i, t in enumerate(rep_texts) if too_little_content(t) is None]
        if len(keep) < len(reps):
            clusters, reps = [clusters[i] for i in keep], [reps[i] for i in keep]
            rep_feats, rep_texts = [rep_feats[i] for i in keep], [rep_texts[i] for i in keep]
            if not reps:
                return []
        scored = self.scorer.score(f, vec, rep_feats, vectors.get(clusters), (self.embed_text(f), rep_texts))
        for i, c in enumerate(clusters):
            if c in heads and heads[c].score > scored[i].score:
                scored[i] = heads[c]
                probe.headline_only.add(reps[i])
        probe.scored = dict(zip(reps, scored, strict=True))
        for sc in scored:
            trace.scores["cosine"] = max(sc.cosine, trace.scores.get("cosine", float("-inf")))
        return sorted(((r, sc.score) for r, sc in probe.scored.items()), key=lambda x: -x[1])

    def describe(self, probe: Probe, doc: int, score: float) -> str:
        like = HEADLINE_NOTE if doc in probe.headline_only else ""
        return (f"embedding: {probe.scored[doc].describe(self.threshold, self.scorer.learned)}{like} with "
                f"{probe.refs.group(probe.state.entries.cluster_of(doc), doc)}")

    def score_pair(self, a: ItemFeatures, b: ItemFeatures, inputs: PairInputs) -> PairScore | None:
        pair = inputs.vectors()
        if pair is None:
            return None
        va, vb = pair
        sc = self.scorer.score(a, va, [b], vb.reshape(1, -1), (self.embed_text(a), [self.embed_text(b)]))[0]
        like = ""
        if inputs.encode is not None and self.has_body(a) != self.has_body(b):
            ha, hb = inputs.encode([a.embed_headline, b.embed_headline])
            head = self.scorer.score(a, ha, [b], hb.reshape(1, -1), (a.headline, [b.headline]))[0]
            if head.score > sc.score:
                sc, like = head, HEADLINE_NOTE
        thin = too_little_content(self.embed_text(a)) or too_little_content(self.embed_text(b))
        reason = f"embedding: {sc.describe(self.threshold, self.scorer.learned)}{like}" \
            if sc.score >= self.threshold and thin is None else None
        return PairScore(sc.score, {"embedding": sc.score, "cosine": sc.cosine}, reason)


# How a reason says that the score is the headlines' (only one side had a body).
HEADLINE_NOTE = " (headline with headline: only one side has a body)"


def default_stages(config: EngineConfig, scorer: EmbeddingScorer,
                   embed_text: Callable[[ItemFeatures], str]) -> tuple[Stage, ...]:
    """The cascade's stages, cheapest first."""
    return (ExactStage(), NgramStage(config), MinHashStage(config), EmbeddingStage(config, scorer, embed_text))


def cheaply_unsettled(stages: Sequence[Stage], feats: Sequence[ItemFeatures], state: CheapIndices,
                      window_s: float) -> list[int]:
    """Indices of the items no cheap stage settles, against ``state`` or an earlier item of the
    same batch: the ones worth embedding in one batch before the cascade runs.

    An item that a later stage of an earlier batch item settles is then embedded for nothing;
    that is rare and far cheaper than one encoder call per item.
    """
    cheap = [s for s in stages if s.settles_cheaply]
    batch = BatchIndices()
    need = []
    for i, f in enumerate(feats):
        w = (f.time - window_s, f.time + window_s)
        settled = any(s.settles(f, where, w) for where in (state, batch) for s in cheap)
        batch.add(i, f)
        if not settled:
            need.append(i)
    return need


def veto_reason(blocking: Sequence[GuardVerdict]) -> str:
    """The one way a veto is written: ``vetoed: <evidence>; <evidence>`` (a guard's name where
    it gave no evidence)."""
    return "vetoed: " + "; ".join(v.evidence or v.guard for v in blocking)


def guard_notes(verdicts: Sequence[GuardVerdict]) -> list[str]:
    """The reasons a let-through merge records: what each deciding guard found."""
    return [f"guard {v.evidence}" for v in verdicts if v.decided and v.evidence]
