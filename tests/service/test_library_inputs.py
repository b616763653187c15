"""A Python caller's bad inputs to ``Deduper`` are refused in one line that names what was wrong
and where (the eighth new user's tour, research/notes/operations.md): the article of a list by its
place, the side of a compare, the argument of the wrong type, and a closed engine."""

from __future__ import annotations

import pytest

from service import Article, ArticleError, Deduper


@pytest.fixture()
def engine():
    d = Deduper.open(":memory:", model=None)
    yield d
    d.close()


def test_ingest_many_names_the_article_at_fault_and_stores_nothing(engine: Deduper) -> None:
    with pytest.raises(ArticleError, match=r"^articles\[1\]: an article needs a non-empty title or body$"):
        engine.ingest_many([{"title": "Daegu bus fares rise"}, {"title": ""}])
    with pytest.raises(ArticleError, match=r"^articles\[2\]: invalid url: "):
        engine.ingest_many([Article(title="one"), Article(title="two"), Article(title="three", url="not a url")])
    with pytest.raises(ArticleError, match=r"^articles\[0\]: title must be a string, got int$"):
        engine.ingest_many([{"title": 3}])
    assert engine.stats()["documents"] == 0


def test_ingest_of_one_article_keeps_the_plain_message(engine: Deduper) -> None:
    with pytest.raises(ArticleError, match=r"^an article needs a non-empty title or body$"):
        engine.ingest({"title": "  "})
    with pytest.raises(ArticleError, match=r"^invalid url: "):
        engine.ingest(Article(title="x", url="not a url"))


def test_a_wrong_type_is_a_type_error_naming_it(engine: Deduper) -> None:
    with pytest.raises(TypeError, match=r"^article must be an Article or a dict, got NoneType$"):
        engine.ingest(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^articles\[1\] must be an Article or a dict, got str$"):
        engine.ingest_many([{"title": "ok"}, "a headline"])  # type: ignore[list-item]
    # A bare string or one article given to ingest_many is not read character by character.
    with pytest.raises(TypeError, match=r"^articles must be a list of articles, got one str"):
        engine.ingest_many("a headline")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"got one dict; ingest\(\) takes a single article$"):
        engine.ingest_many({"title": "a headline"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^document_id must be an int, got str$"):
        engine.delete_document("1")  # type: ignore[arg-type]


def test_compare_names_the_side_at_fault(engine: Deduper) -> None:
    with pytest.raises(ArticleError, match=r"^b: an article needs a non-empty title or body$"):
        engine.compare("Fed raises rates", "")
    with pytest.raises(TypeError, match=r"^a must be an Article or a string, got NoneType$"):
        engine.compare(None, "Fed raises rates")  # type: ignore[arg-type]
    with pytest.raises(ArticleError, match=r"^pairs\[1\]\.a: an article needs"):
        engine.compare_pairs([("x", "y"), ("...", "y")])
    with pytest.raises(TypeError, match=r"^pairs\[0\] must be a pair \(a, b\), got \('x',\)$"):
        engine.compare_pairs([("x",)])  # type: ignore[list-item]


def test_an_object_that_is_no_embedder_is_refused_at_open() -> None:
    with pytest.raises(TypeError, match=r"^model must be an embedder spec such as 'use', an Embedder .* got int$"):
        Deduper.open(":memory:", model=5)  # type: ignore[arg-type]


def test_a_closed_engine_refuses_store_work_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    d = Deduper.open(":memory:", model=None)
    d.close()
    for call in (lambda: d.ingest({"title": "x"}), lambda: d.ingest_many([]), d.stats, d.settle,
                 lambda: d.delete_document(1)):
        with pytest.raises(ValueError, match=r"^this Deduper is closed; open a new one with Deduper.open$"):
            call()
    assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]  # no warm-up traceback
    assert d.compare("Fed raises rates", "FED RAISES RATES").same  # stateless: no store read


def test_dedupe_threshold_must_be_a_number(engine: Deduper) -> None:
    for bad in ("0.5", True):
        with pytest.raises(TypeError, match=r"^threshold must be a number in \[0, 1\] or None, got (str|bool)$"):
            engine.dedupe(["Fed raises rates", "Fed raises rates again"], threshold=bad)  # type: ignore[arg-type]
    assert len(engine.dedupe(["Fed raises rates", "Fed raises rates"], threshold=0.5).selected) == 1


def test_numpy_numbers_and_array_rows_are_accepted_as_before(engine: Deduper) -> None:
    """The new checks refused what worked before them: numpy's float32 threshold (a verifier score,
    a percentile), an int64 document id (a DataFrame column), a pair as a row of a numpy array."""
    np = pytest.importorskip("numpy")
    for kind in ("passage", "headline"):
        res = engine.dedupe(["Fed raises rates", "Fed raises rates"], kind=kind, threshold=np.float32(0.5))
        assert res.keep == [0]
    with pytest.raises(TypeError, match=r"got bool_?$"):
        engine.dedupe(["Fed raises rates"], threshold=np.bool_(True))  # type: ignore[arg-type]
    doc = engine.ingest({"title": "Daegu bus fares rise", "url": "https://a.example/1"})
    assert engine.delete_document(np.int64(doc.document_id)) is True
    rows = np.array([["Fed raises rates", "FED RAISES RATES"], ["Fed raises rates", "Volcano erupts in Iceland"]])
    assert [d.same for d in engine.compare_pairs(rows)] == [True, False]  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^pairs\[0\] must be a pair \(a, b\), got 'ab'$"):
        engine.compare_pairs(["ab"])  # type: ignore[list-item]
