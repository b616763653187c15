"""The benchmark stream (bench.stream): real texts of named sets only, no false labels, hard negatives.

Most tests build a tiny fake eval-data folder in a temporary directory (three sets: pairs with
translations and negatives, STS pairs with scores, a cluster file), so they need no real data;
the last one checks the same properties on the real data where it is present.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.stream import STS_AMBIGUOUS_FROM, Stream, build_long_stream, build_stream, load_pool, max_size
from tests.paths import EVAL_DATA

REAL_DATA = EVAL_DATA
SETS = ("fake-news", "fake-sts", "fake-clusters")


def _pair(pid: str, a: str, la: str, b: str, lb: str, label: int, kind: str, **meta: float) -> dict:
    return {"id": pid, "a": {"text": a, "lang": la}, "b": {"text": b, "lang": lb}, "label": label, "kind": kind,
            "meta": meta}


def _write(folder: Path, name: str, rows: list[dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / name).open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    """60 English headlines with Korean translations and rewordings, hard and random negatives,
    STS pairs (a clean negative, an ambiguous one), and one cluster of three headlines."""
    root = tmp_path / "eval-data"
    news = []
    for i in range(60):
        en = f"City council {i} approves a budget of {i * 3} million for new parks"
        news.append(_pair(f"fake-news/pos/{i}", en, "en", f"시의회 {i} 공원 예산 {i * 3}억 승인", "ko", 1, "xl_translation"))
        if i % 3 == 0:
            news.append(_pair(f"fake-news/rew/{i}", en, "en", f"Council {i} backs {i * 3} million park budget", "en",
                              1, "en_paraphrase"))
    for i in range(0, 58, 2):
        a = f"City council {i} approves a budget of {i * 3} million for new parks"
        b = f"City council {i + 1} approves a budget of {(i + 1) * 3} million for new parks"
        news.append(_pair(f"fake-news/neg/{i}", a, "en", b, "en", 0, "en_hard_negative"))
        news.append(_pair(f"fake-news/rnd/{i}", a, "en", f"Unrelated random line {i}", "en", 0, "en_random_negative"))
    _write(root / "fake-news", "dev.jsonl", news)
    sts = [_pair("fake-sts/0", "A man is playing a guitar.", "en", "A man is playing a flute.", "en", 0, "en_sts",
                 score=1.5),
           _pair("fake-sts/1", "A woman slices an onion.", "en", "A woman is cutting an onion.", "en", 0, "en_sts",
                 score=STS_AMBIGUOUS_FROM + 0.5),
           _pair("fake-sts/2", "Dogs run on the beach.", "en", "Dogs are running on a beach.", "en", 1, "en_sts",
                 score=4.6)]
    _write(root / "fake-sts", "dev.jsonl", sts)
    clusters = [{"id": f"fake-clusters/{k}", "cluster": "storyA", "text": t, "lang": "en", "source": "s", "meta": {}}
                for k, t in enumerate(["Storm closes schools in Busan", "Busan schools shut as storm hits",
                                       "Typhoon forces Busan school closures"])]
    clusters.append({"id": "fake-clusters/9", "cluster": "storyB", "text": "Won falls to a two-year low",
                     "lang": "en", "source": "s", "meta": {}})
    _write(root / "fake-clusters", "dev.clusters.jsonl", clusters)
    return root


def _data_texts(root: Path, sets: tuple[str, ...]) -> set[str]:
    texts: set[str] = set()
    for name in sets:
        for f in (root / name).glob("dev*.jsonl"):
            for line in f.read_text("utf-8").splitlines():
                r = json.loads(line)
                texts.update([r["a"]["text"], r["b"]["text"]] if "a" in r else [r["text"]])
    return texts


def _originals(stream: Stream) -> list[str]:
    return [it.title for it in stream.items if it.kind == "original"]


def test_the_stream_is_deterministic_for_a_seed(data_dir: Path) -> None:
    a = build_stream(80, dup_share=0.4, seed=3, data_dir=data_dir, sets=SETS)
    b = build_stream(80, dup_share=0.4, seed=3, data_dir=data_dir, sets=SETS)
    c = build_stream(80, dup_share=0.4, seed=4, data_dir=data_dir, sets=SETS)
    assert a.items == b.items and a.negatives == b.negatives
    assert a.items != c.items
    assert a.stats["copies"] == 32 and a.stats["groups"] == 48


def test_every_original_is_a_real_text_of_the_named_sets(data_dir: Path) -> None:
    stream = build_stream(100, dup_share=0.3, seed=1, data_dir=data_dir, sets=SETS)
    real = _data_texts(data_dir, SETS)
    assert set(_originals(stream)) <= real  # no generated filler
    for it in stream.items:
        if it.kind in ("reworded", "translated"):
            assert it.title in real  # human variants come from the data too


def test_no_two_originals_are_labelled_the_same(data_dir: Path) -> None:
    pool = load_pool(data_dir, SETS)
    stream = build_stream(max_size(0.3, len(pool.stories)), dup_share=0.3, seed=2, pool=pool)
    originals = _originals(stream)
    assert len(originals) == len(set(originals))
    assert len(originals) >= len(pool.stories) - 1  # at the cap nearly every story is an original (rounding)
    chosen = set(originals)
    for name in SETS:
        for f in (data_dir / name).glob("dev.jsonl"):
            for line in f.read_text("utf-8").splitlines():
                r = json.loads(line)
                both = r["a"]["text"] in chosen and r["b"]["text"] in chosen
                if r["label"] == 1 or r["meta"].get("score", 0.0) >= STS_AMBIGUOUS_FROM:
                    assert not both, r["id"]  # positives and near-equivalents: at most one side an original
    story_a = {"Storm closes schools in Busan", "Busan schools shut as storm hits", "Typhoon forces Busan school closures"}
    assert len(story_a & chosen) == 1  # a cluster gives one original; the rest are its variants
    assert pool.stats["ambiguous_dropped"] == 1


def test_hard_negatives_are_both_originals_and_random_negatives_are_not_used(data_dir: Path) -> None:
    stream = build_stream(90, dup_share=0.3, seed=5, data_dir=data_dir, sets=SETS, negative_share=0.5)
    assert stream.stats["hard_negative_pairs_placed"] > 0
    first = {}
    for it in stream.items:
        first.setdefault(it.group, it)
    for ga, gb in stream.negatives:
        a, b = first[ga].title, first[gb].title
        assert first[ga].kind == first[gb].kind == "original"
        assert "random" not in a + b
        assert (a.startswith("City council") and b.startswith("City council")) or {a, b} == {
            "A man is playing a guitar.", "A man is playing a flute."}
    pool = load_pool(data_dir, SETS)
    texts = {i: s.text for i, s in enumerate(pool.stories)}
    assert not any("random" in texts[a] or "random" in texts[b] for a, b in pool.negatives)


def test_a_new_folder_in_the_data_dir_does_not_change_the_stream(data_dir: Path, tmp_path: Path) -> None:
    before = build_stream(80, dup_share=0.4, seed=9, data_dir=data_dir, sets=SETS)
    copy = tmp_path / "copy"
    shutil.copytree(data_dir, copy)
    _write(copy / "zzz-new-set", "dev.jsonl",
           [_pair(f"zzz/{i}", f"A brand new headline {i}", "en", f"Another new headline {i}", "en", 1, "en_same_story")
            for i in range(40)])
    after = build_stream(80, dup_share=0.4, seed=9, data_dir=copy, sets=SETS)
    assert after.items == before.items and after.negatives == before.negatives
    # Naming the new set is what changes the stream (so the check above can fail).
    named = build_stream(80, dup_share=0.4, seed=9, data_dir=copy, sets=(*SETS, "zzz-new-set"))
    assert named.items != before.items


def test_a_stream_larger_than_the_data_supports_is_refused(data_dir: Path) -> None:
    stories = len(load_pool(data_dir, SETS).stories)
    top = max_size(0.4, stories)
    assert len(build_stream(top, dup_share=0.4, data_dir=data_dir, sets=SETS)) == top
    with pytest.raises(ValueError, match=f"at most|enough for {top} items"):
        build_stream(top + 1, dup_share=0.4, data_dir=data_dir, sets=SETS)
    with pytest.raises(FileNotFoundError, match="no-such-set"):
        load_pool(data_dir, ("fake-news", "no-such-set"))


def test_a_long_stream_reuses_texts_not_urls_at_an_even_rate(data_dir: Path) -> None:
    pool = load_pool(data_dir, SETS)
    top = max_size(0.4, len(pool.stories))
    size = 2 * top + 7  # past what the sets hold: three blocks
    stream = build_long_stream(size, per_day=10.0, block=top, pool=pool)
    assert len(stream) == size and stream.stats["blocks"] == 3
    first = build_stream(top, dup_share=0.4, seed=0, pool=pool)
    assert [it.title for it in stream.items[:top]] == [it.title for it in first.items]  # block 0 is seed 0
    assert len({it.url for it in stream.items if it.kind not in ("recrawl",)}) == sum(
        it.kind not in ("recrawl",) for it in stream.items)  # no URL of one block comes back in another
    assert {it.url.split("/")[3] for it in stream.items[top:2 * top]} == {"b1"}
    assert len({it.title for it in stream.items}) < size  # texts come back
    times = [it.published_at for it in stream.items]
    assert times[top] - times[0] == pytest.approx(top / 10.0 * 86_400.0)  # the next block a block's days later
    assert max(times) - min(times) < size / 10.0 * 86_400.0
    assert len({it.group for it in stream.items}) == stream.stats["groups"]  # group ids unique across blocks
    with pytest.raises(ValueError, match="per_day must be > 0"):
        build_long_stream(10, per_day=0.0, pool=pool)


@pytest.mark.heavy  # issue 38: many seconds
@pytest.mark.evaldata
@pytest.mark.skipif(not REAL_DATA.is_dir(), reason=f"eval data not found at {REAL_DATA}")
def test_on_the_real_data_originals_are_real_and_never_labelled_the_same() -> None:
    from bench.stream import DEFAULT_SETS

    stream = build_stream(3000, dup_share=0.4, seed=0, data_dir=REAL_DATA)
    assert "rag-chunks-ntrex" not in stream.stats["sets"]
    chosen = set(_originals(stream))
    assert len(chosen) == 1800 and chosen <= _data_texts(REAL_DATA, DEFAULT_SETS)
    assert stream.stats["hard_negative_pairs_in_stream"] >= 200
    for name in DEFAULT_SETS:
        f = REAL_DATA / name / "dev.jsonl"
        if f.is_file():
            for line in f.read_text("utf-8").splitlines():
                r = json.loads(line)
                if r["label"] == 1:
                    assert not (r["a"]["text"] in chosen and r["b"]["text"] in chosen and r["a"]["text"] != r["b"]["text"])
