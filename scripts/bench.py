"""Games per second of the jitted core, printed (never asserted): medians of several runs.

    python scripts/bench.py [--games N] [--runs K] [--players P ...] [--policy NAME ...]

Each figure plays N games of P players with one policy in every seat, on 1 thread and on all
cores, after a warm-up run that compiles (or loads from cache) the kernel.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba

from smsim.rules import Rules
from smsim.sim import run_games


def games_per_second(games: int, players: int, policy: str, threads: int, runs: int) -> tuple[float, list[float]]:
    numba.set_num_threads(threads)
    rates = []
    for r in range(runs):
        start = time.perf_counter()
        run_games(games, players, [policy], seed=r, rules=Rules())
        rates.append(games / (time.perf_counter() - start))
    return statistics.median(rates), rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, nargs="+", default=[4])
    parser.add_argument("--policy", nargs="+", default=["random", "greedy"])
    args = parser.parse_args()
    cores = numba.config.NUMBA_NUM_THREADS
    start = time.perf_counter()
    run_games(64, 2, ["random"], seed=0, rules=Rules())
    print(f"warm-up (compile or cache load): {time.perf_counter() - start:.2f} s; {cores} cores; "
          f"numba {numba.__version__}")  # fmt: skip
    print(f"{'players':>7} {'policy':>8} {'1 thread':>12} {f'{cores} threads':>12} {'scaling':>8}   (games/s, "
          f"median of {args.runs} runs of {args.games:,} games)")  # fmt: skip
    for players in args.players:
        for policy in args.policy:
            one, _ = games_per_second(args.games, players, policy, 1, args.runs)
            many, _ = games_per_second(args.games, players, policy, cores, args.runs)
            print(f"{players:>7} {policy:>8} {one:>12,.0f} {many:>12,.0f} {many / one:>7.2f}x")


if __name__ == "__main__":
    main()
