"""Per-seat compensation search and its held-out check (smsim.fairness, ``smsim fairness``)."""

import io
import itertools
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import smsim
from smsim import layout as L
from smsim.rules import Rules, load_rules
from smsim.runs.batch import run_games
from smsim.studies.fairness import (
    CHECK_SEED_OFFSET,
    FairnessError,
    FairnessResult,
    Search,
    fairness,
    objective,
    read_fairness,
)


def shares_of(score, game_out):
    """Win share per game and seat, computed here: a win split between the tied winners."""
    return score[:, :, L.S_WON].astype(float) / game_out[:, L.G_WINNERS][:, None]


def win_share(players, rules, games, seed, policy="balanced"):
    score, _, game_out = run_games(games, players, [policy], seed, rules, threads=1)
    return shares_of(score, game_out).mean(axis=0)


@pytest.fixture(scope="module")
def vp2():
    """A small real search: 2 players by VP, max 2, on 3,000 games."""
    return smsim.fairness(players=2, policy="balanced", by="vp", games=3000, seed=11, max_compensation=2, threads=1)


# -- the search, on a model of the win shares: exact, instant ----------------------------------------
def model_shares(strength, c):
    """Win shares from a logit model: seat s's weight is exp(strength[s] + 0.3 * compensation[s])."""
    w = np.exp(np.asarray(strength) + 0.3 * np.asarray(c, dtype=float))
    return w / w.sum()


def model_play(calls, strength):
    """The search's play function on the model (the vectors of a step, played together), counting
    the vectors played; every game gives the same shares (one row of them is enough for the
    search's mean)."""

    def play(cs):
        for c in cs:
            calls[c] += 1
        return [model_shares(strength, c)[None, :] for c in cs]

    return play


@pytest.mark.parametrize("players, lo, hi", [(2, 0, 6), (4, 0, 6), (5, -6, 6), (4, 0, 1)])
def test_search_plays_each_vector_once_and_stops_at_a_local_minimum(players, lo, hi):
    calls = Counter()
    strength = [0.5, 0.2, 0.0, -0.3, -0.45][:players]  # the start player strongest
    search = Search(model_play(calls, strength), players, lo, hi)
    best = search.run()
    assert calls and max(calls.values()) == 1  # memoised: no vector played twice
    assert [ev.compensation for ev in search.history] == list(calls)
    assert best.compensation[0] == 0 and all(lo <= c <= hi for c in best.compensation)
    # no move of one seat by 1 (inside the bounds) improves, computed here from the model
    for s in range(1, players):
        for d in (-1, 1):
            c = list(best.compensation)
            c[s] += d
            if lo <= c[s] <= hi:
                assert objective(model_shares(strength, c)) >= best.objective - 1e-15
    assert best.objective <= objective(model_shares(strength, (0,) * players))


def test_search_moves_weaker_seats_up_first():
    """Seats behind parity get +1 first: with a strong start player every step raises a later seat."""
    calls = Counter()
    search = Search(model_play(calls, [0.6, 0.2, 0.0, -0.2]), 4, 0, 6)
    best = search.run()
    assert best.compensation[1:] == tuple(sorted(best.compensation[1:]))  # later seats need more
    assert best.compensation[3] >= 2


# -- real games ------------------------------------------------------------------------------------
def test_real_search_plays_each_vector_once_and_improves_on_zero(vp2):
    seen = [ev.compensation for ev in vp2.search]
    assert len(seen) == len(set(seen)) and seen[0] == (0, 0)
    assert all(c[0] == 0 and -2 <= c[1] <= 2 for c in seen)
    # the objective at the found vector is at most the one at zero, recomputed here on the search games
    found = objective(win_share(2, Rules(seat_vp=vp2.compensation), 3000, 11))
    zero = objective(win_share(2, Rules(), 3000, 11))
    assert found <= zero
    assert found == pytest.approx(vp2.check["search_objective"], abs=1e-15)
    assert zero == pytest.approx(vp2.check["search_objective_zero"], abs=1e-15)
    by_vector = {ev.compensation: ev.objective for ev in vp2.search}
    assert min(by_vector.values()) == by_vector[vp2.compensation]


def test_vp_compensation_raises_seat_1s_win_share_monotonically():
    """On common dice the VP adjustment changes no move, only the totals: seat 1's share can only rise."""
    shares = [win_share(2, Rules(seat_vp=(0, k)), 2000, 3)[1] for k in range(5)]
    assert all(b >= a for a, b in itertools.pairwise(shares))
    assert shares[-1] > shares[0] + 0.05


def test_coin_compensation_helps_the_seat_that_gets_it():
    base = win_share(3, Rules(), 2000, 4)
    more = win_share(3, Rules(seat_coins=(0, 0, 3)), 2000, 4)
    assert more[2] > base[2]


def test_the_check_plays_held_out_games(vp2):
    assert vp2.check_seed == 11 + CHECK_SEED_OFFSET != vp2.seed and vp2.check_games == 3000
    # "before" on the check games is the uncompensated table on the held-out seed, not on the search seed
    held_out = win_share(2, Rules(), 3000, vp2.check_seed)
    assert list(vp2.table["before"]) == pytest.approx(list(held_out), abs=1e-15)
    assert list(vp2.table["before"]) != pytest.approx(list(vp2.search[0].win), abs=1e-9)
    with pytest.raises(FairnessError, match="check seed must differ"):
        smsim.fairness(players=2, games=10, seed=5, check_seed=5)


def test_result_table_intervals_and_verdicts(vp2):
    t = vp2.table
    assert list(t.columns) == [
        "seat",
        "compensation",
        "before",
        "before_lo",
        "before_hi",
        "after",
        "after_lo",
        "after_hi",
        "distinguishable",
    ]
    assert list(t["seat"]) == [0, 1] and list(t["compensation"]) == list(vp2.compensation)
    assert t["before"].sum() == pytest.approx(1.0) and t["after"].sum() == pytest.approx(1.0)
    assert (t["before_lo"] < t["before"]).all() and (t["before"] < t["before_hi"]).all()
    assert list(t["distinguishable"]) == [not lo <= 0.5 <= hi for lo, hi in zip(t["after_lo"], t["after_hi"])]
    assert vp2.rules == Rules(seat_vp=vp2.compensation)
    c = vp2.check
    assert c["after_max_deviation"] == pytest.approx(abs(t["after"] - 0.5).max())
    # chi-square of "both seats equal" with 1 dof: (W0 - n/2)^2 / (n/2) * 2 from the win counts
    n = vp2.check_games
    assert c["chi2_before"] == pytest.approx(2 * (t["before"][0] * n - n / 2) ** 2 / (n / 2))
    assert 0 <= c["p_after"] <= 1


def test_the_printout_writes_intervals_and_a_missing_figure_one_way(vp2):
    """The terminal's printer of a search (``report.terminal.print_fairness``): each win share with
    its interval as ``intervals.interval_text`` writes it, a missing one as ``intervals.MISSING``."""
    import dataclasses

    from rich.console import Console

    from smsim.intervals import MISSING, interval_text
    from smsim.report.terminal import print_fairness

    t = vp2.table.copy()
    t.loc[1, "after"] = np.nan
    buf = io.StringIO()
    print_fairness(dataclasses.replace(vp2, table=t), console=Console(file=buf, width=200))
    out = buf.getvalue()
    rows = [line for line in out.splitlines() if line.startswith("│")]
    r = t.iloc[0]
    assert interval_text(r.before, r.before_lo, r.before_hi, scale=100, unit="%") in rows[0]
    assert interval_text(r.after, r.after_lo, r.after_hi, scale=100, unit="%") in rows[0]
    assert MISSING in rows[1] and "nan" not in out and "parity 50.0%" in out


def test_python_api(vp2):
    assert smsim.fairness is fairness
    assert isinstance(vp2, FairnessResult) and isinstance(vp2.table, pd.DataFrame)
    assert isinstance(vp2.rules, Rules) and vp2.rules.seat_vp == vp2.compensation


def test_written_result_reads_back_and_its_rules_load(vp2, tmp_path):
    vp2.write(tmp_path / "fair")
    back = read_fairness(tmp_path / "fair")
    assert back.compensation == vp2.compensation and back.rules == vp2.rules
    pd.testing.assert_frame_equal(back.table, vp2.table, check_dtype=False)
    assert [e.compensation for e in back.search] == [e.compensation for e in vp2.search]
    assert load_rules(tmp_path / "fair" / "rules.toml") == vp2.rules
    with pytest.raises(FairnessError, match="not a result of smsim fairness"):
        (tmp_path / "x.json").write_text("{}")
        read_fairness(tmp_path / "x.json")


@pytest.mark.parametrize("damage", ["binary", "hollow"])
def test_a_damaged_result_is_refused_in_one_line(vp2, tmp_path, damage):
    path = vp2.write(tmp_path / "fair")
    text = path.read_text()
    damaged = {
        "binary": b"\x89PNG\r\n\x1a\n\x00\xff\xfe",
        "hollow": json.dumps({"kind": json.loads(text)["kind"]}).encode(),
    }  # says what it is, no more
    path.write_bytes(damaged[damage])
    with pytest.raises(FairnessError, match=r"cannot be read|is damaged") as info:
        read_fairness(tmp_path / "fair")
    assert "\n" not in str(info.value)


def test_fairness_figure_draws(vp2):
    from smsim.report.plots import fairness_figure

    other = smsim.fairness(players=3, by="coins", games=300, seed=2, max_compensation=1, threads=1)
    fig, caption = fairness_figure([vp2, other])
    assert fig.get_suptitle() == "Win share by seat before and after compensation (seat 1 starts)"
    assert [ax.get_title() for ax in fig.axes] == ["2 players", "3 players"]
    assert fig.axes[0].get_ylabel() == "win share (%)" and fig.axes[0].get_xlabel() == "seat"
    assert all(ax.has_data() for ax in fig.axes)
    assert "3,000 games on seed 1000014" in caption and "300 games on seed 1000005" in caption
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert len(buf.getvalue()) > 1000
    assert fairness_figure([]) is None


# -- the command --------------------------------------------------------------------------------------
def test_cli_json_output_shape(run, tmp_path):
    out = tmp_path / "f"
    result = run(
        "fairness",
        "--players",
        "2",
        "--by",
        "vp",
        "--games",
        "1500",
        "--max",
        "1",
        "--seed",
        "3",
        "--check-games",
        "1000",
        "--threads",
        "1",
        "--json",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for key in (
        "kind",
        "command",
        "players",
        "policy",
        "by",
        "games",
        "seed",
        "check_games",
        "check_seed",
        "compensation",
        "rules",
        "seats",
        "search",
    ):
        assert key in data, key
    assert data["kind"] == "fairness" and data["players"] == 2 and data["by"] == "vp"
    assert data["games"] == 1500 and data["check_games"] == 1000 and data["check_seed"] == 3 + CHECK_SEED_OFFSET
    assert data["compensation"][0] == 0 and len(data["compensation"]) == 2
    assert data["rules"]["seat_vp"] == data["compensation"]
    assert [s["seat"] for s in data["seats"]] == [0, 1]
    assert set(data["seats"][0]) == {
        "seat",
        "compensation",
        "before",
        "before_lo",
        "before_hi",
        "after",
        "after_lo",
        "after_hi",
        "distinguishable",
    }
    assert all(set(e) >= {"compensation", "objective"} for e in data["search"])
    written = json.loads((out / "fairness.json").read_text())
    assert written["compensation"] == data["compensation"] and written["seats"] == data["seats"]
    # the command, every default spelled out: it reruns the search
    assert written["command"] == [
        "smsim",
        "fairness",
        "--players",
        "2",
        "--policy",
        "balanced",
        "--by",
        "vp",
        "--games",
        "1500",
        "--seed",
        "3",
        "--check-games",
        "1000",
        "--check-seed",
        str(3 + CHECK_SEED_OFFSET),
        "--max",
        "1",
    ]
    assert load_rules(out / "rules.toml").seat_vp == tuple(data["compensation"])


def test_cli_table_output(run):
    result = run("fairness", "-p", "2", "--games", "500", "--max", "1", "--threads", "1", "--quiet")
    assert result.exit_code == 0, result.output
    assert "Held-out check" in result.output and "largest |win share - parity|" in result.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--by", "gold"], ["--by", "coins or vp"]),
        (["--players", "6"], ["players", "2 to 5"]),
        (["--players", "1"], ["players"]),
        (["--games", "0"], ["--games must be a whole number from 1 to 10,000,000,000, not 0"]),
        (["--check-games", "0"], ["--check-games"]),
        (["--max", "-1"], ["--max must be a whole number of at least 0, not -1"]),
        (["--policy", "nobody"], ["unknown policy 'nobody'"]),
        (["--seed", "4", "--check-seed", "4"], ["check seed must differ"]),
        (["--rule", "seat_vp=[0,1]", "--by", "vp"], ["seat_vp", "the search sets it"]),
        (["--threads", "0"], ["--threads must be a whole number of at least 1, not 0"]),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(run, args, words):
    result = run("fairness", "--games", "50", *args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_api_bad_input_raises_naming_it():
    from smsim.errors import SimulationError

    with pytest.raises(FairnessError, match="--by must be coins or vp"):
        smsim.fairness(players=2, by="dice", games=10)
    with pytest.raises(SimulationError, match="players"):
        smsim.fairness(players=7, games=10)
    with pytest.raises(FairnessError, match="max_compensation must be a whole number of at least 0, not -2"):
        smsim.fairness(players=2, games=10, max_compensation=-2)
    with pytest.raises(FairnessError, match="games must be a whole number from 1 to"):
        smsim.fairness(players=2, games=0)


# -- statistics over many games --------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_players_by_vp_the_found_compensation_holds_on_held_out_games(seed):
    """A search on 20,000 games at 2 players, checked on 60,000 held-out games: the start player's
    edge (about 2 points) is clear before; the compensation found is the best whole number of VP
    on the held-out games too (neither neighbour does better on games the search never saw); and
    the seats end closer to parity.

    Not asserted: that both seats end within their intervals of parity. One VP moves about 2.9
    points of win share from seat 0 to seat 1, more than the edge, so the best whole VP leaves
    about 0.8 points the other way: at 20,000 games (intervals of +-0.7 points) that is inside the
    intervals on some seeds and just outside on others, and at 60,000 it is outside
    (docs/fairness.md)."""
    r = smsim.fairness(
        players=2, policy="balanced", by="vp", games=20000, seed=seed, check_games=60000, max_compensation=3, threads=2
    )
    t = r.table
    assert t["before_lo"][0] > 0.5 and t["before_hi"][1] < 0.5  # the edge is real before
    k = r.compensation[1]
    assert k >= 1
    held = {j: objective(win_share(2, Rules(seat_vp=(0, j)), 60000, r.check_seed)) for j in (k - 1, k, k + 1)}
    assert held[k] == min(held.values())
    assert r.check["after_max_deviation"] < r.check["before_max_deviation"]
    assert r.check["p_after"] > r.check["p_before"]


def test_report_has_the_seat_compensation_section(vp2, tmp_path, figures_blank):
    from smsim.report.write import report
    from smsim.runs.batch import simulate_to

    vp2.write(tmp_path / "fair2")
    simulate_to(str(tmp_path / "p2"), 200, 2, ["balanced"], seed=3)
    md = report([str(tmp_path / "p2"), str(tmp_path / "fair2")], str(tmp_path / "rep")).read_text()
    assert "## Seat compensation" in md and "figures/seat-compensation.png" in md
    head = md.split("## Seat compensation")[1].split("**In short**")[1]
    assert "2 players, by vp" in head and (
        "the best whole-number compensation is" in head or "no whole-number compensation" in head
    )
    section = md.split("## Seat compensation")[1]
    assert f"found seat_vp = {list(vp2.compensation)}" in section
    assert (tmp_path / "rep" / "tables" / "compensation_2p_vp.csv").is_file()
