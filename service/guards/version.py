"""Version guard: software/product versions and model numbers.

>>> g = VersionGuard.from_rules(load_rules()["version"])
>>> side = lambda t, lang="en": GuardInput(title=t, text=t, lang=lang)
>>> g.check(side("Apple ships iOS 18.1"), side("Apple ships iOS 18.1.1")).evidence
'version: iOS 18.1 != iOS 18.1.1'
>>> g.check(side("갤럭시 S24 울트라 출시", "ko"), side("Samsung launches Galaxy S24 Ultra")).blocked
False
>>> g.extract("Deno v22 released")
(('version', '22', 'v22'),)
"""

from __future__ import annotations

import functools
import re

from service.guards.base import GuardInput, compared, prepare, step_aside, trie_regex
from service.guards.rules import Rules, load_rules, str_list, table
from service.types import GuardVerdict

__all__ = ["VersionGuard", "load_rules", "normalize_version"]

# (family, normalised version, surface as written)
Mention = tuple[str, str, str]


def normalize_version(raw: str) -> str:
    """Drop a leading v and trailing ".0" parts; case-fold.

    >>> normalize_version("v2.0.0"), normalize_version("2.0.1"), normalize_version("S24")
    ('2', '2.0.1', 's24')
    """
    v = raw.strip().casefold()
    if v.startswith("v") and v[1:2].isdigit():
        v = v[1:]
    while re.search(r"\.0+$", v):
        v = re.sub(r"\.0+$", "", v)
    return v


class VersionGuard:
    """Blocks when a product family named on both sides carries disjoint version sets."""

    name = "version"

    def __init__(self, rules: Rules) -> None:
        where = "version rules"
        families = table(rules, "families", where)
        patterns = table(rules, "patterns", where)
        self.surface_to_family: dict[str, str] = {}
        for family, surfaces in families.items():
            for surface in str_list(surfaces, f"{where}: families.{family}"):
                self.surface_to_family[surface.casefold()] = family
        version_src = str(patterns.get("version", r"[A-Za-z]?\d+(?:\.\d+)*[a-z]{0,2}"))
        fam_alt = trie_regex(set(self.surface_to_family))  # a trie: fast on every text (base.trie_regex)
        try:
            # The family word must not be glued to a preceding Latin letter ("beta" in "alphabeta"),
            # and the version must end at a non-word character (or Hangul: "갤럭시S24는").
            self._family_re = re.compile(
                rf"(?<![A-Za-z])(?P<fam>{fam_alt})[\s-]?(?P<ver>{version_src})(?![A-Za-z0-9]|\.\d)",
                re.IGNORECASE,
            )
            self._v_re = re.compile(str(patterns.get("v_prefixed", r"(?<![A-Za-z0-9])[vV](\d+(?:\.\d+)*)(?![\w.])")))
            self._model_re = re.compile(str(patterns["model"])) if "model" in patterns else None
            self._dotted_re = re.compile(str(patterns["dotted"])) if "dotted" in patterns else None
            self._named_re = re.compile(str(patterns["named"])) if "named" in patterns else None
        except re.error as exc:
            raise ValueError(f"{where}: invalid pattern: {exc}") from exc
        self.model_stop = frozenset(s.casefold() for s in str_list(rules.get("model_stop", []), f"{where}: model_stop"))
        self.extract = functools.lru_cache(maxsize=65536)(self._extract)

    @classmethod
    def from_rules(cls, rules: Rules) -> VersionGuard:
        return cls(rules)

    def _extract(self, text: str) -> tuple[Mention, ...]:
        text = prepare(text)
        found: list[Mention] = []
        taken: list[tuple[int, int]] = []
        for m in self._family_re.finditer(text):
            family = self.surface_to_family[m.group("fam").casefold()]
            found.append((family, normalize_version(m.group("ver")), m.group(0)))
            taken.append(m.span())
        for m in self._v_re.finditer(text):
            if not any(s <= m.start() < e for s, e in taken):
                found.append(("version", normalize_version(m.group(1)), m.group(0)))
                taken.append(m.span())
        if self._model_re is not None:
            for m in self._model_re.finditer(text):
                letters = m.group(1)
                if letters.casefold() in self.model_stop or letters.casefold() in self.surface_to_family:
                    continue
                if letters in ("v", "V"):
                    continue  # "v22" is the v-pattern's
                # Inside a family match ("Galaxy S24") the bare model is recorded too, so that
                # "갤럭시 S24" and a text saying only "S24" still compare.
                found.append((letters.casefold(), normalize_version(m.group(2)), m.group(0)))
        if self._named_re is not None:
            for m in self._named_re.finditer(text):
                if not any(s <= m.start("ver") < e for s, e in taken):
                    found.append(("after:" + m.group("word").casefold(), normalize_version(m.group("ver")), m.group(0)))
                    taken.append(m.span("ver"))
        if self._dotted_re is not None:
            for m in self._dotted_re.finditer(text):
                if not any(s <= m.start() < e for s, e in taken):
                    found.append(("version", normalize_version(m.group(1)), m.group(0)))
        return tuple(dict.fromkeys(found))

    def check(self, a: GuardInput, b: GuardInput) -> GuardVerdict:
        va, vb = self.extract(a.content), self.extract(b.content)
        if not va or not vb:
            return step_aside(self.name, "no versions on " + ("either side" if not va and not vb else "one side"))
        fams = sorted({f for f, _, _ in va} & {f for f, _, _ in vb})
        if not fams:
            return step_aside(self.name, "no product family named on both sides")
        clashes: list[str] = []
        matches: list[str] = []
        for fam in fams:
            xs = {v: s for f, v, s in va if f == fam}
            ys = {v: s for f, v, s in vb if f == fam}
            common = sorted(set(xs) & set(ys))
            if common:
                matches.append(f"{xs[common[0]]} == {ys[common[0]]}")
            else:
                clashes.append(f"{'/'.join(xs.values())} != {'/'.join(ys.values())}")
        return compared(self.name, clashes, matches, anchoring=True)
