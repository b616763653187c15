"""``key_distance`` looks its costs up per character: the same floats as the cell-by-cell table."""

from __future__ import annotations

import random

from service.guards.slots import key_distance

_SUB = {frozenset("TS"), frozenset("RN"), frozenset("PH"), frozenset("KH")}
_INDEL = frozenset("HR")


def _reference(a: str, b: str) -> float:
    """The table as it was written before the per-character costs (a frozenset per cell)."""
    prev = [0.0]
    for ch in b:
        prev.append(prev[-1] + (0.5 if ch in _INDEL else 1.0))
    for ca in a:
        cur = [prev[0] + (0.5 if ca in _INDEL else 1.0)]
        for j, cb in enumerate(b, 1):
            sub = 0.0 if ca == cb else (0.5 if frozenset((ca, cb)) in _SUB else 1.0)
            cur.append(min(prev[j - 1] + sub, prev[j] + (0.5 if ca in _INDEL else 1.0),
                           cur[j - 1] + (0.5 if cb in _INDEL else 1.0)))
        prev = cur
    return prev[-1]


def test_the_same_distance_as_the_cell_by_cell_table() -> None:
    rng = random.Random(37)
    alphabet = "TSRNPHKMLJ"  # every cheap substitution and indel, and letters none of them touch
    pairs = [("", ""), ("", "HR"), ("KST", ""), ("SMT", "SMS"), ("PTR", "PT"), ("KST", "RPNS"), ("TS", "ST")]
    pairs += [("".join(rng.choices(alphabet, k=rng.randint(0, 7))), "".join(rng.choices(alphabet, k=rng.randint(0, 7))))
              for _ in range(3000)]
    for a, b in pairs:
        assert key_distance(a, b) == _reference(a, b), (a, b)
        assert key_distance(b, a) == _reference(b, a), (b, a)


def test_cheap_edits_cost_half() -> None:
    assert key_distance("T", "S") == key_distance("S", "T") == 0.5
    assert key_distance("K", "H") == key_distance("N", "R") == key_distance("P", "H") == 0.5
    assert key_distance("T", "K") == 1.0
    assert key_distance("", "H") == key_distance("R", "") == 0.5
