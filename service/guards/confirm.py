"""Slot confirmation: a Korean-English headline pair the embedding stage just misses, accepted
because every slot of the two headlines aligns.

The multilingual encoder scores short translated headlines low ("Kim Jong Un meets Putin in
Vladivostok" / "김정은, 블라디보스토크서 푸틴과 회담": cosine 0.58, below the 0.625 threshold),
while the slot layer (``service/guards/slots.py``) can see that every name, place, model and
number of one side has its counterpart on the other. The cascade asks this module only for a
pair that no stage proposed, whose cosine lies in a band below the embedding threshold
(``EngineConfig.copy.slot_confirm_threshold``) and that every guard lets through; it confirms when

* the pair is cross-lingual (Hangul on exactly one side): within one language a low cosine
  with the same names is a different sentence about the same people (PAWS-X), not a copy;
* both headlines are short (``[confirm] max_words``): in a long sentence a few shared names
  are a small part of what is said;
* nothing in the who, where and which slots is left unaligned on either side (a capitalised
  word that is capitalised only because it starts the headline does not count against it);
* every number is aligned with a number of the same value to every digit either side states
  (``$1.1 billion`` / ``11억3천만 달러`` is not, although the number guard's precision rule
  lets it pass), and any other digits
  (years, days, versions) are written on both sides;
* at least ``[confirm] min_aligned`` values are aligned in all (names, places, models,
  numbers; an outcome the polarity guard matched counts as one).

>>> from service.guards import GuardInput, GuardSet
>>> gs = GuardSet.default()
>>> side = lambda t, lang: GuardInput(title=t, text=t, lang=lang)
>>> a, b = side("Kim Jong Un meets Putin in Vladivostok", "en"), side("김정은, 블라디보스토크서 푸틴과 회담", "ko")
>>> gs.confirm(a, b, gs.check(a, b)).confirmed
True
>>> c = side("김정은, 블라디보스토크서 시진핑과 회담", "ko")
>>> gs.confirm(a, c, gs.check(a, c)).evidence
'slots: blocked by who'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from service.guards.base import HANGUL_RE, GuardInput
from service.guards.rules import Rules, number, table
from service.guards.slots import SlotAnalyzer, TextSlots, numbers_equal
from service.types import GuardVerdict

__all__ = ["Confirmation", "SlotConfirmer"]


@dataclass(frozen=True)
class Confirmation:
    """Whether the slots confirm a pair, and why (``slots: ...``)."""

    confirmed: bool
    evidence: str
    aligned: int = 0


_DIGITS_RE = re.compile(r"\d+(?:[.,]\d+)*")


def _loose_digits(text: str, slots: TextSlots) -> frozenset[str]:
    """Digit strings of ``text`` that no number-slot mention covers (years, days, versions)."""
    covered = {d for m in slots.slot("number") for d in _DIGITS_RE.findall(m.surface)}
    return frozenset(d for d in _DIGITS_RE.findall(text) if d not in covered)


class SlotConfirmer:
    """Confirms a cross-lingual headline pair whose slots all align (see the module doc)."""

    def __init__(self, rules: dict[str, Rules], analyzer: SlotAnalyzer) -> None:
        where = "slots rules"
        conf = table(rules.get("slots", {}), "confirm", where)
        # See slots.toml [confirm] for what these were calibrated on.
        self.min_aligned = int(number(conf.get("min_aligned", 2), f"{where}: confirm.min_aligned"))
        self.max_words = int(number(conf.get("max_words", 16), f"{where}: confirm.max_words"))
        self.analyzer = analyzer

    @staticmethod
    def eligible(a: GuardInput, b: GuardInput) -> bool:
        """Hangul on exactly one side: the only pairs worth running the guards for."""
        return bool(HANGUL_RE.search(a.headline)) != bool(HANGUL_RE.search(b.headline))

    def confirm(self, a: GuardInput, b: GuardInput, verdicts: Sequence[GuardVerdict]) -> Confirmation:
        """``verdicts`` are the guards' verdicts on the same pair (``GuardSet.check``)."""
        blocked = [v.guard for v in verdicts if v.blocked]
        if blocked:
            return Confirmation(False, f"slots: blocked by {', '.join(blocked)}")
        sa = self.analyzer
        ha, hb = a.headline, b.headline
        if bool(HANGUL_RE.search(ha)) == bool(HANGUL_RE.search(hb)):
            return Confirmation(False, "slots: not a Korean-English pair")
        # The English side first, whichever came in first: the alignment is read from the first
        # side's values (a Latin name is found spelt in Hangul on the other side, a Korean name
        # the analyser does not know as one is not), so a pair must not be confirmed one way
        # round and refused the other. NTREX dev bbc.381680 (Brexit / 브렉시트, UK / 영국): two
        # aligned values English first, one Korean first, so the pair was a copy only when the
        # English article arrived second.
        if HANGUL_RE.search(ha):
            ha, hb = hb, ha
        ta, tb = sa.analyse(ha), sa.analyse(hb)
        if max(ta.words, tb.words) > self.max_words:
            return Confirmation(False, f"slots: longer than {self.max_words} words")
        # a number outside the number slot (a date, a duration, a version) on one side only is a
        # fact the other side lacks: "ICC lawyer detained in Libya" / "..., 45일간의 구금" (KorSTS)
        lone = _loose_digits(ha, ta) ^ _loose_digits(hb, tb)
        if lone:
            return Confirmation(False, f"slots: number {sorted(lone)[0]} on one side only")
        aligned: list[str] = []
        for slot in ("who", "which", "number"):  # who compares places too (compare_slot)
            c = sa.compare(slot, ha, hb)[2]
            lonely = c.only_a + c.only_b
            if lonely:
                return Confirmation(False, f"slots: {slot} {lonely[0].surface} not aligned")
            for m, hit in c.matched:
                if slot == "number" and not any(numbers_equal(m, o) for o in tb.slot("number")):
                    return Confirmation(False, f"slots: number {m.surface} ~ {hit} only to a precision")
                aligned.append(f"{m.surface} == {hit}")
        aligned = list(dict.fromkeys(aligned))
        outcome = [v for v in verdicts if v.guard == "polarity" and v.decided]
        n = len(aligned) + len(outcome)
        if n < self.min_aligned:
            return Confirmation(False, f"slots: {n} aligned value(s) < {self.min_aligned}", n)
        shown = "; ".join(aligned + [v.evidence.removeprefix("polarity: ") for v in outcome])
        return Confirmation(True, f"slots: every slot aligned ({shown})", n)
