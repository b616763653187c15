"""GuardSet: the ten guards, built from the rule catalogue, asked in a fixed order.

>>> gs = GuardSet.default()
>>> gs.names
('version', 'quantity', 'date', 'subject', 'polarity', 'role', 'who', 'where', 'which', 'number')
>>> a = GuardInput(title="연준, 기준금리 0.25%p 인상", text="연준, 기준금리 0.25%p 인상", lang="ko")
>>> b = GuardInput(title="Fed raises rates by 50 basis points", text="Fed raises rates by 50 basis points", lang="en")
>>> gs.blocked(gs.check(a, b))
['quantity', 'number']
>>> [v.evidence for v in gs.check(a, b) if v.decided]
['quantity: 0.25%p != 50 basis points', 'subject: 연준 == Fed (fed)', 'polarity: 인상 ~ raises rates', 'who: 연준 == Fed', 'number: 0.25% != 50 basis points']
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from service.guards.base import Guard, GuardInput
from service.guards.confirm import Confirmation, SlotConfirmer
from service.guards.date import DateGuard
from service.guards.polarity import PolarityGuard
from service.guards.quantity import QuantityGuard
from service.guards.result import name_matcher
from service.guards.role import RoleGuard
from service.guards.rules import GUARD_NAMES, Rules, env_rule_dirs, load_rules
from service.guards.slotguards import SlotGuard
from service.guards.slots import SLOTS, SlotAnalyzer
from service.guards.subject import SubjectGuard
from service.guards.version import VersionGuard
from service.types import GuardVerdict

log = logging.getLogger(__name__)

_FACTORIES: dict[str, Callable[[Rules], Guard]] = {
    "version": VersionGuard,
    "quantity": QuantityGuard,
    "date": DateGuard,
    "subject": SubjectGuard,
    "polarity": PolarityGuard,
    "role": RoleGuard,
}


# The guards whose verdicts count anchors (GuardVerdict.anchors): names and figures.
ANCHORING = frozenset({"subject", "quantity", "version", "who"})


class GuardSet:
    """An ordered set of guards. Any blocking verdict vetoes the proposed merge."""

    def __init__(self, guards: Sequence[Guard], confirmer: SlotConfirmer | None = None) -> None:
        names = [g.name for g in guards]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate guard names: {names}")
        self.guards: tuple[Guard, ...] = tuple(guards)
        self.names: tuple[str, ...] = tuple(names)
        # the slot confirmation of a pair just below the embedding threshold (service/guards/confirm.py)
        self.confirmer = confirmer

    @classmethod
    def from_rules(cls, extra_dirs: list[Path] | None = None, enabled: Iterable[str] | None = None) -> GuardSet:
        """Guards built from the packaged rules plus the TOML files of ``extra_dirs`` (merged in order).

        ``enabled`` selects guards by name (default: all ten); the order stays the canonical one.
        """
        if enabled is None:
            wanted = list(GUARD_NAMES)
        else:
            if isinstance(enabled, str):
                raise ValueError("enabled must be an iterable of guard names, not a single string")
            wanted = list(enabled)
            unknown = sorted(set(wanted) - set(GUARD_NAMES))
            if unknown:
                raise ValueError(f"unknown guard name(s) {unknown}; known: {', '.join(GUARD_NAMES)}")
        rules = load_rules(extra_dirs)
        # the slot guards share one analyser: each text is analysed once for all four slots
        analyzer = SlotAnalyzer(rules) if any(name in SLOTS or name == "role" for name in wanted) else None
        guards: list[Guard] = []
        for name in GUARD_NAMES:
            if name not in wanted:
                continue
            guards.append(SlotGuard(name, analyzer) if name in SLOTS and analyzer is not None
                          else _FACTORIES[name](rules[name]))
            if isinstance(guards[-1], RoleGuard) and analyzer is not None:
                guards[-1].same_name = name_matcher(analyzer)  # a result's names across scripts
        slots_on = any(name in SLOTS for name in wanted)
        return cls(guards, SlotConfirmer(rules, analyzer) if analyzer is not None and slots_on else None)

    @classmethod
    def default(cls) -> GuardSet:
        """The packaged rules, with ``$SAMESTORY_RULES_DIR`` (if set) merged on top."""
        return cls.from_rules(env_rule_dirs())

    def check(self, a: GuardInput, b: GuardInput) -> list[GuardVerdict]:
        """One verdict per guard, in ``names`` order.

        A guard that raises steps aside (logged): a bug in one rule must not veto every merge,
        nor wave a merge through on the others' behalf.
        """
        if not isinstance(a, GuardInput) or not isinstance(b, GuardInput):
            raise ValueError("GuardSet.check expects two GuardInput values")
        verdicts: list[GuardVerdict] = []
        for guard in self.guards:
            try:
                verdicts.append(guard.check(a, b))
            except Exception as exc:  # pragma: no cover - defensive
                log.exception("guard %s failed", guard.name)
                verdicts.append(GuardVerdict(guard.name, False, False, f"{guard.name}: error {type(exc).__name__}"))
        return verdicts

    def anchors(self, a: GuardInput, b: GuardInput) -> int:
        """Names and figures matched on both sides (``GuardVerdict.anchors``), 0 if none or if a
        guard that counts them blocks: the cheap guards' count, or else the who guard's, asked
        only when ``a`` reads a name (``SlotGuard.may_anchor``). A pair with
        anchors still needs every guard's pass (:meth:`check`); this is the cheap question first
        (the cascade asks it of every Korean-English hit under the rescue floor:
        research/notes/verifier.md, "An anchored floor")."""
        total = 0
        for guard in sorted((g for g in self.guards if g.name in ANCHORING), key=lambda g: g.name == "who"):
            if guard.name == "who" and (total or not getattr(guard, "may_anchor", lambda _: True)(a)):
                continue
            verdict = guard.check(a, b)
            if verdict.blocked:
                return 0
            total += verdict.anchors
        return total

    def confirmable(self, a: GuardInput, b: GuardInput) -> bool:
        """Whether :meth:`confirm` could confirm this pair at all (cheap: a script test)."""
        return self.confirmer is not None and self.confirmer.eligible(a, b)

    def confirm(self, a: GuardInput, b: GuardInput, verdicts: Sequence[GuardVerdict]) -> Confirmation:
        """Whether every slot of ``a`` and ``b`` aligns (``verdicts``: ``check(a, b)``), for the
        cascade's slot-confirmed acceptance; never without the slot guards."""
        if self.confirmer is None:
            return Confirmation(False, "slots: the slot guards are off")
        return self.confirmer.confirm(a, b, verdicts)

    @staticmethod
    def blocked(verdicts: Iterable[GuardVerdict]) -> list[str]:
        """Names of the guards that blocked."""
        return [v.guard for v in verdicts if v.blocked]
