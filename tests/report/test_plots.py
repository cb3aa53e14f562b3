"""Figures: each kind draws with the title, axes and caption it promises, and saves non-empty
PNG and SVG files; with too little data a figure is either drawn or declined, never an error."""

import io

import pytest

from smsim.report.tables import read_report_data
from smsim.report.plots import PLOTS

# kind -> (title, x label of the first panel, y label of the first panel)
EXPECTED = {
    "church-series": ("Longest church series by policy", "longest church series (churches)", "share of seats (%)"),
    "church-vp": ("VP from church series by policy", "policy", "church VP per seat"),
    "sides": ("How often each side of the wall is completed", "policy", "seats completing the side (%)"),
    "side-rounds": ("Round in which each side is completed", "round (1 = first)", "share of completions (%)"),
    "bonus-value": ("What a completed side is worth", "side and bonus", "VP"),
    "wall-defence": ("How often walls, not soldiers, carried the defence", "attack (strength rises)",
                     "held attacks held by walls alone (%)"),
    "attack-rounds": ("Round of each pirate attack", "attack", "round (1 = first)"),
    "cannons": ("Cannons lost to the pirates", "policy", "cannons lost per seat (5 VP each)"),
    "defence": ("Defence against the strength of each attack", "attack", "defence"),
    "scores": ("Final score by policy", "final VP", "density"),
    "seat-advantage": ("Win rate by seat (seat 1 starts)", "seat", "win rate (%)"),
    "game-length": ("Game length", "rounds", "share of games (%)"),
    "vp-sources": ("Where the VP come from", "policy", "mean VP per seat"),
    "ratings": ("Plackett-Luce ratings (Elo scale)", "policy", "rating (Elo scale)"),
    "seat-parity": ("Win rate by seat against parity (seat 1 starts)", "seat (1 starts)",
                    "win rate minus parity (points)"),
}


@pytest.fixture(scope="module")
def data(report_datasets):
    return read_report_data([report_datasets[k] for k in ("four", "two", "cmp")])


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
    if kind == "seat-parity":  # the mirror of 2 players (400 games) and the comparison of 3 (360), not the 4 mixed seats
        games = "760"
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
    for kind, plot in PLOTS.items():
        made = plot(data)
        if made is not None:
            checked += assert_no_legend_covers_data(made[0])
    two = read_report_data([report_datasets["two"], report_datasets["four"]], ladder=("balanced", "greedy"))
    verdicts = LA.ladder_verdicts(LA.ladder_table(two))
    for section in ("Church series", "Wall bonuses", "Pirate losses", "Outcomes"):
        made = ladder_figure(verdicts[verdicts["section"] == section], section)
        assert made is not None and "games" in made[1]
        checked += assert_no_legend_covers_data(made[0])
    assert checked >= 10


def test_ratings_are_points_from_the_mean_not_bars_from_zero(data):
    """An Elo rating has no zero: the chart draws each rating as a point with its interval around
    the mean rating, and its axis does not start at 0."""
    fig, caption = PLOTS["ratings"](data)
    ax = fig.axes[0]
    assert not ax.patches  # no bars
    assert ax.get_ylim()[0] > 1000 and "mean rating" in caption
