"""docs/config.md is what ``python -m service.config_doc`` prints from the config classes now:
a field added, a default changed or a comment edited without regenerating the page fails here."""

from __future__ import annotations

import dataclasses
import re

from service.api.settings import Settings
from service.config import FLAT, OTHER_ENV_VARS
from service.config_doc import render
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
PAGE = ROOT / "docs" / "config.md"


def test_the_config_page_is_current() -> None:
    assert PAGE.read_text("utf-8") == render(), (
        "docs/config.md is stale: run `python -m service.config_doc > docs/config.md`")


def test_every_field_is_on_the_page_with_its_default_and_a_note() -> None:
    text = render()
    names = [*FLAT, *(f.name for f in dataclasses.fields(Settings) if f.name != "config")]
    for name in names:
        assert f"- `{name}`: " in text, name
        assert f"environment `SAMESTORY_{name.upper()}`" in text
    assert "No note in the source" not in text  # every field says what it does
    assert "default `3.0`, environment `SAMESTORY_STORY_WINDOW_DAYS`" in text
    assert "docs/stories.md" not in text  # the lab references point at research/notes


def test_every_other_variable_is_read_in_the_file_the_page_names() -> None:
    """The "Other variables" list names where each is read; SAMESTORY_PG_URL moved to
    tests/helpers/pg.py and the page still sent readers to tests/conftest.py."""
    for name, what in OTHER_ENV_VARS.items():
        for path in re.findall(r"\(([\w/]+\.py)", what):
            source = ROOT / path
            assert source.is_file(), (name, path)
            assert f'"{name}"' in source.read_text("utf-8"), f"{name} is not read in {path}"
