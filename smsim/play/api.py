"""One game through the Python API: ``play_game`` (a game alone, with its full trace) and
``score_city`` (the jitted scoring of one written city), and the checks every layer above applies
to a line-up: the players, one policy per seat, a game's index, and the engine's error flag.

>>> verify_players(4)
4
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from smsim import layout as L
from smsim.checks import whole
from smsim.engine import events as E
from smsim.engine.city import set_city_nb
from smsim.engine.dice import seed_key
from smsim.engine.scoring import score_game_nb
from smsim.errors import SimulationError
from smsim.play.loop import new_work, play_one_nb
from smsim.play.search import new_search, play_one_search_nb, search_room
from smsim.play.trace import events_to_records, score_dict
from smsim.policies.registry import (
    PolicySpec,
    any_search,
    base_arrays,
    line_up_marks,
    policy_arrays,
    resolve_policies,
)
from smsim.rules import Rules

EVENTS_PER_TURN = 64  # generous bound on trace rows one turn writes


def verify_players(players: int) -> int:
    return whole(players, "players", low=L.MIN_PLAYERS, high=L.MAX_PLAYERS)


def verify_lineup(players: int, policies: list | None) -> tuple[int, list[PolicySpec]]:
    """The players and one policy per seat (one given for every seat, or one per seat), checked
    before anything is compiled or played. Raises ``SimulationError`` or ``PolicyError``."""
    players = verify_players(players)
    return players, resolve_policies(policies, players)


# A game is numbered by an int64 index (the engine's and the dataset's ``game``; the dice key
# hashes it as a uint64), so indices stop at MAX_GAME_INDEX.
MAX_GAME_INDEX = 2**63 - 1


def verify_game_index(game: int, what: str = "game") -> int:
    return whole(game, what, low=0, high=MAX_GAME_INDEX)


def check_errors(game_out: np.ndarray, specs: list[PolicySpec], first: int) -> None:
    """Raise ``SimulationError`` naming the first game (numbered from ``first``) in which a policy
    chose outside the legal candidates: the engine flags it in ``game_out`` and plays on."""
    bad = np.nonzero(game_out[:, L.G_ERROR])[0]
    if len(bad):
        g = int(bad[0])
        decision = L.Decision(int(game_out[g, L.G_ERROR]) - 1).name
        seat = int(game_out[g, L.G_ERROR_SEAT])
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
    game_out: np.ndarray  # int64[L.N_GAME_FIELDS]


def play_game(
    players: int = 4,
    seed: int = 0,
    game: int = 0,
    policies: list | None = None,
    rules: Rules | None = None,
) -> TracedGame:
    """Play game ``game`` of the run keyed by ``seed`` alone, with its full trace."""
    players = verify_players(players)
    game = verify_game_index(game)
    seed = whole(seed, "seed")
    rules = rules or Rules()
    specs = resolve_policies(policies, players)
    kind, params, fns = policy_arrays(specs)
    capacity = rules.max_rounds * players * EVENTS_PER_TURN + 16
    trace = np.zeros((capacity, E.EVENT_WIDTH), dtype=np.int64)
    w = new_work(players, trace)
    bases, marks = base_arrays(specs), line_up_marks(specs)
    if any_search(specs):
        score, game_out, n_rows = play_one_search_nb(
            seed_key(seed),
            game,
            rules.to_nb(),
            rules.start_crate_cells(),
            kind,
            params,
            fns,
            *bases,
            marks,
            w,
            new_search(players, search_room(kind, params)),
            -1,
        )
    else:
        score, game_out, n_rows = play_one_nb(
            seed_key(seed), game, rules.to_nb(), rules.start_crate_cells(), kind, params, fns, w, marks
        )
    player, city = w.player, w.city
    if n_rows < 0:
        raise SimulationError("the trace buffer overflowed")  # pragma: no cover - bounded by EVENTS_PER_TURN
    check_errors(game_out[None, :], specs, game)
    records = events_to_records(
        trace[:n_rows],
        seed=seed,
        game=game,
        policies=[s.name for s in specs],
        rules=rules,
        score=score,
        city=city,
        game_out=game_out,
    )
    return TracedGame(records, score, player, city, game_out)


def score_city(
    city: np.ndarray,
    coins: int = 0,
    logs: int = 0,
    cannons: int = 0,
    vp: int = 0,
    rules: Rules | None = None,
) -> dict[str, Any]:
    """End-of-game score of one written city (docs/rules.md §4) with the jitted scoring.

    Returns the keys ``churches`` (count of size 1..5), ``series`` (lengths, longest first),
    ``church_vp``, ``coins``, ``logs``, ``cannons`` (the VP of each, not counts: 7 coins are
    ``coins`` 3), ``full_city``, ``earned`` and ``total`` (VP), and the counts scored,
    ``coins_left``, ``logs_left`` and ``cannons_lost``.
    """

    rules = rules or Rules()
    cells = np.asarray(city, dtype=np.int8)
    city_arr = np.zeros((1, 49), dtype=np.int8)
    occ = np.zeros((1, L.N_CELL_CODES), dtype=np.uint64)
    player = np.zeros((1, L.N_PLAYER_FIELDS), dtype=np.int64)
    set_city_nb(city_arr, occ, player, 0, cells)
    player[0, L.COINS], player[0, L.LOGS], player[0, L.CANNONS_LOST], player[0, L.VP] = coins, logs, cannons, vp
    score = np.zeros((1, L.N_SCORE_FIELDS), dtype=np.int64)
    score_game_nb(occ, player, rules.to_nb(), score)
    full = score_dict(score[0], 0)
    keys = ("churches", "series", "church_vp", "coins", "logs", "cannons", "full_city", "earned", "total")
    counts = {"coins_left": int(coins), "logs_left": int(logs), "cannons_lost": int(cannons)}
    return {**{k: full[k] for k in keys}, **counts}
