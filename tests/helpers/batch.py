"""A small mixed feed for ``samestory batch`` tests: copies, a re-crawl, a changed number, Korean
body-only records and an extra field (``tag``) that batch passes through."""

from __future__ import annotations

import json
from pathlib import Path

FEED = [
    {"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1", "tag": "x"},
    {"title": "FED RAISES RATES BY 25 BASIS POINTS", "url": "https://b.example/2"},
    {"title": "Fed raises rates by 50 basis points", "url": "https://c.example/3"},
    {"title": "Samsung posts record quarterly profit", "url": "https://d.example/4"},
    {"title": "Samsung posts record quarterly profit again", "url": "https://e.example/5"},
    {"title": "Fed raises rates by 25 basis points", "url": "https://a.example/1"},  # a re-crawl
    {"text": "연준, 기준금리 0.25%p 인상", "url": "https://f.example/6"},
    {"text": "연준 기준금리 0.25%p 인상", "url": "https://g.example/7"},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    """``rows`` written to ``path`` as JSON Lines (UTF-8, Korean kept as is); returns ``path``."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path
