"""Word-order evidence on merged same-language pairs: how much could an order guard buy? (issue 19)

PAWS-X pairs share their words and differ in who does what; the role guard catches exchanges
of case particles and clauses, and the rest of its false merges were thought to be word-order
swaps. This measures, on the pairs the engine *merged* (``samestory eval pairs FILE
--predictions PRED``), what a guard that vetoes a reordering of shared words would block:

* the *units* of a text are its content morphemes in order (Korean: kiwipiepy nouns, numbers,
  verb and adjective stems; English: words of four letters or more); names (Korean NNP, Latin
  words) are reduced to their phonetic key (``service.guards.slots.phonetic_key``), so
  ``Roberts`` and ``로버츠`` are one unit;
* the shared units are those that occur exactly once on each side; ``out`` is how many of them
  are out of order (shared units minus the longest run in the same order on both sides).

A guard "veto when ``out >= t``" is then scored per set: merged copies (label 1) it would block
against merged non-copies (label 0). Only same-language pairs are looked at (the guard would
step aside across languages). ``--grid`` also sweeps a stricter acceptance rule for
same-language pairs (no unit out of order, at least N shared units, cosine and MinHash floors).

    python -m research.word_order ../shared/eval-data/pawsx-ko/dev.jsonl paws.pred.jsonl --grid
    python -m research.word_order ../shared/eval-data/uci-news-aggregator-subset/dev.jsonl uci.pred.jsonl

Never imported by service/ or eval/; texts stay in the data folder.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import re
from collections import Counter
from pathlib import Path

from service.guards.base import HANGUL_RE
from service.guards.slots import korean_tokens, phonetic_key, romanize

_KO_WORDS = frozenset({"NNG", "SN", "VV", "VA", "XR"})
_EN_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+")


def units(text: str) -> list[str]:
    """Content units of ``text`` in order; names as ``N:<phonetic key>``."""
    out: list[str] = []
    if HANGUL_RE.search(text):
        for form, tag, _s, _e in korean_tokens(text):
            if tag == "NNP":
                out.append("N:" + (phonetic_key(romanize(form)) or form))
            elif tag == "SL":
                out.append("N:" + (phonetic_key(form) or form.casefold()))
            elif tag in _KO_WORDS and (tag != "NNG" or len(form) >= 2):
                out.append("W:" + form)
    else:
        for w in _EN_WORD_RE.findall(text):
            if w[:1].isupper():
                out.append("N:" + (phonetic_key(w) or w.casefold()))
            elif len(w) > 3:
                out.append("W:" + w.casefold())
    return [u for u in out if len(u) > 2]


def order_features(a: str, b: str) -> tuple[int, int]:
    """(shared units, units out of order) of two texts."""
    ua, ub = units(a), units(b)
    ca, cb = Counter(ua), Counter(ub)
    shared = [u for u in dict.fromkeys(ua) if ca[u] == 1 and cb.get(u) == 1]
    seq = [ub.index(u) for u in shared]
    tails: list[int] = []  # longest increasing subsequence
    for x in seq:
        k = bisect.bisect_left(tails, x)
        tails[k : k + 1] = [x]
    return len(seq), len(seq) - len(tails)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", type=Path, help="a dev.jsonl pair file")
    ap.add_argument("predictions", type=Path, help="samestory eval pairs --predictions output for it")
    ap.add_argument("--grid", action="store_true", help="also sweep the strict same-language acceptance")
    ap.add_argument("--policy", help="N,C,M: what that strict acceptance would block here")
    args = ap.parse_args()
    records = {r["id"]: r for r in map(json.loads, args.data.read_text(encoding="utf-8").splitlines()) if r}
    preds = [json.loads(line) for line in args.predictions.read_text(encoding="utf-8").splitlines() if line]
    copies = sum(records[p["id"]]["label"] == 1 for p in preds)
    rows = []
    for p in preds:
        rec = records[p["id"]]
        if p["same"] and rec["a"]["lang"] == rec["b"]["lang"]:
            n, out = order_features(rec["a"]["text"], rec["b"]["text"])
            rows.append((rec["label"], n, out, p["scores"]["cosine"], p["scores"]["minhash"]))
    tp = sum(r[0] == 1 for r in rows)
    fp = len(rows) - tp
    merged_tp = sum(p["same"] and records[p["id"]]["label"] == 1 for p in preds)
    merged_fp = sum(p["same"] and records[p["id"]]["label"] == 0 for p in preds)
    print(f"{args.data}: {len(preds)} pairs, {copies} copies; merged {merged_tp} copies + {merged_fp} non-copies, "
          f"same-language {tp} + {fp}")
    for t in (1, 2, 3):
        bt = sum(r[0] == 1 and r[2] >= t for r in rows)
        bf = sum(r[0] == 0 and r[2] >= t for r in rows)
        p_ = (merged_tp - bt) / max(1, merged_tp - bt + merged_fp - bf)
        print(f"  veto when out >= {t}: blocks {bt} copies ({100 * bt / max(1, copies):.1f} pt of recall) and {bf} "
              f"non-copies -> P {p_:.3f} R {(merged_tp - bt) / max(1, copies):.3f}")
    if args.grid:
        print("  strict acceptance (no unit out of order, n >= N, cosine >= C, minhash >= M): P >= 0.78, by recall")
        found = []
        for n_min, c_min, m_min in itertools.product((0, 3, 4, 5, 6, 8), (0, 0.7, 0.8, 0.85, 0.9), (0, 0.2, 0.3, 0.4)):
            kept = [r for r in rows if r[2] == 0 and r[1] >= n_min and r[3] >= c_min and r[4] >= m_min]
            k_tp = sum(r[0] == 1 for r in kept) + merged_tp - tp
            k_fp = len(kept) - sum(r[0] == 1 for r in kept) + merged_fp - fp
            if k_tp + k_fp and k_tp / (k_tp + k_fp) >= 0.78:
                found.append((k_tp / max(1, copies), k_tp / (k_tp + k_fp), n_min, c_min, m_min))
        ranked = sorted(found, reverse=True)
        for r_, p_, n_min, c_min, m_min in ranked[:6] + [f for f in ranked if f[1] >= 0.80][:2]:
            print(f"    N {n_min} C {c_min} M {m_min}: P {p_:.3f} R {r_:.3f}")
    if args.policy:
        n_min, c_min, m_min = (float(x) for x in args.policy.split(","))
        blocked = [r for r in rows if not (r[2] == 0 and r[1] >= n_min and r[3] >= c_min and r[4] >= m_min)]
        bt = sum(r[0] == 1 for r in blocked)
        print(f"  strict acceptance N {n_min:g} C {c_min:g} M {m_min:g}: blocks {bt} copies "
              f"({100 * bt / max(1, copies):.1f} pt of recall) and {len(blocked) - bt} non-copies")


if __name__ == "__main__":
    main()
