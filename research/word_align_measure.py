"""Does e5 word alignment tell a name's translation from another name? (issue 35, third candidate)

For Korean-English dev pairs, the slot analyser's who/where mentions of one side are looked up in
the other side with :mod:`research.word_align`, at several layers and two scores:

* ``run``: cosine of the span's mean vector with the best run of pieces (``best_counterpart``);
* ``cmax``: the span's pieces' best cosine in the other text after centring each text's vectors
  (BERTScore-style recall), averaged over the span's pieces.

Populations: ``pos`` (label-1 translations), ``hard`` (label-0 ``xl_hard_negative`` pairs) and
``swap`` (a label-1 pair with the name's table counterpart replaced by another name of the same
slot and script from the other pairs). Each record also says whether the slot tables already
match the mention (``table``). Writes JSON lines; never reads the blind set.

    PYTHONPATH=. nice -n 10 python research/word_align_measure.py --per-set 100 --out /tmp/wa.jsonl
    PYTHONPATH=. python research/word_align_measure.py --report /tmp/wa.jsonl

``--report`` prints, per score, the AUC of translations against each negative population, the
quantiles (5/25/50/75/95 %) and, for ``run8`` / ``run10``, the share of each population at or
above / below each threshold. ``U`` marks mentions the tables do not match (``table`` false).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from models.verifier import _layer_norm, encoder_layers
from research.word_align import WordAligner
from service.guards.rules import load_rules
from service.guards.slots import SlotAnalyzer

SETS = {"koen-news-park": ("xl_translation",), "ntrex128-kor-eng": ("xl_translation", "xl_headline_translation"),
        "tatoeba-kor-eng": ("xl_translation",), "korsts-stsb-koen": ("xl_translation",)}
LAYERS = (6, 8, 10)


def hidden_states(wa: WordAligner, text: str) -> tuple[tuple[tuple[int, int], ...], dict[int, np.ndarray]]:
    m = wa._load()
    enc = m["tok"].encode(text, add_special_tokens=False)
    ids, offs = enc.ids[:254], enc.offsets[:254]
    spans = tuple((s + (len(text[s:e]) - len(text[s:e].lstrip())), e) for s, e in offs)
    row = np.array([[0, *ids, 2]], dtype=np.int64)
    t = row.shape[1]
    x = m["words"].get(row) + m["pos"][:t][None] + m["type0"]
    ln_w, ln_b = m["eln"]
    x = _layer_norm(x, ln_w, ln_b, m["eps"]).astype(np.float32)
    out = {}
    bias = np.zeros((1, 1, 1, t), np.float32)
    for i, lay in enumerate(m["layers"], 1):
        x = encoder_layers(x, bias, [lay], m["heads"], m["eps"])
        if i in LAYERS:
            v = x[0, 1:-1]
            out[i] = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)
    return spans, out


def scores(span: str, a: tuple, b: tuple, text_a: str) -> dict[str, float] | None:
    at = WordAligner.locate(span, text_a)
    if at is None:
        return None
    rows = [i for i, (s, e) in enumerate(a[0]) if s < at[1] and e > at[0] and e > s]
    if not rows or not len(b[0]):
        return None
    res = {}
    for layer in LAYERS:
        va, vb = a[1][layer], b[1][layer]
        q = va[rows].mean(0)
        q /= np.linalg.norm(q)
        csum = np.concatenate([np.zeros((1, vb.shape[1]), np.float32), np.cumsum(vb, 0)])
        best = -1.0
        for run in range(1, min(6, len(vb)) + 1):
            means = csum[run:] - csum[:-run]
            best = max(best, float(((means @ q) / np.linalg.norm(means, axis=1)).max()))
        ca, cb = va - va.mean(0), vb - vb.mean(0)
        ca /= np.maximum(np.linalg.norm(ca, axis=1, keepdims=True), 1e-6)
        cb /= np.maximum(np.linalg.norm(cb, axis=1, keepdims=True), 1e-6)
        res[f"run{layer}"] = round(best, 4)
        res[f"cmax{layer}"] = round(float((ca[rows] @ cb.T).max(1).mean()), 4)
    return res


def auc(pos: list[float], neg: list[float]) -> float:
    """P(a positive scores above a negative), ties half.

    >>> auc([0.9, 0.5], [0.5, 0.1])
    0.875
    """
    p, n = np.array(pos)[:, None], np.array(neg)[None]
    return float((p > n).mean() + 0.5 * (p == n).mean())


def report(path: str) -> None:
    rows = [json.loads(line) for line in Path(path).read_text("utf-8").splitlines()]

    def pop(name: str, key: str) -> list[float]:
        want = {"pos": ("pos", None), "posU": ("pos", False), "hardU": ("hard", False), "swap": ("swap", None)}[name]
        return [r[key] for r in rows if r["pop"] == want[0] and (want[1] is None or r["table"] == want[1])]

    print({f"{p}": len(pop(p, "run8")) for p in ("pos", "posU", "hardU", "swap")})
    for key in [f"{s}{layer}" for s in ("run", "cmax") for layer in LAYERS]:
        print(f"{key}: AUC pos/hardU {auc(pop('pos', key), pop('hardU', key)):.3f} pos/swap "
              f"{auc(pop('pos', key), pop('swap', key)):.3f} posU/hardU {auc(pop('posU', key), pop('hardU', key)):.3f}")
        for p in ("pos", "posU", "hardU", "swap"):
            print(f"   {p:<6}", " ".join(f"{x:.2f}" for x in np.percentile(pop(p, key), [5, 25, 50, 75, 95])))
    for key in ("run8", "run10"):
        print(f"{key}: thr  posU>=  swap>=  | posU<  hardU<  pos<")
        pu, sw, hu, po = (np.array(pop(p, key)) for p in ("posU", "swap", "hardU", "pos"))
        for t in np.arange(0.40, 0.96, 0.05):
            print(f"  {t:.2f}  {(pu >= t).mean():.3f}  {(sw >= t).mean():.3f}  | {(pu < t).mean():.3f}  "
                  f"{(hu < t).mean():.3f}  {(po < t).mean():.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/eval-data")
    ap.add_argument("--per-set", type=int, default=120)
    ap.add_argument("--out", default="/tmp/wa.jsonl")
    ap.add_argument("--report", help="print the figures of a file this script wrote, and stop")
    args = ap.parse_args()
    if args.report:
        report(args.report)
        return
    sa = SlotAnalyzer(load_rules())
    wa = WordAligner(layer=max(LAYERS))
    rng = random.Random(7)
    cache: dict[str, tuple] = {}

    def hs(t: str) -> tuple:
        if t not in cache:
            cache[t] = hidden_states(wa, t)
        return cache[t]

    pos_pairs, neg_pairs = [], []
    for name, kinds in SETS.items():
        rows = [json.loads(line) for line in Path(args.data, name, "dev.jsonl").read_text("utf-8").splitlines()]
        p = [r for r in rows if r["label"] == 1 and r["kind"] in kinds and r["a"]["lang"] != r["b"]["lang"]]
        n = [r for r in rows if r["label"] == 0 and r["kind"].startswith("xl_") and "hard_negative" in r["kind"]]
        # pairs with a who/where mention on some side: the guards' population
        def has_name(r: dict) -> bool:
            return any(m.slot in ("who", "where") for s in "ab" for m in sa.analyse(r[s]["text"]).mentions)
        pos_pairs += [r for r in p if has_name(r)][: args.per_set]
        neg_pairs += [r for r in n if has_name(r)][: args.per_set]
    pool: dict[tuple[str, str], list[str]] = {}
    for r in pos_pairs:
        for s in "ab":
            for m in sa.analyse(r[s]["text"]).mentions:
                if m.slot in ("who", "where"):
                    pool.setdefault((m.slot, m.script), []).append(m.surface)
    with open(args.out, "w", encoding="utf-8") as out:
        def emit(kind: str, r: dict, side: str, m, text_a: str, text_b: str, table: bool) -> None:
            sc = scores(m.surface, hs(text_a), hs(text_b), text_a)
            if sc is not None:
                out.write(json.dumps({"pop": kind, "id": r["id"], "side": side, "slot": m.slot, "script": m.script,
                                      "surface": m.surface, "table": table, **sc}, ensure_ascii=False) + "\n")

        for pop, pairs in (("pos", pos_pairs), ("hard", neg_pairs)):
            for r in pairs:
                for x, y in (("a", "b"), ("b", "a")):
                    tx, ty = r[x]["text"], r[y]["text"]
                    sx, sy = sa.analyse(tx), sa.analyse(ty)
                    for m in sx.mentions:
                        if m.slot not in ("who", "where"):
                            continue
                        hit = sa.counterpart(m, sy)
                        emit(pop, r, x, m, tx, ty, hit is not None)
                        if pop == "pos" and hit is not None and any(o.surface == hit for o in sy.mentions):
                            cands = [c for c in pool.get((m.slot, "latin" if m.script == "hangul" else "hangul"), [])
                                     if c != hit and c.casefold() not in ty.casefold() and hit not in c]
                            if cands and hit in ty:
                                emit("swap", r, x, m, tx, ty.replace(hit, rng.choice(cands)), True)
    print("pairs", len(pos_pairs), len(neg_pairs))


if __name__ == "__main__":
    main()
