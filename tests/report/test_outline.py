"""The levels of play shown ordered by a ladder (``smsim ladder``) and the dice decisions judged by
the keep oracle (``smsim regret``), as the report shows them: a small ladder and a small regret
study made here, given to the report writer and to ``smsim report``; the page without them as
it was."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from smsim.errors import DatasetError
from smsim.intervals import interval_text
from smsim.report import findings as F
from smsim.report import outline as O
from smsim.report import tables as A
from smsim.report.inputs import Inputs, read_inputs
from smsim.report.tables import read_report_data
from smsim.report.write import report, write_report
from smsim.studies.skill import PARITY, STRONGER, UNSETTLED, WEAKER
from tests.helpers import figures_left_blank

RUNGS = ["random", "greedy", "balanced"]
REGRET_POLICIES = ("random", "greedy", "balanced", "balanced-exact")


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """A 2- and 4-player ladder of random, greedy and balanced (48 games a cell; on seed 5 greedy
    loses a 2-player game to balanced, so the depth has a measured part), a keep-regret study
    of four policies at 4 players (24 games each, mirrors), a 4-player mirror of balanced, and the
    report of the mirror with both studies (``smsim report``'s Python side) and without them."""
    from smsim.runs.batch import simulate_to
    from smsim.studies.ladder import ladder
    from smsim.studies.regret import RegretPlan, run_regret

    root = tmp_path_factory.mktemp("levels")
    simulate_to(str(root / "bal4"), 120, 4, ["balanced"], seed=31, batch=60)
    ladder(root / "ladder", rungs=RUNGS, players=[2, 4], games=48, seed=5, threads=2)
    run_regret(RegretPlan(4, REGRET_POLICIES, 24, 33), root / "regret", threads=2)
    with figures_left_blank():  # both read for their text and tables alone (the figures: test_plots)
        report([str(root / "bal4"), str(root / "ladder"), str(root / "regret")], str(root / "with"))
        report([str(root / "bal4")], str(root / "without"))
    return root


def _section(root, title: str) -> str:
    md = (root / "report.md").read_text()
    return md.split(f"\n## {title}\n")[1].split("\n## ")[0]


def test_the_levels_show_each_step_both_ways_with_intervals_games_and_the_depth(studies):
    from smsim.studies.ladder import read_ladder

    res = read_ladder(studies / "ladder")
    sec = _section(studies / "with", "Levels of play")
    assert "`smsim ladder`" in sec and "Against a fixed mixed field" in sec
    for r in res.steps[res.steps["upper"] == "balanced"].itertuples():  # L1 over greedy, at 2 and at 4 players
        head = interval_text(r.head_share, r.head_lo, r.head_hi, digits=None, scale=100, unit="%")
        field = interval_text(r.field_diff, r.field_lo, r.field_hi, digits=None, scale=100, signed=True, unit=" points")
        said = f"at {r.players} players, one L1 `balanced` seat among `greedy` wins {head} ("
        assert said in sec, said
        assert f"{field} more than `greedy` (paired, {r.field_games:,} games): {r.field_verdict}" in sec
        assert f"above parity, {r.head_games:,} games): {r.verdict}" in sec
    # the depth: random -> greedy is never lost in so few games, so the depth is a bound, with its measured part
    d = res.depth.set_index("row")
    assert d.loc["depth", "bound"] == "at least"
    assert f"at least {d.loc['depth', 'steps_lo']:.2f}" in sec and "never lost" in sec
    m = d.loc["measured part"]
    assert f"`greedy` → L1 `balanced`, is {interval_text(m.steps, m.steps_lo, m.steps_hi, digits=2)}" in sec
    # counted from greedy too: here the part measured, so said once, in classes, beside the published depth
    assert f"That part is {m.steps / F.CLASS_IN_STEPS:.1f} [" in sec and F.PUBLISHED_DEPTH in sec
    assert "holds no check rung" in sec  # no check rung in this ladder: said, not left out
    # one table feeds the section: the CSV is the ladder's steps, every step at both player counts
    csv = pd.read_csv(studies / "with" / "tables" / "ladder_steps.csv")
    assert list(zip(csv["players"], csv["lower"], csv["upper"])) == list(
        zip(res.steps["players"], res.steps["lower"], res.steps["upper"])
    )
    assert np.allclose(csv["head_share"], res.steps["head_share"]) and np.allclose(
        csv["field_diff"], res.steps["field_diff"]
    )
    assert "| 4 | greedy → L1 balanced |" in sec
    assert (studies / "with" / "figures" / "ladder-steps.png").is_file()  # drawn from the same table


def test_the_levels_section_reads_the_ladder_not_the_skill_studies(studies):
    """Fails if the section ignored the ladder: without it the section is the skill studies' (none
    here: no head-to-head), with it the ladder's steps, and the first screen's sentence follows."""
    with_ = _section(studies / "with", "Levels of play")
    without = _section(studies / "without", "Levels of play")
    assert "No head-to-head against" in without and "Over `greedy`" not in without
    assert "Over `greedy`, the rung below it in the ladder" in with_ and "Depth:" in with_
    assert with_ != without


def test_the_report_without_a_ladder_or_regret_is_as_before(studies):
    """No ladder and no regret study: the levels section is the skill studies' (its opening as
    before), no section "Dice decisions", no ladder or regret table written."""
    md = (studies / "without" / "report.md").read_text()
    assert "\n## Dice decisions\n" not in md
    assert _section(studies / "without", "Levels of play").startswith(f"\n{O.LEVELS_INTRO}\n")
    assert "Each level is set against the one below head to head (`smsim skill`" in O.LEVELS_INTRO
    written = {p.name for p in (studies / "without" / "tables").iterdir()}
    assert not written & {"ladder_steps.csv", "ladder_depth.csv", "keep_regret.csv"}
    assert not (studies / "without" / "figures" / "ladder-steps.png").exists()
    data = read_report_data([str(studies / "bal4")])
    assert [x.title for x in O.page(data).sections] == [
        x.title for x in O.page(data, Inputs.of(ladder=[], regret=[])).sections
    ]
    assert O.levels_section([]).blocks[0].items == F.levels_lines([])


def test_the_dice_decisions_show_each_policys_keep_regret(studies):
    from smsim.studies.regret import read_regret

    md = (studies / "with" / "report.md").read_text()
    assert md.index("\n## Levels of play\n") < md.index("\n## Dice decisions\n") < md.index("\n## At a glance\n")
    sec = _section(studies / "with", "Dice decisions")
    assert "exact keep" in sec and "`balanced-exact` keeps exactly by that value" in sec
    table = read_regret(studies / "regret").set_index("policy")
    csv = pd.read_csv(studies / "with" / "tables" / "keep_regret.csv")
    assert csv["policy"].tolist() == list(REGRET_POLICIES)  # the levels in the ladder's order, then the rest
    assert csv["level"].tolist() == ["random", "greedy", "L1 balanced", "balanced-exact"]
    for r in csv.itertuples():
        t = table.loc[r.policy]
        assert math.isclose(r.regret_per_game, t.regret_per_game) and math.isclose(r.error_rate, t.error_rate)
        shown = interval_text(t.regret_per_game, t.regret_lo, t.regret_hi, digits=2)
        assert re.search(rf"\| 4 \| {re.escape(r.level)} \| mirror \| [\d,]+ \| {re.escape(shown)} \|", sec), r.level
    assert table.loc["balanced-exact", "regret_per_game"] == 0 < table.loc["balanced", "regret_per_game"]
    assert table.loc["balanced", "regret_per_game"] < table.loc["greedy", "regret_per_game"]
    b = table.loc["balanced"]
    assert f"L1 `balanced` {interval_text(b.regret_per_game, b.regret_lo, b.regret_hi, digits=2)} VP a game" in sec


def test_report_takes_ladder_and_regret_folders_on_the_command_line(studies, tmp_path, figures_blank):
    from click.testing import CliRunner

    from smsim.cli import cli

    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "report",
            str(studies / "bal4"),
            str(studies / "ladder"),
            str(studies / "regret"),
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert {"ladder_steps.csv", "keep_regret.csv"} <= {p.name for p in (tmp_path / "r" / "tables").iterdir()}
    res = runner.invoke(cli, ["report", str(studies / "ladder"), str(studies / "regret"), "--out", str(tmp_path / "s")])
    assert res.exit_code == 2 and res.output.startswith("Error: no dataset given beside the studies")
    kinds = A.kinds_of([str(studies / x) for x in ("bal4", "ladder", "regret")])
    found, rest = read_inputs(list(kinds), kinds)
    assert [len(found.results(k)) for k in ("fairness", "skill", "ladder", "regret")] == [0, 0, 1, 1]
    assert [s.path for s in found.studies["ladder"]] == [str(studies / "ladder")]  # each knows its path,
    assert found.studies["regret"][0].games > 0 and found.studies["ladder"][0].games > 0  # its games and rules
    assert rest == [str(studies / "bal4")]


def test_a_step_measured_twice_or_under_other_rules_is_refused(studies, tmp_path):
    from smsim.rules import Rules
    from smsim.studies.ladder import read_ladder
    from smsim.studies.regret import read_regret

    res = read_ladder(studies / "ladder")
    with pytest.raises(DatasetError, match="both measure the step random → greedy at 2 players"):
        A.ladder_steps([res, res])
    t = read_regret(studies / "regret")
    with pytest.raises(DatasetError, match="both judge the keeps of random at 4 players"):
        A.keep_regret([t, t])
    data = read_report_data([str(studies / "bal4")])
    data.rules = Rules(rotation_cost=3)
    with pytest.raises(DatasetError, match="is a ladder under other rules than the report's"):
        write_report(data, tmp_path / "r", Inputs.of(ladder=[res]))


def test_the_report_margin_judges_the_steps(studies):
    """A step's verdict is judged against the report's margin: a margin wider than any step turns
    every ordered step into ordered, small."""
    from smsim.studies.ladder import read_ladder

    res = read_ladder(studies / "ladder")
    wide = A.ladder_steps([res], margin=0.99)
    assert set(wide["verdict"]) <= {"ordered, small", "not settled", "level", "reversed"}
    assert (A.ladder_steps([res])["verdict"] == res.steps["verdict"]).all()


# -- on constructed steps ------------------------------------------------------------------------------
def _step(players, lower, upper, share, lo, hi, check=False, field=(0.05, 0.02, 0.08), games=1000):
    parity = 1 / players
    return {
        "players": players,
        "lower": lower,
        "upper": upper,
        "check": check,
        "parity": parity,
        "head_games": games,
        "head_share": share,
        "head_lo": lo,
        "head_hi": hi,
        "edge": share - parity,
        "edge_lo": lo - parity,
        "edge_hi": hi - parity,
        "vp_diff": 1.0,
        "vp_lo": 0.5,
        "vp_hi": 1.5,
        "verdict": "ordered" if lo - parity >= 0.01 else "not settled",
        "field_games": games,
        "field_diff": field[0],
        "field_lo": field[1],
        "field_hi": field[2],
        "field_verdict": "ordered",
        "seed": 7,
    }


def test_the_check_rung_says_how_much_one_more_step_still_gains():
    steps = pd.DataFrame(
        [
            _step(2, "learned", "rollout-learned", 0.56, 0.53, 0.59),
            _step(2, "rollout-learned", "rollout-learned-x4", 0.53, 0.51, 0.55, check=True),
            _step(4, "rollout-learned", "rollout-learned-x4", 0.27, 0.24, 0.30, check=True),
        ],
        columns=A.LADDER_STEP_COLUMNS,
    )
    line = F.check_line(steps)
    assert line.startswith(
        "One more step of strength (`rollout-learned-x4`, the top rung's search at a larger "
        "budget, over L3 `rollout-learned`) still gains +3.0 points [+1.0, +5.0] above parity "
        "head to head at 2 players (1,000 games: ordered)"
    )
    assert "+2.0 points [-1.0, +5.0] above parity head to head at 4 players" in line
    lines = F.levels_lines([], steps, A.ladder_depth([]))
    assert lines[-1] == line and "Over L2 `learned`, the rung below it in the ladder" in lines[2]
    assert "rollout-learned-x4" not in lines[2]  # the check step is no level's step
    assert "+5.0 points [+2.0, +8.0] against the field (paired, 1,000 games: ordered)" in line
    head_only = steps.assign(field_games=0, field_diff=float("nan"))  # smsim ladder --no-check-field
    line = F.check_line(head_only)
    assert "(1,000 games: ordered) (against the field not played: `smsim ladder --no-check-field`)" in line
    assert "nan" not in line and "paired" not in line


def test_the_ladder_decides_which_levels_are_ordered():
    """The ladder's step stands for the skill studies' head-to-head: a level step (parity inside)
    is a difference of style, a reversed one makes the upper the weaker; the first screen says so."""
    steps = pd.DataFrame(
        [
            _step(2, "balanced", "learned", 0.64, 0.63, 0.65),
            _step(2, "learned", "rollout-learned", 0.50, 0.495, 0.505),
            _step(3, "learned", "rollout-learned", 0.34, 0.30, 0.38),
            _step(4, "learned", "rollout-learned", 0.20, 0.18, 0.22),
        ],
        columns=A.LADDER_STEP_COLUMNS,
    )
    t = F.standings([], steps).set_index(["players", "upper"])["standing"]
    assert t.to_dict() == {
        (2, "learned"): STRONGER,
        (2, "rollout-learned"): PARITY,
        (3, "rollout-learned"): UNSETTLED,
        (4, "rollout-learned"): WEAKER,
    }
    said = F.levels_sentence([], steps)
    assert "L2 is stronger than L1 at 2 players" in said
    assert "L3 is level with L2 at 2 players" in said and "weaker than L2 at 4 players" in said
    assert "not settled against L2 at 3 players (too few games: about" in said


def test_the_skill_finding_reads_the_searchs_step_from_the_ladder():
    """Where the ladder measured L3 over L2, the finding "How much skill matters?" says that step,
    not the skill studies' (none here)."""
    steps = pd.DataFrame([_step(4, "learned", "rollout-learned", 0.29, 0.27, 0.31)], columns=A.LADDER_STEP_COLUMNS)
    from tests.report.test_findings import _skill

    skills = [_skill(4, {("learned", "balanced"): (0.41, 0.40, 0.42)})]
    assert "the search against it" not in F.skill_finding(skills).sentence
    said = F.skill_finding(skills, steps=steps).sentence
    assert (
        "the search against it: at 4 players one L3 `rollout-learned` seat among L2 `learned` wins 29.0% [27.0, 31.0]"
        in said
    )
    assert "L3 `rollout-learned` is the stronger" in said


def test_the_step_measured_on_more_games_decides_and_a_step_without_interval_does_not():
    from tests.report.test_findings import _skill

    skills = [_skill(2, {("rollout-learned", "learned"): (0.6, 0.55, 0.65)})]  # 200 games: stronger
    few = pd.DataFrame(
        [_step(2, "learned", "rollout-learned", 0.5, 0.45, 0.55, games=100)], columns=A.LADDER_STEP_COLUMNS
    )
    many = pd.DataFrame(
        [_step(2, "learned", "rollout-learned", 0.5, 0.495, 0.505, games=4000)], columns=A.LADDER_STEP_COLUMNS
    )
    none = pd.DataFrame(
        [_step(2, "learned", "rollout-learned", 0.5, -math.inf, math.inf, games=4000)], columns=A.LADDER_STEP_COLUMNS
    )
    assert F.standings(skills, few)["standing"].tolist() == [STRONGER]
    assert F.standings(skills, many)["standing"].tolist() == [PARITY]
    assert F.standings(skills, none)["standing"].tolist() == [STRONGER]
    assert F.standings([], none).empty


def test_a_step_is_stated_with_one_value_the_one_on_more_games():
    """The levels' sentences give a ladder step head to head with the skill study's figure where
    that study played it on more games (the figure the skill finding gives), named as the skill
    study's and judged by the same rule; the field's comparison stays the ladder's."""
    from tests.report.test_findings import _skill

    skills = [_skill(2, {("learned", "balanced"): (0.645, 0.62, 0.67)})]  # 200 games
    few = pd.DataFrame([_step(2, "balanced", "learned", 0.60, 0.50, 0.70, games=100)], columns=A.LADDER_STEP_COLUMNS)
    many = pd.DataFrame([_step(2, "balanced", "learned", 0.63, 0.62, 0.64, games=4000)], columns=A.LADDER_STEP_COLUMNS)
    said = F.levels_lines(skills, few, A.ladder_depth([]))[1]
    stated = "wins 64.5% [62.0, 67.0] (+14.5 points [+12.0, +17.0] above parity, 200 games of the skill study): ordered"
    assert stated in said and "60.0%" not in said
    assert "+5.0 points [+2.0, +8.0] more than L1 `balanced` (paired, 100 games)" in said
    said = F.levels_lines(skills, many, A.ladder_depth([]))[1]
    assert "wins 63.0% [62.0, 64.0] (+13.0 points [+12.0, +14.0] above parity, 4,000 games): ordered" in said
    assert "skill study" not in said
