"""The engine as shipped (pair verifier on) on hand-written pairs written before any scoring.

``tests/data/verifier_pairs_fresh.jsonl``: 170 headline pairs (75 copies, 95 different reports that
share most words: swapped roles, flipped outcomes, changed numbers and names, Korean-English near
misses, follow-ups), written on 2026-12-04 by a writer who had not read the guards, the verifier's
recipe or its training data, before the engine was run on them. They were scored once with the
verifier off and on (research/notes/verifier.md, "On by default"); a rule tried after reading the
scores was not kept. On 2026-12-06, seven of its eight false merges (outcome flips and follow-ups)
were read and the polarity guard's outcome axes written from them (research/notes/guards.md,
"Outcome frames", measured blind on tests/data/outcome_pairs.jsonl): for those frames the set is no
longer unseen. The figures below are what the shipped artefact and defaults give, so a retrained
verifier or a changed default that does worse shows here.
"""

from __future__ import annotations

from collections import Counter

import pytest

from index.text import has_hangul
from tests.helpers.labelled_pairs import read_pairs, shipped_verdicts
from tests.paths import REPO_ROOT

PAIRS = REPO_ROOT / "tests" / "data" / "verifier_pairs_fresh.jsonl"


def test_the_fresh_pairs_are_well_formed() -> None:
    recs = read_pairs(PAIRS)
    assert len({r["id"] for r in recs}) == len(recs) == 170
    assert Counter(r["label"] for r in recs) == {1: 75, 0: 95}
    for r in recs:
        for side in (r["a"], r["b"]):
            assert side["lang"] in ("ko", "en") and has_hangul(side["text"]) == (side["lang"] == "ko"), r["id"]


@pytest.mark.heavy
def test_the_shipped_engine_on_the_fresh_pairs() -> None:
    """Verifier on (the default): 8 false merges of 95 and 45 copies of 75 found when measured
    (verifier off: 28 and 61; 41 before the verifier read equal figures written alike,
    ``Cascade.read_pair``); 0 and 45 with the outcome axes and the role guard's result frame. It refuses swapped roles and most flipped outcomes; it also refuses most same-language
    rewordings, which is where its recall goes."""
    found, false_merges = shipped_verdicts(read_pairs(PAIRS))
    assert sum(false_merges.values()) == 0, false_merges
    assert sum(found.values()) >= 45, found
    assert found["syndication"] == 12  # decorations are never refused
