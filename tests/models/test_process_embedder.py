"""The encoder in a child process (models/process.py): the vectors the in-process model gives,
streamed batches read in any order, single requests served in the middle of a stream, errors as
one clear exception, and the child stopped by ``close``."""

from __future__ import annotations

import numpy as np
import pytest

from models.cache import CachedEmbedder
from models.process import EncoderProcessError, ProcessEmbedder
from models.registry import close_embedder, load_embedder
from service.ahead import vectors_ahead

TEXTS = [f"Kospi closes above {n:,} for the first time" if n % 2 else f"코스피, 사상 처음 {n}선 돌파 마감"
         for n in range(3_000, 3_050)]


@pytest.fixture(scope="module")
def child() -> ProcessEmbedder:
    emb = ProcessEmbedder("use")
    yield emb
    emb.close()


@pytest.fixture(scope="module")
def here() -> object:
    return load_embedder("use", cache_size=0)


def test_the_same_vectors_as_in_process(child: ProcessEmbedder, here: object) -> None:
    assert (child.name, child.dim) == ("use-multilingual-v3", 512)
    assert np.array_equal(child.encode(TEXTS[:20]), here.encode(TEXTS[:20]))  # type: ignore[attr-defined]
    assert child.encode([]).shape == (0, 512)


def test_a_stream_arrives_in_batches_and_a_single_request_goes_between(child: ProcessEmbedder, here: object) -> None:
    stream = child.submit(TEXTS, first=3, size=7)
    assert "nope" not in stream and TEXTS[10] in stream and len(stream) == len(TEXTS)
    last = stream[TEXTS[-1]]  # reads every batch up to the last
    single = child.encode(["Fed cuts rates by a quarter point"])  # nothing of the stream is left in the pipe
    assert np.array_equal(single, here.encode(["Fed cuts rates by a quarter point"]))  # type: ignore[attr-defined]
    first = stream[TEXTS[0]]
    expect = np.concatenate([here.encode(TEXTS[a:b]) for a, b in  # type: ignore[attr-defined]
                             [(0, 3), *((k, min(k + 7, len(TEXTS))) for k in range(3, len(TEXTS), 7))]])
    assert np.array_equal(first, expect[0]) and np.array_equal(last, expect[-1])

    stream = child.submit(TEXTS[:30], first=2, size=4)
    stream[TEXTS[0]]
    # a single request while the stream is still in the pipe: answered, and the stream whole after it
    assert np.array_equal(child.encode([TEXTS[40]]), here.encode([TEXTS[40]]))  # type: ignore[attr-defined]
    assert all(stream[t].shape == (512,) for t in TEXTS[:30])


def test_a_new_stream_waits_for_the_last_one_and_the_cache_keeps_what_arrives(here: object) -> None:
    cached = load_embedder("use", cache_size=100, process=True)
    try:
        assert isinstance(cached, CachedEmbedder) and isinstance(cached.inner, ProcessEmbedder)
        cached.encode(TEXTS[:5])
        got = vectors_ahead(cached, cached.encode, TEXTS[:12])
        again = vectors_ahead(cached, cached.encode, TEXTS[12:20])  # the first stream is read out first
        assert np.allclose(got[TEXTS[11]], here.encode([TEXTS[11]])[0], atol=1e-6)  # type: ignore[attr-defined]
        assert np.allclose(again[TEXTS[19]], here.encode([TEXTS[19]])[0], atol=1e-6)  # type: ignore[attr-defined]
        assert cached.calls == 20 and cached.hits == 5 and len(cached) == 20
    finally:
        close_embedder(cached)
    assert cached.inner._proc.poll() is not None  # type: ignore[attr-defined]


def test_errors_are_one_exception_and_close_stops_the_child() -> None:
    with pytest.raises(ValueError, match="model spec"):
        ProcessEmbedder("  ")
    with pytest.raises(ValueError, match="unknown model spec 'bert'"):
        load_embedder("bert", process=True)
    with pytest.raises(EncoderProcessError, match=r"failed during start: .*unknown model spec"):
        ProcessEmbedder("nonsense")
    emb = ProcessEmbedder("use")
    stream = emb.submit(TEXTS[:40], first=1, size=1)
    emb._proc.kill()  # the child dies mid-stream
    emb._proc.wait()
    with pytest.raises(EncoderProcessError, match=r"exited|cut off|not running"):
        [stream[t] for t in TEXTS[:40]]
    with pytest.raises(EncoderProcessError, match=r"not running|exited"):
        emb.encode(["x"])
    emb.close()
    emb.close()
