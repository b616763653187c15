"""``samestory documents delete ID [--erase]``: delete a document, or erase it (privacy), from the shell.

The same operation as ``DELETE /v1/documents/{id}`` (``?erase=true``) and
``Deduper.delete_document(id, erase=...)``: deletion takes the document out of the candidate indices
(its rows stay, for provenance); erasure also blanks its texts, URLs and caller ids, drops its vectors
and redacts its words from other documents' reasons.
"""

from __future__ import annotations

import argparse
from typing import Any


def cmd_delete(args: argparse.Namespace) -> int:
    from service.cli import open_existing_engine

    engine = open_existing_engine(args, "samestory documents delete")
    try:
        doc = engine.store.get_document(args.id)
        if doc is None:
            raise SystemExit(f"samestory documents delete: document {args.id} does not exist")
        before = engine.store.get_cluster(doc.cluster_id) if doc.cluster_id is not None else None
        done = engine.delete_document(args.id, erase=args.erase)
        after = engine.store.get_cluster(before.id) if before is not None else None
    finally:
        engine.close()
    what = "erased" if args.erase else "deleted"
    if not done:
        raise SystemExit(f"samestory documents delete: document {args.id} is already {what}")
    moved = (f"; copy group {after.id}'s representative is now document {after.representative_id}"
             if before is not None and after is not None and before.representative_id == args.id
             and after.representative_id != args.id else "")
    print(f"document {args.id} {what}{moved}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("documents", help="delete a document, or erase it (privacy)",
                       description="Act on one stored document by its id (an ingest result's document_id).")
    inner = p.add_subparsers(dest="documents_command", metavar="ACTION", required=True)
    q = inner.add_parser("delete", help="delete a document (--erase: also erase its words, URLs and vectors)",
                         description="Delete a document as DELETE /v1/documents/ID does: it leaves the candidate "
                                     "indices and its copy group's representative moves if it was that; its rows "
                                     "stay for provenance. --erase (a takedown or privacy request) also blanks the "
                                     "titles and bodies of its versions, its URLs and caller ids, drops its vectors "
                                     "and embedding-cache entries and redacts its words from other documents' "
                                     "reasons; ids, counts, times, stages and scores stay. A deleted document can "
                                     "still be erased. Backups made before keep it.")
    q.add_argument("id", type=int, help="the document's id")
    q.add_argument("--erase", action="store_true", help="also erase its texts, URLs, caller ids and vectors")
    from service.cli import _add_engine_args

    _add_engine_args(q)
    q.set_defaults(func=cmd_delete)
