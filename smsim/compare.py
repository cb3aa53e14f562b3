"""Comparisons of policies free of seat bias, with common random numbers (``smsim compare``).

A *block* is one deal of the dice (one game key) played once per seat arrangement:

- K policies for P seats, K == P: every permutation of the policies over the seats (P! games);
- K < P: the policies repeated to fill the table, every cyclic rotation of it (P games);
- K > P: every P-subset of the policies, each in every cyclic rotation.

Every policy therefore sits in every seat equally, on the same dice as its rivals. Statistics
are computed per block (a policy's share of the block's wins, its mean VP in the block), and
blocks are independent, so the 95% intervals are normal intervals over blocks: honest even
though the games within a block are strongly correlated. Ratings are Plackett-Luce strengths
fitted to every game's final ranking (``smsim.ratings``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim.dataset import game_table, seat_table
from smsim.policies.registry import PolicySpec, resolve_policy
from smsim.ratings import Ratings, fit_plackett_luce
from smsim.rules import Rules
from smsim.sim import SimulationError, run_games, verify_games, verify_players
from smsim.stats import Z_95


def arrangements(names: list[str], players: int) -> list[list[int]]:
    """Seat arrangements of one block, as indices into ``names``."""
    k = len(names)
    if k == players:
        return [list(p) for p in itertools.permutations(range(k))]
    if k < players:
        base = [i % k for i in range(players)]
        return [base[r:] + base[:r] for r in range(players)]
    out = []
    for subset in itertools.combinations(range(k), players):
        out.extend(list(subset[r:]) + list(subset[:r]) for r in range(players))
    return out


@dataclass
class Comparison:
    """What ``compare`` found: per policy, per pair of policies, ratings, and the raw games."""

    table: pd.DataFrame  # per policy: blocks, win share and its interval, mean VP and its interval
    pairs: pd.DataFrame  # per ordered pair (a, b): mean VP of a minus b in the same blocks, interval
    ratings: Ratings
    seats: pd.DataFrame
    games: pd.DataFrame
    blocks: int
    games_per_block: int

    def max_width(self) -> float:
        return float((self.table["win_hi"] - self.table["win_lo"]).max())


def _block_stats(seats: pd.DataFrame, n_policies: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per block and policy: win share, mean VP, and whether the policy played in the block."""
    won = seats["won"].to_numpy(float)
    winners = seats.groupby("game_id")["won"].transform("sum").to_numpy(float)
    seats = seats.assign(credit=np.where(winners > 0, won / np.maximum(winners, 1), 0.0))
    g = seats.groupby(["block", "policy_index"], observed=True)
    # credit per game a policy played: its seats' share of the win, over the games it sat in
    per_game = seats.groupby(["block", "policy_index", "game_id"], observed=True)["credit"].sum()
    credit = per_game.groupby(["block", "policy_index"]).mean().unstack(fill_value=np.nan)
    vp = g["total"].mean().unstack()
    blocks = credit.index.to_numpy()
    full = pd.RangeIndex(n_policies)
    credit = credit.reindex(columns=full)
    vp = vp.reindex(columns=full)
    return blocks, credit.to_numpy(), vp.to_numpy()


def _interval(values: np.ndarray) -> tuple[float, float, float, int]:
    v = values[~np.isnan(values)]
    n = len(v)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(v.mean())
    half = Z_95 * float(v.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return mean, mean - half, mean + half, n


def compare(
    policies: list,
    players: int,
    games: int,
    seed: int = 0,
    rules: Rules | None = None,
    precision: float | None = None,
    threads: int | None = None,
    on_progress=None,
) -> Comparison:
    """Compare policies over at most ``games`` games (rounded to whole blocks).

    With ``precision``, blocks are added in rounds until every policy's win-share interval is
    narrower than ``precision`` (full width), or ``games`` is reached.
    """
    players = verify_players(players)
    games = verify_games(games)
    rules = rules or Rules()
    specs: list[PolicySpec] = [resolve_policy(p) for p in policies]
    if len(specs) < 2:
        raise SimulationError("compare needs at least 2 policies")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise SimulationError(f"compare needs distinct policies, got {', '.join(names)}")
    if precision is not None and not (0 < precision < 1):
        raise SimulationError(f"precision must be between 0 and 1 (a width of a win rate), got {precision}")
    arrs = arrangements(names, players)
    per_block = len(arrs)
    max_blocks = max(1, games // per_block)
    step = max_blocks if precision is None else max(8, min(max_blocks, 200))
    seat_frames, game_frames = [], []
    credit_rounds, vp_rounds = [], []  # per round: each new block's win share and mean VP per policy
    done = 0
    while done < max_blocks:
        n = min(step, max_blocks - done)
        round_seats = []
        for a, arrangement in enumerate(arrs):
            table = [specs[i] for i in arrangement]
            score, player, game_out = run_games(n, players, table, seed, rules, first=done, threads=threads)
            seats = seat_table(score, player, game_out, [names[i] for i in arrangement], rules, done)
            g = game_table(game_out, players, rules, done)
            for df in (seats, g):
                df["block"] = df["game"]
                df["arrangement"] = a
                df["game_id"] = df["game"] * per_block + a
            seats["policy_index"] = np.tile(arrangement, n)
            round_seats.append(seats)
            game_frames.append(g)
        seat_frames.extend(round_seats)
        # a block's statistics depend on its own games only, so each round adds only its own
        # blocks' rows: many rounds cost what one round of all their games would
        _, credit, vp = _block_stats(pd.concat(round_seats, ignore_index=True), len(names))
        credit_rounds.append(credit)
        vp_rounds.append(vp)
        done += n
        width = _max_width(np.concatenate(credit_rounds))
        if on_progress is not None:
            on_progress(done * per_block, max_blocks * per_block, width)
        if precision is not None and width < precision:
            break
        step = n
    return _summarise(names, pd.concat(seat_frames, ignore_index=True), pd.concat(game_frames, ignore_index=True),
                      done, per_block, np.concatenate(credit_rounds), np.concatenate(vp_rounds))  # fmt: skip


def _max_width(credit: np.ndarray) -> float:
    """The widest win-share interval among the policies (``Comparison.max_width``), from the
    win share of each policy in each block."""
    return float(max(hi - lo for _, lo, hi, _ in (_interval(credit[:, i]) for i in range(credit.shape[1]))))


def _summarise(names: list[str], seats: pd.DataFrame, games: pd.DataFrame, blocks: int, per_block: int,
               credit: np.ndarray, vp: np.ndarray) -> Comparison:  # fmt: skip
    """The comparison's tables from all its games and each block's win shares and mean VP."""
    seats["policy"] = pd.Categorical(seats["policy"].astype(str), categories=names)
    rows = []
    for i, name in enumerate(names):
        w, wlo, whi, nb = _interval(credit[:, i])
        v, vlo, vhi, _ = _interval(vp[:, i])
        rows.append({"policy": name, "blocks": nb, "seats": int((seats["policy_index"] == i).sum()),
                     "win_share": w, "win_lo": wlo, "win_hi": whi, "vp_mean": v, "vp_lo": vlo, "vp_hi": vhi,
                     "cannons_lost": float(seats.loc[seats["policy_index"] == i, "cannons_lost"].mean())})  # fmt: skip
    table = pd.DataFrame(rows).set_index("policy")
    pairs = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            diff = vp[:, i] - vp[:, j]  # nan where a block lacks one of them
            m, lo, hi, nb = _interval(diff)
            pairs.append({"a": a, "b": b, "blocks": nb, "vp_diff": m, "lo": lo, "hi": hi})
    ranks = pd.DataFrame({"game": seats["game_id"], "policy": seats["policy"].astype(str), "rank": seats["rank"]})
    ratings = fit_plackett_luce(ranks)
    table = table.join(ratings.table[["strength", "elo", "se"]].rename(columns={"se": "log_strength_se"}))
    return Comparison(table, pd.DataFrame(pairs), ratings, seats, games, blocks, per_block)


def save_comparison(result: Comparison, out: str, command: list[str], seed: int, rules: Rules) -> None:
    """Write the games (``seats.parquet``, ``games.parquet``), the result tables and a manifest."""
    import json
    from pathlib import Path

    from smsim.dataset import environment

    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    result.seats.to_parquet(path / "seats.parquet", index=False)
    result.games.to_parquet(path / "games.parquet", index=False)
    result.table.to_csv(path / "policies.csv")
    result.pairs.to_csv(path / "pairs.csv", index=False)
    result.ratings.table.to_csv(path / "ratings.csv")
    manifest = {
        "format": "smsim-comparison", "command": command, "seed": seed, "rules": rules.to_dict(),
        "policies": list(result.table.index), "blocks": result.blocks,
        "games_per_block": result.games_per_block, "environment": environment(),
    }  # fmt: skip
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
