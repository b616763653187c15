"""Guards: vetoes on proposed merges that similarity scores cannot see.

Ten guards (version, quantity, date, subject, polarity, role, and the slot guards who, where,
which, number) compare what two items state and block a merge when the statements differ; a
guard that finds nothing to compare steps aside.
Their rules are data: ``service/rules/guards/*.toml``, extensible through
``$SAMESTORY_RULES_DIR`` or ``GuardSet.from_rules(extra_dirs=...)``. See docs/guards.md.

>>> gs = GuardSet.default()
>>> side = lambda t, lang: GuardInput(title=t, text=t, lang=lang)
>>> gs.blocked(gs.check(side("현대차, 200만대 리콜", "ko"), side("Hyundai recalls 2 million vehicles", "en")))
[]
"""

from service.guards.base import Guard, GuardInput
from service.guards.guardset import GuardSet
from service.types import GuardVerdict

__all__ = ["Guard", "GuardInput", "GuardSet", "GuardVerdict"]
