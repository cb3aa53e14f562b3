"""Keep decisions judged against the exact keep (``smsim regret``): a policy's error rate with the
dice, in the style of a backgammon program's.

At every KEEP decision of the games (roll again some dice, or stop) the oracle
(``policies/exact_keep.py``) solves the turn exactly under a stated value, by default
``balanced``'s values of the uses of the dice, and charges the keep played its **regret**: the
best keep's expected value minus the played keep's, in VP of the stated value. A policy's
figures, per seat and game, then over its seats and games:

- ``regret_per_game``: the regret summed over its keep decisions in one game (mean, 95% interval
  over seat-games: the games are independent, and each seat-game is one of them);
- ``regret_per_keep``: the same per KEEP decision;
- ``errors_per_game`` and ``error_rate``: keeps whose regret exceeds ``ERROR_VP`` (0.1 VP).

The stated value is a yardstick, not the truth: it ignores what the dice's swords do and what the
turn's use builds beyond the heuristic's table, so a policy that plays better than ``balanced``
can still show regret against it (a learned policy's keeps are its base heuristic's). The
``balanced-exact`` policy keeps exactly by this value: its regret is 0 by construction (a test).

Each measured policy plays one line-up: a mirror (every seat), or with ``against`` one seat
against that policy, the measured seat rotating over the seats (the games split into P runs of
consecutive games, run s with it in seat s); either way the dice of game g are those of every
other study on the seed. A study
of several policies is a result folder (kind ``regret``): ``regret.json`` (the plan), one Parquet
file per policy under ``games/`` (written whole as soon as it is played: a rerun plays only the
missing ones) and ``regret.csv`` (the table), last.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from smsim.checks import threads as checks_threads
from smsim.checks import whole
from smsim.errors import RegretError
from smsim.files import write_file, writing
from smsim.intervals import mean_and_interval
from smsim.layout import PolicyKind
from smsim.play.loop import ORACLE_FIELDS
from smsim.policies.exact_keep import ERROR_VP
from smsim.policies.registry import PolicySpec, any_search, resolve_policy
from smsim.rules import Rules
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.runner import SEARCH_SLICE, KeepRegret, engine_arrays, kernel, on_threads, slice_plan
from smsim.runs.spec import default_threads

CHUNK = 500  # games a chunk (one Parquet row group's worth; a search's games are split finer)
COLUMNS = (
    "policy",
    "seat_games",
    "keeps_per_game",
    "regret_per_game",
    "regret_lo",
    "regret_hi",
    "regret_per_keep",
    "errors_per_game",
    "error_rate",
)


@dataclass(frozen=True)
class RegretPlan:
    """Which policies are judged, how, on which games."""

    players: int
    policies: tuple[str, ...]
    games: int = 2_000
    seed: int = 0
    oracle: str = "balanced"  # the stated value: a heuristic whose values of the uses the oracle keeps by
    against: str | None = None  # None: each policy in a mirror; else one seat of it against this policy

    def identity(self, rules: Rules | None = None) -> dict:
        """What makes two studies the same study: the plan and the rules."""
        d = asdict(self)
        d["policies"] = list(self.policies)
        d["rules"] = (rules or Rules()).to_dict()
        return d

    def lineups(self, policy: str) -> list[list[str]]:
        """The line-ups ``policy``'s games are played in, each a run of consecutive games: a
        mirror has one, ``against`` one per seat of the measured policy."""
        if self.against is None:
            return [[policy] * self.players]
        return [[self.against] * s + [policy] + [self.against] * (self.players - 1 - s) for s in range(self.players)]


def verify_plan(plan: RegretPlan) -> PolicySpec:
    """Check the plan before anything is compiled; returns the oracle's heuristic."""
    whole(plan.players, "--players", low=2, high=5, error=RegretError)
    whole(plan.games, "--games", low=1, high=100_000_000, error=RegretError)
    whole(plan.seed, "--seed", error=RegretError)
    if not plan.policies:
        raise RegretError("name at least one policy to judge")
    if len(set(plan.policies)) != len(plan.policies):
        raise RegretError("a policy is named twice")
    for name in (*plan.policies, *([plan.against] if plan.against else [])):
        resolve_policy(name)
    oracle = resolve_policy(plan.oracle)
    if oracle.kind != PolicyKind.HEURISTIC:
        raise RegretError(
            f"--oracle must be a heuristic (its values of the uses are the yardstick), not {plan.oracle!r}"
        )
    return oracle


def judge_policy(
    plan: RegretPlan,
    policy: str,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Play ``policy``'s games with the oracle on; per game and seat of it: game, seat, and the
    oracle's fields (``ORACLE_FIELDS``: keep regret in VP, keep decisions, errors)."""
    rules = rules or Rules()
    oracle = verify_plan(plan)
    lineups = plan.lineups(policy)
    setups = [[resolve_policy(name) for name in lineup] for lineup in lineups]
    plays = [kernel(plan.players, specs, plan.seed, rules, KeepRegret(oracle.params)) for specs in setups]
    # line-up k plays the k-th of len(lineups) runs of consecutive games, in chunks
    bounds = np.linspace(0, plan.games, len(lineups) + 1).round().astype(int)
    chunks = [
        (k, first, min(CHUNK, bounds[k + 1] - first))
        for k in range(len(lineups))
        for first in range(bounds[k], bounds[k + 1], CHUNK)
    ]
    searching = any(any_search(specs) for specs in setups)
    threads = checks_threads(threads, error=RegretError) or default_threads()
    slices = slice_plan(
        [(i, n) for i, (_, _, n) in enumerate(chunks)], threads, *((1, SEARCH_SLICE) if searching else ())
    )
    measured = [lineup.index(policy) if plan.against is not None else -1 for lineup in lineups]
    parts: dict[int, pd.DataFrame] = {}
    done = [0]

    def begin(i: int) -> tuple:
        n = chunks[i][2]
        return (*engine_arrays(n, plan.players), np.zeros((n, plan.players, len(ORACLE_FIELDS))))

    def play(held: tuple, i: int, lo: int, hi: int) -> None:
        k, first, _ = chunks[i]
        score, player, game_out, judged = held
        judged[lo:hi] = plays[k](first + lo, score[lo:hi], player[lo:hi], game_out[lo:hi])
        done[0] += hi - lo

    def finish(held: tuple, i: int) -> pd.DataFrame:
        k, first, n = chunks[i]
        games = np.arange(first, first + n)
        judged = held[3]
        seats = range(plan.players) if measured[k] < 0 else [measured[k]]
        rows = {"game": np.repeat(games, len(seats)), "seat": np.tile(np.array(list(seats)), len(games))}
        for f, name in enumerate(ORACLE_FIELDS):
            rows[name] = judged[:, list(seats), f].reshape(-1)
        return pd.DataFrame(rows)

    def use(i: int, table: pd.DataFrame) -> None:
        parts[i] = table

    def poll() -> None:
        if on_progress is not None:
            on_progress(done[0], plan.games)

    on_threads(slices, threads, play, finish, use, begin=begin, poll=poll)
    out = pd.concat([parts[i] for i in sorted(parts)], ignore_index=True)
    return out.sort_values(["game", "seat"], ignore_index=True)


def summarise(policy: str, rows: pd.DataFrame) -> dict:
    """One policy's line of the table from its per-game rows."""
    regret = rows["keep_regret"].to_numpy(dtype=np.float64)
    keeps = rows["keeps"].to_numpy(dtype=np.float64)
    errors = rows["keep_errors"].to_numpy(dtype=np.float64)
    mean, lo, hi, n = mean_and_interval(regret)
    total_keeps = keeps.sum()
    return dict(
        policy=policy,
        seat_games=n,
        keeps_per_game=keeps.mean(),
        regret_per_game=mean,
        regret_lo=lo,
        regret_hi=hi,
        regret_per_keep=regret.sum() / total_keeps if total_keeps else 0.0,
        errors_per_game=errors.mean(),
        error_rate=errors.sum() / total_keeps if total_keeps else 0.0,
    )


def keep_regret(
    policies: list[str],
    players: int,
    games: int = 2_000,
    seed: int = 0,
    oracle: str = "balanced",
    against: str | None = None,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> pd.DataFrame:
    """The regret table (``COLUMNS``) of each policy, in memory (``run_regret`` writes a folder).
    ``on_progress(policy, games done, games)`` as its games are played."""
    plan = RegretPlan(players, tuple(policies), games, seed, oracle, against)
    verify_plan(plan)
    lines = [summarise(p, judge_policy(plan, p, rules, threads, progress_of(on_progress, p))) for p in plan.policies]
    return pd.DataFrame(lines, columns=list(COLUMNS))


def progress_of(on_progress: Callable[[str, int, int], None] | None, policy: str) -> Callable[[int, int], None] | None:
    if on_progress is None:
        return None
    return lambda done, total: on_progress(policy, done, total)


def file_of(plan: RegretPlan, policy: str) -> str:
    return f"{plan.policies.index(policy):02d}-{Path(policy).name.replace('.', '_')}.parquet"


def run_regret(
    plan: RegretPlan,
    out: str | Path,
    rules: Rules | None = None,
    threads: int | None = None,
    command: list[str] = (),
    on_policy: Callable[[str, float], None] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> pd.DataFrame:
    """Judge the plan's policies not yet judged in ``out`` (resumable, policy by policy), write
    the table (``regret.csv``) and return it. ``on_policy(name, seconds)`` after each policy,
    ``on_progress`` as ``keep_regret``'s."""
    verify_plan(plan)
    rules = rules or Rules()
    path = Path(out)
    ident = plan.identity(rules)
    if not check_out(out, "regret", ident):
        write_manifest(path, "regret", {"plan": ident, "command": list(command)})
    (path / "games").mkdir(parents=True, exist_ok=True)
    for policy in plan.policies:
        file = path / "games" / file_of(plan, policy)
        if file.is_file():
            continue
        start = time.perf_counter()
        rows = judge_policy(plan, policy, rules, threads, progress_of(on_progress, policy))
        with writing(file) as tmp:  # whole or not at all
            pq.write_table(pa.Table.from_pandas(rows, preserve_index=False), tmp)
        if on_policy is not None:
            on_policy(policy, time.perf_counter() - start)
    table = read_regret(path)
    write_file(path / "regret.csv", table.to_csv(index=False))
    return table


def read_regret(path: str | Path) -> pd.DataFrame:
    """The table of a regret folder, from its per-game files (the policies judged so far)."""
    path = Path(path)
    ident = read_manifest(path, "regret")["plan"]
    plan = RegretPlan(
        ident["players"], tuple(ident["policies"]), ident["games"], ident["seed"], ident["oracle"], ident["against"]
    )
    rules = Rules.from_dict(ident["rules"]) if "rules" in ident else Rules()
    lines = []
    for policy in plan.policies:
        file = path / "games" / file_of(plan, policy)
        if file.is_file():
            lines.append(summarise(policy, pd.read_parquet(file)))
    table = pd.DataFrame(lines, columns=list(COLUMNS))
    table.attrs.update(
        players=plan.players,
        games=plan.games,
        seed=plan.seed,
        oracle=plan.oracle,
        against=plan.against,
        error_vp=ERROR_VP,
        rules=rules,
    )
    return table


__all__ = ["RegretPlan", "judge_policy", "keep_regret", "read_regret", "run_regret", "verify_plan"]
