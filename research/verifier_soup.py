"""A weight average ("soup") of pair-verifier artefacts: the mean of each tensor.

    python -m research.verifier_soup OUT.npz A.npz B.npz [...]

The artefacts must have the same tensors (same ``layers``, all trained from one start). The
meta is the last artefact's, with ``trained`` replaced by ``{"soup": [...], "note": ...}``: each
part's file name and its own ``trained`` summary (run 6 was made so, by a throwaway script).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from models.verifier_train import write_artefact


def _load(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return {k: v for k, v in arrays.items() if k != "meta"}, json.loads(str(arrays["meta"]))


def soup(paths: list[Path]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The mean of each tensor of ``paths`` (in float32, stored in the first part's dtype), and
    the meta of the last part with the parts listed under ``trained.soup``."""
    parts = [_load(p) for p in paths]
    names = set(parts[0][0])
    for p, (tensors, _) in zip(paths, parts, strict=True):
        if set(tensors) != names:
            raise ValueError(f"{p} has other tensors than {paths[0]}")
    mean = {k: np.mean([t[k].astype(np.float32) for t, _ in parts], axis=0).astype(parts[0][0][k].dtype)
            for k in sorted(names)}
    meta = dict(parts[-1][1])
    meta["trained"] = {
        "soup": [{"artefact": p.name, **{k: v for k, v in m.get("trained", {}).items() if k != "continues"}}
                 for p, (_, m) in zip(paths, parts, strict=True)],
        "note": "mean of each tensor of the parts (research/verifier_soup.py); out_of_fold is the last part's",
    }
    return mean, meta


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out, *paths = (Path(a) for a in args)
    tensors, meta = soup(paths)
    path = write_artefact(out, tensors, meta)
    print(f"{path}: mean of {len(paths)} artefacts, {path.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
