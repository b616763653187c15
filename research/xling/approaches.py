"""The register of cross-lingual scoring approaches tried for issue 8 (``approaches.json``).

Each row is one approach as measured in research/notes/xling.md: what it is, what it was trained on, its
recall at precision 0.99 on the three ko-en sets (NTREX, Park, Tatoeba), its cost beyond the
USE embedding, whether it ships, and the command that measured it. ``samestory eval report``
renders the register into eval/RESULTS.md, so the report and the write-up cannot drift apart
without a diff in this file.

>>> rows = load_approaches()
>>> rows[0].name, rows[0].r_at_p99
('use_cos', (0.629, 0.156, 0.007))
>>> any(r.status.startswith("shipped") for r in rows)
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["APPROACHES_FILE", "SET_NAMES", "Approach", "load_approaches"]

APPROACHES_FILE = Path(__file__).with_name("approaches.json")
#: The sets of ``r_at_p99``, in order.
SET_NAMES = ("ntrex128-kor-eng", "koen-news-park", "tatoeba-kor-eng")
_FIELDS = ("name", "what", "trained_on", "protocol", "r_at_p99", "cost", "status", "section", "command")


@dataclass(frozen=True)
class Approach:
    name: str
    what: str
    trained_on: str
    protocol: str
    r_at_p99: tuple[float, float, float]
    cost: str
    status: str
    section: str  # anchor in research/notes/xling.md
    command: str


def load_approaches(path: str | Path = APPROACHES_FILE) -> list[Approach]:
    """Read and validate the register; raises ``ValueError`` naming the bad row and field."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{path}: expected an object with a non-empty 'rows' list")
    out: list[Approach] = []
    for i, row in enumerate(rows):
        missing = [f for f in _FIELDS if f not in row]
        if missing:
            raise ValueError(f"{path}: row {i} lacks {missing}")
        r = row["r_at_p99"]
        if not (isinstance(r, list) and len(r) == len(SET_NAMES)
                and all(isinstance(v, (int, float)) and 0.0 <= v <= 1.0 for v in r)):
            raise ValueError(f"{path}: row {i} ({row['name']}): r_at_p99 must be {len(SET_NAMES)} numbers in [0, 1]")
        out.append(Approach(**{**{f: str(row[f]) for f in _FIELDS if f != "r_at_p99"},
                               "r_at_p99": (float(r[0]), float(r[1]), float(r[2]))}))
    return out
