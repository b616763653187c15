"""``samestory batch --settle``: every row's status columns say the settled decision its copy group
is the result of (they kept the input-order pass's: a row "new" in a group another row founded, a
"duplicate" of a row in another group)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from service.batch.io import read_records
from service.batch.run import run_batch
from tests.helpers.batch import write_jsonl
from tests.helpers.stories import CHAIN, CHAIN_T0


def test_settled_rows_agree_with_the_settled_copy_groups(tmp_path: Path) -> None:
    rows = {k: {"title": title, "url": f"https://x.example/{k}",
                "published_at": (CHAIN_T0 + timedelta(hours=h)).isoformat()} for k, (title, h) in CHAIN.items()}
    # In file order, and two orders where the streamed rows disagree with the settled groups.
    for n, order in enumerate([("a", "b", "c"), ("b", "a", "c"), ("c", "b", "a")]):
        records = read_records([write_jsonl(tmp_path / f"chain{n}.jsonl", [rows[k] for k in order])])
        out = run_batch(records, model=None, settle=True)
        got = {k: r for k, r in zip(order, out.results, strict=True)}
        # Settled (tests/service/batch/test_batch.py): {a, b} founded by a, the earliest; c alone.
        assert got["a"]["copy_group_id"] == got["b"]["copy_group_id"] != got["c"]["copy_group_id"], order
        for k in ("a", "c"):
            assert (got[k]["status"], got[k]["duplicate_of"], got[k]["stage"]) == ("new", None, "none"), (order, k)
        b = got["b"]
        assert (b["status"], b["duplicate_of"], b["duplicate_of_document"]) == \
            ("duplicate", got["a"]["row"], got["a"]["document_id"]), order
        assert b["stage"] != "none" and b["score"] is not None
        assert out.summary["statuses"] == {"new": 2, "duplicate": 1}, order
