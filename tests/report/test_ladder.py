"""The strength ladder: levels read from mirror datasets, each figure on its level's games alone
(recomputed here from the Parquet files), the verdict rule on planted intervals, every value with
its interval and games, and what small or one-level data say."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

from smsim.intervals import Z_95, wilson_interval
from smsim.report import ladder as LA
from smsim.report.tables import HEADLINE_SECTIONS, TABLES, headline_figures, read_report_data
from smsim.runs.batch import simulate_to

LADDER = ("balanced", "learned", "cheap")  # a cheap search stands in for L3: fast enough for a test


@pytest.fixture(scope="module")
def ladder_runs(ladder_datasets, tmp_path_factory):
    """Mirrors of three levels at 4 players (the third a tiny sample of a cheap search: the
    session's ``ladder_datasets``, conftest.py, which tests only read) and one at 2 players, and
    a 4-player run of mixed seats."""
    root = tmp_path_factory.mktemp("ladder")
    paths = {**ladder_datasets, **{name: str(root / name) for name in ("bal2", "lrn2", "mixed4")}}
    simulate_to(paths["bal2"], 300, 2, ["balanced"], seed=24, batch=300)
    simulate_to(paths["lrn2"], 300, 2, ["learned"], seed=25, batch=300)
    simulate_to(paths["mixed4"], 20, 4, ["balanced", "greedy", "walls", "random"], seed=26, batch=20)
    return paths


def _raw(path: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    def read(kind):
        return pd.concat([pd.read_parquet(f) for f in sorted(Path(path, kind).glob("*.parquet"))], ignore_index=True)

    return read("seats"), read("games")


def test_levels_are_the_mirrors_of_the_ladder(ladder_runs):
    paths = [ladder_runs[k] for k in ("bal4", "mixed4", "lrn4", "cheap4")]
    data = read_report_data(paths, ladder=LADDER)
    assert [s.level for s in data.sources] == [1, 0, 2, 3]
    assert [s.path for s in data.main().sources] == [ladder_runs["bal4"], ladder_runs["mixed4"]]
    alone = read_report_data([ladder_runs["bal4"], ladder_runs["mixed4"]], ladder=LADDER)
    for name in ("scores", "game_length", "cannons_changed_winner", "defence_vs_strength"):  # upper levels stay out
        pdt.assert_frame_equal(TABLES[name](data.main()).reset_index(drop=True),
                               TABLES[name](alone).reset_index(drop=True), check_dtype=False, check_categorical=False)  # fmt: skip
    # without the cheap search in the ladder it is an ordinary dataset of the report's tables
    plain = read_report_data(paths)
    assert [s.level for s in plain.sources] == [1, 0, 2, 0]
    assert LA.level_sources(data) == {4: {1: [0], 2: [2], 3: [3]}}
    # the upper levels first: the main data's second source is still the mixed run, rows and all
    shuffled = read_report_data([ladder_runs[k] for k in ("lrn4", "bal4", "cheap4", "mixed4")], ladder=LADDER)
    main = shuffled.main()
    assert [s.path for s in main.sources] == [ladder_runs["bal4"], ladder_runs["mixed4"]]
    assert len(main.select([1]).seats) == 20 * 4 and len(main.select([0]).seats) == 400 * 4
    assert set(main.select([1]).seats["field"]) == {main.sources[1].field}


def test_each_figure_is_its_level_alone(ladder_runs):
    """The ladder's rows are the headline figures of each level's games, recomputed here by hand
    for the start player's win rate and the game length."""
    data = read_report_data([ladder_runs[k] for k in ("bal4", "lrn4", "cheap4", "bal2", "mixed4")], ladder=LADDER)
    t = LA.ladder_table(data)
    assert set(t["players"]) == {2, 4} and set(t[t["players"] == 2]["level"]) == {1}
    assert list(dict.fromkeys(t["figure"])) == [f for f in HEADLINE_SECTIONS if f in set(t["figure"])]
    for level, key in ((1, "bal4"), (2, "lrn4"), (3, "cheap4")):
        seats, games = _raw(ladder_runs[key])
        rows = t[(t["players"] == 4) & (t["level"] == level)].set_index(["figure", "item"])
        share = seats["won"] / seats.groupby("game")["won"].transform("sum")  # a shared win split
        first = share[seats["seat"] == 0]
        lo, hi = wilson_interval(first.sum(), len(first))  # a share's rate interval; one seat 0 a game: no design effect
        assert rows.loc[("seat_win", "0"), ["value", "lo", "hi"]].tolist() == \
            pytest.approx([first.mean(), lo, hi], rel=1e-9)  # fmt: skip
        assert rows.loc[("seat_win", "0"), "parity"] == 0.25
        r = games["rounds"]
        half = Z_95 * r.std(ddof=1) / np.sqrt(len(r))
        assert rows.loc[("game_length", ""), ["value", "lo", "hi"]].tolist() == \
            pytest.approx([r.mean(), r.mean() - half, r.mean() + half], rel=1e-9)  # fmt: skip
        assert set(rows["games"]) == {len(games)} and set(rows["policy"]) == {seats["policy"].iloc[0]}
        assert rows.loc[("game_length", ""), "n"] == rows.loc[("vp_by_source", "total"), "n"] == len(games)
        assert rows.loc[("vp_by_source", "church_vp"), "section"] == "Church series"  # shown with its topic
    # the figures are the report's own: the same as headline_figures on the level's games alone
    one = read_report_data([ladder_runs["lrn4"]], ladder=LADDER)
    figures = {(f.figure, f.item): f.value for f in headline_figures(one)}
    rows = t[(t["players"] == 4) & (t["level"] == 2)]
    assert {(r.figure, r.item): r.value for r in rows.itertuples()} == pytest.approx(figures)


@pytest.mark.parametrize("levels, parity, want", [
    ([("rate", 0.26, 0.255, 0.265, 10**5), ("rate", 0.261, 0.256, 0.266, 10**5)], np.nan, ("stable", "")),
    ([("rate", 0.26, 0.255, 0.265, 10**5), ("rate", 0.30, 0.29, 0.31, 10**5)], np.nan,
     ("strength-dependent", "rises with strength")),
    ([("rate", 0.26, 0.255, 0.265, 10**5), ("rate", 0.30, 0.29, 0.31, 10**5), ("rate", 0.20, 0.19, 0.21, 10**5)],
     np.nan, ("strength-dependent", "moves both ways")),
    ([("vp", 44.0, 43.9, 44.1, 10**5), ("vp", 40.0, 39.9, 40.1, 10**5)], np.nan,
     ("strength-dependent", "falls with strength")),
    ([("rate", 0.26, 0.255, 0.265, 10**5), ("rate", 0.27, 0.21, 0.33, 200)], np.nan, ("not settled", "")),
    ([("rate", 0.26, 0.255, 0.265, 10**5), ("rate", 0.255, 0.245, 0.265, 30_000)], 0.25, ("not settled", "")),
    ([("vp", 44.0, 43.9, 44.1, 10**5), ("vp", 44.02, 43.92, 44.12, 10**5)], np.nan, ("stable", "")),
    ([("rate", 0.26, 0.255, 0.265, 10**5)], np.nan, ("one level", "")),
    # a share of VP is judged by its own spread per row, not as a rate of yes-or-no rows: a point
    # of church share on 800 seats is not ruled out, though it is a small h
    ([("share", 0.4755, 0.4751, 0.4759, 600_000), ("share", 0.467, 0.456, 0.478, 800)], np.nan, ("not settled", "")),
    ([("rate", 0.4755, 0.4751, 0.4759, 600_000), ("rate", 0.467, 0.456, 0.478, 800)], np.nan, ("stable", "")),
])  # fmt: skip
def test_the_verdict_follows_the_stated_rule(levels, parity, want):
    verdict, direction, reason = LA.judge(levels, parity)
    assert (verdict, direction) == want and reason


def test_a_level_value_is_the_one_form_of_a_figure_with_its_interval():
    """A level's value as ``intervals.interval_text`` writes it: rates and shares in percent to the
    decimals their interval needs, other figures with two, a missing bound as ``MISSING``."""
    from smsim.intervals import MISSING, interval_text

    row = {"unit": "rate", "L1": 0.25, "L1_lo": 0.2496, "L1_hi": 0.2504, "L1_games": 1_000_000, "L1_policy": "balanced",
           "L2": np.nan, "L2_lo": np.nan, "L2_hi": np.nan, "L2_games": 0, "L2_policy": ""}  # fmt: skip
    assert LA.level_value(row, 1) == "25.00% [24.96, 25.04], 1,000,000 games"
    assert LA.level_value(row, 1).startswith(interval_text(0.25, 0.2496, 0.2504, digits=None, scale=100, unit="%"))
    assert LA.level_value(row, 2) == "not measured"
    assert LA.level_value({**row, "unit": "share", "L1_lo": 0.2, "L1_hi": 0.3}, 1).startswith("25.0% [20.0, 30.0]")
    vp = {**row, "unit": "vp", "L1": 2.5, "L1_lo": 2.0, "L1_hi": np.nan}
    assert LA.level_value(vp, 1) == f"2.50 [2.00, {MISSING}], 1,000,000 games"
    assert LA.values_text(vp) == f"2.50 [2.00, {MISSING}] under `balanced`"


def test_every_value_has_its_interval_and_games_and_its_verdict(ladder_runs):
    data = read_report_data([ladder_runs[k] for k in ("bal4", "lrn4", "cheap4", "bal2", "lrn2")], ladder=LADDER)
    v = LA.ladder_verdicts(LA.ladder_table(data))
    assert set(v["verdict"]) <= set(LA.VERDICTS) and len(v) > 20
    full = 0
    for r in v.to_dict("records"):
        ks = LA.measured_levels(r)
        want = [1, 2, 3] if r["players"] == 4 else [1, 2]
        assert ks and set(ks) <= set(want)  # a figure a small sample lacks (an attack that never came) is left out
        full += ks == want
        for k in ks:
            assert r[f"L{k}_lo"] <= r[f"L{k}"] <= r[f"L{k}_hi"] and r[f"L{k}_games"] > 0
            assert f"{r[f'L{k}_games']:,} games" in LA.level_value(r, k) and "[" in LA.level_value(r, k)
        levels = [(r["unit"], r[f"L{k}"], r[f"L{k}_lo"], r[f"L{k}_hi"], 1) for k in ks]
        assert r["verdict"] == LA.judge(levels, r["parity"])[0] or r["unit"] != "rate"
        assert LA.verdict_sentence(r).startswith(r["verdict"])
    assert full > 0.8 * len(v)
    counts = LA.verdict_counts(v).set_index("players")
    assert (counts[list(LA.VERDICTS)].sum(axis=1) == counts["figures"]).all()
    assert counts.loc[4, "levels"] == "L1 balanced: 400 games, L2 learned: 400 games, L3 cheap: 24 games"


def test_small_samples_are_not_settled_and_one_level_has_no_check(ladder_runs):
    small = read_report_data([ladder_runs["bal4"], ladder_runs["cheap4"]], ladder=("balanced", "cheap"))
    v = LA.ladder_verdicts(LA.ladder_table(small))
    # 24 games of the second level cannot rule out any change: never "stable"
    assert "stable" not in set(v["verdict"]) and "not settled" in set(v["verdict"])
    one = LA.ladder_verdicts(LA.ladder_table(read_report_data([ladder_runs["bal4"]], ladder=LADDER)))
    assert set(one["verdict"]) == {"one level"}
    assert all("no strength check was possible" in LA.verdict_sentence(r) for r in one.to_dict("records"))
    assert LA.ladder_verdicts(LA.ladder_table(read_report_data([ladder_runs["mixed4"]], ladder=LADDER))).empty


def test_a_level_stopped_short_says_how_many_games_were_planned(ladder_runs, tmp_path):
    import shutil

    cut = tmp_path / "cheap4"
    shutil.copytree(ladder_runs["cheap4"], cut)
    for kind in ("seats", "games"):  # as if stopped after its first part of 8 games
        for f in sorted((cut / kind).glob("part-*.parquet"))[1:]:
            f.unlink()
    data = read_report_data([ladder_runs["bal4"], str(cut)], ladder=("balanced", "cheap"))
    counts = LA.verdict_counts(LA.ladder_verdicts(LA.ladder_table(data)))
    assert counts.loc[0, "levels"] == "L1 balanced: 400 games, L2 cheap: 8 games (of 24 planned)"
