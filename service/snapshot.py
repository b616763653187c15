"""A snapshot of the candidate state beside a SQLite store, so a warm restart loads instead of rebuilding.

Rebuilding the state from the store normalises every title again, hashes its 3-grams, computes
a 128-permutation MinHash signature per representative and fills the indices one document at
a time: about 9,000 documents/s on the project's 2 cores, so a 1M-document store needs
~100 s. The snapshot keeps the *derived* state as flat arrays (gram ids, n-gram slots and
document frequencies, LSH band keys, and the document table's own columns: hashes, times,
the few strings the guards read) and loads it with no hashing at all.

It is an accelerator, never a source of truth (the store is):

* it is written at a clean ``Deduper.close()`` and at checkpoints while ingesting
  (``EngineConfig.operations.snapshot_every``), stamped with the store's change cursor. A start loads it
  and replays the store's change feed from that cursor (``StateRestart.catch_up``, the path that
  applies other writers' changes), so after a crash only the changes since the last
  checkpoint are read again; with no usable snapshot, or a tail longer than the snapshot
  itself, the state is rebuilt from the store. A stale snapshot can cost time, never a wrong
  decision;
* it is stamped with a fingerprint of everything that shapes the derived state (the source of
  the feature and index modules, the MinHash and n-gram parameters): a new engine version or
  a changed setting rebuilds rather than reuse features computed the old way;
* the file is written to a temporary name and renamed (``index.files``), so a crash mid-write
  leaves the previous file or none, and ``np.load`` reads it with ``allow_pickle=False`` (no
  code in the file runs).

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
>>> snapshot_stamp(path, cfg)  # (cursor, documents), read without loading the arrays
(7, 1)
>>> load_snapshot(path, cfg, cursor=8) is None  # only at its own cursor; the engine replays the rest
True
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from index import features as _features
from index import hashmap as _hashmap
from index import idmap as _idmap
from index import minhash as _minhash
from index import ngram as _ngram
from index import text as _text
from index.files import PendingFile, write_together
from service import doctable as _doctable
from service.config import EngineConfig
from service.doctable import DocTable
from service.state import CandidateState

log = logging.getLogger("samestory.snapshot")

# 2: documents as DocTable columns (1 stored one string array per ItemFeatures field).
# 3: ``reps`` are the clusters' anchors (earliest live member, issue 17), no longer the displayed
#    representatives: a format-2 snapshot is rebuilt from the store.
FORMAT = 3


def _source_digest() -> str:
    source = hashlib.sha256()
    for module in (_text, _features, _ngram, _minhash, _hashmap, _idmap, _doctable):
        source.update(Path(module.__file__ or "").read_bytes())
    return source.hexdigest()[:16]


# Read once, when the code is imported: a process whose files are replaced under it (an
# upgrade while it runs) must stamp its snapshot with the code it ran, not the new files.
_SOURCE_DIGEST = _source_digest()


def fingerprint(config: EngineConfig) -> dict[str, Any]:
    """What must be equal for a snapshot's derived state to equal a fresh rebuild's.

    The feature and index modules are fingerprinted by their source: any change to
    normalisation, gram ids or band keys invalidates old snapshots without anyone having to
    remember to bump a version.
    """
    probe = CandidateState(config, None)
    return {
        "format": FORMAT,
        "source": _SOURCE_DIGEST,
        "minhash": [config.copy.minhash_lsh_threshold, config.copy.minhash_num_perm, probe.minhash.seed],
        "ngram": [probe.ngram.min_docs, probe.ngram.max_bucket],
    }


def save_snapshot(state: CandidateState, path: str | Path, *, cursor: int) -> None:
    """Write ``state`` (its cheap indices; vectors have their own file) stamped with ``cursor``."""
    write_together([snapshot_file(state, path, cursor=cursor)])


def snapshot_file(state: CandidateState, path: str | Path, *, cursor: int) -> PendingFile:
    """The file ``save_snapshot`` writes, its arrays exported (copied) now, so that it can be
    written later, from another thread, while the state keeps changing (``index.files``)."""
    arrays: dict[str, Any] = {f"doc_{k}": v for k, v in state.entries.export_columns().items()}
    arrays["rep_cluster"], arrays["rep_doc"] = state.reps.arrays()
    arrays.update({f"ngram_{k}": v for k, v in state.ngram.export_arrays().items()})
    arrays.update({f"minhash_{k}": v for k, v in state.minhash.export_arrays().items()})
    meta = {"cursor": int(cursor), "fingerprint": fingerprint(state.config), "documents": len(state.entries)}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    return PendingFile(path, lambda fh: np.savez(fh, **arrays))


# What a damaged or foreign file raises on the way in: each means "rebuild", never a failed start.
_UNUSABLE = (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError)


def _meta(npz: Any) -> dict[str, Any]:
    return json.loads(npz["meta"].tobytes().decode("utf-8"))


def snapshot_stamp(path: str | Path, config: EngineConfig) -> tuple[int, int] | None:
    """``(cursor, documents)`` of the snapshot at ``path``: the store change it was taken at and
    how many documents it holds; None if there is no file this engine can use (none, damaged,
    or taken by another engine version or setting).

    Reads only the small metadata entry, so a start can decide whether to load the snapshot
    (and replay the changes since) before paying for the arrays.
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            meta = _meta(npz)
        if meta.get("fingerprint") != fingerprint(config):
            log.info("state snapshot was taken by another engine version or setting; rebuilding")
            return None
        return int(meta["cursor"]), int(meta["documents"])
    except _UNUSABLE as exc:
        log.warning("state snapshot %s not usable (%s); rebuilding", path, exc)
        return None


def load_snapshot(path: str | Path, config: EngineConfig, *, cursor: int) -> CandidateState | None:
    """The state saved at ``path`` if it was taken at ``cursor`` with this engine's fingerprint, else None.

    None means "rebuild from the store"; the reason is logged. The returned state has no
    vector index: the caller attaches its own.
    """
    stamp = snapshot_stamp(path, config)
    if stamp is None:
        return None
    if stamp[0] != int(cursor):
        log.info("state snapshot is stale (cursor %s, wanted %s); rebuilding", stamp[0], cursor)
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        return _restore(arrays, config)
    except _UNUSABLE as exc:
        log.warning("state snapshot %s not usable (%s); rebuilding", path, exc)
        return None


def _restore(a: dict[str, np.ndarray], config: EngineConfig) -> CandidateState:
    state = CandidateState(config, None)
    table = state.entries = DocTable.from_columns(_prefixed(a, "doc_"))
    docs = a["doc_doc"].tolist()
    for doc, ckey, tkey in zip(docs, a["doc_content_key"].tolist(), a["doc_title_key"].tolist(), strict=True):
        state.exact.add(doc, (ckey, tkey))  # the order of exact_keys
    state.reps.update(zip(a["rep_cluster"].tolist(), a["rep_doc"].tolist(), strict=True))
    for rep in state.reps.values():
        if rep not in table:
            raise ValueError(f"representative {rep} has no document in the snapshot")
    leads, names, row_of = a["doc_lead"].tolist(), table.names, dict(zip(docs, range(len(docs)), strict=True))
    times = a["doc_time"].tolist()

    def doc_info(doc_id: int) -> tuple[str, float]:
        row = row_of[doc_id]
        return names[leads[row]], times[row]

    state.ngram.restore_arrays(_prefixed(a, "ngram_"), doc_info)
    state.minhash.restore_arrays(_prefixed(a, "minhash_"), table.grams_of)
    return state


def _prefixed(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
