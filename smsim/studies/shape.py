"""The shape of a game: is it close to the end, does the lead change hands, can a player who
falls behind come back, when is it decided. Read from a dataset's round snapshots
(``simulate --rounds``) and a win-probability model (``studies.winprob``), game by game, each
figure with its 95% interval over games (games are independent; a figure per game is averaged,
a yes-or-no per game is a rate with Wilson's interval).

The figures (``SHAPE_FIGURES``), from round 1 on (round 0 is before any die: every seat level):

- **lead changes**, by VP (the seat with the most VP if the game ended now, the final score at the
  end; a round where the top is shared leaves the lead where it was) and by win probability (the
  seat the model favours; at the end, the winner), and the share of games with none;
- **comebacks**: the share of games whose winner was last by VP at some round (below every other seat),
  and whose winner's win probability fell below ``threshold`` (10%) at some round;
- **decided**: the round from which the winner's win probability stays above ``decided`` (90%)
  to the end, and how many rounds before the end that was;
- **closeness**: the winner's final margin over the best other seat (VP; 0 where the tie-break
  decided), and the share of games decided by 2 VP or less;
- **drama**: the winner's lowest win probability in the game.

A game with a shared win has no single winner: it counts in the lead changes, not in the
winner's figures (their ``games`` column says how many counted).

>>> [f.name for f in SHAPE_FIGURES][:3]
['lead_changes_vp', 'lead_changes_wp', 'no_lead_change_vp']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim import layout as L
from smsim.errors import DatasetError
from smsim.intervals import mean_and_interval, wilson_interval
from smsim.studies.winprob import Positions, WinProbModel, credits, mirror_policy, read_positions, win_probabilities

THRESHOLD = 0.10  # a comeback: the winner's win probability fell below this
DECIDED = 0.90  # decided: the winner's win probability stays above this to the end
CLOSE_VP = 2  # a close game: decided by this many VP or fewer
FAN_QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)  # the win-probability fan's bands and middle


@dataclass(frozen=True)
class ShapeFigure:
    name: str
    label: str
    unit: str  # "count", "rate", "rounds", "vp", "prob": how it is written


SHAPE_FIGURES = (
    ShapeFigure("lead_changes_vp", "lead changes a game, by VP", "count"),
    ShapeFigure("lead_changes_wp", "lead changes a game, by win probability", "count"),
    ShapeFigure("no_lead_change_vp", "games without a lead change, by VP", "rate"),
    ShapeFigure("no_lead_change_wp", "games without a lead change, by win probability", "rate"),
    ShapeFigure("winner_was_last", "winner was last by VP at some round", "rate"),
    ShapeFigure("comeback", "winner's win probability fell below 10% and it won", "rate"),
    ShapeFigure("decided_round", "decided at round (winner above 90% from then on)", "rounds"),
    ShapeFigure("decided_before_end", "decided, rounds before the end", "rounds"),
    ShapeFigure("margin", "winner's final margin", "vp"),
    ShapeFigure("close", "games decided by 2 VP or less", "rate"),
    ShapeFigure("drama", "winner's lowest win probability", "prob"),
    ShapeFigure("rounds", "rounds a game", "rounds"),
)
FIGURE = {f.name: f for f in SHAPE_FIGURES}


@dataclass
class ShapeResult:
    """A dataset's game shape: ``figures`` (one row a figure: value, lo, hi, games), ``per_game``
    (each game's own figures) and ``last_by_round`` (per round, the share of games reaching it
    whose winner was last by VP then: the comeback curve)."""

    players: int
    policy: str
    figures: pd.DataFrame
    per_game: pd.DataFrame
    last_by_round: pd.DataFrame
    source: str = ""
    # per round, the eventual winner's win probability over the games reaching it (single winner):
    # games and the quantiles of FAN_QUANTILES (the win-probability fan)
    winner_by_round: pd.DataFrame | None = None


def _leader(values: np.ndarray) -> np.ndarray:
    """Per row, the seat with the unique largest value, -1 where the top is shared."""
    top = values.max(axis=1, keepdims=True)
    unique = (values == top).sum(axis=1) == 1
    return np.where(unique, values.argmax(axis=1), -1)


def _changes(leader: np.ndarray, game_index: np.ndarray, games: int) -> np.ndarray:
    """Per game, how often its leader changes, rows with no leader (-1) skipped."""
    keep = leader >= 0
    lead, g = leader[keep], game_index[keep]
    changed = (lead[1:] != lead[:-1]) & (g[1:] == g[:-1])
    return np.bincount(g[1:][changed], minlength=games)


def shape_of(
    p: Positions, prob: np.ndarray, policy: str = "", threshold: float = THRESHOLD, decided: float = DECIDED
) -> ShapeResult:
    """The game shape of positions ``p`` with every seat's win probability ``prob`` [n, P]."""
    keys = p.keys
    game_ids, game_index = np.unique(keys["game"].to_numpy(), return_inverse=True)
    games = len(game_ids)
    rnd = keys["round"].to_numpy()
    ends = p.ends
    live = rnd >= 1  # round 0: before any die
    score = p.positions[:, :, L.RS_SCORE].astype(np.int64)
    # the end's leader is the winner (the tie-break decides between equal scores)
    vp_key = np.where(ends[:, None], score * 64 + p.positions[:, :, L.RS_N_EMPTY], score)
    lead_vp = _changes(_leader(vp_key[live]), game_index[live], games)
    lead_wp = _changes(_leader(prob[live]), game_index[live], games)

    credit = credits(p)
    end_rows = np.flatnonzero(ends)
    order = np.argsort(game_index[end_rows])
    end_rows = end_rows[order]
    single = (credit[end_rows] == 1.0).any(axis=1)
    winner = credit[end_rows].argmax(axis=1)
    winner_of_row = winner[game_index]
    single_row = single[game_index]
    rows = np.arange(len(keys))
    win_score = score[rows, winner_of_row]
    others_low = np.where(np.arange(p.players)[None, :] == winner_of_row[:, None], np.iinfo(np.int64).max, score).min(
        axis=1
    )
    strictly_last = win_score < others_low
    last = strictly_last & live & ~ends & single_row
    was_last = np.bincount(game_index[last], minlength=games) > 0
    win_prob = prob[rows, winner_of_row]
    mid = live & ~ends
    low = np.full(games, np.inf)
    np.minimum.at(low, game_index[mid], win_prob[mid])
    # decided: the round after the winner's last position at or below ``decided``
    below = (win_prob <= decided) & ~ends
    last_below = np.full(games, -1)
    np.maximum.at(last_below, game_index[below], rnd[below])
    rounds = keys["rounds"].to_numpy()[end_rows]
    decided_round = (last_below + 1).astype(float)
    final = np.sort(score[end_rows], axis=1)
    margin = (final[:, -1] - final[:, -2]).astype(float)

    per_game = pd.DataFrame(
        {
            "game": game_ids,
            "rounds": rounds,
            "single_winner": single,
            "winner": np.where(single, winner, -1),
            "lead_changes_vp": lead_vp,
            "lead_changes_wp": lead_wp,
            "winner_was_last": was_last,
            "winner_lowest": np.where(np.isfinite(low), low, np.nan),
            "decided_round": decided_round,
            "margin": margin,
        }
    )
    one = per_game[per_game["single_winner"]]

    def mean(name: str, values) -> dict:
        v, lo, hi, n = mean_and_interval(np.asarray(values, dtype=float))
        return {"figure": name, "value": v, "lo": lo, "hi": hi, "games": n}

    def rate(name: str, flags) -> dict:
        flags = np.asarray(flags, dtype=bool)
        lo, hi = wilson_interval(flags.sum(), len(flags))
        return {
            "figure": name,
            "value": flags.mean() if len(flags) else np.nan,
            "lo": lo,
            "hi": hi,
            "games": len(flags),
        }

    rows_out = [
        mean("lead_changes_vp", per_game["lead_changes_vp"]),
        mean("lead_changes_wp", per_game["lead_changes_wp"]),
        rate("no_lead_change_vp", per_game["lead_changes_vp"] == 0),
        rate("no_lead_change_wp", per_game["lead_changes_wp"] == 0),
        rate("winner_was_last", one["winner_was_last"]),
        rate("comeback", one["winner_lowest"] < threshold),
        mean("decided_round", one["decided_round"]),
        mean("decided_before_end", one["rounds"] - one["decided_round"]),
        mean("margin", per_game["margin"]),
        rate("close", per_game["margin"] <= CLOSE_VP),
        mean("drama", one["winner_lowest"]),
        mean("rounds", per_game["rounds"]),
    ]
    figures = pd.DataFrame(rows_out)
    figures.insert(0, "policy", policy)
    figures.insert(0, "players", p.players)
    figures["label"] = [FIGURE[f].label for f in figures["figure"]]
    figures["unit"] = [FIGURE[f].unit for f in figures["figure"]]

    # the comeback curve: per round, games reaching it (single winner) whose winner was last then
    at = live & ~ends & single_row
    curve = pd.DataFrame({"round": rnd[at], "last": strictly_last[at]})
    by_round = curve.groupby("round")["last"].agg(["sum", "count"]).reset_index()
    bounds = [wilson_interval(s, n) for s, n in zip(by_round["sum"], by_round["count"])]
    last_by_round = pd.DataFrame(
        {
            "players": p.players,
            "round": by_round["round"],
            "games": by_round["count"],
            "winner_last": by_round["sum"] / by_round["count"],
            "lo": [b[0] for b in bounds],
            "hi": [b[1] for b in bounds],
        }
    )
    fan = pd.DataFrame({"round": rnd[at], "wp": win_prob[at]}).groupby("round")["wp"]
    winner_by_round = fan.quantile(FAN_QUANTILES).unstack()
    winner_by_round.columns = [f"q{round(100 * q):02d}" for q in FAN_QUANTILES]
    winner_by_round.insert(0, "games", fan.size())
    winner_by_round = winner_by_round.reset_index()
    winner_by_round.insert(0, "players", p.players)
    return ShapeResult(p.players, policy, figures, per_game, last_by_round, winner_by_round=winner_by_round)


def game_shape(model: WinProbModel, path: str, threshold: float = THRESHOLD, decided: float = DECIDED) -> ShapeResult:
    """The game shape of the dataset ``path`` (written with ``--rounds``) under ``model``."""
    p = read_positions(path)
    result = shape_of(p, win_probabilities(model, p), mirror_policy(path), threshold, decided)
    result.source = str(path)
    return result


def shape_difference(base: ShapeResult, other: ShapeResult) -> pd.DataFrame:
    """Each figure of ``other`` minus ``base``'s, paired game by game: the two must be the same
    games (the same seed and game indices, so the same dice) played otherwise (a rules variant,
    another level). A per-game figure's difference is the mean of the games' differences, with
    its interval over games; a game counts where both have the figure (a single winner in both,
    for the winner's figures)."""
    a = base.per_game.set_index("game")
    b = other.per_game.set_index("game")
    if base.players != other.players or not a.index.equals(b.index):
        raise DatasetError(
            f"{other.source or 'the second'} and {base.source or 'the first'} are not the same games: "
            "paired figures need one player count, one seed and the same games"
        )
    both = a["single_winner"] & b["single_winner"]

    def per_game(frame: pd.DataFrame, name: str) -> pd.Series:
        if name == "no_lead_change_vp":
            return (frame["lead_changes_vp"] == 0).astype(float)
        if name == "no_lead_change_wp":
            return (frame["lead_changes_wp"] == 0).astype(float)
        if name == "comeback":
            return (frame["winner_lowest"] < THRESHOLD).astype(float)
        if name == "decided_before_end":
            return frame["rounds"] - frame["decided_round"]
        if name == "close":
            return (frame["margin"] <= CLOSE_VP).astype(float)
        if name == "drama":
            return frame["winner_lowest"]
        return frame[name].astype(float)

    winners = {"winner_was_last", "comeback", "decided_round", "decided_before_end", "drama"}
    rows = []
    for f in SHAPE_FIGURES:
        d = per_game(b, f.name) - per_game(a, f.name)
        if f.name in winners:
            d = d[both]
        v, lo, hi, n = mean_and_interval(d.to_numpy(dtype=float))
        rows.append(
            {
                "players": base.players,
                "base": base.policy,
                "other": other.policy,
                "figure": f.name,
                "label": f.label,
                "unit": f.unit,
                "value": v,
                "lo": lo,
                "hi": hi,
                "games": n,
            }
        )
    return pd.DataFrame(rows)


__all__ = ["SHAPE_FIGURES", "ShapeResult", "game_shape", "shape_difference", "shape_of"]
