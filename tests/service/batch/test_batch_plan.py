"""service.batch.plan: the batch stages as pure functions over column batches.

What is pinned here: featurize gives the streaming engine's own keys (ItemFeatures.build); every
non-empty item explodes into its exact keys, one key per LSH band and its lead token; a key
group settles the later members a cheap pass would match, in row order whatever order the
group arrives in; a hot band verifies against at most MAX_GROUP_COMPARISONS earlier members;
Embed moves float32 vectors as bytes; the story texts are embedded ahead, out of the search.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from index.features import ItemFeatures
from index.minhash import MinHashIndex, lsh_params
from service.batch import local
from service.batch.plan import (
    MAX_GROUP_COMPARISONS,
    Embed,
    explode_keys,
    features_of,
    featurize,
    group_rows,
    settle_group,
    to_embed,
)
from service.config import EngineConfig
from service.stories import story_text

CONFIG = EngineConfig()
# Band and lead groups settle only with the pair verifier off (with it on, the verifier reads
# every such match, so those items are embedded ahead): their tests pin the passes so.
NO_VERIFIER = EngineConfig.of(verifier=False)


def columns(titles: list[str], bodies: list[str] | None = None, langs: list[str] | None = None,
            rows: list[int] | None = None) -> dict[str, np.ndarray]:
    n = len(titles)

    def obj(values: list[Any]) -> np.ndarray:
        out = np.empty(n, dtype=object)
        out[:] = values
        return out

    return {"row": np.asarray(rows if rows is not None else list(range(n))), "title": obj(titles),
            "body": obj(bodies if bodies is not None else [""] * n),
            "lang": obj(langs if langs is not None else ["en"] * n), "time": np.zeros(n)}


def group(key: str, rows: list[int], grams: list[np.ndarray]) -> dict[str, np.ndarray]:
    g = np.empty(len(rows), dtype=object)
    g[:] = [np.ascontiguousarray(x, dtype=np.uint32).tobytes() for x in grams]
    k = np.empty(len(rows), dtype=object)
    k[:] = [key] * len(rows)
    return {"key": k, "row": np.asarray(rows, np.int64), "grams": g}


def settled(g: dict[str, np.ndarray], config: EngineConfig = NO_VERIFIER) -> list[int]:
    return settle_group(g, config=config)["row"].tolist()


def test_featurize_gives_the_streaming_engines_features() -> None:
    titles = ["Fed raises rates - Reuters", "삼성전자, 3분기 영업이익 사상 최대", ""]
    bodies = ["The Fed raised rates on Wednesday. Markets fell.", "", ""]
    out = featurize(columns(titles, bodies, ["en", "ko", ""], rows=[10, 11, 12]), config=CONFIG)
    assert out["row"].tolist() == [10, 11, 12]
    assert out["content_key"].dtype == np.int64 and out["title_key"].dtype == np.int64
    for i, (t, b, lang) in enumerate(zip(titles, bodies, ["en", "ko", "und"], strict=True)):
        f = ItemFeatures.build(t, b, lang, 0.0)
        assert out["content_key"][i] == f.content_key and out["title_key"][i] == f.title_key
        assert out["lead"][i] == f.lead and bool(out["empty"][i]) == f.empty
        assert out["embed_text"][i] == f.embed_text(CONFIG.copy.embed_body_lead)
        assert np.array_equal(np.frombuffer(out["grams"][i], dtype=np.uint32), f.grams)
    assert out["empty"].tolist() == [False, False, True]
    # Band keys: one per LSH band for an item with grams, nothing for an empty one.
    bands, _ = lsh_params(CONFIG.copy.minhash_lsh_threshold, CONFIG.copy.minhash_num_perm)
    assert len(np.frombuffer(out["bands"][0], dtype=np.uint64)) == bands
    assert out["bands"][2] == b""


def test_featurize_tells_bodied_items_as_the_embedding_stage_does() -> None:
    """``bodied`` and ``headline`` are what ``EmbeddingStage.has_body`` and ``embed_headline``
    read: a bare headline with Hanja (embedded in Hangul) is bare, and a bodied item's headline
    is the one the stage embeds (the batch embeds it ahead and searches with it)."""
    titles = ["美연준, 금리 동결", "美연준, 금리 동결", "Fed holds rates"]
    bodies = ["", "연준은 수요일 기준금리를 동결했다.", ""]
    out = featurize(columns(titles, bodies, ["ko", "ko", "en"]), config=CONFIG)
    assert out["bodied"].tolist() == [False, True, False]
    assert out["headline"].tolist() == ["", ItemFeatures.build(titles[1], bodies[1], "ko", 0.0).embed_headline, ""]
    assert out["headline"][1].startswith("미국 연준")


def test_featurize_exact_keys_ignore_case_spacing_and_outlet_suffix() -> None:
    out = featurize(columns(["Fed raises rates", "FED   raises RATES - Reuters", "Fed cuts rates"]), config=CONFIG)
    assert out["title_key"][0] == out["title_key"][1] != out["title_key"][2]


def test_features_of_treats_a_missing_language_as_undetermined() -> None:
    assert features_of("Title", "", "", 1.0).lang == "und"
    assert features_of("Title", "", "ko", 1.0).lang == "ko"


def test_featurize_band_keys_match_the_engines_minhash_index() -> None:
    out = featurize(columns(["Samsung posts record quarterly profit"]), config=CONFIG)
    mh = MinHashIndex(threshold=CONFIG.copy.minhash_lsh_threshold, num_perm=CONFIG.copy.minhash_num_perm)
    grams = np.frombuffer(out["grams"][0], dtype=np.uint32)
    assert np.frombuffer(out["bands"][0], dtype=np.uint64).tolist() == np.asarray(mh.band_keys(grams)).tolist()


def test_explode_keys_one_row_per_item_and_key_skipping_empty_items() -> None:
    feats = featurize(columns(["Fed raises rates", "!!!", "Samsung profit"]), config=CONFIG)
    keys = explode_keys(feats)
    bands, _ = lsh_params(CONFIG.copy.minhash_lsh_threshold, CONFIG.copy.minhash_num_perm)
    assert keys["row"].tolist() == [0] * (bands + 3) + [2] * (bands + 3)
    mine = [str(k) for k, r in zip(keys["key"], keys["row"], strict=True) if r == 0]
    assert mine[0] == f"c{feats['content_key'][0]}" and mine[1] == f"t{feats['title_key'][0]}"
    assert mine[2:-1] == [f"b{b}:{k}" for b, k in enumerate(np.frombuffer(feats["bands"][0], np.uint64).tolist())]
    assert mine[-1] == f"l:{feats['lead'][0]}"
    # Every row carries its item's grams for the group's verification.
    assert all(g == feats["grams"][0] for g, r in zip(keys["grams"], keys["row"], strict=True) if r == 0)


def test_explode_keys_of_an_all_empty_batch_is_empty() -> None:
    keys = explode_keys(featurize(columns(["", "..."]), config=CONFIG))
    assert len(keys["key"]) == 0 and keys["row"].dtype == np.int64


def test_group_rows_selects_one_key() -> None:
    g = group("x", [1, 2, 3], [np.array([1]), np.array([2]), np.array([3])])
    g["key"][1] = "y"
    assert group_rows(g, "x")["row"].tolist() == [1, 3]
    assert group_rows(g, "z")["row"].tolist() == []


@pytest.mark.parametrize("config", [CONFIG, NO_VERIFIER], ids=["verifier", "no-verifier"])
@pytest.mark.parametrize("key", ["c123", "t-45"])
def test_exact_key_group_settles_every_member_after_the_earliest_row(key: str, config: EngineConfig) -> None:
    grams = [np.array([1, 2, 3])] * 3
    assert settled(group(key, [7, 3, 5], grams), config) == [5, 7]


def test_with_the_verifier_on_only_exact_keys_settle() -> None:
    """The verifier reads every band and lead match (identity alone stands without it) and
    refuses some; an item it refuses needs its vector, so band and lead mates are embedded ahead
    rather than one at a time in the decide step."""
    titles = ["Fed raises rates by 25 basis points", "FED RAISES RATES BY 25 BASIS POINTS",
              "Fed raises rates by 25 basis points today", "Samsung posts record quarterly profit",
              "Samsung posts record quarterly profits"]
    keys = explode_keys(featurize(columns(titles), config=CONFIG))
    def out(config: EngineConfig) -> set[int]:
        return {int(r) for k in np.unique(keys["key"]) for r in settled(group_rows(keys, k), config)}
    assert out(NO_VERIFIER) == {1, 2, 4}
    assert out(CONFIG) == {1}  # the exact copy only


def test_with_the_verifier_on_only_exact_keys_are_shuffled() -> None:
    """Band and lead rows settle nothing with the verifier on, so the plan does not explode them:
    two rows an item, and the same items settled as with every key."""
    titles = ["Fed raises rates by 25 basis points", "FED RAISES RATES BY 25 BASIS POINTS",
              "Fed raises rates by 25 basis points today", "!!!", "Samsung posts record quarterly profit"]
    feats = featurize(columns(titles), config=CONFIG)
    exact, every = explode_keys(feats, exact_only=True), explode_keys(feats)
    assert [str(k)[0] for k in exact["key"]] == ["c", "t"] * 4 and exact["row"].tolist() == [0, 0, 1, 1, 2, 2, 4, 4]
    def out(keys: dict[str, np.ndarray]) -> set[int]:
        return {int(r) for k in np.unique(keys["key"]) for r in settled(group_rows(keys, k), CONFIG)}
    assert out(exact) == out(every) == {1}
    # the local executor shuffles the exact keys alone with the verifier on
    on = local.execute(columns(titles), config=CONFIG, make_embedder=None)
    off = local.execute(columns(titles), config=NO_VERIFIER, make_embedder=None)
    assert on.shuffle_rows == 8 and off.shuffle_rows == len(every["key"]) > 8
    assert on.settled == 1 and off.settled == 2


def test_a_single_member_or_empty_group_settles_nothing() -> None:
    assert settled(group("c1", [4], [np.array([1])])) == []
    assert settled(group("b0:9", [], [])) == []


def test_band_group_settles_only_members_past_the_jaccard_bar() -> None:
    base = np.arange(100)
    near = np.concatenate([np.arange(90), np.arange(200, 205)])  # Jaccard 90/105 = 0.857
    far = np.concatenate([np.arange(40), np.arange(300, 360)])   # Jaccard with both below 0.6
    assert settled(group("b3:77", [0, 1, 2], [base, near, far])) == [1]
    # Rows are taken in row order, not in the order the group arrives: row 2 leads, row 5 is settled.
    assert settled(group("b3:77", [5, 2], [near, base])) == [5]


def test_band_group_verifies_against_at_most_the_last_max_group_comparisons_members() -> None:
    twin = np.arange(50)
    filler = [np.arange(1000 + 100 * i, 1000 + 100 * i + 50) for i in range(MAX_GROUP_COMPARISONS)]
    # The twin of row 0 arrives after MAX_GROUP_COMPARISONS unrelated members: left unverified (embedded).
    rows = list(range(MAX_GROUP_COMPARISONS + 2))
    assert settled(group("b0:1", rows, [twin, *filler, twin])) == []
    # One member fewer in between and it is settled.
    rows = list(range(MAX_GROUP_COMPARISONS + 1))
    assert settled(group("b0:1", rows, [twin, *filler[:-1], twin])) == [MAX_GROUP_COMPARISONS]


def test_lead_group_settles_by_the_gated_ngram_pass() -> None:
    feats = featurize(columns(["Samsung posts record quarterly profit", "Samsung posts record quarterly profits",
                               "Samsung recalls washing machines"]), config=CONFIG)
    keys = explode_keys(feats)
    lead = f"l:{feats['lead'][0]}"
    assert lead == "l:samsung" and feats["lead"][2] == "samsung"
    assert settled(group_rows(keys, lead)) == [1]


def test_settling_across_all_key_groups_finds_the_near_copies() -> None:
    titles = ["Fed raises rates by 25 basis points", "FED RAISES RATES BY 25 BASIS POINTS",
              "Fed raises rates by 25 basis points today", "Samsung posts record profit", "Fed raises rates"]
    keys = explode_keys(featurize(columns(titles), config=CONFIG))
    out = {int(r) for k in np.unique(keys["key"]) for r in settled(group_rows(keys, k))}
    assert {1, 2} <= out
    assert 0 not in out and 3 not in out


class FakeEmbedder:
    made = 0

    def __init__(self) -> None:
        FakeEmbedder.made += 1

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float64)


def test_embed_builds_the_model_once_and_returns_float32_bytes() -> None:
    FakeEmbedder.made = 0
    embed = Embed(FakeEmbedder)
    out = embed({"row": np.array([4, 9]), "embed_text": np.array(["abc", "hello"], dtype=object)})
    out2 = embed({"row": np.array([1]), "embed_text": np.array(["x"], dtype=object)})
    assert FakeEmbedder.made == 1
    assert out["row"].tolist() == [4, 9] and out["embed_text"].tolist() == ["abc", "hello"]
    assert [np.frombuffer(v, dtype=np.float32).tolist() for v in out["vector"]] == [[3.0, 1.0], [5.0, 1.0]]
    assert np.frombuffer(out2["vector"][0], dtype=np.float32).tolist() == [1.0, 1.0]


def test_embed_of_an_empty_batch_does_not_call_the_model() -> None:
    class Refuses:
        def encode(self, texts: list[str]) -> np.ndarray:
            raise AssertionError("encode called on an empty batch")

    out = Embed(Refuses)({"row": np.array([], dtype=np.int64), "embed_text": np.array([], dtype=object)})
    assert out["row"].tolist() == [] and len(out["vector"]) == 0


# Bodied items: 0, its copy 1 in capitals (settled by its content key, its own story text) and
# its raw copy 2 (0's story text); 3 bare (the story level reads its copy-level vector).
BODY = "Fed raises rates by 25 basis points. Markets rallied."
BODIED_TITLES = ["Fed raises rates", "FED RAISES RATES", "Fed raises rates", "Samsung posts record profit"]
BODIED_BODIES = [BODY, BODY, BODY, ""]


def test_to_embed_adds_each_story_text_once_settled_items_too_and_none_the_copy_level_embeds() -> None:
    feats = featurize(columns(BODIED_TITLES, BODIED_BODIES), config=CONFIG)
    stories = [story_text(t, b) for t, b in zip(BODIED_TITLES, BODIED_BODIES, strict=True)]
    assert len(set(stories)) == 3 and feats["story_text"].tolist() == [*stories[:3], ""]
    assert stories[3] == feats["embed_text"][3]
    out = to_embed(feats, settled=np.array([1, 2]))
    copies = out["embed_text"][~out["story"]].tolist()
    assert copies == [feats["embed_text"][0], feats["embed_text"][3], feats["headline"][0]]
    assert out["embed_text"][out["story"]].tolist() == [stories[0], stories[1]]
    assert not out["bodied"][out["story"]].any()


class HashEmbedder:
    """Unit vectors from a hash of the text: any text, no model."""

    name, dim = "hash", 8

    def encode(self, texts: list[str]) -> np.ndarray:
        import zlib

        rows = [np.random.default_rng(zlib.crc32(t.encode())).normal(size=self.dim) for t in texts]
        return np.asarray([r / np.linalg.norm(r) for r in rows], np.float32).reshape(len(texts), self.dim)


def test_story_texts_are_embedded_ahead_and_kept_out_of_the_search() -> None:
    from service.batch.io import Record
    from service.batch.neighbours import SearchPlan
    from service.batch.run import run_batch
    from service.types import Article

    cfg = EngineConfig.of(embedding_threshold=0.9).for_model("hash")
    stories = {story_text(t, b) for t, b in zip(BODIED_TITLES, BODIED_BODIES, strict=True) if b}
    prepared = local.execute(columns(BODIED_TITLES, BODIED_BODIES), config=cfg, make_embedder=HashEmbedder,
                             search=SearchPlan.for_engine(cfg))
    assert set(prepared.story_vectors) == stories
    assert prepared.search_texts is not None and not stories & set(prepared.search_texts)
    records = [Record(f"r:{i}", Article.from_dict({"title": t, "body": b, "lang": "en"}), {})
               for i, (t, b) in enumerate(zip(BODIED_TITLES, BODIED_BODIES, strict=True))]
    out = run_batch(records, config=cfg, make_embedder=HashEmbedder)
    assert out.summary["story_texts_embedded_in_plan"] == 2
    assert out.summary["embedded_late_in_decide"] == 0, out.summary
