"""Head-to-head of policies at 4 players: every 4-policy table, each rotated through the seats.

    python scripts/head_to_head.py [--games 100000] [--policies random greedy ...] [--seed 1]

Prints, per policy, the win rate (shared wins count as wins) with its 95% Wilson interval, mean
VP with its interval, VP by source and cannons lost, as a Markdown table. Every policy sits in
every seat equally and meets every other policy equally.
"""

from __future__ import annotations

import argparse
import itertools
import time

import pandas as pd

from smsim.policies.registry import POLICIES
from smsim.sim import simulate
from smsim.stats import mean_interval, wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policies", nargs="+", default=list(POLICIES))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tables = [list(c) for c in itertools.combinations(args.policies, args.players)]
    per_table = max(1, args.games // (len(tables) * args.players))
    frames, first = [], 0
    start = time.perf_counter()
    for combo in tables:
        for shift in range(args.players):
            table = combo[shift:] + combo[:shift]
            seats, _ = simulate(per_table, args.players, table, seed=args.seed, first=first)
            frames.append(seats)
            first += per_table
    elapsed = time.perf_counter() - start
    seats = pd.concat(frames, ignore_index=True)
    n_games = first
    print(f"{n_games:,} games of {args.players} players in {elapsed:.0f} s ({n_games / elapsed:,.0f} games/s); "
          f"{len(tables)} tables x {args.players} seat rotations x {per_table} games\n")  # fmt: skip
    sources = ["earned", "church_vp", "coins_vp", "logs_vp", "full_city_vp", "cannon_vp"]
    print("| policy | seats | win rate [95% CI] | mean VP [95% CI] | earned in play | churches | coins | logs "
          "| full city | cannons | cannons lost |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for name, g in seats.groupby("policy", observed=True):
        lo, hi = wilson_interval(g["won"].sum(), len(g))
        mlo, mhi = mean_interval(g["total"].mean(), g["total"].std(ddof=1), len(g))
        rows.append((g["won"].mean(), name, g, lo, hi, mlo, mhi))
    for rate, name, g, lo, hi, mlo, mhi in sorted(rows, key=lambda r: -r[0]):
        parts = " | ".join(f"{g[c].mean():.1f}" for c in sources)
        print(f"| {name} | {len(g):,} | {100 * rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] | "
              f"{g['total'].mean():.1f} [{mlo:.1f}, {mhi:.1f}] | {parts} | {g['cannons_lost'].mean():.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
