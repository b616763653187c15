"""The cascade: cheap stages first, each able to settle an item; guards vet every proposed merge.

Used in two ways with the same stage functions and the same guards:
- ``match``: a new item against the candidate state (ingest and stateless dedupe);
- ``pair``: two items against each other (``compare`` and labelled-pair evaluation).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, NamedTuple

from index.features import ItemFeatures
from index.ngram import GatedNgramIndex
from index.readalike import read_alike
from index.text import clause_moved, detect_lang, has_hangul, has_latin, same_letters
from index.unmatched import describe as describe_unmatched
from service.config import DAY, EngineConfig
from service.guards.quantity import QuantityGuard
from service.guards.subject import SubjectGuard
from service.scoring import CosineScorer, EmbeddingScorer
from service.stages import (
    CheapIndices,
    EmbeddingStage,
    Encode,
    PairInputs,
    PairVectors,
    Probe,
    Refs,
    Stage,
    Trace,
    VectorFn,
    Window,
    cheaply_unsettled,
    default_stages,
    guard_notes,
    same_words,
    too_little_content,
    veto_reason,
)
from service.state import CandidateState
from service.types import Decision, GuardVerdict, StageName

if TYPE_CHECKING:
    from models.verifier import PairVerifierLike
    from service.guards import GuardInput, GuardSet


@dataclass
class Match:
    decision: Decision
    cluster_id: int | None = None
    matched_doc: int | None = None


# A last check on a candidate every guard let through, given its document id: (the merge
# stands, a note for the reasons or None). A refusal is a veto like a guard's, named
# ``blocked_by`` "body", and the walk goes on to the next candidate (the ingest's body check,
# ``CopyLevel.body_confirm``).
Confirm = Callable[[int], tuple[bool, str | None]]


def verify_texts(a: ItemFeatures, b: ItemFeatures) -> tuple[str, str]:
    """What the pair verifier reads of a pair: headline with headline when both have a title,
    otherwise each side's body lead (a side without one gives its headline).

    >>> a = ItemFeatures.build("Kospi closes above 4,000", "Stocks rose. More later.", "en", 0.0)
    >>> verify_texts(a, ItemFeatures.build("코스피 4000선 돌파", "", "ko", 0.0))
    ('Kospi closes above 4,000', '코스피 4000선 돌파')
    >>> verify_texts(a, ItemFeatures.build("", "코스피가 올랐다. 더 보기.", "ko", 0.0))
    ('Stocks rose.', '코스피가 올랐다.')
    """
    if a.title.strip() and b.title.strip():
        return a.headline, b.headline
    return a.body_lead_text or a.headline, b.body_lead_text or b.headline


# A Korean-English rescue needs the two texts to be of a translation's lengths: Korean words
# (eojeols) per English word within [RESCUE_LENGTH_RATIO_MIN, RESCUE_LENGTH_RATIO_MAX]. The rescue's
# false merges on fold-0 NTREX rows were a headline against its own article's lead sentence
# (`xl_same_doc_negative`, 1.83 and 2.27 Korean words per English word, the verifier's P 0.84 /
# 0.97), where the dev sets' Korean-English copies have a median of 0.68-0.78 (of 9,419 copies,
# 27 above 1.6 and 50 under 0.3; none of those among the copies the rescue finds on fold 0 of
# NTREX, Park, Tatoeba or the hand-written sets: research/notes/verifier.md). Wider: those
# headline / lead pairs merge again; narrower: terse or wordy translations are left unrescued.
# Counted on the pairs' texts as the dev sets give them (headlines, sentences, chunks), which is
# what the verifier reads of a pair in `samestory eval pairs`.
RESCUE_LENGTH_RATIO_MIN = 0.3
RESCUE_LENGTH_RATIO_MAX = 1.6

# A rescue below verifier_floor (the anchored band, CopyConfig.verifier_anchored_floor) needs P at
# least this (or the rescue threshold, if higher): a pair the cosine puts that low is less often a
# copy, and what it shares is a name, which a follow-up shares too. Of the label-0 pairs the band
# read on fold 0 of NTREX, Park, Tatoeba and KorSTS and on the hand-written sets (blind sets
# apart), the highest P was 0.60 ("Starmer unveils plan to cut net migration" / "스타머 이민 감축안,
# 하원 표결서 부결", a follow-up); 0.65 is the next step above it. The band's copies there had P
# 0.60-1.00 (research/notes/verifier.md, "An anchored floor"). Higher: fewer translations with
# names found; lower: follow-ups naming the same people merge.
ANCHORED_RESCUE_THRESHOLD = 0.65


def translation_lengths(a: str, b: str) -> bool:
    """Whether a Korean text and an English one have a translation's lengths (True when the two
    are not one Korean and one Latin text: the rule is for Korean-English pairs).

    >>> translation_lengths("코스피, 사상 처음 4000선 돌파 마감", "Kospi closes above 4,000 for the first time")
    True
    >>> translation_lengths("한국은행 기준금리 동결 결정", "日本銀行が金利を据え置いた")
    True
    >>> translation_lengths("뉴포트 경찰에 따르면 금요일 오전 한 ATM에 직원이 돈을 채워 넣는 동안 도둑들이 2만 달러를 훔쳤다",
    ...                     "Thieves take $20,000 during ATM refill")
    False
    """
    ka, kb = has_hangul(a), has_hangul(b)
    if ka == kb:
        return True
    ko, en = (a, b) if ka else (b, a)
    words = len(en.split())
    if not words or not has_latin(en):  # Japanese or Chinese are written without spaces
        return True
    return RESCUE_LENGTH_RATIO_MIN <= len(ko.split()) / words <= RESCUE_LENGTH_RATIO_MAX


# How a reason names two texts with the same letters (``index.text.same_letters``).
SAME_LETTERS = "the same letters (spacing, case, punctuation apart)"
CLAUSE_MOVED = "the same words with a clause moved to the other end"


class PairRead(NamedTuple):
    """What the pair verifier reads of a pair (:meth:`Cascade.read_pair`): the two texts in
    :func:`verify_texts`' order, and what was rewritten in them to be read alike."""

    a: str
    b: str
    figures: tuple[str, ...] = ()  # "0.25%p as 25 basis points"
    names: tuple[str, ...] = ()  # "한은 as 한국은행"

    def described(self) -> str:
        """The rewrites as the verifier's reasons say them, then what of each side the other does
        not match (``index.unmatched.describe``)."""
        said = [f"{kind} read alike: {', '.join(done)}" for kind, done in (("figures", self.figures), ("names", self.names)) if done]
        return "; ".join([*said, describe_unmatched(self.a, self.b)])


def reading_order(a: str, b: str) -> tuple[str, str]:
    """The pair in the order the verifier reads it: Korean first, else the smaller string first.

    The cross-encoder reads its two sides in order and P moves with it (fold-0 dev pairs: mean
    |dP| 0.05-0.09, 4-13 % of pairs on the other side of 0.5 when swapped), so a fixed order
    keeps a decision from depending on which item arrived first. Korean first: on 300 fold-0
    pairs a set, the order that agreed with the labels as often or more (NTREX 0.857 against
    0.833, Tatoeba 0.871 against 0.866, Park 0.777 against 0.780).

    >>> reading_order("Kospi hits 4,000", "코스피 4000 돌파"), reading_order("b", "a")
    (('코스피 4000 돌파', 'Kospi hits 4,000'), ('a', 'b'))
    """
    return min((a, b), (b, a), key=lambda t: (not has_hangul(t[0]), t))


def other_language(a: ItemFeatures, b: ItemFeatures) -> bool:
    """The two are in different languages (by primary subtag: "ko-KR" is "ko"); a side whose
    language is not given ("und": stateless dedupe) is told by its script (``detect_lang``).

    >>> ko, en = (ItemFeatures.build(t, "", lang, 0.0) for t, lang in (("가나", "ko"), ("ab", "en")))
    >>> other_language(ko, en), other_language(ko, ko), other_language(ko, ItemFeatures.build("Fed", "", "und", 0.0))
    (True, False, True)
    >>> other_language(ko, ItemFeatures.build("2024", "", "und", 0.0))
    False
    """
    la, lb = (primary_lang(f) for f in (a, b))
    return la != "und" and lb != "und" and la != lb


def primary_lang(f: ItemFeatures) -> str:
    """The language :func:`other_language` compares: the primary subtag, else the script's guess
    (``detect_lang``), which may be "und". The batch plan's search stage reads it too
    (``service.batch.neighbours.language_bits``)."""
    lang = f.lang.replace("_", "-").split("-")[0].lower()
    return lang if lang not in ("", "und") else detect_lang(f.guard_text())


def guard_input(f: ItemFeatures) -> GuardInput:
    from service.guards import GuardInput

    published = datetime.fromtimestamp(f.time, tz=timezone.utc) if f.time else None
    return GuardInput(title=f.title, text=f.guard_text(), lang=f.lang, published_at=published)


class Cascade:
    """The stages (``service.stages``) in order, and the guards that vet what they propose."""

    def __init__(self, config: EngineConfig, guards: GuardSet | None, scorer: EmbeddingScorer | None = None,
                 stages: Sequence[Stage] | None = None, verifier: PairVerifierLike | None = None,
                 refs: Refs | None = None, counters: Counter[str] | None = None) -> None:
        self.config = config
        # The engine's counters (``EngineContext.counters``, /metrics): what the verifier read,
        # confirmed, refused and rescued, and its time. None (dedupe's own cascade, run beside
        # ingestion without the engine lock): not counted, so no two threads add to one dict.
        self.counters = counters
        # How reasons name what an item matched: store ids, or input positions (stateless dedupe).
        self.refs = refs or Refs()
        self.guards = guards
        # The figures the verifier reads written alike (``read_pair``): the quantity guard's units.
        self._quantities = next((g for g in getattr(guards, "guards", ()) if isinstance(g, QuantityGuard)), None)
        # ... and one entity's Hangul names: the subject guard's alias table.
        self._subjects = next((g for g in getattr(guards, "guards", ()) if isinstance(g, SubjectGuard)), None)
        # The pair verifier (EngineConfig.copy.verifier): None, off. It decides every merge but
        # identity, and rescues Korean-English hits in [verifier_floor, embedding_threshold).
        self.verifier = verifier
        # No threshold is calibrated only for an engine without a model, which never embeds: nothing passes.
        self.scorer: EmbeddingScorer = scorer or CosineScorer(
            config.copy.embedding_threshold if config.copy.embedding_threshold is not None else math.inf)
        self.stages: tuple[Stage, ...] = (tuple(stages) if stages is not None
                                          else default_stages(config, self.scorer, self.embed_text))
        self.encode: Encode | None = None
        # The embedding stage also hands over hits in the slot-confirmed band (guards on only),
        # for _confirm_hits to try once no stage took a candidate.
        if self.has_confirm_band():
            for stage in self.stages:
                if isinstance(stage, EmbeddingStage):
                    stage.confirm_floor = config.copy.slot_confirm_threshold
        if verifier is not None:  # the rescue reads hits down to its floor (anchored below verifier_floor)
            for stage in self.stages:
                if isinstance(stage, EmbeddingStage):
                    stage.verify_floor = config.copy.rescue_floor

    def embed_text(self, f: ItemFeatures) -> str:
        return f.embed_text(self.config.copy.embed_body_lead)

    def use_encoder(self, encode: Encode | None) -> None:
        """Give the embedding stage the encoder, so that a pair where only one side has a body is
        also scored headline with headline (``EmbeddingStage._headline_scores``)."""
        self.encode = encode
        for stage in self.stages:
            if isinstance(stage, EmbeddingStage):
                stage.encode = encode

    # guards ----------------------------------------------------------------------------------------
    def vet(self, a: ItemFeatures, b: ItemFeatures,
            inputs: tuple[GuardInput, GuardInput] | None = None) -> tuple[bool, list[GuardVerdict]]:
        """(allowed, verdicts). With guards off every merge is allowed. ``inputs``: ``guard_input``
        of ``a`` and ``b`` when the caller has built them (their cached readings are reused)."""
        if self.guards is None:
            return True, []
        verdicts = self.guards.check(*(inputs or (guard_input(a), guard_input(b))))
        if any(v.blocked and v.guard != "date" for v in verdicts) and same_letters(a.guard_text(), b.guard_text()):
            # spacing, case, punctuation and North Korean initial sounds apart the same letters:
            # nothing a guard compares differs, but the spacing moves what it reads as a name
            # (koen-news-park's respellings "로동당기관지" / "노동당 기관지" were split by the who guard).
            # Not the date guard's: it reads "오늘" by each side's publication time, which differ.
            verdicts = [GuardVerdict(v.guard, False, True, f"{v.evidence} ({SAME_LETTERS}: no veto)")
                        if v.blocked and v.guard != "date" else v for v in verdicts]
        if self.verifier is not None:  # a soft veto is left to the verifier, which reads the pair next
            verdicts = [GuardVerdict(v.guard, False, True, f"{v.evidence} (across scripts, names no table "
                                     "knows: the verifier decides)") if v.blocked and v.soft else v
                        for v in verdicts]
        return not any(v.blocked for v in verdicts), verdicts

    def has_confirm_band(self) -> bool:
        """A slot-confirmed band exists: guards on, and ``slot_confirm_threshold`` below the
        embedding threshold (``EngineConfig``; only models with a calibrated band have one)."""
        low, high = self.config.copy.slot_confirm_threshold, self.config.copy.embedding_threshold
        return self.guards is not None and low is not None and high is not None and low < high

    def confirm_band(self, cosine: float | None) -> bool:
        """The cosine lies in the slot-confirmation band: at or above ``slot_confirm_threshold``,
        below the embedding threshold."""
        low, high = self.config.copy.slot_confirm_threshold, self.config.copy.embedding_threshold
        return (self.has_confirm_band() and cosine is not None and low is not None and high is not None
                and low <= cosine < high)

    def slot_confirm(self, a: ItemFeatures, b: ItemFeatures) -> tuple[bool, str, list[GuardVerdict]]:
        """(confirmed, evidence, verdicts): every guard passes and every slot aligns
        (``service/guards/confirm.py``). Call only for a pair in :meth:`confirm_band`."""
        assert self.guards is not None
        ga, gb = guard_input(a), guard_input(b)
        if not self.guards.confirmable(ga, gb):  # same language: no need to ask every guard
            return False, "slots: not a Korean-English pair", []
        verdicts = self.guards.check(ga, gb)
        c = self.guards.confirm(ga, gb, verdicts)
        return c.confirmed, c.evidence, verdicts

    def _confirm_reason(self, cosine: float) -> str:
        return (f"embedding: cosine {cosine:.3f} >= {self.config.copy.slot_confirm_threshold} (slot-confirmed band, "
                f"below {self.config.copy.embedding_threshold})")

    @staticmethod
    def _confirmed(trace: Trace, confirm: Confirm | None, doc: int) -> bool:
        """``confirm``'s answer on ``doc``, its note on the trace and a refusal as a ``body`` veto."""
        if confirm is None:
            return True
        ok, note = confirm(doc)
        if note:
            trace.reasons.append(note)
        if not ok and "body" not in trace.blocked_by:
            trace.blocked_by.append("body")
        return ok

    def _confirm_hits(self, probe: Probe, confirm: Confirm | None = None) -> Match | None:
        """The embedding hits no stage took whose cosine is in the slot-confirmed band, best
        first: the first one whose slots all align (and every guard passes) is the match."""
        trace, entries = probe.trace, probe.state.entries
        for doc, sc in sorted(probe.scored.items(), key=lambda x: -x[1].cosine):
            if not self.confirm_band(sc.cosine):
                continue
            cluster = entries.cluster_of(doc)
            if doc == probe.exclude_doc or cluster in trace.tried:
                continue
            trace.tried.add(cluster)
            other = entries.features(doc)
            if self.too_far(probe.item, other) is not None:
                continue
            ok, why, verdicts = self.slot_confirm(probe.item, other)
            if ok:
                trace.reasons.append(f"{self._confirm_reason(sc.cosine)} with {self.refs.group(cluster, doc)}, {why}")
                trace.reasons.extend(guard_notes(verdicts))
                trace.guards = verdicts
                if not self._confirmed(trace, confirm, doc):
                    continue
                return Match(Decision(True, "embedding", sc.cosine, trace.reasons, trace.blocked_by, matched_id=doc,
                                      scores=trace.scores, guards=trace.guards), cluster, doc)
        return None

    def too_far(self, a: ItemFeatures, b: ItemFeatures) -> str | None:
        """Why ``a`` may not be a copy of ``b`` for their publication times, else None: more than
        ``copy_gap_hours`` apart, in other words (``EngineConfig.copy.copy_gap_hours``).

        >>> from index.features import ItemFeatures
        >>> c = Cascade(EngineConfig(), None)
        >>> monday = 1_394_467_200.0  # 2014-03-10, epoch seconds
        >>> mon = ItemFeatures.build("Wall St opens lower after S&P's record close", "", "en", monday)
        >>> tue = ItemFeatures.build("Wall Street closes lower", "", "en", monday + 27.7 * 3600)
        >>> c.too_far(tue, mon)
        'time: published 27.7 h apart > copy_gap_hours 12 (not the same words)'
        >>> c.too_far(ItemFeatures.build("Wall St opens lower after S&P's record close", "", "en", monday + 27.7 * 3600), mon) is None
        True

        The same words include the same letters spaced, cased or punctuated otherwise, and a
        headline with an outlet's tail (``same_letters`` of the headlines): a Korean outlet's
        re-run spaces its compounds its own way, a syndicator adds " - Yahoo News".

        >>> c.too_far(ItemFeatures.build("Wall St opens lower after S&P's record close - Yahoo News", "", "en",
        ...                              monday + 27.7 * 3600), mon) is None
        True
        """
        gap_h = self.config.copy.copy_gap_hours
        if not gap_h or not a.time or not b.time:
            return None
        hours = abs(a.time - b.time) / 3600.0
        if hours <= gap_h or same_words(a, b) or same_letters(a.headline, b.headline):
            return None
        return f"time: published {hours:.1f} h apart > copy_gap_hours {gap_h:g} (not the same words)"

    def _time_veto(self, a: ItemFeatures, b: ItemFeatures) -> GuardVerdict | None:
        """:meth:`too_far` as a blocking verdict named ``time``, written as every veto is."""
        far = self.too_far(a, b)
        return None if far is None else GuardVerdict("time", True, True, far)

    # the pair verifier --------------------------------------------------------------------------------
    def verifier_threshold(self) -> float:
        """``EngineConfig.copy.verifier_threshold``, else the verifier's own (the artefact's)."""
        assert self.verifier is not None
        t = self.config.copy.verifier_threshold
        return float(self.verifier.threshold) if t is None else t

    def rescue_threshold(self, cosine: float | None = None) -> float:
        """``EngineConfig.copy.verifier_rescue_threshold``, else :meth:`verifier_threshold`; for
        a pair of ``cosine`` below ``verifier_floor`` (the anchored band), at least
        :data:`ANCHORED_RESCUE_THRESHOLD`."""
        t = self.config.copy.verifier_rescue_threshold
        t = self.verifier_threshold() if t is None else t
        if cosine is not None and cosine < self.config.copy.verifier_floor:
            t = max(t, ANCHORED_RESCUE_THRESHOLD)
        return t

    def verify(self, pairs: Sequence[tuple[ItemFeatures, ItemFeatures]]) -> list[float]:
        """P(same report) for each pair, in one call of the verifier (:func:`verify_texts`)."""
        return self._score([self.read_pair(a, b) for a, b in pairs])

    def _score(self, reads: Sequence[PairRead]) -> list[float]:
        """The verifier's P for pairs as :meth:`read_pair` gives them, in one call, each in
        :func:`reading_order`."""
        assert self.verifier is not None
        if not reads:
            return []
        texts = [reading_order(r.a, r.b) for r in reads]
        started = time.perf_counter_ns()
        p = self.verifier.score([t[0] for t in texts], [t[1] for t in texts])
        if self.counters is not None:
            self.counters["verifier_ns"] += time.perf_counter_ns() - started
            self.counters["verifier_calls"] += 1
            self.counters["verifier_pairs"] += len(reads)
        return [float(x) for x in p]

    def _count(self, outcome: str) -> None:
        """One verifier outcome (``verifier_confirmed``, ``_refused``, ``_rescued``) in the counters."""
        if self.counters is not None:
            self.counters[outcome] += 1

    def read_pair(self, a: ItemFeatures, b: ItemFeatures) -> PairRead:
        """What the verifier reads of a pair, in :func:`verify_texts`' order, with what the guards
        know to be equal written alike in the text that comes first in :func:`reading_order` (the
        Korean one), as the other writes it:

        - figures (``QuantityGuard.written_alike``): the verifier cannot convert units ("0.25%p" /
          "25 basis points" gave P 0.003); in one language only figures written otherwise than
          in English words ("3058명" / "3천58명", not "vehicles" / "cars"). Only figures the guard
          finds equal are rewritten, so a changed figure still reads as changed. Hand-written
          sets: copies found fresh 41 -> 45 of 75, the older 46 -> 49 of 69, nothing more merged
          (research/notes/verifier-runtime.md, "Figures written alike").
        - Hangul names of one entity where one is a short form of the other
          (``SubjectGuard.names_alike``: "한은" / "한국은행"), which the verifier, trained to refuse
          substituted names, read as two institutions (P 0.00). Hand-written abbreviation set:
          copies found 12 -> 14 of 43 with this alone, nothing more merged; no dev pair moves
          (research/notes/verifier-runtime.md, "Names written alike").
        - across Korean and English, figures one side writes in another notation
          (``index.readalike``): an English number word where the Korean side counts in digits
          ("Three firefighters" / "소방관 3명"), a figure with its conversion in brackets where the
          Korean side writes one of the two ("12 mph (19 km/h)" / "19km"), both in the English
          text, and a regnal number ("찰스 3세" / "Charles III") in the Korean one. Fold 0 of
          koen-news-park: 5 copies more, nothing else moves on the fold-0 sets or the KorSTS
          sample; verifier_pairs one copy more (research/notes/xling.md, "Park's fold-0 misses").

        Without guards, as read."""
        x, y = verify_texts(a, b)
        first, second = reading_order(x, y)
        aligned, other = first, second
        figures: tuple[str, ...] = ()
        names: tuple[str, ...] = ()
        if self._quantities is not None:
            xl = other_language(a, b)
            aligned, figures = self._quantities.written_alike(aligned, second, other_notation_only=not xl)
            if xl and has_hangul(first) and not has_hangul(second):
                aligned, other, notations = read_alike(aligned, second)
                figures += notations
        if self._subjects is not None:
            aligned, names = self._subjects.names_alike(aligned, other)
        if not figures and not names:
            return PairRead(x, y)
        if (first, second) == (x, y):
            return PairRead(aligned, other, figures, names)
        return PairRead(other, aligned, figures, names)

    @staticmethod
    def _unmatched(read: PairRead) -> str:
        """What the verifier's reasons say of a pair as :meth:`read_pair` gives it."""
        return read.described()

    def _verified(self, trace: Trace, stage: StageName, new: ItemFeatures, other: ItemFeatures) -> bool:
        """A merge the guards let through, as the verifier judges it: identity (the exact stage)
        and an engine without a verifier always stand; P below the threshold is a veto named
        ``verifier`` (the walk goes on), P at or above it a note on the reasons. Two texts with the
        same letters (spacing, case, punctuation apart) are identity too: the verifier gave the
        spacing variants 부산 지하철 / 부산지하철 P 0.18."""
        if self.verifier is None or stage == "exact":
            return True
        texts = verify_texts(new, other)
        if same_letters(*texts):
            trace.reasons.append(f"verifier: not asked, {SAME_LETTERS}")
            return True
        if clause_moved(*texts):
            # The same words with a dateline or lead moved to the other end: the verifier gave
            # "Monday morning: Seoul subway workers go on strike" against the same words with
            # "Monday morning" last P 0.00 (eighth tour). A role swap is no such move (index.text).
            trace.reasons.append(f"verifier: not asked, {CLAUSE_MOVED}")
            return True
        read = self.read_pair(new, other)
        p, threshold = self._score([read])[0], self.verifier_threshold()
        trace.scores["verifier"] = p
        spans = self._unmatched(read)
        if p >= threshold:
            self._count("verifier_confirmed")
            trace.reasons.append(f"verifier: {p:.2f}, {spans}")
            return True
        self._count("verifier_refused")
        trace.reasons.append(f"verifier: {p:.2f} < {threshold:.2f}, {spans}")
        if "verifier" not in trace.blocked_by:
            trace.blocked_by.append("verifier")
        return False

    def rescue_band(self, a: ItemFeatures, b: ItemFeatures, cosine: float | None) -> bool:
        """The pair is one the verifier may rescue: a verifier is on, the two are in different
        languages, the cosine lies in [``verifier_floor``, ``embedding_threshold``), and what the
        verifier reads of them has a translation's lengths (:func:`translation_lengths`)."""
        high = self.config.copy.embedding_threshold
        return (self.verifier is not None and cosine is not None and high is not None
                and self.config.copy.verifier_floor <= cosine < high and other_language(a, b)
                and translation_lengths(*verify_texts(a, b)))

    def anchored_band(self, a: ItemFeatures, b: ItemFeatures, cosine: float | None) -> bool:
        """The pair is one the verifier may rescue below ``verifier_floor``: a verifier is on, the
        two are in different languages with a translation's lengths, the cosine lies in
        [``verifier_anchored_floor``, ``verifier_floor``), and the guards let the pair through and
        match a name or figure on both sides (``GuardVerdict.anchors``)."""
        return bool(self._anchored_candidate(a, b, cosine)) and self._anchored_vet(a, b) is not None

    def _anchored_candidate(self, a: ItemFeatures, b: ItemFeatures, cosine: float | None) -> bool:
        """:meth:`anchored_band` without its guards: the cheap tests (verifier, cosine, languages,
        lengths), asked first of every hit."""
        copy = self.config.copy
        return (self.verifier is not None and cosine is not None and copy.rescue_floor <= cosine < copy.verifier_floor
                and other_language(a, b) and translation_lengths(*verify_texts(a, b)))

    def _anchored_vet(self, a: ItemFeatures, b: ItemFeatures,
                      ga: GuardInput | None = None) -> list[GuardVerdict] | None:
        """:meth:`anchored_band`'s guards: the verdicts (``vet``) of a pair they let through with a
        name or figure matched on both sides, else None. ``ga``: ``guard_input(a)``, if built."""
        if self.guards is None:
            return None
        inputs = (guard_input(a) if ga is None else ga, guard_input(b))
        if not self.guards.anchors(*inputs):
            return None  # the cheap question first: most hits this low name nothing in common
        allowed, verdicts = self.vet(a, b, inputs)
        return verdicts if allowed and sum(v.anchors for v in verdicts) > 0 else None

    def _rescue_reason(self, p: float, cosine: float, a: ItemFeatures, b: ItemFeatures) -> str:
        anchored = (", a name or figure matched on both sides"
                    if cosine < self.config.copy.verifier_floor else "")
        return (f"verifier: {p:.2f} (cosine {cosine:.2f}): another language, below the embedding threshold "
                f"{self.config.copy.embedding_threshold}{anchored}; {self._unmatched(self.read_pair(a, b))}")

    def _rescue_hits(self, probe: Probe, confirm: Confirm | None = None) -> Match | None:
        """The Korean-English rescue: the embedding hits no stage took, in another language than
        the item, with cosine in [verifier_floor, embedding_threshold) (or down to the anchored floor,
        :meth:`anchored_band`), at most ``embedding_k``,
        read by the verifier in one call; best cosine first, the first at or above its threshold
        that the guards (and ``confirm``) let through is the match."""
        trace, entries, item = probe.trace, probe.state.entries, probe.item
        # (doc, cluster, cosine, features, the guards' verdicts when the anchored band asked them)
        band: list[tuple[int, int, float, ItemFeatures, list[GuardVerdict] | None]] = []
        item_input: GuardInput | None = None  # guard_input(item), built once for all its hits
        for doc, sc in sorted(probe.scored.items(), key=lambda x: -x[1].cosine):
            if len(band) == self.config.copy.embedding_k:
                break  # the rest would not be read (the anchored band's guard checks are not free)
            cluster = entries.cluster_of(doc)
            if doc == probe.exclude_doc or cluster in trace.tried or any(e[1] == cluster for e in band):
                continue
            other = entries.features(doc)
            # Cheapest first, each test once: the bands' own tests (disjoint cosine ranges), the
            # time test, then the anchored band's guards.
            rescue = self.rescue_band(item, other, sc.cosine)
            if not (rescue or self._anchored_candidate(item, other, sc.cosine)) or self.too_far(item, other) is not None:
                continue
            if rescue:
                band.append((doc, cluster, sc.cosine, other, None))
                continue
            if item_input is None and self.guards is not None:
                item_input = guard_input(item)
            verdicts = self._anchored_vet(item, other, item_input)
            if verdicts is not None:
                band.append((doc, cluster, sc.cosine, other, verdicts))
        if not band:
            return None
        probs = self.verify([(item, other) for _, _, _, other, _ in band])
        for (doc, cluster, cosine, other, vetted), p in zip(band, probs, strict=True):
            trace.tried.add(cluster)
            if p < self.rescue_threshold(cosine):
                continue
            trace.scores["verifier"] = p
            reason = f"{self._rescue_reason(p, cosine, item, other)}, with {self.refs.group(cluster, doc)}"
            # the band holds no pair too far apart in time, so _propose asks the guards (the
            # anchored band's pairs were vetted there and passed: their verdicts are reused)
            if not (self._propose(trace, reason, item, other, vetted) and self._confirmed(trace, confirm, doc)):
                continue
            self._count("verifier_rescued")
            return Match(Decision(True, "embedding", cosine, trace.reasons, trace.blocked_by, matched_id=doc,
                                  scores=trace.scores, guards=trace.guards), cluster, doc)
        thresholds = [self.rescue_threshold(cosine) for _, _, cosine, _, _ in band]
        if all(p < t for p, t in zip(probs, thresholds, strict=True)):
            best, threshold = max(zip(probs, thresholds, strict=True))
            trace.scores["verifier"] = max(best, trace.scores.get("verifier", 0.0))
            trace.reasons.append(f"verifier: {best:.2f} < {threshold:.2f} at best for the {len(band)} "
                                 f"other-language hit(s) below the embedding threshold")
        return None

    def _propose(self, trace: Trace, reason: str, new: ItemFeatures, other: ItemFeatures,
                 vetted: list[GuardVerdict] | None = None) -> bool:
        """The time veto, then the guards (``vet``); ``vetted``: the verdicts of a pair already
        found close enough in time and let through by ``vet``, which are not asked again."""
        time_veto = None if vetted is not None else self._time_veto(new, other)
        if time_veto is not None:  # no guard is asked; the guards of the last proposal stay on the trace
            blocking = [time_veto]
        else:
            allowed, verdicts = (True, vetted) if vetted is not None else self.vet(new, other)
            trace.guards = verdicts
            if allowed:
                trace.reasons.append(reason)
                trace.reasons.extend(guard_notes(verdicts))
                return True
            blocking = [v for v in verdicts if v.blocked]
        trace.reasons.append(f"{reason}, {veto_reason(blocking)}")
        for v in blocking:
            if v.guard not in trace.blocked_by:
                trace.blocked_by.append(v.guard)
        return False

    # one item against the candidate state ----------------------------------------------------------
    def match(self, f: ItemFeatures, state: CandidateState, vector_fn: VectorFn,
              window: Window | None, *, exclude_doc: int | None = None, confirm: Confirm | None = None) -> Match:
        """Walk the stages in order; in each, propose the candidates at or above its threshold,
        best first, one per cluster, until the guards (and ``confirm``, when given) let one through.
        A candidate vetoed does not end the walk: the next one is tried, so an item finds the copy
        it is of even when another report of the same event came in first and scores higher."""
        probe = Probe(f, state, vector_fn, window, exclude_doc, refs=self.refs)
        trace, entries = probe.trace, state.entries
        last_stage: StageName = "minhash"
        for stage in self.stages:
            if not stage.active(state):
                continue
            last_stage = stage.name
            threshold = stage.threshold
            for doc, score in stage.candidates(probe):
                trace.saw(stage.name, score)
                if score < threshold:
                    break
                cluster = entries.cluster_of(doc)
                if doc == exclude_doc or cluster in trace.tried:
                    continue
                trace.tried.add(cluster)
                other = entries.features(doc)
                if (self._propose(trace, stage.describe(probe, doc, score), f, other)
                        and self._verified(trace, stage.name, f, other) and self._confirmed(trace, confirm, doc)):
                    return Match(Decision(True, stage.name, score, trace.reasons, trace.blocked_by, matched_id=doc,
                                          scores=trace.scores, guards=trace.guards), cluster, doc)
            if isinstance(stage, EmbeddingStage) and probe.scored:
                # With a verifier on, its rescue covers the slot-confirmed band (and more).
                found = (self._rescue_hits(probe, confirm) if self.verifier is not None
                         else self._confirm_hits(probe, confirm) if self.has_confirm_band() else None)
                if found is not None:
                    return found
        if not trace.reasons:
            outside = self._outside_window(probe) if window is not None else None
            trace.reasons.append(outside or "no candidate above any stage's threshold")
        if trace.blocked_by and trace.best is not None:  # the best vetoed proposal says why
            stage_name, best_score = trace.best
            return Match(Decision(False, stage_name, best_score, trace.reasons, trace.blocked_by,
                                  scores=trace.scores, guards=trace.guards))
        return Match(Decision(False, last_stage, trace.scores.get(last_stage), trace.reasons, trace.blocked_by,
                              scores=trace.scores, guards=trace.guards))

    def _outside_window(self, probe: Probe) -> str | None:
        """For an item no stage found a candidate for: the first candidate a cheap stage (exact,
        n-gram, MinHash) found at or above its threshold outside the candidate window, as the
        reason (the index still holds items up to twice the window back). Each cheap stage kept
        its hits outside the window from its one search (``Probe.outside``): nothing is searched
        again. The vector search's hits outside the window stay unnamed."""
        for stage in self.stages:
            beyond = probe.outside.get(stage.name) if stage.settles_cheaply else None
            if beyond is None:
                continue
            for doc, score in beyond():
                if doc == probe.exclude_doc or probe.in_window(doc):
                    continue
                days = abs(probe.state.entries.time_of(doc) - probe.item.time) / DAY
                return (f"a candidate outside the window: {stage.describe(probe, doc, score)}, "
                        f"{days:.1f} days apart (window_days {self.config.copy.window_days:g})")
        return None

    def cheaply_unsettled(self, feats: Sequence[ItemFeatures], state: CheapIndices) -> list[int]:
        """Indices of the items of a batch the cheap stages settle neither against ``state`` nor
        against an earlier item of the batch (``service.stages.cheaply_unsettled``)."""
        return cheaply_unsettled(self.stages, feats, state, self.config.copy.window_days * DAY)

    # two items against each other -----------------------------------------------------------------
    def pair(self, a: ItemFeatures, b: ItemFeatures, idf: GatedNgramIndex, vectors: PairVectors, *,
             all_scores: bool = False) -> Decision:
        """The same stages as ``match``, applied to one pair (stateless ``compare``): the first
        stage that reaches its threshold proposes; ``all_scores`` computes the later ones too."""
        inputs = PairInputs(idf, vectors, self.embed_text, self.encode)
        scores: dict[str, float] = {}
        proposal: tuple[StageName, float, str] | None = None
        last: StageName = "minhash"
        for stage in self.stages:
            if proposal is not None and not all_scores:
                break
            scored = stage.score_pair(a, b, inputs)
            if scored is None:
                continue
            last = stage.name
            scores.update(scored.scores)
            if proposal is None and scored.reason is not None:
                proposal = (stage.name, scored.score, scored.reason)
        trace = Trace(scores=scores)
        if proposal is not None:
            # As ``match`` proposes a candidate: the time veto, then the guards, then the verifier.
            stage_name, score, reason = proposal
            ok = self._propose(trace, reason, a, b) and self._verified(trace, stage_name, a, b)
            return Decision(ok, stage_name, score, trace.reasons, trace.blocked_by, scores=scores, guards=trace.guards)
        # Too little content on either side: the cosine alone decides nothing (MIN_EMBED_CONTENT).
        thin = too_little_content(self.embed_text(a)) or too_little_content(self.embed_text(b))
        if thin is None and self.too_far(a, b) is None:
            # As ``match`` goes on after the embedding stage's candidates: the verifier's rescue
            # when it is on, else the slot-confirmed band.
            cos = scores.get("cosine")
            if self.rescue_band(a, b, cos) or self.anchored_band(a, b, cos):
                return self._rescue_pair(a, b, trace, last)
            if self.verifier is None and cos is not None and self.confirm_band(cos):
                ok, why, verdicts = self.slot_confirm(a, b)
                if ok:
                    return Decision(True, "embedding", cos, [f"{self._confirm_reason(cos)}, {why}",
                                                             *guard_notes(verdicts)], scores=scores, guards=verdicts)
        return Decision(False, last, scores.get(last), [thin or "no stage reached its threshold"], scores=scores)

    def _rescue_pair(self, a: ItemFeatures, b: ItemFeatures, trace: Trace, last: StageName) -> Decision:
        """``pair``'s Korean-English rescue (:meth:`rescue_band`): the verifier's P decides, the
        guards keep their vetoes (``_propose``, as in ``_rescue_hits``)."""
        scores = trace.scores
        cos = scores["cosine"]
        read = self.read_pair(a, b)
        p, threshold = self._score([read])[0], self.rescue_threshold(cos)
        scores["verifier"] = p
        if p < threshold:
            return Decision(False, last, scores.get(last), [f"no stage reached its threshold; verifier: {p:.2f} < "
                            f"{threshold:.2f} (cosine {cos:.2f}); {self._unmatched(read)}"],
                            scores=scores)
        ok = self._propose(trace, self._rescue_reason(p, cos, a, b), a, b)
        if ok:
            self._count("verifier_rescued")
        return Decision(ok, "embedding", cos, trace.reasons, trace.blocked_by, scores=scores, guards=trace.guards)
