"""The same-bag regime: how many merged copies fall in it, and what an order rule there costs (issue 19).

``research/word_order.py`` measured a word-order veto on every same-language pair: news recall
paid for every PAWS-X gain. This measures the rule the role guard ships as its fourth Korean
test (``service/guards/order.py``, ``role.toml [order]``), read from the engine's merges
*with the test switched off* (``[order] enabled = false``, see docs/guards.md):

* ``--regime``: per set, the merged copies and non-copies of same-language pairs, and how many
  of them are in the same-bag regime (both texts at least N units, shared units at least a share
  x of the longer text's) for a few (N, x);
* the veto "in the regime, at least m shared units moved" over a grid of (N, x, m), with the
  merged copies it blocks in each news set, and a 5-fold cross-validation on the PAWS-X file
  (folds by sha256 of the pair id): each fold picks, among the settings that block no merged
  copy of any ``--news`` set, the one with the best training precision; the held-out folds'
  merges give the out-of-fold P / R;
* ``--strict``: for comparison, the strict acceptance of ``research/word_order.py`` rebuilt on
  these units (accept a same-language pair only when nothing moved, no name or number is on one
  side only, cosine >= C, MinHash >= M, at least S shared units), cross-validated the same way
  but without the news constraint (no setting meets it), with the news copies it would block.

``--news`` sets may lose no merged copy, ``--soft`` sets at most one point of recall (1 % of
their copies), ``--report`` sets are only reported.

Units are the order test's (Korean: ``OrderTest.units``). English pairs are not read by the
shipped test; for the regime counts they are read with ``_english_units`` (capitalised words as
names, other words of three letters or more outside the role guard's stopwords, digits).

    python -m research.order_regime ../shared/eval-data/pawsx-ko/dev.jsonl paws.pred.jsonl \\
        --news ../shared/eval-data/uci-news-aggregator-subset/dev.jsonl uci.pred.jsonl \\
        --news ../shared/eval-data/koen-news-park/dev.jsonl park.pred.jsonl \\
        --news ../shared/eval-data/ntrex128-kor-eng/dev.jsonl ntrex.pred.jsonl \\
        --soft ../shared/eval-data/korsts-stsb-koen/dev.jsonl korsts.pred.jsonl \\
        --soft ../shared/eval-data/parakqc-ko/dev.jsonl parakqc.pred.jsonl \\
        --soft ../shared/eval-data/klue-sts-dev/dev.jsonl klue.pred.jsonl \\
        --soft ../shared/eval-data/ko-question-pair/dev.jsonl kqp.pred.jsonl --regime --strict

Never imported by service/ or eval/; texts stay in the data folder, only pair ids are printed.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from service.guards.base import HANGUL_RE, prepare
from service.guards.order import OrderFeatures, OrderRules, OrderTest, Unit, moved_keys
from service.guards.role import RoleGuard, load_rules

_EN_RE = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Row:
    """One merged same-language pair of a predictions file."""

    id: str
    label: int
    korean: bool
    f: OrderFeatures
    cosine: float
    minhash: float


@dataclass(frozen=True)
class SetData:
    name: str
    copies: int  # label-1 pairs in the file (the recall denominator)
    merged_tp: int
    merged_fp: int
    rows: list[Row]


def _english_units(text: str, role: RoleGuard) -> tuple[Unit, ...]:
    out = []
    for w in _EN_RE.findall(prepare(text)):
        if w[:1].isdigit():
            out.append(Unit(w.replace(",", ""), w, "number"))
        elif w[:1].isupper():
            out.append(Unit(w.casefold(), w, "name"))
        elif w.casefold() not in role.en_stop and len(w) > 2:
            out.append(Unit(role._en_key(w), w, "word"))
    return tuple(out)


def _features(test: OrderTest, role: RoleGuard, a: str, b: str) -> OrderFeatures:
    if HANGUL_RE.search(a) and HANGUL_RE.search(b):
        return test.features(a, b)
    ua, ub = _english_units(a, role), _english_units(b, role)
    sa, sb = [u.key for u in ua], [u.key for u in ub]
    shared = Counter(sa) & Counter(sb)
    xa, keep = moved_keys(sa, sb)
    moved = tuple(k for k, ok in zip(xa, keep, strict=True) if not ok)
    one = (sum(1 for u in ua if u.kind != "word" and u.key not in sb),
           sum(1 for u in ub if u.kind != "word" and u.key not in sa))
    return OrderFeatures(len(sa), len(sb), sum(shared.values()), moved, one)


def load(data: Path, pred: Path, test: OrderTest, role: RoleGuard) -> SetData:
    records = {r["id"]: r for r in map(json.loads, data.read_text(encoding="utf-8").splitlines()) if r}
    preds = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines() if line]
    rows = []
    tp = fp = 0
    for p in preds:
        rec = records[p["id"]]
        if not p["same"]:
            continue
        tp += rec["label"] == 1
        fp += rec["label"] == 0
        if rec["a"]["lang"] != rec["b"]["lang"]:
            continue
        a, b = rec["a"]["text"], rec["b"]["text"]
        rows.append(Row(p["id"], rec["label"], bool(HANGUL_RE.search(a) and HANGUL_RE.search(b)),
                        _features(test, role, a, b), p["scores"]["cosine"], p["scores"]["minhash"]))
    copies = sum(records[p["id"]]["label"] == 1 for p in preds)
    return SetData(data.parent.name, copies, tp, fp, rows)


def in_regime(f: OrderFeatures, n_min: int, share: float) -> bool:
    return min(f.units_a, f.units_b) >= n_min and f.shared >= share * max(f.units_a, f.units_b)


Blocks = Callable[[Row], bool]


def score(s: SetData, blocks: Blocks, ids: set[str] | None = None) -> tuple[int, int, int]:
    """(copies kept merged, false merges kept, copies blocked) of ``s`` (``ids``: a fold only)."""
    rows = [r for r in s.rows if ids is None or r.id in ids]
    bt = sum(1 for r in rows if r.label == 1 and blocks(r))
    bf = sum(1 for r in rows if r.label == 0 and blocks(r))
    if ids is None:
        return s.merged_tp - bt, s.merged_fp - bf, bt
    # a fold: the merges of that fold's pairs (cross-language pairs are never blocked, none in PAWS-X)
    return sum(1 for r in rows if r.label == 1) - bt, sum(1 for r in rows if r.label == 0) - bf, bt


def _fold(pair_id: str) -> int:
    return int(hashlib.sha256(pair_id.encode()).hexdigest(), 16) % 5


def cross_validate(paws: SetData, cands: list[tuple[tuple, Blocks]]) -> tuple[int, int, list[tuple]]:
    """Out-of-fold (copies merged, false merges) and each fold's pick (best training precision)."""
    tp_all = fp_all = 0
    picks = []
    all_ids = {r.id for r in paws.rows}
    for k in range(5):
        test_ids = {i for i in all_ids if _fold(i) == k}
        train_ids = all_ids - test_ids

        def prec(c: tuple[tuple, Blocks], ids: set[str] = train_ids) -> tuple[float, int]:
            tp, fp, _ = score(paws, c[1], ids)
            return (tp / (tp + fp) if tp + fp else 0.0, tp)

        best = max(cands, key=prec)
        tp, fp, _ = score(paws, best[1], test_ids)
        tp_all += tp
        fp_all += fp
        picks.append(best[0])
    return tp_all, fp_all, picks


def _order_class(f: OrderFeatures) -> str:
    if f.moved:
        return f"{min(len(f.moved), 2)}{'+' if len(f.moved) >= 2 else ''} moved under these units"
    if f.one_sided[0] and f.one_sided[1]:
        return "in order; a name or number on each side that the other lacks"
    if f.one_sided[0] or f.one_sided[1]:
        return "in order; a name or number on one side only"
    if f.shared == f.units_a == f.units_b:
        return "the same units in the same order"
    return "in order; other words differ"


def in_order(data: Path, paws: SetData, show: int) -> None:
    """What differs in the merges whose shared units are all in order under word_order.py's units."""
    from research.word_order import order_features

    records = {r["id"]: r for r in map(json.loads, data.read_text(encoding="utf-8").splitlines()) if r}
    for label in (0, 1):
        classes: dict[str, list[str]] = {}
        for r in paws.rows:
            rec = records[r.id]
            if r.label == label and order_features(rec["a"]["text"], rec["b"]["text"])[1] == 0:
                classes.setdefault(_order_class(r.f), []).append(r.id)
        total = sum(len(v) for v in classes.values())
        print(f"  label {label}: {total} merges in order under research/word_order.py's units")
        for name, ids in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            print(f"    {len(ids):4d}  {name}" + (f"  e.g. {' '.join(ids[:show])}" if show else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", type=Path, help="the PAWS-X dev.jsonl")
    ap.add_argument("predictions", type=Path, help="samestory eval pairs --predictions for it, order test off")
    ap.add_argument("--news", nargs=2, action="append", default=[], metavar=("DATA", "PRED"),
                    help="a news set whose merged copies the rule must not block")
    ap.add_argument("--soft", nargs=2, action="append", default=[], metavar=("DATA", "PRED"),
                    help="a set that may lose at most one point of recall (of its copies) to the rule")
    ap.add_argument("--report", nargs=2, action="append", default=[], metavar=("DATA", "PRED"),
                    help="a set whose blocked copies are reported, not constrained")
    ap.add_argument("--regime", action="store_true", help="print the regime counts per set")
    ap.add_argument("--strict", action="store_true", help="also cross-validate the strict acceptance")
    ap.add_argument("--in-order", type=int, default=-1, metavar="N",
                    help="classify the PAWS-X merges in order under research/word_order.py's units; print N ids per class")
    args = ap.parse_args()
    rules = load_rules()
    test = OrderTest(OrderRules.from_table(rules["role"]["order"], "role rules"))
    role = RoleGuard.from_rules(rules["role"])
    paws = load(args.data, args.predictions, test, role)
    news = [load(Path(d), Path(p), test, role) for d, p in args.news]
    soft = [load(Path(d), Path(p), test, role) for d, p in args.soft]
    report = soft + [load(Path(d), Path(p), test, role) for d, p in args.report]
    sets = [paws, *news, *report]

    def p_r(tp: int, fp: int) -> str:
        return f"P {tp / max(1, tp + fp):.3f} R {tp / max(1, paws.copies):.3f}"

    if args.regime:
        print("merged same-language pairs in the regime (copies / non-copies), by (min units, shared share):")
        for s in sets:
            cp = [r for r in s.rows if r.label == 1]
            nc = [r for r in s.rows if r.label == 0]
            cells = "  ".join(f"({n},{x}) {sum(in_regime(r.f, n, x) for r in cp)}/{sum(in_regime(r.f, n, x) for r in nc)}"
                              for n, x in ((0, 0.4), (0, 0.6), (7, 0.6), (9, 0.4), (9, 0.6)))
            print(f"  {s.name}: {len(cp)} / {len(nc)} merged (Korean {sum(r.korean for r in cp)} / "
                  f"{sum(r.korean for r in nc)}); {cells}")
    print(f"{paws.name}: {paws.merged_tp} copies + {paws.merged_fp} false merges merged ({p_r(paws.merged_tp, paws.merged_fp)})")
    if args.in_order >= 0:
        in_order(args.data, paws, args.in_order)
    grid = list(itertools.product((0, 5, 7, 8, 9, 11), (0.0, 0.4, 0.5, 0.6, 0.7, 0.8), (1, 2, 3)))

    def veto(n: int, x: float, m: int) -> Blocks:
        return lambda r: r.korean and in_regime(r.f, n, x) and len(r.f.moved) >= m

    free = [((n, x, m), veto(n, x, m)) for n, x, m in grid
            if all(score(s, veto(n, x, m))[2] == 0 for s in news)
            and all(score(s, veto(n, x, m))[2] <= 0.01 * s.copies for s in soft)]
    print(f"veto in the regime (Korean pairs), {len(free)} of {len(grid)} settings block no merged copy of the "
          f"--news sets and at most one point of each --soft set's")
    ranked = sorted(free, key=lambda c: -score(paws, c[1])[0] / max(1, sum(score(paws, c[1])[:2])))
    for params, blocks in ranked[:5]:
        tp, fp, _ = score(paws, blocks)
        print(f"  (N, x, m) = {params}: in-sample {p_r(tp, fp)}; "
              + ", ".join(f"{s.name} -{score(s, blocks)[2]}" for s in news + report))
    over = [((n, x, m), veto(n, x, m)) for n, x, m in grid
            if all(score(s, veto(n, x, m))[2] == 0 for s in news) and ((n, x, m), veto(n, x, m))[0] not in dict(free)]
    for params, blocks in sorted(over, key=lambda c: -score(paws, c[1])[0] / max(1, sum(score(paws, c[1])[:2])))[:3]:
        tp, fp, _ = score(paws, blocks)
        print(f"  excluded by a --soft set: {params}: in-sample {p_r(tp, fp)}; "
              + ", ".join(f"{s.name} -{score(s, blocks)[2]}" for s in report))
    if free:
        tp, fp, picks = cross_validate(paws, free)
        print(f"  5-fold out of fold: {p_r(tp, fp)} ({tp} copies, {fp} false merges); picks {picks}")
    if args.strict:
        def strict(c: float, m: float, s_min: int, names: bool) -> Blocks:
            def blocks(r: Row) -> bool:
                ok = (not r.f.moved and r.cosine >= c and r.minhash >= m and r.f.shared >= s_min
                      and (not names or r.f.one_sided == (0, 0)))
                return not ok
            return blocks

        cands = [((c, m, s_min, names), strict(c, m, s_min, names))
                 for c, m, s_min, names in itertools.product((0, 0.8, 0.85, 0.9), (0, 0.3, 0.5, 0.6), (0, 4, 6),
                                                             (False, True))]
        cands = [c for c in cands if score(paws, c[1])[0] >= 0.1 * paws.copies]
        spare = [c[0] for c in cands if all(score(s, c[1])[2] == 0 for s in news)]
        print(f"strict acceptance: {len(spare)} of {len(cands)} settings (keeping >= 10 % of PAWS-X copies) "
              f"block no merged copy of the --news sets; fewest news copies blocked: "
              f"{min(sum(score(s, c[1])[2] for s in news) for c in cands)}")
        tp, fp, picks = cross_validate(paws, cands)
        print(f"strict acceptance of every same-language pair (C, M, S, no one-sided names), 5-fold out of fold: "
              f"{p_r(tp, fp)}; picks {picks}")
        for params in dict.fromkeys(picks):
            blocks = dict(cands)[params]
            tp, fp, _ = score(paws, blocks)
            print(f"  {params}: in-sample {p_r(tp, fp)}; copies blocked "
                  + ", ".join(f"{s.name} {score(s, blocks)[2]} of {s.merged_tp} merged" for s in news + report))


if __name__ == "__main__":
    main()
