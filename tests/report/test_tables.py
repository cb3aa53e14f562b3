"""The balance tables of smsim.report.tables, each recomputed here from the raw parquet files.

Every recomputation follows the table's docstring and the column meanings of docs/dataset.md,
with its own plain pandas, so that the reading of the datasets and the tables' arithmetic are both
checked against an independent derivation. Intervals follow the module docstring: Wilson for rates
and mean +- z * sd / sqrt(n) for means, widened where rows of a group share a cluster (the seats of
a game; a comparison's block), which the datasets here exercise.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

from smsim.errors import DatasetError
from smsim.report.tables import TABLES, read_report_data
from smsim.rules import Rules
from smsim.runs.batch import simulate_to
from smsim.studies.compare import compare, save_comparison

Z = 1.959963984540054
SIDES = ("top", "right", "bottom", "left")
VP_PARTS = ("earned", "church_vp", "coins_vp", "logs_vp", "full_city_vp", "cannon_vp")
EARNED_PARTS = ("vp_citizen", "vp_priest", "vp_houses", "vp_juggler", "vp_noble", "vp_wall_bonus")


# -- the datasets ---------------------------------------------------------------------------------

# a variant touching every rule the tables read: bonus kinds and amounts, the coin rate, the
# defence of a side, and a pirate track of 8 rows (so 8 defence columns and 0..8 attacks a game)
VARIANT = Rules().with_overrides(
    [
        'wall_bonus_kind=["vp", "none", "coins", "person"]',
        "wall_bonus_amount=[2, 0, 3, 1]",
        "coins_per_vp=3",
        "side_defence=3",
        "soldier_defence=2",
        "pirate_strengths=[2, 4, 5, 7, 9, 11, 13, 15]",
    ]
)

# reports: their datasets (named in ``runs``) and the rules they were made with
REPORTS = {
    "main": (["four", "two", "two_mixed", "cmp"], Rules()),
    "variant": (["v_three", "v_cmp"], VARIANT),
    "tiny": (["tiny"], Rules()),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The datasets. Main: 4 fixed seats; 2 players of one policy; 2 players of two policies (its
    (2, balanced) seats pool with the previous one's, and its game indices collide with them); a
    3-player comparison (whose ``game`` is a block, ``game_id`` the game). Variant: a dataset and
    a comparison under VARIANT. Tiny: 3 games."""
    root = tmp_path_factory.mktemp("analysis")
    paths = {name: str(root / name) for name in ("four", "two", "two_mixed", "cmp", "v_three", "v_cmp", "tiny")}
    simulate_to(paths["four"], 600, 4, ["balanced", "greedy", "walls", "random"], seed=11, batch=200)
    simulate_to(paths["two"], 400, 2, ["balanced"], seed=12, batch=200)
    simulate_to(paths["two_mixed"], 200, 2, ["greedy", "balanced"], seed=15, batch=100)
    result = compare(["balanced", "churches", "greedy"], 3, 300, seed=13)
    save_comparison(result, paths["cmp"], ["smsim", "compare"], 13, Rules())
    simulate_to(paths["v_three"], 300, 3, ["walls", "balanced", "greedy"], seed=16, rules=VARIANT, batch=100)
    result = compare(["walls", "balanced"], 2, 200, seed=17, rules=VARIANT)
    save_comparison(result, paths["v_cmp"], ["smsim", "compare"], 17, VARIANT)
    simulate_to(paths["tiny"], 3, 3, ["random"], seed=14)
    return paths


def _read_raw(path: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seats and games of one directory as written, with ``key`` (the game's unique key) and
    ``unit`` (the rows that may be correlated: a game, or a comparison's block of games)."""
    p = Path(path)
    if (p / "seats.parquet").exists():  # a comparison: game is the block, game_id the game
        seats, games = pd.read_parquet(p / "seats.parquet"), pd.read_parquet(p / "games.parquet")
        key, unit = "game_id", "block"
    else:
        seats = pd.concat([pd.read_parquet(f) for f in sorted((p / "seats").glob("part-*.parquet"))], ignore_index=True)
        games = pd.concat([pd.read_parquet(f) for f in sorted((p / "games").glob("part-*.parquet"))], ignore_index=True)
        key = unit = "game"
    for df in (seats, games):
        df["key"] = df[key]
        df["unit"] = df[unit]
    seats["policy"] = seats["policy"].astype(str)
    return seats, games


@pytest.fixture(scope="module")
def reports(runs):
    """Per report: (ReportData, raw seats, raw games, rules); the raw rows carry ``src``, the
    ``field`` label the report gave their source, and ``cluster`` (source and unit)."""
    out = {}
    for name, (members, rules) in REPORTS.items():
        data = read_report_data([runs[m] for m in members])
        seat_frames, game_frames = [], []
        for i, m in enumerate(members):
            s, g = _read_raw(runs[m])
            for df in (s, g):
                df["src"] = i
                df["field"] = data.sources[i].field
                df["cluster"] = i * 10**9 + df["unit"].astype(np.int64)
            seat_frames.append(s)
            game_frames.append(g)
        out[name] = (data, pd.concat(seat_frames, ignore_index=True), pd.concat(game_frames, ignore_index=True), rules)
    return out


# -- the recomputation's own intervals and comparison ---------------------------------------------


def wilson(k: float, n: float) -> tuple[float, float]:
    """Wilson 95% score interval of k successes in n."""
    if not n > 0:
        return (np.nan, np.nan)
    p = k / n
    a = p + Z**2 / (2 * n)
    b = Z * np.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    c = 1 + Z**2 / n
    return (max(0.0, (a - b) / c), min(1.0, (a + b) / c))


def cluster_variance(values: pd.Series, clusters: pd.Series) -> float | None:
    """Cluster-robust (sandwich) variance of the mean of ``values``: c / (c - 1) times the sum over
    the c clusters of (their summed deviations from the mean) squared, over n squared. None when
    every row is its own cluster (rows independent)."""
    y = values.astype(float)
    per_cluster = (y - y.mean()).groupby(clusters.to_numpy()).agg(["sum", "size"])
    if per_cluster["size"].max() <= 1:
        return None
    c = len(per_cluster)
    return c / (c - 1) * float((per_cluster["sum"] ** 2).sum()) / len(y) ** 2 if c > 1 else np.nan


def rate(name: str, frame: pd.DataFrame, flags: pd.Series) -> dict:
    """Rate of ``flags`` (rows of ``frame``; yes-or-no, or shares in [0, 1] such as a split win)
    and its Wilson interval; where rows share a cluster, n deflated by the design effect
    (cluster-robust over binomial variance, at least 1)."""
    clusters = frame["cluster"]
    flags = flags.astype(float)
    k, n = flags.sum(), len(flags)
    p = k / n if n else np.nan
    n_eff = float(n)
    var = cluster_variance(flags, clusters) if n else None
    if var is not None and 0 < p < 1:
        n_eff = n / max(1.0, var / (p * (1 - p) / n))
    lo, hi = wilson(p * n_eff, n_eff)
    return {name: p, f"{name}_lo": lo, f"{name}_hi": hi}


def mean(name: str, frame: pd.DataFrame, values: pd.Series) -> dict:
    """Mean of ``values`` (rows of ``frame``) and its normal interval; where rows share a cluster,
    the larger of the independent and the cluster-robust standard error."""
    clusters = frame["cluster"]
    v = values.astype(float)
    m = v.mean() if len(v) else np.nan
    var = v.var(ddof=1) / len(v) if len(v) > 1 else np.nan
    cvar = cluster_variance(v, clusters) if len(v) else None
    if cvar is not None:
        var = max(var, cvar)
    half = Z * np.sqrt(var)
    return {name: m, f"{name}_lo": m - half, f"{name}_hi": m + half}


def q(values: pd.Series, p: float) -> float:
    return float(values.astype(float).quantile(p)) if len(values) else np.nan


def _plain(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    df = df.copy()
    for c in df.columns:
        if not (pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c])):
            df[c] = df[c].astype(str).astype(object)
    return df.sort_values(keys).reset_index(drop=True)


def check(got: pd.DataFrame, rows: list[dict], keys: list[str]) -> None:
    """The table has exactly the expected rows and columns; values agree to rtol 1e-9 (NaN = NaN;
    atol 1e-12 only for a Wilson bound at 0 computed as a rounding error such as 1e-19)."""
    want = pd.DataFrame(rows)
    assert isinstance(got, pd.DataFrame)
    assert sorted(got.columns) == sorted(want.columns), set(got.columns) ^ set(want.columns)
    pdt.assert_frame_equal(
        _plain(got, keys), _plain(want[list(got.columns)], keys), check_dtype=False, rtol=1e-9, atol=1e-12
    )


def by_policy(seats: pd.DataFrame):
    return seats.groupby(["players", "policy"], sort=True)


def attack_rows(seats: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """One row per seat per attack that came (defence_attack_k != -1)."""
    frames = []
    for k, strength in enumerate(rules.pirate_strengths, start=1):
        s = seats[seats[f"defence_attack_{k}"] != -1]
        frames.append(
            pd.DataFrame(
                {
                    "players": s["players"],
                    "policy": s["policy"],
                    "cluster": s["cluster"],
                    "attack": k,
                    "strength": strength,
                    "defence": s[f"defence_attack_{k}"].astype(int),
                    "sides": s[f"sides_attack_{k}"].astype(int),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


# -- reading ----------------------------------------------------------------------------------------


def test_read_report_data_holds_every_row_of_every_source(reports):
    """The report's seats and games are the raw rows of each source, labelled by source and field,
    with the rules they were made with."""
    data, seats, games, _ = reports["main"]
    assert len(data.seats) == len(seats) and len(data.games) == len(games)
    assert data.n_games == 600 + 400 + 200 + 300
    assert [s.kind for s in data.sources] == ["simulate", "simulate", "simulate", "compare"]
    assert data.rules == Rules() and reports["variant"][0].rules == VARIANT
    for col in ["total", "won", "rank", "cannons_lost", "empty_left", "defence_attack_3"]:
        got = data.seats.groupby(["source", "players"], observed=True)[col].sum()
        want = seats.groupby(["src", "players"])[col].sum()
        assert got.to_numpy().tolist() == want.to_numpy().tolist(), col
    for col in ["rounds", "attacks", "filled_seats"]:
        got = data.games.groupby("source", observed=True)[col].sum()
        assert got.to_numpy().tolist() == games.groupby("src")[col].sum().to_numpy().tolist(), col
    fields_per_source = data.seats.groupby("source", observed=True)["field"].nunique()
    assert len(fields_per_source) == 4 and (fields_per_source == 1).all()
    fields = [src.field for src in data.sources]
    assert len(set(fields)) == 4  # four different tables of players
    for f, policies in zip(
        fields,
        [
            ["balanced", "greedy", "walls", "random"],
            ["balanced"],
            ["greedy", "balanced"],
            ["balanced", "churches", "greedy"],
        ],
    ):
        assert all(p in f for p in policies), f


def test_a_directory_that_is_not_a_dataset_is_refused(tmp_path, runs):
    """A directory without a manifest, with a foreign one, or missing is refused, naming it."""
    bare = tmp_path / "not_a_dataset"
    bare.mkdir()
    (bare / "notes.txt").write_text("hello\n")
    with pytest.raises(DatasetError, match="not_a_dataset"):
        read_report_data([runs["four"], str(bare)])
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "manifest.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(DatasetError, match="foreign"):
        read_report_data([str(foreign)])
    with pytest.raises(DatasetError, match="no_such_dir"):
        read_report_data([str(tmp_path / "no_such_dir")])


def test_datasets_of_different_rules_are_refused(tmp_path, runs):
    """A report describes one rules configuration: a dataset made under other rules is refused,
    naming it; alone, it reads with its own rules."""
    variant = Rules().with_overrides(["rotation_cost=3"])
    other = tmp_path / "variant_rules"
    simulate_to(str(other), 4, 2, ["random"], seed=5, rules=variant)
    with pytest.raises(DatasetError, match="variant_rules"):
        read_report_data([runs["two"], str(other)])
    assert read_report_data([str(other)]).rules == variant


def test_tiny_and_empty_data_give_every_table(reports):
    """A 3-game dataset and an empty selection give a DataFrame from every table, no exception."""
    tiny = reports["tiny"][0]
    data = reports["main"][0]
    empty = dataclasses.replace(data, seats=data.seats.iloc[:0], games=data.games.iloc[:0])
    for name, table in TABLES.items():
        assert isinstance(table(tiny), pd.DataFrame), name
        assert isinstance(table(empty), pd.DataFrame), name


def test_every_table_is_recomputed_here():
    """Each entry of TABLES has a recomputation below, but bonus_value: it comes from the wall-bonus
    ablations (checked at the end, and recomputed from their files in tests/studies/test_bonus.py)."""
    assert set(TABLES) == set(EXPECTED) | {"bonus_value"}


# -- recomputations, one per table --------------------------------------------------------------------


def exp_church_series(seats, games, rules):
    rows = []
    for (players, policy), s in by_policy(seats):
        row = {"players": players, "policy": policy, "seats": len(s)}
        row |= mean("church_vp", s, s["church_vp"])
        row["churches"] = s["church_count"].mean()
        row["series"] = s[[f"series_{k}" for k in range(1, 6)]].sum(axis=1).mean()
        row["longest_mean"] = s["longest_series"].mean()
        for length in range(6):
            row |= rate(f"longest_{length}", s, s["longest_series"] == length)
        rows.append(row)
    return rows, ["players", "policy"]


def exp_church_sizes(seats, games, rules):
    rows = []
    for (players, policy), s in by_policy(seats):
        row = {"players": players, "policy": policy, "seats": len(s)}
        for k in range(1, 6):
            row[f"size_{k}_per_seat"] = s[f"churches_{k}"].mean()
            row |= rate(f"size_{k}_built", s, s[f"churches_{k}"] > 0)
        rows.append(row)
    return rows, ["players", "policy"]


def exp_series_lengths(seats, games, rules):
    rows = []
    for (players, policy), s in by_policy(seats):
        row = {"players": players, "policy": policy, "seats": len(s)}
        row |= {f"series_{k}": s[f"series_{k}"].mean() for k in range(1, 6)}
        rows.append(row)
    return rows, ["players", "policy"]


def exp_priests(seats, games, rules):
    rows = []
    for (players, policy), s in by_policy(seats):
        row = {"players": players, "policy": policy, "seats": len(s)}
        row |= mean("priest_vp", s, s["vp_priest"]) | rate("priest_scored", s, s["vp_priest"] > 0)
        rows.append(row)
    return rows, ["players", "policy"]


def _bonus_matches(text: str, kind: str, amount: int) -> bool:
    word = {"person": "person", "coins": "coin", "vp": "VP", "none": "none"}[kind]
    return word.lower() in text.lower() and (kind == "none" or str(amount) in text)


def exp_sides(seats, games, rules):
    rows = []
    for (players, policy), s in by_policy(seats):
        for side in SIDES:
            done = s[f"{side}_completed"].astype(bool)
            r = s.loc[done, f"{side}_round"].astype(float)
            assert (r >= 0).all() and (s.loc[~done, f"{side}_round"] == -1).all()  # the data agree
            row = {"players": players, "policy": policy, "side": side, "n": len(s), "completed_count": int(done.sum())}
            row |= rate("completed", s, done)
            row |= {"round_mean": r.mean() if len(r) else np.nan, "round_median": r.median() if len(r) else np.nan}
            row["bonus"] = "checked apart"
            rows.append(row)
    return rows, ["players", "policy", "side"]


def exp_wall_defence(seats, games, rules):
    a = attack_rows(seats, rules)
    a["held"] = a["defence"] >= a["strength"]
    a["walls"] = a["sides"] * rules.side_defence
    a["walls_held"] = a["walls"] >= a["strength"]
    rows = []
    for (players, policy, attack), s in a.groupby(["players", "policy", "attack"]):
        held = s[s["held"]]
        with_defence = s[s["defence"] > 0]
        row = {
            "players": players,
            "policy": policy,
            "attack": attack,
            "strength": s["strength"].iloc[0],
            "n": len(s),
            "held_count": int(s["held"].sum()),
        }
        row |= rate("held", s, s["held"]) | rate("walls_held", s, s["walls_held"])
        row |= rate("walls_carried", held, held["walls_held"])
        row |= mean("wall_share_of_defence", with_defence, with_defence["walls"] / with_defence["defence"])
        rows.append(row)
    return rows, ["players", "policy", "attack"]


def exp_attacks_per_game(seats, games, rules):
    rows = []
    for players, g in games.groupby("players"):
        row = {"players": players, "games": len(g)} | mean("attacks", g, g["attacks"])
        for j in range(len(rules.pirate_strengths) + 1):
            row |= rate(f"share_{j}", g, g["attacks"] == j)
        rows.append(row)
    return rows, ["players"]


def exp_attacks(seats, games, rules):
    rows = []
    for players, g in games.groupby("players"):
        for k, strength in enumerate(rules.pirate_strengths, start=1):
            came = g[f"attack_{k}_round"] != -1
            r = g.loc[came, f"attack_{k}_round"]
            row = {"players": players, "attack": k, "strength": strength, "games": len(g)} | rate("came", g, came)
            row |= {
                "round_mean": r.astype(float).mean() if len(r) else np.nan,
                "round_p10": q(r, 0.1),
                "round_p50": q(r, 0.5),
                "round_p90": q(r, 0.9),
            }
            rows.append(row)
    return rows, ["players", "attack"]


def exp_cannons(seats, games, rules):
    rows = []
    for (players, policy), s in by_policy(seats):
        row = {"players": players, "policy": policy, "seats": len(s)} | mean("cannons_lost", s, s["cannons_lost"])
        row["cannon_vp"] = s["cannon_vp"].mean()
        row |= rate("lost_any", s, s["cannons_lost"] > 0)
        rows.append(row)
    return rows, ["players", "policy"]


def exp_defence_vs_strength(seats, games, rules):
    a = attack_rows(seats, rules)
    rows = []
    for (players, attack), s in a.groupby(["players", "attack"]):
        held = s["defence"] >= s["strength"]
        row = {
            "players": players,
            "attack": attack,
            "strength": s["strength"].iloc[0],
            "defence_mean": s["defence"].mean(),
            "n": len(s),
            "held_count": int(held.sum()),
        }
        row |= rate("held", s, held)
        row |= {f"defence_p{p}": q(s["defence"], p / 100) for p in (10, 50, 90)}
        rows.append(row)
    return rows, ["players", "attack"]


def _winners(g: pd.DataFrame, score: pd.Series) -> frozenset:
    """Seats with the highest (score, empty spaces)."""
    best = max(zip(score, g["empty_left"]))
    return frozenset(s for s, sc, e in zip(g["seat"], score, g["empty_left"]) if (sc, e) == best)


def exp_cannons_changed_winner(seats, games, rules):
    changed_by_game = []
    for _, g in seats.groupby(["src", "key"]):
        actual = frozenset(g.loc[g["won"].astype(bool), "seat"])
        assert actual == _winners(g, g["total"])  # the won column is the rank-1 set
        without_cannons = g["total"].astype(int) - g["cannon_vp"].astype(int)
        changed_by_game.append((g["players"].iloc[0], g["cluster"].iloc[0], actual != _winners(g, without_cannons)))
    per_game = pd.DataFrame(changed_by_game, columns=["players", "cluster", "changed"])
    assert len(per_game) == len(games)
    rows = []
    for players, g in per_game.groupby("players"):
        row = {"players": players, "games": len(g), "changed_count": int(g["changed"].sum())}
        rows.append(row | rate("changed", g, g["changed"]))
    return rows, ["players"]


def shares(seats, games) -> pd.Series:
    """Each seat's share of its game's win: won over the game table's ``winners`` (a shared win split)."""
    winners = games.set_index(["src", "key"])["winners"]
    n = winners.reindex(pd.MultiIndex.from_arrays([seats["src"], seats["key"]])).to_numpy(float)
    return pd.Series(seats["won"].astype(float).to_numpy() / n, index=seats.index)


def exp_scores(seats, games, rules):
    rows = []
    seats = seats.assign(share=shares(seats, games))
    for (players, policy), s in by_policy(seats):
        row = {"players": players, "policy": policy, "seats": len(s)} | mean("vp", s, s["total"])
        row |= {"vp_sd": s["total"].astype(float).std(ddof=1)}
        row |= {f"vp_p{p}": q(s["total"], p / 100) for p in (10, 50, 90)}
        row |= rate("win", s, s["share"])
        rows.append(row)
    return rows, ["players", "policy"]


def exp_seat_advantage(seats, games, rules):
    rows = []
    seats = seats.assign(share=shares(seats, games))
    for (players, field), f in seats.groupby(["players", "field"]):
        # fair: every policy sits in every seat equally often (one policy, or a comparison)
        seating = pd.crosstab(f["seat"], f["policy"])
        fair = bool((seating.nunique(axis=0) == 1).all())
        for seat, s in f.groupby("seat"):
            row = {"players": players, "field": field, "seat": seat, "n": len(s), "win_count": round(s["share"].sum())}
            row |= rate("win", s, s["share"]) | {"parity": 1 / players} | mean("vp", s, s["total"])
            row["fair_seating"] = fair
            rows.append(row)
    return rows, ["players", "field", "seat"]


def exp_game_length(seats, games, rules):
    rows = []
    for players, g in games.groupby("players"):
        row = {"players": players, "games": len(g)} | mean("rounds", g, g["rounds"])
        row |= {f"rounds_p{p}": q(g["rounds"], p / 100) for p in (10, 50, 90)}
        row["aborted"] = int(g["aborted"].astype(bool).sum())
        rows.append(row)
    return rows, ["players"]


def exp_vp_by_source(seats, games, rules):
    parts = seats[list(VP_PARTS)].sum(axis=1)
    assert (parts == seats["total"]).all() and (seats[list(EARNED_PARTS)].sum(axis=1) == seats["earned"]).all()
    rows = []
    for (players, policy), s in by_policy(seats):
        row = {"players": players, "policy": policy, "seats": len(s)}
        row |= {c: s[c].astype(float).mean() for c in (*VP_PARTS, "total", *EARNED_PARTS)}
        rows.append(row)
    return rows, ["players", "policy"]


def exp_game_end(seats, games, rules):
    max_players = int(games["players"].max())
    rows = []
    for (players, field), g in games.groupby(["players", "field"]):
        full = g["filled_seats"].astype(int).map(lambda m: bin(m).count("1"))
        row = {"players": players, "field": field, "games": len(g)}
        for seat in range(max_players):  # one column per seat of the largest table; NaN beyond
            if seat < players:
                row |= rate(f"seat_{seat}", g, g["ended_by"] == seat)
            else:
                row |= {f"seat_{seat}": np.nan, f"seat_{seat}_lo": np.nan, f"seat_{seat}_hi": np.nan}
        row |= rate("several_full", g, full >= 2) | rate("aborted_share", g, g["aborted"].astype(bool))
        rows.append(row)
    return rows, ["players", "field"]


EXPECTED = {
    "church_series": exp_church_series,
    "church_sizes": exp_church_sizes,
    "series_lengths": exp_series_lengths,
    "priests": exp_priests,
    "sides": exp_sides,
    "wall_defence": exp_wall_defence,
    "attacks_per_game": exp_attacks_per_game,
    "attacks": exp_attacks,
    "cannons": exp_cannons,
    "defence_vs_strength": exp_defence_vs_strength,
    "cannons_changed_winner": exp_cannons_changed_winner,
    "scores": exp_scores,
    "seat_advantage": exp_seat_advantage,
    "game_length": exp_game_length,
    "vp_by_source": exp_vp_by_source,
    "game_end": exp_game_end,
}


# cases where the implementation disagrees with its docstring (see each reason)
XFAIL: dict = {}
CASES = [
    pytest.param(
        name,
        report,
        id=f"{name}-{report}",
        marks=[pytest.mark.xfail(reason=XFAIL[name, report], strict=True)] if (name, report) in XFAIL else [],
    )
    for name in EXPECTED
    for report in REPORTS
]


@pytest.mark.parametrize("name, report", CASES)
def test_table_equals_its_recomputation_from_the_raw_files(name, report, reports):
    """The table equals the docstring's definition computed here from the parquet files: for the
    main datasets, for the variant rules (the tables must read the report's rules), and for 3 games
    (groups of one seat, attacks that never came)."""
    data, seats, games, rules = reports[report]
    got = TABLES[name](data)
    rows, keys = EXPECTED[name](seats, games, rules)
    if "bonus" in got.columns:  # the bonus's wording is the table's own: it names kind and amount
        for side, text in zip(got["side"].astype(str), got["bonus"].astype(str)):
            i = SIDES.index(side)
            assert _bonus_matches(text, rules.wall_bonus_kind[i], rules.wall_bonus_amount[i]), (side, text)
        got = got.assign(bonus="checked apart")
    check(got, rows, keys)


# -- the headline figures -------------------------------------------------------------------------


def test_church_vp_share_is_the_ratio_of_sums_with_its_delta_interval(reports):
    """Church VP over total VP per player count and policy; its interval is the delta method's:
    share +- z x the standard error of the mean of (church - share x total) / mean total, the
    larger of the independent and the cluster-robust one (seats of a game, a comparison's block)."""
    from smsim.report.tables import church_vp_share

    data, seats, _, _ = reports["main"]
    rows = []
    for (players, policy), s in by_policy(seats):
        share = s["church_vp"].sum() / s["total"].sum()
        z = (s["church_vp"] - share * s["total"]) / s["total"].mean()
        m = mean("z", s, z)  # its mean is 0: the interval's half-widths are what moves onto the share
        rows.append(
            {
                "players": players,
                "policy": policy,
                "seats": len(s),
                "church_vp_share": share,
                "church_vp_share_lo": share + m["z_lo"] - m["z"],
                "church_vp_share_hi": share + m["z_hi"] - m["z"],
            }
        )
        assert abs(m["z"]) < 1e-9
    check(church_vp_share(data), rows, ["players", "policy"])
    assert 0.2 < church_vp_share(data)["church_vp_share"].mean() < 0.6  # churches are a large part of a score


def test_vp_source_means_are_vp_by_source_with_intervals(reports):
    from smsim.report.tables import vp_by_source, vp_source_means

    data, seats, _, _ = reports["main"]
    rows = []
    for (players, policy), s in by_policy(seats):
        for src in (*VP_PARTS, "total"):
            rows.append({"players": players, "policy": policy, "vp_source": src, **mean("vp", s, s[src])})
    got = vp_source_means(data)
    check(got, rows, ["players", "policy", "vp_source"])
    wide = vp_by_source(data).set_index(["players", "policy"])
    for r in got.itertuples():
        assert r.vp == pytest.approx(wide.loc[(r.players, r.policy), r.vp_source], rel=1e-12)


# -- the wall-bonus ablation ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def ablations(tmp_path_factory):
    """Two wall-bonus ablations (smsim bonus-value): 2 players of balanced (the seed of ``two``)
    and 4 players of greedy."""
    from smsim.studies.bonus import plan_bonus, run_bonus

    root = tmp_path_factory.mktemp("ablations")
    run_bonus(plan_bonus(2, "balanced", games=120, seed=12), root / "b2", threads=2)
    run_bonus(plan_bonus(4, "greedy", games=60, seed=3), root / "b4", threads=2)
    return {"b2": str(root / "b2"), "b4": str(root / "b4")}


def test_bonus_value_is_the_ablations_table_in_board_order(runs, ablations):
    """The ablations given beside the datasets are read as they are (no source of their own),
    one row per player count, policy and side in board order; none given, the table is empty;
    split_variants hands them on with the datasets described."""
    from smsim.report.tables import bonus_value, headline_figures, split_variants
    from smsim.studies.bonus import TABLE_COLUMNS, read_bonus

    paths = [runs["four"], ablations["b4"], runs["two"], ablations["b2"]]
    main, sets = split_variants(paths)
    assert sets == [] and main == [runs["four"], runs["two"], ablations["b4"], ablations["b2"]]
    data = read_report_data(main)
    assert [src.path for src in data.sources] == [runs["four"], runs["two"]]
    got = bonus_value(data)
    want = pd.concat([read_bonus(ablations["b2"]).table, read_bonus(ablations["b4"]).table], ignore_index=True)
    pdt.assert_frame_equal(got, want[TABLE_COLUMNS])
    assert list(got["side"]) == list(SIDES) * 2 and list(got["players"]) == [2] * 4 + [4] * 4
    assert bonus_value(read_report_data([runs["two"]])).empty
    assert list(bonus_value(read_report_data([runs["two"]])).columns) == TABLE_COLUMNS
    # the headline figure of a sample: its own player count and mirror policy's ablation, its games as n
    two = data.select([1])
    figures = [f for f in headline_figures(two) if f.figure == "wall_bonus"]
    rows = got[got["players"] == 2]
    assert [f.item for f in figures] == list(SIDES) and all(f.unit == "vp" and f.n == 120 for f in figures)
    assert [(f.value, f.lo, f.hi) for f in figures] == list(
        zip(rows["vp_change"], rows["vp_change_lo"], rows["vp_change_hi"])
    )
    # four fixed seats of four policies: no mirror, so no ablation describes it
    assert not [f for f in headline_figures(data.select([0])) if f.figure == "wall_bonus"]


def test_ablations_under_other_rules_twice_or_alone_are_refused(runs, ablations, tmp_path):
    from smsim.studies.bonus import plan_bonus, run_bonus

    run_bonus(plan_bonus(2, "balanced", games=5, seed=1, rules=VARIANT), tmp_path / "other", threads=1)
    with pytest.raises(DatasetError, match="a wall-bonus ablation under other rules than the report's"):
        read_report_data([runs["two"], str(tmp_path / "other")])
    run_bonus(plan_bonus(2, "balanced", games=5, seed=1), tmp_path / "again", threads=1)
    with pytest.raises(DatasetError, match="are both wall-bonus ablations of 2 players and balanced; give one"):
        read_report_data([runs["two"], ablations["b2"], str(tmp_path / "again")])
    with pytest.raises(DatasetError, match="no dataset given beside the wall-bonus ablations"):
        read_report_data([ablations["b2"]])


def test_sides_agree_compares_the_sides_with_the_same_bonus():
    """Each pair of sides whose bonus reads alike: the second minus the first, with the interval
    of a difference of two independent figures (half-widths in quadrature); agree where both hold 0."""
    from smsim.report.tables import sides_agree

    def row(side, bonus, v, half, w):
        return {
            "players": 3,
            "policy": "balanced",
            "side": side,
            "bonus": bonus,
            "vp_change": v,
            "vp_change_lo": v - half,
            "vp_change_hi": v + half,
            "win_change": w,
            "win_change_lo": w - 0.01,
            "win_change_hi": w + 0.01,
        }

    t = pd.DataFrame(
        [
            row("top", "3 VP", 3.0, 0.2, 0.05),
            row("right", "2 coins", 1.0, 0.3, 0.03),
            row("bottom", "3 VP", 3.9, 0.2, 0.05),
            row("left", "2 coins", 1.2, 0.4, 0.031),
        ]
    )
    got = sides_agree(t).set_index("sides")
    assert list(got.index) == ["bottom - top", "left - right"]
    assert got.loc["left - right", "vp_diff"] == pytest.approx(0.2)
    assert got.loc["left - right", "vp_diff_hi"] - 0.2 == pytest.approx(0.5)  # sqrt(0.3^2 + 0.4^2)
    assert bool(got.loc["left - right", "agree"]) and got.loc["left - right", "verdict"] == "not settled"
    assert not got.loc["bottom - top", "agree"] and got.loc["bottom - top", "verdict"] == "moves"
    assert got.loc["bottom - top", "win_diff"] == pytest.approx(0.0)


# -- shared wins ----------------------------------------------------------------------------------
TIES = Rules().with_overrides(["max_rounds=1"])  # games stopped after one round: about a game in four is a tie


@pytest.mark.parametrize("players", [2, 3])
def test_seats_win_shares_add_up_to_one_win_a_game(tmp_path, players):
    """A shared win is split between its winners, so the seats of a player count add up to 100%
    exactly, and so do the policies (``scores``); counting a shared win for every winner would not."""
    from smsim.report.tables import scores, seat_advantage, win_share

    simulate_to(str(tmp_path / "d"), 300, players, ["random"], seed=3, rules=TIES)
    data = read_report_data([str(tmp_path / "d")])
    assert (data.games["winners"] > 1).mean() > 0.1  # the test is about shared wins: there must be some
    t = seat_advantage(data)
    assert t["win"].sum() == pytest.approx(1.0, abs=1e-12)
    assert data.seats.groupby("seat")["won"].mean().sum() > 1.05  # a shared win counted for every winner
    assert scores(data)["win"].iloc[0] == pytest.approx(1 / players, abs=1e-12)  # one policy: parity exactly
    share = win_share(data.seats)
    assert set(np.round(share * 6).astype(int)) <= {0, 2, 3, 6}  # 0, 1/3, 1/2 or 1 of a win
    assert np.allclose(share.groupby(data.seats["game"]).sum(), 1.0)
