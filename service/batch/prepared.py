"""What an executor hands to the decide step."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Prepared:
    """The parallel stages' output.

    ``vectors``: embedding by embedded text (the survivors'); ``settled``: items a cheap pass
    settles against an earlier item (not embedded); ``embedded``: texts embedded ahead;
    ``timings``: seconds per stage; ``search_texts`` and ``pairs``: the sharded vector search's
    candidate pairs (``a``, ``b``: positions in ``search_texts``), None when it did not run;
    ``headlines`` and ``bare`` beside them: ``neighbours.headline_links`` and ``node_languages``;
    ``story_vectors``: the story texts embedded ahead (``plan.to_embed``), no nodes of the search.
    ``embedded`` counts both kinds.
    """

    vectors: dict[str, np.ndarray]
    settled: int
    embedded: int
    timings: dict[str, float] = field(default_factory=dict)
    search_texts: list[str] | None = None
    pairs: dict[str, np.ndarray] | None = None
    search: dict[str, int] = field(default_factory=dict)  # lists, probes, pairs found
    headlines: dict[str, np.ndarray] | None = None
    bare: np.ndarray | None = None
    shuffle_rows: int | None = None  # (item, key) rows the settling shuffle moved (local executor)
    story_vectors: dict[str, np.ndarray] = field(default_factory=dict)
