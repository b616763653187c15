"""eval.stories: the story calibration harness (group folds), on toy cluster items without a model."""

from __future__ import annotations

from eval.data import ClusterItem
from eval.engine import item_time
from eval.stories import StorySet, calibrate, evidence, item_seconds, order_aris

STORIES = {
    "quake": ["Indonesia quake toll rises to 384 in Palu", "Palu quake toll in Indonesia climbs to 832",
              "Indonesia Palu quake survivors search rubble"],
    "vote": ["Macedonia votes in name referendum", "Macedonia name referendum turnout low",
             "Zaev hails Macedonia referendum result"],
    "cup": ["Europe wins Ryder Cup in Paris", "Ryder Cup: Europe beat USA in Paris", "Molinari stars as Europe win Ryder Cup"],
    "fed": ["Fed raises rates by a quarter point", "Powell: Fed raises rates, sees more hikes", "Fed rate hike lifts dollar"],
}


def _set() -> StorySet:
    items, t = [], 1_538_200_000
    for name, titles in STORIES.items():
        for i, title in enumerate(titles):
            items.append(ClusterItem(f"{name}/{i}", name, title, "en", meta={"timestamp": (t + 600 * i) * 1000}))
        t += 40_000
    return StorySet("toy", items, evidence(items, None))


def test_item_times_come_from_meta() -> None:
    it = ClusterItem("1", "g", "x", "en", meta={"published_at": "2018-09-29T06:00:00Z"})
    assert item_time(it).isoformat() == "2018-09-29T06:00:00+00:00" and item_seconds(it) == 1538200800.0
    assert item_seconds(ClusterItem("2", "g", "x", "en")) == 0.0


def test_calibrate_reports_out_of_fold_ari_per_set() -> None:
    out = calibrate([_set()], k=2, seed=0, grid=(0.3, 0.5))
    assert set(out["out_of_fold_ari"]) == {"toy"} and len(out["out_of_fold_ari_per_fold"]["toy"]) == 2
    assert out["threshold"] in (0.3, 0.5) and len(out["weights"]) == 9
    assert all(-1.0 <= x <= 1.0 for x in out["out_of_fold_ari_per_fold"]["toy"])


def test_order_aris_has_file_order_then_shuffles() -> None:
    from service.stories import STORY_WEIGHTS

    aris = order_aris(_set(), STORY_WEIGHTS, 0.6, 3.0)
    assert len(aris) == 4 and all(-1.0 <= x <= 1.0 for x in aris)
