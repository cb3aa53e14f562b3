"""A run's inputs, checked once before anything is compiled or played (``RunSpec``: the games and
their int64 indices, the players, one policy per seat, the seed and the rules), the games per
part of a dataset, the chunks a run is played in, and the threads.

>>> split_chunks(0, 25_000)
[(0, 10000), (10000, 10000), (20000, 5000)]
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from smsim.checks import whole
from smsim.play.api import verify_game_index, verify_lineup
from smsim.policies.registry import PolicySpec
from smsim.rules import Rules

# A run is capped far below the int64 game indices, at days of play on a workstation, so that a
# typo such as 1e99 is refused before any game is played (and the run's list of chunks stays small).
MAX_GAMES = 10**10


@dataclass(frozen=True)
class RunSpec:
    """A run's inputs as every layer below the Python API takes them, checked once
    (``verify_run``): games first .. first + games - 1 of ``seed``, ``players`` seats with one
    policy each (``lineup``), under ``rules``."""

    games: int
    players: int
    lineup: list[PolicySpec]
    seed: int
    rules: Rules
    first: int = 0

    @property
    def names(self) -> list[str]:
        """The policy of each seat, by name."""
        return [s.name for s in self.lineup]


def verify_run(
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    first: int = 0,
) -> RunSpec:
    """A run's inputs checked (``SimulationError``, ``PolicyError``): 1 to MAX_GAMES games whose
    indices fit an int64, 2 to 5 players, one policy given for every seat or one per seat, whole
    seed; no rules means docs/rules.md's."""
    games = verify_games(games, first)
    players, lineup = verify_lineup(players, policies)
    return RunSpec(games, players, lineup, whole(seed, "seed"), rules or Rules(), int(first))


def verify_games(games: int, first: int = 0) -> int:
    """A run of ``games`` games numbered from ``first``: 1 to MAX_GAMES games, all indices int64."""
    games = whole(games, "games", low=1, high=MAX_GAMES)
    first = verify_game_index(first, "first")
    verify_game_index(first + games - 1, "the last game's index (first + games - 1)")
    return games


def default_threads() -> int:
    """Threads a batch uses: ``SMSIM_THREADS``, else every core."""
    return max(1, int(os.environ.get("SMSIM_THREADS", 0)) or os.cpu_count() or 1)


def verify_batch(batch: int | None, games: int) -> int:
    """Games per part of a run written to disk: ``batch``, or ``default_batch`` when None."""
    return default_batch(games) if batch is None else whole(batch, "batch", low=1, high=MAX_GAMES)


def default_batch(games: int) -> int:
    """Games per part: at least 10,000, and at most about 1,000 parts for any run."""
    return max(1, min(games, max(10_000, -(-games // 1000))))


CHUNK_GAMES = 10_000  # games played and turned into tables at a time: a run holds two chunks


def split_chunks(first: int, n: int) -> list[tuple[int, int]]:
    """Games first .. first + n - 1 as (first, games) chunks of at most CHUNK_GAMES."""
    return [(lo, min(CHUNK_GAMES, first + n - lo)) for lo in range(first, first + n, CHUNK_GAMES)]
