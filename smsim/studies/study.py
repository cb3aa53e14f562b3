"""A rules configuration against the printed rules, played until its verdicts settle (``smsim study``).

A designer's question is "what does my rule change do?". A study answers it at each player count
asked, at each level of play (L1 ``balanced`` and L2 ``learned`` by default), by playing *arms* on
common dice: game g of an arm draws the dice of (seed, g) whatever the rules, so the study's rules
and the printed rules meet the same dice and every change is measured game by game (paired).

- **mirror** arms: the level in every seat, under each rules: the start player's edge, the games
  the pirates decide (cannon losses change the winner), the game's length, and the figures of the
  church series, the walls and the pirates' losses;
- **bonus** arms, one per side: the mirror's games with that side's wall bonus withheld from one
  seat (the seat turns every ``BLOCK`` games): the bonus's value to a seat is its win share in the
  mirror minus its share without the bonus, on the same dice;
- **skill** arms: one seat of L2 among L1 (the seat turns every ``BLOCK`` games): the skill gap,
  L2's win share above parity.

**Precision decides the games, not a fixed count.** The study plays in rounds. After each round it
judges every headline figure against its margin (``intervals.margin_verdict``: *the same*,
*moves*, *not settled*) with an anytime-valid confidence sequence (``intervals.cs_interval``),
which holds whenever the study stops, and gives the next round's games only to the arms whose
figures are not settled: about the games each needs (``intervals.games_to_settle``), at most
``GROWTH`` times what it has. It stops when every headline figure is settled, when ``time`` is
spent or when an arm would pass ``max_games``; a figure left unsettled is stated with about how
many more games it needs. The headline figures are the changes from the printed rules of the start
edge, the pirates' share and the length at each level, each wall bonus's value under the study's
rules at each level and the change of the skill gap; for the printed rules alone (nothing to
compare) the start edge, the bonuses' values and the skill gap themselves.

**Reproducible and resumable.** Each round's plan (the games of every arm) is a function of the
games before it alone and is written to ``rounds/NNN.json`` before it is played; every chunk of
games is written whole as soon as it is played (``games/ARM/FIRST.parquet``). The same command on
another machine plays the same games; a study stopped (killed, or out of time) resumes inside its
round, losing at most the chunks in play.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from smsim import layout as L
from smsim.checks import positive, whole
from smsim.checks import threads as checks_threads
from smsim.errors import DatasetError, PolicyError, SimulationError, StudyError
from smsim.files import write_file, writing
from smsim.intervals import (
    MARGINS,
    NOT_SETTLED,
    check_margins,
    cs_half_width,
    cs_interval,
    games_to_settle,
    margin_verdict,
)
from smsim.play.api import verify_players
from smsim.policies.registry import rebuild_policy, resolve_policy, ship_policy
from smsim.rules import SIDE_NAMES, Rules
from smsim.runs.dataset import game_table, policy_identity, seat_table
from smsim.runs.executors import Failed, Task, open_executor, threads_here
from smsim.runs.executors import check as check_cluster
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.runner import kernel_compiled, play_chunks
from smsim.runs.spec import default_threads
from smsim.studies.adapt import BOTS_DIR, Adapted, AdaptPlan, adapt, check_base, read_adapted
from smsim.studies.balance import BALANCE_DIR, Part, balance_parts, held, play_balance, rules_file_of
from smsim.studies.bonus import SEAT_COLUMNS, TABLE_COLUMNS, bonus_text, face_value
from smsim.studies.fairness import fairness as fairness_search
from smsim.studies.fairness import win_shares
from smsim.studies.sweep import game_metrics, variant_name

LEVELS = ("balanced", "learned")  # L1 and L2 of the ladder (studies.skill.LADDER)
PLAYERS = (2, 3, 4, 5)
STUDY, PRINTED = "study", "printed"  # the two rules an arm is played under
BLOCK = 100
"""Games in which a bonus is withheld from the same seat, and the upper level of a skill arm sits
in the same seat; the seat turns block by block, and a round's games are whole turns of every seat
(``unit``), so each seat is measured equally often."""
FIRST_GAMES = 2_000  # an arm's first round, before any figure says what it needs
GROWTH = 4  # a round gives an arm at most this many times the games it has
MAX_GAMES = 2_000_000  # an arm's games, at most (``max_games``)
CHUNK_BLOCKS = 10  # blocks of games a task plays: what a stopped study loses at most, per task in play
ADAPT = AdaptPlan(budget=48, games=1000, held_out_games=4000)
"""How ``--adapt`` tunes L1 on the study's rules (``studies.adapt``): 48 candidates of 1,000 games, at
4 players where the study plays them, checked on 4,000 held-out games; a few minutes of 2 cores."""
FAIRNESS_GAMES, FAIRNESS_CHECK_GAMES = 20_000, 40_000  # ``--fairness``: L1's search, then its check
ADAPTED = "adapted"  # the adapted level's name: L1's name with this after it


# -- the plan -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Arm:
    """Games played alike: ``kind`` (mirror, bonus, skill) at ``players`` players, ``level`` in
    every seat (a skill arm: ``level`` in one seat among ``lower``), under the study's rules or the
    printed ones; a bonus arm withholds the bonus of ``side``."""

    kind: str
    players: int
    level: str
    rules: str
    side: int = -1
    lower: str = ""

    @property
    def key(self) -> str:
        what = f"bonus-{SIDE_NAMES[self.side]}" if self.kind == "bonus" else self.kind
        return f"{self.players}p-{self.level}-{self.rules}-{what}"

    def unit(self) -> int:
        """A round gives this arm a multiple of these games: a whole turn of the seats."""
        return BLOCK * (self.players if self.kind in ("bonus", "skill") else 1)


@dataclass(frozen=True)
class Figure:
    """One figure a study states: ``key`` (a metric of ``studies.sweep.game_metrics``, ``bonus_SIDE``
    or ``skill_gap``) at ``players`` and ``level``, in ``unit`` (a key of ``intervals.MARGINS``).
    ``change``: the study's rules minus the printed rules, game by game; else the value under the
    study's rules. ``headline`` figures decide when the study stops."""

    key: str
    label: str
    unit: str
    players: int
    level: str
    change: bool
    headline: bool

    @property
    def name(self) -> str:
        return f"{self.players}p {self.level} {self.key}{' change' if self.change else ''}"


MIRROR_FIGURES = (  # metric, label, unit, a headline change
    ("start_edge", "Start player's edge (win rate - parity)", "points", True),
    ("cannons_changed_winner", "Games the pirates decide (cannon losses change the winner)", "rate", True),
    ("rounds", "Game length (rounds)", "rounds", True),
    ("cannons_lost", "Cannons lost per seat", "count", False),
    ("vp_total", "VP per seat", "vp", False),
    ("vp_church_vp", "Church VP per seat", "vp", False),
    ("church_vp_share", "Church VP share of total VP", "rate", False),
    ("longest_series", "Longest church series per seat", "count", False),
    ("sides_completed", "Sides completed per seat", "count", False),
    ("vp_cannon_vp", "VP lost to the pirates per seat", "vp", False),
)
"""What the mirror arms measure, in the report's order: the first three are the headline changes."""


def mirror_figures(players: int) -> list[tuple[str, str, str, bool]]:
    """``MIRROR_FIGURES`` with each seat's win share after the start edge, at ``players`` players."""
    seats = [
        (f"win_seat_{s}", f"Seat {s + 1}{' (the start player)' if s == 0 else ''} wins", "rate", False)
        for s in range(players)
    ]
    return [MIRROR_FIGURES[0], *seats, *MIRROR_FIGURES[1:]]


MIRROR_COLUMNS = (
    "game",
    *(f"win_seat_{s}" for s in range(5)),
    *(m for m, *_ in MIRROR_FIGURES),
    *(f"vp_seat_{s}" for s in range(5)),  # each seat's VP and the sides it completed (a bit a side,
    *(f"sides_seat_{s}" for s in range(5)),  # board order): the bonus values' baseline (``bonus_tables``)
)


@dataclass(frozen=True)
class StudyPlan:
    """What a study plays: ``rules`` against the printed rules (``Rules()``) at each of ``players``,
    each of ``levels`` (the first the lower level of the skill arms), on ``seed``; ``bonus`` and
    ``skill``: whether the wall-bonus and skill arms are played; ``margins``: what each verdict judges
    against (``intervals.MARGINS``); ``name``: how the report names the rules (a file, a variant)."""

    rules: Rules
    players: tuple[int, ...] = PLAYERS
    levels: tuple[str, ...] = LEVELS
    seed: int = 0
    bonus: bool = True
    skill: bool = True
    margins: dict[str, float] = field(default_factory=lambda: dict(MARGINS))
    name: str = ""
    first_games: int = FIRST_GAMES
    adapt: bool = False  # L1 tuned on the study's rules, played as a level where it beats L1 (studies.adapt)
    fairness: bool = False  # the seat compensation of the study's rules at each player count (studies.fairness)
    adapted: str = ""  # the adapted bot's weights file, once it is known to beat L1 (set by run_study)
    balance: float = 0.0  # the balance report's studies too, at this scale of the baseline's counts (0: none)

    @property
    def compares(self) -> bool:
        """Whether there are printed rules to compare with (the study's rules differ from them)."""
        return self.rules != Rules()

    def rules_of(self, arm: Arm) -> Rules:
        return self.rules if arm.rules == STUDY else Rules()

    @property
    def adapted_level(self) -> str:
        return f"{self.levels[0]}-{ADAPTED}"

    @property
    def played_levels(self) -> tuple[str, ...]:
        """The levels, and L1 adapted to the rules where it was found to beat L1."""
        return (*self.levels, self.adapted_level) if self.adapted else self.levels

    def policy_of(self, level: str) -> str:
        """The policy a level plays: its name, or the adapted bot's weights file."""
        return self.adapted if level == self.adapted_level else level

    def printed_level(self, level: str) -> str:
        """Who plays the printed rules for ``level``: the level itself, but L1 for the adapted bot
        (each rules played by the bot tuned for it: the printed rules by L1, whose weights were)."""
        return self.levels[0] if level == self.adapted_level else level

    def bonus_sides(self) -> list[int]:
        """The sides whose bonus every seat receives under both rules: those a study can withhold."""
        if not self.bonus:
            return []
        full = [(1 << p) - 1 for p in self.players]
        return [
            side
            for side in range(L.N_SIDES)
            if all(r.wall_bonus_seats[side] & f == f for r in (self.rules, Rules()) for f in full)
        ]

    def arms(self) -> list[Arm]:
        tags = (STUDY, PRINTED) if self.compares else (STUDY,)
        out = []
        for p in self.players:
            for level in self.played_levels:
                for tag in tags if level != self.adapted_level else (STUDY,):  # its printed arms are L1's
                    out.append(Arm("mirror", p, level, tag))
                    out += [Arm("bonus", p, level, tag, side) for side in self.bonus_sides()]
            if self.skill and len(self.levels) > 1:
                out += [Arm("skill", p, self.levels[1], tag, lower=self.levels[0]) for tag in tags]
        return out

    def figures(self) -> list[Figure]:
        out = []
        for p in self.players:
            for level in self.played_levels:
                for key, label, unit, headline in mirror_figures(p):
                    if self.compares:
                        out.append(Figure(key, label, unit, p, level, True, headline))
                    else:  # the printed rules alone: the start edge is the headline, the rest described
                        out.append(Figure(key, label, unit, p, level, False, key == "start_edge"))
                for side in self.bonus_sides():
                    label = f"Value of the {SIDE_NAMES[side]} wall bonus (win rate with it - without)"
                    out.append(Figure(f"bonus_{SIDE_NAMES[side]}", label, "points", p, level, False, True))
                    if self.compares:
                        out.append(Figure(f"bonus_{SIDE_NAMES[side]}", label, "points", p, level, True, False))
            if self.skill and len(self.levels) > 1:
                label = f"Skill gap: {self.levels[1]}'s win rate among {self.levels[0]} - parity"
                out.append(Figure("skill_gap", label, "points", p, self.levels[1], False, not self.compares))
                if self.compares:
                    out.append(Figure("skill_gap", label, "points", p, self.levels[1], True, True))
        return out

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same study: a folder of another identity is refused."""
        return {
            "rules": self.rules.to_dict(),
            "printed": Rules().to_dict(),
            "players": list(self.players),
            "levels": list(self.levels),
            "policies": {name: policy_identity(resolve_policy(name)) for name in self.levels},
            "seed": self.seed,
            "bonus": self.bonus,
            "skill": self.skill,
            "margins": dict(self.margins),
            "block": BLOCK,
            "first_games": self.first_games,
            "adapt": ADAPT.describe() if self.adapt else None,
            "fairness": [FAIRNESS_GAMES, FAIRNESS_CHECK_GAMES] if self.fairness else None,
            "growth": GROWTH,
            **({"balance": self.balance} if self.balance else {}),
        }


def plan_study(
    rules: Rules | None = None,
    players=PLAYERS,
    levels=LEVELS,
    seed: int = 0,
    bonus: bool = True,
    skill: bool = True,
    margins: dict[str, float] | None = None,
    name: str = "",
    first_games: int = FIRST_GAMES,
    adapt: bool = False,
    fairness: bool = False,
    balance: float = 0.0,
) -> StudyPlan:
    """A study's plan, checked before anything is played (``StudyError``, ``PolicyError`` name
    what is wrong in one line). ``balance``: also play the balance report's studies of the rules
    (``studies.balance``) at this fraction of the committed baseline's game counts (1: the same)."""
    players = tuple(sorted({verify_players(whole(p, "players", error=StudyError)) for p in players}))
    if not players:
        raise StudyError("a study needs at least one player count")
    levels = tuple(dict.fromkeys(levels))
    if not levels:
        raise StudyError("a study needs at least one level of play")
    for level in levels:
        if not isinstance(level, str) or not level:
            raise StudyError(f"a level of play is a policy's name, not {level!r}")
        resolve_policy(level)  # an unknown one: PolicyError, one line
    seed = whole(seed, "seed", error=StudyError)
    rules = rules if rules is not None else Rules()
    first_games = whole(first_games, "first_games", low=1, error=StudyError)
    margins = check_margins(margins or {})
    if adapt:
        check_base(levels[0])  # only a built-in heuristic's weights are tuned again
    if balance:
        balance = positive(balance, "balance", error=StudyError)
        if balance > 1:
            raise StudyError(f"balance is a fraction of the baseline's games, at most 1, not {balance:g}")
    return StudyPlan(
        rules,
        players,
        levels,
        seed,
        bool(bonus),
        bool(skill),
        margins,
        name,
        first_games,
        bool(adapt),
        bool(fairness),
        balance=float(balance or 0.0),
    )


# -- playing --------------------------------------------------------------------------------------
def seat_of_block(first: int, players: int) -> int:
    """The seat a bonus is withheld from, or the upper level sits in, in the block starting at game
    ``first``: block b turns to seat b mod players."""
    return (first // BLOCK) % players


def play_arm_task(
    kind: str, players: int, setups: list, first: int, games: int, seed: int, threads: int | None
) -> pd.DataFrame | Failed:
    """Games first .. first + games - 1 of an arm as an executor's task: ``setups`` (each a shipped
    line-up and a rules dict; one for a mirror, one per seat for a bonus or skill arm, the seat
    turning block by block). A mirror's rows are ``game_metrics``' (``MIRROR_COLUMNS``); a bonus or
    skill arm's: game, the seat measured, its win share and VP."""
    threads = threads or threads_here() or default_threads()
    try:
        built = [([rebuild_policy(s) for s in lineup], Rules.from_dict(rules)) for lineup, rules in setups]
        if kind == "mirror":
            chunks = [(first, games, 0)]
        else:
            chunks = [(g, BLOCK, seat_of_block(g, players)) for g in range(first, first + games, BLOCK)]
        names = [s.name for s in built[0][0]]
        rows: list = [None] * len(chunks)

        def finish(i: int, score, player, game_out) -> pd.DataFrame:
            start, n, setup = chunks[i]
            if kind == "mirror":
                rules = built[0][1]
                seats = seat_table(score, player, game_out, names, rules, start)
                metrics = game_metrics(seats, game_table(game_out, players, rules, start), rules).reset_index()
                for s in range(players):
                    metrics[f"vp_seat_{s}"] = score[:, s, L.S_TOTAL].astype(np.int16)
                    metrics[f"sides_seat_{s}"] = sides_done(player[:, s])
                return metrics.reindex(columns=[c for c in MIRROR_COLUMNS if c in metrics.columns])
            return pd.DataFrame(
                {
                    "game": np.arange(start, start + n, dtype=np.int64),
                    "seat": np.full(n, setup, dtype=np.int8),
                    "share": win_shares(score, game_out)[:, setup],
                    "vp": score[:, setup, L.S_TOTAL].astype(np.int32),
                    "sides": sides_done(player[:, setup]),
                }
            )

        def use(i: int, frame: pd.DataFrame) -> None:
            rows[i] = frame

        play_chunks(chunks, players, built, seed, threads, finish, use=use)
    except (SimulationError, PolicyError) as exc:  # the same anywhere: not retried
        return Failed(str(exc))
    return pd.concat(rows, ignore_index=True)


def sides_done(player: np.ndarray) -> np.ndarray:
    """A seat's completed sides, a bit a side in board order, from its player rows."""
    return (player[:, L.SIDES_DONE] & ((1 << L.N_SIDES) - 1)).astype(np.int8)


def arm_setups(plan: StudyPlan, arm: Arm) -> list:
    """The (shipped line-up, rules dict) an arm's task plays: one, or one per seat."""
    rules = plan.rules_of(arm)
    level = ship_policy(resolve_policy(plan.policy_of(arm.level)))
    if arm.kind == "mirror":
        return [([level] * arm.players, rules.to_dict())]
    if arm.kind == "bonus":
        out = []
        for seat in range(arm.players):
            masks = list(rules.wall_bonus_seats)
            masks[arm.side] &= ~(1 << seat)
            out.append(([level] * arm.players, Rules.from_dict({"wall_bonus_seats": masks}, rules).to_dict()))
        return out
    lower = ship_policy(resolve_policy(arm.lower))
    return [
        ([level if s == seat else lower for s in range(arm.players)], rules.to_dict()) for seat in range(arm.players)
    ]


def _chunk_file(folder: Path, first: int, games: int) -> Path:
    return folder / f"{first:09d}-{games}.parquet"


_CHUNK = re.compile(r"(\d{9})-(\d+)\.parquet")


def arm_done(path: Path, arm: Arm) -> int:
    """The games of ``arm`` written, from game 0 on without a gap (a chunk past a gap, left by a
    stopped study, waits for the gap to be played)."""
    folder = path / "games" / arm.key
    spans = sorted(
        (int(m[1]), int(m[2])) for f in (folder.iterdir() if folder.is_dir() else []) if (m := _CHUNK.fullmatch(f.name))
    )
    done = 0
    for first, n in spans:
        if first > done:
            break
        done = max(done, first + n)
    return done


def read_arm(path: Path, arm: Arm, games: int, first: int = 0, columns: list[str] | None = None) -> pd.DataFrame:
    """The rows of ``arm``'s games ``first`` .. ``games`` - 1 (only the chunks that hold them are
    read; ``columns``: only these, and ``game``)."""
    folder = path / "games" / arm.key
    frames = []
    for f in sorted(folder.iterdir()) if folder.is_dir() else []:
        m = _CHUNK.fullmatch(f.name)
        if m and int(m[1]) < games and int(m[1]) + int(m[2]) > first:
            try:
                frames.append(pq.read_table(f, columns=None if columns is None else ["game", *columns]).to_pandas())
            except Exception as exc:  # pyarrow raises several kinds for a damaged file
                raise DatasetError(f"{str(f)!r} cannot be read ({exc})") from None
    if not frames:
        return pd.DataFrame(columns=["game"])
    out = pd.concat(frames, ignore_index=True)
    out = out[(out["game"] >= first) & (out["game"] < games)].drop_duplicates("game")
    return out.sort_values("game").set_index("game")


# -- the figures ----------------------------------------------------------------------------------
def _series(plan: StudyPlan, fig: Figure, tag: str, frames: dict[str, pd.DataFrame]) -> pd.Series | None:
    """The per-game values of ``fig`` under the rules ``tag``, by game; None where an arm is missing."""
    p = fig.players
    level = fig.level if tag == STUDY else plan.printed_level(fig.level)
    if fig.key == "skill_gap":
        arm = frames.get(Arm("skill", p, level, tag, lower=plan.levels[0]).key)
        return None if arm is None else arm["share"] - 1.0 / p
    mirror = frames.get(Arm("mirror", p, level, tag).key)
    if mirror is None:
        return None
    if fig.key.startswith("bonus_"):
        side = SIDE_NAMES.index(fig.key.removeprefix("bonus_"))
        denied = frames.get(Arm("bonus", p, level, tag, side).key)
        if denied is None:
            return None
        both = denied.join(mirror, how="inner")
        seat = both["seat"].to_numpy(np.int64)
        with_ = both[[f"win_seat_{s}" for s in range(p)]].to_numpy(np.float64)[np.arange(len(both)), seat]
        return pd.Series(with_ - both["share"].to_numpy(np.float64), index=both.index)
    return mirror.get(fig.key)


def figure_values(plan: StudyPlan, fig: Figure, frames: dict[str, pd.DataFrame]) -> dict[str, pd.Series]:
    """The per-game series a figure stands on: ``study`` and, where the study compares, ``printed``
    and ``change`` (their difference on the games both hold: paired)."""
    out = {}
    study = _series(plan, fig, STUDY, frames)
    if study is not None:
        out[STUDY] = study.dropna()
    if plan.compares:
        printed = _series(plan, fig, PRINTED, frames)
        if printed is not None:
            out[PRINTED] = printed.dropna()
        if study is not None and printed is not None:
            both = pd.concat([study, printed], axis=1, join="inner").dropna()
            out["change"] = both.iloc[:, 0] - both.iloc[:, 1]
    return out


@dataclass
class Moments:
    """The count, mean and sum of squared deviations of values seen batch by batch (merged as Chan,
    Golub and LeVeque do), so that a figure is judged over every game without holding them all."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, values: np.ndarray) -> None:
        v = np.asarray(values, dtype=np.float64)
        v = v[~np.isnan(v)]
        if not len(v):
            return
        n, mean = len(v), float(v.mean())
        m2 = float(((v - mean) ** 2).sum())
        total = self.n + n
        delta = mean - self.mean
        self.mean += delta * n / total
        self.m2 += m2 + delta * delta * self.n * n / total
        self.n = total

    @property
    def std(self) -> float:
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else math.nan

    def interval(self) -> tuple[float, float, float, int]:
        """(mean, lo, hi, n) with the confidence sequence's bounds (``intervals.cs_half_width``)."""
        if not self.n:
            return math.nan, math.nan, math.nan, 0
        half = cs_half_width(self.std, self.n)
        return self.mean, self.mean - half, self.mean + half, self.n


def judge(plan: StudyPlan, fig: Figure, moments: dict[str, Moments]) -> dict[str, Any]:
    """A figure's row of the study's table: its value under each rules and its change (``moments``
    of their per-game values), each with its confidence sequence's bounds, the games the judged one
    stands on, its verdict against its margin and about how many games in all it needs to settle."""
    row: dict[str, Any] = {
        "players": fig.players,
        "level": fig.level,
        "figure": fig.key,
        "label": fig.label,
        "unit": fig.unit,
        "kind": "change" if fig.change else "value",  # what the verdict judges
        "headline": fig.headline,
    }
    for tag in (STUDY, PRINTED, "change"):
        v, lo, hi, n = moments.get(tag, Moments()).interval()
        row.update({tag: v, f"{tag}_lo": lo, f"{tag}_hi": hi, f"{tag}_games": n})
    judged = "change" if fig.change else STUDY
    x = moments.get(judged, Moments())
    margin = plan.margins[fig.unit]
    row["margin"] = margin
    row["games"] = x.n
    row["verdict"] = margin_verdict(row[f"{judged}_lo"], row[f"{judged}_hi"], margin)
    row["games_needed"] = (
        x.n if row["verdict"] != NOT_SETTLED else games_to_settle(row[judged], x.std, x.n, margin, MAX_GAMES)
    )
    return row


def arms_of(plan: StudyPlan, fig: Figure) -> list[Arm]:
    """The arms a figure's games come from."""
    tags = (STUDY, PRINTED) if fig.change else (STUDY,)
    p = fig.players
    levels = {t: fig.level if t == STUDY else plan.printed_level(fig.level) for t in tags}
    if fig.key == "skill_gap":
        return [Arm("skill", p, levels[t], t, lower=plan.levels[0]) for t in tags]
    out = [Arm("mirror", p, levels[t], t) for t in tags]
    if fig.key.startswith("bonus_"):
        side = SIDE_NAMES.index(fig.key.removeprefix("bonus_"))
        out += [Arm("bonus", p, levels[t], t, side) for t in tags]
    return out


STREAM_GAMES = 100_000
"""Games of every arm read at a time when the figures are judged: a study's memory stays that of
this many games whatever it has played (the figures' moments are merged window by window; a pair
of arms meets game by game inside each window, and windows hold disjoint games)."""


def figures_table(plan: StudyPlan, path: Path, done: dict[str, int]) -> pd.DataFrame:
    """Every figure of the study (``StudyPlan.figures``) judged on the games played so far."""
    figures = plan.figures()
    moments = [{tag: Moments() for tag in (STUDY, PRINTED, "change")} for _ in figures]
    for first in range(0, max(done.values(), default=0), STREAM_GAMES):
        last = first + STREAM_GAMES
        frames = {
            arm.key: read_arm(path, arm, min(last, done[arm.key]), first)
            for arm in plan.arms()
            if done.get(arm.key, 0) > first
        }
        for fig, seen in zip(figures, moments):
            for tag, values in figure_values(plan, fig, frames).items():
                seen[tag].add(values.to_numpy(np.float64))
    return pd.DataFrame([judge(plan, fig, seen) for fig, seen in zip(figures, moments)])


def next_games(needed: int, have: int, unit: int, max_games: int) -> int:
    """The games an arm holding ``have`` gets for a figure that needs about ``needed`` in all: at
    least one ``unit`` more, at most ``GROWTH`` times ``have``, in whole units, never past
    ``max_games`` (the stopping rule's schedule, which the error-rate test plays too).

    >>> next_games(50_000, 2_000, 400, 10**6), next_games(2_100, 2_000, 400, 10**6)
    (8000, 2400)
    >>> next_games(10**9, 8_000, 100, 20_000)
    20000
    """
    want = min(max(needed, have + unit), GROWTH * max(have, unit))
    return min(-(-want // unit) * unit, max_games // unit * unit)


def next_targets(plan: StudyPlan, table: pd.DataFrame, done: dict[str, int], max_games: int) -> dict[str, int]:
    """The games each arm holds after the next round: an arm of an unsettled headline figure gets
    about the games the figure needs (``games_to_settle``), at least one more turn of its seats and
    at most ``GROWTH`` times what it has, never past ``max_games``; every other arm keeps what it has.
    A mirror arm gets at least its bonus arms' games (a bonus's value pairs with the mirror's games).
    A function of the games played alone: the same study plans the same rounds anywhere."""
    targets = dict(done)
    figures = plan.figures()
    for fig, row in zip(figures, table.itertuples()):
        if not fig.headline or row.verdict != NOT_SETTLED:
            continue
        for arm in arms_of(plan, fig):
            want = next_games(int(row.games_needed), done.get(arm.key, 0), arm.unit(), max_games)
            targets[arm.key] = max(targets[arm.key], want)
    for arm in plan.arms():
        if arm.kind == "bonus":
            mirror = Arm("mirror", arm.players, arm.level, arm.rules).key
            targets[mirror] = max(targets[mirror], targets[arm.key])
    return targets


# -- the study ------------------------------------------------------------------------------------
@dataclass
class StudyProgress:
    """Reported after every chunk: the round, the arm whose chunk is in, the round's games done and
    planned, the seconds since the call and the headline figures not yet settled."""

    round: int
    arm: str
    done: int
    total: int
    seconds: float
    unsettled: list[str]


@dataclass
class StudyResult:
    """A study read back: its plan, its folder, every figure judged (``table``: ``judge``'s rows),
    its rounds (``rounds``: one row per round and arm) and why it stopped (``stopped``: settled, time,
    max games, or playing: stopped inside a round)."""

    path: str
    plan: StudyPlan
    table: pd.DataFrame
    rounds: pd.DataFrame
    stopped: str
    seconds: float
    source: str = ""  # the rules file or variant the study was given
    command: str = ""
    arm_games: dict[str, int] = field(default_factory=dict)  # the games each arm holds
    bot: Adapted | None = None  # the bot --adapt tuned (played where it beats L1)
    balance: list[str] = field(default_factory=list)  # the balance report's studies that hold a result

    @property
    def rules(self) -> Rules:
        return self.plan.rules

    @property
    def games(self) -> int:
        """Games played, over every arm."""
        return sum(self.arm_games.values())

    def unsettled(self) -> pd.DataFrame:
        """The headline figures whose verdict is not settled, with the games each needs."""
        t = self.table
        return t[t["headline"] & (t["verdict"] == NOT_SETTLED)]


SETTLED, OUT_OF_TIME, AT_MOST, PLAYING = "settled", "time", "max games", "playing"


def _round_file(path: Path, r: int) -> Path:
    return path / "rounds" / f"{r:03d}.json"


def read_rounds(path: Path) -> list[dict]:
    """The rounds recorded so far, in order (the last may be unfinished)."""
    out = []
    r = 0
    while (f := _round_file(path, r)).is_file():
        try:
            out.append(json.loads(f.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise StudyError(f"{str(f)!r} is damaged ({exc})") from None
        r += 1
    return out


def run_study(
    plan: StudyPlan,
    out: str | Path,
    seconds: float | None = None,
    max_games: int = MAX_GAMES,
    threads: int | None = None,
    cluster=None,
    command: list[str] = (),
    source: str = "",
    on_progress: Callable[[StudyProgress], None] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> StudyResult:
    """Play ``plan`` into ``out`` round by round until every headline figure is settled, ``seconds``
    have passed since the call (the chunks in play are dropped; a rerun plays them), or an arm would
    pass ``max_games``; returns the study read back (``read_study``). Resumes a study stopped in
    ``out``, inside its round. ``cluster``: play the chunks on a Dask cluster (``open_executor``).
    Before the rounds, the plan's optional studies (``prepare``), each once: a rerun reads them;
    after them, with ``plan.balance``, the balance report's studies (``studies.balance``) in the time
    left. ``on_step(words)`` hears each of them begin."""
    started = time.monotonic()
    deadline = None if seconds is None else started + positive(seconds, "time", error=StudyError)
    max_games = whole(max_games, "max_games", low=1, error=StudyError)
    threads = checks_threads(threads, error=StudyError)
    check_cluster(cluster)
    path = Path(out)
    identity = plan.identity()
    if not check_out(out, "study", identity):
        write_manifest(path, "study", {"plan": identity, "command": list(command), "source": source, "name": plan.name})
    plan = prepare(plan, path, threads, cluster, on_step)
    arms = {arm.key: arm for arm in plan.arms()}
    setups = {key: arm_setups(plan, arm) for key, arm in arms.items()}
    if on_step is not None and not all(
        kernel_compiled(arm.players, [rebuild_policy(x) for x in setups[key][0][0]], plan.rules_of(arm))
        for key, arm in arms.items()
    ):
        on_step("compiling the game engine for these line-ups, first run only (the first round waits for it)")
    rounds = read_rounds(path)
    stopped = PLAYING
    with open_executor(cluster) as executor:
        while True:
            done = {key: arm_done(path, arm) for key, arm in arms.items()}
            table = figures_table(plan, path, done)
            if rounds and not rounds[-1].get("finished"):  # a round cut short: played on as planned
                r, targets = len(rounds) - 1, {k: int(v) for k, v in rounds[-1]["targets"].items()}
            else:
                targets = next_targets(plan, table, done, max_games) if rounds else first_targets(plan, max_games)
                if rounds and targets == done:
                    headline = table[table["headline"]]
                    stopped = SETTLED if (headline["verdict"] != NOT_SETTLED).all() else AT_MOST
                    break
                r = len(rounds)
                rounds.append({"round": r, "targets": targets, "before": done, "finished": False})
                write_file(_round_file(path, r), json.dumps(rounds[-1], indent=1) + "\n")
            if deadline is not None and time.monotonic() >= deadline:
                stopped = OUT_OF_TIME
                break
            unsettled = [f.name for f, v in zip(plan.figures(), table["verdict"]) if f.headline and v == NOT_SETTLED]
            if not _play_round(
                plan, path, arms, setups, done, targets, r, threads, executor, deadline, started, unsettled, on_progress
            ):
                stopped = OUT_OF_TIME
                break
            rounds[-1].update(finished=True)
            write_file(_round_file(path, r), json.dumps(rounds[-1], indent=1) + "\n")
    if plan.balance:
        play_balance(balance_of(plan, path), path / BALANCE_DIR, deadline, threads, on_step)
    result = read_study(path)
    result.stopped, result.seconds = stopped, time.monotonic() - started
    write_file(path / "figures.csv", result.table.to_csv(index=False))
    write_file(path / "stopped.json", json.dumps({"stopped": stopped, "seconds": round(result.seconds, 1)}) + "\n")
    return result


def balance_of(plan: StudyPlan, path: Path) -> list[Part]:
    """The balance report's studies of ``plan`` (``studies.balance``), under its rules."""
    rules_file = rules_file_of(plan.rules, path / BALANCE_DIR)
    return balance_parts(plan.players, plan.seed, rules_file, plan.balance, printed=not plan.compares)


def balance_folders(plan: StudyPlan, path: Path) -> list[str]:
    """The folders of the balance report's studies that hold a result, whole or so far."""
    if not plan.balance:
        return []
    return held(balance_parts(plan.players, plan.seed, "", plan.balance, printed=not plan.compares), path / BALANCE_DIR)


def adapt_plan(plan: StudyPlan) -> AdaptPlan:
    """``ADAPT`` for this study: L1 tuned at 4 players where the study plays them, on its seed."""
    players = 4 if 4 in plan.players else plan.players[0]
    return AdaptPlan(**{**ADAPT.describe(), "base": plan.levels[0], "players": players, "seed": plan.seed})


def adapted_bot(plan: StudyPlan, path: Path) -> Adapted | None:
    """The bot ``--adapt`` tuned for the study, read from its folder (None: not tuned yet)."""
    return read_adapted(path / BOTS_DIR, plan.levels[0], rules_named(plan.rules), plan.levels[0])


def fairness_folders(plan: StudyPlan, path: Path) -> list[Path]:
    """Where ``--fairness`` writes each player count's compensation search."""
    return [path / "fairness" / f"{p}p" for p in plan.players] if plan.fairness else []


def prepare(plan: StudyPlan, path: Path, threads, cluster, on_step=None) -> StudyPlan:
    """The optional studies before the rounds, each skipped where the folder holds it: with
    ``adapt``, L1 tuned on the study's rules (``studies.adapt``; the plan then plays it as a level
    where its held-out share beats L1's, else L1 alone: the tuner found nothing); with ``fairness``,
    L1's seat compensation in coins at each player count (``studies.fairness``). Returns the plan to
    play."""
    say = on_step or (lambda words: None)
    if plan.adapt and plan.compares:
        if adapted_bot(plan, path) is None:
            say(f"tuning {plan.levels[0]} on these rules ({ADAPT.budget} candidates of {ADAPT.games:,} games)")
        bot = adapt(path / BOTS_DIR, plan.levels[0], rules_named(plan.rules), plan.rules, adapt_plan(plan), threads)
        if not bot.found_nothing:
            plan = replace(plan, adapted=bot.path)
    for folder, p in zip(fairness_folders(plan, path), plan.players):
        if not (folder / "fairness.json").is_file():
            say(f"the seat compensation at {p} players ({FAIRNESS_GAMES:,} search games)")
            fairness_search(
                p,
                plan.levels[0],
                "coins",
                FAIRNESS_GAMES,
                plan.seed,
                FAIRNESS_CHECK_GAMES,
                rules=plan.rules,
                threads=threads,
                cluster=cluster,
                command=["smsim", "study", "--fairness"],
            ).write(folder)
    return plan


def first_targets(plan: StudyPlan, max_games: int) -> dict[str, int]:
    """The first round: ``plan.first_games`` an arm (whole turns of its seats), at most ``max_games``."""
    out = {}
    for arm in plan.arms():
        unit = arm.unit()
        out[arm.key] = max(unit, min(-(-plan.first_games // unit) * unit, max_games // unit * unit))
    return out


def _play_round(
    plan, path, arms, setups, done, targets, r, threads, executor, deadline, started, unsettled, on_progress
) -> bool:
    """Play the round's missing chunks, breadth first over the arms (a round cut short leaves every
    arm about equally far); each chunk written whole as it comes. False if the time ran out."""
    per_arm = []
    step = CHUNK_BLOCKS * BLOCK
    for key in arms:
        per_arm.append([(key, g, min(step, targets[key] - g)) for g in range(done[key], targets[key], step)])
    order = [c[k] for k in range(max(map(len, per_arm), default=0)) for c in per_arm if k < len(c)]
    if not order:
        return True
    tasks = [
        Task(
            play_arm_task,
            (arms[key].kind, arms[key].players, setups[key], first, n, plan.seed, threads),
            f"{key}-{first:09d}",
        )
        for key, first, n in order
    ]
    total, played = sum(n for *_, n in order), 0
    results = executor.run(tasks, ordered=True, ahead=1)
    try:
        for (key, first, n), (_, frame) in zip(order, results):
            if isinstance(frame, Failed):
                raise StudyError(frame.message)
            with writing(_chunk_file(path / "games" / key, first, n)) as tmp:  # whole or not at all
                pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp)
            played += n
            if on_progress is not None:
                on_progress(StudyProgress(r, key, played, total, time.monotonic() - started, unsettled))
            if deadline is not None and time.monotonic() >= deadline and played < total:
                return False
    finally:
        results.close()  # the chunks still in play are stopped
    return True


def read_study(path: str | Path) -> StudyResult:
    """A study's folder read back: its plan, every figure judged on the games played, its rounds."""
    path = Path(path)
    manifest = read_manifest(path, "study")
    ident = manifest["plan"]
    try:
        plan = StudyPlan(
            Rules.from_dict(ident["rules"]),
            tuple(int(p) for p in ident["players"]),
            tuple(str(x) for x in ident["levels"]),
            int(ident["seed"]),
            bool(ident["bonus"]),
            bool(ident["skill"]),
            {k: float(v) for k, v in ident["margins"].items()},
            str(manifest.get("name", "")),
            int(ident.get("first_games", FIRST_GAMES)),
            ident.get("adapt") is not None,
            ident.get("fairness") is not None,
            balance=float(ident.get("balance", 0.0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StudyError(f"{str(path)!r}: study.json is damaged ({exc})") from None
    bot = adapted_bot(plan, path) if plan.adapt else None
    if bot is not None and not bot.found_nothing:
        plan = replace(plan, adapted=bot.path)
    done = {arm.key: arm_done(path, arm) for arm in plan.arms()}
    rounds = read_rounds(path)
    rows = [
        {"round": x["round"], "arm": key, "games": int(target) - int(x["before"].get(key, 0)), "done": int(target)}
        for x in rounds
        for key, target in x["targets"].items()
        if x.get("finished")
    ]
    said = {}
    if (path / "stopped.json").is_file():
        try:
            said = json.loads((path / "stopped.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            said = {}  # written last: a damaged one says only that the study did not finish writing
    return StudyResult(
        str(path),
        plan,
        figures_table(plan, path, done),
        pd.DataFrame(rows, columns=["round", "arm", "games", "done"]),
        str(said.get("stopped", PLAYING)),
        float(said.get("seconds", math.nan)),
        str(manifest.get("source", "")),
        " ".join(manifest.get("command", [])),
        done,
        bot,
        balance_folders(plan, path),
    )


def settling(result: StudyResult) -> pd.DataFrame:
    """For each headline figure, the look (the end of a round) from which its verdict stayed settled,
    and the games it stood on then: what each figure took to settle (games NaN: not settled at the
    last look). Replays the study's finished rounds on its games."""
    path = Path(result.path)
    plan = result.plan
    rows = {}
    for x in read_rounds(path):
        if not x.get("finished"):
            continue
        done = {arm.key: min(int(x["targets"].get(arm.key, 0)), arm_done(path, arm)) for arm in plan.arms()}
        table = figures_table(plan, path, done)
        for fig, row in zip(plan.figures(), table.itertuples()):
            if not fig.headline:
                continue
            settled = row.verdict != NOT_SETTLED
            was = rows.get(fig.name)
            if settled and (was is None or was["round"] is None):
                rows[fig.name] = {"round": x["round"], "games": int(row.games), "verdict": row.verdict}
            elif not settled:
                rows[fig.name] = {"round": None, "games": math.nan, "verdict": row.verdict}
    return pd.DataFrame(
        [
            {"players": f.players, "level": f.level, "figure": f.key, "kind": "change" if f.change else "value", **r}
            for f in plan.figures()
            if f.headline and (r := rows.get(f.name)) is not None
        ]
    )


def _by_seat(frame: pd.DataFrame, prefix: str, players: int) -> np.ndarray:
    return frame[[f"{prefix}_seat_{s}" for s in range(players)]].to_numpy(np.float64)


def bonus_tables(result: StudyResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What each wall bonus is worth under the study's rules, from its arms, in the shape of a
    wall-bonus ablation's tables (``studies.bonus.TABLE_COLUMNS`` and ``SEAT_COLUMNS``), so that a
    balance report reads them as it reads ``smsim bonus-value``: per player count, level and side,
    on the games both the mirror and the bonus arm hold (game g denies the bonus to the seat of its
    block), the denied seat's win share and VP with the bonus minus without, and the share of seats
    that completed the side (the mirror's) and of denied seats (the bonus arm's); every bracket the
    study's confidence sequence (``intervals.cs_interval``: valid where the study stopped). Empty for
    a study without bonus arms, or written before its arms recorded each seat's VP and sides."""
    plan, path = result.plan, Path(result.path)
    rows, seat_rows = [], []
    for p in plan.players:
        seats = range(p)
        for level in plan.levels:
            mirror_arm = Arm("mirror", p, level, STUDY)
            columns = [
                *(f"win_seat_{s}" for s in seats),
                *(f"vp_seat_{s}" for s in seats),
                *(f"sides_seat_{s}" for s in seats),
            ]
            try:
                mirror = read_arm(path, mirror_arm, result.arm_games.get(mirror_arm.key, 0), columns=columns)
            except DatasetError:  # chunks written before the seats' columns
                continue
            for side in plan.bonus_sides():
                arm = Arm("bonus", p, level, STUDY, side)
                try:
                    denied = read_arm(
                        path, arm, result.arm_games.get(arm.key, 0), columns=["seat", "share", "vp", "sides"]
                    )
                except DatasetError:
                    continue
                both = denied.join(mirror, how="inner")
                if both.empty:
                    continue
                seat = both["seat"].to_numpy(np.int64)
                at = np.arange(len(both))

                values = {
                    "win_change": _by_seat(both, "win", p)[at, seat] - both["share"].to_numpy(np.float64),
                    "vp_change": _by_seat(both, "vp", p)[at, seat] - both["vp"].to_numpy(np.float64),
                    "completed": ((_by_seat(both, "sides", p).astype(np.int64) >> side) & 1).mean(axis=1),
                    "completed_denied": ((both["sides"].to_numpy(np.int64) >> side) & 1).astype(np.float64),
                }
                row = {
                    "players": p,
                    "policy": level,
                    "side": SIDE_NAMES[side],
                    "bonus": bonus_text(plan.rules, side),
                    "face_vp": face_value(plan.rules, side),
                    "games": len(both),
                }
                for key, v in values.items():
                    mean, lo, hi, _ = cs_interval(v)
                    row.update({key: mean, f"{key}_lo": lo, f"{key}_hi": hi})
                rows.append(row)
                for s in seats:
                    mine = seat == s
                    seat_row = {
                        "players": p,
                        "policy": level,
                        "side": SIDE_NAMES[side],
                        "seat": s,
                        "games": int(mine.sum()),
                    }
                    for key in ("win_change", "vp_change"):
                        mean, lo, hi, _ = cs_interval(values[key][mine])
                        seat_row.update({key: mean, f"{key}_lo": lo, f"{key}_hi": hi})
                    seat_rows.append(seat_row)
    return pd.DataFrame(rows, columns=TABLE_COLUMNS), pd.DataFrame(seat_rows, columns=SEAT_COLUMNS)


def rules_named(rules: Rules) -> str:
    """The study's rules in words: the changes from the printed rules (``sweep.variant_name``)."""
    printed = Rules().to_dict()
    changes = {k: v for k, v in rules.to_dict().items() if printed.get(k) != v}
    return variant_name(changes, printed) if changes else "the printed rules"


def study(
    out: str | Path,
    rules: Rules | None = None,
    players=PLAYERS,
    levels=LEVELS,
    seed: int = 0,
    seconds: float | None = None,
    max_games: int = MAX_GAMES,
    bonus: bool = True,
    skill: bool = True,
    margins: dict[str, float] | None = None,
    threads: int | None = None,
    cluster=None,
    adapt: bool = False,
    fairness: bool = False,
    balance: float = 0.0,
) -> StudyResult:
    """A study from Python, as ``smsim study``: ``rules`` against the printed rules, played into
    ``out`` until its verdicts settle, ``seconds`` pass or an arm reaches ``max_games``.

    >>> result = study("runs/my-rules", Rules(cannon_penalty=3), players=[4], seconds=600)  # doctest: +SKIP
    >>> result.table[result.table["headline"]]                                             # doctest: +SKIP
    """
    plan = plan_study(
        rules, players, levels, seed, bonus, skill, margins, adapt=adapt, fairness=fairness, balance=balance
    )
    return run_study(plan, out, seconds, max_games, threads, cluster)
