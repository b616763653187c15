"""``samestory dedupe``, in process (fast): its stderr count and the limit on a text's length."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from service.cli import _read_dedupe_input, main
from service.types import MAX_BODY_CHARS


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


def test_a_text_over_the_apis_limit_is_refused_naming_its_line(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    # The CLI took a 1.9 M-character chunk that POST /v1/dedupe refuses at 200,000 characters.
    long = "word " * (MAX_BODY_CHARS // 5) + "x"
    monkeypatch.setattr("sys.stdin", io.StringIO(f"Fed raises rates\n\n{long}\n"))
    with pytest.raises(SystemExit) as exc:
        main(["dedupe", "-", "--model", "none"])
    assert str(exc.value.code) == f"-:3: line is {len(long)} characters; the limit is {MAX_BODY_CHARS} (as POST /v1/dedupe)"
    src = tmp_path / "chunks.jsonl"
    src.write_text(json.dumps({"text": "short"}) + "\n" + json.dumps({"id": 7, "text": long}) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["dedupe", str(src), "--model", "none"])
    assert str(exc.value.code) == (f"{src}:2: field 'text' is {len(long)} characters; the limit is {MAX_BODY_CHARS} "
                                   "(as POST /v1/dedupe)")
    # the limit itself is taken, as the API takes it (read only: deduplicating it takes minutes)
    src.write_text(json.dumps({"text": "x" * MAX_BODY_CHARS}) + "\n", encoding="utf-8")
    assert _read_dedupe_input(str(src), None)[0] == [{"text": "x" * MAX_BODY_CHARS}]


def test_the_api_refuses_what_the_cli_refuses() -> None:
    # one definition of the limit: the API's schema reads the same constant
    from pydantic import ValidationError

    from service.api.schemas import DedupeRequest

    DedupeRequest(texts=["x" * MAX_BODY_CHARS])
    with pytest.raises(ValidationError):
        DedupeRequest(texts=["x" * (MAX_BODY_CHARS + 1)])


# Two wordings of one Korean report: the same language, a minhash copy when "lang" is "ko".
KO_A = "한국은행은 29일 기준금리를 연 3.50%에서 3.25%로 0.25%포인트 인하했다. 물가 상승률이 2%대 초반으로 안정됐다."
KO_B = "한국은행이 29일 기준금리를 연 3.50%에서 3.25%로 0.25%포인트 인하했다. 물가 상승률이 2%대 초반으로 안정됐다."


def test_a_lang_that_is_no_language_tag_is_refused_naming_its_line(tmp_path: Path) -> None:
    # "korean" reached the guards, which raised "GuardInput.lang must be ..." with no line named.
    src = tmp_path / "chunks.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in
                             [{"text": KO_A, "lang": "ko"}, {"text": KO_B, "lang": "korean"}]) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["dedupe", str(src), "--model", "none"])
    assert str(exc.value.code) == (f"{src}:2: field 'lang' must be a language tag such as 'ko', 'en' or 'zh-Hant', "
                                   "got 'korean'")
    src.write_text(json.dumps({"text": KO_A, "lang": 3}) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["dedupe", str(src), "--model", "none"])
    assert str(exc.value.code).endswith("field 'lang' must be a language tag such as 'ko', 'en' or 'zh-Hant', got 3")
    # null and blank still mean "detect it"
    src.write_text(json.dumps({"text": KO_A, "lang": None}) + "\n" + json.dumps({"text": KO_B, "lang": " "}) + "\n",
                   encoding="utf-8")
    assert len(_read_dedupe_input(str(src), None)[0]) == 2


def test_progress_bar_on_stderr_when_asked_or_on_a_terminal_and_never_in_the_output(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A 20,000-line dedupe ran for minutes with nothing on the screen (the fourth tour).
    lines = "".join(f"item {i} about topic {i % 7}\n" for i in range(40))
    out, err = _dedupe(lines, "--json", "--progress", monkeypatch=monkeypatch, capsys=capsys)
    assert "dedupe: 100%" in err and "40/40" in err, err
    assert len(json.loads(out)["keep"]) == 40  # stdout is the JSON alone
    _, err = _dedupe(lines, monkeypatch=monkeypatch, capsys=capsys)  # captured stderr: no terminal, no bar
    assert "100%" not in err and err.strip() == "40 lines: kept 40, dropped 0"

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for quiet, drawn in ((False, True), (True, False)):
        monkeypatch.setattr("sys.stdin", io.StringIO(lines))
        monkeypatch.setattr("sys.stderr", Terminal())
        assert main(["dedupe", "-", "--model", "none", *(["--quiet"] if quiet else [])]) == 0
        assert ("dedupe: 100%" in sys.stderr.getvalue()) == drawn, (quiet, sys.stderr.getvalue())
    capsys.readouterr()
