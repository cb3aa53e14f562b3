"""Every verdict of one balance report against another's (a regenerated report against the one
committed, say): the verdict columns of its tables, row by row, and the verdict sentences of its
Markdown (the findings, the wall-bonus sides), each counted settled or not settled.

    python scripts/verdicts_diff.py OLD_REPORT_DIR NEW_REPORT_DIR

Prints, per table with a ``verdict`` column, the rows in both and those whose verdict changed,
and names every figure that was settled in OLD and is not in NEW (a verdict lost). Exit status 1
where one was lost.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

NOT_SETTLED = "not settled"
KEYS = ("players", "figure", "item", "lower", "upper", "variant", "metric", "policy", "sides", "level")


def table_verdicts(folder: Path) -> dict[str, pd.DataFrame]:
    """Each table of the report with a verdict column, keyed by its rows' identifying columns."""
    out = {}
    for f in sorted((folder / "tables").glob("*.csv")):
        t = pd.read_csv(f)
        if "verdict" not in t:
            continue
        keys = [k for k in KEYS if k in t]
        out[f.stem] = t.assign(_key=t[keys].apply(lambda r: " | ".join(map(str, r)), axis=1))[["_key", "verdict"]]
    return out


def sentence_verdicts(folder: Path) -> dict[str, str]:
    """The sides-with-the-same-bonus lines of the Markdown: "N players, `policy`: left - right" to
    its verdict (worth the same, differs, not settled)."""
    md = (folder / "report.md").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"^- (\d players, `[^`]+`: \w+ - \w+) \([^\n]*?\): ([^.(]+)", md, re.M):
        out[m[1]] = m[2].strip()
    return out


def main(old: str | Path, new: str | Path) -> int:
    old, new = Path(old), Path(new)
    lost = []
    a, b = table_verdicts(old), table_verdicts(new)
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            print(f"{name}: only in {'the old' if name in a else 'the new'} report")
            continue
        both = a[name].merge(b[name], on="_key", suffixes=("_old", "_new"))
        changed = both[both["verdict_old"] != both["verdict_new"]]
        print(f"{name}: {len(both)} rows in both, {len(changed)} verdicts changed")
        for r in changed.itertuples():
            print(f"  {r._1}: {r.verdict_old} -> {r.verdict_new}")
            if r.verdict_old != NOT_SETTLED and r.verdict_new == NOT_SETTLED:
                lost.append(f"{name}: {r._1}")
    sa, sb = sentence_verdicts(old), sentence_verdicts(new)
    print(f"sides with the same bonus: {len(set(sa) & set(sb))} in both")
    for key in sorted(set(sa) & set(sb)):
        if sa[key] != sb[key]:
            print(f"  {key}: {sa[key]} -> {sb[key]}")
            if NOT_SETTLED not in sa[key] and NOT_SETTLED in sb[key]:
                lost.append(f"sides: {key}")
    for f in (old, new):
        md = (f / "report.md").read_text(encoding="utf-8")
        print(f"{f}: {md.count(NOT_SETTLED)} times 'not settled' in report.md")
    print(f"verdicts lost: {len(lost)}")
    for x in lost:
        print(f"  {x}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
