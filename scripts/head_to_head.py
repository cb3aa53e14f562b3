"""Head-to-head of policies: ``smsim.compare`` of them all, printed as the Markdown table of docs/policies.md.

    python scripts/head_to_head.py [--games 100000] [--players 4] [--policies random greedy ...] [--seed 2026]

Every policy sits in every seat equally and meets every other policy equally, each block of seat
arrangements on the same dice (``smsim compare``). Per policy: the win share (a shared win is
split) and mean VP with 95% intervals over blocks, the Plackett-Luce rating on the Elo scale,
mean VP by source (they sum to the mean VP) and cannons lost. The table goes to stdout; the games
played and the time taken to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time

import pandas as pd

from smsim.layout import PolicyKind
from smsim.policies.registry import POLICIES
from smsim.runs.dataset import vp_sources
from smsim.studies.compare import Comparison, compare

VP_SOURCES = vp_sources(seat_vp=False)  # head-to-head games use the printed rules: no seat compensation

SOURCE_HEADERS = ("earned in play", "churches", "coins", "logs", "full city", "cannons (VP)")  # VP_SOURCES' order


class SourceTally:
    """Mean VP by source per policy over every game ``compare`` plays (its ``on_games``), in
    memory that does not grow with the games."""

    def __init__(self) -> None:
        self.sums: pd.DataFrame | None = None

    def add(self, seats: pd.DataFrame, games: pd.DataFrame) -> None:
        part = seats.groupby("policy", observed=True)[list(VP_SOURCES)].sum()
        part["seats"] = seats.groupby("policy", observed=True).size()
        self.sums = part if self.sums is None else self.sums.add(part, fill_value=0)

    def means(self) -> pd.DataFrame:
        assert self.sums is not None
        return self.sums[list(VP_SOURCES)].div(self.sums["seats"], axis=0)


def markdown_table(result: Comparison, sources: pd.DataFrame) -> str:
    """The head-to-head as a Markdown table, strongest win share first."""
    lines = [
        "| policy | win share [95% CI] | mean VP [95% CI] | rating (Elo) | "
        + " | ".join(SOURCE_HEADERS)
        + " | cannons lost |",
        "|---|" + "---:|" * (4 + len(SOURCE_HEADERS)),
    ]
    for name, row in result.table.sort_values("win_share", ascending=False).iterrows():
        parts = " | ".join(f"{sources.loc[name, c]:.1f}" for c in VP_SOURCES)
        lines.append(
            f"| {name} | {100 * row.win_share:.1f}% [{100 * row.win_lo:.1f}, {100 * row.win_hi:.1f}] | "
            f"{row.vp_mean:.1f} [{row.vp_lo:.1f}, {row.vp_hi:.1f}] | {row.elo:.0f} | {parts} | "
            f"{row.cannons_lost:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="most games (rounded down to whole blocks)")
    parser.add_argument("--players", type=int, default=4)
    # the heuristics and random; the search policy is measured on its own (docs/policies.md), since a
    # table of every 4-subset would seat it in half the games at ~0.5 core-s each
    built_in = [name for name, spec in POLICIES.items() if spec.kind != PolicyKind.ROLLOUT]
    parser.add_argument("--policies", nargs="+", default=built_in)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    tally = SourceTally()
    start = time.perf_counter()
    result = compare(
        args.policies, args.players, args.games, args.seed, threads=args.threads, keep_games=False, on_games=tally.add
    )
    elapsed = time.perf_counter() - start
    played = result.blocks * result.games_per_block
    print(
        f"{played:,} games of {args.players} players in {elapsed:.0f} s ({played / elapsed:,.0f} games/s): "
        f"{result.blocks:,} blocks of {result.games_per_block} seat arrangements",
        file=sys.stderr,
    )
    print(markdown_table(result, tally.means()))


if __name__ == "__main__":
    main()
