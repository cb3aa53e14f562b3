"""Rule-variant sweeps: planning variants, the per-game metrics against hand-made games, paired and
unpaired intervals against their formulas, the sweep directory (baseline = a plain simulate,
resumption, refusals), the expected effects of a rule, and the command line."""

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from smsim.cli import cli
from smsim.errors import DatasetError
from smsim.intervals import Z_95
from smsim.rules import Rules
from smsim.runs.batch import simulate_to
from smsim.studies.sweep import (
    BASELINE,
    Metric,
    SweepError,
    game_metrics,
    parse_vary,
    plan_variants,
    play_sweep,
    read_sweep,
    run_sweep,
    sweep_table,
    variance_reduction,
    variant_table,
)


# -- planning ---------------------------------------------------------------------------------------
def test_parse_vary_scalars_words_and_lists():
    assert parse_vary("side_defence=1,2,3") == ("side_defence", [1, 2, 3])
    assert parse_vary("allow_pass=true,false") == ("allow_pass", [True, False])
    assert parse_vary('wall_bonus_kind=["vp","coins","vp","coins"]') == (
        "wall_bonus_kind",
        [["vp", "coins", "vp", "coins"]],
    )
    assert parse_vary("pirate_strengths=[1,3,6,8,10,12];[1,3,5,7,9,11]") == (
        "pirate_strengths",
        [[1, 3, 6, 8, 10, 12], [1, 3, 5, 7, 9, 11]],
    )
    for bad in ("side_defence", "=1,2", "side_defence=", "x=1 2"):
        with pytest.raises(SweepError):
            parse_vary(bad)


def test_plan_baseline_first_one_at_a_time_and_grid():
    one = plan_variants(["side_defence=1,3", "rotation_cost=0"], one_at_a_time=True)
    assert [v.name for v in one] == ["baseline", "side_defence=1", "side_defence=3", "rotation_cost=0"]
    assert one[0].rules == Rules() and one[0].varied == {}
    assert one[3].rules == Rules(rotation_cost=0) and one[3].varied == {"rotation_cost": 0}
    grid = plan_variants(["side_defence=1,3", "rotation_cost=0,1"])
    assert len(grid) == 1 + 4
    assert grid[-1].rules == Rules(side_defence=3, rotation_cost=1)
    assert grid[-1].name == "side_defence=3 rotation_cost=1"


def test_plan_keeps_each_rules_once_and_refuses_a_sweep_of_one(tmp_path):
    # the standard value is the baseline, not a second variant
    assert [v.name for v in plan_variants(["side_defence=1,2,3"])] == ["baseline", "side_defence=1", "side_defence=3"]
    with pytest.raises(SweepError, match="one variant only"):
        plan_variants(["side_defence=2"])
    with pytest.raises(SweepError, match="unknown rules field 'side_defense'"):
        plan_variants(["side_defense=1,2"])
    with pytest.raises(SweepError, match="must be >= 0"):
        plan_variants(["side_defence=-1,3"])
    with pytest.raises(SweepError, match="twice"):
        plan_variants(["side_defence=1", "side_defence=3"])
    f = tmp_path / "gentle.toml"
    f.write_text("pirate_strengths = [1, 3, 5, 7, 9, 10]\n")
    plan = plan_variants(files=[f"gentle={f}"], base=Rules(rotation_cost=1))
    assert plan[1].name == "gentle" and plan[1].varied == {"pirate_strengths": [1, 3, 5, 7, 9, 10]}
    assert plan[1].rules.rotation_cost == 1  # a file is read on top of the base rules
    with pytest.raises(SweepError, match="cannot read"):
        plan_variants(files=[f"x={tmp_path / 'missing.toml'}"])


def test_plan_a_variant_file_that_sets_or_clears_seat_compensation(tmp_path):
    """A seat field is left out of ``Rules.to_dict`` while empty: a variant file that sets one (the
    shipped catch-up-coins) or clears the base's is planned all the same, its change named."""
    plan = plan_variants(files=["catch-up-coins"])
    assert plan[1].name == "catch-up-coins" and plan[1].varied == {"seat_coins": [0, 0, 1, 1, 2]}
    f = tmp_path / "plain.toml"
    f.write_text("seat_coins = []\n")
    plan = plan_variants(files=[f"plain={f}"], base=Rules(seat_coins=(0, 1)))
    assert plan[1].varied == {"seat_coins": []} and plan[1].rules == Rules()


# -- per-game metrics -------------------------------------------------------------------------------------
def _games(rows: list[dict], rounds: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    seats = pd.DataFrame(rows)
    for col in ("coins_vp", "logs_vp", "full_city_vp", "longest_series", "sides_completed", "cannons_lost"):
        if col not in seats:
            seats[col] = 0
    if "policy" not in seats:
        seats["policy"] = "balanced"
    games = pd.DataFrame({"game": sorted(set(seats["game"])), "players": 2, "rounds": rounds})
    return seats, games


def test_game_metrics_against_hand_made_games():
    rules = Rules(pirate_strengths=(3, 6))
    # game 0: seat 1 wins 30 to 28 but lost a cannon (-5): without it seat 1 still... scores 35 vs 28,
    #         so the winner is unchanged; both seats met attack 1 (defence 3, 2: one held), attack 2 never came
    # game 1: seat 0 wins 20 to 18 only because seat 1 lost a cannon: without cannons 20 vs 23
    # (a row a seat, read as a table: left unformatted, the formatter would give each field its own line)
    rows = [
        dict(game=0, seat=0, won=False, total=28, earned=10, church_vp=18, cannon_vp=0, cannons_lost=0,
             empty_left=2, defence_attack_1=3, defence_attack_2=-1),
        dict(game=0, seat=1, won=True, total=30, earned=15, church_vp=20, cannon_vp=-5, cannons_lost=1,
             empty_left=0, defence_attack_1=2, defence_attack_2=-1),
        dict(game=1, seat=0, won=True, total=20, earned=20, church_vp=0, cannon_vp=0, cannons_lost=0,
             empty_left=1, defence_attack_1=3, defence_attack_2=6),
        dict(game=1, seat=1, won=False, total=18, earned=13, church_vp=10, cannon_vp=-5, cannons_lost=1,
             empty_left=1, defence_attack_1=4, defence_attack_2=1),
    ]  # fmt: skip
    seats, games = _games(rows, [14, 17])
    m = game_metrics(seats.sample(frac=1, random_state=1), games, rules)  # rows in any order
    assert list(m.index) == [0, 1]
    assert m["win_seat_0"].tolist() == [0.0, 1.0] and m["win_seat_1"].tolist() == [1.0, 0.0]
    assert m["start_edge"].tolist() == [-0.5, 0.5]
    assert m["cannons_changed_winner"].tolist() == [0.0, 1.0]
    assert m["cannons_lost"].tolist() == [0.5, 0.5]
    assert m["attack_1_held"].tolist() == [0.5, 1.0]
    assert np.isnan(m.loc[0, "attack_2_held"]) and m.loc[1, "attack_2_held"] == 0.5
    assert m["vp_total"].tolist() == [29.0, 19.0]
    assert m["church_vp_share"].tolist() == pytest.approx([38 / 58, 10 / 38])
    assert m["rounds"].tolist() == [14.0, 17.0]
    assert not any(c.startswith("win_share_") for c in m)  # one policy: no policy shares


def test_game_metrics_policy_shares_split_shared_wins():
    rows = [
        dict(game=0, seat=0, won=True, total=30, earned=30, church_vp=0, cannon_vp=0, empty_left=1, policy="balanced"),
        dict(game=0, seat=1, won=True, total=30, earned=30, church_vp=0, cannon_vp=0, empty_left=1, policy="greedy"),
    ]
    seats, games = _games(rows, [10])
    m = game_metrics(seats, games, Rules())
    assert m.loc[0, "win_share_balanced"] == 0.5 and m.loc[0, "win_share_greedy"] == 0.5


def test_game_metrics_seat_wins_split_shared_wins():
    """A seat's win in a game is its share of it (a tie of two: a half each), so the seats' win
    rates add up to one win a game and the start player's edge is measured from a parity that holds."""
    rows = [
        dict(game=g, seat=s, won=w, total=30, earned=30, church_vp=0, cannon_vp=0, empty_left=1)
        for g, wins in enumerate([(True, True), (True, False), (False, True)])
        for s, w in enumerate(wins)
    ]
    seats, games = _games(rows, [10, 10, 10])
    m = game_metrics(seats, games, Rules())
    assert m["win_seat_0"].tolist() == [0.5, 1.0, 0.0] and m["win_seat_1"].tolist() == [0.5, 0.0, 1.0]
    assert (m["win_seat_0"] + m["win_seat_1"] == 1.0).all()
    assert m["start_edge"].tolist() == [0.0, 0.5, -0.5]


# -- statistics -----------------------------------------------------------------------------------------------
def test_paired_and_unpaired_intervals_follow_their_formulas():
    rng = np.random.default_rng(7)
    n = 500
    base = rng.normal(10, 3, n)
    variant = base + rng.normal(1, 0.5, n)  # strongly correlated with the baseline, game by game
    idx = pd.Index(np.arange(n), name="game")
    metrics = [Metric("x", "x", "vp", "game")]
    t = variant_table(
        {BASELINE: pd.DataFrame({"x": base}, index=idx), "v": pd.DataFrame({"x": variant}, index=idx)}, metrics
    ).set_index("variant")
    d = variant - base
    r = t.loc["v"]
    assert r["diff"] == pytest.approx(d.mean())
    half = Z_95 * d.std(ddof=1) / np.sqrt(n)
    assert (r.diff_lo, r.diff_hi) == pytest.approx((d.mean() - half, d.mean() + half))
    unpaired = Z_95 * np.sqrt(base.var(ddof=1) / n + variant.var(ddof=1) / n)
    assert (r.unpaired_lo, r.unpaired_hi) == pytest.approx((d.mean() - unpaired, d.mean() + unpaired))
    assert r.narrower == pytest.approx(unpaired / half) and r.narrower > 4
    assert (r.value, r.lo, r.hi) == pytest.approx(
        (
            variant.mean(),
            variant.mean() - Z_95 * variant.std(ddof=1) / np.sqrt(n),
            variant.mean() + Z_95 * variant.std(ddof=1) / np.sqrt(n),
        )
    )
    assert np.isnan(t.loc[BASELINE, "diff"])  # the baseline has no difference from itself to state
    # not on common dice: the difference gets the unpaired interval
    u = (
        variant_table(
            {BASELINE: pd.DataFrame({"x": base}, index=idx), "v": pd.DataFrame({"x": variant}, index=idx)},
            metrics,
            paired=False,
        )
        .set_index("variant")
        .loc["v"]
    )
    assert (u.diff_lo, u.diff_hi) == pytest.approx((r.unpaired_lo, r.unpaired_hi))


def test_paired_difference_uses_only_games_both_have():
    idx = pd.Index([0, 1, 2, 3], name="game")
    base = pd.DataFrame({"x": [1.0, np.nan, 3.0, 5.0]}, index=idx)
    var = pd.DataFrame({"x": [2.0, 7.0, np.nan, 8.0]}, index=idx)
    r = variant_table({BASELINE: base, "v": var}, [Metric("x", "x", "rate", "pirates")]).set_index("variant").loc["v"]
    assert r.paired_games == 2 and r["diff"] == pytest.approx(((2 - 1) + (8 - 5)) / 2)


# -- sweeps played ---------------------------------------------------------------------------------------------
GAMES = 600


@pytest.fixture(scope="module")
def defence_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "defence"
    plan = plan_variants(["side_defence=1,2,3"])
    result = run_sweep(out, plan, GAMES, 4, ["balanced"], seed=11, batch=250)
    return out, result


def test_sweep_directory_holds_a_plain_dataset_per_variant(defence_sweep, tmp_path):
    import smsim

    out, result = defence_sweep
    data = read_sweep(out)
    assert [v.name for v in data.variants] == ["baseline", "side_defence=1", "side_defence=3"]
    assert all((d / "manifest.json").is_file() for d in data.dirs)
    # the baseline variant is exactly `simulate --out` with the same seed
    plain = tmp_path / "plain"
    simulate_to(str(plain), GAMES, 4, ["balanced"], seed=11, batch=250)
    a, b = smsim.load(data.dirs[0]), smsim.load(plain)
    pd.testing.assert_frame_equal(a.seats, b.seats)
    pd.testing.assert_frame_equal(a.games, b.games)
    # each variant's dataset was played with its own rules
    assert smsim.load(data.dirs[2]).manifest["run"]["rules"]["side_defence"] == 3
    assert result.played == 3 * GAMES


def test_sweep_in_memory_equals_the_one_on_disk(defence_sweep):
    out, result = defence_sweep
    memory = play_sweep(read_sweep(out).variants, GAMES, 4, ["balanced"], seed=11)
    pd.testing.assert_frame_equal(memory.table, result.table)


def test_more_defence_per_side_loses_fewer_cannons(defence_sweep):
    """The effect a designer expects, with intervals: each step of side defence saves cannons."""
    _, result = defence_sweep
    t = result.table[result.table["metric"] == "cannons_lost"].set_index("variant")
    assert t.loc["side_defence=1", "value"] > t.loc["baseline", "value"] > t.loc["side_defence=3", "value"]
    assert t.loc["side_defence=1", "diff_lo"] > 0 and t.loc["side_defence=3", "diff_hi"] < 0
    held = result.table[result.table["metric"] == "attack_4_held"].set_index("variant")
    assert held.loc["side_defence=1", "diff_hi"] < 0 < held.loc["side_defence=3", "diff_lo"]


def test_common_dice_narrow_the_intervals(defence_sweep):
    _, result = defence_sweep
    vr = variance_reduction(result.table)
    assert len(vr) > 10
    assert vr["narrower"].median() > 1.2  # measured about 1.6 on 4,000 games
    assert (vr["games_factor"] == vr["narrower"] ** 2).all()


def test_sweep_resumes_and_refuses_another(defence_sweep, tmp_path):
    out, result = defence_sweep
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    data = read_sweep(copy)
    (data.dirs[1] / "seats" / "part-000001.parquet").unlink()  # as if killed in that part
    (data.dirs[1] / "games" / "part-000001.parquet").unlink()
    again = run_sweep(copy, data.variants, GAMES, 4, ["balanced"], seed=11, batch=250)
    assert again.played == 250
    pd.testing.assert_frame_equal(again.table, result.table)
    before = sorted(p.relative_to(copy) for p in copy.rglob("*"))
    with pytest.raises(DatasetError, match=r"different sweep .*seed"):
        run_sweep(copy, data.variants, GAMES, 4, ["balanced"], seed=12, batch=250)
    assert sorted(p.relative_to(copy) for p in copy.rglob("*")) == before  # nothing touched
    with pytest.raises(DatasetError, match="holds no sweep"):
        run_sweep(data.dirs[0], data.variants, GAMES, 4, ["balanced"], seed=11, batch=250)


def test_sweep_table_reads_back(defence_sweep):
    out, result = defence_sweep
    pd.testing.assert_frame_equal(sweep_table(out), result.table)


# -- command line -------------------------------------------------------------------------------------------
def test_cli_sweep_prints_and_writes(defence_sweep, tmp_path):
    runner = CliRunner()
    r = runner.invoke(  # a wide terminal: a cell's figure and interval on one line
        cli,
        ["sweep", "--vary", "side_defence=1,3", "-n", "300", "-s", "2", "--out", str(tmp_path / "s"), "-q"],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    assert "side defence 2 → 3" in r.output and "narrower" in r.output  # each variant named by its change
    # a difference and its interval as "+0.5 [-0.9, +1.9]": never a signed half-width ("± +1.4")
    assert "±" not in r.output and re.search(r"[+-]\d+\.\d+ \[[+-]\d+\.\d+, [+-]\d+\.\d+\]", r.output)
    manifest = json.loads((tmp_path / "s" / "sweep.json").read_text())
    assert manifest["command"][:2] == ["smsim", "sweep"] or manifest["command"]
    r = runner.invoke(cli, ["sweep", "--vary", "side_defence=1,3", "-n", "200", "--format", "csv", "-q"])
    assert r.exit_code == 0
    t = pd.read_csv(__import__("io").StringIO(r.output))
    assert set(t["variant"]) == {"baseline", "side_defence=1", "side_defence=3"}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--vary", "side_defense=1,2"], "unknown rules field 'side_defense'"),
        (["--vary", "side_defence=-1,2"], "must be >= 0"),
        (["--vary", "side_defence=2"], "one variant only"),
        ([], "give the variants"),
        (["--vary", "side_defence=1", "-n", "0"], "--games"),
    ],
)
def test_cli_sweep_bad_input(args, message):
    r = CliRunner().invoke(cli, ["sweep", *args])
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output


def test_cli_sweep_refuses_another_sweeps_directory(defence_sweep, tmp_path):
    out, _ = defence_sweep
    copy = tmp_path / "c"
    shutil.copytree(out, copy)
    before = {p: p.stat().st_mtime_ns for p in copy.rglob("*")}
    r = CliRunner().invoke(cli, ["sweep", "--vary", "side_defence=1,3", "-n", "100", "--out", str(copy), "-q"])
    assert r.exit_code == 2 and "different sweep" in r.output
    assert {p: p.stat().st_mtime_ns for p in copy.rglob("*")} == before


# -- report ------------------------------------------------------------------------------------------------------
def test_report_of_a_sweep_has_the_variants_section(defence_sweep, tmp_path, figures_blank):
    from smsim.report.write import report

    out, _ = defence_sweep
    md = report([str(out)], str(tmp_path / "rep")).read_text()
    assert "## Rule variants" in md
    # no path of the machine that played the games: the datasets are named under the sweep's folder
    written = [md, (tmp_path / "rep" / "report.html").read_text()]
    written += [f.read_text() for f in (tmp_path / "rep" / "tables").glob("*.csv")]
    assert not [w for w in written if str(out.parent) in w or str(tmp_path) in w]
    listing = pd.read_csv(tmp_path / "rep" / "tables" / "variants_0_list.csv")
    assert listing["dataset"].tolist() == [f"defence/{d}" for d in read_sweep(out).manifest["variant_dirs"]]
    assert "paired interval of a difference is a median" in md
    assert "figures/variants_0_side_defence.png" in md and "figures/variants_0_differences.png" in md
    assert (tmp_path / "rep" / "tables" / "variants_0_headline.csv").is_file()
    assert (
        "Rule variants (4 players, balanced at the table, 2 variants"
        in md.split("## Rule variants")[1].split("**In short**")[1]
    )


def test_variant_differences_are_judged_by_size(defence_sweep):
    """Each variant's difference in the section's tables carries its verdict by size against its
    unit's margin; the glance names only variants that move a figure by more than its margin."""
    from smsim.intervals import MARGINS, margin_verdict
    from smsim.report.studies import variants_section
    from smsim.report.tables import variant_set_from_sweep

    out, _ = defence_sweep
    vs = variant_set_from_sweep(out)
    sec, glance = variants_section([vs])
    groups = [b for b in sec.blocks if b.kind == "table" and b.shown is not None and "verdict" in b.shown]
    assert groups
    for b in groups:
        for r, said in zip(b.table.itertuples(), b.shown["verdict"]):
            assert said == ("" if r.variant == "baseline" else margin_verdict(r.diff_lo, r.diff_hi, MARGINS[r.unit]))
    assert {v for b in groups for v in b.shown["verdict"]} - {""} <= {"the same", "moves", "not settled"}
    # margins too wide for anything to move: no variant is named in the glance
    wide = dict.fromkeys(MARGINS, 1e6)
    sec, glance = variants_section([vs], margins=wide)
    assert glance[0].count("no variant by more than the margin") == 3
    assert {
        v
        for b in sec.blocks
        if b.kind == "table" and b.shown is not None and "verdict" in b.shown
        for v in b.shown["verdict"]
    } - {""} <= {"the same", "not settled"}


def test_report_compares_datasets_whose_rules_differ(tmp_path, figures_blank):
    from smsim.report.write import report

    simulate_to(str(tmp_path / "std"), 300, 2, ["balanced"], seed=5)
    simulate_to(str(tmp_path / "gentle"), 300, 2, ["balanced"], seed=5, rules=Rules(soldier_defence=2))
    md = report([str(tmp_path / "std"), str(tmp_path / "gentle")], str(tmp_path / "rep")).read_text()
    assert "## Rule variants" in md and "soldier_defence=2" in md
    assert "every variant on the same dice (paired)" in md
    simulate_to(str(tmp_path / "other-seed"), 300, 2, ["balanced"], seed=6, rules=Rules(soldier_defence=0))
    md = report([str(tmp_path / "std"), str(tmp_path / "other-seed")], str(tmp_path / "rep2")).read_text()
    assert "not on the same dice: differences have unpaired intervals" in md


def test_report_refuses_a_variant_without_a_baseline(tmp_path):
    simulate_to(str(tmp_path / "two"), 100, 2, ["balanced"], seed=5)
    simulate_to(str(tmp_path / "three"), 100, 3, ["balanced"], seed=5, rules=Rules(soldier_defence=2))
    r = CliRunner().invoke(
        cli, ["report", str(tmp_path / "two"), str(tmp_path / "three"), "--out", str(tmp_path / "r")]
    )
    assert r.exit_code == 2 and "none of them is a `smsim simulate` dataset of 3 players" in r.output
    assert not Path(tmp_path / "r" / "report.md").exists()


# -- shipped variants -----------------------------------------------------------------------------------------------
def test_shipped_variants_load_and_say_what_they_change():
    from smsim.studies.sweep import named_variants

    shipped = named_variants()
    assert len(shipped) >= 5
    for name, (path, description) in shipped.items():
        rules = Rules.from_toml(path)
        assert rules != Rules(), f"{name} changes nothing"
        assert len(description) > 20 and "\n" not in description
    plan = plan_variants(files=["free-rotation", str(shipped["milder-cannons"][0])])
    assert [v.name for v in plan] == ["baseline", "free-rotation", "milder-cannons"]
    assert plan[1].rules.rotation_cost == 0 and plan[2].rules.cannon_penalty == 3
    # recorded as the package's file, not this install's path: a sweep resumes under another checkout
    assert [v.source for v in plan[1:]] == ["smsim/variants/free-rotation.toml", "smsim/variants/milder-cannons.toml"]
    with pytest.raises(SweepError, match="no such shipped variant"):
        plan_variants(files=["no-such-variant"])


def test_cli_lists_the_shipped_variants():
    r = CliRunner().invoke(cli, ["variants"])
    assert r.exit_code == 0
    assert "gentle-last-attacks" in r.output and "pirate_strengths = [1, 3, 6, 8, 9, 10]" in r.output


def test_every_shipped_variant_is_named_with_its_change_from_the_default():
    """The one name of a variant (report, findings, terminal): each field it changes, from the
    default's value to its own, then the variant's own name."""
    from smsim.studies.sweep import named_variants, variant_name

    def _said(v) -> str:  # a value as a reader writes it
        return "[" + ", ".join(map(str, v)) + "]" if isinstance(v, (list, tuple)) else str(v)

    defaults = Rules().to_dict()
    for name, (path, _) in named_variants().items():
        held = Rules.from_toml(path).to_dict()
        changes = {k: v for k, v in held.items() if defaults.get(k) != v}
        said = variant_name(changes, Rules(), name)
        for k, v in changes.items():
            was = _said(defaults[k]) if k in defaults else _said([0] * len(v))  # no compensation: 0 a seat
            assert f"{was} → {_said(v)}" in said, (name, said)
        assert said.endswith(f"({name.replace('-', ' ')})")
    assert variant_name({"side_defence": 1}, Rules()) == "side defence 2 → 1"
    assert variant_name({"side_defence": 1}, Rules(), "side_defence=1") == "side defence 2 → 1"
    assert variant_name({"rotation_cost": 0}, Rules(), "free-rotation") == "rotation cost 2 → 0 (free rotation)"
    assert (  # the rules of a shipped variant, however asked for: its name too
        variant_name({"church_series_vp": [1, 3, 6, 10, 15]}, Rules())
        == "church series VP [1, 4, 8, 13, 20] → [1, 3, 6, 10, 15] (flatter church series)"
    )
    assert variant_name({"church_series_vp": [1, 3, 6, 10, 16]}, Rules()).endswith("[1, 3, 6, 10, 16]")
    assert variant_name({"side_defence": 3}, Rules(rotation_cost=0)) == "side defence 2 → 3"  # other base rules
    assert variant_name({}, Rules()) == "the base rules"
    assert variant_name({"seat_coins": [0, 1]}, Rules()) == "seat coins [0, 0] → [0, 1]"


def test_every_variant_says_what_it_changes_in_one_plain_sentence():
    """A shipped variant by its file's own line; any other by each field's meaning
    (``rules.FIELD_MEANING``, which names every field) and its change."""
    from dataclasses import fields

    from smsim.rules import FIELD_MEANING
    from smsim.studies.sweep import named_variants, variant_sentence

    assert set(FIELD_MEANING) == {f.name for f in fields(Rules)}  # a new field needs its meaning
    for name, (path, line) in named_variants().items():
        held = Rules.from_toml(path).to_dict()
        changes = {k: v for k, v in held.items() if Rules().to_dict().get(k) != v}
        assert variant_sentence(changes, Rules(), name) == line == variant_sentence(changes, Rules()) != ""
    said = variant_sentence({"rotation_cost": 1}, Rules())
    assert said == "The coins a player pays to turn a die to another face: 2 → 1."
    both = variant_sentence({"side_defence": 1, "cannon_penalty": 7}, Rules())
    assert both.count("; ") == 1 and both.endswith("5 → 7.") and both.startswith("The defence a completed wall side")


def test_a_game_without_vp_has_no_church_share():
    """The church VP share of a game is NaN where its seats' VP add up to 0 or less (random play
    can lose more to the pirates than it scores), never an infinite or negative share."""
    import warnings

    import pandas as pd

    from smsim.rules import Rules
    from smsim.runs.batch import simulate
    from smsim.studies.sweep import game_metrics

    seats, games = simulate(30, 2, ["random"], seed=2)
    seats = seats.astype({"total": "int64", "church_vp": "int64"})
    first = seats["game"] == seats["game"].min()
    seats.loc[first, "church_vp"] = 0
    seats.loc[first, "total"] = [-3, 3]  # the first game's VP add up to 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = game_metrics(seats, games, Rules())
    share = m["church_vp_share"]
    vp = seats.groupby("game")["total"].sum()
    assert pd.isna(share.iloc[0]) and share.isna().equals(vp <= 0) and not np.isinf(share).any()


def test_the_widest_seat_gap_is_the_gap_between_the_seats_that_win_most_and_least():
    """Per variant, the seats that win most and least often in its own games, the mean of their
    per-game difference with its interval, and its change from the baseline's paired game by game
    (catch-up coins widened it from 2.9 to 8.2 points at 4 players: a fix that overshoots)."""
    from smsim.studies.sweep import SEAT_GAP, metrics_for, variant_table

    rng = np.random.default_rng(5)
    n = 4000
    winner = {"baseline": rng.choice(3, n, p=[0.40, 0.33, 0.27]), "catch-up": rng.choice(3, n, p=[0.25, 0.30, 0.45])}
    per_variant = {
        name: pd.DataFrame({f"win_seat_{s}": (w == s).astype(float) for s in range(3)}, index=np.arange(n))
        for name, w in winner.items()
    }
    seats = [m for m in metrics_for(3, 6, ["balanced"]) if m.key.startswith("win_seat_")]
    t = variant_table(per_variant, seats).set_index(["variant", "metric"])
    base, after = t.loc[("baseline", SEAT_GAP.key)], t.loc[("catch-up", SEAT_GAP.key)]
    wins = {k: np.bincount(w, minlength=3) / n for k, w in winner.items()}
    assert base["value"] == pytest.approx(wins["baseline"][0] - wins["baseline"][2])  # seat 1 most, seat 3 least
    assert after["value"] == pytest.approx(wins["catch-up"][2] - wins["catch-up"][0])  # now seat 3 most, seat 1 least
    per_game = (per_variant["catch-up"]["win_seat_2"] - per_variant["catch-up"]["win_seat_0"]) - (
        per_variant["baseline"]["win_seat_0"] - per_variant["baseline"]["win_seat_2"]
    )
    half = 1.959963984540054 * per_game.std(ddof=1) / np.sqrt(n)
    assert after["diff"] == pytest.approx(per_game.mean())
    assert (after["diff_lo"], after["diff_hi"]) == pytest.approx((per_game.mean() - half, per_game.mean() + half))
    assert base["unit"] == "points" and np.isnan(base["diff"])
