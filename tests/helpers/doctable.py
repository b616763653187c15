"""Document-table entries for the DocTable tests: one invented entry per id, and a field-by-field equality."""

from __future__ import annotations

import numpy as np

from index.features import ItemFeatures
from service.state import Entry

TITLES = ["Fed raises rates by 25 basis points", "삼성전자, 3분기 영업이익 사상 최대", "", "Apple unveils iOS 18.1",
          "진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수", "\ud800 lone surrogate title"]


def make_entry(doc: int, i: int | None = None, *, cluster: int | None = None, url: str | None = "auto",
               source: str | None = "AP") -> Entry:
    i = doc if i is None else i
    title = TITLES[i % len(TITLES)] + (f" {i}" if i >= len(TITLES) else "")
    f = ItemFeatures.build(title, f"Body sentence {i}. More.", "ko" if i % 2 else "en", 1000.0 + i)
    return Entry(doc, 10 * doc, doc if cluster is None else cluster, f,
                 f"https://news.example/{i}" if url == "auto" else url, source)


def assert_same(a: Entry, b: Entry) -> None:
    assert (a.doc_id, a.version_id, a.cluster_id, a.url, a.source) == (b.doc_id, b.version_id, b.cluster_id, b.url,
                                                                        b.source)
    fa, fb = a.features, b.features
    for name in ("title", "body_lead_text", "lang", "time", "title_key", "content_key", "lead"):
        assert getattr(fa, name) == getattr(fb, name), name
    assert np.array_equal(fa.grams, fb.grams) and fa.grams.dtype == fb.grams.dtype
