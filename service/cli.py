"""``samestory`` command line: ingest, compare, dedupe, clusters, serve, demo, stats, eval, models, bench."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

DEFAULT_DB = os.environ.get("SAMESTORY_DB", "sqlite:///var/samestory.db")
DEFAULT_MODEL = os.environ.get("SAMESTORY_MODEL", "use")

# Sub-command groups that live with their own package; each exposes ``register(subparsers)``.
_PLUGINS = ("eval.cli", "models.cli", "bench.cli", "service.api.cli", "service.batch.cli")


def _add_engine_args(p: argparse.ArgumentParser, *, db: bool = True) -> None:
    if db:
        p.add_argument("--db", default=DEFAULT_DB,
                       help="store: ':memory:', 'sqlite:///PATH' or 'postgresql://...' (env SAMESTORY_DB; default %(default)s)")
    p.add_argument("--model", default=DEFAULT_MODEL,
                   help="embedder: 'use' (bundled USE-multilingual v3), 'e5-small', 'st:PATH', 'onnx:DIR', or 'none' "
                        "for the cheap passes only (env SAMESTORY_MODEL; default %(default)s)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="device for torch/onnx back-ends")
    p.add_argument("--config", type=Path, help="TOML file with an [engine] table (thresholds, windows)")
    p.add_argument("--no-guards", action="store_true", help="disable the guards (for evaluation only: merges more)")


def open_engine(args: argparse.Namespace, db: str | None = None) -> Any:
    from service.config import EngineConfig
    from service.engine import Deduper

    config = EngineConfig.load(args.config)
    model = None if args.model in ("none", "") else args.model
    return Deduper.open(db or args.db, model=model, config=config, guards=not args.no_guards, device=args.device)


def _read_jsonl(stream: TextIO, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for lineno, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{name}:{lineno}: not valid JSON: {exc.msg}") from exc
        yield lineno, obj


def cmd_ingest(args: argparse.Namespace) -> int:
    from service.types import Article, ArticleError

    if args.file == "-":
        stream = sys.stdin
    else:
        try:
            stream = open(args.file, encoding="utf-8", errors="strict")  # noqa: SIM115
        except OSError as exc:
            raise SystemExit(f"cannot read {args.file}: {exc}") from exc
    try:
        articles = []
        for lineno, obj in _read_jsonl(stream, args.file):
            try:
                articles.append(Article.from_dict(obj))
            except (ArticleError, TypeError) as exc:
                raise SystemExit(f"{args.file}:{lineno}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise SystemExit(f"{args.file}: not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    engine = open_engine(args)
    try:
        for lineno, article in enumerate(articles, 1):  # every URL checked before anything is stored
            try:
                engine.doc_key(article)
            except ArticleError as exc:
                raise SystemExit(f"{args.file}: article {lineno}: {exc}") from exc
        show_bar = args.progress or (not args.quiet and not args.json and sys.stderr.isatty())
        bar = tqdm(total=len(articles), disable=not show_bar, unit="item", desc="ingest", file=sys.stderr)
        for start in range(0, len(articles), args.chunk_size):
            # Each chunk is one committed transaction; its results are printed (and flushed) only
            # after the commit, so every printed result survives a crash of this process.
            for r in engine.ingest_many(articles[start : start + args.chunk_size], chunk_size=args.chunk_size):
                if args.json:
                    print(json.dumps(r.to_dict(), ensure_ascii=False), flush=True)
                elif not args.quiet:
                    dup = f" duplicate of {r.duplicate_of}" if r.duplicate_of else ""
                    print(f"{r.status:<11} doc {r.document_id:<6} cluster {r.cluster_id:<6} "
                          f"stage {r.decision.stage:<9}{dup}", flush=True)
            bar.update(min(args.chunk_size, len(articles) - start))
        bar.close()
        if not args.json:
            print(json.dumps(engine.stats()["counters"], ensure_ascii=False), file=sys.stderr)
    finally:
        engine.close()
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from service.types import Article, ArticleError

    engine = open_engine(args, db=":memory:")
    try:
        a = Article(title=args.a, lang=args.lang_a)
        b = Article(title=args.b, lang=args.lang_b)
    except ArticleError as exc:
        raise SystemExit(str(exc)) from exc
    d = engine.compare(a, b, all_scores=True)
    if args.json:
        print(json.dumps(d.to_dict(), ensure_ascii=False))
    else:
        print(f"{'SAME' if d.same else 'DIFFERENT'} (stage {d.stage}, score {d.score if d.score is None else round(d.score, 3)})")
        for r in d.reasons:
            print(f"  - {r}")
    return 0


def cmd_dedupe(args: argparse.Namespace) -> int:
    if args.file == "-":
        lines = sys.stdin.read().split("\n")
    else:
        try:
            lines = Path(args.file).read_text(encoding="utf-8").split("\n")  # one item a line, as before
        except OSError as exc:
            raise SystemExit(f"cannot read {args.file}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise SystemExit(f"{args.file}: not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    texts = [t for t in lines if t.strip()]
    engine = open_engine(args, db=":memory:")
    res = engine.dedupe(texts, threshold=args.threshold)
    if args.json:
        print(json.dumps({"clusters": res.clusters, "keep": res.keep,
                          "decisions": [d.to_dict() for d in res.decisions]}, ensure_ascii=False))
    else:
        for i in res.keep:
            print(texts[i])
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Ingest the bundled sample feed and print its clusters."""
    from importlib import resources

    from service.types import Article

    engine = open_engine(args)
    lines = resources.files("service").joinpath("data/sample_feed.jsonl").read_text("utf-8").splitlines()
    articles = [Article.from_dict(json.loads(x)) for x in lines if x.strip()]
    results = engine.ingest_many(articles)
    clusters: dict[int, list[tuple[Any, Any]]] = {}
    for a, r in zip(articles, results, strict=True):
        clusters.setdefault(r.cluster_id, []).append((a, r))
    print(f"{len(articles)} items -> {len(clusters)} stories\n")
    for cid, members in clusters.items():
        rep = members[-1][1].representative_id
        print(f"story {cid} (representative document {rep})")
        for a, r in members:
            mark = "*" if r.document_id == rep else " "
            print(f"  {mark} [{r.status:<11} {r.decision.stage:<9}] {a.title}  <{a.source or a.url}>")
            if r.decision.blocked_by:
                print(f"      kept apart by: {', '.join(r.decision.blocked_by)}")
    engine.close()
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from service.store import require_existing

    try:
        require_existing(args.db)  # a read: never create a store
    except FileNotFoundError as exc:
        raise SystemExit(str(exc)) from exc
    engine = open_engine(args)
    print(json.dumps({**engine.stats(), "warmup": engine.warmup_report}, ensure_ascii=False, indent=2))
    engine.close()
    return 0


def cmd_clusters(args: argparse.Namespace) -> int:
    """List a store's stories, or show one with its members and the reasons (reads the store only)."""
    from service.store import open_store
    from service.views import cluster_page, cluster_view

    if args.limit < 1 or args.offset < 0:
        raise SystemExit("--limit must be >= 1 and --offset >= 0")
    try:
        store = open_store(args.db, must_exist=True)
    except Exception as exc:  # a bad URL, a missing file or an unreachable server: say which
        raise SystemExit(f"cannot open store {args.db}: {exc}") from exc
    try:
        if args.id is not None:
            view = cluster_view(store, args.id)
            if view is None:
                raise SystemExit(f"cluster {args.id} does not exist in {args.db}")
            if args.json:
                print(json.dumps(view, ensure_ascii=False, default=str))
                return 0
            print(f"story {view['id']}: representative document {view['representative_id']}"
                  f" ({view['representative_reason'] or 'no reason recorded'})")
            for m in view["members"]:
                mark = "*" if m["document_id"] == view["representative_id"] else " "
                decision = m["decision"] if isinstance(m["decision"], dict) else {}
                # A member that matched nothing founded the story; its stage is where the search ended.
                how = (m["stage"] or "-") if decision.get("same", True) else "founded"
                score = "" if m["score"] is None or how == "founded" else f" {m['score']:.3f}"
                print(f"  {mark} doc {m['document_id']:<6} [{how:<9}{score}] {m['title']}"
                      f"  <{m['source'] or m['url'] or '-'}>")
                reasons = decision.get("reasons", [])
                for r in reasons:
                    print(f"        - {r}")
            for e in view["events"]:
                print(f"  representative {e['old_representative']} -> {e['new_representative']}: {e['reason']}")
            return 0
        page = cluster_page(store, args.limit, args.offset)
        if args.json:
            print(json.dumps(page, ensure_ascii=False, default=str))
            return 0
        print(f"{'cluster':>7} {'size':>5} {'rep':>6}  title")
        for c in page["clusters"]:
            print(f"{c['id']:>7} {c['size']:>5} {c['representative_id']:>6}  {c['title']}")
        if page["next_offset"] is not None:
            print(f"(more: --offset {page['next_offset']})")
        return 0
    finally:
        store.close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="samestory",
        description="Cross-lingual near-duplicate news detection. Each incoming item passes URL "
                    "canonicalisation, exact hashes, a subject-gated 3-gram pass, MinHash LSH and, only if it "
                    "survives those, a multilingual embedding search; guards veto merges of different stories.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("ingest", help="ingest a JSONL file of articles into a store",
                       description="Ingest articles (one JSON object per line: title, body, url, source, channel, "
                                   "published_at, lang, id) and print one result per line.")
    p.add_argument("file", help="JSONL file, or - for stdin")
    _add_engine_args(p)
    p.add_argument("--json", action="store_true", help="print one IngestResult JSON object per input line")
    p.add_argument("--quiet", action="store_true", help="print nothing per item")
    p.add_argument("--progress", action="store_true", help="force a progress bar on stderr")
    p.add_argument("--chunk-size", type=int, default=256, help="items per transaction (default %(default)s)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("compare", help="are two texts the same story? (stateless)",
                       description="Run two texts through the cascade and guards and explain the verdict.")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--lang-a")
    p.add_argument("--lang-b")
    p.add_argument("--json", action="store_true", help="print the Decision as JSON")
    _add_engine_args(p, db=False)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("dedupe", help="drop near-duplicate lines (stateless, e.g. RAG chunks)")
    p.add_argument("file", help="text file with one item per line, or - for stdin")
    p.add_argument("--threshold", type=float, help="embedding threshold for this call")
    p.add_argument("--json", action="store_true")
    _add_engine_args(p, db=False)
    p.set_defaults(func=cmd_dedupe)

    p = sub.add_parser("demo", help="ingest the bundled sample feed and print its stories")
    _add_engine_args(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("clusters", help="list a store's stories, or show one with its members and why",
                       description="Read a store (no model, no warm-up): the most recently updated stories, or "
                                   "with --id one story's members, how each joined (stage, score, reasons) and "
                                   "why its representative is the representative.")
    p.add_argument("--db", default=DEFAULT_DB, help="store URL (env SAMESTORY_DB; default %(default)s)")
    p.add_argument("--id", type=int, default=None, help="show this cluster")
    p.add_argument("--limit", type=int, default=20, help="stories per page (default %(default)s)")
    p.add_argument("--offset", type=int, default=0, help="stories to skip (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print the same JSON as GET /v1/clusters[/{id}]")
    p.set_defaults(func=cmd_clusters)

    p = sub.add_parser("stats", help="store and index counts of a store")
    _add_engine_args(p)
    p.set_defaults(func=cmd_stats)

    for name in _PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that command group is not installed in this build
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s %(message)s", stream=sys.stderr)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
