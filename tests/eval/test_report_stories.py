"""The report's Stories section: rendered from story-level results next to their baselines."""

from __future__ import annotations

from pathlib import Path

from eval import clusters as cluster_eval
from eval.data import ClusterItem
from eval.report import SAMESTORY_STORIES, Report, SetReport, render_markdown, stories_section


def _items() -> list[ClusterItem]:
    gold = ["a", "a", "a", "b", "b", "c"]
    return [ClusterItem(id=f"toy/{i}", cluster=g, text="", lang="en") for i, g in enumerate(gold)]


def _set() -> SetReport:
    items = _items()
    rep = SetReport("uci-news-aggregator-subset", True, cluster_items_total=len(items))
    rep.stories[SAMESTORY_STORIES] = cluster_eval.evaluate(SAMESTORY_STORIES, items, [1, 1, 1, 2, 2, 3])
    rep.stories["USE centroid stream (cosine >= 0.6)"] = cluster_eval.evaluate(
        "USE centroid stream (cosine >= 0.6)", items, [1, 1, 1, 1, 1, 1])
    rep.stories["seed 000 (gate + IDF 3-gram Jaccard 0.30)"] = cluster_eval.evaluate(
        "seed 000 (gate + IDF 3-gram Jaccard 0.30)", items, [1, 2, 3, 4, 5, 6])
    return rep


def test_stories_section_tabulates_every_method_and_says_who_wins() -> None:
    lines = stories_section(Report({}, [_set()], [], {}))
    text = "\n".join(lines)
    assert lines[0] == "## Stories (the event level)"
    row = next(x for x in lines if x.startswith("| uci-news-aggregator-subset | samestory stories |"))
    # perfect partition: 3 predicted, pair P/R/F1 and ARI all 1.000
    assert row.split("|")[5].strip() == "3" and row.rstrip(" |").endswith("1.000")
    centroid = next(x for x in lines if "USE centroid stream" in x and x.startswith("|"))
    assert centroid.split("|")[5].strip() == "1" and centroid.rstrip(" |").endswith("0.000")
    assert "samestory stories ARI 1.000 beats every baseline (best baseline:" in text


def test_stories_section_is_absent_without_story_results() -> None:
    rep = SetReport("pawsx-ko", False)
    assert stories_section(Report({}, [rep], [], {})) == []


def test_render_markdown_includes_the_stories_section(tmp_path: Path) -> None:
    settings = {"data_dir": "x", "sample": None, "limit": None, "cluster_sample": None, "seed": 0, "model": "use",
                "embedding_threshold": 0.625, "ngram_threshold": 0.3, "minhash_threshold": 0.6,
                "seed003_tokenizer": None, "seconds": 0.0, "python": "3"}
    text = render_markdown(Report(settings, [_set()], [], {}), tmp_path, "samestory eval report --out x")
    assert "## Stories (the event level)" in text
    assert text.index("## Stories (the event level)") < text.index("## Per set")


def test_the_arrival_order_table_gives_each_orders_ari_the_spread_and_whether_settling_agreed() -> None:
    rep = _set()
    rep.story_orders = {
        "0": {"streamed_ari": 0.83, "settled_ari": 0.85, "settled_copy_same": True, "settled_story_same": True},
        "1": {"streamed_ari": 0.86, "settled_ari": 0.85, "settled_copy_same": True, "settled_story_same": True},
        "2": {"streamed_ari": 0.80, "settled_ari": 0.85, "settled_copy_same": True, "settled_story_same": True}}
    other = SetReport("ntrex128-kor-eng", True)
    other.stories = dict(rep.stories)
    other.story_orders = {
        "0": {"streamed_ari": 0.97, "settled_ari": 0.95, "settled_copy_same": True, "settled_story_same": True},
        "2": {"streamed_ari": 0.92, "settled_ari": 0.93, "settled_copy_same": False, "settled_story_same": False}}
    lines = stories_section(Report({}, [rep, other], [], {}))
    assert "### Arrival order" in lines
    header = next(x for x in lines if x.startswith("| set | stories |"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "set", "stories", "file order", "shuffle 1", "shuffle 2", "spread", "same in every order"]
    streamed = next(x for x in lines if x.startswith("| uci-news-aggregator-subset | streamed |"))
    assert [c.strip() for c in streamed.strip("|").split("|")][2:] == ["0.830", "0.860", "0.800", "0.060", ""]
    settled = next(x for x in lines if x.startswith("| uci-news-aggregator-subset | settled |"))
    assert settled.rstrip(" |").endswith("0.000 | copy groups and stories")
    # a set run in fewer orders fills the columns it has; settling that disagreed says so
    ntrex = next(x for x in lines if x.startswith("| ntrex128-kor-eng | settled |"))
    assert [c.strip() for c in ntrex.strip("|").split("|")][2:] == ["0.950", "–", "0.930", "0.020", "no"]
