"""Win probability from a position: fitted on the round snapshots of mirror games
(``simulate --rounds``), checked on games held out, and read over millions of positions.

The model is a conditional logit over the seats (``play/winprob.py``: the features, the stages
and the jitted inference); this module fits it, keeps it as a data file and measures its
calibration. Its file is plain JSON: its ``format`` and ``schema``, the feature list it was
fitted on, per player count and stage its coefficients, and how it was trained (``training``:
the datasets, the games held out, the figures). Nothing in it is executed or unpickled; a file
that is not one, truncated, or fitted on another feature list is refused in one line.

Held out: the games whose index is a multiple of ``HOLD_OUT`` (one game in five), never fitted
on; the calibration is theirs. A game's last row (its end) is its outcome and is never fitted.

>>> outcome_credit(np.array([[30, 2], [30, 2], [29, 0]]), score=0, empty=1).tolist()  # (VP, empty spaces)
[0.5, 0.5, 0.0]
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from smsim import layout as L
from smsim.errors import SmsimError, WinProbError
from smsim.files import parse_data, read_data_file, write_file
from smsim.intervals import Z_95
from smsim.play.winprob import (
    FEATURE_NAMES,
    N_STAGES,
    N_WIN_FEATURES,
    STAGE_EDGES,
    features_many_nb,
    win_probabilities_many_nb,
)
from smsim.rules import Rules
from smsim.runs.dataset import load, load_rounds, read_manifest

FORMAT = "smsim win-probability model"
NOUN = "a win-probability model"
SCHEMA = 1
HOLD_OUT = 5  # games g with g % HOLD_OUT == 0 are held out
RIDGE = 1e-4  # on standardised features, per position: it only keeps unused features at 0
CALIBRATION_BINS = 10  # equal-width bins of the predicted probability (the reliability diagram's)


@dataclass
class WinProbModel:
    """Per player count, the coefficients float64[N_STAGES, N_WIN_FEATURES] of the logit over the
    seats (``play.winprob``), and how it was trained."""

    coef: dict[int, np.ndarray]
    rules: dict[str, Any] = field(default_factory=lambda: Rules().to_dict())
    training: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The file's text: the same model gives the same bytes."""
        data = {
            "format": FORMAT,
            "schema": SCHEMA,
            "features": list(FEATURE_NAMES),
            "stage_edges": [int(x) for x in STAGE_EDGES],
            "coefficients": {str(p): [[float(x) for x in row] for row in self.coef[p]] for p in sorted(self.coef)},
            "rules": self.rules,
            "training": self.training,
        }
        return json.dumps(data, indent=1) + "\n"

    def save(self, path: str | Path) -> None:
        """Written whole or not at all (``files.write_file``)."""
        write_file(path, self.to_json())

    @classmethod
    def from_json(cls, text: str, where: str = "model") -> WinProbModel:
        """Parse and check a model file's text; a bad one raises WinProbError in one line."""
        return cls.from_data(parse_data(text, where, NOUN, FORMAT, SCHEMA, WinProbError), where)

    @classmethod
    def from_data(cls, data: dict, where: str) -> WinProbModel:
        """The model of a file's parsed contents, its header already checked (``files.parse_data``)."""
        if data.get("features") != list(FEATURE_NAMES) or data.get("stage_edges") != [int(x) for x in STAGE_EDGES]:
            raise WinProbError(
                f"{where}: the model was fitted on other features or stages than this smsim's; "
                "fit it again with smsim winprob"
            )
        raw = data.get("coefficients")
        if not isinstance(raw, dict) or not raw:
            raise WinProbError(f"{where}: 'coefficients' must map player counts to {N_STAGES} rows of numbers")
        coef = {}
        for key, rows in raw.items():
            if key not in {str(p) for p in range(L.MIN_PLAYERS, L.MAX_PLAYERS + 1)}:
                raise WinProbError(f"{where}: 'coefficients' has player count {key!r}; 2 to 5 are played")
            ok = (
                isinstance(rows, list)
                and len(rows) == N_STAGES
                and all(isinstance(r, list) and len(r) == N_WIN_FEATURES and all(_finite(x) for x in r) for r in rows)
            )
            if not ok:
                raise WinProbError(
                    f"{where}: the coefficients of {key} players must be {N_STAGES} rows of "
                    f"{N_WIN_FEATURES} finite numbers"
                )
            coef[int(key)] = np.array(rows, dtype=np.float64)
        try:
            rules = Rules.from_dict(data.get("rules", {})).to_dict()
        except SmsimError as exc:
            raise WinProbError(f"{where}: its rules cannot be read ({exc})") from None
        training = data.get("training", {})
        return cls(coef, rules, training if isinstance(training, dict) else {})

    @classmethod
    def load(cls, path: str | Path) -> WinProbModel:
        where = f"win-probability model {str(path)!r}"
        return cls.from_data(read_data_file(path, where, NOUN, FORMAT, SCHEMA, WinProbError), where)

    @property
    def policies(self) -> set[str]:
        """The policies of the games it was fitted on (its training record; none known: empty)."""
        fitted = self.training.get("fitted_on", [])
        return {r["policy"] for r in fitted if isinstance(r, dict) and isinstance(r.get("policy"), str)}

    def coef_for(self, players: int) -> np.ndarray:
        if players not in self.coef:
            fitted = ", ".join(str(p) for p in sorted(self.coef))
            raise WinProbError(f"the model was fitted on {fitted} players, not on {players}")
        return self.coef[players]


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# -- positions --------------------------------------------------------------------------------------
@dataclass
class Positions:
    """A dataset's round snapshots as positions: ``keys`` (game, round, rounds: the game's
    length, so that ``round == rounds`` is its end) and ``positions`` int16[n, P, N_ROUND_FIELDS],
    seat by seat; ``rules`` the dataset's."""

    players: int
    keys: pd.DataFrame
    positions: np.ndarray
    rules: Rules
    source: str = ""

    def select(self, rows: np.ndarray) -> Positions:
        return Positions(
            self.players, self.keys[rows].reset_index(drop=True), self.positions[rows], self.rules, self.source
        )

    @property
    def ends(self) -> np.ndarray:
        return (self.keys["round"] == self.keys["rounds"]).to_numpy()

    @property
    def held_out(self) -> np.ndarray:
        return (self.keys["game"] % HOLD_OUT == 0).to_numpy()


def positions_of(rounds: pd.DataFrame, games: pd.DataFrame, players: int, rules: Rules, source: str = "") -> Positions:
    """The positions of a round table (``dataset.round_table``) with its games' lengths."""
    rounds = rounds.sort_values(["game", "round", "seat"], kind="stable")
    n = len(rounds) // players
    if n * players != len(rounds) or not (rounds["seat"].to_numpy().reshape(n, players) == np.arange(players)).all():
        raise WinProbError(f"{source or 'the round table'}: not {players} rows a position, seat by seat")
    values = rounds[list(L.ROUND.columns())].to_numpy(dtype=np.int16).reshape(n, players, L.N_ROUND_FIELDS)
    keys = rounds[["game", "round"]].iloc[::players].reset_index(drop=True)
    keys["rounds"] = keys["game"].map(games.set_index("game")["rounds"]).to_numpy()
    return Positions(players, keys, values, rules, source)


def read_positions(path: str | Path) -> Positions:
    """A dataset's positions (it must hold round snapshots: ``simulate --rounds``)."""
    manifest = read_manifest(path)
    run = manifest.get("run", {})
    data = load(path)
    return positions_of(load_rounds(path), data.games, int(run["players"]), Rules.from_dict(run["rules"]), str(path))


def mirror_policy(path: str | Path) -> str:
    """A dataset's policy: the name its seats share, or their names joined by " / "."""
    names = [x["name"] for x in read_manifest(path)["run"]["policies"]]
    return names[0] if len(set(names)) == 1 else " / ".join(names)


def outcome_credit(end: np.ndarray, score: int = L.RS_SCORE, empty: int = L.RS_N_EMPTY) -> np.ndarray:
    """Each seat's share of the win from a game's last position ([P, fields]): the most VP, then
    the most empty spaces (docs/rules.md §4); seats still tied share it."""
    key = end[:, score].astype(np.int64) * 64 + end[:, empty]
    won = key == key.max()
    return won / won.sum()


def credits(p: Positions) -> np.ndarray:
    """float64[n, P]: each position's outcome, the win credit its game's end gives each seat."""
    ends = p.ends
    by_game = {g: outcome_credit(p.positions[i]) for i, g in zip(np.flatnonzero(ends), p.keys["game"][ends])}
    missing = set(p.keys["game"]) - set(by_game)
    if missing:
        raise WinProbError(f"{p.source}: game {min(missing)} has no end row (a part written in part?)")
    return np.stack([by_game[g] for g in p.keys["game"]])


# -- the fit ----------------------------------------------------------------------------------------
def fit_logit(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE, iterations: int = 50) -> np.ndarray:
    """The conditional logit's coefficients by Newton's method: ``x`` float64[n, P, F] every seat's
    features, ``y`` float64[n, P] the outcome (summing to 1 over the seats). Features are
    standardised for the solve; a ridge of ``ridge`` per position keeps those that never vary at 0."""
    n, _, f = x.shape
    flat = x.reshape(-1, f)
    mean, sd = flat.mean(axis=0), flat.std(axis=0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    z = (x - mean) / sd
    beta = np.zeros(f)
    for _ in range(iterations):
        u = z @ beta
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u)
        p /= p.sum(axis=1, keepdims=True)
        grad = np.einsum("np,npf->f", y - p, z) - ridge * n * beta
        zbar = np.einsum("np,npf->nf", p, z)
        hess = np.einsum("np,npf,npg->fg", p, z, z) - zbar.T @ zbar + ridge * n * np.eye(f)
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.abs(step).max() < 1e-9:
            break
    return beta / sd  # a shift common to every seat cancels in the logit


def fit_winprob(paths: list[str], ridge: float = RIDGE) -> WinProbModel:
    """Fit a model on the datasets ``paths`` (each written with ``--rounds``; at most one a player
    count), on the games not held out, every position but a game's end; its training record holds
    the held-out calibration (``calibration``)."""
    start = time.process_time()
    by_players: dict[int, Positions] = {}
    for path in paths:
        p = read_positions(path)
        if p.players in by_players:
            raise WinProbError(
                f"two datasets of {p.players} players ({by_players[p.players].source}, {path}): give one a player count"
            )
        by_players[p.players] = p
    rules = {p.rules.to_dict().__repr__() for p in by_players.values()}
    if len(rules) > 1:
        raise WinProbError("the datasets were played under different rules: fit a model a variant")
    coef, record = {}, []
    for players, p in sorted(by_players.items()):
        y = credits(p)
        train = ~p.held_out & ~p.ends
        x, stage = features_many_nb(p.positions, p.rules.to_nb())
        c = np.zeros((N_STAGES, N_WIN_FEATURES))
        for k in range(N_STAGES):
            rows = train & (stage == k)
            if rows.sum() >= 50:
                c[k] = fit_logit(x[rows], y[rows], ridge)
        coef[players] = c
        record.append(
            {
                "players": players,
                "dataset": p.source,
                "policy": mirror_policy(p.source),
                "positions": int(train.sum()),
                "games": int(p.keys["game"][train].nunique()),
            }
        )
    model = WinProbModel(coef, next(iter(by_players.values())).rules.to_dict())
    checks = [calibration_summary(model, p) for p in by_players.values()]
    model.training = {
        "fitted_on": record,
        "held_out": f"games g with g % {HOLD_OUT} == 0",
        "calibration": checks,
        "cpu_seconds": round(time.process_time() - start, 1),
    }
    return model


# -- reading positions ------------------------------------------------------------------------------
def win_probabilities(model: WinProbModel, p: Positions) -> np.ndarray:
    """float64[n, P]: every seat's win probability in every position; at a game's end, its outcome."""
    out = win_probabilities_many_nb(p.positions, model.coef_for(p.players), p.rules.to_nb())
    ends = p.ends
    out[ends] = [outcome_credit(pos) for pos in p.positions[ends]]
    return out


def win_probability_table(model: WinProbModel, path: str | Path) -> pd.DataFrame:
    """A dataset's round table with each row's win probability (``win_prob``) beside it."""
    p = read_positions(path)
    prob = win_probabilities(model, p)
    table = p.keys.loc[np.repeat(np.arange(len(p.keys)), p.players)].reset_index(drop=True)
    table["seat"] = np.tile(np.arange(p.players, dtype=np.int8), len(p.keys))
    table["win_prob"] = prob.ravel()
    return table


# -- calibration ------------------------------------------------------------------------------------
def reliability(pred: np.ndarray, outcome: np.ndarray, game: np.ndarray, bins: int = CALIBRATION_BINS) -> pd.DataFrame:
    """The reliability diagram's table: per equal-width bin of the predicted probability, its
    seat-positions, their mean prediction, and the mean outcome with its 95% interval. A game
    gives many positions to a bin, so the interval is over games (a ratio estimator's variance,
    clustered by ``game``), not over positions counted as independent."""
    which = np.minimum((pred * bins).astype(int), bins - 1)
    rows = []
    for b in range(bins):
        m = which == b
        n = int(m.sum())
        if n == 0:
            continue
        obs = float(outcome[m].mean())
        by_game = pd.DataFrame({"g": game[m], "y": outcome[m]}).groupby("g")["y"].agg(["sum", "count"])
        k = len(by_game)
        resid = by_game["sum"].to_numpy() - obs * by_game["count"].to_numpy()
        half = Z_95 * math.sqrt((resid**2).sum() * k / max(k - 1, 1)) / n
        rows.append(
            {
                "bin": f"{b / bins:.1f}-{(b + 1) / bins:.1f}",
                "n": n,
                "games": k,
                "predicted": float(pred[m].mean()),
                "observed": obs,
                "observed_lo": obs - half,
                "observed_hi": obs + half,
            }
        )
    return pd.DataFrame(rows)


def expected_calibration_error(table: pd.DataFrame) -> float:
    """The mean gap between prediction and outcome over the bins, weighted by their sizes."""
    return float((table["n"] * (table["observed"] - table["predicted"]).abs()).sum() / table["n"].sum())


def calibration_summary(model: WinProbModel, p: Positions) -> dict[str, Any]:
    """The held-out games' calibration: positions, Brier score (against the outcome credit), the
    Brier score of a model that knows nothing (1/P to every seat), the expected calibration error
    in points, and the reliability table."""
    rows = p.held_out & ~p.ends
    pred = win_probabilities(model, p)[rows]
    y = credits(p)[rows]
    table = reliability(pred.ravel(), y.ravel(), np.repeat(p.keys["game"].to_numpy()[rows], p.players))
    return {
        "players": p.players,
        "positions": int(rows.sum()),
        "games": int(p.keys["game"][rows].nunique()),
        "brier": round(float(((pred - y) ** 2).mean()), 5),
        "brier_uniform": round(float(((1 / p.players - y) ** 2).mean()), 5),
        "ece_points": round(100 * expected_calibration_error(table), 3),
        "reliability": json.loads(table.round(5).to_json(orient="records")),
    }


__all__ = [
    "Positions",
    "WinProbModel",
    "calibration_summary",
    "fit_logit",
    "fit_winprob",
    "mirror_policy",
    "positions_of",
    "read_positions",
    "reliability",
    "win_probabilities",
    "win_probability_table",
]
