"""Per-seat compensation that makes every seat win equally often (``smsim fairness``).

A designer asks: how many coins (or VP) should each later seat get so that every seat wins as
often as the start player? :func:`fairness` answers with the rules' seat compensation fields
(``seat_coins`` or ``seat_vp``, docs/rules.md §7), in two stages.

The search
    Seat 0, the start player, is fixed at 0; each other seat's compensation is a whole number,
    0..max for coins and -max..max for VP. A seat's *win share* is its share of the games' wins,
    a win shared by k tied winners counting 1/k to each (``won / winners``), so the seats' shares
    sum to 1 and parity is 1/P. The objective is the sum over seats of (win share - 1/P)^2: P times
    the games played times it is the chi-square statistic of "every seat wins 1/P of the time",
    so minimising it minimises the evidence against parity. Every candidate plays the same games
    (games 0..N-1 of ``seed``: common random numbers), so two candidates differ by their
    compensation, not by their dice. The search starts at zero and moves one seat by 1 at a time:
    a seat's win share rises with its own compensation, so it first tries the moves that point
    towards parity (+1 for a seat below it, -1 above) and takes the best one that lowers the
    objective; only when none does, it tries the other direction of each seat; it stops where
    no move of one seat by 1 improves (a local minimum over that neighbourhood). Every vector
    is played at most once (memoised).

The check
    The search saw only its own games, and the best of many candidates on them looks better than
    it is. So the found compensation is checked on held-out games: ``check_games`` games of
    ``check_seed`` (default ``seed + 1_000_003``; never the search seed), played without and with
    it. Per seat: the win share before and after with 95% intervals (the mean over games of the
    seat's share; games are independent), and whether the remaining unfairness can be told from
    zero (the interval after excludes parity). Overall: the largest |win share - 1/P| before and
    after, and a chi-square test of "all seats equal" on the win counts (P - 1 degrees of freedom;
    shared wins are split, which only makes the test conservative).

>>> import smsim  # doctest: +SKIP
>>> result = smsim.fairness(players=2, policy="balanced", by="coins", games=20000, seed=1)  # doctest: +SKIP
>>> result.compensation, result.table  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from smsim import layout as L
from smsim.checks import threads as checks_threads
from smsim.checks import whole
from smsim.errors import FairnessError, PolicyError, RulesError, SimulationError
from smsim.files import write_file
from smsim.intervals import chi2_sf, mean_and_interval
from smsim.play.api import verify_players
from smsim.policies.registry import rebuild_policy, resolve_policies, resolve_policy, ship_policy
from smsim.rules import Rules
from smsim.runs.batch import run_games
from smsim.runs.executors import Failed, Task, open_executor, threads_here
from smsim.runs.executors import check as check_cluster
from smsim.runs.folder import KINDS, read_manifest, write_manifest
from smsim.runs.spec import MAX_GAMES

BY_FIELD = {"coins": "seat_coins", "vp": "seat_vp"}  # --by -> the rules field searched
DEFAULT_MAX = 6
CHECK_SEED_OFFSET = 1_000_003  # the default held-out seed: seed + this
RULES_FILE = "rules.toml"
KIND = "fairness"


# -- one candidate ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation:
    """One compensation vector played on the search games: its seats' win shares and the objective."""

    compensation: tuple[int, ...]
    win: tuple[float, ...]
    objective: float

    def to_dict(self) -> dict[str, Any]:
        return {"compensation": list(self.compensation), "objective": self.objective, "win": list(self.win)}


def win_shares(score: np.ndarray, game_out: np.ndarray) -> np.ndarray:
    """Per game and seat, the seat's share of the win: ``won / winners`` (float64[G, P]); each
    game's shares sum to 1."""
    winners = np.maximum(game_out[:, L.G_WINNERS], 1)
    return score[:, :, L.S_WON] / winners[:, None]


def objective(win: np.ndarray | tuple[float, ...]) -> float:
    """Sum over seats of (win share - 1/P)^2."""
    w = np.asarray(win, dtype=np.float64)
    return float(((w - 1.0 / len(w)) ** 2).sum())


def compensated(rules: Rules, by: str, compensation: tuple[int, ...]) -> Rules:
    """``rules`` with the seat compensation field of ``by`` set to ``compensation``."""
    return dataclasses.replace(rules, **{BY_FIELD[by]: tuple(int(c) for c in compensation)})


def mirror_shares(
    players: int,
    policy,
    by: str,
    rules: dict,
    compensation: tuple[int, ...],
    games: int,
    seed: int,
    threads: int | None,
) -> np.ndarray | Failed:
    """The win share of each seat in each of games 0 .. games - 1 of ``seed``, ``policy`` (shipped:
    ``registry.ship_policy``) in every seat, under ``rules`` with ``compensation``: one candidate
    of the search, as an executor's task."""
    try:
        lineup = [rebuild_policy(policy)] * players
        run_rules = compensated(Rules.from_dict(rules), by, compensation)
        score, _, game_out = run_games(games, players, lineup, seed, run_rules, threads=threads or threads_here())
    except (SimulationError, PolicyError) as exc:  # the same anywhere: not retried
        return Failed(str(exc))
    return win_shares(score, game_out)


class _Player:
    """Plays mirror games (one policy in every seat) for compensation vectors, as tasks on an
    executor (several candidates of a step at once, on a cluster)."""

    def __init__(self, players: int, policy: str, by: str, rules: Rules, threads: int | None, executor) -> None:
        self.players, self.by, self.rules, self.threads = players, by, rules, threads
        self.policy, self.executor = ship_policy(resolve_policy(policy)), executor

    def shares_of(self, compensations: list[tuple[int, ...]], games: int, seed: int) -> list[np.ndarray]:
        tasks = [
            Task(
                mirror_shares,
                (self.players, self.policy, self.by, self.rules.to_dict(), c, games, seed, self.threads),
                f"candidate-{'_'.join(map(str, c))}-{seed}",
            )
            for c in compensations
        ]
        shares: list = [None] * len(tasks)
        for i, result in self.executor.run(tasks):
            shares[i] = result
        return shares

    def shares(self, compensation: tuple[int, ...], games: int, seed: int) -> np.ndarray:
        return self.shares_of([compensation], games, seed)[0]


# -- the search ---------------------------------------------------------------------------------
class Search:
    """The memoised search over compensation vectors (module docstring): ``evaluate`` plays a
    vector on the search games once, ``run`` walks from zero to a local minimum."""

    def __init__(
        self,
        play: Callable[[list[tuple[int, ...]]], list[np.ndarray]],
        players: int,
        lo: int,
        hi: int,
        on_step: Callable[[dict], None] | None = None,
    ) -> None:
        self.play, self.players, self.lo, self.hi, self.on_step = play, players, lo, hi, on_step
        self.memo: dict[tuple[int, ...], Evaluation] = {}
        self.history: list[Evaluation] = []  # in the order played

    def evaluate_all(self, compensations: list[tuple[int, ...]]) -> list[Evaluation]:
        """Each vector played on the search games once (those not yet played, together)."""
        new = [c for c in dict.fromkeys(compensations) if c not in self.memo]
        for c, shares in zip(new, self.play(new) if new else []):
            win = tuple(float(w) for w in shares.mean(axis=0))
            ev = Evaluation(c, win, objective(win))
            self.memo[c] = ev
            self.history.append(ev)
            self._report("candidate", ev)
        return [self.memo[c] for c in compensations]

    def evaluate(self, compensation: tuple[int, ...]) -> Evaluation:
        return self.evaluate_all([compensation])[0]

    def _moves(self, current: Evaluation) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
        """The neighbours of ``current`` (one seat moved by 1, inside the bounds): those that
        point towards parity first, then the others."""
        parity = 1.0 / self.players
        towards, away = [], []
        for s in range(1, self.players):
            step = 1 if current.win[s] < parity else -1
            for d, group in ((step, towards), (-step, away)):
                c = list(current.compensation)
                c[s] += d
                if self.lo <= c[s] <= self.hi:
                    group.append(tuple(c))
        return towards, away

    def run(self) -> Evaluation:
        current = self.evaluate((0,) * self.players)
        self._report("start", current)
        while True:
            best = current
            for group in self._moves(current):
                for ev in self.evaluate_all(group):
                    if ev.objective < best.objective:
                        best = ev
                if best is not current:
                    break
            if best is current:
                self._report("done", current)
                return current
            current = best
            self._report("step", current)

    def _report(self, what: str, ev: Evaluation) -> None:
        if self.on_step is not None:
            self.on_step(
                {
                    "what": what,
                    "evaluated": len(self.history),
                    "compensation": ev.compensation,
                    "objective": ev.objective,
                    "win": ev.win,
                }
            )


# -- the result ---------------------------------------------------------------------------------
SEAT_COLUMNS = (
    "seat",
    "compensation",
    "before",
    "before_lo",
    "before_hi",
    "after",
    "after_lo",
    "after_hi",
    "distinguishable",
)


@dataclass
class FairnessResult:
    """A compensation found by :func:`fairness` and its check on held-out games.

    ``table`` has one row per seat (``SEAT_COLUMNS``): the compensation, the win share before and
    after on the held-out games with 95% intervals, and ``distinguishable``, whether the interval
    after excludes parity. ``rules`` are the compensated rules; ``search`` every vector played."""

    players: int
    policy: str
    by: str
    games: int
    seed: int
    check_games: int
    check_seed: int
    max: int
    compensation: tuple[int, ...]
    rules: Rules
    table: pd.DataFrame
    search: list[Evaluation]
    check: dict[str, float]
    command: list[str] = field(default_factory=list)

    @property
    def parity(self) -> float:
        return 1.0 / self.players

    @property
    def rules_field(self) -> str:
        """The rules field searched: ``seat_coins`` or ``seat_vp``."""
        return BY_FIELD[self.by]

    def to_dict(self) -> dict[str, Any]:
        """The manifest written as ``fairness.json``."""
        seats = [
            {
                c: (
                    bool(getattr(row, c))
                    if c == "distinguishable"
                    else int(getattr(row, c))
                    if c in ("seat", "compensation")
                    else float(getattr(row, c))
                )
                for c in SEAT_COLUMNS
            }
            for row in self.table.itertuples(index=False)
        ]
        return {
            "kind": KIND,
            "command": list(self.command),
            "players": self.players,
            "policy": self.policy,
            "by": self.by,
            "field": self.rules_field,
            "games": self.games,
            "seed": self.seed,
            "max": self.max,
            "check_games": self.check_games,
            "check_seed": self.check_seed,
            "parity": self.parity,
            "objective": "sum over seats of (win share - 1/players)^2 on the search games",
            "compensation": list(self.compensation),
            "rules": self.rules.to_dict(),
            "seats": seats,
            "check": dict(self.check),
            "search": [ev.to_dict() for ev in self.search],
        }

    def write(self, out: str | Path) -> Path:
        """Write ``out/rules.toml`` (the compensated rules, a variant file for ``--rules``), then
        ``out/fairness.json``; returns the JSON's path."""

        out = Path(out)
        header = (
            f"rules with the seat compensation found by smsim fairness ({self.players} players, "
            f"{self.policy}, by {self.by}: {self.rules_field} = {list(self.compensation)});\n"
            f"use as --rules {out / RULES_FILE}"
        )
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_file(out / RULES_FILE, self.rules.to_toml(header))
            write_manifest(out, KIND, self.to_dict())
        except OSError as exc:
            raise FairnessError(f"cannot write to {str(out)!r}: {exc.strerror}") from None
        return out / KINDS[KIND].file


def read_fairness(path: str | Path) -> FairnessResult:
    """Read a result written by ``smsim fairness --out DIR`` (``DIR`` or ``DIR/fairness.json``)."""
    data = read_manifest(path, KIND)
    try:
        rules = Rules.from_dict(data["rules"])
        table = pd.DataFrame(data["seats"], columns=list(SEAT_COLUMNS))
        search = [
            Evaluation(tuple(e["compensation"]), tuple(e.get("win", ())), float(e["objective"])) for e in data["search"]
        ]
        return FairnessResult(
            players=data["players"],
            policy=data["policy"],
            by=data["by"],
            games=data["games"],
            seed=data["seed"],
            check_games=data["check_games"],
            check_seed=data["check_seed"],
            max=data.get("max", DEFAULT_MAX),
            compensation=tuple(data["compensation"]),
            rules=rules,
            table=table,
            search=search,
            check=data.get("check", {}),
            command=data.get("command", []),
        )
    except RulesError as exc:
        raise FairnessError(f"{str(path)!r}: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # cut short or edited by hand
        raise FairnessError(f"{str(path)!r} is damaged (a field is missing or wrong: {exc})") from None


# -- the whole run ------------------------------------------------------------------------------
def verify_fairness_input(
    players: Any,
    policy: Any,
    by: Any,
    games: Any,
    check_games: Any,
    max_compensation: Any,
    seed: Any,
    check_seed: Any,
    rules: Rules,
) -> None:
    """Raise ``FairnessError``, ``SimulationError`` or ``PolicyError`` naming the first bad input."""

    if by not in BY_FIELD:
        raise FairnessError(f"--by must be coins or vp, got {by!r}")
    verify_players(players)
    whole(games, "games", low=1, high=MAX_GAMES, error=FairnessError)
    whole(check_games, "check_games", low=1, high=MAX_GAMES, error=FairnessError)
    whole(max_compensation, "max_compensation", low=0, error=FairnessError)
    whole(seed, "seed", error=FairnessError)
    whole(check_seed, "check_seed", error=FairnessError)
    if check_seed == seed:
        raise FairnessError(
            f"the check seed must differ from the search seed ({seed}): the check plays games the search never saw"
        )
    if not isinstance(policy, str):
        raise FairnessError(f"policy must be one policy's name (it sits in every seat), got {policy!r}")
    resolve_policies([policy] * players, players)
    if getattr(rules, BY_FIELD[by]):
        raise FairnessError(
            f"the rules already set {BY_FIELD[by]} = {list(getattr(rules, BY_FIELD[by]))}; "
            f"the search sets it (leave it out of the rules)"
        )


def _seat_stats(shares: np.ndarray) -> list[tuple[float, float, float]]:
    """Per seat, the mean win share over games and its 95% interval."""
    return [mean_and_interval(shares[:, s])[:3] for s in range(shares.shape[1])]


def _chi2(shares: np.ndarray) -> tuple[float, float]:
    """Chi-square statistic and p-value of "every seat wins 1/P of the games" on the win counts."""
    n, players = shares.shape
    expected = n / players
    x = float((((shares.sum(axis=0) - expected) ** 2) / expected).sum())
    return x, chi2_sf(x, players - 1)


def fairness(
    players: int = 4,
    policy: str = "balanced",
    by: str = "coins",
    games: int = 20000,
    seed: int = 0,
    check_games: int | None = None,
    check_seed: int | None = None,
    max_compensation: int = DEFAULT_MAX,
    rules: Rules | None = None,
    threads: int | None = None,
    on_step: Callable[[dict], None] | None = None,
    command: list[str] | None = None,
    cluster=None,
) -> FairnessResult:
    """Search the per-seat compensation (``by``: ``"coins"`` or ``"vp"``) that brings every seat's
    win share closest to 1/``players`` when ``policy`` sits in every seat, on games 0..games-1 of
    ``seed``; then check it on ``check_games`` (default ``games``) held-out games of ``check_seed``
    (default ``seed + 1_000_003``). ``rules`` (default docs/rules.md) are the base the
    compensation is added to. ``on_step`` receives a dict at the start, at each accepted move and
    at the end of the search (``what``: ``start``, ``step``, ``done``), after each candidate played
    (``candidate``) and before the check (``check``). See the module docstring for the search and
    the check. ``cluster``: play the candidates of each step side by side on a Dask cluster
    (``runs.executors``; each candidate's games are those played here)."""
    rules = rules or Rules()
    check_games = games if check_games is None else check_games
    check_seed = seed + CHECK_SEED_OFFSET if check_seed is None else check_seed
    verify_fairness_input(players, policy, by, games, check_games, max_compensation, seed, check_seed, rules)
    threads = checks_threads(threads, error=FairnessError)
    players, games, check_games, max_compensation = int(players), int(games), int(check_games), int(max_compensation)
    check_cluster(cluster)
    with open_executor(cluster) as executor:
        player = _Player(players, policy, by, rules, threads, executor)
        lo = 0 if by == "coins" else -max_compensation
        search = Search(lambda cs: player.shares_of(cs, games, seed), players, lo, max_compensation, on_step)
        best = search.run()
        if on_step is not None:
            on_step(
                {
                    "what": "check",
                    "evaluated": len(search.history),
                    "compensation": best.compensation,
                    "objective": best.objective,
                    "win": best.win,
                }
            )
        zero = (0,) * players
        before = player.shares(zero, check_games, check_seed)
        after = before if best.compensation == zero else player.shares(best.compensation, check_games, check_seed)
    parity = 1.0 / players
    rows = []
    for s, ((b, b_lo, b_hi), (a, a_lo, a_hi)) in enumerate(zip(_seat_stats(before), _seat_stats(after))):
        rows.append(
            {
                "seat": s,
                "compensation": best.compensation[s],
                "before": b,
                "before_lo": b_lo,
                "before_hi": b_hi,
                "after": a,
                "after_lo": a_lo,
                "after_hi": a_hi,
                "distinguishable": not a_lo <= parity <= a_hi,
            }
        )
    table = pd.DataFrame(rows, columns=list(SEAT_COLUMNS))
    chi_before, p_before = _chi2(before)
    chi_after, p_after = _chi2(after)
    check = {
        "before_max_deviation": float(np.abs(before.mean(axis=0) - parity).max()),
        "after_max_deviation": float(np.abs(after.mean(axis=0) - parity).max()),
        "chi2_before": chi_before,
        "p_before": p_before,
        "chi2_after": chi_after,
        "p_after": p_after,
        "dof": players - 1,
        "search_objective_zero": search.memo[zero].objective,
        "search_objective": best.objective,
    }
    return FairnessResult(
        players,
        policy,
        by,
        games,
        seed,
        check_games,
        check_seed,
        max_compensation,
        best.compensation,
        compensated(rules, by, best.compensation),
        table,
        list(search.history),
        check,
        list(command or []),
    )
