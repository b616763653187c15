"""The batch plan: stages as pure functions over batches of columns (Ray Data ``map_batches`` shape).

A batch is a ``dict[str, numpy array]``; every stage takes one and returns one, reads nothing
else and keeps nothing, so the same function runs in one process (``service.batch.local``) or
on a Ray cluster (``service.batch.ray_engine``). The stages:

1. :func:`featurize` - normalisation, exact keys, the subject-gate lead token, title 3-grams,
   MinHash band keys and the text the encoder would read (``index.features``, ``index.minhash``:
   the streaming engine's own functions, with the engine's own parameters).
2. :func:`explode_keys` then :func:`settle_group` - every exact key, LSH band key and lead
   token becomes a row; grouping by key is the one shuffle that brings candidates together.
   Inside a group, a later item that an earlier one matches by a cheap pass (same exact key,
   band-mate with verified 3-gram Jaccard, gated 3-gram score in its lead bucket) is *settled*;
   with the pair verifier on, which reads every match but identity, only an exact key settles,
   so only exact keys are exploded (``exact_only``: 2 rows an item, not 28 with the default 25 LSH bands).
3. :class:`Embed` - only the survivors (items no cheap pass settles) are embedded, in parallel
   actors;
4. the vector search over those embeddings, sharded by IVF list (``service.batch.neighbours``):
   candidate pairs the decide step answers its vector searches from.

The decisions themselves are made after these stages by ``service.batch.decide`` with the
streaming engine's own cascade, guards and representative rules, in input order. Stage 2
only chooses *what to embed*: a wrong guess costs time (an item embedded for nothing, or one
embedded late by the decide step), never a different decision.

>>> cols = {"row": np.array([0, 1, 2]), "title": np.array(["Fed raises rates", "FED RAISES RATES",
...         "Samsung posts record profit"], dtype=object), "body": np.array(["", "", ""], dtype=object),
...         "lang": np.array(["en", "en", "en"], dtype=object), "time": np.zeros(3)}
>>> feats = featurize(cols, config=EngineConfig())
>>> keys = explode_keys(feats)
>>> settled = [settle_group(group_rows(keys, k), config=EngineConfig()) for k in np.unique(keys["key"])]
>>> sorted({int(r) for s in settled for r in s["row"]})
[1]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from index.features import ItemFeatures
from index.minhash import MinHashIndex, jaccard
from index.ngram import GatedNgramIndex
from service.cascade import primary_lang
from service.config import EngineConfig
from service.stories import story_text

Batch = dict[str, np.ndarray]

# A band group is verified pairwise against at most this many earlier members: one hot band
# (a boilerplate title shared by thousands) must not make the shuffle quadratic. An item it
# leaves unverified is embedded, which costs time, not a different decision.
MAX_GROUP_COMPARISONS = 64


def _objects(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def features_of(title: str, body: str, lang: str, time: float) -> ItemFeatures:
    """The streaming engine's features of one item (``CopyLevel.ingest_chunk`` builds the same)."""
    return ItemFeatures.build(title, body, lang or "und", time)


def featurize(batch: Batch, *, config: EngineConfig) -> Batch:
    """Per item: exact keys, lead token, 3-gram ids, LSH band keys and the text to embed.

    Columns in: ``row``, ``title``, ``body``, ``lang``, ``time``. Columns out: ``row``,
    ``content_key``, ``title_key`` (int64), ``lead``, ``embed_text`` (str), ``grams`` and
    ``bands`` (bytes of uint32 / uint64 arrays, so any executor can move them), ``empty`` (bool),
    and what the search stage needs to tell which pairs the verifier's rescue can read
    (``service.batch.neighbours.node_languages``): ``primary_lang`` (``cascade.primary_lang``),
    ``bodied`` (the embedding stage embeds more than the headline: ``EmbeddingStage.has_body``)
    and ``headline`` (what that stage also searches for a bodied item; "" for the others); and
    ``story_text``: the text the story level embeds for the item when it is not ``embed_text``
    (``StoryLevel.evidence``: headline and body lead, ``stories.story_text``), else "".
    """
    mh = MinHashIndex(threshold=config.copy.minhash_lsh_threshold, num_perm=config.copy.minhash_num_perm)
    n = len(batch["row"])
    content, title_key = np.zeros(n, np.int64), np.zeros(n, np.int64)
    lead, text, grams, bands, empty = [], [], [], [], np.zeros(n, bool)
    langs, heads, bodied, stories = [], [], np.zeros(n, bool), []
    for i in range(n):
        title, body = str(batch["title"][i]), str(batch["body"][i] or "")
        f = features_of(title, body, str(batch["lang"][i] or ""), float(batch["time"][i]))
        content[i], title_key[i], empty[i] = f.content_key, f.title_key, f.empty
        lead.append(f.lead)
        text.append(f.embed_text(config.copy.embed_body_lead))
        langs.append(primary_lang(f))
        # as EmbeddingStage.has_body: the headline as the encoder reads it (Hanja in Hangul), so a
        # bare headline with Hanja is not taken for a bodied item
        bodied[i] = bool(f.title.strip()) and text[-1] != f.embed_headline
        heads.append(f.embed_headline if bodied[i] else "")
        # as StoryLevel.evidence: the story level embeds its own text only where it is not the copy level's
        story = story_text(title, body)
        stories.append(story if story != text[-1] else "")
        g = np.ascontiguousarray(f.grams, dtype=np.uint32)
        grams.append(g.tobytes())
        bands.append(np.asarray(mh.band_keys(g), dtype=np.uint64).tobytes() if g.size else b"")
    return {"row": np.asarray(batch["row"], np.int64), "content_key": content, "title_key": title_key,
            "lead": _objects(lead), "embed_text": _objects(text), "grams": _objects(grams),
            "bands": _objects(bands), "empty": empty, "primary_lang": _objects(langs),
            "bodied": bodied, "headline": _objects(heads), "story_text": _objects(stories)}


def explode_keys(batch: Batch, *, exact_only: bool = False) -> Batch:
    """One row per (item, key): its two exact keys, each LSH band key and its lead token, as
    strings so that one group-by (the shuffle) brings every kind of candidate together. Empty
    items have nothing to compare and get no keys.

    ``exact_only`` (the pair verifier on: :func:`settle_group` then settles by exact keys alone):
    the two exact keys, no band or lead rows, which would be shuffled to settle nothing.

    >>> cols = {"row": np.array([0]), "title": np.array(["Fed raises rates"], dtype=object),
    ...         "body": np.array([""], dtype=object), "lang": np.array(["en"], dtype=object), "time": np.zeros(1)}
    >>> feats = featurize(cols, config=EngineConfig())
    >>> len(explode_keys(feats)["key"]) > 2, [k[0] for k in explode_keys(feats, exact_only=True)["key"]]
    (True, ['c', 't'])
    """
    keys, rows, grams = [], [], []
    for i in range(len(batch["row"])):
        if batch["empty"][i]:
            continue
        row, g = int(batch["row"][i]), batch["grams"][i]
        band = [] if exact_only else np.frombuffer(batch["bands"][i], dtype=np.uint64).tolist()
        mine = [f"c{int(batch['content_key'][i])}", f"t{int(batch['title_key'][i])}",
                *(f"b{b}:{k}" for b, k in enumerate(band)), *([] if exact_only else [f"l:{batch['lead'][i]}"])]
        keys.extend(mine)
        rows.extend([row] * len(mine))
        grams.extend([g] * len(mine))
    return {"key": _objects(keys), "row": np.asarray(rows, np.int64), "grams": _objects(grams)}


def group_rows(batch: Batch, key: str) -> Batch:
    """The rows of ``batch`` whose ``key`` column equals ``key`` (what a group-by hands a group)."""
    mask = batch["key"] == key
    return {c: v[mask] for c, v in batch.items()}


def settle_group(group: Batch, *, config: EngineConfig) -> Batch:
    """Rows of one key group (all rows share ``key``) that an earlier member settles:

    - exact key (``c...``, ``t...``): every member after the first;
    - LSH band (``b...``): 3-gram Jaccard >= ``minhash_threshold`` with one of the earlier members;
    - lead token (``l:...``, the subject gate): the gated, IDF-weighted 3-gram pass against the
      earlier members of the bucket (IDF over the bucket: an estimate of the engine's, which is
      over the whole window; only what gets embedded depends on it).

    With the pair verifier on (``config.copy.verifier``) only exact keys settle: the verifier
    reads every band and lead match (identity alone stands without it) and refuses some, and
    the engine then embeds the item on the spot, one at a time. On the 20,000-item equivalence
    corpus that was 1,080 late embeds; embedding band and lead matches ahead instead costs
    1,787 more texts in the parallel stage (12,616 -> 14,403) and leaves 9 late
    (research/notes/scale.md, "late embeds").

    >>> g = {"key": np.array(["b0:1"] * 2, dtype=object), "row": np.array([0, 1]),
    ...      "grams": np.array([np.arange(9, dtype=np.uint32).tobytes()] * 2, dtype=object)}
    >>> [settle_group(g, config=EngineConfig.of(verifier=v))["row"].tolist() for v in (False, True)]
    [[1], []]
    """
    order = np.argsort(group["row"], kind="stable")
    rows = group["row"][order]
    grams = [np.frombuffer(group["grams"][j], dtype=np.uint32) for j in order]
    key = str(group["key"][0]) if len(rows) else ""
    settled: list[int] = []
    if len(rows) < 2:
        pass
    elif key[0] in "ct":
        settled = [int(r) for r in rows[1:]]
    elif config.copy.verifier:
        pass  # a band or lead match is the verifier's to accept: embedded ahead (see above)
    elif key[0] == "b":
        for i in range(1, len(rows)):
            lo = max(0, i - MAX_GROUP_COMPARISONS)
            if any(jaccard(grams[i], grams[j]) >= config.copy.minhash_threshold for j in range(lo, i)):
                settled.append(int(rows[i]))
    else:
        lead = key[2:]
        index = GatedNgramIndex()
        for row, g in zip(rows.tolist(), grams, strict=True):
            if g.size and index.candidates(lead, g, min_score=config.copy.ngram_threshold):
                settled.append(row)
            index.add(row, lead, g, 0.0)
    return {"row": np.asarray(settled, np.int64)}


def with_headlines(batch: Batch) -> Batch:
    """``batch`` (featurized items to embed) with one more row per bodied item: its ``headline``
    as ``embed_text`` and ``-1 - row`` as ``row``; the other columns copied.

    The embedding stage embeds a bodied item's headline too, for its headline-with-headline
    scores (``EmbeddingStage._headline_scores``): embedded here, not one at a time in the decide
    step, and in the search stage, where its pairs with bare texts tell which bodied groups a
    bare item's search may re-score (``CandidateVectors``).

    >>> b = {"row": np.array([3, 4]), "embed_text": np.array(["a. x", "b"], dtype=object),
    ...      "bodied": np.array([True, False]), "headline": np.array(["a", ""], dtype=object)}
    >>> out = with_headlines(b)
    >>> out["row"].tolist(), out["embed_text"].tolist()
    ([3, 4, -4], ['a. x', 'b', 'a'])
    """
    bodied = np.asarray(batch["bodied"], bool)
    if not bodied.any():
        return batch
    extra = {c: np.asarray(v)[bodied] for c, v in batch.items()}
    extra["row"] = -1 - np.asarray(batch["row"], np.int64)[bodied]
    extra["embed_text"] = np.asarray(batch["headline"], dtype=object)[bodied]
    extra["bodied"] = np.zeros(int(bodied.sum()), bool)  # a headline row is a text, not an item
    return {c: np.concatenate([np.asarray(batch[c]), extra[c]]) for c in batch}


def to_embed(batch: Batch, *, settled: np.ndarray) -> Batch:
    """The texts the embedding stage embeds for featurized ``batch``, with a ``story`` column:

    - False: the items no cheap pass settled (not empty, not in ``settled``) and a bodied one's
      headline (:func:`with_headlines`): the copy level's texts, the search stage's nodes;
    - True: every item's ``story_text`` where it has one (settled items too: a copy that joins
      its group brings its story evidence, ``StoryLevel.join``), one row per distinct text not
      among the first kind's. The story level asks for them one at a time in the decide step
      (1,595 of 1,628 late embeds on a 6,000-item corpus with bodies: research/notes/scale.md);
      they are no nodes of the copy-level search, which must stay streaming's.

    >>> b = {"row": np.array([0, 1]), "embed_text": np.array(["a. x", "b"], dtype=object),
    ...      "empty": np.array([False, False]), "bodied": np.array([True, False]),
    ...      "headline": np.array(["a", ""], dtype=object), "story_text": np.array(["a\\nx y", ""], dtype=object)}
    >>> out = to_embed(b, settled=np.array([0]))
    >>> out["embed_text"].tolist(), out["story"].tolist()
    (['b', 'a\\nx y'], [False, True])
    """
    keep = ~np.asarray(batch["empty"], bool) & ~np.isin(batch["row"], settled)
    copies = with_headlines({c: v[keep] for c, v in batch.items()})
    known = {str(t) for t in copies["embed_text"]}
    first: list[int] = []
    for i, t in enumerate(str(t) for t in batch["story_text"]):
        if t and t not in known:
            known.add(t)
            first.append(i)
    stories = {c: np.asarray(v)[first] for c, v in batch.items()}
    stories["embed_text"] = np.asarray(batch["story_text"], dtype=object)[first]
    stories["bodied"] = np.zeros(len(first), bool)  # a story row is a text, not an item
    out = {c: np.concatenate([np.asarray(copies[c]), stories[c]]) for c in batch}
    out["story"] = np.concatenate([np.zeros(len(copies["row"]), bool), np.ones(len(first), bool)])
    return out


class Embed:
    """Embeds a batch's ``embed_text`` column: ``vector`` (float32 rows as bytes) beside ``row``.

    A callable class, so an executor can keep one loaded model per worker (Ray actors);
    ``make_embedder()`` builds the model there rather than shipping it.
    """

    def __init__(self, make_embedder: Any) -> None:
        self.embedder = make_embedder()

    def __call__(self, batch: Batch) -> Batch:
        texts = [str(t) for t in batch["embed_text"]]
        vecs = np.asarray(self.embedder.encode(texts), dtype=np.float32) if texts else np.zeros((0, 1), np.float32)
        out = {"row": np.asarray(batch["row"], np.int64), "embed_text": batch["embed_text"],
               "vector": _objects([v.tobytes() for v in vecs])}
        if "story" in batch:  # a story text (to_embed): kept out of the search stage
            out["story"] = np.asarray(batch["story"], bool)
        return out
