"""How often the guards block labelled pairs: recall cost (label 1) and catch rate (label 0).

    python -m eval.guard_stats [--data DIR] [--sets a,b] [--show-ids N] [--rules-dir DIR]

For each data set, every pair is checked by ``GuardSet.default()`` (each side's text is both
its title and its text, as the engine sees a title-only item) and the table prints the share
of label-1 pairs blocked (over-splitting: the recall the guards cost) and of label-0 pairs
blocked (over-merging the guards prevent, whatever the upstream stage), with per-guard counts.
``--show-ids`` prints the ids of some blocked label-1 pairs with the evidence, never the texts
(eval-data texts stay out of the repository and out of logs).

Missing sets are reported as skipped, so the script runs on any subset of the data folder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from service.guards import GuardInput, GuardSet

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SETS = ("pawsx-ko", "uci-news-aggregator-subset", "ntrex128-kor-eng", "koen-news-park", "tatoeba-kor-eng")


def data_dir(explicit: str | None) -> Path:
    """``--data``, else ``$SAMESTORY_EVAL_DATA``, else ``../shared/eval-data`` from the repo root."""
    raw = explicit or os.environ.get("SAMESTORY_EVAL_DATA") or str(REPO_ROOT.parent / "shared" / "eval-data")
    path = Path(raw)
    return path if path.is_absolute() else (REPO_ROOT / path).resolve()


def _side(obj: dict, where: str) -> GuardInput:
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise ValueError(f"{where}: a side must be an object with a 'text' string")
    return GuardInput(title=obj["text"], text=obj["text"], lang=str(obj.get("lang") or "und"))


@dataclass
class SetStats:
    """Block counts of one pair file, by gold label (0 or 1)."""

    n: Counter[int] = field(default_factory=Counter)  # pairs per label
    blocked: Counter[int] = field(default_factory=Counter)  # pairs at least one guard blocked
    per_guard: dict[int, Counter[str]] = field(default_factory=lambda: {0: Counter(), 1: Counter()})
    examples: list[str] = field(default_factory=list)  # "    id  evidence" of blocked label-1 pairs
    us_per_pair: float = 0.0  # guard time per pair, microseconds

    def rate(self, label: int) -> str:
        """Blocked pairs of ``label`` as "k/n pct%", "-" without any."""
        n, k = self.n[label], self.blocked[label]
        return f"{k}/{n} {100 * k / n:5.1f}%" if n else "-"


def set_stats(gs: GuardSet, path: Path, show_ids: int = 0) -> SetStats:
    """Block counts for one pair file."""
    st = SetStats()
    elapsed = 0.0
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            where = f"{path}:{lineno}"
            label = rec.get("label")
            if label not in (0, 1):
                raise ValueError(f"{where}: label must be 0 or 1, got {label!r}")
            a, b = _side(rec.get("a"), where), _side(rec.get("b"), where)
            t0 = time.perf_counter()
            verdicts = gs.check(a, b)
            elapsed += time.perf_counter() - t0
            names = gs.blocked(verdicts)
            st.n[label] += 1
            if names:
                st.blocked[label] += 1
                st.per_guard[label].update(names)
                if label == 1 and len(st.examples) < show_ids:
                    ev = "; ".join(v.evidence for v in verdicts if v.blocked)
                    st.examples.append(f"    {rec.get('id')}  {ev}")
    st.us_per_pair = 1e6 * elapsed / max(1, sum(st.n.values()))
    return st


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="eval-data folder (default $SAMESTORY_EVAL_DATA or ../shared/eval-data)")
    parser.add_argument("--sets", default=",".join(DEFAULT_SETS), help="comma-separated set folders")
    parser.add_argument("--split", default="dev", help="pair file stem (default: dev)")
    parser.add_argument("--show-ids", type=int, default=0, help="print up to N blocked label-1 pair ids per set")
    parser.add_argument("--rules-dir", action="append", default=[], help="extra guard rule folder (repeatable)")
    args = parser.parse_args(argv)
    if args.show_ids < 0:
        parser.error("--show-ids must be >= 0")
    root = data_dir(args.data)
    if not root.is_dir():
        print(f"eval data folder {root} not found; nothing to do", file=sys.stderr)
        return 2
    gs = GuardSet.from_rules([Path(d) for d in args.rules_dir]) if args.rules_dir else GuardSet.default()
    header = f"{'set':<28} {'label1 blocked':>16} {'label0 blocked':>16} {'us/pair':>8}  per-guard (label1 | label0)"
    print(header)
    print("-" * len(header))
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        path = root / name / f"{args.split}.jsonl"
        if not path.is_file():
            print(f"{name:<28} skipped (no {path.name})")
            continue
        st = set_stats(gs, path, args.show_ids)
        guards = ", ".join(
            f"{g} {st.per_guard[1][g]}|{st.per_guard[0][g]}" for g in gs.names
            if st.per_guard[1][g] or st.per_guard[0][g]
        )
        print(f"{name:<28} {st.rate(1):>16} {st.rate(0):>16} {st.us_per_pair:8.1f}  {guards}")
        for line in st.examples:
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
