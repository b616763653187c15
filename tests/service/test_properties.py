"""Property-based tests (hypothesis) of invariants the pipeline relies on.

- URL canonicalisation is idempotent, and blind to the scheme's and host's case and to a
  default port (what its docs promise);
- text normalisation is idempotent, and the exact hash ignores what the normaliser documents
  it ignores (case, spacing);
- MinHash similarity and the exact Jaccard that verifies it are symmetric and within [0, 1],
  and the engine's vectorised signature is datasketch's;
- dedupe output is a subsequence of its input (order kept), each dropped item points at an
  earlier kept one, and the groups partition the input;
- the engine's copy groups partition what it ingested and nest inside stories.

Example counts are kept small (the file runs in seconds); the engine properties build a fresh
in-memory engine per example, so they get fewer. The first Korean headline a process compares
loads the Korean analyser (Kiwi, several seconds on a busy machine): a one-off per process.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from index.features import ItemFeatures
from index.minhash import MinHashIndex, jaccard
from index.text import content_hash, normalize
from index.urls import InvalidUrlError, UrlRules
from service.engine import Deduper
from service.passages import PassageDeduper
from service.recorder import stored_groups
from service.types import Article

FAST = settings(max_examples=50, deadline=None)
ENGINE = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RULES = UrlRules.default()

# --- URLs -------------------------------------------------------------------------------------------

# Hosts with reviewed rules (parameters dropped) and arbitrary ones (URL kept as given).
_RULE_HOSTS = ["n.news.naver.com", "v.daum.net", "news.example.com", "release.example.org"]
_label = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
_hosts = st.one_of(st.sampled_from(_RULE_HOSTS), st.lists(_label, min_size=2, max_size=3).map(".".join))
# Characters a URL may carry unescaped, plus the ones that need care in a query (%, +, =, &).
_url_text = st.text("abcXYZ019-._~!$'()*,;:@/%+=가", max_size=8)
_params = st.lists(st.tuples(st.sampled_from(["utm_source", "utm_medium", "sid", "ntype", "f", "id", "page",
                                              "fbclid", "q"]), _url_text), max_size=4)


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https"]))
    host = draw(_hosts)
    port = draw(st.sampled_from(["", ":80", ":443", ":8080"]))
    path = "/" + "/".join(draw(st.lists(st.text("abcXYZ019-._~가", min_size=1, max_size=6), max_size=3)))
    params = draw(_params)
    query = ("?" + "&".join(f"{k}={v}" for k, v in params)) if params else ""
    fragment = draw(st.sampled_from(["", "#top", "#"]))
    return f"{scheme}://{host}{port}{path}{query}{fragment}"


def _canonical_or_none(url: str) -> str | None:
    try:
        return RULES.canonicalize(url)
    except InvalidUrlError:
        return None


def _url_parts(url: str) -> tuple[str, str, str, str]:
    """(scheme, host with any port, "/" or "", the rest) of a generated URL."""
    scheme, rest = url.split("://", 1)
    host, sep, tail = rest.partition("/")
    return scheme, host, sep, tail


@FAST
@given(urls())
def test_url_canonicalisation_is_idempotent(url: str) -> None:
    once = _canonical_or_none(url)
    assume(once is not None)
    assert once is not None and RULES.canonicalize(once) == once


@FAST
@given(urls())
def test_url_canonicalisation_ignores_scheme_and_host_case(url: str) -> None:
    once = _canonical_or_none(url)
    assume(once is not None)
    scheme, host, sep, tail = _url_parts(url)
    assert RULES.canonicalize(f"{scheme.upper()}://{host.upper()}{sep}{tail}") == once


@FAST
@given(urls())
def test_url_canonicalisation_drops_a_default_port(url: str) -> None:
    once = _canonical_or_none(url)
    assume(once is not None)
    scheme, host, sep, tail = _url_parts(url)
    bare = host.split(":")[0]
    default = {"http": ":80", "https": ":443"}[scheme]
    assert RULES.canonicalize(f"{scheme}://{bare}{default}{sep}{tail}") == RULES.canonicalize(
        f"{scheme}://{bare}{sep}{tail}")


@FAST
@given(st.text(max_size=60))
def test_canonicalisation_either_refuses_or_gives_a_fixed_point(raw: str) -> None:
    once = _canonical_or_none(raw)
    if once is not None:
        assert RULES.canonicalize(once) == once


# --- text normalisation and the exact hash ------------------------------------------------------------

# Latin, digits, Hangul syllables and jamo, full-width and compatibility forms NFKC folds, punctuation.
_ALPHABET = st.sampled_from([*"abcXYZ0159 \t\n.,:%+-!?'\"", "가", "힣", "ㄱ", "Ａ", "①", "ﬁ", "\u3000", "½", "İ", "ß", "Σ",
                             "ς", "\u0301", "\u200b"])


@FAST
@given(st.text(_ALPHABET, max_size=40))
def test_normalisation_is_idempotent(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


@FAST
@given(st.text(max_size=40))
def test_normalisation_is_idempotent_on_any_unicode(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


_words = st.lists(st.text("abcdefgXYZ0123456789가나다라힣", min_size=1, max_size=7), min_size=1, max_size=8)
_spacing = st.lists(st.sampled_from([" ", "  ", "\t", "\n", " \n ", "\u3000", "\u00a0"]), min_size=8, max_size=8)


@FAST
@given(_words, _spacing, st.lists(st.booleans(), min_size=8, max_size=8))
def test_exact_hash_ignores_case_and_spacing(words: list[str], spaces: list[str], flip: list[bool]) -> None:
    plain = " ".join(words)
    varied = "".join((w.swapcase() if f else w) + s for w, s, f in zip(words, spaces, flip, strict=False)).strip()
    assert normalize(varied) == normalize(plain)
    assert content_hash(varied, plain) == content_hash(plain, varied)
    a, b = ItemFeatures.build(plain, plain, "und", 0.0), ItemFeatures.build(varied, varied, "und", 0.0)
    assert (a.title_key, a.content_key) == (b.title_key, b.content_key)


@FAST
@given(_words, _words)
def test_exact_hash_keeps_title_and_body_apart(title: list[str], body: list[str]) -> None:
    # Moving a word across the title/body boundary is a different document.
    assume(len(title) > 1)
    moved_title, moved_body = title[:-1], [title[-1], *body]
    assert content_hash(" ".join(title), " ".join(body)) != content_hash(" ".join(moved_title), " ".join(moved_body))


# --- MinHash ----------------------------------------------------------------------------------------

_gram_sets = st.sets(st.integers(0, 2**32 - 1), max_size=40).map(lambda s: np.array(sorted(s), dtype=np.uint32))
_MINHASH = MinHashIndex(threshold=0.5, num_perm=64)


@FAST
@given(_gram_sets, _gram_sets)
def test_minhash_similarity_is_symmetric_and_bounded(a: np.ndarray, b: np.ndarray) -> None:
    ma, mb = _MINHASH.minhash(a), _MINHASH.minhash(b)
    s = ma.jaccard(mb)
    assert s == mb.jaccard(ma)
    assert 0.0 <= s <= 1.0
    assert ma.jaccard(_MINHASH.minhash(a)) == 1.0


@FAST
@given(_gram_sets, _gram_sets)
def test_exact_jaccard_is_symmetric_bounded_and_exact(a: np.ndarray, b: np.ndarray) -> None:
    j = jaccard(a, b)
    assert j == jaccard(b, a)
    assert 0.0 <= j <= 1.0
    sa, sb = set(a.tolist()), set(b.tolist())
    assert j == pytest.approx(len(sa & sb) / len(sa | sb) if sa | sb else 0.0)
    if a.size:
        assert jaccard(a, a) == 1.0


@FAST
@given(_gram_sets.filter(len))
def test_vectorised_signature_is_datasketchs(a: np.ndarray) -> None:
    # Non-empty only: signature() of no grams raises (numpy's min of an empty axis); its callers
    # (featurize, the engine's passes) skip items without grams before hashing.
    assert np.array_equal(_MINHASH.signature(a), _MINHASH.minhash(a).hashvalues)


# --- dedupe ---------------------------------------------------------------------------------------

_SENTENCES = [
    "The central bank raised its policy rate by a quarter point on Wednesday, citing sticky inflation.",
    "Samsung Electronics reported a record operating profit for the third quarter on strong chip sales.",
    "Heavy rain flooded parts of Seoul overnight, and the city closed several riverside roads.",
    "한국은행은 수요일 기준금리를 0.25%포인트 인상했다고 밝혔다.",
]


def _variant(sentence: str, how: int) -> str:
    """A copy of ``sentence`` as another outlet might carry it: case, spacing, a typo, an extra clause."""
    return [sentence, sentence.upper(), "  ".join(sentence.split()), sentence.replace("e", "a", 1),
            sentence + " Officials declined to comment further.", sentence.replace("quarter", "half")][how]


_chunks = st.lists(st.tuples(st.integers(0, len(_SENTENCES) - 1), st.integers(0, 5)).map(
    lambda t: _variant(_SENTENCES[t[0]], t[1])), max_size=10)


@pytest.fixture(scope="module")
def passage_deduper() -> PassageDeduper:
    return PassageDeduper.with_default_guards()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=_chunks)
def test_passage_dedupe_keeps_an_ordered_subset(passage_deduper: PassageDeduper, records: list[str]) -> None:
    out = passage_deduper.dedupe(records)
    keep = out.keep
    assert keep == sorted(set(keep))
    assert out.selected == [records[i] for i in keep]
    if records:
        assert keep[0] == 0  # nothing comes before the first record
    kept = set(keep)
    for i, j in enumerate(out.duplicate_of):
        assert (j is None) == (i in kept)
        if j is not None:
            assert j < i and j in kept
    # A verbatim repeat of a kept record is never kept.
    first_of: dict[str, int] = {}
    for i, r in enumerate(records):
        if r in first_of and first_of[r] in kept:
            assert i not in kept
        first_of.setdefault(r, i)
    assert sorted(i for c in out.clusters for i in c) == list(range(len(records)))


@pytest.fixture(scope="module")
def headline_engine() -> Iterator[Deduper]:
    d = Deduper.open(":memory:", model=None)
    yield d
    d.close()


_HEADLINES = [
    "Fed raises rates by 25 basis points", "Fed raises rates by 50 basis points",
    "Samsung posts record quarterly profit", "삼성전자, 3분기 영업이익 사상 최대",
    "Heavy rain floods Seoul roads", "Apple releases iOS 18.1 update",
]
_titles = st.lists(st.tuples(st.sampled_from(_HEADLINES), st.sampled_from(["", " - Reuters", "!", " today"]),
                             st.booleans()).map(lambda t: (t[0] + t[1]).upper() if t[2] else t[0] + t[1]),
                   min_size=1, max_size=8)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(titles=_titles)
def test_headline_dedupe_groups_partition_the_input(headline_engine: Deduper, titles: list[str]) -> None:
    # dedupe reads neither the candidate state nor the store: one engine serves every example.
    out = headline_engine.dedupe(titles, kind="headline")
    assert sorted(i for c in out.clusters for i in c) == list(range(len(titles)))
    assert all(c == sorted(c) for c in out.clusters)
    assert out.keep == [c[0] for c in out.clusters] == sorted(out.keep)
    for i, j in enumerate(out.duplicate_of):
        assert j is None or j < i
    # Titles equal after normalisation are exact copies: always one group.
    group_of = {i: k for k, c in enumerate(out.clusters) for i in c}
    seen: dict[str, int] = {}
    for i, t in enumerate(titles):
        key = normalize(t)
        if key in seen:
            assert group_of[i] == group_of[seen[key]]
        seen.setdefault(key, i)


# --- copy groups and stories ------------------------------------------------------------------------

_feed = st.lists(st.tuples(st.sampled_from(_HEADLINES), st.sampled_from(["", " - Reuters", " today"]),
                           st.integers(0, 2)), min_size=1, max_size=8)


@ENGINE
@given(_feed)
def test_copy_groups_partition_the_ingested_items_and_nest_in_stories(feed: list[tuple[str, str, int]]) -> None:
    d = Deduper.open(":memory:", model=None)
    try:
        results = [d.ingest(Article(title=title + suffix, url=f"https://outlet{outlet}.example/{i}"))
                   for i, (title, suffix, outlet) in enumerate(feed)]
        documents = {r.document_id for r in results}
        clusters = d.store.list_clusters(1000, 0)
        members = {c.id: {m.document_id for m in d.store.members_of(c.id)} for c in clusters}
        # A partition: every document in exactly one copy group, no group empty.
        assert sum(len(m) for m in members.values()) == len(documents)
        assert set().union(*members.values()) == documents
        assert all(members.values())
        for c in clusters:
            assert c.representative_id in members[c.id]
            for doc_id in members[c.id]:
                doc = d.store.get_document(doc_id)
                assert doc is not None and doc.cluster_id == c.id
        # Copy groups nest inside stories: each group in exactly one story, the stories' groups partition them.
        assert all(c.story_id is not None for c in clusters)
        story_ids = {c.story_id for c in clusters}
        grouped = [g.id for s in story_ids if s is not None for g in d.store.clusters_of_story(s)]
        assert sorted(grouped) == sorted(members)
        # The same title again (another outlet, another URL) is a copy: the same group.
        by_title: dict[str, int] = {}
        for (title, suffix, _), group in zip(feed, stored_groups(d.store, results), strict=True):
            assert by_title.setdefault(normalize(title + suffix), group) == group
    finally:
        d.close()
