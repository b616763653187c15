"""The file format of a saved :class:`~index.vectors.VectorIndex`: write, read and validate.

File layout: 8-byte magic, u64 header length, JSON header (format, kind, rows, params, meta,
sections with offset/length/crc32, byte order), then 64-byte-aligned raw sections: ids,
times, alive, and the faiss index serialised by faiss. Reading checks everything it can
(magic, lengths, checksums, row counts, the faiss index's own size) and raises ``ValueError``
with the path and what is wrong, so the caller rebuilds from the store instead of serving a
corrupt or stale index.

>>> import faiss, numpy as np, tempfile, pathlib
>>> from index.files import write_together
>>> index = faiss.IndexFlatIP(2)
>>> index.add(np.eye(2, dtype=np.float32))
>>> path = pathlib.Path(tempfile.mkdtemp()) / "v.idx"
>>> write_together([pending_file(path, {"dim": 2}, {"cursor": 7}, "flat", np.array([4, 5]),
...                              np.array([0.0, 1.0]), np.array([True, False]), index)])
>>> saved = read(path, expect={"cursor": 7})
>>> saved.kind, saved.meta, saved.ids.tolist(), saved.alive.tolist(), saved.index.ntotal
('flat', {'cursor': 7}, [4, 5], [True, False], 2)
>>> read(path, expect={"cursor": 8})
Traceback (most recent call last):
...
ValueError: ...: stale index, meta differs (saved, expected): {'cursor': (7, 8)}
"""

from __future__ import annotations

import json
import os
import struct
import sys
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import faiss
import numpy as np

from index.files import PendingFile

__all__ = ["SavedIndex", "pending_file", "read"]

_MAGIC = b"SSVIDX\x00\x01"
_FORMAT = 1
_ALIGN = 64


@dataclass(frozen=True)
class SavedIndex:
    """What a file holds: the index's kind and parameters, the caller's meta, the rows, faiss."""

    kind: str
    params: dict[str, Any]
    meta: dict[str, Any]
    ids: np.ndarray
    times: np.ndarray
    alive: np.ndarray
    index: faiss.Index


def pending_file(path: Path | str, params: Mapping[str, Any], meta: Mapping[str, Any], kind: str,
                 ids: np.ndarray, times: np.ndarray, alive: np.ndarray, index: faiss.Index) -> PendingFile:
    """The file for these rows and this faiss index, with everything copied out now: it can be
    written later, from another thread, while the index keeps changing (``index.files``)."""
    try:
        meta_json = json.loads(json.dumps(dict(meta)))
    except (TypeError, ValueError) as e:
        raise ValueError(f"meta must be JSON-serialisable: {e}") from None
    n = int(ids.shape[0])
    blobs: list[tuple[str, str, memoryview]] = [
        ("ids", "<i8", memoryview(ids.astype(np.int64).tobytes())),
        ("times", "<f8", memoryview(times.astype(np.float64).tobytes())),
        ("alive", "|b1", memoryview(alive.astype(bool).tobytes())),
        ("faiss", "|u1", memoryview(faiss.serialize_index(index)).cast("B")),
    ]
    params = dict(params)

    def write(f: BinaryIO) -> None:  # checksums and layout here: off the caller's thread
        sections: list[dict[str, Any]] = []
        offset = 0
        for name, dtype, mv in blobs:
            sections.append(
                {"name": name, "dtype": dtype, "offset": offset, "nbytes": mv.nbytes, "crc32": zlib.crc32(mv)}
            )
            offset += -(-mv.nbytes // _ALIGN) * _ALIGN
        header = json.dumps(
            {
                "format": _FORMAT,
                "kind": kind,
                "rows": n,
                "params": params,
                "meta": meta_json,
                "sections": sections,
                "byteorder": sys.byteorder,
            }
        ).encode()
        head_len = len(_MAGIC) + 8 + len(header)
        data_start = -(-head_len // _ALIGN) * _ALIGN
        f.write(_MAGIC + struct.pack("<Q", len(header)) + header)
        f.write(b"\0" * (data_start - head_len))
        for sec, (_, _, mv) in zip(sections, blobs, strict=True):
            f.seek(data_start + sec["offset"])
            f.write(mv)
        f.truncate(data_start + offset)

    return PendingFile(path, write)


def read(path: Path | str, *, expect: Mapping[str, Any] | None = None) -> SavedIndex:
    """Read and validate a file written by :func:`pending_file`.

    Raises ``FileNotFoundError`` when absent and ``ValueError`` when corrupt (bad magic,
    truncated, checksum mismatch, inconsistent rows) or stale: a newer/older format, or a
    key of ``expect`` (e.g. ``{"model": ..., "dim": ...}``) whose saved meta value differs.
    """
    path = Path(path)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        buf = bytearray(size)
        with memoryview(buf) as mv_all:
            got = f.readinto(mv_all)
    if got != size:
        raise ValueError(f"{path}: short read ({got} of {size} bytes)")
    mv = memoryview(buf)
    if size < len(_MAGIC) + 8 or bytes(mv[: len(_MAGIC)]) != _MAGIC:
        raise ValueError(f"{path}: not a samestory vector index (bad magic)")
    (hlen,) = struct.unpack("<Q", mv[len(_MAGIC) : len(_MAGIC) + 8])
    head_end = len(_MAGIC) + 8 + hlen
    if head_end > size:
        raise ValueError(f"{path}: corrupt header (length {hlen} past end of file)")
    try:
        header = json.loads(bytes(mv[len(_MAGIC) + 8 : head_end]))
        fmt = header["format"]
        params = dict(header["params"])
        meta = dict(header["meta"])
        rows = int(header["rows"])
        kind = header["kind"]
        sections = {s["name"]: s for s in header["sections"]}
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: corrupt header: {e}") from None
    if fmt != _FORMAT:
        raise ValueError(f"{path}: stale index format {fmt} (this code reads {_FORMAT})")
    if header.get("byteorder", "little") != sys.byteorder:
        raise ValueError(f"{path}: written on a {header.get('byteorder')}-endian machine")
    if expect:
        diff = {key: (meta.get(key), val) for key, val in expect.items() if meta.get(key) != val}
        if diff:
            raise ValueError(f"{path}: stale index, meta differs (saved, expected): {diff}")
    data_start = -(-head_end // _ALIGN) * _ALIGN
    arrays: dict[str, np.ndarray] = {}
    for name in ("ids", "times", "alive", "faiss"):
        sec = sections.get(name)
        if sec is None:
            raise ValueError(f"{path}: corrupt, section {name!r} missing")
        a, nb = data_start + int(sec["offset"]), int(sec["nbytes"])
        if a < data_start or a + nb > size:
            raise ValueError(f"{path}: truncated, section {name!r} runs past end of file")
        chunk = mv[a : a + nb]
        if zlib.crc32(chunk) != sec["crc32"]:
            raise ValueError(f"{path}: corrupt, checksum mismatch in section {name!r}")
        arrays[name] = np.frombuffer(
            buf, dtype=np.dtype(sec["dtype"]), count=nb // np.dtype(sec["dtype"]).itemsize, offset=a
        )
    if kind not in ("flat", "hnsw"):
        raise ValueError(f"{path}: corrupt, unknown kind {kind!r}")
    if not (arrays["ids"].size == arrays["times"].size == arrays["alive"].size == rows):
        raise ValueError(f"{path}: corrupt, row arrays disagree with rows={rows}")
    try:
        index = faiss.deserialize_index(arrays.pop("faiss"))
    except RuntimeError as e:
        raise ValueError(f"{path}: corrupt faiss index: {e}") from None
    if index.d != params.get("dim") or index.ntotal != rows:
        raise ValueError(
            f"{path}: corrupt, faiss index d={index.d} ntotal={index.ntotal} disagrees with header"
        )
    return SavedIndex(kind, params, meta, arrays["ids"], arrays["times"], arrays["alive"].astype(bool), index)
