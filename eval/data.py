"""Loading the offline eval data: pair files, cluster files and the data folder itself.

Formats (see ``../shared/eval-data/README.md``)::

    pair line:    {"id", "a": {"text", "lang"}, "b": {"text", "lang"}, "label": 0|1, "kind", "meta"}
    cluster line: {"id", "cluster", "text", "lang", "source", "meta"}

Every malformed line is a ``ValueError`` that names the file and the 1-based line number,
because a silent skip would quietly change the denominator of every metric.

>>> import json, tempfile, os
>>> line = {"id": "s/k/1", "a": {"text": "연준 금리 인상", "lang": "ko"},
...         "b": {"text": "Fed raises rates", "lang": "en"}, "label": 1, "kind": "xl_translation"}
>>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
...     _ = fh.write(json.dumps(line) + "\\n")
>>> pairs = load_pairs(fh.name)
>>> pairs[0].kind, pairs[0].label, pairs[0].b.lang
('xl_translation', 1, 'en')
>>> os.unlink(fh.name)
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from index.text import has_word_chars
from service.types import lang_tag_problem, text_problem

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_VAR = "SAMESTORY_EVAL_DATA"

# Sets whose texts are news (headlines, news sentences or whole articles). The bar
# "samestory beats or matches every baseline on each news set" is checked on these. KorSTS is
# only partly news (its 'main-news' genre), so it is not counted as a news set.
NEWS_SETS = frozenset({"ntrex128-kor-eng", "koen-news-park", "uci-news-aggregator-subset"})
# The public sets of ../shared/eval-data (its README describes each). The report words and links
# these by what the README says; a set of any other name is an operator's own, described only by
# what its files hold.
PUBLIC_SETS = frozenset({"tatoeba-kor-eng", "ntrex128-kor-eng", "koen-news-park", "korsts-stsb-koen", "klue-sts-dev",
                         "pawsx-ko", "parakqc-ko", "ko-question-pair", "uci-news-aggregator-subset",
                         "rag-chunks-ntrex"})

T = TypeVar("T")


@dataclass(frozen=True)
class Side:
    """One side of a pair."""

    text: str
    lang: str


@dataclass(frozen=True)
class Pair:
    """One labelled pair. ``label`` 1 means 'the same' under this pair's ``kind``."""

    id: str
    a: Side
    b: Side
    label: int
    kind: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # What the label is about: "copy" (the same report again; every eval-data set) or "story"
    # (the same event: an editor's merge of two stories, service.corrections.correction_level).
    level: str = "copy"


@dataclass(frozen=True)
class ClusterItem:
    """One item of a cluster file; items sharing ``cluster`` belong together."""

    id: str
    cluster: str
    text: str
    lang: str
    source: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def eval_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where the eval data lives: ``explicit``, else ``$SAMESTORY_EVAL_DATA``, else ``../shared/eval-data``.

    The default is relative to the repository root (not the working directory), so tests and
    the CLI find the same folder wherever they are started from.
    """
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "eval-data"


def _iter_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.is_dir():
        raise IsADirectoryError(f"{path}: a folder, not a file")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    with path.open(encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object, got {type(obj).__name__}")
            yield number, obj


def _text(path: Path, number: int, obj: Any, where: str) -> str:
    if not isinstance(obj, str) or not obj.strip():
        raise ValueError(f"{path}:{number}: {where} must be a non-empty string")
    # What the engine's Article would refuse, refused here with the line (it was a traceback from
    # inside the run); no text of the shipped eval-data or tests/data is refused by it.
    problem = text_problem(obj) or ("is not valid UTF-8 text (a replacement character)" if "\ufffd" in obj else None)
    if problem is None and not has_word_chars(obj):
        problem = "has no letter or digit, only punctuation, symbols or spaces"
    if problem:
        raise ValueError(f"{path}:{number}: {where} {problem}")
    return obj


def _lang(path: Path, number: int, obj: Any, where: str) -> str:
    if obj is None:
        # "must be a language code" read as if the value were wrong; it was missing. Ingest
        # detects a missing language, eval files declare it (every set's figures are per language).
        raise ValueError(f"{path}:{number}: {where} is missing: an eval file names each text's language, "
                         "such as 'ko' or 'en'")
    if lang_tag_problem(obj):  # 'korean' was a traceback from inside the run
        raise ValueError(f"{path}:{number}: {where} {lang_tag_problem(obj)}")
    return obj


def _side(path: Path, number: int, obj: Any, name: str) -> Side:
    if not isinstance(obj, dict):
        raise ValueError(f"{path}:{number}: field {name!r} must be an object with 'text' and 'lang'")
    return Side(text=_text(path, number, obj.get("text"), f"{name}.text"),
                lang=_lang(path, number, obj.get("lang"), f"{name}.lang"))


def _unique_id(path: Path, number: int, obj: dict[str, Any], seen: set[str], what: str) -> str:
    """The record's ``id``: a non-empty string not seen earlier in the file (added to ``seen``)."""
    rid = obj.get("id")
    if not isinstance(rid, str) or not rid:
        raise ValueError(f"{path}:{number}: field 'id' must be a non-empty string")
    if rid in seen:
        raise ValueError(f"{path}:{number}: duplicate {what} id {rid!r}")
    seen.add(rid)
    return rid


def _load_records(path: str | os.PathLike[str], what: str, plural: str,
                  parse: Callable[[Path, int, dict[str, Any], str, dict[str, Any]], T]) -> list[T]:
    """Every record of a JSON-lines file, in file order, each made by ``parse(path, line, obj, id, meta)``.

    What both file kinds share is checked here once: a unique ``id`` (checked first, so a line's
    first error is the same whatever the kind), ``meta`` an object or else empty, and a file with
    at least one record.
    """
    p = Path(path)
    out: list[T] = []
    seen: set[str] = set()
    for number, obj in _iter_json_lines(p):
        rid = _unique_id(p, number, obj, seen, what)
        meta = obj.get("meta") or {}
        out.append(parse(p, number, obj, rid, meta if isinstance(meta, dict) else {}))
    if not out:
        raise ValueError(f"{p}: no {plural} in file")
    return out


def _pair(p: Path, number: int, obj: dict[str, Any], pid: str, meta: dict[str, Any]) -> Pair:
    if "label" not in obj and "cluster" in obj:
        # "field 'label' must be 0 or 1, got None" did not say that the whole file is of the other kind
        raise ValueError(f"{p}:{number}: a cluster file's item (id, cluster, text), not a labelled pair: "
                         "eval clusters reads cluster files")
    label = obj.get("label")
    # bool is an int subclass; True/False in a label column is a conversion bug upstream.
    if isinstance(label, bool) or label not in (0, 1):
        raise ValueError(f"{p}:{number}: field 'label' must be 0 or 1, got {label!r}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"{p}:{number}: field 'kind' must be a non-empty string")
    level = obj.get("level", "copy")
    if level not in ("copy", "story"):
        raise ValueError(f"{p}:{number}: field 'level' must be 'copy' or 'story', got {level!r}")
    return Pair(id=pid, a=_side(p, number, obj.get("a"), "a"), b=_side(p, number, obj.get("b"), "b"),
                label=int(label), kind=kind, meta=meta, level=level)


def copy_rows(pairs: Sequence[Pair]) -> tuple[list[Pair], int]:
    """The pairs whose label is about copies, and how many story-level ones were left out: the
    engine's pair verdict (``compare``) and the thresholds calibrated on it are the copy level's,
    so an editor's story merge (label 1: same event, maybe different reports) is no positive there.

    >>> ps = [Pair("1", Side("x", "en"), Side("y", "en"), 1, "k"), Pair("2", Side("x", "en"), Side("y", "en"), 1, "k", level="story")]
    >>> [p.id for p in copy_rows(ps)[0]], copy_rows(ps)[1]
    (['1'], 1)
    """
    kept = [p for p in pairs if p.level == "copy"]
    return kept, len(pairs) - len(kept)


def load_pairs(path: str | os.PathLike[str]) -> list[Pair]:
    """Read a pair file; raises ``ValueError('<file>:<line>: ...')`` on the first malformed line."""
    return _load_records(path, "pair", "pairs", _pair)


def _cluster_item(p: Path, number: int, obj: dict[str, Any], iid: str, meta: dict[str, Any]) -> ClusterItem:
    if "cluster" not in obj and "a" in obj and "b" in obj:
        raise ValueError(f"{p}:{number}: a labelled pair (id, a, b, label), not a cluster file's item: "
                         "eval pairs reads pair files")
    cluster = obj.get("cluster")
    if isinstance(cluster, bool) or not isinstance(cluster, (str, int)) or cluster == "":
        raise ValueError(f"{p}:{number}: field 'cluster' must be a non-empty string or integer")
    source = obj.get("source")
    return ClusterItem(id=iid, cluster=str(cluster), text=_text(p, number, obj.get("text"), "text"),
                       lang=_lang(p, number, obj.get("lang"), "lang"),
                       source=source if isinstance(source, str) and source else None, meta=meta)


def load_clusters(path: str | os.PathLike[str]) -> list[ClusterItem]:
    """Read a cluster file in file order (the order items are ingested in)."""
    return _load_records(path, "item", "items", _cluster_item)


def is_cluster_file(path: str | os.PathLike[str]) -> bool:
    """True for ``*.clusters.jsonl``; otherwise the first record's shape decides. A missing file
    is ``FileNotFoundError`` whatever its name (``eval calibrate`` said a missing
    ``x.clusters.jsonl`` "is a cluster file")."""
    p = Path(path)
    if p.name.endswith(".clusters.jsonl") and p.is_file():
        return True
    for _number, obj in _iter_json_lines(p):
        return "cluster" in obj and "a" not in obj
    return False


@dataclass(frozen=True)
class EvalSet:
    """One folder of the eval data: its pair file and, where it has one, its cluster file."""

    name: str
    pairs_path: Path | None
    clusters_path: Path | None

    @property
    def is_news(self) -> bool:
        return self.name in NEWS_SETS

    @property
    def is_public(self) -> bool:
        """One of the public eval-data sets (by folder name), not an operator's own."""
        return self.name in PUBLIC_SETS


def discover_sets(data_dir: str | os.PathLike[str] | None = None) -> list[EvalSet]:
    """Every sub-folder of the data dir with a ``dev.jsonl`` or ``dev.clusters.jsonl``, sorted by name."""
    root = eval_data_dir(data_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"eval data folder not found: {root} (set ${ENV_VAR} or pass --data)")
    sets: list[EvalSet] = []
    for sub in sorted(root.iterdir()):
        if not sub.is_dir():
            continue
        pairs = sub / "dev.jsonl"
        clusters = sub / "dev.clusters.jsonl"
        if pairs.is_file() or clusters.is_file():
            sets.append(EvalSet(sub.name, pairs if pairs.is_file() else None,
                                clusters if clusters.is_file() else None))
    if not sets:
        if (root / "dev.jsonl").is_file() or (root / "dev.clusters.jsonl").is_file():
            raise FileNotFoundError(f"{root} is one eval set, not a folder of them: pass its parent as --data "
                                    f"and --sets {root.resolve().name}")
        # a folder of one's own sets with other file names: say which files were passed over
        other = sorted(f"{f.parent.name}/{f.name}" for f in root.glob("*/*.jsonl"))
        hint = (f"; found {', '.join(other[:3])}{', ...' if len(other) > 3 else ''}: name a set's pairs dev.jsonl "
                "and its cluster items dev.clusters.jsonl") if other else ""
        raise FileNotFoundError(f"no eval sets (<set>/dev.jsonl or <set>/dev.clusters.jsonl) under {root}{hint}")
    return sets


def _subsample(items: Sequence[T], sample: int | None, limit: int | None, seed: int,
               draw: Callable[[list[T], int, random.Random], list[T]]) -> list[T]:
    """``sample``: ``draw(items, N, seeded rng)`` when N is fewer than all; then ``limit``: the first N.

    The checks of ``--sample`` and ``--limit`` and their order are the same for every file kind;
    only how a sample is drawn differs (``draw``, which must keep file order).
    """
    out = list(items)
    if sample is not None and sample < len(out):
        if sample < 1:
            raise ValueError(f"--sample must be >= 1, got {sample}")
        out = draw(out, sample, random.Random(seed))
    if limit is not None:
        if limit < 1:
            raise ValueError(f"--limit must be >= 1, got {limit}")
        out = out[:limit]
    return out


def _draw_by_kind(pairs: list[Pair], sample: int, rng: random.Random) -> list[Pair]:
    by_kind: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        by_kind[p.kind].append(i)
    chosen: list[int] = []
    for kind in sorted(by_kind):
        idx = by_kind[kind]
        k = max(1, round(sample * len(idx) / len(pairs)))
        chosen.extend(rng.sample(idx, min(k, len(idx))))
    return [pairs[i] for i in sorted(chosen)]


def subsample_pairs(pairs: Sequence[Pair], sample: int | None = None, limit: int | None = None,
                    seed: int = 0) -> list[Pair]:
    """``limit``: the first N pairs; ``sample``: a seeded sample of N pairs, stratified by kind.

    Each kind gets ``round(N * share)`` pairs (at least one), so the total can differ from N by
    a pair or two of rounding. Stratifying keeps every kind's share, so the per-kind
    tables of a sampled run are not missing the rare kinds (NTREX has 93 document pairs among
    6,308). The sample keeps file order, so a run is reproducible from ``seed`` alone.

    >>> ps = [Pair(str(i), Side("x", "en"), Side("y", "en"), i % 2, "k" + str(i % 2)) for i in range(10)]
    >>> [p.id for p in subsample_pairs(ps, limit=3)]
    ['0', '1', '2']
    >>> sorted({p.kind for p in subsample_pairs(ps, sample=4, seed=1)})
    ['k0', 'k1']
    """
    return _subsample(pairs, sample, limit, seed, _draw_by_kind)


def subsample_items(items: Sequence[T], sample: int | None = None, limit: int | None = None,
                    seed: int = 0) -> list[T]:
    """``limit``: first N items; ``sample``: a seeded sample of N items kept in file order."""
    def draw(out: list[T], n: int, rng: random.Random) -> list[T]:
        return [out[i] for i in sorted(rng.sample(range(len(out)), n))]

    return _subsample(items, sample, limit, seed, draw)


def subsample_clusters(items: Sequence[ClusterItem], sample: int | None = None, limit: int | None = None,
                       seed: int = 0) -> list[ClusterItem]:
    """Like :func:`subsample_items`, but ``sample`` draws whole gold clusters.

    Drawing items at random would break every gold cluster into fragments of one or two and
    make the pairwise recall meaningless; so ``sample`` N picks seeded clusters until about N
    items are reached, and keeps the file order.
    """
    return _subsample(items, sample, limit, seed, _draw_clusters)


def _draw_clusters(items: list[ClusterItem], sample: int, rng: random.Random) -> list[ClusterItem]:
    clusters = sorted({it.cluster for it in items})
    rng.shuffle(clusters)
    sizes: dict[str, int] = defaultdict(int)
    for it in items:
        sizes[it.cluster] += 1
    keep: set[str] = set()
    total = 0
    for c in clusters:
        if total >= sample:
            break
        keep.add(c)
        total += sizes[c]
    return [it for it in items if it.cluster in keep]
