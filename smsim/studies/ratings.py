"""Plackett-Luce ratings of policies fitted to the final rankings of multi-player games.

Model
-----
Each seat of a game is an item whose worth is the worth ``theta[p] = exp(beta[p])`` of
its policy ``p`` (two seats played by one policy share the parameter). Under the
Plackett-Luce model a strict ranking of the seats is a sequence of choices: the winner is
drawn from all seats with probability proportional to worth, the runner-up from the rest,
and so on. With two seats this is the Bradley-Terry model.

Ties: coarsened (marginal) likelihood
-------------------------------------
A tie is read as *not knowing* the order of the tied seats: the likelihood of a ranking
with ties is the probability that the Plackett-Luce order falls in the set of strict orders
consistent with it, i.e. the sum (equivalently, up to a constant factor, the average) of the
Plackett-Luce probabilities of all the ways of breaking its ties. Consequences:

* a game in which every seat ties has probability 1 and contributes nothing;
* a tie for last place only says that the tied seats finished below the others;
* a shared first place between A and B credits A and B symmetrically (both orders count).

The latent order inside one tied group is independent of the order inside any other group,
so each tied group that has seats below it is expanded on its own (``k!`` orderings for a
group of ``k`` seats; groups of at most 6 seats are supported, plenty for 2-5 player games).
Unlike the Davidson-Luce extension (PlackettLuce R package, Turner et al. 2020) this needs
no tie parameters and makes all-tie games uninformative.

Fitting
-------
Hunter's (2004) MM algorithm: ``theta[p] <- W[p] / sum_stages count_p(stage) / D(stage)``,
where ``W[p]`` counts the choices won by seats of ``p`` and ``D`` is the total worth still
in play at a choice. Ties add an E-step: the orderings of a tied group are weighted by their
posterior probability under the current worths before the MM update. Since EM is itself a
minorise-maximise scheme, every iteration still increases the likelihood. Games are first
reduced to the distinct choice situations they contain ((chosen seats, seats below) as
multisets of policies), so an iteration costs nothing next to reading the input.

Prior
-----
The maximum-likelihood strength of a policy that never finishes ahead of any other policy is
0 (and infinite for one that never finishes behind), which happens in short runs. By default
each policy gets ``prior = 1`` virtual win and 1 virtual loss against a reference opponent of
log-strength 0, the pseudo-data device of the PlackettLuce R package (its ``npseudo``).
The game likelihood only fixes differences of log-strengths, so the fit places the policies
around the reference (where ``sum_p tanh(beta[p] / 2) = 0``; each MM step is followed by that
exact common shift, which keeps convergence fast); the estimates stay finite, the network is
always connected, and the pull is negligible once policies have played a few hundred games. ``prior=0`` gives the exact
MLE and raises ``ValueError`` when it does not exist (the "finished ahead of" graph between
policies is not strongly connected).

Normalisation and standard errors
---------------------------------
Log-strengths are reported centred (mean 0, so the geometric mean of the strengths is 1).
Standard errors come from the observed Fisher information ``I`` (minus the Hessian of the
log-likelihood, prior included, in log-strengths), computed analytically; for tied groups
Louis' formula subtracts the information lost to their unknown order (the covariance over tie
orderings of the complete-data score). The centred estimate is
``C beta`` with ``C = Id - 11'/n``, whose covariance is ``C I^-1 C``; without prior ``I`` is
singular along the common shift ``1`` and ``I^+ = (I + 11'/n)^-1 - 11'/n`` (the
Moore-Penrose inverse) is used instead. Intervals are ``log_strength +- 1.96 se``.

>>> import pandas as pd
>>> results = [("A", "B")] * 7 + [("B", "A")] * 3          # (winner, loser): A wins 7 of 10
>>> ranks = pd.DataFrame([{"game": g, "policy": p, "rank": r}
...                       for g, pair in enumerate(results) for r, p in enumerate(pair, 1)])
>>> fit = fit_plackett_luce(ranks, prior=0)
>>> round(float(fit.table.loc["A", "strength"] / fit.table.loc["B", "strength"]), 6)   # 7 / 3
2.333333
>>> list(fit.table.columns)
['strength', 'log_strength', 'se', 'lo', 'hi', 'elo', 'games']
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim.checks import positive, whole
from smsim.intervals import Z_95

__all__ = ["Ratings", "fit_plackett_luce", "MAX_TIE", "elo", "elo_points", "ELO_PER_LOG_STRENGTH", "ELO_MEAN"]

MAX_TIE = 6
"""Largest tied group (with seats below it) that is expanded into its orderings."""

_COLUMNS = ("game", "policy", "rank")
ELO_PER_LOG_STRENGTH = 400.0 / math.log(10.0)
"""Elo points per unit of log strength: 400 points are a factor 10 in strength."""
ELO_MEAN = 1500.0
"""The Elo rating of the mean log strength (strength 1)."""


def elo(log_strength):
    """The Elo-scale rating of a log strength (a number or an array): ``400 * log10(strength) +
    1500``. The one place smsim converts strengths to Elo points."""
    return ELO_PER_LOG_STRENGTH * log_strength + ELO_MEAN


def elo_points(log_strength_difference):
    """A difference (or standard error) of log strengths in Elo points."""
    return ELO_PER_LOG_STRENGTH * log_strength_difference


@dataclass(frozen=True)
class Ratings:
    """Fitted Plackett-Luce ratings.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per policy (index: policy name), strongest first, with columns
        ``strength`` (worth, geometric mean 1), ``log_strength`` (mean 0), ``se`` (standard
        error of ``log_strength``), ``lo`` and ``hi`` (95% interval of ``log_strength``),
        ``elo`` (``400 * log10(strength) + 1500``) and ``games`` (games the policy played).
    iterations : int
        MM iterations performed.
    converged : bool
        Whether the largest change of a log-strength in the last iteration was below ``tol``.
    """

    table: pd.DataFrame
    iterations: int
    converged: bool


@dataclass(frozen=True)
class _Block:
    """Distinct choice situations whose chosen (tied) group has ``k`` seats.

    ``codes[e]`` lists the policy codes of the ``k`` chosen seats, then of the seats below
    them, padded with the code ``n_policies`` (worth 0). ``inc[o, t, j]`` says whether slot
    ``j`` is still in play at step ``t`` of ordering ``o`` of the chosen group.
    """

    k: int
    codes: np.ndarray  # (E, L) int
    count: np.ndarray  # (E,) float, how many times the situation occurs
    inc: np.ndarray  # (k!, k, L) float


def _incidence(k: int, width: int) -> np.ndarray:
    perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64).reshape(-1, k)
    pos = np.argsort(perms, axis=1)  # pos[o, j]: step at which member j is chosen in ordering o
    inc = np.ones((len(perms), k, width))
    steps = np.arange(k)
    inc[:, :, :k] = pos[:, None, :] >= steps[None, :, None]
    return inc


def _validate(ranks: object, max_iter: int, tol: float, prior: float) -> None:
    if not isinstance(ranks, pd.DataFrame):
        raise ValueError(f"ranks must be a pandas DataFrame, got {type(ranks).__name__}")
    missing = [c for c in _COLUMNS if c not in ranks.columns]
    if missing:
        raise ValueError(
            f"ranks is missing column(s) {', '.join(map(repr, missing))}; expected 'game', 'policy', 'rank'"
        )
    if len(ranks) == 0:
        raise ValueError("ranks is empty: no games to rate")
    whole(max_iter, "max_iter", low=1, error=ValueError)
    positive(tol, "tol", error=ValueError)
    if not (prior >= 0 and math.isfinite(prior)):
        raise ValueError(f"prior must be a finite number >= 0, got {prior!r}")


def _game_counts(ranks: pd.DataFrame, game: np.ndarray) -> np.ndarray | None:
    """How many games each game of ``ranks`` stands for (its optional ``count`` column, the same
    on every row of a game); None without the column."""
    if "count" not in ranks.columns:
        return None
    count = pd.to_numeric(ranks["count"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    if not (np.isfinite(count).all() and (count > 0).all()):
        raise ValueError("column 'count' must hold positive numbers (games a ranking stands for)")
    per_game = np.zeros(int(game.max()) + 1)
    per_game[game] = count
    if not np.array_equal(per_game[game], count):
        raise ValueError("column 'count' must be the same on every row of a game")
    return per_game


def _encode(ranks: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, pd.Index]:
    if ranks["game"].isna().any():
        raise ValueError("column 'game' has missing values")
    if ranks["policy"].isna().any():
        raise ValueError("column 'policy' has missing values")
    rank = pd.to_numeric(ranks["rank"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    if not np.isfinite(rank).all():
        raise ValueError("column 'rank' must hold finite numbers (1 = best), with no missing values")
    game, _ = pd.factorize(ranks["game"])
    try:
        policy, names = pd.factorize(ranks["policy"], sort=True)
    except TypeError:  # unorderable mix of label types
        policy, names = pd.factorize(ranks["policy"])
    return game.astype(np.int64), policy.astype(np.int64), rank, pd.Index(names, name="policy")


def _unique_rows(keys: np.ndarray, radix: int, weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a small non-negative int matrix and their counts (the sum of their
    ``weight``, when given)."""
    width = keys.shape[1]
    if width * math.log2(radix) < 62:  # pack each row into one int64
        digits = radix ** np.arange(width - 1, -1, -1, dtype=np.int64)
        packed = keys @ digits
        _, first, inverse, counts = np.unique(packed, return_index=True, return_inverse=True, return_counts=True)
        uniq = keys[first]
    else:
        uniq, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    if weight is not None:
        counts = np.bincount(inverse.ravel(), weights=weight, minlength=len(uniq))
    return uniq, counts


def _choice_blocks(
    game: np.ndarray, policy: np.ndarray, rank: np.ndarray, n_pol: int, game_count: np.ndarray | None = None
) -> list[_Block]:
    """Reduce the games to their distinct choice situations, grouped by tied-group size
    (``game_count``: how many games each game stands for; one each when None)."""
    order = np.lexsort((rank, game))
    g, r, c = game[order], rank[order], policy[order]
    n = len(g)
    game_start = np.ones(n, dtype=bool)
    game_start[1:] = g[1:] != g[:-1]
    game_idx = np.cumsum(game_start) - 1
    first_row = np.flatnonzero(game_start)
    sizes = np.diff(np.append(first_row, n))
    pos = np.arange(n) - first_row[game_idx]

    group_start = game_start.copy()
    group_start[1:] |= r[1:] != r[:-1]
    grp_first = np.flatnonzero(group_start)
    grp_size = np.diff(np.append(grp_first, n))
    grp_game = game_idx[grp_first]
    s = pos[grp_first]
    e = s + grp_size
    chosen = e < sizes[grp_game]  # the last group of a game is not a choice: it has probability 1
    if not chosen.any():
        return []
    s, e, grp_game, grp_size = s[chosen], e[chosen], grp_game[chosen], grp_size[chosen]
    if grp_size.max() > MAX_TIE:
        raise ValueError(
            f"a tie among {int(grp_size.max())} seats with seats below them is too large to expand (at most {MAX_TIE})"
        )

    width = int(sizes.max())
    seats = np.full((len(sizes), width), n_pol, dtype=np.int64)
    seats[game_idx, pos] = c
    rows = seats[grp_game]
    cols = np.arange(width)[None, :]
    members = np.sort(np.where((cols >= s[:, None]) & (cols < e[:, None]), rows, n_pol), axis=1)
    below = np.sort(np.where(cols >= e[:, None], rows, n_pol), axis=1)
    weight = None if game_count is None else game_count[g[first_row]][grp_game]
    uniq, counts = _unique_rows(np.hstack([members, below]), n_pol + 1, weight)

    members, below = uniq[:, :width], uniq[:, width:]
    k_of = (members < n_pol).sum(axis=1)
    n_below = (below < n_pol).sum(axis=1)
    blocks = []
    for k in np.unique(k_of):
        sel = k_of == k
        b = int(n_below[sel].max())
        codes = np.hstack([members[sel, :k], below[sel, :b]])
        blocks.append(_Block(int(k), codes, counts[sel].astype(float), _incidence(int(k), int(k) + b)))
    return blocks


def _stages(block: _Block, theta_ext: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Slot worths y (E, L), stage totals D (E, k!, k) and ordering posteriors q (E, k!)."""
    y = theta_ext[block.codes]
    d = np.einsum("otj,ej->eot", block.inc, y)
    if block.inc.shape[0] == 1:
        q = np.ones((len(y), 1))
    else:
        logit = -np.log(d).sum(axis=2)
        logit -= logit.max(axis=1, keepdims=True)
        q = np.exp(logit)
        q /= q.sum(axis=1, keepdims=True)
    return y, d, q


def _mm_denominator(blocks: list[_Block], theta: np.ndarray) -> np.ndarray:
    """Expected sum over choices of (seats of p in play) / (worth in play), per policy p."""
    n_pol = len(theta)
    theta_ext = np.append(theta, 0.0)
    out = np.zeros(n_pol + 1)
    for block in blocks:
        _, d, q = _stages(block, theta_ext)
        a = np.einsum("otj,eot->eoj", block.inc, 1.0 / d)  # (E, k!, L)
        abar = np.einsum("eo,eoj->ej", q, a) * block.count[:, None]
        out += np.bincount(block.codes.ravel(), weights=abar.ravel(), minlength=n_pol + 1)
    return out[:n_pol]


def _information(blocks: list[_Block], theta: np.ndarray, prior: float) -> np.ndarray:
    """Observed Fisher information (minus the log-likelihood Hessian) in log-strengths."""
    n_pol = len(theta)
    theta_ext = np.append(theta, 0.0)
    info = np.zeros((n_pol + 1) * (n_pol + 1))
    for block in blocks:
        y, d, q = _stages(block, theta_ext)
        pi = block.inc[None] * y[:, None, None, :] / d[..., None]  # (E, k!, k, L) choice probabilities
        s = pi.sum(axis=2)  # (E, k!, L)
        sbar = np.einsum("eo,eoj->ej", q, s)
        h = -np.einsum("eo,eotj,eotl->ejl", q, pi, pi)
        h -= np.einsum("eo,eoj,eol->ejl", q, s, s) - sbar[:, :, None] * sbar[:, None, :]  # Louis: tie orderings
        idx = np.arange(y.shape[1])
        h[:, idx, idx] += sbar
        pair = block.codes[:, :, None] * (n_pol + 1) + block.codes[:, None, :]
        info += np.bincount(pair.ravel(), weights=(h * block.count[:, None, None]).ravel(), minlength=info.size)
    info = info.reshape(n_pol + 1, n_pol + 1)[:n_pol, :n_pol]
    sig = theta / (1.0 + theta)
    info[np.diag_indices(n_pol)] += 2.0 * prior * sig * (1.0 - sig)
    return info


def _check_connected(blocks: list[_Block], names: pd.Index) -> None:
    """Raise ValueError unless every policy both finishes ahead of and behind the others (MLE exists)."""
    n_pol = len(names)
    beats = np.zeros((n_pol + 1, n_pol + 1), dtype=bool)
    for block in blocks:
        win = block.codes[:, : block.k, None]
        lose = block.codes[:, None, block.k :]
        win, lose = np.broadcast_arrays(win, lose)
        beats[win.ravel(), lose.ravel()] = True
    beats = beats[:n_pol, :n_pol]
    reach = beats | np.eye(n_pol, dtype=bool)
    while True:
        nxt = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if (nxt == reach).all():
            break
        reach = nxt
    if reach.all():
        return
    # reach[u] is closed under "finishes ahead of": none of its policies ever beats one outside it
    ahead = [np.flatnonzero(reach[u]) for u in range(n_pol) if not reach[u].all()]
    behind = [np.flatnonzero(reach[:, u]) for u in range(n_pol) if not reach[:, u].all()]
    never_ahead = min(ahead, key=len) if ahead else None
    never_behind = min(behind, key=len) if behind else None
    if never_behind is not None and (never_ahead is None or len(never_behind) < len(never_ahead)):
        group, verb, lim = never_behind, "behind", "infinite"
    else:
        group, verb, lim = never_ahead, "ahead of", "zero"
    who = ", ".join(repr(str(names[i])) for i in group)
    subject = f"policy {who} never finishes" if len(group) == 1 else f"policies {who} never finish"
    raise ValueError(
        f"{subject} {verb} any other policy, so the maximum-likelihood strength is {lim}; "
        "play more games or pass prior > 0"
    )


def _prior_shift(beta: np.ndarray) -> float:
    """The shift c maximising sum_p [b - 2 log(1 + e^b)] at b = beta + c: root of sum tanh(b/2)."""
    lo, hi = -float(beta.max()), -float(beta.min())
    c = -float(beta.mean())
    for _ in range(100):
        t = np.tanh((beta + c) / 2.0)
        f = float(t.sum())
        if f == 0.0:
            break
        if f > 0:
            hi = c
        else:
            lo = c
        slope = float((1.0 - t * t).sum()) / 2.0
        nxt = c - f / slope if slope > 0 else math.nan
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2.0
        if abs(nxt - c) <= 1e-15 * (1.0 + abs(c)):
            c = nxt
            break
        c = nxt
    return c


def _covariance(info: np.ndarray, prior: float) -> np.ndarray:
    n_pol = len(info)
    avg = np.full((n_pol, n_pol), 1.0 / n_pol)
    centre = np.eye(n_pol) - avg
    if prior > 0:  # noqa: SIM108 (the other branch wants its comment)
        cov = np.linalg.inv(info)
    else:  # Moore-Penrose inverse of an information matrix whose null space is the common shift
        cov = np.linalg.inv(info + avg) - avg
    return centre @ cov @ centre


def fit_plackett_luce(ranks: pd.DataFrame, *, max_iter: int = 1000, tol: float = 1e-9, prior: float = 1.0) -> Ratings:
    """Fit Plackett-Luce strengths of the policies to the final rankings of games.

    Parameters
    ----------
    ranks : pandas.DataFrame
        One row per seat per game with columns ``game`` (any hashable id), ``policy`` and
        ``rank`` (number, 1 = best; equal ranks within a game are ties). Several seats of
        one game may share a policy; they then share its strength. An optional column
        ``count`` (the same on every row of a game) makes a game stand for that many games
        with its ranking: the fit is the one the repeated games give, from a few rows.
    max_iter : int, default 1000
        Maximum number of MM iterations.
    tol : float, default 1e-9
        Convergence threshold on the largest change of a log-strength in one iteration.
    prior : float, default 1.0
        Virtual wins, and as many virtual losses, given to each policy against a reference
        opponent of log-strength 0 (see the module docstring). ``0`` gives the plain
        maximum-likelihood estimate.

    Returns
    -------
    Ratings
        The table of strengths (strongest first), the iteration count and convergence flag.

    Raises
    ------
    ValueError
        If a column is missing or holds missing/non-numeric values, there are fewer than two
        policies, a tied group is too large, or (``prior=0``) the maximum-likelihood
        estimate does not exist because some policies never finish ahead of (or behind) the rest.
    """
    _validate(ranks, max_iter, tol, prior)
    game, policy, rank, names = _encode(ranks)
    n_pol = len(names)
    if n_pol < 2:
        raise ValueError(f"need at least 2 policies to rate, got {n_pol}")
    game_count = _game_counts(ranks, game)
    played = np.unique(game * n_pol + policy)  # (game, policy) pairs
    if game_count is None:
        games_played = np.bincount(played % n_pol, minlength=n_pol)
    else:
        games_played = np.bincount(played % n_pol, weights=game_count[played // n_pol], minlength=n_pol)

    blocks = _choice_blocks(game, policy, rank, n_pol, game_count)
    if prior == 0:
        _check_connected(blocks, names)
    wins = np.full(n_pol, float(prior))
    for block in blocks:  # every seat of a chosen group wins one choice, whatever the order of the tie
        won = np.bincount(block.codes[:, : block.k].ravel(), np.repeat(block.count, block.k), n_pol + 1)
        wins += won[:n_pol]

    beta = np.zeros(n_pol)
    converged = False
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (its last value is the count returned)
        theta = np.exp(beta)
        denom = _mm_denominator(blocks, theta) + 2.0 * prior / (1.0 + theta)
        new = np.log(wins / denom)
        # the game likelihood only sees differences: move along the common shift to where the
        # prior is largest (mean 0 without prior), which keeps every step an ascent step
        new += _prior_shift(new) if prior > 0 else -new.mean()
        step = float(np.max(np.abs(new - beta)))
        beta = new
        if step < tol:
            converged = True
            break

    cov = _covariance(_information(blocks, np.exp(beta), prior), prior)
    log_strength = beta - beta.mean()
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    table = pd.DataFrame(
        {
            "strength": np.exp(log_strength),
            "log_strength": log_strength,
            "se": se,
            "lo": log_strength - Z_95 * se,
            "hi": log_strength + Z_95 * se,
            "elo": elo(log_strength),
            "games": games_played.astype(np.int64),
        },
        index=names,
    )
    table = table.iloc[np.argsort(-log_strength, kind="stable")]
    return Ratings(table=table, iterations=iterations, converged=converged)
