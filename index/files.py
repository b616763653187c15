"""Files written in two steps: the slow write to a temporary name, then an atomic rename.

The engine keeps two derived files beside a SQLite store (the vector index and the state
snapshot; ``service.snapshot``), both stamped with the store change they reflect. A start uses
them only as a pair taken at the same change, so they are written together: every file to its
temporary name first (the slow part, which a checkpoint runs in a background thread), then all
renamed over their targets. A crash during the writes leaves the previous pair untouched; only
a crash in the microseconds between two renames can leave a mismatched pair, which the next
start detects by the stamps and answers with a rebuild.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> a = PendingFile(folder / "a.bin", lambda fh: fh.write(b"vectors"))
>>> b = PendingFile(folder / "b.bin", lambda fh: fh.write(b"state"))
>>> write_together([a, b])
>>> sorted(p.name for p in folder.iterdir()), (folder / "b.bin").read_bytes()
(['a.bin', 'b.bin'], b'state')
>>> def full_disk(fh):
...     raise OSError(28, "No space left on device")
>>> write_together([PendingFile(folder / "a.bin", lambda fh: fh.write(b"new")), PendingFile(folder / "b.bin", full_disk)])
Traceback (most recent call last):
OSError: [Errno 28] No space left on device
>>> (folder / "a.bin").read_bytes(), sorted(p.name for p in folder.iterdir())  # the old pair, no leftovers
(b'vectors', ['a.bin', 'b.bin'])
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO


class PendingFile:
    """``path`` to be written by ``write(fh)``. Build it from data that will not change (copies):
    the write may run in another thread while the owner goes on changing its own state."""

    def __init__(self, path: str | Path, write: Callable[[BinaryIO], object]) -> None:
        self.path = Path(path)
        self.tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        self._write = write

    def write(self) -> None:
        """Write the temporary file and flush it to disk (the target is not touched yet)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.tmp, "wb") as fh:
            self._write(fh)
            fh.flush()
            os.fsync(fh.fileno())

    def commit(self) -> None:
        """Rename the written temporary file over the target, durably."""
        os.replace(self.tmp, self.path)
        with contextlib.suppress(OSError):  # make the rename itself durable
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)


def write_together(files: Sequence[PendingFile]) -> None:
    """Write every file to its temporary name, then rename them all; on any error, nothing is
    renamed, the temporary files are removed and the error propagates."""
    try:
        for f in files:
            f.write()
    except BaseException:
        for f in files:
            f.discard()
        raise
    for f in files:
        f.commit()
