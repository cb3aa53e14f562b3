"""studies.ladder: the steps of a ladder of play, head to head and against a fixed field, resumable
chunk by chunk; the depth in 60%-steps; the check rung."""

import math

import numpy as np
import pandas as pd
import pytest

from smsim.errors import LadderError, PolicyError, SimulationError, SmsimError
from smsim.intervals import Z_95
from smsim.policies.registry import resolve_policy
from smsim.studies import ladder as D
from smsim.studies.compare import compare

RUNGS = ["random", "greedy", "balanced"]
PLAYERS = [2, 3]
GAMES = 36  # 2p: 18 head-to-head blocks, 3 against the field; 3p: 12 and 2
SEED = 7


def block_tables(path, plan):
    """Every cell's blocks as read back, without the time they took (which no two runs share)."""
    return {c.folder(): D.read_blocks(path / "cells" / c.folder()).drop(columns="core_seconds") for c in plan.cells()}


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory):
    """The ladder played in one go, in big chunks."""
    out = tmp_path_factory.mktemp("ladder") / "whole"
    plan = D.plan_ladder(RUNGS, PLAYERS, GAMES, SEED)
    return plan, out, D.run_ladder(plan, out, threads=2, chunk_games=1000)


# -- the plan ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"rungs": ["random", "genius"]}, PolicyError, "genius"),
        ({"rungs": ["greedy"]}, LadderError, "at least 2 rungs"),
        ({"rungs": []}, LadderError, "at least 2 rungs"),
        ({"rungs": ["greedy", "greedy"]}, LadderError, "named twice"),
        ({"games": 0}, SimulationError, "games"),
        ({"games": -5}, SimulationError, "games"),
        ({"players": [2, 6]}, SimulationError, "players"),
        ({"players": []}, LadderError, "player count"),
        ({"caps": {"walls": 3}}, LadderError, "not a rung"),
        ({"caps": {"greedy": 0}}, LadderError, "--cap greedy"),
        ({"field": ["rollout"]}, LadderError, "heuristics"),
        ({"check": 4}, LadderError, "no search"),
        ({"check": 1}, LadderError, "factor of at least 2"),
        ({"check_field": False}, LadderError, "only where there is a check rung"),
        ({"seed": 1.5}, LadderError, "seed"),
    ],
)
def test_bad_input_is_refused_in_one_line(kwargs, error, words):
    args = {"rungs": ["random", "greedy"], "players": [2], "games": 10} | kwargs
    with pytest.raises(error) as info:
        D.plan_ladder(**args)
    assert isinstance(info.value, SmsimError) and "\n" not in str(info.value) and words in str(info.value)


def test_the_plan_has_a_head_to_head_cell_per_step_and_a_field_cell_per_rung():
    plan = D.plan_ladder(RUNGS, [4, 2], 100, 1, caps={"balanced": 40}, field=["walls", "builder", "churches"])
    cells = plan.cells()
    assert plan.players == (2, 4)
    assert [(c.kind, c.players, c.rung, c.lower, c.games) for c in cells if c.players == 4] == [
        (D.HEAD, 4, "greedy", "random", 100),
        (D.HEAD, 4, "balanced", "greedy", 40),
        (D.FIELD_CELL, 4, "random", None, 100),
        (D.FIELD_CELL, 4, "greedy", None, 100),
        (D.FIELD_CELL, 4, "balanced", None, 40),
    ]
    field4 = next(c for c in cells if c.kind == D.FIELD_CELL and c.players == 4)
    assert field4.per_block == 12 and field4.blocks == 100 // 12


def test_every_field_member_sits_in_every_seat_equally_and_the_measured_rung_once_a_game():
    for players in (2, 3, 4, 5):
        cell = D.Cell(D.FIELD_CELL, players, "x", None, 100, players * 6)
        arrs = D.arrangements_of(cell, 6)
        assert len(arrs) == cell.per_block
        seats = np.array(arrs)
        assert all(list(a).count(0) == 1 for a in arrs)
        for member in range(7):  # the measured rung (0) and each of the six field members
            counts = [(seats[:, s] == member).sum() for s in range(players)]
            assert len(set(counts)) == 1 and counts[0] > 0, (players, member, counts)


# -- the figures ----------------------------------------------------------------------------------
def test_the_head_to_head_figure_is_what_compare_gives_on_the_same_seed(whole_run):
    plan, _, result = whole_run
    for players in PLAYERS:
        for lower, upper in plan.steps():
            row = result.steps.set_index(["players", "lower", "upper"]).loc[(players, lower, upper)]
            cmp = compare([upper] + [lower] * (players - 1), players, GAMES, seed=SEED, threads=2, keep_games=False)
            t = cmp.table.loc[upper]
            assert row.head_blocks == cmp.blocks and row.head_games == cmp.blocks * players
            assert (row.head_share, row.head_lo, row.head_hi) == pytest.approx((t.win_share, t.win_lo, t.win_hi))
            assert row.edge == pytest.approx(t.win_share - 1 / players)
            pair = cmp.pairs.set_index(["a", "b"]).loc[(upper, lower)]
            assert (row.vp_diff, row.vp_lo, row.vp_hi) == pytest.approx((pair.vp_diff, pair.lo, pair.hi))


def test_the_steps_read_as_the_ladder_climbs(whole_run):
    """random never beats greedy; each step up is ordered head to head and against the field at 2 players."""
    _, _, result = whole_run
    two = result.steps[result.steps["players"] == 2].set_index("upper")
    assert two.loc["greedy", "head_share"] == 1.0 and two.loc["greedy", "verdict"] == D.ORDERED
    assert (two["field_diff"] > 0).all() and (two["field_lower"] < two["field_upper"]).all()
    assert two.loc["greedy", "field_lower"] == 0.0  # random wins nothing against the field
    assert (two["clear_by"] == two["edge_lo"]).all()


def test_the_field_difference_is_zero_and_the_head_to_head_parity_when_upper_is_lower(tmp_path):
    """The same policy under two names: every field block the same, head to head exactly parity
    (each rotation is the same game with the seats' names swapped)."""
    copy = tmp_path / "greedy2.toml"
    copy.write_text('base = "greedy"\n')
    assert np.array_equal(resolve_policy(str(copy)).params, resolve_policy("greedy").params)
    plan = D.plan_ladder(["random", "greedy", str(copy)], PLAYERS, GAMES, SEED, field=["walls", "balanced"])
    result = D.run_ladder(plan, tmp_path / "same", threads=2)
    same = result.steps[result.steps["upper"] == "greedy2"]
    assert len(same) == 2
    for r in same.itertuples():
        assert r.field_blocks > 0 and r.field_diff == 0 and r.field_lo == 0 and r.field_hi == 0
        assert r.field_upper == r.field_lower > 0
        assert r.head_share == pytest.approx(1 / r.players, abs=1e-12)
        assert r.verdict == D.LEVEL or r.players > 2  # at 3 players a third may round a hair above parity
    other = result.steps[result.steps["upper"] == "greedy"]
    assert (other["field_diff"] > 0).all()  # the same games with another rung in the seat do differ


def test_with_no_field_every_step_is_head_to_head_only_with_the_same_figures(whole_run, tmp_path):
    plan, _, whole = whole_run
    bare = D.plan_ladder(RUNGS, PLAYERS, GAMES, SEED, field=[])
    assert {c.kind for c in bare.cells()} == {D.HEAD} and bare.identity()["field"] == []
    assert D.plan_of({"plan": bare.identity()}) == bare and bare.identity() != plan.identity()
    result = D.run_ladder(bare, tmp_path / "bare", threads=2)
    heads = ["players", "lower", "upper", "head_share", "head_lo", "head_hi", "vp_diff", "verdict"]
    pd.testing.assert_frame_equal(result.steps[heads], whole.steps[heads])  # the same dice, the same games
    assert (result.steps["field_games"] == 0).all() and (result.steps["field_verdict"] == D.NO_DATA).all()
    pd.testing.assert_frame_equal(result.depth, whole.depth)


# -- resuming ------------------------------------------------------------------------------------------
def test_a_run_cut_off_resumes_to_the_tables_of_one_uninterrupted_run(whole_run, tmp_path):
    plan, whole, expected = whole_run
    out = tmp_path / "cut"
    seen = []

    def cut(progress):
        seen.append((progress.cell.folder(), progress.first, progress.blocks))
        if len(seen) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        D.run_ladder(plan, out, threads=2, chunk_games=8, on_chunk=cut)
    # breadth first: the first chunk of every cell before any cell's second
    assert [s[1] for s in seen] == [0] * 5 and len({s[0] for s in seen}) == 5
    partial = D.read_ladder(out)
    assert not partial.complete and 0 < partial.cells["played"].sum() < partial.cells["games"].sum()
    # a time budget already spent plays nothing more; a rerun with other chunks finishes the rest
    stopped = D.run_ladder(plan, out, threads=2, chunk_games=20, hours=1e-9)
    assert stopped.cells["played"].sum() == partial.cells["played"].sum()
    resumed = D.run_ladder(plan, out, threads=2, chunk_games=20)
    assert resumed.complete and expected.complete
    pd.testing.assert_frame_equal(resumed.steps, expected.steps)
    pd.testing.assert_frame_equal(resumed.depth, expected.depth)
    a, b = block_tables(out, plan), block_tables(whole, plan)
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], obj=name)
    assert (out / "steps.csv").read_text() == (whole / "steps.csv").read_text()
    read = D.read_ladder(out)
    pd.testing.assert_frame_equal(read.steps, expected.steps)


def test_a_folder_of_another_ladder_is_refused_and_left_as_it_was(whole_run, tmp_path):
    plan, whole, _ = whole_run
    other = D.plan_ladder(RUNGS, PLAYERS, GAMES, SEED + 1)
    before = sorted(p.name for p in whole.rglob("*"))
    with pytest.raises(LadderError, match="holds a different ladder"):
        D.run_ladder(other, whole, threads=1)
    assert sorted(p.name for p in whole.rglob("*")) == before
    (tmp_path / "x.txt").write_text("notes\n")
    with pytest.raises(LadderError, match="holds no ladder"):
        D.run_ladder(plan, tmp_path, threads=1)
    with pytest.raises(SmsimError, match="is not a ladder"):
        D.read_ladder(tmp_path)


# -- the depth -------------------------------------------------------------------------------------
def test_the_depth_of_two_steps_is_the_hand_computed_sum_of_logits():
    # p = 0.6 [0.55, 0.65] and 0.75 [0.70, 0.80]: logit(0.6) = ln 1.5 = 0.405465, logit(0.75) = ln 3 = 1.098612;
    # se of p = 0.1 / (2 x 1.959964) = 0.025511; of the logits 0.025511 / 0.24 = 0.106295 and / 0.1875 = 0.136058
    one, two = D.step_depth(0.6, 0.55, 0.65, 100), D.step_depth(0.75, 0.70, 0.80, 100)
    assert one[0] == pytest.approx(1.0) and two[0] == pytest.approx(1.098612 / 0.405465, rel=1e-5)
    assert one[3] == pytest.approx(0.106295 / 0.405465, rel=1e-4)
    assert two[3] == pytest.approx(0.136058 / 0.405465, rel=1e-4)
    depth, lo, hi, se, bound = D.chain_depth([one, two])
    assert bound == D.ESTIMATE and depth == pytest.approx(3.709511, rel=1e-5)
    assert se == pytest.approx(math.hypot(0.262156, 0.335562), rel=1e-4)  # 0.425826
    assert (lo, hi) == pytest.approx((3.709511 - Z_95 * 0.425826, 3.709511 + Z_95 * 0.425826), rel=1e-4)


def test_a_step_never_lost_bounds_the_depth_from_below():
    # all 200 blocks won: Wilson's lower end is n / (n + z^2), its logit ln(n / z^2) = ln(200 / 3.841459)
    step = D.step_depth(1.0, 1.0, 1.0, 200)
    assert step[4] == D.AT_LEAST and math.isnan(step[0]) and step[2] == math.inf
    assert step[1] == pytest.approx(math.log(200 / Z_95**2) / math.log(1.5), rel=1e-9)
    depth, lo, hi, _, bound = D.chain_depth([step, D.step_depth(0.6, 0.55, 0.65, 100)])
    assert bound == D.AT_LEAST and math.isnan(depth) and hi == math.inf
    assert lo == pytest.approx(step[1] + 1.0 - Z_95 * 0.262156, rel=1e-4)
    more = D.step_depth(1.0, 1.0, 1.0, 2000)[1]
    assert more > step[1]  # more games raise the bound
    never = D.step_depth(0.0, 0.0, 0.0, 200)
    assert never[4] == D.AT_MOST and never[2] == pytest.approx(-step[1])
    assert D.chain_depth([step, never])[4] == D.UNBOUNDED


def test_the_depth_table_reads_the_2_player_steps_below_the_check_rung():
    row = dict(zip(D.STEP_COLUMNS, [math.nan] * len(D.STEP_COLUMNS)))
    # a row a step, read as a table: left unformatted, the formatter would give each field its own line
    steps = pd.DataFrame([
        row | {"players": 2, "lower": "a", "upper": "b", "check": False, "head_share": 0.6, "head_lo": 0.55,
               "head_hi": 0.65, "head_blocks": 100, "head_games": 200},
        row | {"players": 2, "lower": "b", "upper": "c", "check": False, "head_share": 0.75, "head_lo": 0.7,
               "head_hi": 0.8, "head_blocks": 100, "head_games": 200},
        row | {"players": 2, "lower": "c", "upper": "c-x4", "check": True, "head_share": 0.9, "head_lo": 0.85,
               "head_hi": 0.95, "head_blocks": 100, "head_games": 200},
        row | {"players": 4, "lower": "a", "upper": "b", "check": False, "head_share": 0.4, "head_lo": 0.35,
               "head_hi": 0.45, "head_blocks": 100, "head_games": 400},
    ])  # fmt: skip
    depth = D.depth_table(steps)
    assert list(depth["upper"]) == ["b", "c", "c"] and list(depth["lower"]) == ["a", "b", "a"]
    assert list(depth["row"]) == [D.STEP_ROW, D.STEP_ROW, D.DEPTH_ROW]
    assert depth["steps"].iloc[-1] == pytest.approx(3.709511, rel=1e-5) and depth["games"].iloc[-1] == 400
    assert D.depth_table(steps[steps["players"] == 4]).empty


def test_the_depth_is_also_counted_from_greedy_where_it_is_a_rung_above_the_foot():
    row = dict(zip(D.STEP_COLUMNS, [math.nan] * len(D.STEP_COLUMNS)))

    def step(lower, upper, share, lo, hi, blocks=100):
        return row | {"players": 2, "lower": lower, "upper": upper, "check": False, "head_share": share,
                      "head_lo": lo, "head_hi": hi, "head_blocks": blocks, "head_games": 2 * blocks}  # fmt: skip

    chain = [step("random", "greedy", 1.0, 1.0, 1.0, 200), step("greedy", "balanced", 0.6, 0.55, 0.65),
             step("balanced", "learned", 0.75, 0.7, 0.8)]  # fmt: skip
    depth = D.depth_table(pd.DataFrame(chain))
    assert list(depth["row"]) == [D.STEP_ROW] * 3 + [D.DEPTH_ROW, D.MEASURED_ROW, D.FROM_ANCHOR_ROW]
    anchored = depth.iloc[-1]
    assert (anchored["lower"], anchored["upper"], anchored["games"]) == ("greedy", "learned", 400)
    assert anchored["bound"] == D.ESTIMATE and anchored["steps"] == pytest.approx(3.709511, rel=1e-5)
    # greedy at the foot: the depth is already counted from it; greedy absent: no such row
    assert D.FROM_ANCHOR_ROW not in set(D.depth_table(pd.DataFrame(chain[1:]))["row"])
    renamed = [r | {"lower": r["lower"].replace("greedy", "walls"), "upper": r["upper"].replace("greedy", "walls")}
               for r in chain]  # fmt: skip
    assert D.FROM_ANCHOR_ROW not in set(D.depth_table(pd.DataFrame(renamed))["row"])


# -- the check rung --------------------------------------------------------------------------------
def test_the_check_rung_is_the_search_at_k_times_its_budget():
    top = resolve_policy("rollout-learned")
    check = D.check_rung(top, 4)
    assert check.name == "rollout-learned-x4" and check.base.name == "learned"
    before, after = top.weights(), check.weights()
    assert after["budget"] == 4 * before["budget"] and after["place_budget"] == 4 * before["place_budget"]
    same = [k for k in before if "budget" not in k]
    assert len(same) > 5 and all(after[k] == before[k] for k in same)
    with pytest.raises(LadderError, match="past the search's most"):
        D.check_rung(top, 1000)
    with pytest.raises(LadderError, match="no search"):
        D.check_rung("balanced", 2)
    plan = D.plan_ladder(["balanced", "rollout"], [2], 100, 1, caps={"rollout-x4": 20}, check=4)
    assert plan.steps() == [("balanced", "rollout"), ("rollout", "rollout-x4")]
    assert [c.games for c in plan.cells() if c.rung == "rollout-x4"] == [20, 20]
    assert plan.identity()["policies"]["rollout-x4"]["weights"]["budget"] == 4 * 128
    assert "check_field" not in plan.identity()  # the default: ladders written before it resume as they were


def test_the_check_rung_can_be_measured_head_to_head_only():
    plan = D.plan_ladder(["balanced", "rollout"], [2, 4], 100, 1, check=4, check_field=False)
    assert [(c.kind, c.players) for c in plan.cells() if c.rung == "rollout-x4"] == [(D.HEAD, 2), (D.HEAD, 4)]
    assert len([c for c in plan.cells() if c.kind == D.FIELD_CELL]) == 4  # balanced and rollout, at 2 and 4
    assert plan.identity()["check_field"] is False
    assert D.plan_of({"plan": plan.identity()}) == plan


@pytest.mark.slow
def test_a_cheap_search_and_its_check_rung_play_and_the_check_step_stays_out_of_the_depth(tmp_path):
    cheap = tmp_path / "cheap.toml"
    cheap.write_text('base = "rollout"\nbudget = 4\nplace_budget = 2\nmin_playouts = 2\ncandidates = 2\n')
    plan = D.plan_ladder(["greedy", str(cheap)], [2], 8, 3, check=2, field=["walls"])
    result = D.run_ladder(plan, tmp_path / "check", threads=2)
    assert list(result.steps["upper"]) == ["cheap", "cheap-x2"] and list(result.steps["check"]) == [False, True]
    assert result.complete and list(result.depth["upper"]) == ["cheap", "cheap"]
    assert (result.cells["core_seconds_per_game"] > 0).all()
    # the check rung head to head only: the same head-to-head figures, its field cell never played
    alone = D.run_ladder(
        D.plan_ladder(["greedy", str(cheap)], [2], 8, 3, check=2, field=["walls"], check_field=False),
        tmp_path / "head-only",
        threads=2,
    )
    assert alone.complete and len(alone.cells) == len(result.cells) - 1
    assert alone.steps["head_share"].equals(result.steps["head_share"])
    check = alone.steps[alone.steps["check"]].iloc[0]
    assert check["field_games"] == 0 and check["field_verdict"] == D.NO_DATA
    assert alone.steps[~alone.steps["check"]]["field_diff"].equals(result.steps[~result.steps["check"]]["field_diff"])


def test_the_cells_without_a_search_are_played_first_breadth_first():
    todo = [["a1", "a2"], ["s1", "s2"], ["b1"], []]
    assert D.chunk_order(todo, [False, True, False, False]) == ["a1", "b1", "a2", "s1", "s2"]
    assert D.chunk_order(todo, [False] * 4) == ["a1", "s1", "b1", "a2", "s2"]


def test_a_rung_given_as_a_file_is_capped_by_its_path_or_its_name(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text('base = "rollout"\nplayout_policy = "balanced"\nbudget = 64\n')
    by_path = D.plan_ladder(["balanced", str(path)], [2], 100, 1, caps={str(path): 30, "deep-x4": 20}, check=4)
    by_name = D.plan_ladder(["balanced", str(path)], [2], 100, 1, caps={"deep": 30, "deep-x4": 20}, check=4)
    assert by_path.caps == by_name.caps == {"deep": 30, "deep-x4": 20}
    assert [(c.rung, c.games) for c in by_path.cells() if c.kind == D.HEAD] == [("deep", 30), ("deep-x4", 20)]
    with pytest.raises(LadderError, match="not a rung"):
        D.plan_ladder(["balanced", str(path)], [2], 100, 1, caps={str(tmp_path / "other.toml"): 30})
