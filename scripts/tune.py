"""Coordinate search over the heuristic's weights: prints each improvement and writes the best
vector as a weights file (a policy: ``--policy best.toml``).

    python scripts/tune.py --base balanced --against greedy --games 4000 --out tuned.toml

Each candidate is scored by ``smsim.compare`` against the opponents (``--players`` seats: with
fewer policies than seats they are repeated to fill the table, in every rotation; with more, every
table of them), in blocks on the same seeds as every other candidate (common random numbers), so
differences come from the weights, not the dice. The score is the candidate's win share (a
shared win is split), printed with its 95% interval over blocks.
"""

from __future__ import annotations

import argparse

import numpy as np

from smsim.comparison import compare
from smsim.layout import PolicyKind
from smsim.policies.heuristics import PARAM_NAMES
from smsim.policies.registry import PolicySpec, resolve_policy

STEPS = {"lookahead": (0.0, 1.0)}


def win_share(candidate: PolicySpec, opponents: list[PolicySpec], games: int, seed: int, players: int
              ) -> tuple[float, float, float]:  # fmt: skip
    """The candidate's win share against the opponents, with its 95% interval (``compare``)."""
    row = compare([candidate, *opponents], players, games, seed, keep_games=False).table.loc[candidate.name]
    return float(row["win_share"]), float(row["win_lo"]), float(row["win_hi"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="balanced")
    parser.add_argument("--against", nargs="+", default=["greedy"])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="tuned.toml")
    parser.add_argument("--only", nargs="*", default=None, help="weights to search (default: all)")
    args = parser.parse_args()
    opponents = [resolve_policy(name) for name in args.against]
    params = resolve_policy(args.base).params.copy()
    names = args.only or [n for n in PARAM_NAMES]

    def spec(p: np.ndarray) -> PolicySpec:
        return PolicySpec("candidate", PolicyKind.HEURISTIC, p.copy())

    best, lo, hi = win_share(spec(params), opponents, args.games, args.seed, args.players)
    print(f"start: {best:.4f} [{lo:.4f}, {hi:.4f}]", flush=True)
    for rnd in range(args.rounds):
        for name in names:
            i = PARAM_NAMES.index(name)
            current = params[i]
            tries = STEPS.get(name) or sorted({round(current * f + d, 3) for f, d in
                                                ((0.0, 0.0), (0.5, 0.0), (1.5, 0.0), (2.0, 0.0), (1.0, 0.5))})
            for value in tries:
                if value == current:
                    continue
                trial = params.copy()
                trial[i] = value
                rate, lo, hi = win_share(spec(trial), opponents, args.games, args.seed, args.players)
                if rate > best + 0.004:
                    best, params = rate, trial
                    print(f"round {rnd}: {name} = {value}: {best:.4f} [{lo:.4f}, {hi:.4f}]", flush=True)
        with open(args.out, "w") as fh:
            fh.write(f"# scripts/tune.py --base {args.base} --against {' '.join(args.against)}: win share {best:.4f}\n")
            for j, name in enumerate(PARAM_NAMES):
                fh.write(f"{name} = {params[j]:.3f}\n")
    print(f"best: {best:.4f}; written to {args.out}")


if __name__ == "__main__":
    main()
