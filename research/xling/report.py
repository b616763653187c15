"""Render the markdown tables of docs/xling.md from ``research.xling.train`` JSON reports.

python -m research.xling.report var/xling_report_use.json [var/xling_report_e5_tatoeba.json ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

_SHORT = {"ntrex128-kor-eng": "NTREX", "koen-news-park": "Park", "tatoeba-kor-eng": "Tatoeba"}


def cv_table(rep: dict) -> str:
    """Approach x set table of out-of-fold recall at precision 0.99 / 0.97 and at the shared threshold."""
    sets = [k for k in next(iter(rep["cv"].values())) if isinstance(next(iter(rep["cv"].values()))[k], dict)]
    head = ["approach"]
    for s in sets:
        n = _SHORT.get(s, s)
        head += [f"{n} R@P.99", f"{n} R@P.97"]
    head += ["thr P≥.99 all sets", "thr P≥.99 news"] + [f"{_SHORT.get(s, s)} P/R @news thr" for s in sets]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for a, row in rep["cv"].items():
        cells = [f"`{a}`"]
        for s in sets:
            cells += [f"{row[s]['recall_at_p99']:.3f}", f"{row[s]['recall_at_p97']:.3f}"]
        cells += [
            f"{row['shared_threshold_p99']:.3f}",
            f"{row.get('shared_threshold_p99_news', float('nan')):.3f}",
        ]
        key = "shared_p99_news" if "shared_p99_news" in row[sets[0]] else "shared_p99"
        cells += [f"{row[s][key][0]:.3f} / {row[s][key][1]:.3f}" for s in sets]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def issue3_table(rep: dict, key: str = "issue3_cosine") -> str:
    """Plain USE cosine: precision / recall per set at each candidate threshold."""
    t = rep[key]
    sets = list(t)
    head = ["USE cos ≥", *[f"{_SHORT.get(s, s)} P / R" for s in sets]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for th in t[sets[0]]:
        lines.append(
            "| " + " | ".join([th, *[f"{t[s][th][0]:.3f} / {t[s][th][1]:.3f}" for s in sets]]) + " |"
        )
    return "\n".join(lines)


def issue3_scorer_table(rep: dict) -> str:
    """Each approach at its lowest threshold meeting the issue-3 precision floors (out-of-fold)."""
    first = next(iter(rep["cv"].values()))
    sets = [k for k in first if isinstance(first[k], dict)]
    head = ["approach", "threshold", *[f"{_SHORT.get(s, s)} P / R" for s in sets]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for a, row in rep["cv"].items():
        cells = [f"`{a}`", f"{row['issue3_threshold']:.3f}"]
        cells += [f"{row[s]['issue3'][0]:.3f} / {row[s]['issue3'][1]:.3f}" for s in sets]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def check_table(rep: dict) -> str:
    """Check sets: plain cosine vs packaged scorer, precision / recall and share of negatives merged."""
    head = ["set", "kind", "pos/neg", "cos P / R", "cos neg merged", "scorer P / R", "scorer neg merged"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, kinds in rep.get("check_sets", {}).items():
        for kind, r in kinds.items():
            lines.append(
                f"| {name} | {kind} | {r['n_pos']}/{r['n_neg']} | {r['cos_PR'][0]:.3f} / {r['cos_PR'][1]:.3f} | "
                f"{r['cos_neg_merged']:.3f} | {r['scorer_PR'][0]:.3f} / {r['scorer_PR'][1]:.3f} | "
                f"{r['scorer_neg_merged']:.3f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    for path in argv if argv is not None else sys.argv[1:]:
        rep = json.loads(Path(path).read_text(encoding="utf-8"))
        print(f"## {path}\n")
        print(cv_table(rep), "\n")
        print(issue3_scorer_table(rep), "\n")
        if "issue3_cosine" in rep:
            print(issue3_table(rep), "\n")
            print(issue3_table(rep, "issue3_cosine_hard_random_only"), "\n")
        if rep.get("check_sets"):
            print(check_table(rep), "\n")


if __name__ == "__main__":
    main()
