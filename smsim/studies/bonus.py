"""What each wall bonus is worth, by ablation (``smsim bonus-value``): the same games played with
one seat denied a side's bonus, paired on common dice.

The *baseline* is games 0 .. N-1 of one seed under the study's rules (docs/rules.md, unless
told otherwise), one policy in every seat. For each side and each seat in turn, the same games
are played again with that seat left out of that side's bonus (``Rules.wall_bonus_seats``,
docs/rules.md §7): it still completes the side and counts its defence, but receives nothing, and
the built-in policies know it (they value that bonus at nothing). Game g meets the same dice in
every setup (docs/rules.md §8: a die is a function of seed, game, round, seat, roll and die), so
the denied seat's win share and final VP are compared with *the same seat in the same baseline
game*.

The *value* of a side's bonus is with minus without: per game, the baseline seat's win share
(a shared win split between its winners: won / winners) minus the denied seat's, averaged over
the seats (every seat denied in turn), then averaged over games with the normal 95% interval of
the per-game values (the games are the independent units; the seats' rotations of one game are
one unit). Likewise for final VP. Positive: the bonus is worth having. Each side's value is
independent of the thread count and of how the games were split: each game replays alone from
(seed, game, rules).

On disk a study is a directory: ``bonus.json`` (the plan, written first), one Parquet file per
setup under ``games/`` (``00-baseline``, then ``NN-SIDE-seatS``: per game the win share, VP and
completed sides of the seats that setup measures: every seat in the baseline, the denied one
elsewhere) and ``values.csv`` (the table, written last). A rerun of the same plan plays only the
missing setups.

>>> plan = plan_bonus(players=2, policy="balanced", games=100, seed=1)
>>> [s.name for s in plan.setups()][:4]
['baseline', 'top-seat0', 'top-seat1', 'right-seat0']
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from smsim import layout as L
from smsim.checks import threads as checks_threads
from smsim.checks import whole
from smsim.errors import BonusError, DatasetError, RulesError
from smsim.files import write_file, writing
from smsim.intervals import mean_and_interval
from smsim.play.api import verify_players
from smsim.policies.registry import resolve_policy
from smsim.rules import SIDE_NAMES, Rules
from smsim.runs.dataset import policy_identity
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.runner import play_chunks
from smsim.runs.spec import default_threads, split_chunks, verify_games
from smsim.studies.sweep import SweepProgress

BASELINE = "baseline"


@dataclass(frozen=True)
class Setup:
    """One rules configuration of the study: the baseline (``side`` and ``seat`` -1) or ``seat``
    left out of ``side``'s bonus."""

    index: int
    side: int
    seat: int

    @property
    def name(self) -> str:
        return BASELINE if self.side < 0 else f"{SIDE_NAMES[self.side]}-seat{self.seat}"

    def file(self) -> str:
        return f"{self.index:02d}-{self.name}.parquet"


@dataclass(frozen=True)
class BonusPlan:
    """What an ablation plays: ``games`` games of ``seed`` at ``players`` players, ``policy`` in
    every seat, under ``rules`` and under each (side, seat) denial of them."""

    players: int
    policy: str
    games: int
    seed: int
    rules: Rules = field(default_factory=Rules)

    def setups(self) -> list[Setup]:
        """The baseline, then for each side (top, right, bottom, left) each seat in turn."""
        out = [Setup(0, -1, -1)]
        for side in range(L.N_SIDES):
            out += [Setup(len(out), side, seat) for seat in range(self.players)]
        return out

    def rules_of(self, setup: Setup) -> Rules:
        """The study's rules, with ``setup.seat`` left out of ``setup.side``'s bonus."""
        if setup.side < 0:
            return self.rules
        masks = list(self.rules.wall_bonus_seats)
        masks[setup.side] &= ~(1 << setup.seat)
        return Rules.from_dict({"wall_bonus_seats": masks}, self.rules)

    def identity(self) -> dict:
        """What makes two runs the same study: a directory of another identity is refused."""
        return {
            "players": self.players,
            "policy": self.policy,
            "games": self.games,
            "seed": self.seed,
            "policies": {self.policy: policy_identity(resolve_policy(self.policy))},
            "rules": self.rules.to_dict(),
        }


def plan_bonus(
    players: int, policy: str = "balanced", games: int = 20_000, seed: int = 0, rules: Rules | None = None
) -> BonusPlan:
    """An ablation's plan, checked before anything is played (``BonusError``, ``PolicyError``,
    ``SimulationError`` name what is wrong)."""
    players = verify_players(players)
    games = verify_games(games)
    seed = whole(seed, "seed", error=BonusError)
    if not isinstance(policy, str) or not policy:
        raise BonusError(f"--policy must name one policy, got {policy!r}")
    resolve_policy(policy)  # an unknown one: PolicyError, one line
    rules = rules or Rules()
    denied = [
        SIDE_NAMES[i] for i, m in enumerate(rules.wall_bonus_seats) if m & ((1 << players) - 1) != (1 << players) - 1
    ]
    if denied:
        raise BonusError(
            f"the study's rules already leave seats out of the {', '.join(denied)} bonus "
            "(wall_bonus_seats); an ablation starts from rules that give every seat every bonus"
        )
    return BonusPlan(players, policy, games, seed, rules)


# -- playing ------------------------------------------------------------------------------------
COLUMNS = ["game", "seat", "share", "vp", *(f"{side}_completed" for side in SIDE_NAMES)]
"""A setup's file: per game and measured seat, its win share (won / winners), final VP and the
sides it completed."""


def measured(score: np.ndarray, player: np.ndarray, first: int, seat: int) -> pd.DataFrame:
    """The rows of ``COLUMNS`` of a chunk's engine arrays (games first ..): every seat (``seat``
    -1) or one."""
    won = score[:, :, L.S_WON].astype(np.float64)
    winners = won.sum(axis=1, keepdims=True)
    share = np.divide(won, winners, out=np.zeros_like(won), where=winners > 0)
    seats = np.arange(score.shape[1]) if seat < 0 else np.array([seat])
    n = score.shape[0]
    done = player[:, seats, L.SIDES_DONE]
    out = {
        "game": np.repeat(np.arange(first, first + n, dtype=np.int64), len(seats)),
        "seat": np.tile(seats.astype(np.int8), n),
        "share": share[:, seats].ravel(),
        "vp": score[:, seats, L.S_TOTAL].astype(np.int32).ravel(),
    }
    for i, side in enumerate(SIDE_NAMES):
        out[f"{side}_completed"] = ((done >> i) & 1).astype(bool).ravel()
    return pd.DataFrame(out, columns=COLUMNS)


def play_setups(
    plan: BonusPlan,
    setups: list[Setup],
    threads: int | None = None,
    on_setup: Callable[[Setup, pd.DataFrame], None] | None = None,
    on_progress: Callable[[SweepProgress], None] | None = None,
) -> dict[str, pd.DataFrame]:
    """Play ``setups`` on one pool of threads (``runs.runner.play_chunks``), setup after setup
    with no wait between them; each setup's rows (``measured``) go to ``on_setup`` as soon as its
    last chunk is in, in the order of ``setups``. Returns them by setup name."""
    specs = [resolve_policy(plan.policy)] * plan.players
    chunks = [(first, n, k) for k in range(len(setups)) for first, n in split_chunks(0, plan.games)]
    per_setup = [sum(1 for c in chunks if c[2] == k) for k in range(len(setups))]
    frames: list[list[pd.DataFrame]] = [[] for _ in setups]
    out: dict[str, pd.DataFrame] = {}
    start = time.perf_counter()
    heard = [0, 0]  # games whose rows are in, the setup of the last chunk

    def finish(c: int, score, player, game_out) -> pd.DataFrame:
        first, _, k = chunks[c]
        return measured(score, player, first, setups[k].seat)

    def use(c: int, rows: pd.DataFrame) -> None:
        k = chunks[c][2]
        frames[k].append(rows)
        heard[0] += chunks[c][1]
        heard[1] = k
        if len(frames[k]) == per_setup[k]:
            out[setups[k].name] = pd.concat(frames[k], ignore_index=True)
            frames[k] = []
            if on_setup is not None:
                on_setup(setups[k], out[setups[k].name])

    def poll() -> None:
        if on_progress is None:
            return
        done, k = heard
        elapsed = time.perf_counter() - start
        on_progress(
            SweepProgress(
                done,
                plan.games * len(setups),
                elapsed,
                done / elapsed if elapsed else 0.0,
                setups[k].name,
                k,
                len(setups),
            )
        )

    play_chunks(
        chunks,
        plan.players,
        [(specs, plan.rules_of(s)) for s in setups],
        plan.seed,
        threads or default_threads(),
        finish,
        poll,
        use=use,
    )
    return out


def run_bonus(
    plan: BonusPlan,
    out: str | Path,
    threads: int | None = None,
    command: list[str] = (),
    on_progress: Callable[[SweepProgress], None] | None = None,
) -> BonusResult:
    """Play the study's missing setups into ``out``, write its table and return the result.
    Resumable: each setup's file is written whole as soon as it is played."""
    path = Path(out)
    if not check_out(out, "bonus", plan.identity()):
        write_manifest(path, "bonus", {"plan": plan.identity(), "command": list(command)})
    (path / "games").mkdir(parents=True, exist_ok=True)
    missing = [s for s in plan.setups() if not (path / "games" / s.file()).is_file()]

    def keep(setup: Setup, rows: pd.DataFrame) -> None:
        with writing(path / "games" / setup.file()) as tmp:  # whole or not at all
            pq.write_table(pa.Table.from_pandas(rows, preserve_index=False), tmp)

    if missing:
        play_setups(plan, missing, threads, keep, on_progress)
    result = read_bonus(path)
    write_file(path / "values.csv", result.table.to_csv(index=False))
    return result


def bonus_value(
    players: int,
    out: str | Path,
    policy: str = "balanced",
    games: int = 20_000,
    seed: int = 0,
    rules: Rules | None = None,
    threads: int | None = None,
) -> BonusResult:
    """A wall-bonus ablation from Python, as ``smsim bonus-value``: each side's bonus, one seat
    denied it in turn on the baseline's dice, its value (with minus without) in win share and VP.

    >>> result = smsim.bonus_value(4, "runs/bonus4", games=2000)   # doctest: +SKIP
    >>> result.table[["side", "bonus", "win_change", "vp_change"]]  # doctest: +SKIP
    """
    threads = checks_threads(threads, error=BonusError)
    return run_bonus(plan_bonus(players, policy, games, seed, rules), out, threads)


# -- reading and the table ----------------------------------------------------------------------
TABLE_COLUMNS = [
    "players",
    "policy",
    "side",
    "bonus",
    "face_vp",
    "games",
    "win_change",
    "win_change_lo",
    "win_change_hi",
    "vp_change",
    "vp_change_lo",
    "vp_change_hi",
    "completed",
    "completed_lo",
    "completed_hi",
    "completed_denied",
    "completed_denied_lo",
    "completed_denied_hi",
]
"""The value of each side's bonus: with minus without, as fractions of a win (``win_change``) and
in VP, with 95% intervals over games; ``completed``: the share of baseline seats that completed
the side, ``completed_denied``: of the denied seats (a seat without the bonus may not bother),
each with the 95% interval over games of its per-game share."""

SEAT_COLUMNS = [
    "players",
    "policy",
    "side",
    "seat",
    "games",
    "win_change",
    "win_change_lo",
    "win_change_hi",
    "vp_change",
    "vp_change_lo",
    "vp_change_hi",
]
"""The same per seat denied: the seats are not alike (the start player's edge)."""


def bonus_text(rules: Rules, side: int) -> str:
    """A side's bonus in words: "2 coins", "3 VP", "a person of up to 3 heads", "none"."""
    kind, amount = rules.wall_bonus_kind[side], rules.wall_bonus_amount[side]
    return {"person": f"a person of up to {amount} heads", "coins": f"{amount} coins", "vp": f"{amount} VP"}.get(
        kind, kind
    )


def face_value(rules: Rules, side: int) -> float:
    """A side's bonus by the rules, in VP: VP as they are, coins at the end-of-game rate of
    ``coins_per_vp``, no bonus 0; a person has no fixed value (NaN)."""
    kind, amount = rules.wall_bonus_kind[side], rules.wall_bonus_amount[side]
    if kind == "vp":
        return float(amount)
    if kind == "coins":
        return amount / rules.coins_per_vp
    return np.nan if kind == "person" else 0.0


@dataclass
class BonusResult:
    """A wall-bonus ablation read back: ``table`` (``TABLE_COLUMNS``, one row per side) and
    ``seats`` (``SEAT_COLUMNS``, one row per side and seat denied). A side not yet played for
    every seat is left out of both."""

    path: str
    players: int
    policy: str
    games: int  # planned
    seed: int
    rules: Rules
    table: pd.DataFrame
    seats: pd.DataFrame
    command: str = ""


def _read(f: Path) -> pd.DataFrame:
    try:
        return pq.read_table(f).to_pandas()
    except Exception as exc:  # pyarrow raises several kinds for a damaged file
        raise DatasetError(f"{str(f)!r} cannot be read ({exc})") from None


def _value(with_: np.ndarray, without: np.ndarray) -> tuple[float, float, float, int]:
    """Mean of per-game (with - without) and its 95% interval over games: rows are games."""
    d = with_ - without
    return mean_and_interval(d.mean(axis=1) if d.ndim > 1 else d)


def ablation_tables(plan: BonusPlan, frames: dict[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The study's two tables (``TABLE_COLUMNS``, ``SEAT_COLUMNS``) from the setups' rows by name
    (``measured``): games that every setup of a side holds are paired, the rest left out."""
    rows, seat_rows = [], []
    base = frames.get(BASELINE)
    players = plan.players
    if base is None or base.empty:
        return pd.DataFrame(columns=TABLE_COLUMNS), pd.DataFrame(columns=SEAT_COLUMNS)
    b = base.sort_values(["game", "seat"])
    games = b["game"].to_numpy()[::players]
    grid = {col: b[col].to_numpy(np.float64).reshape(-1, players) for col in ("share", "vp")}
    for side, name in enumerate(SIDE_NAMES):
        mine = [frames.get(f"{name}-seat{s}") for s in range(players)]
        if any(m is None for m in mine):
            continue
        common = np.intersect1d(games, mine[0]["game"].to_numpy())
        for m in mine[1:]:
            common = np.intersect1d(common, m["game"].to_numpy())
        at = np.searchsorted(games, common)
        denied = {
            col: np.column_stack([m.set_index("game").loc[common, col].to_numpy(np.float64) for m in mine])
            for col in ("share", "vp")
        }
        completed = np.column_stack([m.set_index("game").loc[common, f"{name}_completed"].to_numpy() for m in mine])
        row = {
            "players": players,
            "policy": plan.policy,
            "side": name,
            "bonus": bonus_text(plan.rules, side),
            "face_vp": face_value(plan.rules, side),
            "games": len(common),
        }
        for col, key in (("share", "win_change"), ("vp", "vp_change")):
            v, lo, hi, _ = _value(grid[col][at], denied[col])
            row.update({key: v, f"{key}_lo": lo, f"{key}_hi": hi})
        done = b[f"{name}_completed"].to_numpy(np.float64).reshape(-1, players)[at]
        for key, flags in (("completed", done), ("completed_denied", completed.astype(np.float64))):
            v, lo, hi, _ = mean_and_interval(flags.mean(axis=1))  # per game: the share of its seats
            row.update({key: v, f"{key}_lo": lo, f"{key}_hi": hi})
        rows.append(row)
        for s in range(players):
            seat_row = {"players": players, "policy": plan.policy, "side": name, "seat": s, "games": len(common)}
            for col, key in (("share", "win_change"), ("vp", "vp_change")):
                v, lo, hi, _ = _value(grid[col][at, s], denied[col][:, s])
                seat_row.update({key: v, f"{key}_lo": lo, f"{key}_hi": hi})
            seat_rows.append(seat_row)
    return pd.DataFrame(rows, columns=TABLE_COLUMNS), pd.DataFrame(seat_rows, columns=SEAT_COLUMNS)


def read_bonus(path: str | Path) -> BonusResult:
    """Read an ablation's directory (the setups played so far)."""
    path = Path(path)
    manifest = read_manifest(path, "bonus")
    ident = manifest["plan"]
    try:
        plan = BonusPlan(
            int(ident["players"]),
            str(ident["policy"]),
            int(ident["games"]),
            int(ident["seed"]),
            Rules.from_dict(ident.get("rules", {})),
        )
    except (KeyError, TypeError, ValueError, RulesError) as exc:
        raise BonusError(f"{str(path)!r}: bonus.json is damaged ({exc})") from None
    frames = {s.name: _read(path / "games" / s.file()) for s in plan.setups() if (path / "games" / s.file()).is_file()}
    table, seats = ablation_tables(plan, frames)
    return BonusResult(
        str(path),
        plan.players,
        plan.policy,
        plan.games,
        plan.seed,
        plan.rules,
        table,
        seats,
        " ".join(manifest.get("command", [])),
    )
