"""Seed 000: subject gate + IDF-weighted character 3-gram Jaccard >= 0.30, IDF within the batch.

Faithful to the write-up (``shared/seeds/000_*.txt``):

* grams: character 3-grams of the normalised title, spaces included (``index.text.char_ngrams``);
* weight of a gram: ``log(1 + N / (1 + df))`` with N and df counted *within the batch*;
* gate: the lead tokens (``index.text.lead_token``) must be equal; two empty keys share a
  bucket and are compared by similarity alone ("the gate blocks when present, steps aside when
  absent"); pairs whose lead tokens differ are never merged whatever their similarity;
* threshold 0.30; greedy clustering where each item is compared only with the representatives
  in its lead-token bucket (no chaining).

The seed also replaced a group's representative by a "better" one (original outlet over a
syndicator, direct link over a redirect, newest). The eval data has no such ranking signal, so
the first item stays the representative.

Pair verdict: the batch is every distinct text of the pairs handed in; IDF is computed over
it once, then a pair is together iff its lead tokens match and its weighted Jaccard >= 0.30.
The score is the weighted Jaccard, ``-inf`` when the gate blocks.

>>> b = Seed000()
>>> pairs = [(Side("진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", "ko"),
...           Side("진천군 온디바이스 AI기반 스마트돌봄 본격화", "ko")),
...          (Side("어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여", "ko"),
...           Side("엠젠솔루션, 온디바이스 AI 서비스 실증·확산 사업 참여", "ko"))]
>>> [v.same for v in b.pair_verdicts(pairs)]
[True, False]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from tqdm import tqdm

from eval.baselines.base import NEG_INF, Verdict, unique_texts
from eval.data import Side
from index.text import char_ngrams, lead_token, weighted_jaccard

NEAR_DUPLICATE_THRESHOLD = 0.30


def batch_idf(grams: Sequence[frozenset[str]]) -> dict[str, float]:
    """``log(1 + N / (1 + df))`` for every gram of the batch.

    >>> idf = batch_idf([frozenset({"ab"}), frozenset({"ab", "cd"})])
    >>> round(idf["ab"], 4), round(idf["cd"], 4)
    (0.5108, 0.6931)
    """
    n = len(grams)
    df: Counter[str] = Counter()
    for g in grams:
        df.update(g)
    return {gram: math.log(1 + n / (1 + d)) for gram, d in df.items()}


class Seed000:
    """Lead-token gate + in-batch IDF-weighted char-3-gram Jaccard at 0.30."""

    name = "seed 000 (gate + IDF 3-gram Jaccard 0.30)"
    description = ("lead token equal (index.text.lead_token), IDF-weighted char 3-gram Jaccard >= 0.30, "
                   "IDF = log(1 + N/(1+df)) within the batch; greedy representatives")

    def __init__(self, threshold: float = NEAR_DUPLICATE_THRESHOLD) -> None:
        self.threshold = threshold

    def pair_verdicts(self, pairs: Sequence[tuple[Side, Side]], progress: bool = False) -> list[Verdict]:
        texts = unique_texts(pairs)
        grams = {t: char_ngrams(t, 3) for t in texts}
        idf = batch_idf(list(grams.values()))
        leads = {t: lead_token(t) for t in texts}
        out: list[Verdict] = []
        for a, b in tqdm(pairs, desc="seed 000", disable=not progress, leave=False):
            if leads[a.text] != leads[b.text]:
                out.append(Verdict(False, NEG_INF))
                continue
            s = weighted_jaccard(grams[a.text], grams[b.text], idf)
            out.append(Verdict(s >= self.threshold, s))
        return out

    def cluster(self, items: Sequence[Side], progress: bool = False) -> list[int]:
        grams = [char_ngrams(it.text, 3) for it in items]
        idf = batch_idf(grams)
        buckets: dict[str, list[int]] = {}
        labels: list[int] = []
        for i, item in enumerate(tqdm(items, desc="seed 000", disable=not progress, leave=False)):
            lead = lead_token(item.text)
            bucket = buckets.setdefault(lead, [])
            match = next((r for r in bucket if weighted_jaccard(grams[i], grams[r], idf) >= self.threshold), None)
            if match is None:
                bucket.append(i)
                labels.append(i)
            else:
                labels.append(labels[match])
        return labels
