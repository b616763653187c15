"""Passage features stay near-linear in the text length (a 200,000-character body is allowed).

No timing here (speed goals live in bench/): each test checks the mechanism that bounds the
work, the span a regular expression is given or the variants a word makes, on the inputs that
made it quadratic or worse: one unspaced 200,000-character word, a long run of spaces, a
long line of periods that end no sentence, a stack of boilerplate lines.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import index.outlets as outlets
import index.passages as passages
from index.outlets import TAIL_CHARS, strip_trailer
from index.passages import (
    MAX_BOILERPLATE_PIECES,
    TYPO_MAX_CHARS,
    WORD_BEFORE_CHARS,
    Passage,
    split_sentences,
    strip_boilerplate,
)
from service.passages import PassageDeduper

LONG = 200_000


class SpyPattern:
    """A compiled pattern that records how many characters each search could read."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.spans: list[int] = []

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        end = len(text) if endpos is None else endpos
        self.spans.append(end - pos)
        return self.pattern.search(text, pos, end)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


@pytest.fixture
def spies(monkeypatch: pytest.MonkeyPatch) -> dict[str, SpyPattern]:
    out = {"trailer": SpyPattern(outlets._TRAILER_RE), "end": SpyPattern(passages._BOILERPLATE_END_RE),
           "word": SpyPattern(passages._WORD_BEFORE_RE)}
    monkeypatch.setattr(outlets, "_TRAILER_RE", out["trailer"])
    monkeypatch.setattr(passages, "_BOILERPLATE_END_RE", out["end"])
    monkeypatch.setattr(passages, "_WORD_BEFORE_RE", out["word"])
    return out


@pytest.mark.parametrize("text", [
    "a" * LONG,
    "가" * LONG,
    "x " + " " * LONG + "y",
    "x. " * (LONG // 3),
    "Mr. " * (LONG // 4),
    "a." * (LONG // 2) + "@x!",
])
def test_the_end_anchored_searches_read_only_the_tail(spies: dict[str, SpyPattern], text: str) -> None:
    Passage.build(text)
    assert spies["trailer"].spans and spies["end"].spans
    assert max(spies["trailer"].spans + spies["end"].spans) <= TAIL_CHARS
    assert max(spies["word"].spans, default=0) <= WORD_BEFORE_CHARS


def test_a_dedupe_of_one_unspaced_200k_text_reads_bounded_spans(spies: dict[str, SpyPattern]) -> None:
    # Took 5 min 47 s before the searches were bounded (one search per start position).
    res = PassageDeduper.with_default_guards().dedupe(["a" * LONG, "a" * (LONG - 1) + "b"])
    assert res.keep == [0, 1]
    assert max(spies["trailer"].spans + spies["end"].spans) <= TAIL_CHARS


@pytest.mark.parametrize("text, core, removed", [
    ("The vote passed. © 2019 Yonhap All rights reserved.", "The vote passed.", ("© 2019 Yonhap All rights reserved.",)),
    ("The vote passed. © CompanyAll rights reserved", "The vote passed.", ("© CompanyAll rights reserved",)),
    ("The vote passed. © Korea Wall Street Daily All rights reserved.", "The vote passed.",
     ("© Korea Wall Street Daily All rights reserved.",)),
    # Five words before "All rights reserved": not the footer the pattern knows; the phrase alone is.
    ("The vote passed. © One Two Three Four Five All rights reserved.",
     "The vote passed. © One Two Three Four Five", ("All rights reserved.",)),
    ("The vote passed.   (Reuters)   ", "The vote passed.", ("(Reuters)",)),
    # without the sign, and the phrase alone (the seventh tour)
    ("The vote passed. Copyright 2024 Example News. All rights reserved.", "The vote passed.",
     ("Copyright 2024 Example News. All rights reserved.",)),
    ("The vote passed. All rights reserved.", "The vote passed.", ("All rights reserved.",)),
    ("한국은행이 금리를 동결했다.    홍길동 기자    gildong@example.kr", "한국은행이 금리를 동결했다.",
     ("홍길동 기자    gildong@example.kr",)),
    ("한국은행이 금리를 동결했다. 저작권자  연합뉴스", "한국은행이 금리를 동결했다.", ("저작권자  연합뉴스",)),
])
def test_the_rewritten_patterns_take_what_they_took(text: str, core: str, removed: tuple[str, ...]) -> None:
    assert strip_boilerplate(text) == (core, removed)


def test_pathological_footers_and_spacing_are_left_as_content() -> None:
    # "©" and 300 letters took 54 s in the footer pattern; 1,000 spaces 12 s in the trailer's.
    assert strip_boilerplate("x ©" + "a" * 300 + "!") == ("x ©" + "a" * 300 + "!", ())
    assert strip_trailer("a" + " " * 1000 + "b") == "a" + " " * 1000 + "b"


def test_a_trailer_is_found_at_the_end_of_a_long_text() -> None:
    body = "한국은행이 금리를 동결했다. " * 20_000
    assert strip_trailer(body + "홍길동 기자 gildong@example.kr") == body.rstrip()


def test_boilerplate_pieces_per_end_are_capped() -> None:
    core, removed = strip_boilerplate("Advertisement " * 1000 + "The vote passed. " + "Advertisement " * 1000)
    assert len(removed) == 2 * MAX_BOILERPLATE_PIECES
    assert core.count("Advertisement") == 2 * (1000 - MAX_BOILERPLATE_PIECES)


def test_abbreviations_still_read_through_the_short_window() -> None:
    long_word = "Z" * (3 * WORD_BEFORE_CHARS)
    assert split_sentences(f"It weighs approx. 5 kg. The U.S. agreed. {long_word}. Next one.") == [
        "It weighs approx. 5 kg.", "The U.S. agreed.", f"{long_word}.", "Next one."]


def test_the_typo_test_makes_no_variants_of_a_long_word(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    deletions = passages._deletions

    def counting(w: str) -> set[str]:
        made.append(len(w))
        return deletions(w)

    monkeypatch.setattr(passages, "_deletions", counting)
    word = "가" * LONG
    a, b = Passage.build(word), Passage.build(word[:-1] + "나")
    new, typos = b.new_words(a)
    assert (new, typos) == ([word[:-1] + "나"], [])
    assert max(made, default=0) <= TYPO_MAX_CHARS + 1
    assert word not in a._one_deletion
    # A short word one edit away is still a typo.
    assert Passage.build("Markets ralied.").new_words(Passage.build("Markets rallied.")) == ([], ["ralied"])


@pytest.mark.parametrize(("footer", "removed"), [
    # Korean outlets name themselves in the footer; the tenth tour's chunks kept these as content.
    (" <저작권자 © 하버뷰일보, 무단전재 및 재배포 금지>", "<저작권자 © 하버뷰일보, 무단전재 및 재배포 금지>"),
    (" ⓒ 하버뷰일보 무단전재 및 재배포 금지", "c 하버뷰일보 무단전재 및 재배포 금지"),  # NFKC: ⓒ -> c
    (" <저작권자(c) 하버뷰뉴스, 무단 전재-재배포, AI 학습 및 활용 금지>", "<저작권자(c) 하버뷰뉴스, 무단 전재-재배포, AI 학습 및 활용 금지>"),
    (" [ⓒ 하버뷰경제 & hb.example.kr, 무단전재 및 재배포 금지]", "[c 하버뷰경제 & hb.example.kr, 무단전재 및 재배포 금지]"),
    (" ⓒ하버뷰일보 무단전재·재배포 금지", "c하버뷰일보 무단전재·재배포 금지"),
    ("\n하버뷰일보 무단전재 및 재배포 금지", "하버뷰일보 무단전재 및 재배포 금지"),  # the outlet on its own line
    (" 하버뷰일보 무단전재 및 재배포 금지", "하버뷰일보 무단전재 및 재배포 금지"),  # or after the last sentence's stop
])
def test_korean_copyright_footers_with_the_outlet_are_boilerplate(footer: str, removed: str) -> None:
    text = "시의회는 화요일 페리 노선 확대안을 통과시켰다. 첫 노선은 4월에 개통된다."
    assert strip_boilerplate(text + footer) == (text, (removed,))


def test_words_of_the_last_sentence_are_no_outlet_name() -> None:
    # No stop before the footer: the words before it are the sentence's, not an outlet's.
    text = "시의회는 화요일 페리 노선 확대안을 통과시켰다 무단전재 및 재배포 금지"
    assert strip_boilerplate(text) == ("시의회는 화요일 페리 노선 확대안을 통과시켰다", ("무단전재 및 재배포 금지",))


@pytest.mark.parametrize("footer", [
    # The tenth tour: "ⓒ" (NFKC makes it "c", which the patterns' "ⓒ" never matched) and a typed
    # "(c)" left the outlet and year as the chunk's content.
    "ⓒ 2026 Harbor Wire. All rights reserved.",
    "(c) 2026 Harbor Wire. All rights reserved.",
    "(C) Harbor Wire 2026. All rights reserved.",
    "Copyright (c) 2026 Harbor Wire. All rights reserved.",
])
def test_every_form_of_the_copyright_sign_starts_the_english_footer(footer: str) -> None:
    core, removed = strip_boilerplate("The vote passed. " + footer)
    assert core == "The vote passed." and len(removed) == 1, (core, removed)


def test_a_c_inside_a_word_is_no_copyright_sign() -> None:
    assert strip_boilerplate("He studied music All rights reserved.") == ("He studied music", ("All rights reserved.",))
