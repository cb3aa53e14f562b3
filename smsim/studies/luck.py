"""Luck against skill: how much of a result is the dice, and a skill gap with the dice's luck
taken out (docs/feel.md, "Luck against skill").

Every roll's **luck** is the value of the dice it gave minus their expected value before it, both
under a stated value (a heuristic's values of the uses, ``balanced`` by default) with exact play
of the rest of the turn (the keep layers of ``policies/exact_keep.py``: the first roll against
the 252 it could have been, a reroll against the dice it could have given the dice kept). It is
weighed in win probability by the seat's sensitivity at the start of the round (its win
probability's slope in its score under a ``winprob`` model), and summed over a seat's rolls:
``play.loop.Luck``. Whatever the seats play, a roll's luck has mean 0 given everything before it,
so a seat's luck is a **control variate**: its result minus the luck's part of it estimates the
same thing with less of the dice's noise.

A **match** is one seat of policy A against B in the others, every seat rotation on the same
dice (a block: the game's dice played once with A in each seat). Per block, A's win share
(parity 1/P); the adjusted share subtracts ``c . (A's luck, the others' mean luck)``, ``c`` fitted
by least squares on the other half of the blocks (cross-fitting: a coefficient never weighs the
blocks it was fitted on, so the adjustment has mean 0). Intervals are over blocks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim import layout as L
from smsim.checks import threads as checks_threads
from smsim.checks import whole
from smsim.errors import LuckError
from smsim.intervals import Z_95, mean_and_interval
from smsim.play.loop import LUCK_FIELDS
from smsim.policies.registry import PolicySpec, any_search, resolve_policy
from smsim.rules import Rules
from smsim.runs.runner import SEARCH_SLICE, engine_arrays, kernel, on_threads, slice_plan
from smsim.runs.spec import default_threads
from smsim.studies.winprob import WinProbModel

CHUNK = 2_000  # blocks played and turned into rows at a time
Z_ONE_SIDED_95 = 1.6448536269514722


@dataclass(frozen=True)
class LuckPlan:
    """One seat of ``policy`` against ``against`` in the others, every rotation, ``blocks`` blocks."""

    policy: str
    against: str
    players: int = 2
    blocks: int = 2_000
    seed: int = 0
    stated: str = "balanced"  # the heuristic whose values of the uses price the dice

    def lineups(self) -> list[list[str]]:
        return [[self.against] * r + [self.policy] + [self.against] * (self.players - 1 - r)
                for r in range(self.players)]  # fmt: skip


def verify_plan(plan: LuckPlan) -> PolicySpec:
    """Check the plan before anything is played; returns the stated value's heuristic."""
    whole(plan.players, "--players", low=2, high=5, error=LuckError)
    whole(plan.blocks, "--games", low=2, high=100_000_000, error=LuckError)
    whole(plan.seed, "--seed", error=LuckError)
    resolve_policy(plan.policy)
    resolve_policy(plan.against)
    stated = resolve_policy(plan.stated)
    if stated.kind != L.PolicyKind.HEURISTIC:
        raise LuckError(f"--stated must be a heuristic (its values of the uses price the dice), not {plan.stated!r}")
    return stated


def play_match(plan: LuckPlan, model: WinProbModel, rules: Rules | None = None, threads: int | None = None,
               on_progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:  # fmt: skip
    """Every block's games with luck measured: one row per (block, rotation, seat) with the seat's
    win credit (a shared win split), whether it is the measured policy's, and its ``LUCK_FIELDS``."""
    rules = rules or Rules()
    stated = verify_plan(plan)
    coef = model.coef_for(plan.players)
    setups = [[resolve_policy(name) for name in lineup] for lineup in plan.lineups()]
    plays = [kernel(plan.players, specs, plan.seed, rules, luck=(stated.params, coef)) for specs in setups]
    chunks = [(r, first, min(CHUNK, plan.blocks - first)) for r in range(plan.players)
              for first in range(0, plan.blocks, CHUNK)]  # fmt: skip
    searching = any(any_search(specs) for specs in setups)
    threads = checks_threads(threads, error=LuckError) or default_threads()
    slices = slice_plan([(i, n) for i, (_, _, n) in enumerate(chunks)], threads,
                        *((1, SEARCH_SLICE) if searching else ()))  # fmt: skip
    parts: dict[int, pd.DataFrame] = {}
    done = [0]

    def begin(i: int) -> tuple:
        n = chunks[i][2]
        return (*engine_arrays(n, plan.players), np.zeros((n, plan.players, len(LUCK_FIELDS))))

    def play(held: tuple, i: int, lo: int, hi: int) -> None:
        r, first, _ = chunks[i]
        score, player, game_out, lucky = held
        plays[r](first + lo, score[lo:hi], player[lo:hi], game_out[lo:hi], lucky=lucky[lo:hi])
        done[0] += hi - lo

    def finish(held: tuple, i: int) -> pd.DataFrame:
        r, first, n = chunks[i]
        score, _, _, lucky = held
        won = score[:, :, L.S_WON].astype(np.float64)
        credit = won / np.maximum(won.sum(axis=1, keepdims=True), 1.0)
        rows = {"block": np.repeat(np.arange(first, first + n), plan.players), "rotation": r,
                "seat": np.tile(np.arange(plan.players), n), "measured": np.tile(np.arange(plan.players) == r, n),
                "credit": credit.ravel()}  # fmt: skip
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


def block_table(rows: pd.DataFrame, players: int) -> pd.DataFrame:
    """Per block: the measured policy's mean win credit over the rotations, its mean luck and the
    other seats' mean luck (in win probability)."""
    mine = rows[rows["measured"]].groupby("block")
    others = rows[~rows["measured"]].groupby("block")
    return pd.DataFrame({"credit": mine["credit"].mean(), "luck": mine["luck"].mean(),
                         "others_luck": others["luck"].mean()})  # fmt: skip


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
    blocks = block_table(rows, plan.players)
    y = blocks["credit"].to_numpy()
    x = blocks[["luck", "others_luck"]].to_numpy()
    adjusted, coefs = cross_fitted(y, x)
    blocks["adjusted"] = adjusted
    plain = mean_and_interval(y - parity)
    adj = mean_and_interval(adjusted - parity)
    # the share of a seat's result the dice explain: R^2 of its credit on its own and the others' luck
    seat = rows.assign(others=rows.groupby(["block", "rotation"])["luck"].transform("sum") - rows["luck"])
    design = np.column_stack([np.ones(len(seat)), seat["luck"], seat["others"]])
    beta, *_ = np.linalg.lstsq(design, seat["credit"].to_numpy(), rcond=None)
    resid = seat["credit"].to_numpy() - design @ beta
    explained = 1.0 - resid.var() / seat["credit"].var(ddof=0)
    luck_mean = mean_and_interval(rows["luck"].to_numpy())
    width = (plain[2] - plain[1]) / (adj[2] - adj[1]) if adj[2] > adj[1] else math.nan

    def games_to_lead(gap: float, sd: float) -> float:
        """Games after which the better policy leads with 95% chance: blocks of every rotation
        (the sum of n blocks' gaps is above 0 with 95% chance once n > (1.645 sd / gap)^2), whole,
        times the games a block plays."""
        return math.ceil((Z_ONE_SIDED_95 * sd / abs(gap)) ** 2) * plan.players if gap else math.inf

    figures = [
        ("gap", "win share above parity, as played", *plain[:3]),
        ("gap_adjusted", "win share above parity, luck taken out", *adj[:3]),
        ("narrower", "interval narrower by (as played / luck taken out)", width, math.nan, math.nan),
        ("explained", "share of a seat's result the dice's luck explains (R^2)", explained, math.nan, math.nan),
        ("luck_mean", "mean luck of a seat-game (0 by construction)", *luck_mean[:3]),
        ("games_to_lead", "games after which the better leads with 95% chance", games_to_lead(plain[0], y.std(ddof=1)),
         math.nan, math.nan),
        ("games_to_lead_adjusted", "the same, judged on luck taken out", games_to_lead(adj[0], adjusted.std(ddof=1)),
         math.nan, math.nan),
    ]  # fmt: skip
    table = pd.DataFrame(figures, columns=["figure", "label", "value", "lo", "hi"])
    table.attrs.update(blocks=len(blocks), coefficients=coefs.tolist(), z=Z_95)
    return LuckResult(plan, table, blocks, rows)


def luck_match(plan: LuckPlan, model: WinProbModel, rules: Rules | None = None, threads: int | None = None,
               on_progress: Callable[[int, int], None] | None = None) -> LuckResult:  # fmt: skip
    """Play the plan's match with luck measured and return its figures."""
    return summarise(plan, play_match(plan, model, rules, threads, on_progress))


__all__ = ["LuckError", "LuckPlan", "LuckResult", "cross_fitted", "luck_match", "play_match", "summarise"]
