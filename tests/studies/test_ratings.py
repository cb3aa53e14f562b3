"""Plackett-Luce ratings: recovery of known worths, Bradley-Terry, ties, standard errors, bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from smsim.studies.ratings import Ratings, fit_plackett_luce

WORTHS = {"w1": 1.0, "w2": 2.0, "w4": 4.0, "w8": 8.0}


def simulate(seed: int, n_games: int, worths: dict[str, float] = WORTHS, seats=(3, 4), tie_prob: float = 0.0):
    """Games drawn by Plackett-Luce sampling; seats' policies drawn with replacement.

    Each seat gets an exponential finishing time with rate equal to its worth; sorting by time
    is the Plackett-Luce draw (the next finisher among those left is chosen with probability
    proportional to worth). With ``tie_prob``, each pair of neighbouring places is merged into
    a tie independently of who holds them (coarsening at random).
    """
    rng = np.random.default_rng(seed)
    names = np.array(list(worths))
    w = np.array(list(worths.values()))
    frames = []
    first_game = 0
    for n_seats in seats:
        pol = rng.integers(0, len(names), size=(n_games, n_seats))
        order = np.argsort(rng.exponential(size=pol.shape) / w[pol], axis=1)  # order[:, i]: seat in place i
        new_group = np.ones((n_games, n_seats), dtype=bool)
        new_group[:, 1:] = rng.random((n_games, n_seats - 1)) >= tie_prob
        place = np.arange(1, n_seats + 1)[None, :]
        place_rank = np.maximum.accumulate(np.where(new_group, place, 0), axis=1)  # competition ranks 1,1,3,...
        rank = np.empty_like(place_rank)
        np.put_along_axis(rank, order, place_rank, axis=1)
        frames.append(
            pd.DataFrame(
                {
                    "game": np.repeat(np.arange(first_game, first_game + n_games), n_seats),
                    "policy": names[pol].ravel(),
                    "rank": rank.ravel(),
                }
            )
        )
        first_game += n_games
    return pd.concat(frames, ignore_index=True)


def games_frame(games: list[list[tuple[str, float]]]) -> pd.DataFrame:
    """Rows (game, policy, rank) from a list of games given as [(policy, rank), ...]."""
    return pd.DataFrame([{"game": g, "policy": p, "rank": r} for g, seats in enumerate(games) for p, r in seats])


def true_log_worths(names) -> np.ndarray:
    beta = np.log([WORTHS[n] for n in names])
    return beta - beta.mean()


# ---------------------------------------------------------------- brute force, for checking


def brute_log_likelihood(ranks: pd.DataFrame, beta: dict[str, float], prior: float = 0.0) -> float:
    """Coarsened Plackett-Luce log-likelihood by enumerating every strict order of every game.

    A game's likelihood is the summed probability of the strict orders consistent with its
    ranks (the tie method documented in smsim.studies.ratings), plus ``prior`` wins and losses of
    each policy against a reference of log-strength 0.
    """
    total = 0.0
    for _, game in ranks.groupby("game"):
        seats = list(zip(game["policy"], game["rank"]))
        prob = 0.0
        for perm in itertools.permutations(seats):
            if any(a[1] > b[1] for a, b in itertools.pairwise(perm)):
                continue
            w = [math.exp(beta[p]) for p, _ in perm]
            prob += math.prod(w[i] / sum(w[i:]) for i in range(len(w)))
        total += math.log(prob)
    for b in beta.values():
        total += prior * (b - 2.0 * math.log1p(math.exp(b)))
    return total


def numeric_gradient_hessian(f, x: np.ndarray, h: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    n = len(x)
    grad = np.zeros(n)
    hess = np.zeros((n, n))
    eye = np.eye(n) * h
    f0 = f(x)
    for i in range(n):
        grad[i] = (f(x + eye[i]) - f(x - eye[i])) / (2 * h)
        for j in range(n):
            hess[i, j] = (
                f(x + eye[i] + eye[j]) - f(x + eye[i] - eye[j]) - f(x - eye[i] + eye[j]) + f(x - eye[i] - eye[j])
            ) / (4 * h * h)
    assert np.isfinite(f0)
    return grad, hess


TIED_GAMES = [
    [("A", 1), ("B", 1), ("C", 3)],  # shared win
    [("A", 1), ("C", 2), ("B", 2)],  # tie for last
    [("B", 1), ("C", 2), ("C", 2), ("A", 4)],  # tie in the middle, two seats of one policy
    [("C", 1), ("A", 2), ("B", 3)],
    [("B", 1), ("A", 2)],
    [("C", 1), ("B", 2), ("A", 2), ("C", 2), ("D", 5)],  # three-way tie above D
    [("D", 1), ("A", 2), ("B", 3), ("C", 4)],
    [("A", 1), ("D", 2)],
    [("A", 1), ("A", 2), ("B", 3)],
    [("C", 1), ("A", 1), ("D", 1)],  # all tie
    [("B", 1), ("D", 2), ("C", 3)],
    [("D", 1), ("D", 1), ("B", 3)],
]


# ---------------------------------------------------------------- Bradley-Terry


def bt_frame(a_wins: int, b_wins: int, ties: int = 0) -> pd.DataFrame:
    games = [[("A", 1), ("B", 2)]] * a_wins + [[("B", 1), ("A", 2)]] * b_wins + [[("A", 1), ("B", 1)]] * ties
    return games_frame(games)


def test_bradley_terry_seven_three():
    fit = fit_plackett_luce(bt_frame(7, 3), prior=0)
    t = fit.table
    assert isinstance(fit, Ratings) and fit.converged
    assert math.isclose(t.loc["A", "strength"] / t.loc["B", "strength"], 7 / 3, rel_tol=1e-8)
    # closed form: Var(beta_A - beta_B) = 1 / (n p (1 - p)); each centred log-strength is half the difference
    se = math.sqrt(1 / (10 * 0.7 * 0.3)) / 2
    assert np.allclose(t["se"], se, rtol=1e-8)
    assert list(t.index) == ["A", "B"]  # strongest first
    assert t.loc["A", "games"] == 10


def test_bradley_terry_two_player_ties_are_all_tie_games():
    plain = fit_plackett_luce(bt_frame(7, 3), prior=0).table
    tied = fit_plackett_luce(bt_frame(7, 3, ties=5), prior=0).table
    cols = ["log_strength", "se"]
    np.testing.assert_allclose(tied[cols].to_numpy(), plain[cols].to_numpy(), rtol=0, atol=1e-10)
    assert tied.loc["A", "games"] == 15


def test_default_prior_shrinks_slightly_towards_equal():
    ratio = fit_plackett_luce(bt_frame(7, 3)).table["strength"]
    assert 1.8 < ratio["A"] / ratio["B"] < 7 / 3
    big = fit_plackett_luce(bt_frame(700, 300)).table["strength"]
    assert math.isclose(big["A"] / big["B"], 7 / 3, rel_tol=5e-3)


# ---------------------------------------------------------------- output conventions


def test_table_conventions():
    fit = fit_plackett_luce(simulate(1, 400))
    t = fit.table
    assert list(t.columns) == ["strength", "log_strength", "se", "lo", "hi", "elo", "games"]
    assert t.index.name == "policy" and sorted(t.index) == sorted(WORTHS)
    assert abs(t["log_strength"].mean()) < 1e-12
    assert math.isclose(np.exp(np.log(t["strength"]).mean()), 1.0, rel_tol=1e-12)
    np.testing.assert_allclose(t["elo"], 400 * np.log10(t["strength"]) + 1500)
    np.testing.assert_allclose(t["hi"] - t["log_strength"], 1.959963984540054 * t["se"])
    np.testing.assert_allclose(t["log_strength"] - t["lo"], 1.959963984540054 * t["se"])
    assert (np.diff(t["log_strength"].to_numpy()) <= 0).all()
    assert fit.converged and fit.iterations < 1000


def test_row_order_and_game_labels_do_not_matter():
    ranks = simulate(2, 300, tie_prob=0.3)
    base = fit_plackett_luce(ranks, prior=0).table
    shuffled = ranks.sample(frac=1.0, random_state=7)
    shuffled["game"] = "g" + shuffled["game"].astype(str)
    other = fit_plackett_luce(shuffled, prior=0).table
    pd.testing.assert_frame_equal(other, base, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- ties


def test_all_tie_games_contribute_nothing():
    ranks = games_frame(TIED_GAMES)
    all_tie = games_frame(
        [[("A", 1), ("B", 1)], [("A", 2), ("C", 2), ("D", 2)], [("B", 1), ("B", 1), ("C", 1), ("D", 1)]] * 5
    )
    all_tie["game"] += 1000
    for prior in (0.0, 1.0):
        base = fit_plackett_luce(ranks, prior=prior).table
        more = fit_plackett_luce(pd.concat([ranks, all_tie]), prior=prior).table
        cols = ["log_strength", "se", "lo", "hi"]
        np.testing.assert_allclose(more.loc[base.index, cols], base[cols], rtol=0, atol=1e-10)
        assert (more.loc[base.index, "games"] > base["games"]).all()


def test_shared_win_is_symmetric():
    # A and B play symmetric roles; only ties separate them from a strict ordering between them
    games = (
        [[("A", 1), ("B", 1), ("C", 3)]] * 4  # shared first place
        + [[("C", 1), ("A", 2), ("B", 2)]] * 2  # shared last place
        + [[("A", 1), ("C", 2)], [("B", 1), ("C", 2)], [("C", 1), ("A", 2)], [("C", 1), ("B", 2)]]
    )
    t = fit_plackett_luce(games_frame(games), prior=0).table
    assert math.isclose(t.loc["A", "log_strength"], t.loc["B", "log_strength"], abs_tol=1e-10)
    assert math.isclose(t.loc["A", "se"], t.loc["B", "se"], rel_tol=1e-9)
    # a shared win over C is evidence against C
    assert t.loc["A", "log_strength"] > t.loc["C", "log_strength"]


@pytest.mark.parametrize("prior", [0.0, 1.0])
def test_tie_likelihood_and_standard_errors_match_brute_force(prior):
    """The fit maximises the coarsened likelihood, and se comes from its Hessian."""
    ranks = games_frame(TIED_GAMES)
    t = fit_plackett_luce(ranks, prior=prior, tol=1e-12).table.sort_index()
    names = list(t.index)

    def f(beta):
        return brute_log_likelihood(ranks, dict(zip(names, beta)), prior)

    beta = t["log_strength"].to_numpy()
    if prior > 0:  # the prior pins the common shift c: the optimum solves sum tanh((beta + c) / 2) = 0
        lo, hi = -beta.max(), -beta.min()
        for _ in range(200):
            c = (lo + hi) / 2
            lo, hi = (lo, c) if np.tanh((beta + c) / 2).sum() > 0 else (c, hi)
        beta = beta + (lo + hi) / 2
    grad, hess = numeric_gradient_hessian(f, beta)
    assert np.abs(grad).max() < 1e-6
    n = len(names)
    centre = np.eye(n) - 1.0 / n
    info = -hess
    cov = np.linalg.pinv(info, rcond=1e-8) if prior == 0 else np.linalg.inv(info)
    se = np.sqrt(np.diag(centre @ cov @ centre))
    np.testing.assert_allclose(t["se"].to_numpy(), se, rtol=1e-4)


def test_tie_at_the_bottom_is_only_a_top_choice():
    # "A first, B and C tied last" has likelihood a / (a + b + c): with many such games alone B and C
    # stay equal and the ratio is fixed by A's share of first places
    games = [[("A", 1), ("B", 2), ("C", 2)]] * 6 + [[("B", 1), ("A", 2), ("C", 2)]] * 3
    games += [[("C", 1), ("A", 2), ("B", 2)]] * 3
    t = fit_plackett_luce(games_frame(games), prior=0).table
    s = t["strength"]
    # A won 6 of 12 first places, B and C 3 each: top-choice MLE is proportional to the counts
    assert math.isclose(s["A"] / s["B"], 2.0, rel_tol=1e-8)
    assert math.isclose(s["B"] / s["C"], 1.0, rel_tol=1e-8)


# ---------------------------------------------------------------- recovery of known worths


@pytest.mark.parametrize("tie_prob", [0.0, 0.25])
def test_recovers_known_worths(tie_prob):
    covered = 0
    seeds = range(5)
    for seed in seeds:
        fit = fit_plackett_luce(simulate(seed, 1500, tie_prob=tie_prob))
        t = fit.table
        truth = true_log_worths(t.index)
        err = t["log_strength"].to_numpy() - truth
        assert fit.converged
        assert (np.abs(err) < 4 * t["se"].to_numpy()).all(), (seed, err, t["se"].to_numpy())
        assert (t["se"] < 0.1).all()
        covered += bool(((t["lo"] <= truth) & (truth <= t["hi"])).all())
    assert covered >= 4


def test_standard_errors_are_calibrated():
    """Over many small simulations the standardised errors have spread close to 1 and 95% coverage."""
    z = []
    for seed in range(100, 200):
        t = fit_plackett_luce(simulate(seed, 300, tie_prob=0.15), prior=0).table
        z.extend((t["log_strength"] - true_log_worths(t.index)) / t["se"])
    z = np.asarray(z)
    # centring makes the four errors of a seed sum to zero: their variance in se units is still 1
    assert 0.85 < z.std() < 1.15, z.std()
    assert 0.9 < np.mean(np.abs(z) <= 1.959963984540054) < 0.99


def test_shared_policy_seats_share_one_parameter():
    # each game: two seats of one policy and one of another; worths 1 vs 3
    t = fit_plackett_luce(simulate(3, 4000, worths={"a": 1.0, "b": 3.0}, seats=(3,)), prior=0).table
    assert abs(t.loc["b", "log_strength"] - t.loc["a", "log_strength"] - math.log(3)) < 4 * 2 * t["se"].max()


@pytest.mark.parametrize("tie_prob", [0.0, 0.2])
def test_count_column_stands_for_repeated_games(tie_prob):
    """A game with count c gives the fit of c copies of it: distinct rankings with counts are
    how a comparison of millions of games is rated in little memory."""
    ranks = simulate(11, 400, tie_prob=tie_prob)
    game_ids = ranks["game"].unique()
    rng = np.random.default_rng(5)
    copies = dict(zip(game_ids, rng.integers(1, 4, len(game_ids))))
    repeated = pd.concat(
        [ranks[ranks["game"] == g].assign(game=f"{g}-{i}") for g, c in copies.items() for i in range(c)],
        ignore_index=True,
    )
    counted = ranks.assign(count=ranks["game"].map(copies))
    for prior in (0.0, 1.0):
        a = fit_plackett_luce(repeated, prior=prior).table
        b = fit_plackett_luce(counted, prior=prior).table
        pd.testing.assert_frame_equal(a, b, rtol=1e-9)
        assert list(b["games"]) == list(a["games"])


def test_count_column_must_be_positive_and_one_per_game():
    ranks = bt_frame(3, 2).assign(count=2)
    ranks.loc[0, "count"] = 0
    with pytest.raises(ValueError, match="'count' must hold positive numbers"):
        fit_plackett_luce(ranks)
    ranks.loc[0, "count"] = 3  # the other row of that game says 2
    with pytest.raises(ValueError, match="same on every row of a game"):
        fit_plackett_luce(ranks)


# ---------------------------------------------------------------- bad input


def test_missing_columns():
    with pytest.raises(ValueError, match=r"missing column.*'rank'"):
        fit_plackett_luce(pd.DataFrame({"game": [1, 1], "policy": ["a", "b"]}))
    with pytest.raises(ValueError, match="DataFrame"):
        fit_plackett_luce([("a", 1)])  # type: ignore[arg-type]


def test_fewer_than_two_policies():
    with pytest.raises(ValueError, match="at least 2 policies"):
        fit_plackett_luce(games_frame([[("a", 1), ("a", 2)]] * 3))


def test_bad_values():
    ranks = bt_frame(3, 2)
    ranks.loc[0, "rank"] = np.nan
    with pytest.raises(ValueError, match="'rank'"):
        fit_plackett_luce(ranks)
    ranks = bt_frame(3, 2).astype({"rank": object})
    ranks.loc[0, "rank"] = "first"
    with pytest.raises(ValueError, match="'rank'"):
        fit_plackett_luce(ranks)
    with pytest.raises(ValueError, match="prior"):
        fit_plackett_luce(bt_frame(3, 2), prior=-1)
    with pytest.raises(ValueError, match="empty"):
        fit_plackett_luce(pd.DataFrame(columns=["game", "policy", "rank"]))


def test_policy_that_never_wins():
    games = [[("a", 1), ("b", 2), ("loser", 3)]] * 5 + [[("b", 1), ("a", 2), ("loser", 3)]] * 5
    ranks = games_frame(games)
    with pytest.raises(ValueError, match=r"^policy 'loser' never finishes ahead of any other policy") as err:
        fit_plackett_luce(ranks, prior=0)
    assert "\n" not in str(err.value)
    # the default prior keeps the estimate finite, with a wide interval
    fit = fit_plackett_luce(ranks)
    t = fit.table
    assert fit.converged and np.isfinite(t.to_numpy(dtype=float)).all()
    assert t.index[-1] == "loser" and t.loc["loser", "se"] > t.loc["a", "se"]


def test_policy_that_never_loses_and_disconnected_groups():
    games = [[("champ", 1), ("a", 2), ("b", 3)]] * 3 + [[("b", 1), ("a", 2)], [("a", 1), ("b", 2)]]
    with pytest.raises(ValueError, match="policy 'champ' never finishes behind"):
        fit_plackett_luce(games_frame(games), prior=0)
    split = [[("a", 1), ("b", 2)], [("b", 1), ("a", 2)], [("c", 1), ("d", 2)], [("d", 1), ("c", 2)]]
    with pytest.raises(ValueError, match="never finish ahead of any other policy"):
        fit_plackett_luce(games_frame(split), prior=0)
    assert np.isfinite(fit_plackett_luce(games_frame(split)).table["se"]).all()


# ---------------------------------------------------------------- scale


def test_large_input_is_vectorised():
    """200,000 four-seat games (800,000 rows): runs in about a second if the fit is vectorised."""
    ranks = simulate(9, 200_000, seats=(4,), tie_prob=0.05)
    fit = fit_plackett_luce(ranks)
    t = fit.table
    assert fit.converged
    np.testing.assert_allclose(t["log_strength"], true_log_worths(t.index), atol=5 * t["se"].max())


def test_elo_scale_puts_a_tenfold_strength_400_points_apart():
    from smsim.studies.ratings import elo, elo_points

    assert elo(0.0) == 1500.0
    assert elo(np.log(10.0)) - elo(0.0) == pytest.approx(400.0)
    assert elo_points(np.log(10.0)) == pytest.approx(400.0)
    assert elo_points(-np.log(100.0)) == pytest.approx(-800.0)
