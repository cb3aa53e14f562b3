"""The long runs behind the ladder of play, resumable across sittings (docs/ladder.md, "The long runs").

    python scripts/ladder_runs.py --hours 3             # go on where the last sitting stopped, for 3 hours
    python scripts/ladder_runs.py --status              # what is done, what is next
    python scripts/ladder_runs.py --scale 0.01 --runs /tmp/lr   # a quick rehearsal of every stage

Stages, each an ``smsim`` command that resumes where it stopped (its folder says how far it got),
in order; a sitting runs them until ``--hours`` is spent and says where it stopped:

1. **learn**: expert iteration goes on from the shipped model, ``smsim learn --base learned-exact``
   (its keeps exact), the teacher ``rollout`` over the student at the budget measured to be a
   step above it (``TEACHER``), 100,000 decisions a round, until two rounds in a row gain less
   than a point against three ``balanced`` (``--until-gain 1``). Its model, once done, is the
   student of the next stages (``RUNS/learn/model.json``); shipping it as ``learned`` is a
   reviewed commit, not this script's.
2. **choose**: the top rung, a search over the student, chosen by measurement on seeds of its own
   (``CHOOSE_SEED``): each candidate of ``CANDIDATES``, cheapest first (gated searches, then the
   teacher's search), against the student, head to head at 2 players, then at 4 where it cleared
   the bar at 2 (``smsim ladder --no-field``, ``CHOOSE_GAMES`` games a cell: the field is the report
   stage's); the first whose head-to-head low end clears parity + 2 points at both counts is the
   top rung (``RUNS/top.toml``, written when chosen).
3. **report**: ``smsim ladder`` on the reporting seed (``REPORT_SEED``, never used to choose) over
   the default rungs, the student and the top rung, with the check rung (the top rung at 4 times
   its budget, ``--check 4``, head to head only: ``--no-check-field``): every other step two ways,
   the top rung's cells ``TOP_GAMES`` games, the check rung's ``CHECK_GAMES``, and the depth.
4. **mirrors**: the top rung in every seat, ``MIRROR_GAMES`` per player count, in parts of 25 games.

Costs measured on the 2-core development machine: a ``rollout-learned`` seat about 1.3 core-s a
game at 2 players and 4 to 5 at 4, the learn round with this teacher about 2 parts a minute of 8
games on 2 busy cores (some 2 to 3 hours a round), both before the learned policy's units were
vectorised (2.3 times its games per second); since, a ``rollout-learned`` seat among three
``learned`` takes 1.0 core-s a game at 4 players where it took 2.2 (6 games, seed 99, one thread).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

SEED = 2037
CHOOSE_SEED = 4_370_001  # the candidates' games: chosen on these, reported on REPORT_SEED
REPORT_SEED = 4_370_002
# The teacher must be a step above the student, or a round teaches nothing. Measured head to head
# against the student's base, learned-exact (2 players, 400 games, seed 4,370,101, every seat
# rotation, common dice), rollout over it with every decision searched:
#   budget 192, place_budget 128, 10 candidates and cells, no gap   50.0% [45.9, 54.1]  -0.4 VP
#   budget 288, place_budget 144, 6 and 6, min_playouts 16           59.9% [55.9, 63.8]  +2.3 VP
#   budget 576, place_budget 288, 6 and 6, min_playouts 16           67.9% [64.2, 71.6]  +4.1 VP
# The first was the teacher of a round that gained -0.4 points [-1.0, +0.2] against the field; the
# last is the teacher now (about 3.3 core-s a game as one of two seats).
TEACHER = {"budget": 576, "place_budget": 288, "candidates": 6, "place_candidates": 6, "min_playouts": 16}
LEARN = [
    "--base",
    "learned-exact",
    "--decisions",
    "100000",
    "--iterations",
    "4",
    "--seed",
    str(SEED),
    "--until-gain",
    "1",
    *(a for k, v in TEACHER.items() for a in ("--knob", f"{k}={v}")),
]
# The top rung's candidates, cheapest first: rollout over the student. A gate of 0.03 (the
# student's units: win share plus a tenth of the VP margin) leaves a decision to the student where
# it leads every other move by that much; over round 1's student it halved the search's cost (4
# players, one searching seat among three of the student, 8 games, seed 99, 1 thread, core-s a
# game: budgets 128/64 0.78 gated, 1.39 not; 288/144 1.56 and 3.02). Gating held the strength of
# searching every decision over balanced (docs/policies.md); here the choose stage measures it.
GATE = 0.03
CANDIDATES = {
    "search-128g": {"budget": 128, "place_budget": 64, "clear_gap": GATE},
    "search-288g": {"budget": 288, "place_budget": 144, "min_playouts": 16, "clear_gap": GATE},
    "search-576g": {"budget": 576, "place_budget": 288, "min_playouts": 16, "clear_gap": GATE},
    "search-576": {"budget": 576, "place_budget": 288, "min_playouts": 16, "clear_gap": 0},
}
CHOOSE_GAMES = 1_000
# A search's step over the student is smallest at 2 players (rollout-learned over learned, seed 2126,
# 1,000 games a cell: +0.8 points [-1.6, +3.3] at 2 players, +3.4 [+1.2, +5.7] at 4), so a candidate
# is played at 2 players first and at 4 only where it clears the bar at 2; each count a folder.
CHOOSE_PLAYERS = (2, 4)
# The top rung's cells in the report play twice the choose stage's games: a candidate that only
# just cleared parity + 2 points on 1,000 games would clear it again on 1,000 fresh ones only
# about half the time, on 2,000 about four times in five. The check rung keeps the 1,000.
TOP_GAMES = 2_000
CHECK_GAMES = 1_000
MIRROR_GAMES = {2: 5_000, 3: 2_000, 4: 5_000, 5: 2_000}
CLEAR_BY = 0.02  # the top rung's head-to-head low end above parity by this much


def run(args: list[str], deadline: float | None) -> bool:
    """One smsim command until it ends or the deadline passes (it resumes next time); True if it ended."""
    left = None if deadline is None else deadline - time.time()
    if left is not None and left <= 60:
        return False
    print("$ smsim " + shlex.join(args), flush=True)
    try:
        subprocess.run([sys.executable, "-m", "smsim.cli", *args], check=True, timeout=left)
    except subprocess.TimeoutExpired:
        print("  stopped at the sitting's end: what is written stays, the next sitting goes on", flush=True)
        return False
    return True


def candidate_file(runs: Path, name: str, student: str) -> Path:
    """A candidate's rollout file over the student."""
    path = runs / "candidates" / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    knobs = CANDIDATES[name]
    path.write_text(
        "\n".join(['base = "rollout"', f'playout_policy = "{student}"', *(f"{k} = {v}" for k, v in knobs.items())])
        + "\n"
    )
    return path


def passes(folder: Path) -> bool | None:
    """Whether a candidate's ladder clears parity + CLEAR_BY head to head at every count (None:
    not played out yet)."""
    from smsim.studies.ladder import read_ladder

    result = read_ladder(folder)
    if not result.complete:
        return None
    return bool((result.steps["head_lo"] - result.steps["parity"] > CLEAR_BY).all())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", default="runs/ladder-runs", help="where the stages' folders go")
    parser.add_argument("--hours", type=float, default=None, help="stop after this long (every stage resumes)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the games and decisions (rehearsals)")
    parser.add_argument("--status", action="store_true", help="print what is done and stop")
    parser.add_argument(
        "--student",
        default=None,
        help="the student of the choose and report stages, a policy (e.g. learned: the shipped model, its rounds "
        "made one at a time by smsim learn --from learned); default: the learn stage's model",
    )
    args = parser.parse_args()
    runs = Path(args.runs)
    runs.mkdir(parents=True, exist_ok=True)
    deadline = None if args.hours is None else time.time() + args.hours * 3600

    def n(games: int) -> str:
        return str(max(1, int(games * args.scale)))

    learn = runs / "learn"
    learn_args = [a if a != "100000" else n(100_000) for a in LEARN]
    student = args.student or str(learn / "model.json")
    top = runs / "top.toml"
    stages = []
    if args.student is None and not Path(student).exists():
        stages.append("learn")
    elif not top.exists():
        stages.append("choose")
    else:
        stages.append("report")
    if args.status:
        print(
            json.dumps(
                {
                    "runs": str(runs),
                    "student": student if args.student or Path(student).exists() else None,
                    "top": top.read_text() if top.exists() else None,
                    "next": stages[0],
                },
                indent=1,
            )
        )
        return
    if "learn" in stages and not run(["learn", "--out", str(learn), *learn_args, "--quiet"], deadline):
        return
    if not top.exists():
        for name in CANDIDATES:  # cheapest first: the first that passes is the top rung
            path = candidate_file(runs, name, student)
            for players in CHOOSE_PLAYERS:  # the count where the step is smallest first: a miss there ends it
                folder = runs / f"choose-{name}-{players}p"
                if not run(
                    [
                        "ladder",
                        "--rungs",
                        f"{student},{path}",
                        "--players",
                        str(players),
                        "--games",
                        n(CHOOSE_GAMES),
                        "--seed",
                        str(CHOOSE_SEED),
                        "--no-field",
                        "--out",
                        str(folder),
                        "--quiet",
                    ],
                    deadline,
                ):
                    return
                if not passes(folder):
                    print(f"{name}: does not clear parity + 2 points at {players} players", flush=True)
                    break
            else:
                top.write_text(path.read_text())
                print(f"top rung: {name} ({top})", flush=True)
                break
        else:
            print("no candidate clears parity + 2 points at 2 and 4 players: add a stronger one to CANDIDATES")
            return
    from smsim.studies.ladder import DEFAULT_RUNGS

    rungs = [*DEFAULT_RUNGS[:-1], student, str(top)]
    caps = ["--cap", f"{top}={n(TOP_GAMES)}", "--cap", f"{top.stem}-x4={n(CHECK_GAMES)}"]
    if not run(
        [
            "ladder",
            "--rungs",
            ",".join(rungs),
            "--players",
            "2,4",
            "--games",
            n(4_000),
            *caps,
            "--check",
            "4",
            "--no-check-field",
            "--seed",
            str(REPORT_SEED),
            "--out",
            str(runs / "ladder"),
            "--quiet",
        ],
        deadline,
    ):
        return
    for players, games in MIRROR_GAMES.items():
        if not run(
            [
                "simulate",
                "--policy",
                str(top),
                "--players",
                str(players),
                "--games",
                n(games),
                "--batch",
                "25",
                "--seed",
                str(REPORT_SEED + players),
                "--out",
                str(runs / f"top-{players}p"),
                "--quiet",
            ],
            deadline,
        ):
            return
    print(f"every stage done: {runs}")


if __name__ == "__main__":
    main()
