"""The engine stays a facade (issue 37, "Each decision in one place"): ``service/engine.py`` holds
the public surface, and the work is in the collaborators it delegates to (``service.context``,
``service.copy_level``, ``service.story_level``, ``service.settling``, ``service.stateless``)."""

from __future__ import annotations

from tests.paths import REPO_ROOT

# engine.py was 1,398 lines doing six jobs before the split; a new job belongs in a collaborator.
MAX_ENGINE_LINES = 500


def test_the_engine_module_stays_at_most_500_lines() -> None:
    lines = (REPO_ROOT / "service" / "engine.py").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_ENGINE_LINES, (f"service/engine.py has {lines} lines (at most {MAX_ENGINE_LINES}): "
                                       f"put the work in a collaborator and keep Deduper a facade")
