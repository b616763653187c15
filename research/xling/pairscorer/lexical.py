"""Cross-lingual (Korean/English) lexical evidence for a candidate pair.

Everything here is pure Python + regular expressions, deterministic and cheap
(tens of microseconds per pair), so it can run on every candidate pair the
embedding stage scores.

Signals (see :data:`LEXICAL_FEATURES` for the exact vector layout):

* numbers: numeric values on both sides, with Korean large-number units
  (``1억1천만`` = 110,000,000) and English scale words (``110 million``)
  normalised to one float, compared as sets with a small relative tolerance;
* Latin-script tokens inside the Korean side (``ASCI``, ``FIFA``, ``iPhone``)
  looked up in the English side;
* names in transliteration: Hangul is romanised (Revised Romanisation, per
  jamo) and both sides are reduced to a phonetic consonant skeleton
  (``마케도니아`` -> ``mkdn``, ``Macedonia`` -> ``mkdn``), then capitalised
  English tokens are looked for inside Korean words;
* length ratio (non-space characters) and question / exclamation mark agreement.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence

import numpy as np

__all__ = [
    "LEXICAL_FEATURES",
    "extract_numbers",
    "lexical_features",
    "romanize",
    "skeleton",
]

#: Column names of :func:`lexical_features`, in order.
LEXICAL_FEATURES: tuple[str, ...] = (
    "num_any",  # 1 if either side has a number
    "num_jaccard",  # |A∩B| / |A∪B| of numeric values (0 when no numbers)
    "num_unmatched",  # log1p(count of values present on one side only)
    "latin_frac",  # fraction of Latin tokens of the Korean side found in the English side
    "latin_unmatched",  # log1p(count of Latin tokens of the Korean side not found)
    "name_frac",  # fraction of capitalised English tokens found transliterated on the other side
    "name_unmatched",  # log1p(count of capitalised English tokens not found)
    "len_logratio",  # log((ko_chars+1)/(en_chars+1)), raw; the scorer centres it
    "punct_mismatch",  # count of {?, !} present on exactly one side
)

# ----------------------------------------------------------------------------
# numbers
# ----------------------------------------------------------------------------

_KO_BIG = {"조": 1e12, "억": 1e8, "만": 1e4}
_KO_SMALL = {"천": 1e3, "백": 1e2}
_EN_SCALE = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "bn": 1e9,
    "mn": 1e6,
    "m": 1e6,
    "k": 1e3,
}
_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
# Korean number expression: chunks of "<digits>?<unit>" with at least one digit, e.g. 1억1천만, 3만, 2.5조
_KO_EXPR = re.compile(rf"(?:(?:{_NUM})?\s?[조억만천백])+(?:\s?{_NUM})?|{_NUM}")
_KO_CHUNK = re.compile(rf"({_NUM})?\s?([조억만천백])|({_NUM})")
_EN_EXPR = re.compile(rf"({_NUM})\s?(hundred|thousand|million|billion|trillion|bn|mn|m|k)?\b", re.IGNORECASE)
# Korean words that start with a unit syllable but are not numbers (천천히, 만약, 백화점, 조사 ...):
# a unit only counts when a digit precedes it somewhere in the expression.
_HAS_DIGIT = re.compile(r"\d")


def _to_float(s: str) -> float:
    return float(s.replace(",", ""))


def _ko_value(expr: str) -> float | None:
    if not _HAS_DIGIT.search(expr):
        return None
    total, group = 0.0, 0.0
    for num, unit, bare in _KO_CHUNK.findall(expr):
        if bare:
            group += _to_float(bare)
        elif unit in _KO_SMALL:
            group += (_to_float(num) if num else 1.0) * _KO_SMALL[unit]
        else:  # big unit closes a group
            total += (group + (_to_float(num) if num else 0.0)) * _KO_BIG[unit]
            group = 0.0
    return total + group


def extract_numbers(text: str, lang: str) -> set[float]:
    """Numeric values mentioned in ``text``, scale words and Korean units applied.

    ``1992-1995`` gives {1992, 1995}; ``3.5%`` gives {3.5}; ``1억1천만`` gives {1.1e8};
    ``$110 million`` gives {1.1e8}. Values are rounded to 4 significant digits so that
    "1.1 billion" and "11억" compare equal.
    """
    vals: list[float] = []
    if lang == "ko":
        for m in _KO_EXPR.finditer(text):
            v = _ko_value(m.group(0))
            if v is not None:
                vals.append(v)
    else:
        for num, scale in _EN_EXPR.findall(text):
            v = _to_float(num)
            if scale:
                v *= _EN_SCALE[scale.lower()]
            vals.append(v)
    return {float(f"{v:.4g}") for v in vals}


# ----------------------------------------------------------------------------
# romanisation and phonetic skeletons
# ----------------------------------------------------------------------------

# Revised Romanisation of the jamo (initial / medial / final)
_INI = ["g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h"]
_MED = ["a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi",
        "yu", "eu", "ui", "i"]  # fmt: skip
_FIN = ["", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t",
        "t", "ng", "t", "t", "k", "t", "p", "t"]  # fmt: skip


def romanize(text: str) -> str:
    """Romanise Hangul syllables jamo by jamo (no sound-change rules); other chars pass through."""
    out: list[str] = []
    for ch in text:
        o = ord(ch)
        if 0xAC00 <= o <= 0xD7A3:
            s = o - 0xAC00
            out.append(_INI[s // 588] + _MED[(s % 588) // 28] + _FIN[s % 28])
        else:
            out.append(ch)
    return "".join(out)


_SK_RULES = [
    (re.compile(r"ph"), "p"),
    (re.compile(r"th"), "s"),
    (re.compile(r"ck"), "k"),
    (re.compile(r"[cq]"), "k"),  # soft c is handled by a second reading in _name_tokens
    (re.compile(r"x"), "ks"),
    (re.compile(r"f"), "p"),
    (re.compile(r"v"), "b"),
    (re.compile(r"z"), "j"),
    (re.compile(r"l"), "r"),
    (re.compile(r"[^a-z]|[aeiouyhw]"), ""),
    (re.compile(r"(.)\1+"), r"\1"),
]


def skeleton(word: str) -> str:
    """Phonetic consonant skeleton of a Latin (or already romanised) word.

    Collapses the main English/Korean transliteration differences (c/k, f/p, v/b,
    l/r, th/s, dropped vowels and h/w/y glides, doubled letters).
    """
    s = word.lower()
    for pat, rep in _SK_RULES:
        s = pat.sub(rep, s)
    return s


# ----------------------------------------------------------------------------
# tokens
# ----------------------------------------------------------------------------

_LATIN_TOK = re.compile(r"[A-Za-z][A-Za-z0-9\-'.&]*[A-Za-z0-9]|[A-Za-z]")
_HANGUL_WORD = re.compile(r"[가-힣]+")
_CAP_TOK = re.compile(r"(?<![A-Za-z'])[A-Z][a-zA-Z\-']+")
# Capitalised English words that are not names (sentence starts, titles, weekdays ...).
_NOT_NAMES = frozenset(
    """the a an and but or if in on at to of for by with from as it its he she they we you i this that
    these those there here what when where why who how mr mrs ms dr president minister monday tuesday
    wednesday thursday friday saturday sunday january february march april may june july august september
    october november december is are was were be not no yes after before while during his her their our
    my your one two three some all many most more new last first""".split()  # noqa: SIM905
)


def _name_tokens(en: str) -> list[tuple[str, str]]:
    """Skeleton readings of capitalised English tokens that look like names (>= 3 consonants)."""
    out = []
    for t in _CAP_TOK.findall(en):
        if t.lower() in _NOT_NAMES:
            continue
        w = t.split("'")[0]
        sk = skeleton(w)
        if len(sk) >= 3:
            # soft c (Francisco -> 프란시스코) vs hard c (Macedonia -> 마케도니아): try both readings
            out.append((sk, skeleton(re.sub(r"c(?=[eiy])", "s", w.lower()))))
    return out


_COLLAPSE = re.compile(r"(.)\1+")
# Consonant skeleton of every precomposed Hangul syllable (U+AC00..U+D7A3), built once on first use.
_SYL_SKEL: list[str] = []
# The table is built on first use, possibly by two threads at once (the HTTP service runs dedupe
# beside ingestion): it is built whole, then appended in one step, under a lock.
_SYL_SKEL_LOCK = threading.Lock()
_N_SYLLABLES = 11172


def _hangul_skeleton(word: str) -> str:
    """skeleton(romanize(word)) for an all-Hangul word, syllable by syllable (table lookup)."""
    if len(_SYL_SKEL) < _N_SYLLABLES:
        with _SYL_SKEL_LOCK:
            if not _SYL_SKEL:
                _SYL_SKEL.extend([skeleton(romanize(chr(0xAC00 + i))) for i in range(_N_SYLLABLES)])
    return _COLLAPSE.sub(r"\1", "".join(_SYL_SKEL[ord(c) - 0xAC00] for c in word))


def _ko_skeletons(ko: str) -> list[str]:
    return [_hangul_skeleton(w) for w in _HANGUL_WORD.findall(ko)]


def _nonspace_len(s: str) -> int:
    return sum(1 for c in s if not c.isspace())


def _punct_mismatch(a: str, b: str) -> int:
    """How many of {question mark, exclamation mark} occur on exactly one side (full-width too)."""
    return sum(1 for marks in ("?？", "!！") if any(m in a for m in marks) != any(m in b for m in marks))


def _pair_features(ko: str, en: str) -> list[float]:
    """Features for one (Korean, English) pair; see :data:`LEXICAL_FEATURES`."""
    na, nb = extract_numbers(ko, "ko"), extract_numbers(en, "en")
    union = na | nb
    inter = na & nb
    num_any = 1.0 if union else 0.0
    num_jac = len(inter) / len(union) if union else 0.0
    num_un = math.log1p(len(union) - len(inter))

    en_low = en.lower()
    en_words = set(re.findall(r"[a-z0-9]+", en_low))
    lat = [t for t in _LATIN_TOK.findall(ko) if len(t) >= 2]
    lat_hit = sum(1 for t in lat if t.lower() in en_low or t.lower().strip(".") in en_words)
    lat_frac = lat_hit / len(lat) if lat else 0.0
    lat_un = math.log1p(len(lat) - lat_hit)

    names = _name_tokens(en)
    if names:
        kos = _ko_skeletons(ko)
        # Latin tokens inside the Korean text also count as a transliteration of themselves
        kos += [skeleton(t) for t in lat]
        hit = sum(1 for n in names if any(n[0] in k or n[1] in k for k in kos))
        name_frac = hit / len(names)
        name_un = math.log1p(len(names) - hit)
    else:
        name_frac, name_un = 0.0, 0.0

    len_lr = math.log((_nonspace_len(ko) + 1) / (_nonspace_len(en) + 1))
    punct = _punct_mismatch(ko, en)
    return [num_any, num_jac, num_un, lat_frac, lat_un, name_frac, name_un, len_lr, float(punct)]


def _mono_features(a: str, b: str, lang: str) -> list[float]:
    """Same-language pair: numbers compared directly; transliteration slots neutral."""
    na, nb = extract_numbers(a, lang), extract_numbers(b, lang)
    union = na | nb
    inter = na & nb
    num_any = 1.0 if union else 0.0
    num_jac = len(inter) / len(union) if union else 0.0
    num_un = math.log1p(len(union) - len(inter))
    len_lr = 0.0  # centred value is added by the scorer
    punct = _punct_mismatch(a, b)
    return [num_any, num_jac, num_un, 0.0, 0.0, 0.0, 0.0, len_lr, float(punct)]


def lexical_features(
    a_texts: Sequence[str], b_texts: Sequence[str], a_langs: Sequence[str], b_langs: Sequence[str]
) -> np.ndarray:
    """(n, len(LEXICAL_FEATURES)) float32 lexical evidence for each pair.

    Cross-lingual pairs are oriented (Korean, English) whatever their order; for
    same-language pairs the transliteration columns are 0 and ``len_logratio`` is 0.
    """
    rows = []
    for a, b, la, lb in zip(a_texts, b_texts, a_langs, b_langs, strict=True):
        if la == lb:
            rows.append(_mono_features(a, b, la))
        elif la == "ko":
            rows.append(_pair_features(a, b))
        else:
            rows.append(_pair_features(b, a))
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), len(LEXICAL_FEATURES))
