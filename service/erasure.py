"""Erasure (privacy): what ``Deduper.delete_document(id, erase=True)`` rewrites, beyond deletion.

The store blanks the document's own rows (``Store.erase_document``); this module says how a stored
decision that quotes its words is redacted, and which embedded texts to drop from the caches.
A decision keeps its stage, score, matched id, guard names and verdicts; what a guard found
(``guard who: 동해 == 동해``) and every quoted span become ``[erased]``, and so does any other word
of the erased document that is not a word of the reasons' own template (lower-case ASCII).

>>> words = erased_words(["Qorvex 동해 공장 화재", "Qorvex said the fire was out"])
>>> redact_decision({"stage": "ngram", "score": 0.8, "matched_id": 4, "reasons": [
...     "ngram: weighted 3-gram Jaccard 0.800 >= 0.5 (lead 'qorvex')", "guard who: 동해 == 동해; Qorvex == Qorvex",
...     "vetoed: number: 3 != 4; where"], "guards": [{"guard": "who", "evidence": "who: 동해 == 동해"}]}, words)
... # doctest: +NORMALIZE_WHITESPACE
{'stage': 'ngram', 'score': 0.8, 'matched_id': 4, 'reasons':
 ["ngram: weighted 3-gram Jaccard 0.800 >= 0.5 (lead '[erased]')", 'guard who: [erased]',
  'vetoed: number: [erased]; where'], 'guards': [{'guard': 'who', 'evidence': 'who: [erased]'}]}
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["ERASED", "erased_words", "redact_decision", "redact_text"]

ERASED = "[erased]"

_WORD = re.compile(r"\w+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|‘[^’]*’|“[^”]*”")
_GUARD = re.compile(r"^(guard [\w-]+): .*$", re.S)
_EVIDENCE = re.compile(r"^([\w-]+): .*$", re.S)
# The reasons' own words are lower-case ASCII (``exact: same normalised title as document 1``); an
# erased document's word of that shape outside a quote or a guard's finding is left, the rest goes.
_TEMPLATE = re.compile(r"[a-z]+")


def erased_words(texts: Iterable[str]) -> frozenset[str]:
    """The words (case-folded, two characters or more, not bare digits) of the erased texts."""
    out = set()
    for text in texts:
        for w in _WORD.findall(text or ""):
            if len(w) >= 2 and not w.isdigit():
                out.add(w.casefold())
    return frozenset(out)


def _has(text: str, words: frozenset[str]) -> bool:
    return any(w.casefold() in words for w in _WORD.findall(text))


def redact_text(text: str, words: frozenset[str]) -> str:
    """One reason or evidence string with the erased document's words taken out (see the module)."""
    guard = _GUARD.match(text)
    if guard:
        return f"{guard.group(1)}: {ERASED}"
    if text.startswith("vetoed: "):
        parts = text[len("vetoed: "):].split("; ")
        return "vetoed: " + "; ".join(_evidence(p) for p in parts)
    text = _QUOTED.sub(lambda m: f"'{ERASED}'" if _has(m.group(0), words) else m.group(0), text)
    return _WORD.sub(lambda m: ERASED if m.group(0).casefold() in words and not _TEMPLATE.fullmatch(m.group(0))
                     else m.group(0), text)


def _evidence(text: str) -> str:
    m = _EVIDENCE.match(text)
    return f"{m.group(1)}: {ERASED}" if m else text


def redact_decision(decision: dict[str, Any], words: frozenset[str]) -> dict[str, Any]:
    """A stored decision (``Decision.to_dict``) with what the erased document contributed redacted."""
    out: dict[str, Any] = {}
    for key, value in decision.items():
        if key == "guards" and isinstance(value, list):
            out[key] = [{**g, "evidence": _evidence(g["evidence"])} if isinstance(g, dict)
                        and isinstance(g.get("evidence"), str) else g for g in value]
        elif key == "reasons" and isinstance(value, list):
            out[key] = [redact_text(r, words) if isinstance(r, str) else r for r in value]
        else:
            out[key] = _redact_value(value, words)
    return out


def _redact_value(value: Any, words: frozenset[str]) -> Any:
    if isinstance(value, str):
        return redact_text(value, words) if _has(value, words) else value
    if isinstance(value, list):
        return [_redact_value(v, words) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, words) for k, v in value.items()}
    return value
