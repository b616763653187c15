"""``operations.encoder_process``: the ingest with its encoder in a child process decides as the
ingest with it in the engine's process, sends the same texts to it, and ``close`` stops it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.config import EngineConfig
from service.engine import Deduper

EVENTS = [("Kospi closes above 4,000 for the first time", "코스피, 사상 처음 4000선 돌파 마감"),
          ("Fed cuts rates by a quarter point to 3.75%-4%", "美연준, 기준금리 0.25%p 인하"),
          ("Heavy rain kills 4 in South Chungcheong", "충남 폭우로 4명 사망"),
          ("Samsung unveils Galaxy S26 with new chip", "삼성전자, 새 칩 탑재한 갤럭시 S26 공개"),
          ("Korean Air completes merger with Asiana Airlines", "대한항공, 아시아나항공 합병 완료")]


def feed() -> list[dict[str, object]]:
    t0 = datetime(2026, 12, 1, 9, tzinfo=UTC)
    items: list[dict[str, object]] = []
    for round_ in range(8):
        for k, (en, ko) in enumerate(EVENTS):
            at = t0 + timedelta(minutes=10 * len(items))
            variants = [en, ko, en.upper(), f"{en} - Yonhap", ko.replace(" ", ""), f"{en} in round {round_}"]
            title = variants[(round_ + k) % len(variants)]
            items.append({"title": title, "url": f"https://news.example/{round_}/{k}",
                          "lang": "ko" if any("가" <= c <= "힣" for c in title) else "en",
                          "published_at": at.isoformat()})
    return items


def test_the_same_decisions_with_the_encoder_in_a_child_process() -> None:
    runs = []
    for process in (False, True):
        config = EngineConfig.load().replace(encoder_process=process, verifier=False)
        engine = Deduper.open(":memory:", model="use", config=config)
        results = engine.ingest_many(feed(), chunk_size=16)
        runs.append(([(r.status, r.cluster_id, r.decision.stage) for r in results],
                     engine.ctx.counters["encoder_texts"]))
        inner = getattr(engine.ctx.embedder, "inner", None)
        engine.close()
        if process:
            assert type(inner).__name__ == "ProcessEmbedder"
            assert inner._proc.poll() is not None  # type: ignore[union-attr]  # the child is stopped
    assert runs[0] == runs[1]
    assert runs[0][1] > 0
