"""Seconds of a passage ``dedupe`` on one long text, by shape and size: the cost must grow linearly.

``POST /v1/dedupe`` takes texts up to 200,000 characters (``service.types.MAX_BODY_CHARS``), and
one such text without spaces took 5 min 47 s (end-anchored regular expressions tried from every
position; a 200,000-letter word made 200,000 one-deletion variants). Each shape is run in a
child process with a time limit, so a checkout that is still quadratic reports ``>limit``
instead of holding the run; ``--before DIR`` runs the same shapes with another checkout's code
(``git worktree add /tmp/before <commit>``) beside this one's::

    python -m bench.long_text --sizes 20000 50000 200000 --before /tmp/before --limit 120

Shapes: ``unspaced`` ('a' * n), ``hangul`` (random syllables, no spaces), ``spaces`` (two words
around a run of spaces), ``periods`` ("x. " repeated: periods that end no sentence),
``sentences`` (one text of many short sentences), ``two-near`` (two long sentence texts, the
second with one typo: the MinHash stage compares them), ``two-unspaced`` (two random Hangul texts
one syllable apart). The CPU seconds (child's ``process_time``) are the ones to compare on a
shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

SHAPES = ("unspaced", "hangul", "spaces", "periods", "sentences", "two-near", "two-unspaced")
_WORDS = ["the", "fed", "raised", "rates", "by", "basis", "points", "markets", "rallied", "on", "news", "bonds", "fell", "oil", "rose", "2024", "3.5%"]


def texts(shape: str, n: int, seed: int = 0) -> list[str]:
    """The seeded input of ``shape`` at about ``n`` characters a text.

    >>> [len(t) for t in texts("two-unspaced", 10)], texts("spaces", 5)
    ([10, 10], ['x      y'])
    """
    rng = random.Random(seed)
    if shape == "unspaced":
        return ["a" * n]
    if shape in ("hangul", "two-unspaced"):
        t = "".join(chr(rng.randint(0xAC00, 0xD7A3)) for _ in range(n))
        return [t] if shape == "hangul" else [t, t[: n // 2] + "가" + t[n // 2 + 1 :]]
    if shape == "spaces":
        return ["x " + " " * n + "y"]
    if shape == "periods":
        return ["x. " * (n // 3)]
    out: list[str] = []
    size = 0
    while size < n:
        out.append(" ".join(rng.choice(_WORDS) for _ in range(12)).capitalize() + ".")
        size += len(out[-1]) + 1
    t = " ".join(out)[:n]
    return [t] if shape == "sentences" else [t, t.replace("rallied", "ralied", 1)]


_CHILD = """
import json, sys, time
from service.passages import PassageDeduper
inputs = json.load(sys.stdin)
d = PassageDeduper.with_default_guards()
d.dedupe(["Warm up the guards."])
w, c = time.perf_counter(), time.process_time()
keep = d.dedupe(inputs).keep
print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "keep": keep}))
"""


def run_one(code_dir: Path, shape: str, n: int, limit: float) -> dict[str, object]:
    """One shape and size in a child process on ``code_dir``'s code (the inputs are made here and
    sent on stdin); ``{"timeout": limit}`` when it runs past ``limit`` seconds."""
    env = {**os.environ, "PYTHONPATH": str(code_dir)}  # and cwd: "-c" puts the cwd first on sys.path
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(texts(shape, n)), env=env,
                              capture_output=True, text=True, timeout=limit, check=True, cwd=code_dir)
    except subprocess.TimeoutExpired:
        return {"timeout": limit}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _cell(r: dict[str, object]) -> str:
    return f">{r['timeout']:.0f} s" if "timeout" in r else f"{r['cpu']:.2f} s"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.long_text", description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 50_000, 200_000])
    ap.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    ap.add_argument("--before", type=Path, default=None, help="another checkout, run beside this one")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per shape and size (default 120)")
    ap.add_argument("--json", type=Path, default=None, help="write every result here")
    args = ap.parse_args(argv)
    here = Path(__file__).resolve().parents[1]
    rows = []
    print(f"{'shape':<14}{'chars':>9}  {'before cpu':>11}  {'after cpu':>10}  keep")
    for shape in args.shapes:
        for n in args.sizes:
            after = run_one(here, shape, n, args.limit)
            before = run_one(args.before, shape, n, args.limit) if args.before else None
            rows.append({"shape": shape, "chars": n, "before": before, "after": after})
            print(f"{shape:<14}{n:>9}  {_cell(before) if before else '-':>11}  {_cell(after):>10}  "
                  f"{after.get('keep', '-')}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
