"""What an executor hands to the decide step."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Prepared:
    """The parallel stages' output.

    ``vectors``: embedding by embedded text (the survivors'); ``settled``: items a cheap pass
    settles against an earlier item (not embedded); ``embedded``: texts embedded ahead;
    ``timings``: seconds per stage.
    """

    vectors: dict[str, np.ndarray]
    settled: int
    embedded: int
    timings: dict[str, float] = field(default_factory=dict)
