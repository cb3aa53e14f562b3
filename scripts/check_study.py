"""Check a study's verdicts against its own games: every headline figure recomputed from the
arms' Parquet chunks with plain numpy (not ``studies.study.figures_table``), its confidence
sequence and verdict derived again, and compared with ``figures.csv`` and with the report's lines.

    python scripts/check_study.py runs/my-rules

Prints one line per headline figure and exits 1 if any figure, bound or verdict differs.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from smsim.intervals import cs_half_width, margin_verdict
from smsim.studies.study import PRINTED, STUDY, read_study

SIDES = ("top", "right", "bottom", "left")


def chunks(path: Path, key: str) -> pd.DataFrame:
    files = sorted((path / "games" / key).glob("*.parquet"))
    frame = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True) if files else pd.DataFrame()
    return frame.drop_duplicates("game").set_index("game").sort_index() if len(frame) else frame


def contiguous(frame: pd.DataFrame) -> pd.DataFrame:
    """Games 0 .. n - 1 without a gap (what a study judges)."""
    games = frame.index.to_numpy()
    n = int(np.argmax(games != np.arange(len(games)))) if (games != np.arange(len(games))).any() else len(games)
    return frame.iloc[:n]


def per_game(path: Path, row, tag: str, plan) -> pd.Series:
    p, level = int(row.players), row.level
    if tag == PRINTED and level == plan.adapted_level:
        level = plan.levels[0]
    if row.figure == "skill_gap":
        return contiguous(chunks(path, f"{p}p-{level}-{tag}-skill"))["share"] - 1 / p
    mirror = contiguous(chunks(path, f"{p}p-{level}-{tag}-mirror"))
    if row.figure.startswith("bonus_"):
        denied = contiguous(chunks(path, f"{p}p-{level}-{tag}-bonus-{row.figure[6:]}"))
        both = denied.join(mirror, how="inner")
        seat = both["seat"].to_numpy(int)
        own = both[[f"win_seat_{s}" for s in range(p)]].to_numpy(float)[np.arange(len(both)), seat]
        return pd.Series(own - both["share"].to_numpy(float), index=both.index)
    return mirror[row.figure]


def main(folder: str) -> int:
    path = Path(folder)
    result = read_study(path)
    plan = result.plan
    table = pd.read_csv(path / "figures.csv")
    md = (path / "report" / "report.md").read_text(encoding="utf-8") if (path / "report" / "report.md").exists() else ""
    bad = 0
    for row in table[table["headline"]].itertuples():
        study = per_game(path, row, STUDY, plan).dropna()
        if row.kind == "change":
            printed = per_game(path, row, PRINTED, plan).dropna()
            both = pd.concat([study, printed], axis=1, join="inner").dropna()
            x = (both.iloc[:, 0] - both.iloc[:, 1]).to_numpy()
        else:
            x = study.to_numpy()
        mean, half = float(x.mean()), cs_half_width(float(x.std(ddof=1)), len(x))
        judged = "change" if row.kind == "change" else "study"
        verdict = margin_verdict(mean - half, mean + half, float(row.margin))
        same = (
            len(x) == row.games
            and math.isclose(mean, getattr(row, judged), rel_tol=1e-9, abs_tol=1e-12)
            and math.isclose(mean - half, getattr(row, f"{judged}_lo"), rel_tol=1e-9, abs_tol=1e-12)
            and verdict == row.verdict
        )
        bad += not same
        print(
            f"{'ok ' if same else 'BAD'} {row.players}p {row.level:>18} {row.figure:>24} {row.kind:>6}: "
            f"{mean:+.4f} ± {half:.4f} over {len(x):,} games -> {verdict}"
        )
    said = "settled" if (table[table["headline"]]["verdict"] != "not settled").all() else "not all settled"
    print(f"{len(table[table['headline']])} headline figures, {bad} differing; {said}; stopped: {result.stopped}")
    if md and plan.name and plan.name not in md:
        print("the report does not name the rules")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
