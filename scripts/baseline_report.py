"""Regenerate the committed sample report, reports/baseline/ (``make report``).

Plays, from fixed seeds, with the standard rules, at three strengths of play (the ladder: L1
``balanced``, L2 ``learned``, L3 ``rollout-learned``, the search over the learned policy):

- for 2, 3, 4 and 5 players, 150,000 mirror games of L1 and of L2 (one policy in every seat):
  the seat effect alone and every headline figure at both levels;
- for 2, 3, 4 and 5 players, ``smsim bonus-value`` at L1 and L2: each wall bonus withheld from
  one seat in turn (1 + 4 x players setups), on the dice of the mirrors' games (the same seeds),
  ``BONUS_GAMES`` games a setup: about 9 minutes a level on 2 cores;
- for 2, 3, 4 and 5 players, mirror games of L3 (``SEARCH_GAMES``: 5,000 at 2 and 4 players,
  2,000 at 3 and 5; ``--search-games`` sets every count). By far the slowest step: about 1.3 s of
  one core a game at 2 players and 4 to 5 s at 4 (measured on this machine: 4 with a core to
  itself, 4.8 over the 4,075 games played on two busy cores), so about 7 to 8 core-hours at 2 and
  4 players and some 5 more at 3 and 5; small parts, so that an interrupted run loses little, and the
  report reads the parts finished so far (it says how many of the planned games it stands on);
- for 2, 3, 4 and 5 players, ``smsim compare`` of every built-in heuristic (and ``random``) over
  about 112,000 games: every policy in every seat equally, on shared dice;
- for 2, 3, 4 and 5 players, ``smsim skill``: the win-rate matrix of random, greedy, L1 and L2
  (and L3 at 2 players, at most ``SKILL_SEARCH_GAMES`` games a cell), 40,000 games a cell, and
  at 4 players the skill gap under every shipped variant and every variant of the sweep, paired
  on common dice;
- for 4 players (``SKILL_SEARCH_ALONE``), L3 against L2 head to head: a skill study of those two
  levels alone, ``SKILL_SEARCH_ALONE_GAMES`` games a cell (one L3 seat among three L2, and one L2
  seat among three L3), so that the report shows each level against the one below at 2 and at 4
  players. 4 search seats a game over the two cells, 1.6 core-s each at 4 players (31.7 core-s
  for 4 games a cell, two busy cores): about 17 core-minutes;
- for 4 players, a one-at-a-time sweep of six rules fields (``SWEEP``, 50,000 games per variant on
  common dice) with L1 and with L2 in every seat: the section "Rule variants" and whether a
  variant's effect holds at both levels, and with L1 adapted to each variant (``--adapt``: L1's
  weights tuned on the variant's own rules, ``ADAPT_BUDGET`` candidates of ``ADAPT_GAMES`` games), so
  that each effect is judged across three bots; and a sweep of every shipped variant (smsim/variants/) on
  the same dice, so that each has its balance figures;
- for 2, 3, 4 and 5 players, ``smsim fairness`` by coins and by VP (40,000 search games, checked
  on 100,000 held-out games): the section "Seat compensation";
- for 4 players, ``smsim regret`` (``REGRET_GAMES``, 4,000 mirror games each, seed 2120 =
  ``SEED + 94``): the keep regret against the exact keep of every built-in heuristic
  (``balanced-exact`` among them: 0 by construction), ``random``, ``learned`` and
  ``learned-exact``, into RUNS/regret-4p; cheap: under a minute of one core in all (measured:
  400 games of each of the 11, 4.8 s on 1 thread, ``--seed 2120``). Then the search (L3,
  ``rollout-learned``) one seat against three ``learned``, every seat in turn,
  ``REGRET_SEARCH_GAMES`` (40) games on seed 2125 = ``SEED + 99``, into RUNS/regret-4p-search: 1 to
  5 core-s a game, a few core-minutes. The section "Dice decisions"; each folder resumes policy by
  policy;
- ``smsim ladder`` of random, greedy with 80 to 15% of its decisions random, greedy, L1, L2 and L3
  at 2 and 4 players (``LADDER_GAMES``, 4,000 games a cell, seed 2126 = ``SEED + 100``), each rung's
  step over the one below head to head and against the fixed field, paired, with the depth; the
  cells with the search at most ``LADDER_SEARCH_GAMES`` (1,000, scaled with ``--scale``) games: 4
  cells of one search seat a game, about 0.65 core-s a game at 2 players and 1.2 at 4, so about an
  hour of one core; the heuristic cells a few core-minutes. Resumable chunk by chunk (a rerun plays
  only the missing chunks), into RUNS/ladder: the levels of play shown ordered.

The seeds of the two studies (2120, 2125, 2126) are apart from every other seed here (``SEED`` +
0, 10, 20, 30, 40, 60, 70 or 80, plus the players), so their games are not the games of any other study.

Then it writes the report. The datasets go to runs/baseline/ (not committed; every step resumes
or is skipped where its result is already there). Each step is an ``smsim`` command, printed
before it runs and recorded in its dataset's manifest, so the report states how it was made.

    python scripts/baseline_report.py                      # the committed report
    python scripts/baseline_report.py --search-games 500   # a smaller L3 sample
    python scripts/baseline_report.py --search-hours 1     # stop the L3 games after an hour, report what is done
    python scripts/baseline_report.py --scale 0.01         # a quick rehearsal into runs/baseline-small
    python scripts/baseline_report.py --report-only        # the report again from the datasets there

The report links the report on how the game feels (``--see-also``, reports/feel where it exists).
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

PLAYERS = (2, 3, 4, 5)
LADDER = ("balanced", "learned", "rollout-learned")  # L1, L2, L3: smsim.studies.skill.LADDER
MIRROR_GAMES = 150_000
COMPARE_GAMES = 112_000
SEARCH_GAMES = {2: 5_000, 3: 2_000, 4: 5_000, 5: 2_000}  # L3 mirrors per player count
SEARCH_PLAYERS = tuple(SEARCH_GAMES)
SEARCH_BATCH = 25  # small parts: an interrupted run of this slow sample loses little
SKILL_GAMES = 40_000
SKILL_LEVELS = ("random", "greedy", "balanced", "learned")
SKILL_SEARCH_PLAYERS = (2,)  # L3 in the matrix: one search seat a game, at 2 players only
SKILL_SEARCH_GAMES = 200
SKILL_SEARCH_ALONE = (4,)  # L3 against L2 alone (a study of its own: the full matrix would seat three L3 in 4 cells)
SKILL_SEARCH_ALONE_GAMES = 160  # a cell: 40 blocks of every seat rotation
SEED = 2026
# Games of each setup of the wall-bonus ablation, per level: each level about 9 minutes on 2 cores
# for the four player counts together (1 + 4 x players setups each). Measured on 2 busy cores,
# 300 (L1) and 60 (L2) games a setup: L1 9,500 / 6,650 / 5,400 / 4,300 games/s at 2 / 3 / 4 / 5
# players, L2 1,160 / 830 / 640 / 505, so 0.0109 s (L1) and 0.0916 s (L2) per game of every setup.
BONUS_GAMES = {"balanced": 50_000, "learned": 6_000}
FAIRNESS_GAMES = 40_000
FAIRNESS_CHECK_GAMES = 100_000
REGRET_PLAYERS = 4
REGRET_GAMES = 4_000  # a mirror a policy
REGRET_SEARCH_GAMES = 40  # one search seat against learned: 1 to 5 core-s a game
REGRET_SEED = SEED + 90 + REGRET_PLAYERS  # 2120
REGRET_SEARCH_SEED = SEED + 95 + REGRET_PLAYERS  # 2125
# the levels, with the rungs below them: random, greedy with 80 to 15% of its decisions random
# (studies.ladder.NOISY_RUNGS: the depth from random is then a figure, not a bound) and greedy
LADDER_RUNGS = (
    "random",
    "greedy-noise-80",
    "greedy-noise-60",
    "greedy-noise-45",
    "greedy-noise-30",
    "greedy-noise-15",
    "greedy",
    *LADDER,
)
LADDER_PLAYERS = (2, 4)
LADDER_GAMES = 4_000  # a cell
LADDER_SEARCH_GAMES = 1_000  # a cell with the search in it (--cap), before --scale
LADDER_SEED = SEED + 100  # 2126
SWEEP_PLAYERS = 4
SWEEP_GAMES = 50_000
# L1's weights tuned again on each variant's rules (studies.adapt): candidates, games a candidate
# (held out: 4 times that); each bot's tuning time is in its note (adapted-bots/*.json).
ADAPT_BUDGET = 96
ADAPT_GAMES = 1000
SWEEP = (  # each field alone, on both sides of the printed value where it has two
    "side_defence=1,3",
    "soldier_defence=0,2",
    "rotation_cost=1,3",
    "cannon_penalty=3,7",
    "full_city_vp=0,10",
    "pirate_strengths=[1,3,6,8,9,10];[1,3,6,8,11,14]",
)


TIMINGS: Path | None = None
"""Where each step's wall time is appended (``RUNS/timings.tsv``: UTC time, seconds, command), so
that a report made over several sittings can say what it took in all."""


REPORT_ONLY = False
"""``--report-only``: every step but the report skipped (its datasets read as they are)."""


def run(args: list[str], hours: float | None = None) -> None:
    """Run one smsim command; with ``hours``, stop it after that long (a resumable run keeps the
    parts it finished: the report reads them)."""
    if REPORT_ONLY and args[0] != "report":
        return
    print("$ smsim " + shlex.join(args), flush=True)
    start = time.perf_counter()
    try:
        subprocess.run(
            [sys.executable, "-m", "smsim.cli", *args],
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=None if hours is None else hours * 3600,
        )
    except subprocess.TimeoutExpired:
        print(f"  stopped after {hours:g} h: the parts finished so far stay", flush=True)
    seconds = time.perf_counter() - start
    print(f"  {seconds:.0f} s", flush=True)
    if TIMINGS is not None:
        TIMINGS.parent.mkdir(parents=True, exist_ok=True)
        with TIMINGS.open("a") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\t{seconds:.1f}\tsmsim {shlex.join(args)}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the games (rehearsals)")
    parser.add_argument("--runs", default=None, help="where the datasets go [runs/baseline]")
    parser.add_argument("--out", default=None, help="where the report goes [reports/baseline]")
    parser.add_argument(
        "--search-games",
        type=int,
        default=None,
        help="L3 mirror games at every player count, before --scale [5,000 at 2 and 4 players, 2,000 at 3 and 5]",
    )
    parser.add_argument(
        "--search-hours",
        type=float,
        default=None,
        help="stop the L3 games after this many hours in all (the report reads what is done)",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="write the report from the datasets there, playing nothing"
    )
    parser.add_argument(
        "--see-also",
        default="reports/feel",
        help="the report to link from the first screen (how the game feels, what matters) [reports/feel]",
    )
    args = parser.parse_args()
    if args.search_games is not None and args.search_games < 1:
        parser.error(f"--search-games must be at least 1, got {args.search_games}")
    if args.search_hours is not None and args.search_hours <= 0:
        parser.error(f"--search-hours must be above 0, got {args.search_hours}")
    small = args.scale != 1.0
    runs = Path(args.runs or ("runs/baseline-small" if small else "runs/baseline"))
    out = args.out or ("runs/baseline-small/report" if small else "reports/baseline")
    global TIMINGS, REPORT_ONLY
    TIMINGS = runs / "timings.tsv"
    REPORT_ONLY = args.report_only
    began = time.perf_counter()

    def n(games: int) -> str:
        return str(max(1, int(games * args.scale)))

    from smsim.policies.registry import POLICIES, PolicyKind
    from smsim.studies.sweep import named_variants

    # the heuristics compared: the learned policy and the searches are levels of the ladder, measured
    # by their own mirrors and the skill matrix (in a compare of 112,000 games a search would take days)
    builtins = [name for name, spec in POLICIES.items() if spec.kind in (PolicyKind.HEURISTIC, PolicyKind.RANDOM)]
    vary = [a for v in SWEEP for a in ("--vary", v)]

    def adapt(policy: str) -> list[str]:
        """L1's sweeps also play each variant with L1 adapted to it (``--adapt``): a third bot per effect."""
        if policy != LADDER[0]:
            return []
        return ["--adapt", "--adapt-budget", str(ADAPT_BUDGET), "--adapt-games", str(ADAPT_GAMES)]

    datasets = []
    for p in PLAYERS:  # L1 and L2 mirrors
        for level, (name, offset) in enumerate((("mirror", 0), ("learned", 60))):
            path = runs / f"{name}-{p}p"
            run(
                [
                    "simulate",
                    "--games",
                    n(MIRROR_GAMES),
                    "--players",
                    str(p),
                    "--policy",
                    LADDER[level],
                    "--seed",
                    str(SEED + offset + p),
                    "--out",
                    str(path),
                    "--quiet",
                ]
            )
            datasets.append(str(path))
    for p in PLAYERS:  # the wall-bonus ablations at L1 and L2, on the mirrors' seeds: the same dice
        for level, offset in ((0, 0), (1, 60)):
            path = runs / f"bonus-{p}p-L{level + 1}"
            run(
                [
                    "bonus-value",
                    "--players",
                    str(p),
                    "--policy",
                    LADDER[level],
                    "--games",
                    n(BONUS_GAMES[LADDER[level]]),
                    "--seed",
                    str(SEED + offset + p),
                    "--out",
                    str(path),
                    "--quiet",
                ]
            )
            datasets.append(str(path))
    for p in PLAYERS:
        path = runs / f"compare-{p}p"
        if not (path / "manifest.json").exists():  # compare does not resume: play it once
            run(
                [
                    "compare",
                    *builtins,
                    "--players",
                    str(p),
                    "--games",
                    n(COMPARE_GAMES),
                    "--seed",
                    str(SEED + 10 + p),
                    "--out",
                    str(path),
                ]
            )
        datasets.append(str(path))
    for policy, suffix in ((LADDER[0], ""), (LADDER[1], "-learned")):
        path = runs / f"variants-{SWEEP_PLAYERS}p{suffix}"
        run(
            [
                "sweep",
                *vary,
                "--one-at-a-time",
                "--players",
                str(SWEEP_PLAYERS),
                "--policy",
                policy,
                "--games",
                n(SWEEP_GAMES),
                "--seed",
                str(SEED + 30 + SWEEP_PLAYERS),
                *adapt(policy),
                "--out",
                str(path),
                "--quiet",
            ]
        )
        datasets.append(str(path))
    shipped = [a for v in named_variants() for a in ("--variant", v)]  # every shipped variant: its balance figures
    for policy, suffix in ((LADDER[0], ""), (LADDER[1], "-learned")):  # the one-at-a-time sweep's seed: its dice
        path = runs / f"shipped-{SWEEP_PLAYERS}p{suffix}"
        run(
            [
                "sweep",
                *shipped,
                "--players",
                str(SWEEP_PLAYERS),
                "--policy",
                policy,
                "--games",
                n(SWEEP_GAMES),
                "--seed",
                str(SEED + 30 + SWEEP_PLAYERS),
                *adapt(policy),
                "--out",
                str(path),
                "--quiet",
            ]
        )
        datasets.append(str(path))
    for p in PLAYERS:
        levels = [*SKILL_LEVELS, *(LADDER[2:] if p in SKILL_SEARCH_PLAYERS else ())]
        extra = ["--cap", f"{LADDER[2]}={n(SKILL_SEARCH_GAMES)}"] if p in SKILL_SEARCH_PLAYERS else []
        if p == SWEEP_PLAYERS:  # the skill gap under every shipped variant and every variant of the sweep
            extra += [*vary, *(a for v in named_variants() for a in ("--variant", v))]
        path = runs / f"skill-{p}p"
        run(
            [
                "skill",
                "--players",
                str(p),
                "--levels",
                ",".join(levels),
                "--games",
                n(SKILL_GAMES),
                "--seed",
                str(SEED + 70 + p),
                *extra,
                "--out",
                str(path),
                "--quiet",
            ]
        )
        datasets.append(str(path))
    for p in SKILL_SEARCH_ALONE:  # L3 against L2 head to head where the full matrix leaves L3 out
        path = runs / f"skill-{p}p-search"
        run(
            [
                "skill",
                "--players",
                str(p),
                "--levels",
                ",".join(LADDER[1:]),
                "--games",
                n(SKILL_SEARCH_ALONE_GAMES),
                "--seed",
                str(SEED + 80 + p),
                "--out",
                str(path),
                "--quiet",
            ]
        )
        datasets.append(str(path))
    for p in PLAYERS:
        for by in ("coins", "vp"):
            path = runs / f"fairness-{p}p-{by}"
            if not (path / "fairness.json").exists():  # fairness does not resume: run it once
                run(
                    [
                        "fairness",
                        "--players",
                        str(p),
                        "--policy",
                        "balanced",
                        "--by",
                        by,
                        "--games",
                        n(FAIRNESS_GAMES),
                        "--check-games",
                        n(FAIRNESS_CHECK_GAMES),
                        "--seed",
                        str(SEED + 40 + p),
                        "--out",
                        str(path),
                        "--quiet",
                    ]
                )
            datasets.append(str(path))
    # the keep regret of every built-in but the searches, mirrors (cheap), then of the search, one seat among learned
    judged = [*builtins, "learned", "learned-exact"]
    regret = runs / f"regret-{REGRET_PLAYERS}p"
    run(
        [
            "regret",
            *judged,
            "--players",
            str(REGRET_PLAYERS),
            "--games",
            n(REGRET_GAMES),
            "--seed",
            str(REGRET_SEED),
            "--out",
            str(regret),
            "--quiet",
        ]
    )
    studies = [str(regret)]
    regret = runs / f"regret-{REGRET_PLAYERS}p-search"
    run(
        [
            "regret",
            LADDER[2],
            "--against",
            LADDER[1],
            "--players",
            str(REGRET_PLAYERS),
            "--games",
            n(REGRET_SEARCH_GAMES),
            "--seed",
            str(REGRET_SEARCH_SEED),
            "--out",
            str(regret),
            "--quiet",
        ]
    )
    studies.append(str(regret))
    start = time.perf_counter()

    def time_left(steps_left: int) -> float | None:
        """With --search-hours, the hours left shared out over the slow steps still to run."""
        if args.search_hours is None:
            return None
        return (args.search_hours - (time.perf_counter() - start) / 3600) / steps_left

    slow = 1 + len(SEARCH_PLAYERS)  # the ladder, then the L3 mirrors
    ladder = runs / "ladder"  # the levels shown ordered: every step both ways, the depth
    left = time_left(slow)
    if left is None or left > 0:
        run(
            [
                "ladder",
                "--rungs",
                ",".join(LADDER_RUNGS),
                "--players",
                ",".join(map(str, LADDER_PLAYERS)),
                "--games",
                n(LADDER_GAMES),
                "--cap",
                f"{LADDER[2]}={n(LADDER_SEARCH_GAMES)}",
                "--seed",
                str(LADDER_SEED),
                *(["--hours", f"{left:.4f}"] if left is not None else []),
                "--out",
                str(ladder),
                "--quiet",
            ]
        )
    if (ladder / "ladder.json").exists():
        studies.append(str(ladder))
    for p in SEARCH_PLAYERS:  # L3 last: the slowest, and the report reads what is done
        path = runs / f"search-{p}p"
        left = time_left(slow - 1 - SEARCH_PLAYERS.index(p))
        if left is None or left > 0:
            run(
                [
                    "simulate",
                    "--games",
                    n(args.search_games or SEARCH_GAMES[p]),
                    "--players",
                    str(p),
                    "--policy",
                    LADDER[2],
                    "--seed",
                    str(SEED + 20 + p),
                    "--out",
                    str(path),
                    "--batch",
                    str(SEARCH_BATCH),
                    "--quiet",
                ],
                left,
            )
        if (path / "manifest.json").exists():
            datasets.append(str(path))
    linked = ["--see-also", args.see_also] if args.see_also and Path(args.see_also, "report.md").exists() else []
    run(["report", *datasets, *studies, *linked, "--out", out, "--title", "Saint Malo balance report: baseline"])
    print(
        f"written: {out}/report.md and {out}/report.html ({time.perf_counter() - began:.0f} s in all; every "
        f"step's time, this sitting's and earlier ones', in {TIMINGS})"
    )


if __name__ == "__main__":
    main()
