"""The shape of the games (studies/shape.py): every figure on two games built by hand, and on real
play the figures hang together."""

import numpy as np
import pandas as pd
import pytest

from smsim import layout as L
from smsim.rules import Rules
from smsim.studies.shape import shape_of
from smsim.studies.winprob import Positions


def positions(rows: list[tuple[int, int, list[int], list[int]]]) -> Positions:
    """2-player positions from (game, round, scores, empty spaces); a game's last row is its end."""
    values = np.zeros((len(rows), 2, L.N_ROUND_FIELDS), dtype=np.int16)
    for i, (_, _, score, empty) in enumerate(rows):
        values[i, :, L.RS_SCORE] = score
        values[i, :, L.RS_N_EMPTY] = empty
    keys = pd.DataFrame({"game": [r[0] for r in rows], "round": [r[1] for r in rows]})
    keys["rounds"] = keys.groupby("game")["round"].transform("max")
    return Positions(2, keys, values, Rules())


def test_every_figure_on_two_games_built_by_hand():
    # game 0: seat 0 leads, seat 1 leads, seat 0 wins by 2; game 1: level, then seat 1 wins on the tie-break
    p = positions(
        [
            (0, 0, [0, 0], [41, 41]),
            (0, 1, [5, 3], [38, 39]),
            (0, 2, [4, 6], [35, 34]),
            (0, 3, [10, 8], [30, 31]),
            (1, 0, [0, 0], [41, 41]),
            (1, 1, [2, 2], [39, 39]),
            (1, 2, [7, 7], [3, 5]),
        ]
    )
    prob = np.array([[0.5, 0.5], [0.6, 0.4], [0.3, 0.7], [1, 0], [0.5, 0.5], [0.45, 0.55], [0, 1]])
    result = shape_of(p, prob, "hand")
    got = result.figures.set_index("figure")["value"].to_dict()
    assert got == pytest.approx(
        {
            "lead_changes_vp": 1.0,
            "lead_changes_wp": 1.0,
            "no_lead_change_vp": 0.5,
            "no_lead_change_wp": 0.5,
            "winner_was_last": 0.5,
            "comeback": 0.0,
            "decided_round": 2.5,
            "decided_before_end": 0.0,
            "margin": 1.0,
            "close": 1.0,
            "drama": (0.3 + 0.55) / 2,
            "rounds": 2.5,
        }
    )
    assert result.per_game["winner"].tolist() == [0, 1]
    assert result.per_game["lead_changes_vp"].tolist() == [2, 0]
    curve = result.last_by_round.set_index("round")["winner_last"].to_dict()
    assert curve == {1: 0.0, 2: 1.0}  # game 0's winner was behind at round 2; game 1 had ended by then
    fan = result.winner_by_round.set_index("round")
    assert fan["games"].to_dict() == {1: 2, 2: 1}  # the winner's chance at each round before the end
    assert fan.loc[1, "q50"] == pytest.approx(0.575) and fan.loc[2, "q10"] == fan.loc[2, "q90"] == pytest.approx(0.3)
    assert (result.figures["games"] == 2).all()


def test_a_shared_win_counts_in_the_lead_changes_not_in_the_winners_figures():
    p = positions(
        [
            (0, 0, [0, 0], [41, 41]),
            (0, 1, [4, 2], [38, 39]),
            (0, 2, [9, 9], [4, 4]),
            (1, 0, [0, 0], [41, 41]),
            (1, 1, [1, 3], [39, 39]),
            (1, 2, [5, 8], [9, 9]),
        ]
    )
    prob = np.array([[0.5, 0.5], [0.7, 0.3], [0.5, 0.5], [0.5, 0.5], [0.2, 0.8], [0, 1]])
    figures = shape_of(p, prob).figures.set_index("figure")
    assert figures.loc["lead_changes_vp", "games"] == 2 and figures.loc["lead_changes_vp", "value"] == 0.0
    assert figures.loc["drama", "games"] == 1 and figures.loc["drama", "value"] == pytest.approx(0.8)
    assert figures.loc["margin", "value"] == pytest.approx(1.5)  # 0 and 3


def test_on_real_play_the_figures_hang_together(tmp_path):
    from smsim.runs.batch import simulate_to
    from smsim.studies.shape import game_shape
    from smsim.studies.winprob import fit_winprob

    path = str(tmp_path / "bal3")
    simulate_to(path, 1500, 3, ["balanced"], seed=8, rounds=True)
    result = game_shape(fit_winprob([path]), path)
    games, fig = result.per_game, result.figures.set_index("figure")
    assert result.policy == "balanced" and len(games) == 1500
    one = games[games["single_winner"]]
    assert (one["decided_round"] <= one["rounds"]).all() and (one["decided_round"] >= 1).all()
    assert ((one["winner_lowest"] > 0) & (one["winner_lowest"] < 1)).all()
    assert fig.loc["no_lead_change_wp", "value"] == pytest.approx((games["lead_changes_wp"] == 0).mean())
    assert fig.loc["winner_was_last", "value"] >= result.last_by_round["winner_last"].max()
    assert (fig["lo"] <= fig["value"]).all() and (fig["value"] <= fig["hi"]).all()
    assert fig.loc["rounds", "value"] == pytest.approx(games["rounds"].mean())


def test_paired_differences_are_the_games_differences():
    from smsim.errors import DatasetError
    from smsim.studies.shape import shape_difference

    rows = [
        (0, 0, [0, 0], [41, 41]),
        (0, 1, [5, 3], [38, 39]),
        (0, 2, [4, 6], [35, 34]),
        (0, 3, [10, 8], [30, 31]),
        (1, 0, [0, 0], [41, 41]),
        (1, 1, [2, 2], [39, 39]),
        (1, 2, [7, 7], [3, 5]),
    ]
    prob = np.array([[0.5, 0.5], [0.6, 0.4], [0.3, 0.7], [1, 0], [0.5, 0.5], [0.45, 0.55], [0, 1]])
    base = shape_of(positions(rows), prob, "base")
    calmer = prob.copy()
    calmer[2] = [0.95, 0.05]  # game 0's winner never below 60% (and above 90% from round 2)
    other = shape_of(positions(rows), calmer, "other")
    d = shape_difference(base, other).set_index("figure")
    assert d.loc["lead_changes_wp", "value"] == pytest.approx(-1.0)  # game 0: 2 changes became 0
    assert d.loc["drama", "value"] == pytest.approx((0.6 - 0.3) / 2)
    assert d.loc["decided_round", "value"] == pytest.approx(-0.5)  # game 0 decided at round 2, not 3
    assert d.loc["margin", "value"] == 0.0 and d.loc["margin", "games"] == 2
    short = shape_of(positions(rows[:4]), prob[:4], "short")
    with pytest.raises(DatasetError, match="not the same games"):
        shape_difference(base, short)
