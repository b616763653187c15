"""Per-item features computed once at ingest and shared by every candidate finder and guard."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from index.text import (
    hash_normalized,
    lead_sentence,
    lead_token,
    ngrams_of_normalized,
    normalize,
    strip_outlet_suffix,
)


def gram_ids(grams: frozenset[str]) -> np.ndarray:
    """Stable 32-bit ids of n-grams (CRC-32), sorted and unique.

    Python's ``hash`` is salted per process, which would make a restarted engine decide
    differently; CRC-32 is the same everywhere. Collisions (~1 in 4 billion per pair of grams)
    only nudge a similarity score, never an exact-hash decision.
    """
    if not grams:
        return np.zeros(0, dtype=np.uint32)
    return np.unique(np.fromiter((zlib.crc32(g.encode("utf-8")) for g in grams), dtype=np.uint32, count=len(grams)))


def _key64(hex_digest: str) -> int:
    # 64 bits of SHA-256: a false exact match among 10^6 items has probability ~3e-8, and any
    # match is still vetted by the guards.
    return int(hex_digest[:16], 16) - (1 << 63)


# Characters of the body kept in memory: room for a headline line plus a long first sentence
# (body_lead reads at most 300 characters after the headline line).
BODY_KEEP = 2_000


@dataclass(frozen=True)
class ItemFeatures:
    """What the cheap passes and the guards need to know about one document version."""

    title: str
    body: str  # the body's opening only (BODY_KEEP characters): all the guards and the encoder read
    lang: str
    time: float  # published_at (or first observation) as epoch seconds
    norm_title: str
    title_key: int  # exact hash of the normalised title (outlet suffix removed)
    content_key: int  # exact hash of normalised title + body
    content_sha: str  # the full SHA-256 behind content_key: the version's identity in the store
    lead: str  # subject-gate bucket key (seed 000)
    grams: np.ndarray  # sorted uint32 ids of the title's character 3-grams

    @classmethod
    def build(cls, title: str, body: str, lang: str, time: float, *, ngram: int = 3) -> ItemFeatures:
        headline = strip_outlet_suffix(title) if title.strip() else lead_sentence(body)
        # Each text is normalised once: hashes and grams all derive from these two strings.
        norm_title = normalize(headline)
        norm_full_title = normalize(title) if headline != title else norm_title
        content_sha = hash_normalized(norm_full_title, normalize(body))
        return cls(
            title=title,
            # The candidate state keeps one of these per live document: a full article body
            # would dominate its memory, and only the opening is ever read again.
            body=body[:BODY_KEEP],
            lang=lang,
            time=time,
            norm_title=norm_title,
            title_key=_key64(hash_normalized(norm_title)),
            content_key=_key64(content_sha),
            content_sha=content_sha,
            lead=lead_token(headline),
            grams=gram_ids(ngrams_of_normalized(norm_title, ngram)),
        )

    @property
    def headline(self) -> str:
        return strip_outlet_suffix(self.title) if self.title.strip() else lead_sentence(self.body)

    def body_lead(self, max_chars: int) -> str:
        """The body's first sentence, skipping a first line that only repeats the title.

        Many feeds (and whole-article sources) start the body with the headline; its "lead"
        would then add nothing to the title.
        """
        if not self.body:
            return ""
        body = self.body.lstrip()
        first_line, _, rest = body.partition("\n")
        if rest.strip() and self.title.strip() and normalize(first_line) == normalize(self.title):
            body = rest
        return lead_sentence(body, max_chars)

    def guard_text(self, body_chars: int = 300) -> str:
        """Title plus the body's lead: what guards read for numbers, versions and dates."""
        return f"{self.title} {self.body_lead(body_chars)}".strip()

    def embed_text(self, with_body_lead: bool = True, body_chars: int = 200) -> str:
        """What the embedding stage encodes: the title, plus the body's first sentence."""
        if not self.title.strip():
            return lead_sentence(self.body, body_chars)
        lead = self.body_lead(body_chars) if with_body_lead else ""
        return f"{self.headline}. {lead}" if lead else self.headline
