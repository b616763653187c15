"""Engine configuration: every constant that decides a merge, with its calibration.

Also the typed loading that the service settings (``service.api.settings``) share: a TOML key or
a ``SAMESTORY_*`` variable that names no setting is an error that suggests the closest one, and
every value is checked against its field's type (TOML strictly: ``window_days = "3"`` is refused;
environment strings are parsed: ``SAMESTORY_WINDOW_DAYS=3``).

>>> check_env({"SAMESTORY_WINDOW_DAY": "3"})
Traceback (most recent call last):
...
service.config.ConfigError: unknown environment variable SAMESTORY_WINDOW_DAY (did you mean SAMESTORY_WINDOW_DAYS?)
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import tomllib
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

DAY = 86_400.0  # seconds: the unit of every *_days setting

# SAMESTORY_* variables read outside the settings and the engine config (where each is used).
OTHER_ENV_VARS = {
    "SAMESTORY_CONFIG": "the TOML file (service.api.settings)",
    "SAMESTORY_CACHE": "model cache directory (models/registry.py)",
    "SAMESTORY_EVAL_DATA": "eval-data folder (eval/data.py)",
    "SAMESTORY_USE_THREADS": "BLAS threads of the bundled USE encoder, default 1 (models/use.py)",
    "SAMESTORY_PG_URL": "the tests' PostgreSQL server (tests/conftest.py)",
    "SAMESTORY_REQUIRE_POSTGRES": "CI: PostgreSQL tests fail instead of skipping (tests/conftest.py)",
    "SAMESTORY_REDIS_URL": "the tests' Redis server (tests/conftest.py)",
    "SAMESTORY_REQUIRE_REDIS": "CI: Redis tests fail instead of skipping (tests/conftest.py)",
    "SAMESTORY_REQUIRE_BROWSER": "CI: the browser test fails, not skips (tests/e2e/test_ui_browser.py)",
    "SAMESTORY_UI_SCREENSHOTS": "where the browser test saves screenshots (tests/e2e/test_ui_browser.py)",
}


class ConfigError(ValueError):
    """A configuration the operator must fix: the message is one line naming the key and the problem."""


def suggest(name: str, choices: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the closest of ``choices``, or "".

    >>> suggest("max_bach", ["max_batch", "max_page"])
    ' (did you mean max_batch?)'
    """
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def known_env_vars() -> set[str]:
    """Every ``SAMESTORY_*`` variable some part of samestory reads."""
    from service.api.settings import Settings

    names = {f.name for f in dataclasses.fields(Settings)} | set(_engine_fields())
    return {f"SAMESTORY_{n.upper()}" for n in names} | set(OTHER_ENV_VARS)


def check_env(env: Mapping[str, str] | None = None) -> None:
    """Raise :class:`ConfigError` for a ``SAMESTORY_*`` variable that nothing reads (a typo would
    otherwise be ignored in silence) or whose value is not of its setting's type.

    Every command runs this one check first (``service.cli.main``, ``Settings.load``,
    ``EngineConfig.load``), so a variable is refused alike by every command, whether or not the
    command reads it: ``SAMESTORY_GUARDS=maybe`` fails ``compare`` as it fails ``serve``.

    >>> check_env({"SAMESTORY_GUARDS": "maybe"})
    Traceback (most recent call last):
    ...
    service.config.ConfigError: SAMESTORY_GUARDS must be true or false, got 'maybe'
    """
    from service.api.settings import Settings

    env = os.environ if env is None else env
    known = known_env_vars()
    for name in sorted(env):
        if name.startswith("SAMESTORY_") and name not in known:
            raise ConfigError(f"unknown environment variable {name}{suggest(name, known)}")
    settings = {f.name for f in dataclasses.fields(Settings)} - {"config"}
    for field_name in sorted(settings | set(_engine_fields())):
        raw = env.get(f"SAMESTORY_{field_name.upper()}")
        if raw is not None:
            typed(Settings if field_name in settings else EngineConfig, field_name, raw, "env")


def env_setting(name: str, env: Mapping[str, str] | None = None) -> Any:
    """The service setting ``name`` as ``SAMESTORY_<NAME>`` gives it (parsed and checked as
    ``samestory serve`` reads it), else its default: the one reading every command shares.

    >>> env_setting("guards", {"SAMESTORY_GUARDS": "false"}), env_setting("guards", {})
    (False, True)
    """
    from service.api.settings import Settings

    env = os.environ if env is None else env
    raw = env.get(f"SAMESTORY_{name.upper()}")
    if raw is not None:
        return typed(Settings, name, raw, "env")
    field = next(f for f in dataclasses.fields(Settings) if f.name == name)
    return field.default


def typed(cls: type, name: str, value: Any, source: str) -> Any:
    """``value`` checked against (and, from the environment, parsed to) the type of ``cls.name``.

    ``source`` says where it came from: ``"env"`` for a string from ``SAMESTORY_*`` (parsed:
    "3" -> 3.0, "yes" -> True, "none" -> None for an optional field), else a file name (TOML
    values are typed already, so they are checked strictly).
    """
    hint = _hints(cls)[name]
    from_env = source == "env"
    if from_env and value.strip().lower() in ("", "none") and type(None) in typing.get_args(hint):
        return None
    try:
        return TypeAdapter(hint).validate_python(value, strict=not from_env)
    except ValidationError:
        where = f"SAMESTORY_{name.upper()}" if from_env else f"{name} in {source}"
        raise ConfigError(f"{where} must be {_kind(hint)}, got {value!r}") from None


_KINDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string", dict: "a table"}


def _kind(hint: Any) -> str:
    """``float | None`` -> 'a number or none'."""
    args = typing.get_args(hint) or (hint,)
    words = [_KINDS.get(typing.get_origin(a) or a, str(a)) for a in args if a is not type(None)]
    return " or ".join(words + (["none"] if type(None) in args else []))


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _engine_fields() -> dict[str, dataclasses.Field[Any]]:
    return {f.name: f for f in dataclasses.fields(EngineConfig) if f.name != "extra"}

# The embedding stage's cosine threshold per model (embedder name and registry spec alike).
#
# USE-multilingual v3: calibrated on the dev splits of ../shared/eval-data with 5-fold
# group-held-out cross-validation (docs/xling.md, "Issue 3"): 0.625 is the lowest cosine that keeps
# precision >= 0.97 on the Korean-English news sets and >= 0.90 on Tatoeba (NTREX P 0.985 R 0.756,
# Park P 0.973 R 0.439, Tatoeba P 0.918 R 0.656). Raising it trades cross-lingual recall for
# precision; lowering it breaks those floors and merges same-topic, different-event pairs that
# only the guards can still stop.
#
# multilingual-e5-small: its cosines sit high (unrelated dev pairs average 0.78-0.81, translations
# 0.87-0.91), so USE's value would merge nearly everything. `python -m eval.calibrate --model
# e5-small --sample 800` finds the lowest cosine meeting the same floors at 0.875 (NTREX), 0.950
# (Park) and 0.855 (Tatoeba); 0.95 meets all three, at recall 0.40 on Park. Lower it and Park's
# same-block negatives merge; the model is not the default for that reason among others.
CALIBRATED_EMBEDDING_THRESHOLDS: dict[str, float] = {
    "use": 0.625,
    "use-multilingual-v3": 0.625,
    "e5-small": 0.95,
    "e5-small-onnx": 0.95,
}

# The lowest cosine at which a Korean-English headline pair that no stage proposed is accepted
# when every slot aligns (issue 19, service/guards/confirm.py, EngineConfig.slot_confirm_threshold).
# USE-multilingual v3: calibrated on 4,646 Korean-English dev pairs of ../shared/eval-data (the
# seeded 1,000-pair samples, seed 0, of ntrex128-kor-eng, koen-news-park, tatoeba-kor-eng and
# korsts-stsb-koen, cross-lingual pairs only, plus all 186 NTREX headline pairs; never the
# hand-written pairs of tests/data): of the 854 pairs no stage proposed with a cosine in
# [0.40, 0.625), the confirmation (slots.toml [confirm]: 2 aligned values, 16 words) accepts at
# 0.50 / 0.525 / 0.55 / 0.575 / 0.60: 24+2 / 18+0 / 16+0 / 12+0 / 7+0 (label 1 + label 0).
# 0.525 is the lowest with no label-0 pair; 0.55 keeps one step of margin. Lower it and
# different-story pairs that name the same people get in (two at 0.50); raise it and fewer
# short translated headlines are recovered (docs/guards.md, "Slot-confirmed acceptance").
CALIBRATED_SLOT_CONFIRM_THRESHOLDS: dict[str, float] = {
    "use": 0.55,
    "use-multilingual-v3": 0.55,
}


@dataclass(frozen=True)
class EngineConfig:
    """Thresholds and windows of the cascade. Every field is overridable by file or env.

    >>> EngineConfig().ngram_threshold
    0.3
    >>> EngineConfig(ngram_threshold=1.5)
    Traceback (most recent call last):
    ...
    service.config.ConfigError: ngram_threshold must be in [0, 1], got 1.5
    """

    # Seed 000: calibrated on 100 live Google News results for "온디바이스 AI" (Korean). Sweeping
    # down collapsed 100 items to 84 / 83 / 81 / 77 at 0.45 / 0.40 / 0.35 / 0.30; every group
    # formed at 0.30 was inspected by eye and was a true duplicate. 0.30 is low only because
    # the subject gate (same lead token) carries the precision: remove the gate and this must
    # go up. Below 0.25 was never validated (risk: same subject, different event).
    ngram_threshold: float = 0.30

    # MinHash LSH stage: plain Jaccard of title character 3-grams, no subject gate. Seed 001
    # used 0.85 on word shingles, where one changed word in a short title already costs ~0.3;
    # character 3-grams degrade more gently, so 0.6 here admits "one word changed" rewrites
    # ("... 25 basis points today" / "... now" is ~0.8) while two different events that share a
    # boilerplate phrase stay below (seed 000's Advant/Mgen pair is 0.64 plain, which is why the
    # subject guard vets every MinHash merge). Raising it loses rewrites to the embedding stage
    # (slower, same outcome); lowering it leans harder on the guards. The LSH band threshold
    # sits below the verification threshold so true hits are rarely missed by banding.
    minhash_threshold: float = 0.60
    minhash_lsh_threshold: float = 0.45
    minhash_num_perm: int = 128

    # Cosine between a new item's embedding (title + body lead) and a cluster representative's.
    # None takes the value calibrated for the engine's model (CALIBRATED_EMBEDDING_THRESHOLDS
    # below): a cosine threshold means nothing across models, whose cosines sit in different
    # ranges. A model with no calibrated value needs an explicit threshold.
    embedding_threshold: float | None = None

    # "cosine" compares embedding_threshold with every pair's cosine. "xling" scores Korean-English
    # pairs with the calibrated pair scorer of models/xling (USE cosine, hubness, numbers, Latin
    # tokens, names, length ratio, and a small MLP over the two USE vectors: docs/xling.md) and
    # thresholds its probability; same-language pairs keep the cosine threshold. It stays opt-in:
    # in the engine, on 1,500 sampled dev pairs per set (docs/xling.md, "In the engine"), no
    # threshold gains on every set (0.942: recall lower on all four sets; 0.860: precision lower
    # on Park, 0.913 vs 0.937, and KorSTS); the default changes only on a gain everywhere.
    embedding_scorer: str = "cosine"
    # None takes the scorer's packaged threshold, 0.942: the lowest with precision >= 0.99 on both
    # news sets' group-held-out folds (NTREX R 0.738, Park R 0.385, Tatoeba P 0.960 / R 0.590 there).
    # 0.860 is its issue-3 operating point (precision floors 0.97 news / 0.90 Tatoeba: R 0.883 /
    # 0.562 / 0.723); lower trades news precision for recall, higher the reverse.
    xling_threshold: float | None = None
    # Hits below this cosine are not shown to the learned scorer: at the packaged threshold no
    # dev translation pair below it was accepted, and it bounds the scorer's work per item.
    embedding_floor: float = 0.30
    # Slot-confirmed acceptance (issue 19): a Korean-English headline pair whose cosine is at
    # least this (and below the embedding threshold), that no stage proposed and every guard
    # lets through, is accepted when every slot aligns across the two languages and enough
    # values do (service/guards/confirm.py; slots.toml [confirm]). None takes the value
    # calibrated for the model (CALIBRATED_SLOT_CONFIRM_THRESHOLDS above); a model without one
    # has no confirmation, and so does any value at or above the embedding threshold.
    slot_confirm_threshold: float | None = None
    # The pair verifier (issue 35, models/verifier.py): a cross-encoder that reads both texts
    # together and gives P(same report). On, it decides every merge a stage proposes and the
    # guards let through, except identity (same URL, the exact stage's same normalised words):
    # P below verifier_threshold refuses the merge like a guard veto ("verifier: 0.12 < 0.68")
    # and the walk goes on to the next candidate. It also rescues Korean-English pairs the
    # embedding stage ranked below its threshold (see verifier_floor); with it on, that rescue
    # takes the place of the slot-confirmed band (slot_confirm_threshold), which it covers. Off
    # until the held-out figures of issue 35 are in: off, every decision is as without it.
    verifier: bool = False
    # None takes the artefact's threshold (meta["threshold"]: the lowest P(same) keeping precision
    # >= 0.99 on the out-of-fold news and synthetic same-words pairs of its training run). Higher:
    # fewer false merges, more copies kept apart (a translation or a rewrite scores lower than a
    # re-post); lower: perturbed headlines (role swaps, changed numbers) start to merge.
    verifier_threshold: float | None = None
    # The Korean-English rescue's floor: a pair in another language than the item, among the
    # embedding stage's top embedding_k hits, with cosine in [verifier_floor, embedding_threshold),
    # is read by the verifier (best cosine first; the first at or above verifier_threshold that
    # the guards let through is merged, stage "embedding"). 0.30 as embedding_floor: issue 35's
    # missed translations sit at cosine 0.44-0.53 (USE), and no dev translation pair the xling
    # scorer accepted lay below 0.30. Lower: more pairs read (cost: up to embedding_k verifier
    # pairs per item); higher: translations whose vectors disagree stay apart.
    verifier_floor: float = 0.30

    # Candidate window (seed 001: 7 days of history is what re-appears): items are compared
    # only with items published within this many days of each other.
    window_days: float = 7.0
    # Copy gap: a proposed copy published more than this many hours from the document it is
    # compared with (a copy group's anchor, its earliest member; any member for an exact copy) is
    # refused unless the two say the same words (same normalised title or whole text: an exact
    # copy stays a copy at any distance inside window_days). A headline that recurs a news cycle
    # later is most often another day's report ("Wall St opens lower after S&P's record close",
    # Monday; "Wall Street closes lower", Tuesday), and once it joins Monday's copy group its
    # story follows the group, so Tuesday's coverage gathers there too. Measured on the UCI dev
    # cluster file in the engine (file order): every one of the 83 joins more than 1 h from
    # their copy group's time span was to a group whose first item is in another gold story
    # (gold stories are crawl bursts of at most 1.2 minutes, 2.5 to 27 h apart), and story ARI
    # with the gap at 24 / 12 / 6 h: see docs/stories.md "Copies a news cycle apart". Longer:
    # next-day rewrites join the old copy group and its story; shorter: a wire story's
    # rewrites spread over a working day split into several copy groups (their story can still
    # join them). 0: no gap (the candidate window alone). No pair file carries times, so pair
    # evaluation does not move. A copy further than this from its anchor (the same words) counts
    # at the anchor's time in its story (Deduper._story_time; docs/stories.md "Re-runs").
    copy_gap_hours: float = 12.0
    # Warm restart (seed 001): load at most this much history, and give up after this many
    # seconds so a large store cannot stall start-up (dedup must never keep the service down).
    warmup_days: float = 7.0
    warmup_timeout_s: float = 30.0
    # A SQLite store's candidate state is saved beside it at a clean close (<db>.state.npz, about
    # 0.8 KB per document) and loaded at the next start if the store has not changed since
    # (service/snapshot.py): a 1M-document restart then loads instead of recomputing every
    # feature. Off: every start rebuilds from the store (bounded by warmup_timeout_s). It decides
    # no merge: a loaded state equals the rebuilt one (tests/service/test_snapshot.py).
    state_snapshot: bool = True
    # Checkpoints: the snapshot (and the vector index file) are also rewritten every this many
    # store changes while ingesting, so a restart after a crash loads the last checkpoint and
    # replays only the changes made since (the change feed other writers use), instead of
    # rebuilding the whole state or, past warmup_timeout_s, losing the older part of it.
    # Calibrated on the 1M-document benchmark store with the bundled encoder (bench/RESULTS.md,
    # "Restart after a crash"): the pair loads in ~11 s and the replay runs at ~3,800 documents/s
    # with vectors, so a 48k-change tail restarted in 22-25 s, inside the 30 s warm-up bound,
    # and a 101k-change one did not (38 s; cut at 30 s, the rest left to the first write). Higher:
    # longer replays after a crash. Lower: more checkpoints, each copying the state out in the
    # ingest call that triggers it (~1.5 s at 1M documents) before a background thread writes
    # ~0.7 KB per document. 0: only at a clean close. It decides no merge: a replayed state
    # equals the rebuilt one (tests/service/test_snapshot.py).
    snapshot_every: int = 50_000

    # Story level (issue 17, service/stories.py): a new copy group joins the open story whose
    # logistic story score (service.stories.STORY_WEIGHTS over centroid / nearest-member /
    # cross-language cosines, word and name overlap, time gap) is highest, if it reaches this.
    # Calibrated with `python -m eval.stories calibrate --folds 3 --grid 0.5,0.6,0.7 --train-orders
    # 11,12` (3 group folds over whole gold clusters of ../shared/eval-data/{uci-news-aggregator-
    # subset,ntrex128-kor-eng}/dev.clusters.jsonl, USE, fitted in file order and two shuffles):
    # the folds picked 0.6, 0.6, 0.7; refitted on all dev clusters, 0.7 has the best mean dev ARI
    # (file order UCI 0.868 / 0.858 / 0.846, NTREX 0.934 / 0.953 / 0.978 at 0.5 / 0.6 / 0.7).
    # Lower: stories absorb neighbouring events (NTREX: other outlets' articles on one event);
    # higher: updates and follow-ups split off. Only with STORY_WEIGHTS. In the engine (stories
    # hold whole copy groups, slot veto on, revision, SAMESTORY_BODY_PASSAGES=true) dev ARI is
    # UCI 0.756, NTREX 0.913 in file order (NTREX 0.973 once eval articles carry their bodies,
    # c57f25e). Re-tried after that in the whole engine (`SAMESTORY_STORY_THRESHOLD=t samestory
    # eval clusters FILE --level story`, file order; ParaKQC with --sample 600, as the report):
    #   0.6: UCI 0.784, NTREX 0.959, ParaKQC 0.592;  0.65: UCI 0.767, NTREX 0.979, ParaKQC 0.743;
    #   0.7: UCI 0.756, NTREX 0.973, ParaKQC 0.840 (the USE centroid stream: 0.801).
    # Below 0.7 different question sets of ParaKQC join one story and the story level no longer
    # beats the centroid baseline there, so 0.7 stays. Re-checked in the engine (`python -m eval.stories
    # order --engine`: the engine's copy groups replayed, file order and shuffles 1-3, both sets,
    # story_copy_vectors on): mean ARI 0.767 / 0.763 / 0.775 at 0.5 / 0.6 / 0.7 (UCI prefers 0.5,
    # NTREX's shuffles 0.7); weights refitted on the engine's copy groups (`calibrate --engine`)
    # gave no better whole-file ARI (UCI 0.787, NTREX 0.892 at 0.6), so both stay. The decision
    # still depends on arrival order (docs/stories.md, "Order").
    story_threshold: float = 0.7
    # A story is open to new copy groups while its latest member is at most this many days from
    # the item. Not calibrated on the dev files: every UCI dev gold story spans at most 1.2
    # minutes of timestamps (a crawl burst, not an event's coverage), and in the engine the
    # window hardly matters there (copy groups span bursts; replayed, 0.01 / 0.1 / 1.0 days:
    # ARI 0.783 / 0.783 / 0.784, docs/stories.md). Longer: a recurring topic (weekly jobs report)
    # can join last week's story; shorter: a slow story splits into several. Items without a
    # time get ingest time.
    story_window_days: float = 3.0
    # A different who, where or which keeps a new copy group out of a story it scores into
    # (service/guards/storyveto.py: the copy level's who/where/which slot guards, asked against
    # the story member nearest to the item, only when the two headlines share their frame but for
    # the clashing values; numbers never veto, updates change them). Needs the guards on.
    # Measured on the dev cluster files (docs/stories.md "The slot veto"; the file-order weights
    # before the order-trained refit): story decision alone,
    # UCI ARI 0.894 -> 0.864 (30 vetoes, 27 of them against a member of the same gold story:
    # Google News stories keep "Titanfall Review Roundup" and its PC-launch news together),
    # NTREX 1.000 -> 1.000; in the engine UCI 0.751 -> 0.744, NTREX 0.855 both ways. Off: "Biden meets Albanese in
    # Tokyo" joins "Biden meets Kishida"'s story.
    story_slot_veto: bool = True
    # Story membership is revisable (service.stories.StoryTracker.revise_around): after a new copy
    # group is placed, the groups of the stories around it move to a story they now fit better
    # (by 0.05 of score, above story_threshold) than their own without them, and a weakly placed
    # group pairs off with a closer partner placed earlier. Without it a group that arrived
    # before its closest partner keeps the weak story it joined (NTREX dev, story decision alone,
    # file order and shuffles 1-3: ARI 0.978 / 0.634 / 0.627 / 0.608 off, 0.978 / 0.852 / 0.774 /
    # 0.824 on; in the engine NTREX 0.858 both ways in file order, 0.59-0.60 -> 0.66-0.74 in
    # shuffles, UCI 0.755 -> 0.757; docs/stories.md "Order"). With it, a copy group whose second
    # member is a translation of its first rechecks its story (StoryTracker.recheck; NTREX
    # shuffles 1-3 in the engine, SAMESTORY_BODY_PASSAGES=true: see docs/stories.md "Order").
    # Off: every story decision is final
    # when made. Off as well while the store holds editors' corrections (a revision never undoes
    # an editor's split or merge).
    story_revise: bool = True
    # A copy that a cheap stage (exact, n-gram, MinHash) settled is embedded for its story
    # evidence too, so every member of a story brings its own vector to the centroid and the
    # kept members, as STORY_WEIGHTS were fitted (eval.stories streams every item with its
    # vector). It decides no copy-level merge (copy groups identical either way). Measured in the
    # engine (SAMESTORY_BODY_PASSAGES=true, UCI dev cluster file, file order / shuffles 1-3;
    # docs/stories.md "Copies' story vectors"): story ARI 0.756 / 0.756 / 0.738 / 0.715 off,
    # 0.773 / 0.742 / 0.732 / 0.711 on (mean 0.741 vs 0.739), for 4,449-4,453 encoder texts
    # instead of 3,360-3,383 in the shuffles; NTREX unchanged (every article is embedded for its
    # story anyway). A gain in file order only, at a third more encoder work, so off. On: such a
    # copy adds its vector to its story; off: it adds words and names but no vector.
    story_copy_vectors: bool = False

    embed_body_lead: bool = True
    # Bodies at ingest through the passage path (issue 18, service/passages.py): when the cascade
    # merges an article that has a body of two or more sentences with a document that has one
    # too, the merge stands only if the new body is a passage copy of that document's body (the
    # /v1/dedupe rule: exact, verified 5-gram Jaccard with no new word or number, or a sentence
    # alignment for a translation); otherwise it is vetoed (``blocked_by`` "body") and the
    # article starts a group of its own. So a republished story that adds paragraphs, or another
    # outlet's article on the same event under a near-identical headline, is kept apart:
    # over-splitting, never over-merging. On by default since the NTREX article clusters
    # (``ntrex128-kor-eng/dev.clusters.jsonl``: Korean article + English source, other outlets'
    # articles on one event apart) are a body-level gold set: with it on, story ARI in the engine
    # went 0.889 -> 0.913 there (90 -> 91 stories of 93 gold, code at b73d018; `samestory eval
    # clusters ... --level story`): the one merge it vetoes there is a false one, The Scotsman's
    # report of a football match (dev id scotsman.133791/en) joined to the BBC's report of the
    # same match (bbc.381746/en) by headline and lead at embedding cosine 0.818, which took two
    # gold stories into one. Turned off, such merges come back; articles without a body, or with
    # a one-sentence body, are decided as before either way. The passage thresholds are the
    # chunk-calibrated ones (eval/RESULTS.md, "RAG chunk dedupe"); each merge with two bodies
    # costs a passage comparison (and the encoder for a cross-lingual pair's sentences).
    body_passages: bool = True
    # How many FAISS hits per query are vetted against their cluster representatives.
    embedding_k: int = 8
    # Exact FlatIP search up to this many vectors, then an approximate index (see index.vectors).
    exact_until: int = 20_000
    model: str = "use"
    # A cache of embeddings shared by every process on one store (models/shared_cache.py), e.g.
    # redis://127.0.0.1:6379/0; None: each process keeps only its own LRU. It decides no merge:
    # a vector read back is the bytes the same model wrote for the same normalised text.
    embedding_cache: str | None = None
    url_rules: str | None = None
    rules_dir: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            self._check()
        except ConfigError:
            raise
        except (ValueError, TypeError) as exc:
            raise ConfigError(str(exc)) from None

    def _check(self) -> None:
        for name in ("ngram_threshold", "minhash_threshold", "minhash_lsh_threshold", "embedding_threshold",
                     "embedding_floor", "story_threshold", "slot_confirm_threshold", "verifier_threshold",
                     "verifier_floor"):
            value = getattr(self, name)
            if value is None and name in ("embedding_threshold", "slot_confirm_threshold", "verifier_threshold"):
                continue
            if not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value}")
        for name in ("window_days", "warmup_days", "warmup_timeout_s", "story_window_days", "copy_gap_hours"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.xling_threshold is not None and not 0.0 <= self.xling_threshold <= 1.0:
            raise ValueError(f"xling_threshold must be in [0, 1], got {self.xling_threshold}")
        if self.embedding_scorer not in ("xling", "cosine"):
            raise ValueError(f"embedding_scorer must be 'xling' or 'cosine', got {self.embedding_scorer!r}")
        if isinstance(self.snapshot_every, bool) or not isinstance(self.snapshot_every, int) or self.snapshot_every < 0:
            raise ValueError(f"snapshot_every must be an int >= 0 (0: only at a clean close), got {self.snapshot_every!r}")
        if self.embedding_k < 1:
            raise ValueError(f"embedding_k must be >= 1, got {self.embedding_k}")

    def for_model(self, model: str | None) -> EngineConfig:
        """This config with ``embedding_threshold`` resolved for ``model`` (an embedder name or spec).

        >>> EngineConfig().for_model("use").embedding_threshold
        0.625
        >>> EngineConfig(embedding_threshold=0.7).for_model("e5-small").embedding_threshold
        0.7
        """
        if model is None:
            return self
        cfg = self
        if cfg.slot_confirm_threshold is None and model in CALIBRATED_SLOT_CONFIRM_THRESHOLDS:
            cfg = cfg.replace(slot_confirm_threshold=CALIBRATED_SLOT_CONFIRM_THRESHOLDS[model])
        if cfg.embedding_threshold is not None:
            return cfg
        if model not in CALIBRATED_EMBEDDING_THRESHOLDS:
            raise ConfigError(
                f"no calibrated embedding threshold for model {model!r}: set embedding_threshold "
                "(SAMESTORY_EMBEDDING_THRESHOLD or [engine] in --config) after calibrating it, e.g. with "
                "`samestory eval sweep FILE --stage embedding`")
        return cfg.replace(embedding_threshold=CALIBRATED_EMBEDDING_THRESHOLDS[model])

    def replace(self, **changes: Any) -> EngineConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def load(cls, path: str | Path | None = None, *, env: Mapping[str, str] | None = None,
             **overrides: Any) -> EngineConfig:
        """Defaults, then a TOML file, then ``SAMESTORY_<FIELD>`` env vars, then ``overrides``.

        The file's ``[engine]`` table holds the fields (a file without one is read as a bare
        engine table, unless all it has is a ``[service]`` table). An unknown key or variable,
        or a value of the wrong type, is a :class:`ConfigError` naming it.
        """
        env = os.environ if env is None else env
        check_env(env)
        values: dict[str, Any] = {}
        names = _engine_fields()
        if path is not None:
            data = read_toml(Path(path))
            table = data["engine"] if "engine" in data else {k: v for k, v in data.items() if k != "service"}
            if not isinstance(table, dict):
                raise ConfigError(f"{path}: [engine] must be a table")
            for key, value in table.items():
                if key not in names:
                    raise ConfigError(f"unknown [engine] key {key!r} in {path}{suggest(key, names)}")
                values[key] = typed(cls, key, value, str(path))
        for name in names:
            raw = env.get(f"SAMESTORY_{name.upper()}")
            if raw is not None:
                values[name] = typed(cls, name, raw, "env")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def public(self) -> dict[str, Any]:
        """The configuration as logged at start-up (no secrets in it but a cache URL's password)."""
        out = dataclasses.asdict(self)
        if self.embedding_cache:
            from service.api.settings import redact_url

            out["embedding_cache"] = redact_url(self.embedding_cache)
        return out


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's tables; a missing or malformed file is a one-line :class:`ConfigError`."""
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path} is not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
