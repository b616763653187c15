"""GuardSet: order, evidence, user-extensible rules, input validation, eval-data sanity."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from service.guards import GuardInput, GuardSet
from service.types import GuardVerdict
from tests.paths import REPO_ROOT

REPO = REPO_ROOT


def side(text: str, lang: str) -> GuardInput:
    return GuardInput(title=text, text=text, lang=lang)


def test_default_order_and_one_verdict_per_guard() -> None:
    gs = GuardSet.default()
    assert gs.names == ("version", "quantity", "date", "subject", "polarity", "role", "who", "where", "which", "number")
    verdicts = gs.check(side("연준, 기준금리 0.25%p 인상", "ko"), side("Fed raises rates by 50bp", "en"))
    assert [v.guard for v in verdicts] == list(gs.names)
    assert all(isinstance(v, GuardVerdict) for v in verdicts)
    assert gs.blocked(verdicts) == ["quantity", "number"]
    assert "quantity: 0.25%p != 50bp" in [v.evidence for v in verdicts]


def test_true_cross_lingual_duplicate_passes_every_guard() -> None:
    gs = GuardSet.default()
    verdicts = gs.check(side("한은, 기준금리 0.25%p 인상, 2025년 3월", "ko"),
                        side("Bank of Korea raises rate by 25bp in March 2025", "en"))
    assert gs.blocked(verdicts) == []
    assert {v.guard for v in verdicts if v.decided} == {"quantity", "date", "subject", "polarity", "who", "number"}


def test_enabled_subset_and_validation() -> None:
    assert GuardSet.from_rules(enabled=["polarity", "date"]).names == ("date", "polarity")
    with pytest.raises(ValueError, match="unknown guard"):
        GuardSet.from_rules(enabled=["colour"])
    with pytest.raises(ValueError, match="not a single string"):
        GuardSet.from_rules(enabled="date")


def test_guard_input_validation() -> None:
    assert GuardInput(title="a", text="a", lang="ko-KR").lang == "ko"
    assert GuardInput(title="a", text="a", lang="ja").lang == "und"
    with pytest.raises(ValueError, match="lang"):
        GuardInput(title="a", text="a", lang="korean language")
    with pytest.raises(ValueError, match="timezone-aware"):
        GuardInput(title="a", text="a", lang="ko", published_at=datetime(2025, 1, 1))
    with pytest.raises(ValueError, match="title must be a string"):
        GuardInput(title=None, text="a", lang="ko")  # type: ignore[arg-type]


def test_user_polarity_axis_and_alias_take_effect(tmp_path: Path) -> None:
    a, b = side("신형 스마트폰 다음달 출시", "ko"), side("신형 스마트폰 다음달 연기", "ko")
    assert GuardSet.default().blocked(GuardSet.default().check(a, b)) == []
    (tmp_path / "polarity.launch.toml").write_text(
        '[axes.launch.launched]\nterms = ["출시", "launches"]\n[axes.launch.delayed]\nterms = ["연기", "delays"]\n',
        encoding="utf-8",
    )
    (tmp_path / "subject.toml").write_text(
        '[entities.advant]\nnames = ["어드밴트", "Advant"]\n[entities.mgen]\nnames = ["엠젠솔루션", "Mgen Solutions"]\n',
        encoding="utf-8",
    )
    gs = GuardSet.from_rules([tmp_path])
    assert gs.blocked(gs.check(a, b)) == ["polarity"]
    # Cross-language subjects are compared only when both are known: the user alias makes them known.
    x, y = side("어드밴트, AI 사업 참여", "ko"), side("Mgen Solutions joins AI project", "en")
    assert "subject" not in GuardSet.default().blocked(GuardSet.default().check(x, y))
    assert "subject" in gs.blocked(gs.check(x, y))


def test_rules_dir_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "quantity.toml").write_text('[units.usd]\n"bucks" = 1\n', encoding="utf-8")
    monkeypatch.setenv("SAMESTORY_RULES_DIR", str(tmp_path))
    gs = GuardSet.default()
    v = gs.check(side("Startup raises 5 million bucks", "en"), side("Startup raises 7 million bucks", "en"))
    assert gs.blocked(v) == ["quantity", "number"]  # the number slot sees 5 != 7 as well


def test_bad_rule_files_are_precise_errors(tmp_path: Path) -> None:
    (tmp_path / "colour.toml").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="must start with one of"):
        GuardSet.from_rules([tmp_path])
    (tmp_path / "colour.toml").unlink()
    (tmp_path / "polarity.toml").write_text("[axes.x.up]\nterms = 3\n[axes.x.down]\nterms = ['a']\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"axes\.x\.up\.terms"):
        GuardSet.from_rules([tmp_path])
    with pytest.raises(ValueError, match="does not exist"):
        GuardSet.from_rules([tmp_path / "missing"])


def _extraction_caches(gs: GuardSet) -> list[Any]:
    """Every per-text extraction cache the guards hold (``functools.lru_cache`` wrappers)."""
    caches = []
    for guard in gs.guards:
        for value in vars(guard).values():
            if hasattr(value, "cache_info"):
                caches.append(value)
    return caches


def test_a_pair_seen_before_is_checked_from_the_extraction_caches() -> None:
    """Guards run on every proposed merge, so each text is parsed once: checking pairs again
    makes no new extraction (what keeps a warm check at tens of microseconds; the speed itself
    is measured by the guard benchmark, not asserted here)."""
    gs = GuardSet.default()
    pairs = [(side(f"삼성전자, {i}분기 영업이익 {i}조원 달성", "ko"), side(f"Samsung Q{i} profit {i} trillion won", "en"))
             for i in range(1, 5)]
    for a, b in pairs:
        gs.check(a, b)
    caches = _extraction_caches(gs)
    assert caches, "the guards keep no extraction cache"
    misses = [c.cache_info().misses for c in caches]
    hits = sum(c.cache_info().hits for c in caches)
    for _ in range(3):
        for a, b in pairs:
            gs.check(a, b)
    assert [c.cache_info().misses for c in caches] == misses
    assert sum(c.cache_info().hits for c in caches) > hits


EVAL = Path(os.environ.get("SAMESTORY_EVAL_DATA", str(REPO.parent / "shared" / "eval-data")))
if not EVAL.is_absolute():
    EVAL = (REPO / EVAL).resolve()


@pytest.mark.evaldata
@pytest.mark.skipif(not (EVAL / "tatoeba-kor-eng" / "dev.jsonl").is_file(), reason="eval data absent")
def test_translation_pairs_are_rarely_blocked() -> None:
    from eval.guard_stats import set_stats

    st = set_stats(GuardSet.default(), EVAL / "tatoeba-kor-eng" / "dev.jsonl")
    assert st.n[1] > 0
    assert st.blocked[1] / st.n[1] < 0.03
