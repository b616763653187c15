"""``samestory bench dedupe``: RAG chunk dedupe on a seeded chunk stream, against semhash and MinHash.

The stream is built in memory from real sentences of named eval sets, in their order:
Korean-English translation pairs of ``ntrex128-kor-eng`` (news articles, by ``meta.doc`` and
``meta.line``), ``koen-news-park`` (news sentences), ``korsts-stsb-koen`` and ``tatoeba-kor-eng``,
and the single-language sentences of ``korsts-stsb-koen``'s ``ko_sts`` / ``en_sts`` pairs (their
``a`` side, each STS-B item in one language only, since KorSTS is STS-B translated; these give
no translated copy); consecutive sentences of all
but NTREX are grouped into 48-sentence pseudo-articles, and a sentence is used once.
Each article is chunked as a sentence-window chunker would: windows
of ``k`` (4-6, per article) consecutive sentences at a stride of 1 in the article's language,
so neighbouring windows share all but one of their sentences and each still carries a new
one: all of them are *originals* that must be kept. One article in four with translations is
chunked in both languages instead: windows of ``k`` at a stride of ``k``, the other
language's offset by half a window, so each shares half its sentences with two windows of the
first language (the dev set's cross-lingual overlap): originals too. Copies (``dup_share``
of the stream) are the kinds of ``rag-chunks-ntrex``: ``format`` (spaces, line breaks, quotes),
``boilerplate`` (a byline or footer added), ``typo`` (one to three words of five or more
letters with two neighbouring letters swapped), ``translated`` (the other language's window of the same sentences), inserted after
their original in a shuffled order.

Methods, each with its own cold copy of the same encoder (bundled USE):

* ``samestory``: ``Deduper.dedupe(records)``, the passage path (``service.passages``);
* ``before``: the same path as it was before the cross-lingual probe gate and the one-thread
  encoder (``PassageConfig(probe_share=0)``, USE on every core), for side-by-side timing; with
  it the 20-chunk requests are also timed through it, alternately with ``samestory``;
* ``semhash``: ``SemHash.from_records(...).self_deduplicate()`` at semhash's default threshold
  0.9, one vector per chunk;
* ``minhash``: datasketch ``MinHashLSH`` over word 5-gram shingles, 128 permutations, threshold
  0.7, the corpus-dedup setting of text-dedup (no embeddings).

Recall: copies put with their original; precision: of the dropped chunks, those that are copies
of the chunk they were put with. Also a ``dedupe`` request of 20 chunks (distinct requests, cold
encoder), p50 and p90 latency. Seconds are wall and CPU (``time.process_time``, all threads):
on a shared machine the CPU seconds are the ones other jobs do not inflate (much), so the load
average (``uptime``) at the start and end is printed beside them. A method's seconds exclude
loading its encoder (a service loads it once at start), which is reported apart (``load s``).
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from eval.data import eval_data_dir

SENTENCE_SETS = ("ntrex128-kor-eng", "koen-news-park", "korsts-stsb-koen", "tatoeba-kor-eng")
COPY_KINDS = ("format", "boilerplate", "typo", "translated")
BOILERPLATE = {"ko": ("무단전재 및 재배포 금지", "(서울=연합뉴스)", "▶ 관련기사 더보기", "[사진=연합뉴스]"),
               "en": ("(Reuters) -", "Read more:", "© 2019 All rights reserved.", "Sign up for our newsletter.")}
PSEUDO_ARTICLE = 48


@dataclass(frozen=True)
class ChunkStream:
    """``records[i]`` = {"text", "lang"}; ``original[i]`` the index of the chunk it copies (None:
    an original); ``kind[i]`` "original" or a copy kind."""

    records: list[dict[str, str]]
    original: list[int | None]
    kind: list[str]
    sets: dict[str, int]

    def stats(self) -> dict[str, Any]:
        langs: dict[str, int] = defaultdict(int)
        for r in self.records:
            langs[r["lang"]] += 1
        kinds: dict[str, int] = defaultdict(int)
        for k in self.kind:
            kinds[k] += 1
        return {"chunks": len(self.records), "kinds": dict(kinds), "langs": dict(langs), "sentence_pairs": self.sets,
                "sentences_per_chunk": round(float(np.mean([len(r["text"].split(". ")) for r in self.records])), 2)}


def _articles(data_dir: Path, sets: Sequence[str]) -> tuple[list[list[dict[str, str]]], dict[str, int]]:
    """Articles as lists of sentences, in the data's order: {"ko", "en"} translation pairs
    (``xl_translation`` positives), or {"ko"} / {"en"} alone (the ``a`` side of ``ko_sts`` /
    ``en_sts`` pairs, which have no translation). A sentence is used once in all."""
    from index.text import normalize

    arts: list[list[dict[str, str]]] = []
    used: dict[str, int] = {}
    seen: set[str] = set()
    for name in sets:
        path = data_dir / name / "dev.jsonl"
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found (eval set {name!r})")
        by_doc: dict[str, list[tuple[int, dict[str, str]]]] = defaultdict(list)
        n = 0
        with path.open(encoding="utf-8") as fh:
            for line_no, line in enumerate(fh):
                if not line.strip():
                    continue
                r = json.loads(line)
                meta = r.get("meta") or {}
                if meta.get("b_variant") or meta.get("is_headline"):
                    continue
                if r.get("label") == 1 and r.get("kind") == "xl_translation" and r["a"]["lang"] != r["b"]["lang"]:
                    pair = {r["a"]["lang"]: r["a"]["text"].strip(), r["b"]["lang"]: r["b"]["text"].strip()}
                    if set(pair) != {"ko", "en"} or len(pair["en"]) < 20:
                        continue
                    group = "xl"
                elif r.get("kind") in ("ko_sts", "en_sts"):
                    # KorSTS is STS-B translated: ko/<id> and en/<id> are the same sentence in two
                    # languages, so each id is used in one language only (by a stable parity).
                    rest = str(r.get("id", "")).split("/", 2)[-1]
                    if (zlib.crc32(rest.encode()) % 2 == 0) != (r["kind"] == "en_sts"):
                        continue
                    pair = {r["a"]["lang"]: r["a"]["text"].strip()}
                    group = r["kind"]
                else:
                    continue
                keys = [normalize(t) for t in pair.values()]
                if any(k in seen for k in keys) or any(len(k) < 12 for k in keys):
                    continue
                seen.update(keys)
                doc = str(meta["doc"]) if "doc" in meta else f"{name}/{group}/{n // PSEUDO_ARTICLE}"
                by_doc[doc].append((int(meta.get("line", line_no)), pair))
                n += 1
        used[name] = n
        for doc in sorted(by_doc):
            sents = [p for _, p in sorted(by_doc[doc], key=lambda x: x[0])]
            if len(sents) >= 8:
                arts.append(sents)
    return arts, used


def _typo(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    for i in rng.sample(idx, min(len(idx), rng.randint(1, 3))):
        w = list(words[i])
        j = rng.randrange(1, len(w) - 2)
        if w[j] != w[j + 1]:
            w[j], w[j + 1] = w[j + 1], w[j]   # swap two neighbouring letters inside the word
        else:
            w[j] = "x" if w[j] != "x" else "y"
        words[i] = "".join(w)
    return " ".join(words)


def _format(text: str, rng: random.Random) -> str:
    out = re.sub(r"(?<=[.!?다])\s+", lambda m: rng.choice(["\n", "  ", " \n "]), text)
    out = out.replace("\"", "“", 1).replace("\"", "”", 1)
    return "  " + out + " \n"


def chunk_stream(size: int = 10_000, *, dup_share: float = 0.3, seed: int = 0,
                 data_dir: str | Path | None = None, sets: Sequence[str] = SENTENCE_SETS) -> ChunkStream:
    """A seeded stream of ``size`` chunks with ``dup_share`` known copies (see the module doc)."""
    if size < 10:
        raise ValueError(f"size must be >= 10, got {size}")
    if not 0.0 <= dup_share < 1.0:
        raise ValueError(f"dup_share must be in [0, 1), got {dup_share}")
    rng = random.Random(seed)
    arts, used = _articles(eval_data_dir(data_dir), sets)
    rng.shuffle(arts)
    n_copies = round(size * dup_share)
    n_orig = size - n_copies
    originals: list[tuple[int, int, int, str]] = []   # (article, start, k, lang)
    for a, sents in enumerate(arts):
        k = rng.choice((4, 5, 6))
        langs = sorted(sents[0])
        lang = rng.choice(langs)
        if len(langs) == 2 and a % 4 == 0:
            # Both languages: windows of k at a stride of k, the other language's offset by half a
            # window, so each shares half its sentences with two windows of the first language.
            other = "en" if lang == "ko" else "ko"
            originals += [(a, s, k, lang) for s in range(0, len(sents) - k + 1, k)]
            originals += [(a, s, k, other) for s in range(k // 2, len(sents) - k + 1, k)]
        else:
            originals += [(a, s, k, lang) for s in range(0, len(sents) - k + 1)]
    if len(originals) < n_orig:
        raise ValueError(f"the sets {', '.join(sets)} give {len(originals)} distinct windows; "
                         f"a stream of {size} with {dup_share:.0%} copies needs {n_orig}")
    originals = rng.sample(originals, n_orig)
    taken = {(a, s, k, lang) for a, s, k, lang in originals}

    def text(a: int, s: int, k: int, lang: str) -> str:
        return " ".join(p[lang] for p in arts[a][s : s + k])

    stream: list[tuple[str, str, int | None, str]] = [(text(*o), o[3], None, "original") for o in originals]
    order = list(range(n_orig))
    copies: list[tuple[int, str, str, str]] = []   # (original position, text, lang, kind)
    kinds = list(COPY_KINDS)
    tries = 0
    while len(copies) < n_copies and tries < 50 * n_copies:
        tries += 1
        o = rng.randrange(n_orig)
        a, s, k, lang = originals[o]
        kind = kinds[len(copies) % len(kinds)]
        base = stream[o][0]
        if kind == "translated":
            other = "en" if lang == "ko" else "ko"
            if other not in arts[a][0] or (a, s, k, other) in taken:   # no translation, or already an original
                continue
            copies.append((o, text(a, s, k, other), other, kind))
        elif kind == "format":
            copies.append((o, _format(base, rng), lang, kind))
        elif kind == "boilerplate":
            bp = rng.choice(BOILERPLATE[lang])
            copies.append((o, f"{bp} {base}" if rng.random() < 0.5 else f"{base} {bp}", lang, kind))
        else:
            t = _typo(base, rng)
            if t == base:
                continue
            copies.append((o, t, lang, kind))
    rng.shuffle(order)
    # Originals in shuffled order; each copy goes somewhere after its original.
    slots: dict[int, list[tuple[int, str, str, str]]] = defaultdict(list)
    pos_of = {o: p for p, o in enumerate(order)}
    for c in copies:
        slots[rng.randint(pos_of[c[0]], n_orig - 1)].append(c)
    records: list[dict[str, str]] = []
    original: list[int | None] = []
    kind_of: list[str] = []
    index_of: dict[int, int] = {}
    for p, o in enumerate(order):
        index_of[o] = len(records)
        records.append({"text": stream[o][0], "lang": stream[o][1]})
        original.append(None)
        kind_of.append("original")
        for oo, t, lang, kind in slots.get(p, []):
            records.append({"text": t, "lang": lang})
            original.append(index_of[oo])
            kind_of.append(kind)
    return ChunkStream(records, original, kind_of, used)


def score(stream: ChunkStream, labels: Sequence[int]) -> dict[str, Any]:
    """Recall per copy kind and precision of the drops (``labels[i]``: the root item of i's group).

    A drop is right when the chunk went to its original's group, or to a group led by another
    copy of the same original: the stream can copy one original twice the same way (two
    ``translated`` copies of one window are the same text), and when the first copy is missed the
    second is rightly dropped as a copy of it (``copy_of_copy`` counts those). A copy is found
    when it is dropped rightly in that sense.
    """
    def content(i: int) -> int:
        o = stream.original[i]
        return i if o is None else o

    dropped = [i for i, r in enumerate(labels) if r != i]
    same_group = {i for i in dropped if stream.original[i] is not None
                  and labels[stream.original[i]] == labels[i]}   # type: ignore[index]
    via_copy = {i for i in dropped if i not in same_group and stream.original[i] is not None
                and content(labels[i]) == content(i)}
    good = same_group | via_copy
    copies = [i for i, o in enumerate(stream.original) if o is not None]
    found = {i for i in copies if i in good}
    by_kind = {k: round(sum(1 for i in copies if stream.kind[i] == k and i in found)
                        / max(1, sum(1 for i in copies if stream.kind[i] == k)), 4) for k in COPY_KINDS}
    originals_dropped = sum(1 for i in dropped if stream.original[i] is None)
    return {"dropped": len(dropped), "precision": round(len(good) / len(dropped), 4) if dropped else None,
            "recall": round(len(found) / len(copies), 4) if copies else None, "recall_by_kind": by_kind,
            "originals_dropped": originals_dropped, "copy_of_copy": len(via_copy),
            "copies_to_another_group": len(dropped) - len(good) - originals_dropped}


def _roots(dup: Sequence[int | None]) -> list[int]:
    labels = list(range(len(dup)))
    for i, j in enumerate(dup):
        if j is not None:
            labels[i] = labels[j]
    return labels


def _passage_deduper(embedder: Any, *, before: bool = False) -> tuple[Any, Any]:
    """(engine, passage deduper): the engine's own, or with ``before`` the path as it was before
    the cross-lingual gate (``PassageConfig.probe_share`` 0: every open chunk's sentences
    embedded when the batch holds two languages), for the ``before`` rows."""
    from dataclasses import replace

    from service.engine import Deduper
    from service.store import open_store

    engine = Deduper(open_store(":memory:"), embedder=embedder, warm=False)
    dd = engine.ctx.passages
    if before:
        dd = type(dd)(dd.encode, guards=dd.guards, config=replace(dd.config, probe_share=0.0))
    return engine, dd


def _use_before() -> Any:
    """USE as it was loaded before: BLAS threads on every core (now one; see ``models.use``)."""
    import os

    from models.use import USEEmbedder

    return USEEmbedder(threads=os.cpu_count() or 1)


def run_samestory(stream: ChunkStream, embedder: Any, *, before: bool = False) -> tuple[list[int], int]:
    engine, dd = _passage_deduper(embedder, before=before)
    res = dd.dedupe(stream.records)
    return _roots(res.duplicate_of), int(engine.ctx.counters["encoder_texts"])


def run_semhash(stream: ChunkStream, embedder: Any, threshold: float = 0.9) -> tuple[list[int], int]:
    from bench.alternatives import semhash_dedupe

    return semhash_dedupe([(r["text"], r["lang"]) for r in stream.records], embedder, threshold), len(stream.records)


def _word_shingles(text: str, n: int = 5) -> set[bytes]:
    from index.text import normalize

    w = normalize(text).split()
    return {" ".join(w[i : i + n]).encode() for i in range(max(1, len(w) - n + 1))}


def run_minhash(stream: ChunkStream, threshold: float = 0.7, num_perm: int = 128) -> tuple[list[int], int]:
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    labels: list[int] = []
    for i, r in enumerate(stream.records):
        m = MinHash(num_perm=num_perm)
        m.update_batch(list(_word_shingles(r["text"])))
        hits = lsh.query(m)
        if hits:
            labels.append(labels[min(int(h) for h in hits)])
        else:
            labels.append(i)
            lsh.insert(str(i), m)
    return labels, 0


def request_latency(stream: ChunkStream, embedder: Any, *, size: int = 20, calls: int = 30,
                    seed: int = 0, before_embedder: Any = None) -> dict[str, Any]:
    """``Deduper.dedupe`` of ``calls`` distinct requests of ``size`` consecutive stream chunks.

    Wall and CPU milliseconds per request (CPU: this process's, all threads, which a busy
    machine does not inflate the way it inflates wall time). With ``before_embedder``, each
    request is also run through the path as it was before (``_passage_deduper(before=True)`` on
    that encoder), alternately with the current one, so both see the same load.
    """
    rng = random.Random(seed)
    starts = rng.sample(range(0, len(stream.records) - size), calls)
    paths = {"after": _passage_deduper(embedder)}
    if before_embedder is not None:
        paths["before"] = _passage_deduper(before_embedder, before=True)
    for engine, dd in paths.values():
        engine.ctx.warm_encoder()
        dd.dedupe(["one-off costs: the passage guards' rules are compiled on first use"])
    wall: dict[str, list[float]] = {k: [] for k in paths}
    cpu: dict[str, list[float]] = {k: [] for k in paths}
    counted = {k: int(e.ctx.counters["encoder_texts"]) for k, (e, _) in paths.items()}
    for s in starts:
        for k, (_, dd) in paths.items():
            t0, c0 = time.perf_counter(), time.process_time()
            dd.dedupe(stream.records[s : s + size])
            wall[k].append((time.perf_counter() - t0) * 1000.0)
            cpu[k].append((time.process_time() - c0) * 1000.0)
    # The same requests without an encoder (the lexical stages alone): what dedupe itself costs
    # beside the encoder, measured in the same run.
    lexical = _passage_deduper(None)[1]
    lexical.dedupe(["one-off costs"])
    bare = []
    for s in starts:
        t0 = time.perf_counter()
        lexical.dedupe(stream.records[s : s + size])
        bare.append((time.perf_counter() - t0) * 1000.0)

    def pct(xs: list[float], q: float) -> float:
        return round(sorted(xs)[min(len(xs) - 1, int(len(xs) * q))], 1)

    out: dict[str, Any] = {"chunks": size, "calls": calls, "without_encoder_p50_ms": pct(bare, 0.5)}
    for k, (engine, _) in paths.items():
        row = {"p50_ms": pct(wall[k], 0.5), "p90_ms": pct(wall[k], 0.9), "cpu_p50_ms": pct(cpu[k], 0.5),
               "cpu_p90_ms": pct(cpu[k], 0.9),
               "encoder_texts_per_call": round((engine.ctx.counters["encoder_texts"] - counted[k]) / calls, 1)}
        if k == "after":
            out.update(row)
        else:
            out[k] = row
    return out


def run(size: int = 10_000, *, dup_share: float = 0.3, seed: int = 0, model: str = "use",
        methods: Sequence[str] = ("samestory", "semhash", "minhash"), data_dir: str | None = None,
        request_calls: int = 30, log: TextIO | None = None) -> dict[str, Any]:
    """Every method on one stream, one after the other in this process (see the module doc)."""
    from models.registry import load_embedder

    def say(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    stream = chunk_stream(size, dup_share=dup_share, seed=seed, data_dir=data_dir)
    say(f"stream: {stream.stats()}")
    out: dict[str, Any] = {"size": size, "dup_share": dup_share, "seed": seed, "model": model,
                           "stream": stream.stats(), "methods": {}, "load_average_start": _load_average()}
    def use_before() -> Any:
        return _use_before() if model == "use" else load_embedder(model, cache_size=0)

    # Each method: how its encoder is loaded (timed apart: a service loads it once at start), and
    # the run on the loaded encoder.
    runners: dict[str, tuple[Callable[[], Any], Callable[[Any], tuple[list[int], int]]]] = {
        "samestory": (lambda: load_embedder(model, cache_size=0), lambda e: run_samestory(stream, e)),
        "before": (use_before, lambda e: run_samestory(stream, e, before=True)),
        "semhash": (lambda: load_embedder(model, cache_size=0), lambda e: run_semhash(stream, e)),
        "minhash": (lambda: None, lambda e: run_minhash(stream)),
    }
    for name in methods:
        if name not in runners:
            raise ValueError(f"unknown method {name!r}; valid: {', '.join(runners)}")
        say(f"running {name} ...")
        load, go = runners[name]
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            embedder = load()
            if embedder is not None and hasattr(embedder, "encode"):
                embedder.encode(["warm-up: the encoder's weights and tokenizer are loaded lazily"])
            load_s, load_cpu = time.perf_counter() - t0, time.process_time() - c0
            t0, c0 = time.perf_counter(), time.process_time()
            labels, encoded = go(embedder)
        except ImportError as exc:
            out["methods"][name] = {"skipped": f"{type(exc).__name__}: {exc}"}
            continue
        seconds = time.perf_counter() - t0
        out["methods"][name] = {"seconds": round(seconds, 2), "cpu_s": round(time.process_time() - c0, 2),
                                "encoder_load_s": round(load_s, 2), "encoder_load_cpu_s": round(load_cpu, 2),
                                "chunks_per_s": round(size / seconds, 1),
                                "encoder_texts": encoded, **score(stream, labels)}
        say(f"  {name}: {out['methods'][name]}")
    base = out["methods"].get("samestory", {}).get("seconds")
    for m in out["methods"].values():
        if base and "seconds" in m:
            m["seconds_ratio_to_samestory"] = round(m["seconds"] / base, 2)
    if request_calls:
        say("timing 20-chunk requests ...")
        before = None
        if "before" in methods:
            before = _use_before() if model == "use" else load_embedder(model, cache_size=0)
        out["request_20"] = request_latency(stream, load_embedder(model, cache_size=0), calls=request_calls, seed=seed,
                                            before_embedder=before)
    out["load_average_end"] = _load_average()
    return out


def _load_average() -> list[float] | None:
    """The 1, 5 and 15-minute load averages (``uptime``), beside the seconds: on a shared machine
    wall time is only comparable at a similar load, CPU time less affected."""
    import os

    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def summary(r: dict[str, Any]) -> str:
    lines = [f"stream: {r['stream']}",
             f"load average (1, 5, 15 min) at the start {r.get('load_average_start')}, at the end "
             f"{r.get('load_average_end')}: wall seconds are comparable only at a similar load, CPU seconds less affected",
             f"{'method':<10} {'seconds':>8} {'CPU s':>7} {'load s':>7} {'x samestory':>11} {'precision':>9} {'recall':>7} "
             f"{'originals dropped':>17} {'encoder texts':>13}  recall by kind"]
    for name, m in r["methods"].items():
        if "skipped" in m:
            lines.append(f"{name:<10} skipped: {m['skipped']}")
            continue
        lines.append(f"{name:<10} {m['seconds']:>8.1f} {m.get('cpu_s', float('nan')):>7.1f} "
                     f"{m.get('encoder_load_s', 0.0):>7.1f} "
                     f"{m.get('seconds_ratio_to_samestory', 1.0):>11.2f} "
                     f"{m['precision'] if m['precision'] is not None else '-':>9} {m['recall']:>7} "
                     f"{m['originals_dropped']:>17} {m['encoder_texts']:>13}  {m['recall_by_kind']}")
    if r.get("request_20"):
        q = r["request_20"]
        lines.append(f"dedupe request of {q['chunks']} chunks: p50 {q['p50_ms']} ms, p90 {q['p90_ms']} ms "
                     f"(CPU p50 {q.get('cpu_p50_ms')} ms, p90 {q.get('cpu_p90_ms')} ms; {q['calls']} distinct requests, "
                     f"{q['encoder_texts_per_call']} sentences embedded per call); "
                     f"the same requests without an encoder: p50 {q['without_encoder_p50_ms']} ms")
        if q.get("before"):
            b = q["before"]
            lines.append(f"  the same requests before (alternating): p50 {b['p50_ms']} ms, p90 {b['p90_ms']} ms "
                         f"(CPU p50 {b['cpu_p50_ms']} ms, p90 {b['cpu_p90_ms']} ms; "
                         f"{b['encoder_texts_per_call']} sentences embedded per call)")
    return "\n".join(lines)


def main(args: Any) -> int:
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    result = run(args.size, dup_share=0.3 if args.dup_share is None else args.dup_share, seed=args.seed,
                 model=args.model, methods=methods, data_dir=args.eval_data, request_calls=args.requests,
                 log=sys.stderr)
    result["command"] = " ".join(["samestory", *sys.argv[1:]]) if sys.argv and sys.argv[0].endswith(("cli.py", "samestory")) \
        else " ".join(sys.argv)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (Path(args.out) / f"dedupe-{args.size}.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    print(summary(result))
    if args.json:
        print(json.dumps(result, separators=(",", ":")))
    return 0
