"""Word order in the same-bag regime: two long Korean texts built from the same words.

PAWS-X style pairs ("한솔 강은 누리 강의 지류입니다" / "누리 강은 한솔 강의 지류입니다") use the
same bag of words on both sides; news copies either keep the order (syndication, re-spelt
copies) or change the wording (rewrites share far fewer words). So the role guard's fourth
Korean test looks at order only where the two bags nearly coincide, and vetoes there when
shared words have *moved*. The rules and their calibration are in ``role.toml [order]``.

* *units*: the content morphemes of a text in order (kiwipiepy, ``slots.korean_tokens``):
  names (NNP and Latin words), numbers (digits and the numeral words of ``[order.numerals]``:
  ``두 번째`` / ``첫 번째``), nouns, verb and adjective stems;
* *alignment*: a name spelt differently on the other side (``Hartley`` / ``하틀리``, ``하틀리`` /
  ``허틀리``) is renamed to its counterpart by phonetic key (``slots.phonetic_key``, ``key_distance``);
* *moved*: the shared units (a multiset) minus the longest common subsequence of the two
  sequences of shared units.

>>> rules = OrderRules.from_table(load_rules()["role"]["order"], "role rules")
>>> o = OrderTest(rules)
>>> a = "첫 번째 공연은 관객들에게 두 번째 공연보다 큰 호응을 얻었고 입장권도 일찍 매진되었다."
>>> b = "두 번째 공연은 관객들에게 첫 번째 공연보다 큰 호응을 얻었고 입장권도 일찍 매진되었다."
>>> o.compare(a, b)
'8 of 10 shared words in the same order; moved: 첫, 두 (order)'
>>> o.compare(a, a) is None
True
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

from service.guards.base import HANGUL_RE
from service.guards.rules import Rules, int_setting, load_rules, number, str_list, table
from service.guards.slots import key_distance, korean_tokens, phonetic_key, romanize

__all__ = ["OrderFeatures", "OrderRules", "OrderTest", "Unit", "load_rules"]


@dataclass(frozen=True)
class Unit:
    """One content unit: ``key`` compared, ``shown`` as written, ``kind`` name / number / word."""

    key: str
    shown: str
    kind: str  # "name", "number" or "word"


@dataclass(frozen=True)
class OrderFeatures:
    """What the order test reads from a pair: units per side, shared units, the moved ones."""

    units_a: int
    units_b: int
    shared: int  # shared units, a multiset
    moved: tuple[str, ...]  # shared units off the longest common subsequence (as written in a)
    one_sided: tuple[int, int]  # names and numbers of a / of b that the other side lacks


@dataclass(frozen=True)
class OrderRules:
    """``role.toml [order]``: see the file for what each value was calibrated on."""

    enabled: bool
    min_units: int
    min_shared_share: float
    min_moved: int
    name_tags: frozenset[str]
    word_tags: frozenset[str]
    min_word_chars: int
    numerals: dict[str, str]
    cross_tolerance: float
    min_tolerance: float
    same_script_distance: float
    same_script_min_chars: int

    @classmethod
    def from_table(cls, t: Rules, where: str) -> OrderRules:
        w = f"{where}: order"
        numerals = table(t, "numerals", w)
        for k, v in numerals.items():
            if not isinstance(v, str):
                raise ValueError(f"{w}.numerals.{k} must be a string (the number it names), got {v!r}")
        share = number(t.get("min_shared_share", 0.6), f"{w}.min_shared_share")
        if not 0 < share <= 1:
            raise ValueError(f"{w}.min_shared_share must lie in (0, 1], got {share!r}")
        enabled = t.get("enabled", True)
        if not isinstance(enabled, bool):
            raise ValueError(f"{w}.enabled must be true or false, got {enabled!r}")
        return cls(
            enabled=enabled,
            min_units=int_setting(t, "min_units", 7, w),
            min_shared_share=share,
            min_moved=max(1, int_setting(t, "min_moved", 2, w)),
            name_tags=frozenset(str_list(t.get("name_tags", ["NNP", "SL"]), f"{w}.name_tags")),
            word_tags=frozenset(str_list(t.get("word_tags", []), f"{w}.word_tags")),
            min_word_chars=int_setting(t, "min_word_chars", 2, w),
            numerals=dict(numerals),
            cross_tolerance=number(t.get("cross_script_tolerance", 0.25), f"{w}.cross_script_tolerance"),
            min_tolerance=number(t.get("min_tolerance", 0.5), f"{w}.min_tolerance"),
            same_script_distance=number(t.get("same_script_distance", 1.0), f"{w}.same_script_distance"),
            same_script_min_chars=int_setting(t, "same_script_min_chars", 3, w),
        )


def _key(text: str) -> str:
    return phonetic_key(romanize(text)) if HANGUL_RE.search(text) else phonetic_key(text)


def _lcs_keep(a: list[str], b: list[str]) -> list[bool]:
    """For each element of ``a``, whether it is on one longest common subsequence with ``b``."""
    n, m = len(a), len(b)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            dp[i][j] = dp[i + 1][j + 1] + 1 if a[i] == b[j] else max(dp[i + 1][j], dp[i][j + 1])
    keep = [False] * n
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            keep[i] = True
            i += 1
            j += 1
        elif dp[i + 1][j] >= dp[i][j + 1]:
            i += 1
        else:
            j += 1
    return keep

def moved_keys(sa: list[str], sb: list[str]) -> tuple[list[str], list[bool]]:
    """The shared units of ``sa`` in order (each kept as often as both sides have it) and, for
    each, whether it lies on one longest common subsequence with ``sb``'s shared units.

    >>> moved_keys(["a", "b", "c", "x"], ["c", "a", "b"])
    (['a', 'b', 'c'], [True, True, False])
    """
    shared = Counter(sa) & Counter(sb)

    def trim(seq: list[str]) -> list[str]:
        seen: Counter[str] = Counter()
        kept = []
        for k in seq:
            if seen[k] < shared[k]:
                kept.append(k)
                seen[k] += 1
        return kept

    xa = trim(sa)
    return xa, _lcs_keep(xa, trim(sb))



class OrderTest:
    """Vetoes a reordering of the same words in two long Korean texts (see the module doc)."""

    def __init__(self, rules: OrderRules) -> None:
        self.rules = rules
        self.units = functools.lru_cache(maxsize=65536)(self._units)

    def _units(self, text: str) -> tuple[Unit, ...]:
        r = self.rules
        out: list[Unit] = []
        for form, tag, _s, _e in korean_tokens(text):
            if tag in r.name_tags:
                out.append(Unit(form.casefold(), form, "name"))
            elif tag == "SN":
                out.append(Unit(form.replace(",", ""), form, "number"))
            elif form in r.numerals and tag in ("MM", "NR"):
                out.append(Unit(r.numerals[form], form, "number"))
            elif tag in r.word_tags and (tag != "NNG" or len(form) >= r.min_word_chars):
                out.append(Unit(form, form, "word"))
        return tuple(out)

    def _align(self, ua: tuple[Unit, ...], ub: tuple[Unit, ...]) -> dict[str, str]:
        """Keys of b's names spelt otherwise in a -> a's key (closest pairs first, one-to-one)."""
        r = self.rules
        ka, kb = {u.key for u in ua}, {u.key for u in ub}
        only_a = [u for u in dict.fromkeys(ua) if u.kind == "name" and u.key not in kb]
        only_b = [u for u in dict.fromkeys(ub) if u.kind == "name" and u.key not in ka]
        cands: list[tuple[float, str, str]] = []
        for u in only_b:
            pu = _key(u.key)
            for v in only_a:
                pv = _key(v.key)
                if len(pu) < 2 or len(pv) < 2:
                    continue
                if bool(HANGUL_RE.search(u.key)) != bool(HANGUL_RE.search(v.key)):
                    tol = max(r.min_tolerance, r.cross_tolerance * max(len(pu), len(pv)))
                elif min(len(u.key), len(v.key)) >= r.same_script_min_chars:
                    tol = r.same_script_distance  # a misspelling within one script
                else:
                    tol = 0.0  # shorter names: the same phonetic key only
                d = key_distance(pu, pv)
                if d <= tol:
                    cands.append((d, u.key, v.key))
        renamed: dict[str, str] = {}
        used: set[str] = set()
        for _d, ub_key, ua_key in sorted(cands):
            if ub_key not in renamed and ua_key not in used:
                renamed[ub_key] = ua_key
                used.add(ua_key)
        return renamed

    def features(self, a: str, b: str) -> OrderFeatures:
        """Units on each side, shared units and the shared units out of order."""
        ua, ub = self.units(a), self.units(b)
        renamed = self._align(ua, ub)
        sa = [u.key for u in ua]
        sb = [renamed.get(u.key, u.key) for u in ub]
        shared = Counter(sa) & Counter(sb)
        shown = {u.key: u.shown for u in ua}
        xa, keep = moved_keys(sa, sb)
        moved = tuple(shown.get(k, k) for k, ok in zip(xa, keep, strict=True) if not ok)
        kb, ka = Counter(sb), Counter(sa)
        one_sided = (sum(1 for u in ua if u.kind != "word" and u.key not in kb),
                     sum(1 for u, k in zip(ub, sb, strict=True) if u.kind != "word" and k not in ka))
        return OrderFeatures(len(sa), len(sb), sum(shared.values()), moved, one_sided)

    def in_regime(self, f: OrderFeatures) -> bool:
        """Both texts long enough and built from nearly the same bag of units."""
        r = self.rules
        return (min(f.units_a, f.units_b) >= r.min_units
                and f.shared >= r.min_shared_share * max(f.units_a, f.units_b))

    def compare(self, a: str, b: str) -> str | None:
        """The evidence of a veto (shared words moved in the same-bag regime), else None."""
        r = self.rules
        if not r.enabled or min(len(self.units(a)), len(self.units(b))) < r.min_units:
            return None
        f = self.features(a, b)
        if not self.in_regime(f) or len(f.moved) < r.min_moved:
            return None  # not the same bag of words (a rewrite: order says nothing), or in order
        return (f"{f.shared - len(f.moved)} of {f.shared} shared words in the same order; "
                f"moved: {', '.join(f.moved[:4])} (order)")
