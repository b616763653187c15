"""Polarity guard: direction and stance words that flip a story (rise/fall, 인상/인하/동결, ...).

>>> g = PolarityGuard.from_rules(load_rules()["polarity"])
>>> side = lambda t, lang="ko": GuardInput(title=t, text=t, lang=lang)
>>> g.check(side("한은, 기준금리 0.25%p 인상"), side("한은, 기준금리 0.25%p 인하")).evidence
'polarity: 인상 vs 인하'
>>> g.check(side("코스피 급등"), side("KOSPI surges", "en")).evidence
'polarity: 급등 ~ surges'
>>> g.check(side("금리 인상하지 않기로"), side("금리 인하")).decided
False

Measures and scopes (``[measures]`` in ``polarity.measures.toml``) are axes of their own, read in a
scan of their own: the same figure of another measure, or of another population, is another report.

>>> g.check(side("삼성전자 3분기 영업이익 9조"), side("Samsung Q3 sales 9 trillion won", "en")).evidence
'polarity: measure earnings: 영업이익 vs sales'
>>> g.check(side("삼성전자 영업익 9조"), side("삼성전자 영업이익 9조…매출 79조")).blocked
False
>>> g.check(side("남성 실업률 3.1%"), side("여성 실업률 3.1%")).evidence
'polarity: measure sex: 남성 vs 여성'
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from service.guards.base import GuardInput, compared, is_hangul, prepare, term_pattern, trie_regex
from service.guards.gated import GatedScanner
from service.guards.rules import Rules, load_rules, number, str_list, table
from service.types import GuardVerdict

__all__ = ["Hit", "PolarityGuard", "load_rules"]

_ALNUM_RE = re.compile(r"[a-z0-9]")
_EN_NEG_HINTS = ("not", "n't", "no", "never", "without", "fail")
# Measures are not negated ("수출이 늘지 않아" still reports exports): a pattern that never matches.
_NO_NEGATION = {"ko_after": "(?!)", "en_before": "(?!)"}


@dataclass(frozen=True)
class Excuse:
    """A one-sided marker's excuse ([measure_marker_excuses.<marker>], ninth mend): ``hedges`` on
    the marker's words, ``terms`` on the other text's first clause (before ``breaks``), refused
    after a ``further`` word the marker's side lacks (review of the ninth mend)."""

    hedges: re.Pattern[str]
    terms: re.Pattern[str]
    breaks: re.Pattern[str] | None = None
    further: re.Pattern[str] | None = None


class PolarityGuard:
    """Blocks when an axis is present on both sides with disjoint poles, or a marker is one-sided."""

    name = "polarity"

    def __init__(self, rules: Rules) -> None:
        where = "polarity rules"
        neg = table(rules, "negation", where)
        try:
            self._ko_neg = re.compile(str(neg.get("ko_after", r"^.{0,6}?(?:않|(?<=\s)안\s|못|없|아니)")))
            self._en_neg = re.compile(str(neg.get("en_before", r"(?:\bnot|n't|\bno|\bnever)\s+$")), re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"{where}: invalid negation pattern: {exc}") from exc
        # Plain terms go into prefix tries (one per boundary kind, see base.term_pattern) and are
        # looked up after a match; "re:" terms keep a named group each. One scan per text.
        self._literal: dict[str, list[tuple[str, str]]] = {}
        self._groups: dict[str, list[tuple[str, str]]] = {}
        self._regex_group: dict[str, str] = {}
        regex_sources: list[str] = []
        self.axes: dict[str, tuple[str, ...]] = {}
        for axis, poles in table(rules, "axes", where).items():
            if not isinstance(poles, dict) or len(poles) < 2:
                raise ValueError(f"{where}: axes.{axis} must hold at least two pole tables")
            self.axes[axis] = tuple(poles)
            for pole, spec in poles.items():
                terms = str_list(table({"t": spec}, "t", f"{where}: axes.{axis}.{pole}").get("terms"),
                                 f"{where}: axes.{axis}.{pole}.terms")
                self._add(regex_sources, f"axes.{axis}.{pole}", axis, pole, terms, where)
        # Axes whose poles are steps in order ("구속" / "구속기소"): a text is at the last step it names.
        steps = table(rules, "steps", where).get("axes")
        self.steps = frozenset(str_list(steps, f"{where}: steps.axes") if steps is not None else ())
        self.markers: tuple[str, ...] = ()
        # Excuses of a one-sided marker ([measure_marker_excuses.<marker>]): a hit of the marker
        # that ``hedges`` matches (its surface) does not count against a text that ``terms`` match
        # (ninth mend: "Fed may cut rates" / "금리 인하 전망", a hedge worded as a forecast).
        self.excuses: dict[str, Excuse] = {}
        for marker, spec in table(rules, "excuses", where).items():
            spec = table({"t": spec}, "t", f"{where}: excuses.{marker}")
            pats: dict[str, re.Pattern[str] | None] = {}
            for key in ("hedges", "terms", "breaks", "further"):
                terms = str_list(spec.get(key, []), f"{where}: excuses.{marker}.{key}")
                if not terms and key in ("hedges", "terms"):
                    raise ValueError(f"{where}: excuses.{marker}.{key} must list at least one term")
                try:
                    pats[key] = re.compile("|".join(f"(?:{term_pattern(t)})" for t in terms)) if terms else None
                except (ValueError, re.error) as exc:
                    raise ValueError(f"{where}: excuses.{marker}.{key}: {exc}") from exc
            self.excuses[marker] = Excuse(**pats)  # type: ignore[arg-type]
        # Markers compared on headline-sized texts only when set: a denial or a review inside a
        # long sentence is not the frame of the report (frames pass 7).
        limit = rules.get("marker_max_words")
        self.marker_max_words: int | None = None if limit is None else int(number(limit, f"{where}: marker_max_words"))
        for marker, spec in table(rules, "markers", where).items():
            terms = str_list(table({"t": spec}, "t", f"{where}: markers.{marker}").get("terms"),
                             f"{where}: markers.{marker}.terms")
            self.markers += (marker,)
            self._add(regex_sources, f"markers.{marker}", "@marker", marker, terms, where)
        # Context: phrases that hold a pole's word but state no outcome ("사퇴 압박 속 유임": the
        # pressure to resign is the setting, the outcome is 유임). They consume their words and count
        # for nothing; their regexes go first so that they win over a pole's word at the same place.
        context_sources: list[str] = []
        for name, spec in table(rules, "context", where).items():
            terms = str_list(table({"t": spec}, "t", f"{where}: context.{name}").get("terms"),
                             f"{where}: context.{name}.terms")
            self._add(context_sources, f"context.{name}", "@context", name, terms, where)
        kinds: dict[tuple[bool, bool], list[str]] = {}
        for term in self._literal:
            kinds.setdefault((bool(_ALNUM_RE.match(term)), bool(_ALNUM_RE.match(term[-1]))), []).append(term)
        sources = []
        for (left, right), words in sorted(kinds.items()):
            src = trie_regex(words)
            sources.append(("(?<![a-z0-9])" if left else "") + f"(?:{src})" + ("(?![a-z0-9])" if right else ""))
        # At one position the first alternative that matches wins: context first, then the "re:"
        # phrases ("rejects ... resignation", "accepts ... application"), then the plain words
        # ("rejects", "accepts"), longest first within the tries.
        # The phrase regexes are gated (service/guards/gated.py): a headline is scanned with the few
        # whose words it holds, which gives the full alternation's matches at a tenth of its cost.
        gated = context_sources + regex_sources
        self._re = GatedScanner(gated, "|".join(sources) or None) if gated or sources else None
        self.extract = functools.lru_cache(maxsize=65536)(self._extract)
        # Measures and scopes: families whose members are the poles of an axis ("earnings": revenue /
        # operating / net; "sex": men / women), with their own context, scanned apart from the
        # poles above so that neither takes the other's words ("operating profit" is both a profit
        # and the operating line). One side naming no member of a family is no evidence.
        # One-sided markers of a report's frame ([measure_markers]: a denial, an act only considered)
        # are scanned with them, apart from the poles: "매각설 부인" is a stance and a denial.
        measures = table(rules, "measures", where)
        self.measures: PolarityGuard | None = None
        if measures:
            context = table(rules, "measure_context", where)
            markers = table(rules, "measure_markers", where)
            settings = table(rules, "measure_marker_settings", where)
            excuses = table(rules, "measure_marker_excuses", where)
            if unknown := sorted(set(excuses) - set(markers)):
                raise ValueError(f"{where}: measure_marker_excuses name no marker: {', '.join(unknown)}")
            self.measures = PolarityGuard({"axes": measures, "markers": markers, "context": context, "excuses": excuses,
                                           "negation": _NO_NEGATION, **(
                                               {"marker_max_words": settings["max_words"]}
                                               if "max_words" in settings else {})})

    def _add(self, regex_sources: list[str], label: str, axis: str, pole: str, terms: list[str], where: str) -> None:
        for term in terms:
            if term.startswith("re:"):
                try:
                    source = term_pattern(term)
                except ValueError as exc:
                    raise ValueError(f"{where}: {label}: {exc}") from exc
                # One group per distinct regex: only the first matching alternative wins, so a term
                # listed under two axes ("부인": stance and announcement) must carry both labels.
                group = self._regex_group.get(source)
                if group is None:
                    group = self._regex_group[source] = f"g{len(self._regex_group)}"
                    regex_sources.append(f"(?P<{group}>{source})")
                self._groups.setdefault(group, []).append((axis, pole))
            else:
                key = " ".join(term.casefold().split())
                if not key:
                    raise ValueError(f"{where}: {label}: empty term")
                self._literal.setdefault(key, []).append((axis, pole))

    @classmethod
    def from_rules(cls, rules: Rules) -> PolarityGuard:
        return cls(rules)

    def _negated(self, text: str, start: int, end: int, surface: str) -> bool:
        if is_hangul(surface):
            return self._ko_neg.search(text[end : end + 12]) is not None
        window = text[max(0, start - 30) : start]
        # Cheap substring test first: the negation regex is anchored at the window's end.
        return any(w in window for w in _EN_NEG_HINTS) and self._en_neg.search(window) is not None

    def _extract(self, text: str) -> tuple[Hit, ...]:
        if self._re is None:
            return ()
        text = " ".join(prepare(text).casefold().split())
        hits: list[Hit] = []
        for m in self._re.finditer(text):
            group = m.lastgroup
            labels = self._groups[group] if group is not None else self._literal.get(m.group(0), [])
            for axis, pole in labels:
                if axis == "@context":
                    continue  # "사퇴 압박": the words are taken, and say nothing
                if axis != "@marker" and self._negated(text, m.start(), m.end(), m.group(0)):
                    continue  # "인상하지 않기로": negated, so no evidence either way
                hits.append(Hit(axis, pole, m.group(0)))
        return tuple(hits)

    def check(self, a: GuardInput, b: GuardInput) -> GuardVerdict:
        clashes, matches = self._compare(a.content, b.content)
        if self.measures is not None:
            # Only the clashes: a measure named alike on both sides says nothing of the outcome, and
            # a decided polarity verdict counts as an aligned value for the slot confirmation.
            clashes = clashes + self.measures._compare(a.content, b.content, label="measure ")[0]
        return compared(self.name, clashes, matches, aside="no direction or stance words on both sides")

    def _excuse(self, marker: str, hits: list[str], other: str, own: str) -> str | None:
        """The words of ``other`` (the text without ``marker``) that excuse ``hits`` (the marker's
        words on ``own``), or None: every hit must be one the excuse's ``hedges`` match; ``terms``
        are read in ``other``'s first clause (up to ``breaks``), and not after a ``further`` word
        that ``own`` lacks ("Fed cuts rates; more cuts expected": the forecast is of another act)."""
        spec = self.excuses.get(marker)
        if spec is None or not all(spec.hedges.search(h) for h in hits):
            return None
        text = " ".join(prepare(other).casefold().split())
        if spec.breaks is not None:
            text = spec.breaks.split(text, maxsplit=1)[0]
        further = spec.further is not None and spec.further.search(" ".join(prepare(own).casefold().split())) is None
        for found in spec.terms.finditer(text):
            if further and spec.further is not None and spec.further.search(text[:found.start()]):
                continue
            return found.group(0)
        return None

    def _compare(self, text_a: str, text_b: str, label: str = "") -> tuple[list[str], list[str]]:
        """(clashes, matches) of the markers and axes of two texts; ``label`` names the axis in
        the evidence ("measure earnings: ...")."""
        ha, hb = self.extract(text_a), self.extract(text_b)
        clashes: list[str] = []
        matches: list[str] = []
        named = (lambda axis: f"{label}{axis}: ") if label else (lambda axis: "")
        markers = self.markers
        if self.marker_max_words is not None and max(len(text_a.split()), len(text_b.split())) > self.marker_max_words:
            markers = ()
        for marker in markers:
            xa = [h.surface for h in ha if h.axis == "@marker" and h.pole == marker]
            xb = [h.surface for h in hb if h.axis == "@marker" and h.pole == marker]
            if bool(xa) != bool(xb):
                excuse = self._excuse(marker, xa or xb, text_b if xa else text_a, text_a if xa else text_b)
                if excuse is not None:
                    matches.append(f"{(xa or xb)[0]} ~ {excuse}" if xa else f"{excuse} ~ {xb[0]}")
                    continue
                clashes.append(f"{(xa or ['(no ' + marker + ')'])[0]} vs {(xb or ['(no ' + marker + ')'])[0]}")
            elif xa:
                matches.append(f"{xa[0]} ~ {xb[0]}")
        for axis in self.axes:
            pa = {h.pole: h.surface for h in reversed(ha) if h.axis == axis}
            pb = {h.pole: h.surface for h in reversed(hb) if h.axis == axis}
            if not pa or not pb:
                continue
            if axis in self.steps:  # the last step each side names: "구속기소" is charged, not arrested
                pa, pb = (_last_step(d, self.axes[axis]) for d in (pa, pb))
            common = [p for p in self.axes[axis] if p in pa and p in pb]
            if common:
                matches.append(f"{named(axis)}{pa[common[0]]} ~ {pb[common[0]]}")
            else:
                clashes.append(f"{named(axis)}{'/'.join(pa.values())} vs {'/'.join(pb.values())}")
        return clashes, matches


def _last_step(poles: dict[str, str], order: tuple[str, ...]) -> dict[str, str]:
    """The last of ``order``'s steps that ``poles`` holds, alone.

    >>> _last_step({"charged": "기소", "arrested": "구속"}, ("raided", "arrested", "charged"))
    {'charged': '기소'}
    """
    last = [p for p in order if p in poles][-1]
    return {last: poles[last]}


@dataclass(frozen=True)
class Hit:
    """One lexicon hit: ``axis``/``pole`` and the words as written."""

    axis: str
    pole: str
    surface: str
