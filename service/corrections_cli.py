"""``samestory corrections``: list the editors' corrections of a store, or export them as labelled pairs.

The export is the eval-data pair format, so the editors' judgement can re-fit the thresholds:
``samestory corrections export --db DB --out var/corrections.jsonl`` then
``samestory eval calibrate var/corrections.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

DEFAULT_DB = os.environ.get("SAMESTORY_DB", "sqlite:///var/samestory.db")


def _store(db: str) -> Any:
    from service.cli import open_store_or_exit

    return open_store_or_exit(db)


def cmd_list(args: argparse.Namespace) -> int:
    from service.corrections import list_corrections

    store = _store(args.db)
    try:
        rows = list_corrections(store)
    finally:
        store.close()
    for c in rows:
        if args.json:
            print(json.dumps(c.to_dict(), ensure_ascii=False))
        else:
            stories = f"story {c.story_from} -> {c.story_to}" if c.story_from else "no story change"
            print(f"#{c.id} {c.kind:<8} documents {c.doc_a}/{c.doc_b} ({stories}) by {c.who} at {c.to_dict()['at']}"
                  + (f": {c.note}" if c.note else ""))
    if not rows and not args.json:
        print("no corrections", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from service.cli import counted
    from service.corrections import labelled_pairs

    store = _store(args.db)
    try:
        lines = [json.dumps(p, ensure_ascii=False) for p in labelled_pairs(store)]
    finally:
        store.close()
    text = "".join(line + "\n" for line in lines)
    if args.out in (None, "-"):
        sys.stdout.write(text)
        if not lines:  # an empty stdout alone does not tell "none" from "failed"
            print("no corrections to export", file=sys.stderr)
    else:
        try:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise SystemExit(f"cannot write {args.out}: {exc.strerror}") from exc
        none = "" if lines else " (no corrections to export)"
        print(f"{counted(len(lines), 'labelled pair', 'labelled pairs')} -> {args.out}{none}", file=sys.stderr)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("corrections", help="editors' corrections: list them, or export them as labelled pairs",
                       description="Editors split members off stories, merge stories and mark pairs 'not the same' "
                                   "on the /ui pages or POST /v1/corrections. List them, or export them as "
                                   "labelled pairs (eval-data JSONL: split and not-same are label 0, merge 1) for "
                                   "'samestory eval calibrate'.")
    inner = p.add_subparsers(dest="corrections_command", metavar="ACTION", required=True)
    q = inner.add_parser("list", help="every correction, oldest first, with who and when",
                         description="Every editor's correction of the store, oldest first: its kind, the documents "
                                     "and stories it moved, who made it and when, and the note.")
    q.add_argument("--db", default=DEFAULT_DB, help="store URL (env SAMESTORY_DB; default %(default)s)")
    q.add_argument("--json", action="store_true", help="one JSON object per correction (as GET /v1/corrections)")
    q.set_defaults(func=cmd_list)
    q = inner.add_parser("export", help="the corrections as labelled pairs (JSONL) for eval calibrate",
                         description="Write the corrections as labelled pairs in the eval-data JSONL format (split "
                                     "and not-same: label 0; merge: label 1) for 'samestory eval calibrate'.")
    q.add_argument("--db", default=DEFAULT_DB, help="store URL (env SAMESTORY_DB; default %(default)s)")
    q.add_argument("--out", help="file to write (default: stdout)")
    q.set_defaults(func=cmd_export)
