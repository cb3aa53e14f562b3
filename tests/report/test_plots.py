"""Figures: each kind draws with the title, axes and caption it promises, and saves non-empty
PNG and SVG files; with too little data a figure is either drawn or declined, never an error."""

import io
from typing import TYPE_CHECKING

import numpy as np
import pytest

from smsim.report.plots import PLOTS
from smsim.report.tables import read_report_data

if TYPE_CHECKING:
    import pandas as pd  # imported where used, in _ladder_rows

# kind -> (title, x label of the first panel, y label of the first panel)
EXPECTED = {
    "church-series": ("Longest church series by policy", "longest church series (churches)", "share of seats (%)"),
    "church-vp": ("VP from church series by policy", "policy", "church VP per seat"),
    "sides": ("How often each side of the wall is completed", "policy", "seats completing the side (%)"),
    "side-rounds": ("Round in which each side is completed", "round (1 = first)", "share of completions (%)"),
    "bonus-value": ("What each wall bonus is worth: with it minus without it, on the same dice", "", "VP it is worth"),
    "wall-defence": (
        "How often walls, not soldiers, carried the defence",
        "attack (strength rises)",
        "held attacks held by walls alone (%)",
    ),
    "attack-rounds": ("Round of each pirate attack", "attack", "round (1 = first)"),
    "cannons": ("Cannons lost to the pirates", "policy", "cannons lost per seat (5 VP each)"),
    "defence": ("Defence against the strength of each attack", "attack", "defence"),
    "scores": ("Final score by policy", "final VP", "density"),
    "seat-advantage": ("Win rate by seat (seat 1 starts)", "seat", "win rate (%)"),
    "game-length": ("Game length", "rounds", "share of games (%)"),
    "vp-sources": ("Where the VP come from", "policy", "mean VP per seat"),
    "ratings": ("Plackett-Luce ratings (Elo scale)", "policy", "rating (Elo scale)"),
    "seat-parity": (
        "Win rate by seat against parity (seat 1 starts)",
        "seat (1 starts)",
        "win rate minus parity (points)",
    ),
}


@pytest.fixture(scope="module")
def data(report_datasets):
    return read_report_data([report_datasets[k] for k in ("four", "two", "cmp", "bonus2")])


def test_every_kind_is_specified():
    assert set(PLOTS) == set(EXPECTED)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_figure_has_its_title_axes_and_caption(data, kind):
    made = PLOTS[kind](data)
    assert made is not None, kind
    fig, caption = made
    title, xlabel, ylabel = EXPECTED[kind]
    assert fig.get_suptitle() == title
    first = fig.axes[0]
    assert first.get_xlabel() == xlabel and first.get_ylabel() == ylabel
    assert any(ax.has_data() for ax in fig.axes)
    games = "360" if kind == "ratings" else f"{data.n_games:,}"  # ratings: the comparison's games only
    if (
        kind == "seat-parity"
    ):  # the mirror of 2 players (400 games) and the comparison of 3 (360), not the 4 mixed seats
        games = "760"
    if kind == "bonus-value":  # the ablation's games, each side withheld from each seat in turn
        games = "at 2 players 100 games (balanced)"
    assert games in caption, caption
    for fmt in ("png", "svg"):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt)
        assert len(buf.getvalue()) > 1000


def test_panels_follow_the_player_counts(data):
    fig, _ = PLOTS["seat-advantage"](data)
    assert [ax.get_title() for ax in fig.axes] == ["2 players", "3 players", "4 players"]
    assert len(fig.axes[0].get_xticks()) == 2 and len(fig.axes[2].get_xticks()) == 4


@pytest.mark.parametrize("name", ["tiny", "empty"])
def test_little_or_no_data_draws_or_declines(report_datasets, name):
    data = read_report_data([report_datasets[name]])
    for kind, plot in PLOTS.items():
        made = plot(data)
        if name == "empty" or kind == "ratings":
            assert made is None, kind
        elif made is not None:
            assert made[0].get_suptitle() == EXPECTED[kind][0]


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5


def assert_no_legend_covers_data(fig) -> int:
    """Draw the figure and check that no legend (an axes' or the figure's) overlaps the plotting
    area of any visible axes; returns how many legends were checked."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    areas = [ax.get_window_extent(renderer) for ax in fig.axes if ax.get_visible()]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert not any(_overlaps(box, area) for area in areas), fig.get_suptitle()
    return len(legends)


def test_no_legend_covers_data(data, report_datasets):
    """Every figure of the report, its legends beside its panels: none lies on a plotting area
    (issue 25: the legend of "How often each side of the wall is completed" sat on its bars)."""
    from smsim.report import ladder as LA
    from smsim.report.plots import ladder_figure

    checked = 0
    for plot in PLOTS.values():
        made = plot(data)
        if made is not None:
            checked += assert_no_legend_covers_data(made[0])
    two = read_report_data(
        [report_datasets["two"], report_datasets["four"], report_datasets["bonus2"]], ladder=("balanced", "greedy")
    )  # the ablation: the wall bonuses' ladder figures
    verdicts = LA.ladder_verdicts(LA.ladder_table(two))
    for section in ("Church series", "Wall bonuses", "Pirate losses", "Outcomes"):
        made = ladder_figure(verdicts[verdicts["section"] == section], section)
        assert made is not None and "games" in made[1]
        checked += assert_no_legend_covers_data(made[0])
    assert checked >= 10


def test_the_bonus_value_figure_draws_the_ablation_in_board_order(data):
    """A column of panels per player count: VP above, win share in points below, the sides in
    board order with their bonus, each value with its interval; no ablation, no figure."""
    from smsim.report import tables as A

    fig, _caption = PLOTS["bonus-value"](data)
    top, bottom = fig.axes
    assert top.get_title() == "2 players" and bottom.get_ylabel() == "win share it is worth (points)"
    labels = [t.get_text() for t in bottom.get_xticklabels()]
    assert labels == [
        "top\na person of\nup to 3\nheads",
        "right\n2 coins",
        "bottom\n3 VP",
        "left\n2 coins",
    ]  # wrapped: no overlap
    t = A.bonus_value(data)
    drawn = [line.get_ydata() for line in top.lines if len(line.get_ydata()) == 4]
    assert any(list(y) == list(t["vp_change"]) for y in drawn)
    assert PLOTS["bonus-value"](read_report_data([data.sources[1].path])) is None


def test_ratings_are_points_from_the_mean_not_bars_from_zero(data):
    """An Elo rating has no zero: the chart draws each rating as a point with its interval around
    the mean rating, and its axis does not start at 0."""
    fig, caption = PLOTS["ratings"](data)
    ax = fig.axes[0]
    assert not ax.patches  # no bars
    assert ax.get_ylim()[0] > 1000 and "mean rating" in caption


def test_a_rating_far_below_the_rest_is_marked_at_the_foot_not_drawn_to_scale():
    """`random`'s rating (hundreds below every heuristic) would squash the others' differences: it
    is marked at the foot of the panel with its rating written; a field without such a gap is drawn whole."""
    from smsim.report.plots import _far_below

    assert _far_below(np.array([1900.0, 1800, 1750, 1600, -90])).tolist() == [False, False, False, False, True]
    assert not _far_below(np.array([1900.0, 1800, 1750, 1600, 1500])).any()
    assert not _far_below(np.array([1900.0, -90])).any()  # two policies: nothing to squash


def test_long_names_are_rows_not_crowded_columns():
    """The ladder's steps name each row in full on the y axis (as x labels the step names overlapped)."""
    import pandas as pd

    from smsim.report import plots as P

    steps = pd.DataFrame(
        [
            {"players": p, "lower": lo, "upper": up, "check": False, "edge": 0.3, "edge_lo": 0.28, "edge_hi": 0.32,
             "field_diff": 0.1, "field_lo": 0.08, "field_hi": 0.12, "head_games": 4000, "field_games": 3996}
            for p in (2, 4)
            for lo, up in (("greedy-noise-80", "greedy-noise-60"), ("greedy-noise-60", "greedy-noise-45"))
        ]
    )  # fmt: skip
    fig, _ = P.ladder_steps_figure(steps)
    left = fig.axes[0]
    assert [t.get_text() for t in left.get_yticklabels()] == [
        "greedy-noise-80 → greedy-noise-60",
        "greedy-noise-60 → greedy-noise-45",
    ]
    assert left.get_ylim()[0] > left.get_ylim()[1]  # the lowest step at the top, as the table reads
    assert all(ax.get_xlabel() == "points" for ax in fig.axes[:2])


def test_the_median_game_is_the_one_whose_winner_has_the_median_vp(tmp_path):
    """The picture of the game: the game of a small run whose winner's VP is the median, each
    seat's final city drawn as the board is (its walls, crates and churches where its city has them)."""
    import numpy as np

    from smsim import layout as L
    from smsim.report.plots import median_game, median_game_figure
    from smsim.runs.batch import simulate

    seats, _ = simulate(9, 2, ["balanced"], seed=31)
    winners = seats[seats["won"] == 1].groupby("game")["total"].max()
    game, traced = median_game(2, "balanced", 9, 31)
    assert winners.loc[game] == sorted(winners)[4]  # the fifth of nine
    assert traced.score[:, L.S_TOTAL].max() == winners.loc[game]
    fig, caption = median_game_figure(2, "balanced", 9, 31)
    axes = fig.get_axes()
    assert len(axes) == 2 and f"game {game} of seed 31" in caption
    for seat, ax in enumerate(axes):
        city = traced.city[seat]
        symbols = [t.get_text() for t in ax.texts]
        assert symbols.count("C") == int((city == L.Cell.CRATE).sum())
        assert symbols.count("H") == int((city == L.Cell.HOUSE).sum())
        assert len(ax.patches) == L.N_CELLS
        assert (
            ax.get_title().startswith(f"seat {seat + 1}")
            and f"{int(traced.score[seat, L.S_TOTAL])} VP" in ax.get_title()
        )
    assert np.isin(traced.city, [int(c) for c in L.Cell]).all()


def _ladder_rows(figures: list[tuple]) -> "pd.DataFrame":
    """A ladder table (``report.ladder.LADDER_COLUMNS``) built by hand: (players, figure, item,
    label, unit, section, [value per level], half-width)."""
    import pandas as pd

    rows = []
    for players, figure, item, label, unit, section, values, half in figures:
        for level, value in enumerate(values, start=1):
            rows.append(
                {
                    "players": players,
                    "level": level,
                    "policy": ["balanced", "learned", "rollout"][level - 1],
                    "games": 10_000,
                    "planned": 10_000,
                    "figure": figure,
                    "item": item,
                    "label": label,
                    "unit": unit,
                    "section": section,
                    "value": value,
                    "lo": value - half,
                    "hi": value + half,
                    "n": 10_000,
                    "parity": 1 / players if figure == "seat_win" else float("nan"),
                }
            )
    return pd.DataFrame(rows)


def test_a_ladder_figure_draws_the_change_from_l1_against_the_margin():
    """Each panel: the change from L1 (L1 at 0) with its interval, the margin shaded, the verdict
    of each line in its key, the title whole; panels of one unit share their y-axis."""
    from matplotlib.patches import Polygon, Rectangle

    from smsim.report import ladder as LA
    from smsim.report.plots import ladder_figure, verdict_word

    long = "The right side's bonus (2 coins): VP ahead of seats without it, a label far too long for one line"
    table = _ladder_rows(
        [
            (4, "seat_win", "0", "Seat 0 wins", "rate", "Outcomes", [0.26, 0.30, 0.301], 0.002),
            (4, "seat_win", "3", "Seat 3 wins", "rate", "Outcomes", [0.24, 0.2405, 0.241], 0.002),
            (2, "seat_win", "0", "Seat 0 wins", "rate", "Outcomes", [0.52, 0.52, 0.52], 0.05),
            (2, "seat_win", "1", "Seat 1 wins", "rate", "Outcomes", [0.48, 0.48, 0.48], 0.05),
            (4, "vp_by_source", "total", long, "vp", "Outcomes", [44.0, 43.9, 43.95], 0.05),
            (4, "game_length", "", "Game length (rounds)", "rounds", "Outcomes", [21.08, 21.06, 21.07], 0.01),
        ]
    )
    v = LA.ladder_verdicts(table)
    fig, caption = ladder_figure(v, "Outcomes")
    assert "smallest change that matters" in caption and "points ±1" in caption and "VP ±0.5" in caption
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 4
    titles = [ax.get_title() for ax in axes]
    assert titles[:2] == ["The start player's win rate", "The last seat's win rate"]
    assert titles[2].replace("\n", " ") == long and "…" not in "".join(titles)  # wrapped, never cut
    for ax, margin in zip(axes, (1.0, 1.0, 0.5, 0.25)):
        bands = [p for p in ax.patches if isinstance(p, (Polygon, Rectangle))]
        ys = np.concatenate(
            [p.get_xy()[:, 1] for p in bands if isinstance(p, Polygon)]
            or [[p.get_y(), p.get_y() + p.get_height()] for p in bands]
        )
        assert (ys.min(), ys.max()) == pytest.approx((-margin, margin))  # the margin band, in the panel's unit
        lo, hi = ax.get_ylim()
        assert lo < -margin and hi > margin
    assert axes[0].get_ylim() == axes[1].get_ylim() and axes[0].get_ylim() != axes[2].get_ylim()  # rates share
    # the start player's line at 4 players: L1 at 0, then +4 and +4.1 points; its key says it rises
    key = {t.get_text() for t in axes[0].get_legend().get_texts()}
    assert key == {"4 players: rises", "2 players: not settled"}
    lines = {tuple(np.round(line.get_ydata(), 3)) for line in axes[0].get_lines() if len(line.get_ydata()) == 3}
    assert (0.0, 4.0, 4.1) in lines
    rows = v[(v["figure"] == "game_length")].iloc[0]
    assert verdict_word(rows) == "stable"
    assert {t.get_text() for t in axes[3].get_legend().get_texts()} == {"4 players: stable"}
    assert_no_legend_covers_data(fig)
