"""``samestory dedupe``, in process (fast): its stderr count."""

from __future__ import annotations

import io
import json

import pytest

from service.cli import main


def _dedupe(stdin: str, *args: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main(["dedupe", "-", "--model", "none", *args]) == 0
    out = capsys.readouterr()
    return out.out, out.err


def test_the_count_is_of_lines_and_names_the_blank_ones_skipped(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # It said "3 inputs" while the indices (line numbers, blank lines counted) ran to 4.
    out, err = _dedupe("Fed raises rates\nFED raises rates!\n\nECB holds\nECB holds\n", "--json",
                       monkeypatch=monkeypatch, capsys=capsys)
    assert json.loads(out)["keep"] == [0, 3]
    assert err.strip() == "5 lines, 1 blank skipped: kept 2, dropped 2", err
    _, err = _dedupe("Fed raises rates\nECB holds\n", monkeypatch=monkeypatch, capsys=capsys)
    assert err.strip() == "2 lines: kept 2, dropped 0"


def test_one_line_is_singular(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # "1 inputs"
    _, err = _dedupe("Fed raises rates\n", monkeypatch=monkeypatch, capsys=capsys)
    assert err.strip() == "1 line: kept 1, dropped 0"
    _, err = _dedupe("Fed raises rates", monkeypatch=monkeypatch, capsys=capsys)  # no final newline: the same line
    assert err.strip() == "1 line: kept 1, dropped 0"
