"""Luck against skill: how much of a result is the dice, and a skill gap with the dice's luck
taken out (docs/feel.md, "Luck against skill").

A position's **value**, for every seat, is its expected win credit: the mean over ``samples``
plays from it by the same policies with other dice, to the round's end, whose position the
``winprob`` model reads (it was fitted on rounds' starts), or, in the game's **endgame** (once its
fullest city has fewer than ``endgame`` empty spaces), to the game's end, whose outcome is known
(``play.loop.Luck``). A turn's **luck**, for every seat, is the value after the turn minus the
value before it. A seat's luck in a game sums every turn's (every seat's dice); its **own** luck,
its own turns' alone (what a player feels: how good were my rolls). Whatever the seats play, a
turn's luck has mean 0 given everything before it, so a seat's luck is a **control variate**: its
result minus the luck's part of it estimates the same thing with less of the dice's noise. The
model's errors are what the luck misses outside the endgame; inside it, the luck is the dice's
whole effect under these policies, so that the longer the endgame, the more the luck explains,
and the more each game costs to measure (docs/feel.md: the trade).

A **match** is one seat of policy A against B in the others, every seat rotation on the same
dice (a block: the game's dice played once with A in each seat). Per block, A's win share
(parity 1/P); the adjusted share subtracts ``c`` times A's luck, ``c`` fitted by least squares
on the other half of the blocks (cross-fitting: a coefficient never weighs the blocks it was
fitted on, so the adjustment has mean 0). Intervals are over blocks. A policy that searches is
refused: the plays would need its search too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from smsim import layout as L
from smsim.checks import threads as checks_threads
from smsim.checks import whole
from smsim.errors import LuckError
from smsim.files import write_file, writing
from smsim.intervals import Z_95, mean_and_interval
from smsim.play.loop import LUCK_FIELDS, MAX_LUCK_SAMPLES
from smsim.policies.registry import any_search, resolve_policy
from smsim.rules import Rules
from smsim.runs.dataset import policy_identity
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.runner import DiceLuck, engine_arrays, kernel, on_threads, slice_plan
from smsim.runs.spec import default_threads
from smsim.studies.winprob import WinProbModel

CHUNK = 2_000  # blocks played and turned into rows at a time
ENDGAME = 25  # the default endgame's empty spaces: the last half of a game or so (docs/feel.md)
SCHEME = 2  # how luck is measured: a folder of another scheme is measured again, not read
Z_ONE_SIDED_95 = 1.6448536269514722


@dataclass(frozen=True)
class LuckPlan:
    """One seat of ``policy`` against ``against`` in the others, every rotation, ``blocks`` blocks."""

    policy: str
    against: str
    players: int = 2
    blocks: int = 2_000
    seed: int = 0
    samples: int = 16  # plays each value is the mean of
    endgame: int = ENDGAME  # the endgame: the fullest city has fewer empty spaces (the target the game's end)

    def lineups(self) -> list[list[str]]:
        return [
            [self.against] * r + [self.policy] + [self.against] * (self.players - 1 - r) for r in range(self.players)
        ]


def verify_plan(plan: LuckPlan) -> None:
    """Check the plan before anything is played."""
    whole(plan.players, "--players", low=2, high=5, error=LuckError)
    whole(plan.blocks, "--games", low=2, high=100_000_000, error=LuckError)
    whole(plan.seed, "--seed", error=LuckError)
    whole(plan.samples, "--samples", low=2, high=MAX_LUCK_SAMPLES, error=LuckError)
    whole(plan.endgame, "--endgame", low=0, high=L.N_SPACES + 1, error=LuckError)
    for name in (plan.policy, plan.against):
        if any_search([resolve_policy(name)]):
            raise LuckError(
                f"{name!r} searches: the luck of its dice would need its search in every play "
                "from every turn; measure its base policy"
            )


def play_match(
    plan: LuckPlan,
    model: WinProbModel,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Every block's games with luck measured: one row per (block, rotation, seat) with the seat's
    win credit (a shared win split), whether it is the measured policy's, and its ``LUCK_FIELDS``."""
    rules = rules or Rules()
    verify_plan(plan)
    coef = model.coef_for(plan.players)
    setups = [[resolve_policy(name) for name in lineup] for lineup in plan.lineups()]
    luck = DiceLuck(coef, plan.samples, plan.endgame)
    plays = [kernel(plan.players, specs, plan.seed, rules, luck) for specs in setups]
    chunks = [
        (r, first, min(CHUNK, plan.blocks - first))
        for r in range(plan.players)
        for first in range(0, plan.blocks, CHUNK)
    ]
    threads = checks_threads(threads, error=LuckError) or default_threads()
    slices = slice_plan([(i, n) for i, (_, _, n) in enumerate(chunks)], threads)
    parts: dict[int, pd.DataFrame] = {}
    done = [0]

    def begin(i: int) -> tuple:
        n = chunks[i][2]
        return (*engine_arrays(n, plan.players), np.zeros((n, plan.players, len(LUCK_FIELDS))))

    def play(held: tuple, i: int, lo: int, hi: int) -> None:
        r, first, _ = chunks[i]
        score, player, game_out, lucky = held
        lucky[lo:hi] = plays[r](first + lo, score[lo:hi], player[lo:hi], game_out[lo:hi])
        done[0] += hi - lo

    def finish(held: tuple, i: int) -> pd.DataFrame:
        r, first, n = chunks[i]
        score, _, _, lucky = held
        won = score[:, :, L.S_WON].astype(np.float64)
        credit = won / np.maximum(won.sum(axis=1, keepdims=True), 1.0)
        rows = {
            "block": np.repeat(np.arange(first, first + n), plan.players),
            "rotation": r,
            "seat": np.tile(np.arange(plan.players), n),
            "measured": np.tile(np.arange(plan.players) == r, n),
            "credit": credit.ravel(),
        }
        for f, name in enumerate(LUCK_FIELDS):
            rows[name] = lucky[:, :, f].ravel()
        return pd.DataFrame(rows)

    def use(i: int, table: pd.DataFrame) -> None:
        parts[i] = table

    def poll() -> None:
        if on_progress is not None:
            on_progress(done[0], plan.blocks * plan.players)

    on_threads(slices, threads, play, finish, use, begin=begin, poll=poll)
    out = pd.concat([parts[i] for i in sorted(parts)], ignore_index=True)
    return out.sort_values(["block", "rotation", "seat"], ignore_index=True)


def block_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per block: the measured policy's mean win credit over the rotations and its mean luck."""
    mine = rows[rows["measured"]].groupby("block")
    return pd.DataFrame({"credit": mine["credit"].mean(), "luck": mine["luck"].mean()})


def r_squared(y: np.ndarray, x: np.ndarray, groups: np.ndarray) -> float:
    """The share of y's variance left by its groups' means (a seat's policy and place) that its
    least-squares line on x, within the groups, explains (a partial R^2)."""
    codes = np.unique(groups, return_inverse=True)[1]
    dummies = np.eye(codes.max() + 1)[codes]

    def residual(design: np.ndarray) -> np.ndarray:
        beta, *_ = np.linalg.lstsq(design, y, rcond=None)
        return y - design @ beta

    left = residual(dummies).var()
    return 1.0 - residual(np.column_stack([dummies, x])).var() / left if left > 0 else math.nan


def cross_fitted(y: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """y minus its regression on x (with an intercept, the intercept kept), each half of the rows
    adjusted with the coefficients fitted on the other half; and the two halves' coefficients."""
    n = len(y)
    halves = (np.arange(n) < n // 2, np.arange(n) >= n // 2)
    out = y.astype(np.float64).copy()
    coefs = []
    for fit, apply in (halves, halves[::-1]):
        design = np.column_stack([np.ones(fit.sum()), x[fit]])
        beta, *_ = np.linalg.lstsq(design, y[fit], rcond=None)
        out[apply] = y[apply] - x[apply] @ beta[1:]
        coefs.append(beta[1:])
    return out, np.array(coefs)


@dataclass
class LuckResult:
    """A match's figures: ``table`` (one row a figure: value, lo, hi), the per-block rows."""

    plan: LuckPlan
    table: pd.DataFrame
    blocks: pd.DataFrame
    rows: pd.DataFrame


def summarise(plan: LuckPlan, rows: pd.DataFrame) -> LuckResult:
    """The match's figures from its rows (``play_match``)."""
    parity = 1.0 / plan.players
    blocks = block_table(rows)
    y = blocks["credit"].to_numpy()
    adjusted, coefs = cross_fitted(y, blocks[["luck"]].to_numpy())
    blocks["adjusted"] = adjusted
    plain = mean_and_interval(y - parity)
    adj = mean_and_interval(adjusted - parity)
    # the measured seat's games as if played alone, not paired on common dice: what luck takes out there
    mine = rows[rows["measured"]]
    game_y = mine["credit"].to_numpy()
    game_adjusted, _ = cross_fitted(game_y, mine[["luck"]].to_numpy())
    width = plain[1:3], adj[1:3]
    game_width = mean_and_interval(game_y)[1:3], mean_and_interval(game_adjusted)[1:3]

    def narrower(pair: tuple) -> float:
        (lo, hi), (adj_lo, adj_hi) = pair
        return (hi - lo) / (adj_hi - adj_lo) if adj_hi > adj_lo else math.nan

    def games_to_lead(gap: float, sd: float) -> float:
        """Games after which the better policy leads with 95% chance: blocks of every rotation
        (the sum of n blocks' gaps is above 0 with 95% chance once n > (1.645 sd / gap)^2), whole,
        times the games a block plays."""
        return math.ceil((Z_ONE_SIDED_95 * sd / abs(gap)) ** 2) * plan.players if gap else math.inf

    credit = rows["credit"].to_numpy()
    place = rows["measured"].to_numpy() * 8 + rows["seat"].to_numpy()  # the seat's policy and place
    figures = [
        ("gap", "win share above parity, as played", *plain[:3]),
        ("gap_adjusted", "win share above parity, luck taken out", *adj[:3]),
        ("narrower", "interval narrower by (as played / luck taken out)", narrower(width), math.nan, math.nan),
        (
            "narrower_games",
            "the same, were the games not paired on common dice",
            narrower(game_width),
            math.nan,
            math.nan,
        ),
        (
            "explained",
            "share of a seat's result its luck explains (R^2 beyond its policy and place)",
            r_squared(credit, rows["luck"].to_numpy(), place),
            math.nan,
            math.nan,
        ),
        (
            "explained_own",
            "the same, its own rolls' luck alone",
            r_squared(credit, rows["own_luck"].to_numpy(), place),
            math.nan,
            math.nan,
        ),
        (
            "luck_mean",
            "the measured policy's mean luck a block (0 in expectation)",
            *mean_and_interval(blocks["luck"].to_numpy())[:3],
        ),
        (
            "games_to_lead",
            "games after which the better leads with 95% chance",
            games_to_lead(plain[0], y.std(ddof=1)),
            math.nan,
            math.nan,
        ),
        (
            "games_to_lead_adjusted",
            "the same, judged on luck taken out",
            games_to_lead(adj[0], adjusted.std(ddof=1)),
            math.nan,
            math.nan,
        ),
    ]
    table = pd.DataFrame(figures, columns=["figure", "label", "value", "lo", "hi"])
    table.attrs.update(blocks=len(blocks), coefficients=coefs.tolist(), z=Z_95)
    return LuckResult(plan, table, blocks, rows)


def identity(plan: LuckPlan, model: WinProbModel, rules: Rules) -> dict:
    """What makes two luck matches the same: their plan, the policies, the model's coefficients and the rules."""
    coef = np.ascontiguousarray(model.coef_for(plan.players))
    return {
        **dataclasses.asdict(plan),
        "scheme": SCHEME,
        "rules": rules.to_dict(),
        "identities": {name: policy_identity(resolve_policy(name)) for name in (plan.policy, plan.against)},
        "model_sha256": hashlib.sha256(coef.tobytes()).hexdigest(),
    }


def luck_match(
    plan: LuckPlan,
    model: WinProbModel,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    out: str | Path | None = None,
    command: list[str] = (),
) -> LuckResult:
    """Play the plan's match with luck measured and return its figures. With ``out``, a folder
    holding its rows and figures, which ``smsim report`` reads (``read_luck``); a folder of the same
    match is read, not played again."""
    rules = rules or Rules()
    if out is None:
        return summarise(plan, play_match(plan, model, rules, threads, on_progress))
    ident = identity(plan, model, rules)
    done = check_out(out, "luck", ident)  # the folder as given: a URL is refused by name, never taken for a path
    folder = Path(out)
    if done and (folder / "rows.parquet").is_file():
        return read_luck(folder)
    rows = play_match(plan, model, rules, threads, on_progress)
    write_manifest(folder, "luck", {"plan": ident, "command": list(command)})
    with writing(folder / "rows.parquet") as tmp:  # whole or not at all
        rows.to_parquet(tmp, index=False)
    result = summarise(plan, rows)
    write_file(folder / "figures.csv", result.table.to_csv(index=False))
    return result


def read_luck(path: str | Path) -> LuckResult:
    """A luck folder (``luck_match(out=...)``, ``smsim luck --out``): its figures from its rows."""
    path = Path(path)
    ident = read_manifest(path, "luck")["plan"]
    if ident.get("scheme") != SCHEME:
        raise LuckError(f"{str(path)!r}: the luck match was measured by an older smsim, another way; measure it again")
    if not (path / "rows.parquet").is_file():
        raise LuckError(f"{str(path)!r}: the luck match holds no rows (its run did not finish)")
    plan = LuckPlan(**{f.name: ident[f.name] for f in dataclasses.fields(LuckPlan)})
    result = summarise(plan, pd.read_parquet(path / "rows.parquet"))
    result.table.attrs.update(path=str(path), rules=Rules.from_dict(ident["rules"]))
    return result


__all__ = [
    "LuckError",
    "LuckPlan",
    "LuckResult",
    "cross_fitted",
    "luck_match",
    "play_match",
    "r_squared",
    "read_luck",
    "summarise",
]
