"""A snapshot of the candidate state beside a SQLite store, so a warm restart loads instead of rebuilding.

Rebuilding the state from the store normalises every title again, hashes its 3-grams, computes
a 128-permutation MinHash signature per representative and fills the indices one document at
a time: about 9,000 documents/s on the project's 2 cores, so a 1M-document store needs
~100 s. The snapshot keeps the *derived* state as flat arrays (gram ids, n-gram slots and
document frequencies, LSH band keys, hashes, the few strings the guards read) and loads it
with no hashing at all.

It is an accelerator, never a source of truth (the store is):

* it is written at a clean ``Deduper.close()``, stamped with the store's change cursor, and
  used only when the store has had no change since (else the state is rebuilt from the store,
  as before): a stale snapshot can cost time, never a wrong decision;
* it is stamped with a fingerprint of everything that shapes the derived state (the source of
  the feature and index modules, the MinHash and n-gram parameters): a new engine version or
  a changed setting rebuilds rather than reuse features computed the old way;
* the file is written to a temporary name and renamed, so a crash mid-write leaves the previous
  file or none, and ``np.load`` reads it with ``allow_pickle=False`` (no code in the file runs).

>>> from service.config import EngineConfig
>>> from service.state import CandidateState, Entry
>>> from index.features import ItemFeatures
>>> import tempfile, pathlib
>>> cfg = EngineConfig()
>>> state = CandidateState(cfg, None)
>>> state.put(Entry(1, 1, 1, ItemFeatures.build("Fed raises rates by 25 basis points", "", "en", 0.0), None, None))
>>> state.set_rep(1, 1)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "store.db.state.npz"
>>> save_snapshot(state, path, cursor=7)
>>> loaded = load_snapshot(path, cfg, cursor=7)
>>> loaded.entries[1].features.title, loaded.reps
('Fed raises rates by 25 basis points', {1: 1})
>>> [d for d, _ in loaded.minhash.candidates(ItemFeatures.build("Fed raises rates by 25 basis points now", "", "en", 0.0).grams)]
[1]
>>> load_snapshot(path, cfg, cursor=8) is None  # the store moved on: rebuild instead
True
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from index import features as _features
from index import minhash as _minhash
from index import ngram as _ngram
from index import text as _text
from index.features import ItemFeatures
from service.config import EngineConfig
from service.state import CandidateState, Entry, exact_keys

log = logging.getLogger("samestory.snapshot")

FORMAT = 1
_STRING_FIELDS = ("title", "body_lead_text", "lang", "content_sha", "lead")


def fingerprint(config: EngineConfig) -> dict[str, Any]:
    """What must be equal for a snapshot's derived state to equal a fresh rebuild's.

    The feature and index modules are fingerprinted by their source: any change to
    normalisation, gram ids or band keys invalidates old snapshots without anyone having to
    remember to bump a version.
    """
    source = hashlib.sha256()
    for module in (_text, _features, _ngram, _minhash):
        source.update(Path(module.__file__ or "").read_bytes())
    probe = CandidateState(config, None)
    return {
        "format": FORMAT,
        "source": source.hexdigest()[:16],
        "minhash": [config.minhash_lsh_threshold, config.minhash_num_perm, probe.minhash.seed],
        "ngram": [probe.ngram.min_docs, probe.ngram.max_bucket],
    }


def save_snapshot(state: CandidateState, path: str | Path, *, cursor: int) -> None:
    """Write ``state`` (its cheap indices; vectors have their own file) stamped with ``cursor``."""
    path = Path(path)
    entries = list(state.entries.values())
    feats = [e.features for e in entries]
    arrays: dict[str, np.ndarray] = {
        "doc_id": np.array([e.doc_id for e in entries], dtype=np.int64),
        "version_id": np.array([e.version_id for e in entries], dtype=np.int64),
        "cluster_id": np.array([e.cluster_id for e in entries], dtype=np.int64),
        "time": np.array([f.time for f in feats], dtype=np.float64),
        "title_key": np.array([f.title_key for f in feats], dtype=np.int64),
        "content_key": np.array([f.content_key for f in feats], dtype=np.int64),
        "gram_offsets": np.cumsum([0, *(f.grams.size for f in feats)], dtype=np.int64),
        "grams": np.concatenate([f.grams for f in feats]) if feats else np.zeros(0, dtype=np.uint32),
        "rep_cluster": np.fromiter(state.reps.keys(), dtype=np.int64, count=len(state.reps)),
        "rep_doc": np.fromiter(state.reps.values(), dtype=np.int64, count=len(state.reps)),
    }
    for name in _STRING_FIELDS:
        arrays.update(_pack_strings(name, [getattr(f, name) for f in feats]))
    arrays.update(_pack_strings("url", [e.url for e in entries]))
    arrays.update(_pack_strings("source", [e.source for e in entries]))
    arrays.update({f"ngram_{k}": v for k, v in state.ngram.export_arrays().items()})
    arrays.update({f"minhash_{k}": v for k, v in state.minhash.export_arrays().items()})
    meta = {"cursor": int(cursor), "fingerprint": fingerprint(state.config), "documents": len(entries)}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    os.replace(tmp, path)


def load_snapshot(path: str | Path, config: EngineConfig, *, cursor: int) -> CandidateState | None:
    """The state saved at ``path`` if it was taken at ``cursor`` with this engine's fingerprint, else None.

    None means "rebuild from the store"; the reason is logged. The returned state has no
    vector index: the caller attaches its own.
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            meta = json.loads(npz["meta"].tobytes().decode("utf-8"))
            if int(meta.get("cursor", -1)) != int(cursor):
                log.info("state snapshot is stale (cursor %s, store %s); rebuilding", meta.get("cursor"), cursor)
                return None
            if meta.get("fingerprint") != fingerprint(config):
                log.info("state snapshot was taken by another engine version or setting; rebuilding")
                return None
            arrays = {k: npz[k] for k in npz.files}
        return _restore(arrays, config)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:  # a damaged file: rebuild
        log.warning("state snapshot %s not usable (%s); rebuilding", path, exc)
        return None


def _restore(a: dict[str, np.ndarray], config: EngineConfig) -> CandidateState:
    state = CandidateState(config, None)
    n = a["doc_id"].size
    strings = {name: _unpack_strings(name, a) for name in (*_STRING_FIELDS, "url", "source")}
    for name in ("lang", "lead"):  # shared by many documents, as ItemFeatures.build shares them
        strings[name] = [v if v is None else sys.intern(v) for v in strings[name]]
    for name, values in strings.items():
        if len(values) != n:
            raise ValueError(f"snapshot has {len(values)} {name} values for {n} documents")
    grams, go = a["grams"], a["gram_offsets"].tolist()
    doc_ids = a["doc_id"].tolist()
    cols = zip(doc_ids, a["version_id"].tolist(), a["cluster_id"].tolist(), a["time"].tolist(),
               a["title_key"].tolist(), a["content_key"].tolist(), *strings.values(), strict=True)
    entries = state.entries
    exact = state.exact
    for i, (doc, ver, cluster, t, tkey, ckey, title, lead_text, lang, sha, lead, url, source) in enumerate(cols):
        f = ItemFeatures(title, lead_text, lang, t, tkey, ckey, sha, lead, grams[go[i] : go[i + 1]])
        entry = entries[doc] = Entry(doc, ver, cluster, f, url, source)
        exact.add(doc, exact_keys(entry))
    state.reps.update(zip(a["rep_cluster"].tolist(), a["rep_doc"].tolist(), strict=True))
    for rep in state.reps.values():
        if rep not in entries:
            raise ValueError(f"representative {rep} has no document in the snapshot")

    def doc_info(doc_id: int) -> tuple[str, float]:
        f = entries[doc_id].features
        return f.lead, f.time

    state.ngram.restore_arrays(_prefixed(a, "ngram_"), doc_info)
    state.minhash.restore_arrays(_prefixed(a, "minhash_"), lambda d: entries[d].features.grams)
    return state


def _prefixed(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}


def _pack_strings(name: str, values: list[str | None]) -> dict[str, np.ndarray]:
    """One UTF-8 blob, character offsets, and which values were None (strings cost one decode to load)."""
    texts = ["" if v is None else v for v in values]
    out = {
        f"{name}_blob": np.frombuffer("".join(texts).encode("utf-8", "surrogatepass"), dtype=np.uint8),
        f"{name}_offsets": np.cumsum([0, *map(len, texts)], dtype=np.int64),
    }
    if any(v is None for v in values):
        out[f"{name}_none"] = np.array([v is None for v in values], dtype=bool)
    return out


def _unpack_strings(name: str, a: dict[str, np.ndarray]) -> list[str | None]:
    text = a[f"{name}_blob"].tobytes().decode("utf-8", "surrogatepass")
    offsets = a[f"{name}_offsets"].tolist()
    if offsets and offsets[-1] != len(text):
        raise ValueError(f"{name}: offsets end at {offsets[-1]} but the text has {len(text)} characters")
    values: list[str | None] = [text[i:j] for i, j in itertools.pairwise(offsets)]
    none = a.get(f"{name}_none")
    if none is not None:
        for i in np.flatnonzero(none).tolist():
            values[i] = None
    return values
