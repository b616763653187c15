"""`samestory eval report` on an operator's own folder of labelled sets: the report names and
describes those sets from their files and says nothing of the public eval-data sets (their names,
README, holdout, links), which it did when it was written for the public dev sets only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from eval.cli import main
from eval.data import PUBLIC_SETS
from tests.paths import EVAL_DATA

# Made-up pairs and items, written for this test.
PAIRS = {
    "acme-wire": [("서울시, 내년 버스 요금 200원 인상", "ko", "서울시 내년부터 버스 요금 200원 올린다", "ko", 1),
                  ("한빛전자 3분기 영업이익 12% 증가", "ko", "한빛전자 3분기 영업이익 8% 감소", "ko", 0),
                  ("Seoul to raise bus fares by 200 won", "en", "서울시, 내년 버스 요금 200원 인상", "ko", 1)],
    "acme-en": [("Central bank holds key rate at 3.5%", "en", "Central bank keeps key rate at 3.5%", "en", 1),
                ("Storm closes schools on the coast", "en", "Storm closes ports on the coast", "en", 0)],
}
ITEMS = [("fare", "Seoul to raise bus fares by 200 won next year", "en"),
         ("fare", "서울시, 내년 버스 요금 200원 인상", "ko"),
         ("fire", "Fire at Daejeon apartment forces 30 residents out", "en"),
         ("fire", "대전 아파트 화재로 주민 30명 대피", "ko")]
# What only the public sets' report may say: their short names, README, holdout and the
# sections measured on them once (cross-lingual register, RAG chunks).
PUBLIC_WORDS = ("NTREX", "UCI", "Tatoeba", "PAWS", "Park", "KorSTS", "KLUE", "ParaKQC", "README", "holdout",
                "public set", "news sets", "★", "issue 8", "RAG chunk", "these dev rows")


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _own_folder(root: Path) -> Path:
    for name, pairs in PAIRS.items():
        _write(root / name / "dev.jsonl", [{"id": f"{name}/{i}", "a": {"text": a, "lang": la},
                                            "b": {"text": b, "lang": lb}, "label": y, "kind": "rewrite"}
                                           for i, (a, la, b, lb, y) in enumerate(pairs)])
    _write(root / "acme-stories" / "dev.clusters.jsonl",
           [{"id": f"c{i}", "cluster": c, "text": t, "lang": lang} for i, (c, t, lang) in enumerate(ITEMS)])
    return root


@pytest.mark.heavy
def test_report_on_own_sets_names_them_and_nothing_public(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = _own_folder(tmp_path / "labels"), tmp_path / "out"
    rc = main(["eval", "report", "--data", str(data), "--out", str(out), "--sample", "50", "--cluster-sample", "50",
               "--orders", "1", "--no-progress"])
    assert rc == 0 and f"wrote {out / 'RESULTS.md'}" in capsys.readouterr().out
    text = (out / "RESULTS.md").read_text(encoding="utf-8")
    # every set named, and described by what its files hold
    assert f"- Data: `{data}`, 3 sets of your own (described under \"Your sets\" from their files)." in text
    assert "| acme-wire | 3 | 2/1 | rewrite 3 | ko-ko 2, en-ko 1 | – | – | – |" in text
    assert "| acme-en | 2 | 1/1 | rewrite 2 | en-en 2 | – | – | – |" in text
    assert "| acme-stories | – | – | – | – | 4 | 2 | en 2, ko 2 |" in text
    assert "### acme-wire" in text and "| acme-stories | samestory stories |" in text
    assert "Gold: the files' clusters." in text
    assert f"python -m eval.stories engine --settle --data {data} --sets acme-stories" in text
    # nothing of the public sets, and no link but the report's own figures
    for name in PUBLIC_SETS:
        assert name not in text, name
    for word in PUBLIC_WORDS:
        assert word not in text, word
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links and all(link.startswith("figures/") and (out / link).is_file() for link in links), links
    sets = {s["name"]: s for s in json.loads((out / "results.json").read_text(encoding="utf-8"))["sets"]}
    assert sets["acme-en"]["public"] is False
    assert sets["acme-en"]["profile"] == {"pairs": 2, "positives": 1, "negatives": 1, "kinds": {"rewrite": 2},
                                          "langs": {"en-en": 2}}


@pytest.mark.heavy
@pytest.mark.skipif(not (EVAL_DATA / "tatoeba-kor-eng" / "dev.jsonl").is_file(), reason="eval-data not here")
def test_report_on_a_public_set_beside_ones_own_says_only_what_holds_for_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # one public set (its first 40 rows, copied at test time, never into the repository) beside one
    # of one's own: each is described in its own words, and the sections and caveats measured on
    # other public sets (NTREX, UCI, the RAG chunks) stay out
    data, out = _own_folder(tmp_path / "labels"), tmp_path / "out"
    rows = (EVAL_DATA / "tatoeba-kor-eng" / "dev.jsonl").read_text(encoding="utf-8").splitlines()[:40]
    (data / "tatoeba-kor-eng").mkdir()
    (data / "tatoeba-kor-eng" / "dev.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rc = main(["eval", "report", "--data", str(data), "--out", str(out), "--sample", "50", "--cluster-sample", "50",
               "--orders", "1", "--no-progress", "--sets", "tatoeba-kor-eng,acme-en"])
    assert rc == 0 and f"wrote {out / 'RESULTS.md'}" in capsys.readouterr().out
    text = (out / "RESULTS.md").read_text(encoding="utf-8")
    assert "the dev splits of 1 public set (see its README) and 1 set of your own" in text
    assert "| acme-en | 2 | 1/1 | rewrite 2 | en-en 2 | – | – | – |" in text
    assert "| tatoeba-kor-eng | 40 |" not in text  # a public set is described by its README, not profiled
    assert "### acme-en" in text and "### tatoeba-kor-eng" in text
    # the register of cross-lingual scorers was measured on Tatoeba (among others): it stays
    assert "## Cross-lingual scorers tried" in text
    for absent in ("## RAG chunk dedupe", "NTREX `xl_same_doc_negative`", "UCI stories are", "NTREX document"):
        assert absent not in text, absent
    assert "- Dev splits only; the 30 % holdout" in text and "- Sets of your own: a threshold" in text
