"""The Python API: check inputs, derive keys, allocate, call the engine, return tables.

>>> from smsim.sim import simulate
>>> seats, games = simulate(100, players=3, policies=["greedy", "random", "random"], seed=1)  # doctest: +SKIP
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from smsim import layout as L
from smsim.engine import events as E
from smsim.engine.dice import seed_key
from smsim.engine.game import GAME_FIELD_NAMES, G_ERROR, G_ERROR_SEAT, N_GAME_FIELDS, play_games_nb, play_one_nb
from smsim.engine.scoring import N_SCORE_FIELDS, SCORE_FIELD_NAMES
from smsim.policies.registry import PolicySpec, policy_arrays, resolve_policies
from smsim.rules import Rules
from smsim.trace import events_to_records

MIN_PLAYERS, MAX_PLAYERS = 2, 5
EVENTS_PER_TURN = 64  # generous bound on trace rows one turn writes
PLAYER_FIELD_NAMES = (
    "coins", "logs", "vp_earned", "cannons_lost", "soldiers", "sides_done", "sides_broken", "empty_left",
    "vp_citizen", "vp_priest", "vp_houses", "vp_juggler", "vp_noble", "vp_wall_bonus", "coins_merchant",
    "coins_wall_bonus", "coins_rotation", "coins_delivery", "logs_delivered", "logs_used", "dice_rotated",
    "passes",
)  # fmt: skip
assert len(PLAYER_FIELD_NAMES) == L.N_PLAYER_FIELDS


class SimulationError(ValueError):
    """Bad input to a simulation, or a policy that broke the interface; the message says which."""


def verify_players(players: int) -> int:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise SimulationError(f"players must be a whole number from {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SimulationError(f"players must be from {MIN_PLAYERS} to {MAX_PLAYERS}, got {players}")
    return int(players)


def verify_games(games: int) -> int:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise SimulationError(f"games must be a whole number >= 1, got {games!r}")
    return int(games)


def _check_errors(game_out: np.ndarray, specs: list[PolicySpec], first: int) -> None:
    bad = np.nonzero(game_out[:, G_ERROR])[0]
    if len(bad):
        g = int(bad[0])
        decision = L.Decision(int(game_out[g, G_ERROR]) - 1).name
        seat = int(game_out[g, G_ERROR_SEAT])
        raise SimulationError(
            f"policy {specs[seat].name!r} (seat {seat}) returned a choice outside the legal candidates "
            f"at a {decision} decision in game {first + g}"
        )


@dataclass
class TracedGame:
    """One game played alone: its records (docs/trace.md) and final arrays."""

    records: list[dict[str, Any]]
    score: np.ndarray  # int64[P, N_SCORE_FIELDS]
    player: np.ndarray  # int64[P, N_PLAYER_FIELDS]
    city: np.ndarray  # int8[P, 49]
    game_out: np.ndarray  # int64[N_GAME_FIELDS]


def play_game(
    players: int = 4,
    seed: int = 0,
    game: int = 0,
    policies: list | None = None,
    rules: Rules | None = None,
) -> TracedGame:
    """Play game ``game`` of the run keyed by ``seed`` alone, with its full trace."""
    players = verify_players(players)
    rules = rules or Rules()
    specs = resolve_policies(policies, players)
    kind, params, fns = policy_arrays(specs)
    capacity = rules.max_rounds * players * EVENTS_PER_TURN + 16
    trace = np.zeros((capacity, E.EVENT_WIDTH), dtype=np.int64)
    score, player, city, game_out, n_rows = play_one_nb(
        seed_key(seed), game, rules.to_nb(), rules.start_crate_cells(), kind, params, fns, trace
    )
    if n_rows < 0:
        raise SimulationError("the trace buffer overflowed")  # pragma: no cover - bounded by EVENTS_PER_TURN
    _check_errors(game_out[None, :], specs, game)
    records = events_to_records(
        trace[:n_rows], seed=seed, game=game, policies=[s.name for s in specs], rules=rules,
        score=score, city=city, game_out=game_out,
    )  # fmt: skip
    return TracedGame(records, score, player, city, game_out)


def default_threads() -> int:
    """Threads a batch uses: ``SMSIM_THREADS``, else every core."""
    return max(1, int(os.environ.get("SMSIM_THREADS", 0)) or os.cpu_count() or 1)


def run_games(
    games: int,
    players: int,
    policies: list | None,
    seed: int,
    rules: Rules,
    first: int = 0,
    threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw engine arrays (score, player, game_out) for games first .. first + games - 1.

    The batch is cut into one contiguous chunk per thread; each game's dice depend only on
    (seed, game), so the result does not depend on ``threads``.
    """
    specs = resolve_policies(policies, players)
    kind, params, fns = policy_arrays(specs)
    score = np.zeros((games, players, N_SCORE_FIELDS), dtype=np.int64)
    player = np.zeros((games, players, L.N_PLAYER_FIELDS), dtype=np.int64)
    game_out = np.zeros((games, N_GAME_FIELDS), dtype=np.int64)
    rules_nb, crates, key = rules.to_nb(), rules.start_crate_cells(), seed_key(seed)
    threads = max(1, min(threads or default_threads(), games))

    def run(lo: int, hi: int) -> None:
        play_games_nb(key, first + lo, rules_nb, crates, kind, params, fns, score[lo:hi], player[lo:hi],
                      game_out[lo:hi])  # fmt: skip

    bounds = [games * i // threads for i in range(threads + 1)]
    if threads == 1:
        run(0, games)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, bounds[:-1], bounds[1:]))
    _check_errors(game_out, specs, first)
    return score, player, game_out


def simulate(
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    first: int = 0,
    threads: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play ``games`` games and return (seats, games) DataFrames.

    ``seats`` has one row per player per game: game, seat, policy, the final breakdown
    (``total``, ``earned``, ``church_vp``, ...) and the play statistics (coins, logs, cannons
    lost, VP by source, ...). ``games`` has one row per game: rounds, aborted, attacks, ...
    """
    games = verify_games(games)
    players = verify_players(players)
    rules = rules or Rules()
    specs = resolve_policies(policies, players)
    score, player, game_out = run_games(games, players, specs, seed, rules, first, threads)
    index = np.arange(first, first + games, dtype=np.int64)
    seats = pd.DataFrame({"game": np.repeat(index, players), "seat": np.tile(np.arange(players), games)})
    seats["policy"] = pd.Categorical(np.tile([s.name for s in specs], games))
    for i, name in enumerate(SCORE_FIELD_NAMES):
        seats[name] = score[:, :, i].reshape(-1)
    for i, name in enumerate(PLAYER_FIELD_NAMES):
        seats[name] = player[:, :, i].reshape(-1)
    for name in ("won", "shared"):
        seats[name] = seats[name].astype(bool)
    game_df = pd.DataFrame({"game": index, "players": players})
    for i, name in enumerate(GAME_FIELD_NAMES[:6]):
        game_df[name] = game_out[:, i]
    game_df["aborted"] = game_df["aborted"].astype(bool)
    return seats, game_df


def score_city(
    city: np.ndarray,
    coins: int = 0,
    logs: int = 0,
    cannons: int = 0,
    vp: int = 0,
    rules: Rules | None = None,
) -> dict[str, Any]:
    """End-of-game score of one written city (RULES.md §4) with the jitted scoring.

    Returns the keys ``churches`` (count of size 1..5), ``series`` (lengths, longest first),
    ``church_vp``, ``coins``, ``logs``, ``cannons`` (the VP of each), ``full_city``,
    ``earned`` and ``total``.
    """
    from smsim.engine.city import set_city_nb
    from smsim.engine.scoring import score_game_nb
    from smsim.trace import score_dict

    rules = rules or Rules()
    cells = np.asarray(city, dtype=np.int8)
    city_arr = np.zeros((1, 49), dtype=np.int8)
    occ = np.zeros((1, L.N_CELL_CODES), dtype=np.uint64)
    player = np.zeros((1, L.N_PLAYER_FIELDS), dtype=np.int64)
    set_city_nb(city_arr, occ, player, 0, cells)
    player[0, L.COINS], player[0, L.LOGS], player[0, L.CANNONS_LOST], player[0, L.VP] = coins, logs, cannons, vp
    score = np.zeros((1, N_SCORE_FIELDS), dtype=np.int64)
    score_game_nb(occ, player, rules.to_nb(), score)
    full = score_dict(score[0], 0)
    keys = ("churches", "series", "church_vp", "coins", "logs", "cannons", "full_city", "earned", "total")
    return {k: full[k] for k in keys}
