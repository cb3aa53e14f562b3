"""Regenerate the committed report on how the game feels, reports/feel/ (docs/feel.md).

Plays, from fixed seeds apart from the baseline report's, with the standard rules:

- for 2, 3, 4 and 5 players and each level, L1 (``balanced``) and L2 (``learned``): ``FIT_GAMES``
  mirror games with round snapshots, on which ``smsim winprob`` fits the level's win-probability
  model (each dataset's every fifth game held out), and ``GAMES`` more on other seeds, the games
  the report's shape is read from, each under its own level's model;
- ``smsim luck learned balanced`` at 2 and 4 players (``LUCK_BLOCKS`` blocks of every rotation, 16
  samples a value, the default endgame, under the L1 model);
- ``smsim matters`` at L1 and L2 at 2, 3, 4 and 5 players, every part forbidden, ``MATTERS_GAMES``
  games a cell.

Then ``smsim report`` of the report's datasets, the luck matches and the what-matters study with
both models: the standard sections on the mirrors of both levels, and "How the game feels",
"Luck against skill" and "What matters". On 2 cores: 10 min 23 s with the L1 fit datasets and the
what-matters study already there (the 800,000 games of the shape with their snapshots 2 min, the
two models 1 min 15 s, the luck matches 4 min 20 s, the report 2 min 13 s); the study and those
datasets (960,000 and 160,000 games, not remade here) add some three minutes the first time. The
datasets go to runs/feel/ (not committed; a step whose result is there is skipped or resumes). The
report links the balance report (``--see-also``, reports/baseline), which links it back.

    python scripts/feel_report.py
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

PLAYERS = (2, 3, 4, 5)
FIT_GAMES = 40_000
GAMES = 100_000
# a level's policy: its datasets' prefix and the step of its seeds (the fit's; the games' the next)
LEVELS = {"balanced": ("", 0), "learned": ("l2-", 4)}
LUCK_PLAYERS = (2, 4)
LUCK_BLOCKS = 2_000
MATTERS_GAMES = 10_000
SEED = 3800  # + 10 x step + players: apart from the baseline report's (2026 + ...); luck step 2, matters 3


def run(args: list[str]) -> None:
    """Run one smsim command (printed first, its wall time after)."""
    print("$ smsim " + shlex.join(args), flush=True)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "smsim.cli", *args], check=True, stdout=subprocess.DEVNULL)
    print(f"  {time.perf_counter() - start:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="runs/feel", help="where the datasets go (not committed)")
    parser.add_argument("--out", default="reports/feel", help="where the report goes")
    parser.add_argument("--scale", type=float, default=1.0, help="every game count times this (a rehearsal: 0.05)")
    parser.add_argument(
        "--see-also", default="reports/baseline", help="the report to link from the first screen [reports/baseline]"
    )
    args = parser.parse_args()
    runs = Path(args.runs)

    def n(games: int) -> str:
        return str(max(10, round(games * args.scale)))

    start = time.perf_counter()
    models, shown = [], []
    for policy, (prefix, step) in LEVELS.items():
        for p in PLAYERS:
            for kind, games, seed in (
                ("fit", FIT_GAMES, SEED + 10 * step + p),
                ("games", GAMES, SEED + 10 * (step + 1) + p),
            ):
                path = runs / f"{prefix}{kind}{p}"
                shown += [str(path)] if kind == "games" else []
                if not path.is_dir():
                    run(
                        [
                            "simulate",
                            "-n",
                            n(games),
                            "-p",
                            str(p),
                            "--policy",
                            policy,
                            "--seed",
                            str(seed),
                            "--rounds",
                            "--out",
                            str(path),
                            "--quiet",
                        ]
                    )
        model = runs / f"winprob-{policy}.json"
        models += ["--winprob", str(model)]
        if not model.is_file():
            run(["winprob", *(str(runs / f"{prefix}fit{p}") for p in PLAYERS), "--out", str(model)])
    for p in LUCK_PLAYERS:
        run(
            [
                "luck",
                "learned",
                "balanced",
                "-p",
                str(p),
                "-n",
                n(LUCK_BLOCKS),
                "-s",
                str(SEED + 20 + p),
                "--model",
                str(runs / "winprob-balanced.json"),
                "--out",
                str(runs / f"luck{p}"),
            ]
        )
    run(
        [
            "matters",
            *(f"-p{p}" for p in PLAYERS),
            "-n",
            n(MATTERS_GAMES),
            "-s",
            str(SEED + 30),
            "--out",
            str(runs / "matters"),
        ]
    )
    run(
        [
            "report",
            *shown,
            *(str(runs / f"luck{p}") for p in LUCK_PLAYERS),
            str(runs / "matters"),
            *models,
            *(["--see-also", args.see_also] if args.see_also and Path(args.see_also, "report.md").exists() else []),
            "--title",
            "Saint Malo: how the game feels",
            "--out",
            args.out,
        ]
    )
    print(f"{time.perf_counter() - start:.0f} s in all; report: {args.out}/report.md", file=sys.stderr)


if __name__ == "__main__":
    main()
