"""The guard tests' shared fixture: every shipped guard with the shipped rules, built once.

A module that tests some guards alone (``GuardSet.from_rules(enabled=[...])``) or the default set
defines its own ``gs``, which pytest prefers to this one."""

from __future__ import annotations

import pytest

from service.guards import GuardSet


@pytest.fixture(scope="session")
def gs() -> GuardSet:
    return GuardSet.from_rules()
