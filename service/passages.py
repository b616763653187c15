"""The passage path of ``dedupe``: RAG chunks and article bodies, records in, records out.

A retrieved chunk may be dropped only when another kept chunk already says everything it says.
Cheap to expensive, each stage able to settle a chunk:

1. ``exact``: the same raw text, or the same text after normalisation (case, spacing, quotes
   and dashes, line breaks) with syndication boilerplate removed from its ends
   (``index.passages.strip_boilerplate``).
2. ``minhash``: MinHash LSH over character 5-gram shingles proposes earlier kept chunks in the
   same language; the *verified* Jaccard of the shingle sets must reach ``shingle_jaccard``,
   and every word and number of the chunk must be in the other one (up to ``max_typos`` words
   one edit away), so an overlapping window, whose new sentence brings words the other chunk
   lacks, is never a copy, nor a chunk that changed "11 months" to "12 months".
3. ``embedding``: only when the batch holds two languages, and only for the chunks the first
   two stages left. A gate first embeds each such chunk's first and last sentences (its probe)
   and keeps out the chunks whose first and last sentences no other-language chunk's come near
   (``probe_cosine``); the
   sentences of the rest are embedded (each distinct one once, a request's in one encoder call),
   a chunk's mean sentence vector proposes earlier kept chunks in the *other* language (matrix
   products in bounded blocks), and a monotonic sentence alignment (``index.align``) decides: a
   translation has a counterpart for (nearly) every sentence, an overlapping window for half
   of them.

Guards (version, quantity, date, polarity) vet every proposed merge: the whole passages for the
same-language stages, each aligned sentence pair for translations. A chunk is compared with
kept chunks only (no chaining through dropped ones).

>>> from service.passages import PassageDeduper
>>> chunks = ["The Fed raised rates by 25bp. Markets rallied.",
...           {"text": "Photo: AP  the Fed raised rates by 25bp.\\nMarkets rallied.", "source": "wire"},
...           "The Fed raised rates by 25bp. Markets rallied. The ECB held."]
>>> res = PassageDeduper().dedupe(chunks)
>>> res.keep, res.filtered[0].index, res.filtered[0].duplicate_of, res.filtered[0].stage
([0, 2], 1, 0, 'exact')
>>> res.selected[1]
'The Fed raised rates by 25bp. Markets rallied. The ECB held.'
>>> res.verdicts[2].reasons[0]
"kept: #0 has 5-gram Jaccard 0.755 but 2 word(s) not in it (new content): 'ecb', 'held'"
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from tqdm import tqdm

from index.align import Alignment, align
from index.minhash import MinHashIndex
from index.passages import Passage
from service.config import PassageConfig
from service.types import Decision, lang_tag_problem

Encode = Callable[[Sequence[str]], np.ndarray]

# The guards that read facts a passage states: version strings, quantities, dates, and the
# polarity words (인상/인하, rise/fall) that a one-letter change can flip, which the typo
# allowance would otherwise let through. The subject and role guards read headlines (lead
# token, the title's verb and its arguments) and mislead on a 100-word chunk whose first words
# may be a byline.
PASSAGE_GUARDS = ("version", "quantity", "date", "polarity")

# A kept chunk's reasons name at most this many earlier chunks that could not take it (nearest
# first), then one line counts the rest ("kept: and 994 more earlier chunks with 5-gram Jaccard
# 0.934 to 0.900 lack a word or number of this one"). On the 5,266 rag-chunks-ntrex dev chunks
# no kept chunk has more than 3 such chunks (214 have 1, 42 have 2, 8 have 3), so 5 leaves every
# real reason list whole; a line repeated with only its number changed has one per earlier line
# (999 on the 1,000th line, 42 MB of JSON for 1,000 lines), a list no RAG pipeline reads.
MAX_NOTES = 5


def _summary(lacking: int, vetoed: int, guards: Iterable[str], top: float, bottom: float) -> str:
    """The line that counts the earlier chunks over the Jaccard bar not named in full (``MAX_NOTES``):
    ``lacking`` lack a word or number of the chunk, ``vetoed`` were vetoed by ``guards``;
    ``top``/``bottom`` their Jaccard span.

    >>> _summary(994, 0, (), 0.9191, 0.8887)
    'kept: and 994 more earlier chunks with 5-gram Jaccard 0.919 to 0.889 lack a word or number of this one'
    >>> _summary(1, 2, ["quantity", "date", "quantity"], 0.95, 0.95)
    'kept: and 3 more earlier chunks with 5-gram Jaccard 0.950: 1 lacks a word or number of this one, 2 vetoed (date, quantity)'
    """
    n = lacking + vetoed
    span = f"{top:.3f}" if f"{top:.3f}" == f"{bottom:.3f}" else f"{top:.3f} to {bottom:.3f}"
    head = f"kept: and {n} more earlier chunk{'s' if n > 1 else ''} with 5-gram Jaccard {span}"
    lack = f"lack{'s' if lacking == 1 else ''} a word or number of this one"
    veto = f"vetoed ({', '.join(sorted(set(guards)))})"
    if not vetoed:
        return f"{head} {lack}"
    if not lacking:
        return f"{head}: {veto}"
    return f"{head}: {lacking} {lack}, {vetoed} {veto}"


@dataclass(frozen=True)
class PassageVerdict:
    """What happened to one input: kept, or dropped as a copy of ``duplicate_of`` (and why).

    ``stage`` is the stage that settled it ("exact", "minhash", "embedding"; "none" when kept
    with no candidate), ``score`` that stage's score, ``scores`` every score computed for it
    (``jaccard``, ``alignment``, ``coverage``), ``blocked_by`` the guards that vetoed a merge.
    """

    index: int
    duplicate_of: int | None
    stage: str
    score: float | None
    reasons: tuple[str, ...]
    scores: dict[str, float] = field(default_factory=dict)
    blocked_by: tuple[str, ...] = ()

    @property
    def kept(self) -> bool:
        return self.duplicate_of is None

    def to_decision(self) -> Decision:
        """The engine's ``Decision`` (``same`` = dropped), for the HTTP and CLI JSON."""
        return Decision(not self.kept, self.stage, self.score, list(self.reasons), list(self.blocked_by),  # type: ignore[arg-type]
                        matched_id=self.duplicate_of, scores=dict(self.scores))

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "kept": self.kept, "duplicate_of": self.duplicate_of, "stage": self.stage,
                "score": None if self.score is None else round(float(self.score), 6),
                "reasons": list(self.reasons), "scores": {k: round(float(v), 6) for k, v in self.scores.items()},
                "blocked_by": list(self.blocked_by)}


@dataclass(frozen=True)
class DroppedRecord:
    """A dropped input with the record it came as and why (``PassageDedupeResult.filtered``)."""

    index: int
    record: Any
    duplicate_of: int
    stage: str
    score: float | None
    reasons: tuple[str, ...]


@dataclass
class PassageDedupeResult:
    """Kept and dropped records, one :class:`PassageVerdict` per input (indices are input positions).

    ``selected`` are the kept records as given, ``filtered`` the dropped ones with why;
    ``keep``/``clusters``/``decisions`` match the headline result. :meth:`rethreshold` applies
    stricter thresholds without recomputing anything.
    """

    records: list[Any]
    verdicts: list[PassageVerdict]

    @property
    def keep(self) -> list[int]:
        return [v.index for v in self.verdicts if v.kept]

    @property
    def duplicate_of(self) -> list[int | None]:
        return [v.duplicate_of for v in self.verdicts]

    @property
    def decisions(self) -> list[Decision]:
        return [v.to_decision() for v in self.verdicts]

    @property
    def clusters(self) -> list[list[int]]:
        """Input indices per group, each group led by its kept item (transitively)."""
        root = list(range(len(self.verdicts)))
        for v in self.verdicts:
            if v.duplicate_of is not None:
                root[v.index] = root[v.duplicate_of]
        groups: dict[int, list[int]] = {}
        for i, r in enumerate(root):
            groups.setdefault(r, []).append(i)
        return list(groups.values())

    @property
    def selected(self) -> list[Any]:
        return [self.records[v.index] for v in self.verdicts if v.kept]

    @property
    def filtered(self) -> list[DroppedRecord]:
        return [DroppedRecord(v.index, self.records[v.index], v.duplicate_of, v.stage, v.score, v.reasons)
                for v in self.verdicts if v.duplicate_of is not None]

    @property
    def duplicate_ratio(self) -> float:
        return (len(self.verdicts) - len(self.keep)) / len(self.verdicts) if self.verdicts else 0.0

    def rethreshold(self, threshold: float | None = None, *, jaccard: float | None = None,
                    coverage: float | None = None) -> PassageDedupeResult:
        """Keep again the drops below stricter thresholds: ``threshold`` for the alignment score
        (embedding stage), ``jaccard`` for the shingle stage, ``coverage`` for the alignment
        coverage. Only stricter: a merge never proposed cannot be made here."""
        out = []
        for v in self.verdicts:
            s = v.scores
            undo = v.duplicate_of is not None and (
                (v.stage == "embedding" and threshold is not None and s.get("alignment", 1.0) < threshold)
                or (v.stage == "embedding" and coverage is not None and s.get("coverage", 1.0) < coverage)
                or (v.stage == "minhash" and jaccard is not None and s.get("jaccard", 1.0) < jaccard))
            if undo:
                v = replace(v, duplicate_of=None, reasons=(f"kept after rethreshold (was a copy of #{v.duplicate_of})",
                                                           *v.reasons))
            out.append(v)
        return PassageDedupeResult(self.records, out)


def texts_of(records: Sequence[Any], text_field: str = "text",
             lang_field: str = "lang") -> tuple[list[str], list[str | None]]:
    """Each record's text (a string record is its own text) and language (``lang_field`` of a
    mapping, when present). Raises a precise ValueError on the first bad record.

    >>> texts_of(["a", {"text": "b", "lang": "ko"}])
    (['a', 'b'], [None, 'ko'])
    """
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence):
        raise ValueError(f"records must be a list of strings or of mappings with a {text_field!r} field")
    texts: list[str] = []
    langs: list[str | None] = []
    for i, r in enumerate(records):
        if isinstance(r, str):
            texts.append(r)
            langs.append(None)
            continue
        if not isinstance(r, Mapping):
            raise ValueError(f"records[{i}] must be a string or a mapping, got {type(r).__name__}")
        if text_field not in r:
            raise ValueError(f"records[{i}] has no field {text_field!r}")
        if not isinstance(r[text_field], str):
            raise ValueError(f"records[{i}][{text_field!r}] must be a string, got {type(r[text_field]).__name__}")
        texts.append(r[text_field])
        lang = r.get(lang_field)
        if lang is None or (isinstance(lang, str) and not lang.strip()):
            langs.append(None)  # detected from the script
            continue
        # Not a tag ("korean", 3), it failed deep in the guards (a 500 from POST /v1/dedupe) or was
        # silently replaced by detection; said here, the error names the record.
        problem = lang_tag_problem(lang)
        if problem:
            raise ValueError(f"records[{i}][{lang_field!r}] {problem}")
        langs.append(lang)
    return texts, langs


def _no_candidate(cfg: PassageConfig) -> str:
    return (f"kept: new content (no earlier kept chunk in its language shares about "
            f"{cfg.lsh_threshold:.0%} of its 5-grams, the MinHash LSH bar)")


def _quote(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 1] + "…")


class PassageDeduper:
    """Stateless passage dedupe (see the module doc).

    ``encode(texts) -> float32 (n, d)`` L2-normalised rows embeds sentences for the
    cross-lingual stage (None: the lexical stages only); ``guards`` is a ``GuardSet`` (None:
    no vetoes). Safe to share between threads: ``dedupe`` keeps its state in locals.
    """

    def __init__(self, encode: Encode | None = None, *, guards: Any = None,
                 config: PassageConfig | None = None) -> None:
        self.encode = encode
        self.guards = guards
        # The cross-lingual stage's guards: the same set without polarity (see ``_vet``).
        self._xl_guards = type(guards)([g for g in guards.guards if g.name != "polarity"]) \
            if guards is not None and hasattr(guards, "guards") else guards
        self.config = config or PassageConfig()

    @classmethod
    def with_default_guards(cls, encode: Encode | None = None, config: PassageConfig | None = None) -> PassageDeduper:
        """The product setting: version, quantity, date and polarity guards from the packaged rules."""
        from service.guards import GuardSet
        from service.guards.rules import env_rule_dirs

        return cls(encode, guards=GuardSet.from_rules(env_rule_dirs(), enabled=PASSAGE_GUARDS), config=config)

    # guards ------------------------------------------------------------------------------------------
    def _vet(self, pairs: Iterable[tuple[str, str, str, str]], *, crosslingual: bool = False) -> list[str]:
        """Evidence of every blocking verdict over (text_a, lang_a, text_b, lang_b) pairs; [] = allowed.

        ``crosslingual``: aligned sentence pairs of a translation. The polarity guard steps out
        there: it is for the typo allowance of same-language copies; on the dev translations it
        vetoed 7 of 346 (out-of-fold recall 0.991 -> 0.971) and none of the 4 cross-lingual
        windows the alignment let through.
        """
        if self.guards is None:
            return []
        from service.guards import GuardInput

        guards = self.guards
        if crosslingual:
            guards = self._xl_guards
        out: list[str] = []
        for ta, la, tb, lb in pairs:
            verdicts = guards.check(GuardInput(title="", text=ta, lang=la), GuardInput(title="", text=tb, lang=lb))
            out.extend(f"{v.guard}: {v.evidence}" if v.evidence else v.guard for v in verdicts if v.blocked)
        return out

    # the call ----------------------------------------------------------------------------------------
    def dedupe(self, records: Sequence[Any], *, text_field: str = "text", lang_field: str = "lang",
               threshold: float | None = None, progress: bool = False) -> PassageDedupeResult:
        """Drop the records that copy an earlier kept one; ``threshold`` overrides ``alignment_score``.
        ``progress``: a progress bar on stderr for each stage that goes chunk by chunk."""
        texts, langs = texts_of(records, text_field, lang_field)
        cfg = self.config if threshold is None else replace(self.config, alignment_score=float(threshold))
        if not 0.0 <= cfg.alignment_score <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {cfg.alignment_score}")
        passages = [Passage.build(t, lang) for t, lang in zip(texts, langs, strict=True)]
        verdicts: list[PassageVerdict | None] = [None] * len(passages)
        notes: dict[int, list[str]] = {}
        self._lexical(passages, verdicts, notes, cfg, progress)
        self._crosslingual(passages, verdicts, notes, cfg, progress)
        final = []
        for i, v in enumerate(verdicts):
            if v is None:
                why = notes.get(i) or [_no_candidate(cfg)]
                v = PassageVerdict(i, None, "none", None, tuple(why))
            final.append(v)
        return PassageDedupeResult(list(records), final)

    def _lexical(self, passages: list[Passage], verdicts: list[PassageVerdict | None], notes: dict[int, list[str]],
                 cfg: PassageConfig, progress: bool = False) -> None:
        by_exact: dict[str, int] = {}
        by_norm: dict[str, int] = {}
        by_sentence: dict[str, list[int]] = {}  # a kept chunk's normalised sentences -> the chunk
        by_number: dict[str, set[int]] = {}  # a number -> the kept chunks that state it (``_rest``)
        lsh = MinHashIndex(threshold=cfg.lsh_threshold, num_perm=cfg.num_perm)
        for i, p in enumerate(tqdm(passages, desc="dedupe", unit="chunk", disable=not progress)):
            if p.empty:
                verdicts[i] = PassageVerdict(i, None, "none", None, ("kept: empty text (nothing to compare)",))
                continue
            j = by_exact.get(p.exact_key)
            if j is not None:
                verdicts[i] = PassageVerdict(i, j, "exact", 1.0, (f"exact: the same text as #{j}",))
                continue
            j = by_norm.get(p.norm_key)
            if j is not None:
                extra = f"; boilerplate removed: {', '.join(map(_quote, p.removed + passages[j].removed))}" \
                    if p.removed or passages[j].removed else ""
                verdicts[i] = PassageVerdict(i, j, "exact", 1.0, (
                    f"exact: the same text as #{j} after normalising case, spacing and punctuation{extra}",))
                continue
            j = self._container(p, passages, by_sentence)
            if j is not None:
                verdicts[i] = PassageVerdict(i, j, "exact", 1.0, (
                    f"exact: wholly contained in #{j} (its every sentence, in order, after normalising)",),
                    {"containment": 1.0})
                continue
            if not self._minhash(i, p, passages, lsh, by_number, verdicts, notes, cfg):
                by_exact.setdefault(p.exact_key, i)
                by_norm.setdefault(p.norm_key, i)
                lsh.add(i, p.shingles, 0.0)
                for n in p.numbers:
                    by_number.setdefault(n, set()).add(i)
                for start, length in p.spans:
                    by_sentence.setdefault(p.core_norm[start : start + length], []).append(i)

    def _minhash(self, i: int, p: Passage, passages: list[Passage], lsh: MinHashIndex, by_number: dict[str, set[int]],
                 verdicts: list[PassageVerdict | None], notes: dict[int, list[str]], cfg: PassageConfig) -> bool:
        """Check ``p`` against the earlier kept chunks the LSH proposes, nearest first; True when one
        takes it (its verdict set). Else the nearest ``MAX_NOTES`` that could not are noted in full
        and the rest counted (``_rest``)."""
        said: list[str] = []
        # The index hands over the candidates at or above the bar and the best one below it.
        cands = lsh.candidates(p.shingles, floor=cfg.shingle_jaccard)
        for k, (j, jac) in enumerate(cands):
            q = passages[j]
            if jac < cfg.shingle_jaccard:
                if len(said) < MAX_NOTES:  # the nearest chunk below the bar, named while the notes are short
                    # The note counts the absent words without the typo analysis: below the
                    # Jaccard bar nothing depends on which of them are typos.
                    absent = p.absent_words(q)
                    said.append(f"kept: nearest same-language chunk #{j} has 5-gram Jaccard {jac:.3f} < "
                                f"{cfg.shingle_jaccard}" + (f"; {len(absent)} of its words are not in it (new content, "
                                                            f"or typos): {', '.join(map(repr, absent[:6]))}" if absent else ""))
                break
            if len(said) == MAX_NOTES:
                rest = cands[k:] if cands[-1][1] >= cfg.shingle_jaccard else cands[k:-1]
                return self._rest(i, p, rest, said, passages, by_number, verdicts, notes, cfg)
            kind, what = self._check(p, q, cfg)
            if kind == "copy":
                self._merge(i, j, jac, what, verdicts, cfg)
                return True
            said.append(_note(kind, what, j, jac, cfg))
        # No candidate at all is a verdict too: said here, it stays first when the translation
        # stage adds its line (the tenth tour: that line alone read as if no same-language check ran).
        notes.setdefault(i, []).extend(said or [_no_candidate(cfg)])
        return False

    def _rest(self, i: int, p: Passage, rest: list[tuple[int, float]], said: list[str], passages: list[Passage],
              by_number: dict[str, set[int]], verdicts: list[PassageVerdict | None], notes: dict[int, list[str]],
              cfg: PassageConfig) -> bool:
        """The candidates over the bar past the ``MAX_NOTES`` named ones (``rest``, nearest first):
        the first that takes ``p`` wins, as in ``_minhash``; else one line counts them all.

        Only the chunks holding every number of ``p`` (``by_number``: number -> kept chunks that
        state it) are checked: any other lacks a number, so ``_check`` would refuse it whatever its
        words. A line repeated with its number changed is proposed every earlier line, and that
        word check was most of the cost; the decision and the count come out the same."""
        todo = rest
        if p.numbers:
            holders = sorted((by_number.get(n, set()) for n in p.numbers), key=len)
            have = holders[0].intersection(*holders[1:])
            todo = [c for c in rest if c[0] in have]
        vetoed: list[list[str]] = []
        for j, jac in todo:
            kind, what = self._check(p, passages[j], cfg)
            if kind == "copy":
                self._merge(i, j, jac, what, verdicts, cfg)
                return True
            if kind == "vetoed":
                vetoed.append(what)
        guards = [b.split(":", 1)[0] for blocked in vetoed for b in blocked]
        said.append(_summary(len(rest) - len(vetoed), len(vetoed), guards, rest[0][1], rest[-1][1]))
        notes.setdefault(i, []).extend(said)
        return False

    def _check(self, p: Passage, q: Passage, cfg: PassageConfig) -> tuple[str, list[str]]:
        """Whether the kept chunk ``q`` (over the Jaccard bar) says everything ``p`` says: ("copy",
        typos) when it does, else why not, ("new" | "typos" | "numbers" | "order", the words or numbers
        ``q`` lacks or states in another order) or ("vetoed", the guards' evidence)."""
        new, typos = p.new_words(q)
        if new:
            return "new", new
        if len(typos) > cfg.max_typos:
            return "typos", typos
        numbers = p.new_numbers(q)
        if numbers:
            return "numbers", numbers
        misplaced = p.misplaced_numbers(q)
        if misplaced:
            return "order", misplaced
        blocked = self._vet([(p.core, p.lang, q.core, q.lang)])
        if blocked:
            return "vetoed", blocked
        return "copy", typos

    @staticmethod
    def _merge(i: int, j: int, jac: float, typos: list[str], verdicts: list[PassageVerdict | None],
               cfg: PassageConfig) -> None:
        verdicts[i] = PassageVerdict(i, j, "minhash", jac, (
            f"minhash: 5-gram Jaccard {jac:.3f} >= {cfg.shingle_jaccard} with #{j}, and every word and number "
            f"is in it" + (f" (typos: {', '.join(map(repr, typos))})" if typos else ""),), {"jaccard": jac})

    @staticmethod
    def _container(p: Passage, passages: list[Passage], by_sentence: dict[str, list[int]]) -> int | None:
        """The first earlier kept chunk that wholly contains ``p`` (its normalised text is a run of
        the kept chunk's, whole words), else None. A chunker's shorter window inside a longer one
        says nothing the longer one does not, yet its 5-gram Jaccard with it is low (a third for
        two sentences of six), so the MinHash stage never proposes it. Candidates are the kept
        chunks holding its longest sentence."""
        if not p.spans:
            return None
        start, length = max(p.spans, key=lambda s: s[1])
        needle = f" {p.core_norm} "
        for j in by_sentence.get(p.core_norm[start : start + length], ()):
            if needle in f" {passages[j].core_norm} ":
                return j
        return None

    def _embed(self, sentences: Sequence[str], vecs: dict[str, np.ndarray], cfg: PassageConfig) -> None:
        """Embed the ``sentences`` not in ``vecs`` yet (each distinct one once) into ``vecs``: one
        encoder call per ``encode_batch`` sentences (a request's sentences go in one call)."""
        todo = [t for t in dict.fromkeys(sentences) if t not in vecs]
        assert self.encode is not None
        for k in range(0, len(todo), cfg.encode_batch):
            part = todo[k : k + cfg.encode_batch]
            vecs.update(zip(part, np.asarray(self.encode(part), dtype=np.float32), strict=True))

    @staticmethod
    def _pairs_above(means: np.ndarray, lang_code: np.ndarray, floor: float, block_rows: int,
                     keep: int | None = None) -> list[list[tuple[int, float]]]:
        """For each row k, the earlier rows in another language with cosine >= ``floor``, best
        first (``keep``: at most that many). Block by block (``block_rows`` x n at most), so the
        memory stays bounded whatever the batch size."""
        out: list[list[tuple[int, float]]] = []
        for start in range(0, len(means), block_rows):
            stop = min(start + block_rows, len(means))
            sims = means[start:stop] @ means[:stop].T
            # Only earlier rows in another language at the floor or above.
            earlier = np.arange(stop)[None, :] < np.arange(start, stop)[:, None]
            ok = earlier & (lang_code[None, :stop] != lang_code[start:stop, None]) & (sims >= floor)
            r_idx, c_idx = np.nonzero(ok)
            vals = sims[r_idx, c_idx]
            # Row by row, best first, ties by position.
            order = np.lexsort((c_idx, -vals, r_idx))
            r_idx, c_idx, vals = r_idx[order], c_idx[order], vals[order]
            bounds = np.searchsorted(r_idx, np.arange(stop - start + 1))
            for r in range(stop - start):
                lo, hi = int(bounds[r]), int(bounds[r + 1])
                if keep is not None:
                    hi = min(hi, lo + keep)
                out.append(list(zip(c_idx[lo:hi].tolist(), vals[lo:hi].tolist(), strict=True)))
        return out

    def _gate(self, passages: list[Passage], open_: list[int], vecs: dict[str, np.ndarray],
              cfg: PassageConfig) -> tuple[list[int], dict[int, str]]:
        """The open chunks worth embedding in full, and why each other one is not (see
        ``PassageConfig.probe_cosine``). All of them when the probes would not save sentences."""
        firsts = [passages[i].sentences[0] for i in open_]
        lasts = [passages[i].sentences[-1] for i in open_]
        n_probe = len(set(firsts) | set(lasts))
        n_all = len({t for i in open_ for t in passages[i].sentences})
        if n_probe > cfg.probe_share * n_all:
            return open_, {}
        self._embed(firsts + lasts, vecs, cfg)
        first = np.stack([vecs[t] for t in firsts])
        last = np.stack([vecs[t] for t in lasts])
        lang_code = np.array([hash(passages[i].lang) for i in open_])
        needed = np.zeros(len(open_), dtype=bool)
        for start in range(0, len(open_), cfg.block_rows):
            stop = min(start + cfg.block_rows, len(open_))
            # The larger of the first-first and last-last cosines of every pair, other languages only.
            sims = np.maximum(first[start:stop] @ first.T, last[start:stop] @ last.T)
            near = (sims >= cfg.probe_cosine) & (lang_code[start:stop, None] != lang_code[None, :])
            needed[start:stop] |= near.any(axis=1)
        skipped = {open_[k]: (f"kept: probe gate: no chunk in another language has its first or last sentence "
                              f"at cosine >= {cfg.probe_cosine} with this one's (not a translation; its other "
                              f"sentences were not embedded)") for k in range(len(open_)) if not needed[k]}
        return [i for k, i in enumerate(open_) if needed[k]], skipped

    def _crosslingual(self, passages: list[Passage], verdicts: list[PassageVerdict | None],
                      notes: dict[int, list[str]], cfg: PassageConfig, progress: bool = False) -> None:
        open_ = [i for i, v in enumerate(verdicts) if v is None and passages[i].sentences]
        langs = {passages[i].lang for i in open_} - {"und"}
        if self.encode is None or len(langs) < 2:
            return
        # Sentence vectors of this call, each distinct sentence embedded once. The gate embeds the
        # probes (first and last sentences) and drops the chunks no other-language chunk comes
        # near; only the rest have their remaining sentences embedded.
        vecs: dict[str, np.ndarray] = {}
        open_, skipped = self._gate(passages, open_, vecs, cfg)
        for i, why in skipped.items():
            notes.setdefault(i, []).append(why)
        if len({passages[i].lang for i in open_} - {"und"}) < 2:
            return
        self._embed([t for i in open_ for t in passages[i].sentences], vecs, cfg)
        # One matrix of the distinct sentences; a chunk is the row indices of its sentences, so
        # its sentence vectors are one fancy index and all the means one reduceat.
        order = list(dict.fromkeys(t for i in open_ for t in passages[i].sentences))
        row_of = {t: r for r, t in enumerate(order)}
        matrix = np.stack([vecs[t] for t in order]).astype(np.float32, copy=False)
        rows = [np.fromiter((row_of[t] for t in passages[i].sentences), dtype=np.intp) for i in open_]
        sizes = np.array([len(r) for r in rows])
        means = np.add.reduceat(matrix[np.concatenate(rows)], np.concatenate([[0], np.cumsum(sizes)[:-1]]), axis=0)
        means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
        lang_code = np.array([hash(passages[i].lang) for i in open_])
        pos = {i: k for k, i in enumerate(open_)}
        # Candidate lists: earlier chunks in another language, best cosine first.
        cands = [[(open_[t], c) for t, c in row] for row in
                 self._pairs_above(means, lang_code, cfg.candidate_cosine, cfg.block_rows, 4 * cfg.max_candidates)]
        for k, i in enumerate(tqdm(open_, desc="dedupe: translations", unit="chunk", disable=not progress)):
            p = passages[i]
            tried = 0
            # Every candidate (up to max_candidates kept ones) is aligned and the best passing
            # alignment wins, not the first: an earlier window that shares all but one sentence
            # with the chunk's own original can come first by cosine and still pass the coverage
            # bar (4 of 5 sentences), while the original aligns every sentence. Best = the most
            # of *this* chunk's characters aligned (what the kept one must say), then the score:
            # the score alone favours a window that repeats a sentence (a 2-1 bead of the
            # repeat scores high while the chunk's own last sentence goes unaligned).
            passing: list[tuple[float, float, int, Alignment, dict[str, float]]] = []
            for j, cos in cands[k]:
                if verdicts[j] is not None:  # dropped earlier: compare with kept chunks only
                    continue
                tried += 1
                if tried > cfg.max_candidates:
                    break
                q = passages[j]
                al = align(matrix[rows[pos[j]]], matrix[rows[k]], [len(s) for s in q.sentences], [len(s) for s in p.sentences],
                           min_bead=cfg.bead_similarity, merge_floor=cfg.merge_floor)
                scores = {"cosine": cos, "alignment": al.score, "coverage": al.coverage}
                aligned = sum(1 for b in al.beads if b.similarity is not None and b.similarity >= cfg.bead_similarity)
                if al.score < cfg.alignment_score or al.coverage < cfg.alignment_coverage \
                        or aligned < cfg.min_aligned_sentences:
                    notes.setdefault(i, []).append(_alignment_note(j, al, q, p, cfg, "kept"))
                    continue
                passing.append((al.coverage_b, al.score, j, al, scores))
            for _, score, j, al, scores in sorted(passing, key=lambda x: (-x[0], -x[1], x[2])):
                q = passages[j]
                blocked = self._vet(
                    ((" ".join(q.sentences[b.a_start : b.a_end]), q.lang, " ".join(p.sentences[b.b_start : b.b_end]),
                      p.lang) for b in al.beads if b.similarity is not None), crosslingual=True)
                if blocked:
                    notes.setdefault(i, []).append(f"kept: aligned with #{j} (score {score:.3f}), vetoed: "
                                                   + "; ".join(blocked))
                    continue
                verdicts[i] = PassageVerdict(i, j, "embedding", score,
                                             (_alignment_note(j, al, q, p, cfg, "embedding"),), scores)
                break


def _note(kind: str, what: list[str], j: int, jac: float, cfg: PassageConfig) -> str:
    """The note on the kept chunk #``j`` that did not take a chunk (``PassageDeduper._check``'s answer)."""
    head = f"kept: #{j} has 5-gram Jaccard {jac:.3f}"
    shown = ", ".join(map(repr, what[:6]))
    if kind == "new":
        return f"{head} but {len(what)} word(s) not in it (new content): {shown}"
    if kind == "typos":
        return f"{head} but {len(what)} words one edit from its words, more than {cfg.max_typos} typos: {shown}"
    if kind == "numbers":
        return f"{head} but not the number(s) {', '.join(what[:5])} of this chunk (new content)"
    if kind == "order":
        return (f"{head} but it states the number(s) {', '.join(what[:5])} of this chunk in another order "
                f"or less often (a changed figure: new content)")
    return f"{head}, vetoed: " + "; ".join(what)


def _alignment_note(j: int, al: Alignment, q: Passage, p: Passage, cfg: PassageConfig, head: str) -> str:
    matched = sum(b.b_end - b.b_start for b in al.beads if b.similarity is not None and b.similarity >= cfg.bead_similarity)
    lead = f"embedding: a translation of #{j} ({q.lang}->{p.lang})" if head == "embedding" else \
        f"kept: #{j} ({q.lang}) is not a translation of it"
    if head != "embedding" and sum(1 for b in al.beads if b.similarity is not None
                                   and b.similarity >= cfg.bead_similarity) < cfg.min_aligned_sentences:
        lead += f" (fewer than {cfg.min_aligned_sentences} sentence pairs to align)"
    return (f"{lead}: {matched} of {len(p.sentences)} sentences aligned, alignment score "
            f"{_against(al.score, cfg.alignment_score)}, coverage {_against(al.coverage, cfg.alignment_coverage)}")


def _against(value: float, bar: float) -> str:
    """``value`` beside the ``bar`` it had to reach, with the comparison that holds: a reason says
    which side of the bar it fell on (it read "0.624 (>= 0.51?)", a question, not an answer). The
    value gets more digits where three would round it onto the other side of the bar.

    >>> _against(0.6243, 0.51), _against(0.4, 0.51), _against(0.5099, 0.51), _against(0.51, 0.51)
    ('0.624 >= 0.51', '0.400 < 0.51', '0.5099 < 0.51', '0.510 >= 0.51')
    """
    reached = value >= bar
    for digits in range(3, 7):
        shown = f"{value:.{digits}f}"
        if (float(shown) >= bar) == reached:
            break
    return f"{shown} {'>=' if reached else '<'} {bar}"
