"""Per window, where the CPU an item goes: ``bench.story_index --stacks FILE``'s sampled stacks
folded into CPU ms an item per function (the window's CPU ms an item times the function's share of
its samples), so the parts whose cost grows with the store show as rising rows.

    python -m bench.story_index --size 48000 --window 4000 --stacks var/stacks.json
    python -m bench.stack_table var/stacks.json                        # inclusive, top 30 at the end
    python -m bench.stack_table var/stacks.json --under StoryTracker._pull_into   # its callees

>>> fold({"a;b;c": 3, "a;b": 1}, None)
Counter({'a': 4, 'b': 4, 'c': 3})
>>> fold({"a;b;c": 3, "a;b": 1, "a;c": 2}, "b")
Counter({'c': 3, '(self)': 1})
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path


def _name(frame: str) -> str:
    return frame.split(" (", 1)[0]


def fold(stacks: dict[str, int], under: str | None) -> Counter[str]:
    """Samples per function (inclusive: once per stack that holds it), or with ``under`` per
    callee of ``under`` (its innermost call on the stack), ``(self)`` for its own."""
    out: Counter[str] = Counter()
    for stack, n in stacks.items():
        frames = [_name(f) for f in stack.split(";")]
        if under is None:
            out.update(dict.fromkeys(frames, n))
            continue
        if under not in frames:
            continue
        i = len(frames) - 1 - frames[::-1].index(under)
        out[frames[i + 1] if i + 1 < len(frames) else "(self)"] += n
    return out


def table(windows: Sequence[dict[str, float]], stacks: Sequence[dict[str, int]], under: str | None,
          top: int) -> list[str]:
    rows = []
    for w, st in zip(windows, stacks, strict=True):
        total = sum(st.values()) or 1
        rows.append({f: w["cpu_ms_per_item"] * n / total for f, n in fold(st, under).items()})
    names = sorted(rows[-1], key=lambda f: -rows[-1][f])[:top] if rows else []
    lines = ["stored  " + " ".join(f"{int(w['stored']):>7,}" for w in windows),
             "cpu ms  " + " ".join(f"{w['cpu_ms_per_item']:7.2f}" for w in windows)]
    lines += ["        " + " ".join(f"{r.get(f, 0.0):7.2f}" for r in rows) + "  " + f for f in names]
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stacks", type=Path)
    ap.add_argument("--config", default=None, help="which configuration's stacks (default: the first)")
    ap.add_argument("--under", default=None, help="a function (qualified name): its callees' ms an item")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args(argv)
    data = json.loads(args.stacks.read_text())
    run = data[args.config] if args.config else next(iter(data.values()))
    print("\n".join(table(run["windows"], run["stacks"], args.under, args.top)))


if __name__ == "__main__":
    main()
