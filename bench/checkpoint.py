"""How long a checkpoint holds up ingestion, and how long its background write takes.

``python -m bench.checkpoint STATE.npz`` restores the candidate state held in a state snapshot
(``<db>.state.npz``, written by any run of the benchmark; read directly, so a snapshot of an
older engine version serves too) and times, ``--repeats`` times each:

* ``pause_s``: ``service.snapshot.snapshot_file``, the copy-out that ``Deduper.checkpoint`` does
  in the caller's thread, on the state as loaded (no dead rows) and, with ``--dead N``, after
  N documents were dropped from the table (the compaction that a mid-stream checkpoint pays);
* ``write_s``: ``index.files.write_together`` of that file, which a checkpoint runs in a
  background thread.

The vector index is not included (its copy-out is one ``faiss.serialize_index``). Prints one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.checkpoint", description=__doc__.splitlines()[0])
    p.add_argument("state", help="a state snapshot file (<db>.state.npz)")
    p.add_argument("--repeats", type=int, default=3, help="timings per measure (default 3)")
    p.add_argument("--dead", type=int, default=0, help="also time a copy-out after dropping this many documents")
    args = p.parse_args(argv)
    if args.repeats < 1 or args.dead < 0:
        p.error("--repeats must be >= 1 and --dead >= 0")
    if not Path(args.state).is_file():
        p.error(f"{args.state} is not a file")

    from index.files import write_together
    from service.config import EngineConfig
    from service.snapshot import _restore, snapshot_file

    with np.load(args.state, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    state = _restore(arrays, EngineConfig.load())
    del arrays
    out: dict[str, object] = {"documents": len(state.entries)}
    pauses, writes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "probe.state.npz"
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            pending = snapshot_file(state, target, cursor=0)
            t1 = time.perf_counter()
            write_together([pending])
            pauses.append(t1 - t0)
            writes.append(time.perf_counter() - t1)
        out["file_bytes"] = target.stat().st_size
        if args.dead:
            docs = list(state.entries)
            step = max(1, len(docs) // args.dead)
            for doc in docs[::step][: args.dead]:
                del state.entries[doc]  # a dead row; compaction waits until dead rows outnumber live ones
            t0 = time.perf_counter()
            snapshot_file(state, target, cursor=0)
            out["pause_with_dead_s"] = round(time.perf_counter() - t0, 3)
            out["dead"] = min(args.dead, len(docs[::step]))
    out.update({"pause_s": [round(x, 3) for x in pauses], "pause_median_s": round(statistics.median(pauses), 3),
                "write_s": [round(x, 3) for x in writes], "write_median_s": round(statistics.median(writes), 3)})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
