"""Many collectors on one PostgreSQL store: serialised decisions, zero staleness, no duplicates."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

# psycopg comes with the "postgres" extra; without it these tests skip, or fail in CI (see conftest).
if os.environ.get("SAMESTORY_REQUIRE_POSTGRES") != "1":
    pytest.importorskip("psycopg")

import psycopg

from service.engine import Deduper
from service.store import open_store
from service.types import Article
from tests.paths import REPO_ROOT

pytestmark = [pytest.mark.postgres, pytest.mark.heavy]

ROOT = REPO_ROOT

_WORDS = ("harbor", "glacier", "copper", "velvet", "orbit", "lantern", "meadow", "falcon", "quartz",
          "ember", "willow", "canyon", "tundra", "cobalt", "saffron", "prism", "beacon", "thistle",
          "marble", "lagoon", "cipher", "summit", "nectar", "basalt", "kestrel", "fjord", "juniper",
          "ivory", "cedar", "monsoon", "pepper", "garnet", "atlas", "ridge", "harvest", "tidal",
          "amber", "onyx", "sparrow", "delta", "plume", "granite", "breeze", "walnut", "comet", "raven",
          "hollow", "crimson", "mosaic", "pylon", "drift", "zephyr", "opal", "stellar")


def stories(n: int, seed: int = 7) -> list[dict]:
    """A stream of ``n`` distinct stories, each as 1-4 items: copies under other URLs (same text up
    to case and punctuation), a re-sent item (re-observation) and an edited one (new version).
    Every item carries its story in ``meta``; the expected clusters are exactly the stories."""
    rng = random.Random(seed)
    out = []
    for s in range(n):
        title = " ".join(rng.sample(_WORDS, 9)).capitalize()
        items = [{"title": title, "url": f"https://site{s % 5}.example/story/{s}"}]
        if s % 2 == 0:
            items.append({"title": title.upper() + "!", "url": f"https://mirror.example/{s}"})
        if s % 3 == 0:
            items.append(dict(items[0]))  # the same item again
        if s % 4 == 0:
            items.append({**items[0], "body": f"Updated with details ({s})."})
        for it in items:
            it["meta"] = {"story": s}
        out.extend(items)
    return out


def test_advisory_lock_serialises_transactions_across_connections(pg_schema):
    url = pg_schema()
    a, b = open_store(url), open_store(url)
    other = open_store(pg_schema())  # a store in another schema is not blocked
    events: list[str] = []
    a_inside = threading.Event()

    def writer_b() -> None:
        with b.transaction():
            events.append("b in")

    with a.transaction():
        a_inside.set()
        t = threading.Thread(target=writer_b)
        t.start()
        with other.transaction():
            events.append("other in")
        time.sleep(0.3)  # B had ample time to get in, were it not blocked
        events.append("a out")
    t.join(5)
    assert events == ["other in", "a out", "b in"]
    for s in (a, b, other):
        s.close()


def test_staleness_at_decision_time_is_zero(pg_url):
    """Engine B was warmed before A stored anything, yet decides against A's writes: the
    advisory lock plus the change-feed replay at the start of B's transaction guarantee it."""
    a = Deduper(open_store(pg_url), embedder=None)
    b = Deduper(open_store(pg_url), embedder=None)
    first = a.ingest(Article(title="Copper prices hit a record as harbor strike drags on",
                             url="https://a.example/copper"))
    copy = b.ingest(Article(title="COPPER PRICES HIT A RECORD AS HARBOR STRIKE DRAGS ON",
                            url="https://b.example/copper"))
    assert (copy.status, copy.cluster_id) == ("duplicate", first.cluster_id)
    assert b.ingest(Article(title="Copper prices hit a record as harbor strike drags on",
                            url="https://a.example/copper")).status == "reobserved"
    # And the other way round: A learns B's representative change and deletion.
    b.delete_document(copy.document_id)
    again = a.ingest(Article(title="copper prices hit a record as harbor strike drags on!!",
                             url="https://c.example/copper"))
    assert again.cluster_id == first.cluster_id and again.decision.matched_id != copy.document_id
    a.close()
    b.close()


def test_a_collector_places_new_copy_groups_against_the_others_stories(pg_url):
    """One event's two reports, sent to two collectors on one store, make one story, as they do
    sent to one: B's story level reads A's new item with the change-feed replay. Before, B placed
    its new copy group only against the stories it had founded or read at its start, and opened a
    second story for the event (the seventh tour: a recall sent to two `samestory serve`s)."""
    first = {"title": "Tesla recalls 3 million cars over autopilot", "url": "https://a.example/tesla",
             "published_at": "2026-12-07T07:14:00Z"}
    update = {"title": "Tesla recalls 2 million cars over autopilot", "url": "https://b.example/tesla",
              "published_at": "2026-12-07T07:20:00Z"}
    one = Deduper(open_store(":memory:"), embedder=None)
    r1, r2 = one.ingest(first), one.ingest(update)
    one.close()
    assert r1.story_id == r2.story_id and r1.cluster_id != r2.cluster_id  # the reference: one story, two groups

    a = Deduper(open_store(pg_url), embedder=None)
    b = Deduper(open_store(pg_url), embedder=None)
    ra = a.ingest(first)
    rb = b.ingest(update)
    assert rb.cluster_id != ra.cluster_id and rb.story_id == ra.story_id, rb.to_dict()
    assert "joined story" in (b.store.get_cluster(rb.cluster_id).story_reason or "")
    a.close()
    b.close()


_WORKER = r"""
import json, os, sys, time
from service.engine import Deduper
from service.store import open_store
from service.types import Article
url, path, go = sys.argv[1:4]
articles = [Article.from_dict(json.loads(line)) for line in open(path, encoding="utf-8")]
engine = Deduper(open_store(url), embedder=None)
open(path + ".ready", "w").close()
while not os.path.exists(go):  # start both workers at the same moment
    time.sleep(0.002)
out = []
for i in range(0, len(articles), 3):
    out += [r.to_dict() for r in engine.ingest_many(articles[i:i + 3])]
    time.sleep(0.003)  # yield the lock now and then so the two workers interleave
print(json.dumps(out))
"""


def _snapshot(url: str) -> dict:
    with psycopg.connect(url) as conn:
        docs = conn.execute("SELECT id, channel, doc_key, cluster_id FROM documents").fetchall()
        versions = conn.execute("SELECT d.doc_key, v.content_hash FROM versions v"
                                " JOIN documents d ON d.id = v.document_id").fetchall()
        observations = conn.execute("SELECT COUNT(*) FROM observations").fetchone()[0]
        members = conn.execute("SELECT document_id, cluster_id FROM memberships").fetchall()
    by_cluster: dict[int, set[str]] = {}
    for _, _, key, cid in docs:
        by_cluster.setdefault(cid, set()).add(key)
    return {"keys": [(ch, key) for _, ch, key, _ in docs], "versions": versions, "observations": observations,
            "partition": sorted(sorted(v) for v in by_cluster.values()),
            "memberships_agree": dict(members) == {d[0]: d[3] for d in docs}}


def test_two_processes_on_overlapping_input_match_one_process(pg_schema, tmp_path):
    stream = stories(45)
    third = len(stream) // 3
    part_a = stream[: 2 * third]
    part_b = list(reversed(stream[third:]))  # overlaps A's second half, walking towards A
    shared, single = pg_schema(), pg_schema()

    paths = []
    for name, part in (("a", part_a), ("b", part_b)):
        p = tmp_path / f"{name}.jsonl"
        p.write_text("".join(json.dumps(x) + "\n" for x in part), "utf-8")
        paths.append(p)
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, shared, str(p), str(go)], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in paths]
    deadline = time.monotonic() + 60
    while not all(Path(str(p) + ".ready").exists() for p in paths):
        assert time.monotonic() < deadline and all(pr.poll() is None for pr in procs), \
            [pr.communicate() for pr in procs if pr.poll() is not None]
        time.sleep(0.01)
    go.touch()
    outputs = []
    for pr in procs:
        out, err = pr.communicate(timeout=120)
        assert pr.returncode == 0, err
        outputs.append(json.loads(out))

    reference = Deduper(open_store(single), embedder=None)
    reference.ingest_many([Article.from_dict(x) for x in stream])
    reference.close()

    got, want = _snapshot(shared), _snapshot(single)
    # No duplicate documents or versions, and exactly the ones a single process stores.
    assert len(got["keys"]) == len(set(got["keys"])) and sorted(got["keys"]) == sorted(want["keys"])
    assert len(got["versions"]) == len(set(got["versions"])) and sorted(got["versions"]) == sorted(want["versions"])
    # One cluster per story, the same partition as one process, memberships consistent.
    assert got["partition"] == want["partition"]
    story_of = {x["url"]: x["meta"]["story"] for x in stream}
    assert len(got["partition"]) == 45
    assert all(len({story_of[k] for k in keys}) == 1 for keys in got["partition"])
    assert got["memberships_agree"]
    # Every item sent was observed once, and the overlap really was contended: both workers
    # created documents inside the shared third.
    assert got["observations"] == len(part_a) + len(part_b)
    overlap = {x["url"] for x in stream[third : 2 * third]}
    creators = [{r["document_id"] for r, x in zip(res, part, strict=True)
                 if x["url"] in overlap and r["status"] in ("new", "duplicate")}
                for res, part in zip(outputs, (part_a, part_b), strict=True)]
    assert creators[0] and creators[1], "the two workers did not interleave; the test proved nothing"
