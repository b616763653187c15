"""Korean numerals with units: one reading of the myriad grouping for every reader.

Korean groups digits by four: the large units (만 10^4, 억 10^8, 조 10^12) each close a group,
and inside a group the small units (십 10, 백 100, 천 1000) multiply the digit before them.
"3조4천억" is 3 * 10^12 + (4 * 10^3) * 10^8; "1만8천" is 1 * 10^4 + 8 * 10^3; a unit with no
digit before it counts one ("만" is 10^4, "천" is 1000). English scale words ("1.2 million")
multiply everything read so far.

Three readers use it, each with its own tokens: the story anchors read figures as strings
(``service.stories.figure_value``), the quantity guard reads number phrases with the units of
its rule file, Hangul digits too (``QuantityGuard._parse_number``), and the slot layer reads
kiwi's morphemes, where a scale is one glued token ("백만") (``service.guards.slots.
korean_numeral_step``). They tokenise, and turn digits into values, each in their own way; what
they share is :func:`read_numeral`, the fold over the parts. Where they read differently it is
one of its two explicit choices:

* the precision of a reading: the quantity guard keeps the place value of the **last** stated
  digit (:attr:`NumeralReading.last_step`), the slot layer the **finest** place value stated
  anywhere (:attr:`NumeralReading.finest_step`); they differ only for odd figures such as
  "0.001만5천" (last 1000, finest 10);
* a large unit over a group that sums to zero: the string readers read it as one of the unit
  (``zero_group_is_one=True``: that is what makes a bare "억" 10^8, and it reads "0만" as 10^4
  too), the slot layer as zero (``zero_group_is_one=False``: it never sees a bare unit, kiwi
  tags the digit before it).

>>> read_numeral([number(3), large(1e12), number(4), small(1e3), large(1e8)])
NumeralReading(value=3400000000000.0, last_step=100000000000.0, finest_step=100000000000.0)
>>> read_numeral([number(1), large(1e4), number(8), small(1e3)]).value
18000.0
>>> read_numeral([large(1e4)]).value, read_numeral([number(0), large(1e4)], zero_group_is_one=False).value
(10000.0, 0.0)
>>> read_numeral([number(1.2, step=0.1), scale(1e6)])
NumeralReading(value=1200000.0, last_step=100000.0, finest_step=100000.0)
>>> r = read_numeral([number(0.001, step=0.001), large(1e4), number(5), small(1e3)])
>>> r.value, r.last_step, r.finest_step
(5010.0, 1000.0, 10.0)
>>> number(float("nan"))
Traceback (most recent call last):
    ...
ValueError: a numeral's number must be a number, got nan
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal, NamedTuple

__all__ = [
    "LARGE_UNITS",
    "SMALL_UNITS",
    "NumeralPart",
    "NumeralReading",
    "large",
    "number",
    "read_numeral",
    "scale",
    "small",
]

SMALL_UNITS: dict[str, float] = {"십": 10.0, "백": 100.0, "천": 1e3}
LARGE_UNITS: dict[str, float] = {"만": 1e4, "억": 1e8, "조": 1e12}

PartKind = Literal["number", "small", "large", "scale"]


class NumeralPart(NamedTuple):
    """One token of a numeral: a stated number (``value`` with ``step``, the place value of its last
    digit: 0.1 for "1.5"), or a unit (``value`` its multiplier; ``step`` unused)."""

    kind: PartKind
    value: float
    step: float = 1.0


class NumeralReading(NamedTuple):
    """What :func:`read_numeral` reads: the value and its precision in the two ways the readers keep it."""

    value: float
    last_step: float  # place value of the last stated digit, times the units after it (1.0 if none)
    finest_step: float  # the finest place value any stated number has once its units apply (1.0 if none)


def number(value: float, step: float = 1.0) -> NumeralPart:
    """A stated number ("5", "1.25" with step 0.01, a Hangul digit "오"): not NaN, step > 0.

    Infinity passes: it is what ``float()`` makes of a run of 309 or more digits, and each reader
    decides what such a figure is.
    """
    if math.isnan(value):
        raise ValueError(f"a numeral's number must be a number, got {value}")
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"a numeral's step must be finite and positive, got {step}")
    return NumeralPart("number", value, step)


def _unit(kind: PartKind, multiplier: float) -> NumeralPart:
    if not (math.isfinite(multiplier) and multiplier > 0):
        raise ValueError(f"a numeral's {kind} unit must be finite and positive, got {multiplier}")
    return NumeralPart(kind, multiplier)


def small(multiplier: float) -> NumeralPart:
    """A unit inside a group (십, 백, 천): multiplies the number before it, or one."""
    return _unit("small", multiplier)


def large(multiplier: float) -> NumeralPart:
    """A unit that closes a group (만, 억, 조): multiplies the group before it."""
    return _unit("large", multiplier)


def scale(multiplier: float) -> NumeralPart:
    """An English scale word (million, bn): multiplies all that was read before it."""
    return _unit("scale", multiplier)


def read_numeral(parts: Iterable[NumeralPart], *, zero_group_is_one: bool = True) -> NumeralReading:
    """The value of a numeral's parts, in order (see the module docstring for the grouping).

    Two numbers in a row: the second replaces the first (the readers never pass that on purpose).
    ``zero_group_is_one``: whether a large unit over a group that sums to zero counts one of the unit
    (a bare "만"), or zero. No parts read as 0 with steps 1.0.
    """
    total = section = 0.0  # section: the group below the next large unit
    current: float | None = None  # the number not yet multiplied by a unit
    current_step = 1.0
    last_step = 1.0
    done_steps: list[float] = []  # steps of the numbers of closed groups, units applied
    group_steps: list[float] = []  # steps of the current group's numbers, small units applied
    for kind, value, step in parts:
        if kind == "number":
            current, current_step, last_step = value, step, step
        elif kind == "small":
            if current is None:
                section += value
                last_step = value
            else:
                section += current * value
                last_step *= value
                group_steps.append(current_step * value)
            current = None
        elif kind == "large":
            if current is not None:
                section += current
                group_steps.append(current_step)
            group = (section or 1.0) if zero_group_is_one else section
            total += group * value
            last_step *= value
            done_steps.extend(s * value for s in group_steps)
            section, current, group_steps = 0.0, None, []
        elif kind == "scale":
            if current is not None:
                group_steps.append(current_step)
            total = (total + section + (current or 0.0)) * value
            last_step *= value
            done_steps = [s * value for s in (*done_steps, *group_steps)]
            section, current, group_steps = 0.0, None, []
        else:
            raise ValueError(f"unknown numeral part kind {kind!r}")
    if current is not None:
        section += current
        group_steps.append(current_step)
    steps = done_steps + group_steps
    return NumeralReading(total + section, last_step, min(steps) if steps else 1.0)
