"""Korean headlines' one-character Hanja abbreviations, read in Hangul for the models.

Korean headlines write countries and institutions as single Hanja: "美연준", "日 닛케이지수",
"中, 美 반도체 수출규제에 보복", "北, 탄도미사일 발사", "전년比". The sentence encoder (USE) reads
them poorly against an English translation: "日 닛케이지수 5% 급락…엔화 강세 여파" and "Japan's
Nikkei plunges 5% as yen strengthens" score cosine 0.49, and 0.62 with "일본" written out
(research/notes/xling.md, "Hanja abbreviations"). :func:`read_hanja` writes them in Hangul for
what the encoder and the guards read (so "韓 여자골프" / "日 여자골프" is two countries to the
who and where guards); the stored text, the hashes, the n-grams and the pair verifier read the
headline as written.

Only a run of Hanja made wholly of these abbreviations is read ("韓美" -> "한국·미국"); a run
with another character is a word ("中企" 중소기업, "日本", "南北", "北極") and stays, as does a
character right after a digit ("3日": a date).

>>> read_hanja("日 닛케이지수 5% 급락…엔화 강세 여파")
'일본 닛케이지수 5% 급락…엔화 강세 여파'
>>> read_hanja("韓美 정상, 관세협상 타결"), read_hanja("中企 수출 3日 연속 증가")
('한국·미국 정상, 관세협상 타결', '中企 수출 3日 연속 증가')
>>> read_hanja("美연준, 기준금리 인상"), read_hanja("수출 전년比 5% 증가")
('미국 연준, 기준금리 인상', '수출 전년대비 5% 증가')
>>> read_hanja("가로등에 미(美)를 부여했다")  # a gloss: the Hangul word's own letters
'가로등에 미(美)를 부여했다'
>>> read_hanja("Fed raises rates")  # nothing to read: the same string
'Fed raises rates'
"""

from __future__ import annotations

import re

__all__ = ["HANJA_ABBREVIATIONS", "read_hanja"]

# The abbreviations Korean headlines use most, as Korean outlets write them out.
HANJA_ABBREVIATIONS: dict[str, str] = {
    "美": "미국", "中": "중국", "日": "일본", "韓": "한국", "北": "북한", "英": "영국", "佛": "프랑스",
    "獨": "독일", "露": "러시아", "伊": "이탈리아", "印": "인도", "濠": "호주", "豪": "호주", "加": "캐나다",
    "與": "여당", "野": "야당", "檢": "검찰", "靑": "청와대", "軍": "군", "前": "전", "現": "현", "比": "대비",
}
# A run of CJK ideographs (the basic block and extension A), not right after a digit nor a
# Hangul word's gloss in brackets ("미(美)를 부여했다": beauty, not America), and whether a word
# follows it at once ("美연준": written out with a space, "미국 연준").
_RUN_RE = re.compile(r"(?<!\d)(?<![\uac00-\ud7a3]\()([\u3400-\u4dbf\u4e00-\u9fff]+)(?=(\w)?)")
# Any character from U+3400 to U+9FFF: the test that a text may hold such a run (one regex scan,
# about a tenth of a per-character Python test; the same characters).
_MAY_HOLD_RE = re.compile("[\u3400-\u9fff]")


def _read(match: re.Match[str]) -> str:
    run = match.group(1)
    if any(c not in HANJA_ABBREVIATIONS for c in run):
        return run
    return "·".join(HANJA_ABBREVIATIONS[c] for c in run) + (" " if match.group(2) else "")


def read_hanja(text: str) -> str:
    """``text`` with each run of Hanja abbreviations written in Hangul (see the module)."""
    if _MAY_HOLD_RE.search(text) is None:
        return text
    return _RUN_RE.sub(_read, text)
