"""Regenerate the committed sample report, reports/baseline/ (``make report``).

Plays, from fixed seeds, with the standard rules:

- for 2, 3, 4 and 5 players, 150,000 games with ``balanced`` in every seat: the seat effect
  alone (is the start player advantaged?);
- for 2, 3, 4 and 5 players, ``smsim compare`` of every built-in heuristic (and ``random``) over
  about 112,000 games: every policy in every seat equally, on shared dice;
- for 4 players, ``--rollout-games`` games (default 2,000) with the search policy ``rollout`` in
  every seat: the stronger-play sample that the report's section "Under stronger play" sets
  beside the ``balanced`` mirror. It is by far the slowest step: about 2.4 s of one core a game;
- for 4 players, a one-at-a-time sweep of six rules fields (``SWEEP``, 50,000 ``balanced`` games
  per variant on common dice): the section "Rule variants", which rule moves the balance most;
- for 2, 3, 4 and 5 players, ``smsim fairness`` by coins and by VP (40,000 search games, checked
  on 100,000 held-out games): the section "Seat compensation".

about 1,700,000 heuristic games in all (and the fairness searches), then writes the report. The datasets go to runs/baseline/
(not committed; a run that is interrupted resumes where it stopped). Each step is an ``smsim``
command, printed before it runs and recorded in its dataset's manifest, so the report states how
it was made.

    python scripts/baseline_report.py                      # the committed report (about 40 min on 2 cores)
    python scripts/baseline_report.py --rollout-games 500  # a smaller stronger-play sample
    python scripts/baseline_report.py --scale 0.01         # a quick rehearsal into runs/baseline-small
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

PLAYERS = (2, 3, 4, 5)
MIRROR_GAMES = 150_000
COMPARE_GAMES = 112_000
ROLLOUT_GAMES = 2_000
ROLLOUT_PLAYERS = 4
ROLLOUT_BATCH = 50  # small parts: an interrupted run of this slow sample loses little
SEED = 2026
FAIRNESS_GAMES = 40_000
FAIRNESS_CHECK_GAMES = 100_000
SWEEP_PLAYERS = 4
SWEEP_GAMES = 50_000
SWEEP = (  # each field alone, on both sides of the printed value where it has two
    "side_defence=1,3",
    "soldier_defence=0,2",
    "rotation_cost=1,3",
    "cannon_penalty=3,7",
    "full_city_vp=0,10",
    "pirate_strengths=[1,3,6,8,9,10];[1,3,6,8,11,14]",
)


def run(args: list[str]) -> None:
    print("$ smsim " + shlex.join(args), flush=True)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "smsim.cli", *args], check=True, stdout=subprocess.DEVNULL)
    print(f"  {time.perf_counter() - start:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the games (rehearsals)")
    parser.add_argument("--runs", default=None, help="where the datasets go [runs/baseline]")
    parser.add_argument("--out", default=None, help="where the report goes [reports/baseline]")
    parser.add_argument("--rollout-games", type=int, default=ROLLOUT_GAMES,
                        help=f"games of the rollout mirror sample, before --scale [{ROLLOUT_GAMES:,}]")
    args = parser.parse_args()
    if args.rollout_games < 1:
        parser.error(f"--rollout-games must be at least 1, got {args.rollout_games}")
    small = args.scale != 1.0
    runs = Path(args.runs or ("runs/baseline-small" if small else "runs/baseline"))
    out = args.out or ("runs/baseline-small/report" if small else "reports/baseline")

    from smsim.policies.registry import POLICIES, PolicyKind

    # the search policy plays its own, far smaller sample below: in a compare of 112,000 games it
    # would take days
    builtins = [name for name, spec in POLICIES.items() if spec.kind != PolicyKind.ROLLOUT]
    datasets = []
    for p in PLAYERS:
        path = runs / f"mirror-{p}p"
        run(["simulate", "--games", str(max(1, int(MIRROR_GAMES * args.scale))), "--players", str(p),
             "--policy", "balanced", "--seed", str(SEED + p), "--out", str(path), "--quiet"])  # fmt: skip
        datasets.append(str(path))
    for p in PLAYERS:
        path = runs / f"compare-{p}p"
        if not (path / "manifest.json").exists():  # compare does not resume: play it once
            run(["compare", *builtins, "--players", str(p), "--games", str(max(1, int(COMPARE_GAMES * args.scale))),
                 "--seed", str(SEED + 10 + p), "--out", str(path)])  # fmt: skip
        datasets.append(str(path))
    games = max(1, int(args.rollout_games * args.scale))
    stronger = runs / f"rollout-{ROLLOUT_PLAYERS}p-{games}"  # the size in the name: a run of another size is another dataset
    run(["simulate", "--games", str(games), "--players", str(ROLLOUT_PLAYERS), "--policy", "rollout",
         "--seed", str(SEED + 20 + ROLLOUT_PLAYERS), "--out", str(stronger), "--batch", str(ROLLOUT_BATCH),
         "--quiet"])  # fmt: skip
    variants = runs / f"variants-{SWEEP_PLAYERS}p"
    run(["sweep", *(a for v in SWEEP for a in ("--vary", v)), "--one-at-a-time", "--players", str(SWEEP_PLAYERS),
         "--policy", "balanced", "--games", str(max(1, int(SWEEP_GAMES * args.scale))), "--seed",
         str(SEED + 30 + SWEEP_PLAYERS), "--out", str(variants), "--quiet"])  # fmt: skip
    datasets.append(str(variants))
    for p in PLAYERS:
        for by in ("coins", "vp"):
            path = runs / f"fairness-{p}p-{by}"
            if not (path / "fairness.json").exists():  # fairness does not resume: run it once
                run(["fairness", "--players", str(p), "--policy", "balanced", "--by", by, "--games",
                     str(max(1, int(FAIRNESS_GAMES * args.scale))), "--check-games",
                     str(max(1, int(FAIRNESS_CHECK_GAMES * args.scale))), "--seed", str(SEED + 40 + p),
                     "--out", str(path), "--quiet"])  # fmt: skip
            datasets.append(str(path))
    run(["report", *datasets, "--stronger", str(stronger), "--out", out, "--title",
         "Saint Malo balance report: baseline"])  # fmt: skip
    print(f"written: {out}/report.md and {out}/report.html")


if __name__ == "__main__":
    main()
