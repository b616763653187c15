"""``samestory corrections``: list the editors' corrections of a store, or export them as labelled pairs.

The export is the eval-data pair format, so the editors' judgement can re-fit the thresholds:
``samestory corrections export --db DB --out var/corrections.jsonl`` then
``samestory eval calibrate var/corrections.jsonl``.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from typing import Any

DEFAULT_DB = os.environ.get("SAMESTORY_DB", "sqlite:///var/samestory.db")


def _login() -> str:
    """Who a withdrawal from the shell is recorded as, unless --who says: the login name."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return "cli"


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
            w = c.withdrawn
            print(f"#{c.id} {c.kind:<8} documents {c.doc_a}/{c.doc_b} ({stories}) by {c.who} at {c.to_dict()['at']}"
                  + (f": {c.note}" if c.note else "")
                  + (f" [withdrawn by {w.who} at {w.to_dict()['at']}{': ' + w.note if w.note else ''}]" if w else ""))
    if not rows and not args.json:
        print("no corrections", file=sys.stderr)
    return 0


def cmd_withdraw(args: argparse.Namespace) -> int:
    """Withdraw (undo) one correction through an engine on the store, and say what moved."""
    from service.cli import counted, open_existing_engine
    from service.corrections import CorrectionError, Editor

    engine = open_existing_engine(args, "samestory corrections withdraw")
    editor = Editor(engine)
    try:
        c = editor.withdraw(args.id, who=args.who, note=args.note)
    except CorrectionError as exc:
        raise SystemExit(f"samestory corrections withdraw: {exc}") from None
    finally:
        engine.close()
    copies, stories = editor.placed_again or (None, None)
    docs, groups = (copies.moved if copies else 0), (stories.moved if stories else 0)
    print(f"withdrew correction #{c.id} ({c.describe()}) as {args.who}: placed again, "
          f"{counted(docs, 'document', 'documents')} moved copy group, "
          f"{counted(groups, 'copy group', 'copy groups')} moved story")
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
    p = sub.add_parser("corrections", help="editors' corrections: list, withdraw (undo), or export them as labelled pairs",
                       description="Editors split members off stories, merge stories and mark pairs 'not the same' "
                                   "on the /ui pages or POST /v1/corrections. List them, withdraw one, or export them as "
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
    q = inner.add_parser("withdraw", help="withdraw (undo) a correction: its constraint is lifted, what it moved placed again",
                         description="Withdraw a correction (as the corrections page's Undo and POST "
                                     "/v1/corrections/ID/withdraw do): the withdrawal is recorded with who, when and "
                                     "the note (the correction stays listed, marked withdrawn), its must-link or "
                                     "cannot-link is lifted, and the documents it moved are placed again as the "
                                     "engine places them without it (a settling scoped to them). Open the store with "
                                     "the model its items were embedded with, as for 'samestory settle'.")
    q.add_argument("id", type=int, help="the correction's number (#N in 'samestory corrections list')")
    q.add_argument("--who", default=_login(), help="who withdraws it (default: your login, %(default)s)")
    q.add_argument("--note", help="why (optional)")
    from service.cli import _add_engine_args

    _add_engine_args(q)
    q.set_defaults(func=cmd_withdraw)
