"""Per-item features computed once at ingest and shared by every candidate finder and guard."""

from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass

import numpy as np

from index.hanja import read_hanja
from index.outlets import cut_outlet, strip_dateline
from index.text import (
    hash_normalized,
    lead_sentence,
    lead_token,
    ngrams_of_normalized,
    normalize,
    strip_outlet_suffix,
    unescape_html,
)

# Gram ids are a hash of the gram's code points: up to three code points (21 bits each) pack
# into 63 bits without loss (a shorter gram is padded with a value no code point takes), and a
# multiplicative (Fibonacci) hash keeps the top 32 bits. Python's ``hash`` is salted per
# process (a restarted engine would decide differently); this is the same everywhere. Two
# different grams share an id with probability ~2^-32, which only nudges a similarity score,
# never an exact-hash decision.
_CP_BITS = np.uint64(21)
_PAD = (1 << 21) - 1  # above U+10FFFF: no code point
_MAX_PACKED = 3
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _hash_packed(packed: np.ndarray) -> np.ndarray:
    return ((packed * _GOLDEN) >> np.uint64(32)).astype(np.uint32)


def _combine(columns: list[np.ndarray], k: int) -> np.ndarray:
    """Pack up to three uint64 code-point columns of length ``k`` into one uint64 per row,
    padding missing columns with ``_PAD``."""
    packed = np.zeros(k, dtype=np.uint64)
    for j in range(_MAX_PACKED):
        packed = (packed << _CP_BITS) | (columns[j] if j < len(columns) else np.uint64(_PAD))
    return packed


def _pack_rows(rows: np.ndarray) -> np.ndarray:
    """(k, w) code points, w <= 3 -> (k,) uint64, each row padded to three code points."""
    c = rows.astype(np.uint64)
    return _combine([c[:, j] for j in range(c.shape[1])], c.shape[0])


def _pack(cp: np.ndarray, n: int) -> np.ndarray:
    """Sliding windows of ``n`` (<= 3) code points, each packed into one uint64."""
    if cp.size <= n:  # the whole (short) text is the one gram
        return _pack_rows(cp.reshape(1, -1))
    # Column j of the windows is the 1-D slice c[j : j + k]: no (k, n) matrix is built.
    c = cp.astype(np.uint64)
    k = c.size - n + 1
    return _combine([c[j : j + k] for j in range(n)], k)


def gram_ids_of(norm: str, n: int = 3) -> np.ndarray:
    """Sorted unique ids of the character n-grams of an already normalised string.

    The same ids as ``gram_ids(ngrams_of_normalized(norm, n))``, computed without building the
    set of gram strings (one vectorised pass instead of a Python call per gram).

    >>> from index.text import ngrams_of_normalized
    >>> bool((gram_ids_of("스마트 돌봄") == gram_ids(ngrams_of_normalized("스마트 돌봄", 3))).all())
    True
    """
    if not norm:
        return np.zeros(0, dtype=np.uint32)
    if n > _MAX_PACKED:
        return gram_ids(ngrams_of_normalized(norm, n))
    return _sorted_unique(_hash_packed(_pack(np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32), n)))


def _sorted_unique(ids: np.ndarray) -> np.ndarray:
    # np.unique's generic machinery costs more than the sort itself on a title's few dozen ids.
    ids.sort()
    if ids.size > 1:
        keep = np.empty(ids.size, dtype=bool)
        keep[0] = True
        np.not_equal(ids[1:], ids[:-1], out=keep[1:])
        ids = ids[keep]
    return ids


def gram_ids(grams: frozenset[str]) -> np.ndarray:
    """Stable 32-bit ids of n-grams (see ``_hash_packed``), sorted and unique.

    Grams of up to three characters are packed losslessly before hashing, all grams of one
    length in one vectorised pass; longer ones (only with ``n > 3``) fall back to CRC-32 of
    their UTF-8 bytes.
    """
    if not grams:
        return np.zeros(0, dtype=np.uint32)
    by_len: dict[int, list[str]] = {}
    for g in grams:
        by_len.setdefault(len(g), []).append(g)
    parts = []
    for width, same in by_len.items():
        if width <= _MAX_PACKED:
            rows = np.frombuffer("".join(same).encode("utf-32-le"), dtype=np.uint32).reshape(len(same), width)
            parts.append(_hash_packed(_pack_rows(rows)))
        else:
            parts.append(np.fromiter((zlib.crc32(g.encode("utf-8")) for g in same), dtype=np.uint32, count=len(same)))
    return _sorted_unique(np.concatenate(parts))


def _key64(hex_digest: str) -> int:
    # 64 bits of SHA-256: a false exact match among 10^6 items has probability ~3e-8, and any
    # match is still vetted by the guards.
    return int(hex_digest[:16], 16) - (1 << 63)


_EMPTY_TITLE_KEY = _key64(hash_normalized(""))
_EMPTY_CONTENT_KEY = _key64(hash_normalized("", ""))

# How much of the body's lead sentence is kept: what ``guard_text`` reads (the encoder reads
# the first 200 of these characters). The rest of the body is never read after ingest.
LEAD_CHARS = 300


@dataclass(frozen=True, slots=True)
class ItemFeatures:
    """What the cheap passes and the guards need to know about one document version.

    The candidate state keeps one of these per live document, so it holds no full body: only
    the body's lead sentence (``LEAD_CHARS``), which is all the guards and the encoder read.
    """

    title: str
    body_lead_text: str  # the body's first sentence (<= LEAD_CHARS), a repeated headline line skipped
    lang: str
    time: float  # published_at (or first observation) as epoch seconds
    title_key: int  # exact hash of the normalised title (outlet suffix removed)
    content_key: int  # exact hash of normalised title + body
    content_sha: str  # the full SHA-256 behind content_key: the version's identity in the store
    lead: str  # subject-gate bucket key (seed 000)
    grams: np.ndarray  # sorted uint32 ids of the title's character 3-grams

    @classmethod
    def build(cls, title: str, body: str, lang: str, time: float, *, ngram: int = 3,
              content_sha: str | None = None, source: str | None = None, url: str | None = None) -> ItemFeatures:
        """Features of one version. ``content_sha``: the identity hash the store already holds
        for this version (warm restart), which spares normalising the whole body again.

        ``source`` and ``url`` tell the outlet: a headline tail that names it (or any outlet of
        ``index/outlets.txt``) is cut from ``title``, which the guards read, so "... | Yonhap
        News Agency" is never a "who" against "... - The Korea Herald". The identity hash
        (``content_sha``) still reads the title as given.
        """
        raw_title, raw_body = title, body
        # What the stages and guards read has its HTML references decoded; the identity hash
        # (``content_sha``) still reads the text as given.
        full_title, body = unescape_html(title), unescape_html(body)
        title = cut_outlet(full_title, source, url) if full_title.strip() else full_title
        headline = strip_outlet_suffix(title) if title.strip() else lead_sentence(strip_dateline(body))
        # Each text is normalised once: hashes and grams all derive from these strings.
        norm_title = normalize(headline)
        # The exact stage's title key reads the title with only a recognised outlet's tail cut
        # (``cut_outlet``: the item's source, its URL host, index/outlets.txt), not any short
        # " - ..." tail: "Apple unveils iPhone - live updates" and "... - analysis" are not one
        # normalised title (issue 36). The n-grams and the lead still read the shorter headline.
        norm_exact = normalize(title) if title.strip() else norm_title
        if content_sha is None:
            norm_full_title = normalize(raw_title) if headline != raw_title else norm_title
            content_sha = hash_normalized(norm_full_title, normalize(raw_body))
        return cls(
            title=title,
            # the decoded title, as the body is: a first line repeating the headline is skipped
            body_lead_text=_body_lead(full_title, body, LEAD_CHARS),
            # Interned: a language code or a subject-gate key is shared by many documents, and
            # one string object each cost ~50-60 bytes per document in the candidate state.
            lang=sys.intern(lang),
            time=time,
            title_key=_key64(hash_normalized(norm_exact)),
            content_key=_key64(content_sha),
            content_sha=content_sha,
            lead=sys.intern(lead_token(headline)),
            grams=gram_ids_of(norm_title, ngram),
        )

    @property
    def headline(self) -> str:
        return strip_outlet_suffix(self.title) if self.title.strip() else self.body_lead_text

    @property
    def empty(self) -> bool:
        """Nothing left to compare once normalised (no title, or only punctuation)."""
        # The normalised headline is gone; its hash tells whether it was empty.
        return self.title_key == _EMPTY_TITLE_KEY

    @property
    def exact_keys(self) -> tuple[int, ...]:
        """The exact stage's keys, whole text first, then title; a key of a text that normalises
        to nothing is left out: two texts with no words ("...!!!", zero-width spaces) are not
        copies of each other."""
        return tuple(k for k, none in ((self.content_key, _EMPTY_CONTENT_KEY), (self.title_key, _EMPTY_TITLE_KEY))
                     if k != none)

    def body_lead(self, max_chars: int) -> str:
        """The body's first sentence, at most ``max_chars`` (<= ``LEAD_CHARS``) characters."""
        if max_chars > LEAD_CHARS:
            raise ValueError(f"max_chars must be <= {LEAD_CHARS} (all that is kept), got {max_chars}")
        return self.body_lead_text[:max_chars]

    def guard_text(self, body_chars: int = 300) -> str:
        """Title plus the body's lead: what guards read for numbers, versions and dates."""
        return f"{self.title} {self.body_lead(body_chars)}".strip()

    def embed_text(self, with_body_lead: bool = True, body_chars: int = 200) -> str:
        """What the embedding stage encodes: the title, plus the body's first sentence, with
        headline Hanja read in Hangul (``index.hanja.read_hanja``: "美연준" as "미국 연준")."""
        if not self.title.strip():
            return read_hanja(self.body_lead(body_chars))
        lead = self.body_lead(body_chars) if with_body_lead else ""
        return read_hanja(f"{self.headline}. {lead}" if lead else self.headline)

    @property
    def embed_headline(self) -> str:
        """The headline as the encoder reads it alone (:meth:`embed_text` without a lead)."""
        return read_hanja(self.headline)


def _body_lead(title: str, body: str, max_chars: int) -> str:
    """The body's first sentence, skipping a first line that only repeats the title.

    Many feeds (and whole-article sources) start the body with the headline; its "lead"
    would then add nothing to the title.
    """
    if not body:
        return ""
    body = body.lstrip()
    first_line, _, rest = body.partition("\n")
    if rest.strip() and title.strip() and normalize(first_line) == normalize(title):
        body = rest
    # A dateline and byline ("(서울=연합뉴스) 홍길동 기자 =") say who filed the report: the
    # guards would read the reporter as a person in it, and the encoder as content.
    return lead_sentence(strip_dateline(body.lstrip()), max_chars)
