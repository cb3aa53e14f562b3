"""A learned model against the shipped one, on held-out seeds: what shipping it as ``learned`` needs.

    python scripts/learned_check.py runs/learn-r3/model.json --seed 91000001
    python scripts/learned_check.py runs/learn-r3/model.json --against learned --games 20000 --h2h-games 8000

Prints, for the candidate and the model it would replace (``--against``, the shipped ``learned``
by default), each on the same games (common dice, every seat rotation):

- one seat against three ``balanced`` at 4 players (``--games``, seed ``--seed``): the win share
  with its 95% interval over blocks, and the paired difference candidate - against;
- head to head against ``balanced`` at 2 players (``--h2h-games``, seed ``--seed`` + 1), the same;
- the speed of a 4-player mirror of each on one thread, beside ``balanced``'s (games a second,
  ``--speed-games`` each, the best of three).

The seeds must be apart from those the model was trained and chosen on (smsim learn uses its
``--seed`` for the games, plus 7,800,001 for the gain games and its own offset for the selection
games: docs/policies.md); the default is one no learn plan uses.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from smsim.intervals import mean_and_interval
from smsim.policies.registry import resolve_policy
from smsim.rules import Rules
from smsim.runs.batch import run_games
from smsim.studies.compare import compare


def shares(policy: str, field: str, players: int, games: int, seed: int, threads: int | None) -> np.ndarray:
    """Each block's win share of the one seat of ``policy`` among ``players - 1`` of ``field``."""
    result = compare([policy, *[field] * (players - 1)], players, games, seed, threads=threads, keep_games=False)
    return result.block_shares[:, 0]


def row(label: str, blocks: np.ndarray) -> str:
    mean, lo, hi, n = mean_and_interval(blocks)
    return f"{label:<34} {100 * mean:6.2f}% [{100 * lo:6.2f}, {100 * hi:6.2f}]  ({n} blocks)"


def gain(label: str, a: np.ndarray, b: np.ndarray) -> str:
    mean, lo, hi, _ = mean_and_interval(a - b)
    return f"{label:<34} {100 * mean:+6.2f} points [{100 * lo:+6.2f}, {100 * hi:+6.2f}]"


def speed(policy: str, games: int) -> float:
    """The engine's games a second (``run_games``: no tables built), one thread, best of three."""
    run_games(8, 4, [policy], 4, Rules(), threads=1)  # compiled and warm
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        run_games(games, 4, [policy], 5, Rules(), threads=1)
        best = max(best, games / (time.perf_counter() - start))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate", help="a model file (or any policy)")
    ap.add_argument("--against", default="learned", help="the model it would replace [learned]")
    ap.add_argument("--field", default="balanced", help="the yardstick [balanced]")
    ap.add_argument("--games", type=int, default=20_000, help="4-player games, one seat against three")
    ap.add_argument("--h2h-games", type=int, default=8_000, help="2-player games head to head with the field")
    ap.add_argument("--speed-games", type=int, default=2_000, help="4-player mirror games a speed run")
    ap.add_argument("--seed", type=int, default=91_000_001)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    for ref in (args.candidate, args.against, args.field):
        resolve_policy(ref)  # a bad name fails here, before anything is played

    out: dict[str, object] = {"seed": args.seed, "games": args.games, "h2h_games": args.h2h_games}
    print(f"4 players, one seat against three {args.field}, {args.games} games, seed {args.seed}:")
    c4 = shares(args.candidate, args.field, 4, args.games, args.seed, args.threads)
    a4 = shares(args.against, args.field, 4, args.games, args.seed, args.threads)
    print(row("  candidate", c4))
    print(row(f"  {args.against}", a4))
    print(gain("  candidate - " + args.against, c4, a4))
    print(f"2 players, head to head with {args.field}, {args.h2h_games} games, seed {args.seed + 1}:")
    c2 = shares(args.candidate, args.field, 2, args.h2h_games, args.seed + 1, args.threads)
    a2 = shares(args.against, args.field, 2, args.h2h_games, args.seed + 1, args.threads)
    print(row("  candidate", c2))
    print(row(f"  {args.against}", a2))
    print(gain("  candidate - " + args.against, c2, a2))
    for key, blocks in (("four", (c4, a4)), ("two", (c2, a2))):
        out[key] = {
            name: dict(zip(("mean", "lo", "hi", "blocks"), mean_and_interval(b), strict=True))
            for name, b in zip(("candidate", "against"), blocks, strict=True)
        }
        out[key]["gain"] = dict(
            zip(("mean", "lo", "hi", "blocks"), mean_and_interval(blocks[0] - blocks[1]), strict=True)
        )
    if args.speed_games > 0:
        print(f"4-player mirrors on one thread, {args.speed_games} games, best of three (games/s):")
        rates = {
            name: speed(ref, args.speed_games)
            for name, ref in (("candidate", args.candidate), (args.against, args.against), (args.field, args.field))
        }
        for name, rate in rates.items():
            print(f"  {name:<32} {rate:8.0f}   {rate / rates[args.field]:.3f} of {args.field}")
        out["speed"] = rates
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
