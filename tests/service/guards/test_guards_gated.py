"""The gated scan (service/guards/gated.py) gives the full alternation's matches."""

from __future__ import annotations

import functools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from service.guards.base import prepare
from service.guards.gated import GatedScanner, required_literals
from service.guards.polarity import PolarityGuard, load_rules
from tests.paths import REPO_ROOT


def _full(scanner: GatedScanner) -> re.Pattern[str]:
    tail = [scanner.tail.pattern] if scanner.tail is not None else []
    return re.compile("|".join([*scanner.sources, *tail]), scanner.flags)


@functools.cache
def _polarity() -> tuple[GatedScanner, re.Pattern[str]]:
    scanner = PolarityGuard.from_rules(load_rules()["polarity"])._re
    assert scanner is not None
    return scanner, _full(scanner)


def _matches(it: object) -> list[tuple[tuple[int, int], str | None, str]]:
    return [(m.span(), m.lastgroup, m.group(0)) for m in it]  # type: ignore[attr-defined]


def test_required_literals_reads_every_kind_of_part() -> None:
    assert required_literals(r"(?<![a-z])(?:adds?|added)\s+users") == frozenset({"users"})
    assert required_literals(r"(?:cuts?|lowers?)\s+rates?") == frozenset({"rate"})
    assert required_literals(r"(?<!첫)인상(?!적|착)") == frozenset({"인상"})
    assert required_literals(r"RAISES") == frozenset({"raises"})  # matched on casefolded text
    assert required_literals(r"(?:up|down)?\s*\d+%") == frozenset({"%"})
    assert required_literals(r"\d+(?:\.\d+)?") is None
    assert required_literals(r"(?:rise|\d+)") is None  # one branch needs no word
    assert required_literals(r"(") is None


def test_a_text_that_holds_no_needle_is_scanned_with_the_tail_alone() -> None:
    scanner = GatedScanner([r"(?P<g0>rais(?:es|ed)\s+rates)"], r"(?<![a-z])(?:rise|fall)(?![a-z])")
    assert scanner.subset("prices rise") == ()
    assert _matches(scanner.finditer("prices rise")) == [((7, 11), None, "rise")]
    assert _matches(scanner.finditer("fed raised rates as prices rise")) == [
        ((4, 16), "g0", "raised rates"), ((27, 31), None, "rise")]


def test_the_earlier_alternative_wins_where_both_start_and_overlaps_are_skipped() -> None:
    # "raises rates" (gated, first) against "raises" (tail): the gated one wins at the same start;
    # a tail match inside it is not reported; a tail match starting before a gated one wins.
    scanner = GatedScanner([r"raises\s+rates", r"rates\s+cut"], r"raises|rates|cut")
    for text in ("raises rates cut", "rates cut raises rates", "cut raises", "raises raises rates"):
        assert _matches(scanner.finditer(text)) == _matches(_full(scanner).finditer(text)), text


def test_a_dotless_i_is_scanned_with_every_alternative() -> None:
    # re.IGNORECASE equates "ı" with "i"; the plain substring gate does not, so such a text is
    # not gated.
    scanner = GatedScanner([r"rise"], None)
    assert _matches(scanner.finditer("rıse")) == _matches(re.compile("rise", re.I).finditer("rıse"))
    assert scanner.finditer("rıse") and scanner.subset("rıse") == (0,)


WORDS = ["raises", "rates", "cut", "인상", "인하", "동결", "3%", "-2%", "up", "down", "by", "the", "fed",
         "금리", "하지", "않기로", "growth", "subscribers", "adds", "loses", "첫", "ı"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
def test_the_polarity_lexicon_scans_alike_gated_and_whole(words: list[str]) -> None:
    scanner, full = _polarity()
    text = " ".join(prepare(" ".join(words)).casefold().split())
    assert _matches(scanner.finditer(text)) == _matches(full.finditer(text))


def test_the_polarity_lexicon_scans_the_hand_written_sets_alike() -> None:
    """Every text of the repository's pair files (the dev sets' 62k texts were checked the same way
    when the gate was written: research/notes/throughput.md)."""
    import json

    scanner, full = _polarity()
    texts = set()
    for path in sorted((REPO_ROOT / "tests" / "data").glob("*pairs*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                for side in (rec["a"], rec["b"]):
                    texts.add(side["text"] if isinstance(side, dict) else side)
    assert len(texts) > 1500
    hits = 0
    for raw in texts:
        text = " ".join(prepare(raw).casefold().split())
        got = _matches(scanner.finditer(text))
        assert got == _matches(full.finditer(text)), raw
        hits += len(got)
    assert hits > 500
