"""studies.study: a rules configuration against the printed rules, played in rounds until its
verdicts settle; reproducible, resumable, stopped on time with what is unsettled said."""

import itertools
import json
import shutil

import numpy as np
import pandas as pd
import pytest

from smsim.errors import PolicyError, StudyError
from smsim.intervals import MOVES, NOT_SETTLED, cs_interval
from smsim.rules import Rules
from smsim.runs.batch import simulate
from smsim.studies import study as S
from smsim.studies.sweep import game_metrics

RULES = Rules(cannon_penalty=3, rotation_cost=1)
LEVELS = ("random", "greedy")  # cheap, and compiled by the warm-up


def files_of(path):
    """Every chunk of games a study wrote, read back, by its name under games/."""
    return {str(f.relative_to(path)): pd.read_parquet(f) for f in sorted((path / "games").rglob("*.parquet"))}


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """A small study played straight through to its most games: 2 players, two levels, bonuses
    and skill, rounds of 400 games and more."""
    out = tmp_path_factory.mktemp("study") / "straight"
    plan = S.plan_study(RULES, [2], LEVELS, seed=11, first_games=400)
    return plan, out, S.run_study(plan, out, max_games=1_600, threads=2)


# -- the plan --------------------------------------------------------------------------------------
def test_the_arms_and_figures_of_a_plan():
    plan = S.plan_study(RULES, [4, 2], LEVELS)
    keys = [a.key for a in plan.arms()]
    assert plan.players == (2, 4) and keys[0] == "2p-random-study-mirror"
    # per player count and level: a mirror and four bonus arms under each rules; a skill arm under each
    assert len(keys) == len(set(keys)) == 2 * (2 * 2 * 5 + 2)
    assert "4p-greedy-printed-skill" in keys and "4p-random-printed-bonus-left" in keys
    heads = [f.name for f in plan.figures() if f.headline]
    assert "4p random start_edge change" in heads and "4p greedy bonus_top" in heads
    assert "4p greedy skill_gap change" in heads and "4p greedy skill_gap" not in heads
    # the printed rules alone: nothing to compare, the start edge, bonuses and skill gap judged themselves
    alone = S.plan_study(Rules(), [3], ["balanced"], skill=False)
    assert not alone.compares and [a.key for a in alone.arms()][:2] == [
        "3p-balanced-study-mirror",
        "3p-balanced-study-bonus-top",
    ]
    assert [f.name for f in alone.figures() if f.headline][:2] == ["3p balanced start_edge", "3p balanced bonus_top"]
    # a side whose bonus some seat does not receive cannot be withheld: it is left out
    masked = S.plan_study(Rules(wall_bonus_seats=(31, 30, 31, 31)), [2], ["greedy"])
    assert masked.bonus_sides() == [0, 2, 3]


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"players": [6]}, Exception, "players"),
        ({"players": []}, StudyError, "at least one player count"),
        ({"levels": ["genius"]}, PolicyError, "genius"),
        ({"levels": []}, StudyError, "at least one level"),
        ({"margins": {"vp": -1}}, Exception, "margin vp"),
        ({"first_games": 0}, StudyError, "first_games"),
        ({"balance": -0.5}, StudyError, "balance"),
        ({"balance": 2}, StudyError, "at most 1"),
    ],
)
def test_a_bad_plan_is_refused_in_one_line(kwargs, error, words):
    with pytest.raises(error, match=words) as info:
        S.plan_study(RULES, **{"players": [2], **kwargs})
    assert "\n" not in str(info.value)


def test_the_seat_turns_block_by_block_and_rounds_are_whole_turns():
    assert [S.seat_of_block(g, 3) for g in (0, 99, 100, 250, 300)] == [0, 0, 1, 2, 0]
    arm = S.Arm("bonus", 3, "greedy", S.STUDY, 1)
    assert arm.unit() == 300 and S.Arm("mirror", 3, "greedy", S.STUDY).unit() == 100
    # at least one more turn, at most GROWTH times, in whole turns, never past the most games
    assert S.next_games(10, 600, 300, 10**6) == 900
    assert S.next_games(10**8, 600, 300, 10**6) == 600 * S.GROWTH
    assert S.next_games(10**8, 600, 300, 1_000) == 900


# -- playing -----------------------------------------------------------------------------------------
def test_a_mirror_arm_holds_the_games_simulate_plays(straight):
    """The mirror arm's rows are game_metrics of the same games (seed, game): the figures stand on
    the engine's games, not on a copy of them."""
    _plan, out, _ = straight
    seats, games = simulate(400, 2, ["greedy"], seed=11, rules=RULES)
    want = game_metrics(seats, games, RULES)
    got = S.read_arm(out, S.Arm("mirror", 2, "greedy", S.STUDY), 400)
    for col in ("start_edge", "rounds", "cannons_changed_winner", "vp_total"):
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy())


def test_a_bonus_arm_withholds_the_bonus_from_the_seat_of_its_block(straight):
    _plan, out, _ = straight
    rows = S.read_arm(out, S.Arm("bonus", 2, "greedy", S.STUDY, 0), 400)
    assert (rows["seat"].to_numpy() == (rows.index.to_numpy() // S.BLOCK) % 2).all()
    # block 1 (games 100-199): seat 1 without the top bonus, the same dice as the mirror's
    seats, _ = simulate(
        100, 2, ["greedy"], seed=11, rules=Rules.from_dict({"wall_bonus_seats": [1, 31, 31, 31]}, RULES), first=100
    )
    won = seats[seats["seat"] == 1]["won"].to_numpy(float)
    winners = seats.groupby("game")["won"].sum().to_numpy(float)
    np.testing.assert_allclose(rows.loc[100:199, "share"].to_numpy(), np.where(winners > 0, won / winners, 0))


def test_the_bonus_tables_are_the_engines_games_with_and_without_the_bonus(straight):
    """``bonus_tables`` (a study's bonus arms as the balance report's ablation) recomputed apart from
    the study: the mirror's and the denied games played again by ``simulate``, block by block."""
    _plan, _out, result = straight
    table, seats = S.bonus_tables(result)
    assert set(table["policy"]) == set(LEVELS) and set(table["side"]) == {"top", "right", "bottom", "left"}
    row = table[(table["policy"] == "greedy") & (table["side"] == "bottom")].iloc[0]
    games = int(row["games"])
    mirror, _ = simulate(games, 2, ["greedy"], seed=11, rules=RULES)
    with_, without, done, denied_done = [], [], [], []
    for first in range(0, games, S.BLOCK):
        seat = S.seat_of_block(first, 2)
        masks = list(RULES.wall_bonus_seats)
        masks[2] &= ~(1 << seat)
        denied, _ = simulate(
            S.BLOCK, 2, ["greedy"], seed=11, rules=Rules.from_dict({"wall_bonus_seats": masks}, RULES), first=first
        )
        block = mirror[(mirror["game"] >= first) & (mirror["game"] < first + S.BLOCK)]
        with_ += list(block[block["seat"] == seat]["total"])
        without += list(denied[denied["seat"] == seat]["total"])
        done += list(block.groupby("game")["bottom_completed"].mean())
        denied_done += list(denied[denied["seat"] == seat]["bottom_completed"].astype(float))
    for key, values in (
        ("vp_change", np.array(with_, float) - np.array(without, float)),
        ("completed", np.array(done)),
        ("completed_denied", np.array(denied_done)),
    ):
        want = cs_interval(values)
        np.testing.assert_allclose([row[key], row[f"{key}_lo"], row[f"{key}_hi"]], want[:3])
    # the win change is the study's own figure of the bonus's value, the per-seat rows split it
    t = result.table
    fig = t[(t["figure"] == "bonus_bottom") & (t["level"] == "greedy") & (t["kind"] == "value")].iloc[0]
    assert np.isclose(fig["study"], row["win_change"]) and fig["study_games"] == games
    mine = seats[(seats["policy"] == "greedy") & (seats["side"] == "bottom")]
    assert list(mine["seat"]) == [0, 1] and mine["games"].sum() == games


def test_the_bonus_tables_of_chunks_without_the_seats_columns_are_empty(straight, tmp_path):
    """A study written before its mirror arms recorded each seat's VP and sides has no ablation
    table (its figures stand as they are)."""
    _plan, out, _result = straight
    old = tmp_path / "old"
    shutil.copytree(out, old)
    for f in (old / "games").glob("*mirror/*.parquet"):
        frame = pd.read_parquet(f)
        frame.drop(columns=[c for c in frame if c.startswith(("vp_seat_", "sides_seat_"))]).to_parquet(f)
    table, seats = S.bonus_tables(S.read_study(old))
    assert table.empty and seats.empty
    assert not S.read_study(old).table.empty


def test_the_balance_scale_is_part_of_the_plan_read_back(tmp_path):
    plan = S.plan_study(Rules(), [2], ["greedy"], bonus=False, skill=False, first_games=100, balance=0.25)
    assert plan.identity()["balance"] == 0.25 and "balance" not in S.plan_study(Rules(), [2]).identity()
    S.write_manifest(tmp_path, "study", {"plan": plan.identity(), "command": [], "name": ""})
    back = S.read_study(tmp_path)
    assert back.plan.balance == 0.25 and back.balance == []  # no part played yet


def test_the_figures_are_paired_means_with_their_confidence_sequences(straight):
    _plan, out, result = straight
    t = result.table.set_index(["players", "level", "figure", "kind"])
    row = t.loc[(2, "greedy", "start_edge", "change")]
    a = S.read_arm(out, S.Arm("mirror", 2, "greedy", S.STUDY), 10**9)["start_edge"]
    b = S.read_arm(out, S.Arm("mirror", 2, "greedy", S.PRINTED), 10**9)["start_edge"]
    both = pd.concat([a, b], axis=1, join="inner")
    value, lo, hi, n = cs_interval((both.iloc[:, 0] - both.iloc[:, 1]).to_numpy())
    assert (row["change"], row["change_lo"], row["change_hi"], row["change_games"]) == pytest.approx((value, lo, hi, n))
    assert row["games"] == n == result.arm_games["2p-greedy-study-mirror"]
    # a bonus's value: the seat's share in the mirror minus its share without the bonus, game by game
    bonus = t.loc[(2, "greedy", "bonus_top", "value")]
    denied = S.read_arm(out, S.Arm("bonus", 2, "greedy", S.STUDY, 0), 10**9)
    mirror = S.read_arm(out, S.Arm("mirror", 2, "greedy", S.STUDY), 10**9).loc[denied.index]
    with_ = np.where(denied["seat"] == 0, mirror["win_seat_0"], mirror["win_seat_1"])
    assert bonus["study"] == pytest.approx(float(np.mean(with_ - denied["share"])))
    # the skill gap: the upper level's share above parity
    gap = t.loc[(2, "greedy", "skill_gap", "value")]
    skill = S.read_arm(out, S.Arm("skill", 2, "greedy", S.STUDY, lower="random"), 10**9)
    assert gap["study"] == pytest.approx(float(skill["share"].mean() - 0.5))


def test_rounds_give_games_only_to_the_arms_of_unsettled_figures(straight):
    plan, out, result = straight
    rounds = S.read_rounds(out)
    assert rounds[0]["targets"] == S.first_targets(plan, 1_600) and all(r["finished"] for r in rounds)
    assert result.stopped in (S.SETTLED, S.AT_MOST)
    for before, after in itertools.pairwise(rounds):
        table = S.figures_table(plan, out, {k: int(v) for k, v in before["targets"].items()})
        assert after["targets"] == S.next_targets(plan, table, before["targets"], 1_600)
        grown = {k for k, v in after["targets"].items() if v > before["targets"][k]}
        needed = {
            a.key
            for f, v in zip(plan.figures(), table["verdict"])
            if f.headline and v == NOT_SETTLED
            for a in S.arms_of(plan, f)
        }
        assert grown and grown <= needed | {k.replace("bonus-", "mirror-") for k in needed}  # a bonus's mirror
        assert max(after["targets"].values()) <= 1_600


def test_a_study_resumed_after_a_stop_plays_the_same_games_as_one_run_straight_through(straight, tmp_path):
    plan, out, result = straight
    cut = tmp_path / "cut"
    heard = []

    def stop_after_five(progress):
        heard.append(progress)
        if len(heard) == 5:
            raise KeyboardInterrupt  # as a kill would: the chunks in play are lost

    with pytest.raises(KeyboardInterrupt):
        S.run_study(plan, cut, max_games=1_600, threads=2, on_progress=stop_after_five)
    assert 0 < len(files_of(cut)) < len(files_of(out))
    again = S.run_study(plan, cut, max_games=1_600, threads=2)
    mine, theirs = files_of(cut), files_of(out)
    assert mine.keys() == theirs.keys()
    for name in mine:
        pd.testing.assert_frame_equal(mine[name], theirs[name])
    assert [r["targets"] for r in S.read_rounds(cut)] == [r["targets"] for r in S.read_rounds(out)]
    pd.testing.assert_frame_equal(again.table, result.table)


def test_a_study_on_a_tiny_budget_stops_on_time_and_says_what_is_unsettled(tmp_path):
    plan = S.plan_study(RULES, [2], ["greedy"], seed=3, bonus=False, skill=False, first_games=200)
    result = S.run_study(plan, tmp_path / "tiny", seconds=0.5, threads=2)
    assert result.stopped == S.OUT_OF_TIME
    unsettled = result.unsettled()
    assert len(unsettled) and (unsettled["games_needed"] > unsettled["games"]).all()
    assert json.loads((tmp_path / "tiny" / "stopped.json").read_text())["stopped"] == S.OUT_OF_TIME
    assert S.read_study(tmp_path / "tiny").stopped == S.OUT_OF_TIME


def test_a_study_that_settles_stops_there(tmp_path):
    """Cannon penalty 0 against 5: the games the pirates decide fall to none; with wide margins on the
    start edge and the length, the study stops in the round that settles the last of them."""
    plan = S.plan_study(
        Rules(cannon_penalty=0),
        [2],
        ["greedy"],
        seed=5,
        bonus=False,
        skill=False,
        margins={"points": 0.5, "rounds": 50.0, "rate": 0.01},
        first_games=1_000,
    )
    result = S.run_study(plan, tmp_path / "settles", threads=2)
    rounds = S.read_rounds(tmp_path / "settles")
    assert result.stopped == S.SETTLED
    head = result.table[result.table["headline"]].set_index("figure")
    assert (head["verdict"] != NOT_SETTLED).all()
    # and not a round later: before its last round, some figure was still unsettled
    before = S.figures_table(plan, tmp_path / "settles", rounds[-1]["before"])
    assert (before[before["headline"]]["verdict"] == NOT_SETTLED).any()
    assert head.loc["cannons_changed_winner", "verdict"] == MOVES
    assert head.loc["cannons_changed_winner", "change"] < 0  # no penalty: cannons never change a winner


def test_another_study_in_the_folder_is_refused_before_a_game(straight, tmp_path):
    _plan, out, _ = straight
    other = S.plan_study(Rules(cannon_penalty=7), [2], LEVELS, seed=11, first_games=400)
    before = files_of(out)
    with pytest.raises(StudyError, match="holds a different study"):
        S.run_study(other, out, max_games=1_600)
    assert files_of(out).keys() == before.keys()


def test_adapt_plays_l1_tuned_on_the_rules_as_a_level_and_fairness_searches_the_compensation(tmp_path, monkeypatch):
    """With --adapt, L1's weights are tuned on the study's rules (a tiny budget here) and, where the
    tuned bot beats L1 on held-out dice, played as a level whose printed-rules games are L1's own
    (each rules by the bot tuned for it); with --fairness, each player count's compensation search is
    written beside the rounds. A rerun tunes and searches nothing again."""
    from smsim.studies.adapt import AdaptPlan

    monkeypatch.setattr(S, "ADAPT", AdaptPlan(budget=8, games=300, held_out_games=400))
    monkeypatch.setattr(S, "FAIRNESS_GAMES", 40)
    monkeypatch.setattr(S, "FAIRNESS_CHECK_GAMES", 40)
    rules = Rules(rotation_cost=0)
    plan = S.plan_study(
        rules, [2], ["balanced"], seed=1, skill=False, bonus=False, first_games=200, adapt=True, fairness=True
    )
    heard = []
    result = S.run_study(plan, tmp_path / "a", max_games=200, threads=2, on_step=heard.append)
    assert [h.split(" ")[0] for h in heard] == ["tuning", "the"]
    bot = result.bot
    assert bot is not None and bot.tuned and (tmp_path / "a" / "fairness" / "2p" / "fairness.json").is_file()
    # free rotation: the tuned bot wins 66% [62, 70] against balanced on held-out dice, so it plays
    assert not bot.found_nothing and bot.share_lo > 0.5
    assert set(result.table["level"]) == {"balanced", "balanced-adapted"} and result.plan.adapted == bot.path
    keys = set(result.arm_games)
    assert "2p-balanced-adapted-study-mirror" in keys and "2p-balanced-adapted-printed-mirror" not in keys
    t = result.table.set_index(["level", "figure", "kind"])
    row, base = t.loc[("balanced-adapted", "start_edge", "change")], t.loc[("balanced", "start_edge", "change")]
    assert row["printed"] == base["printed"] and row["study"] != base["study"]  # L1 plays the printed rules for both
    assert S.read_study(tmp_path / "a").plan.adapted == bot.path
    heard.clear()
    S.run_study(plan, tmp_path / "a", max_games=200, threads=2, on_step=heard.append)
    assert heard == []


def test_adapt_tunes_only_a_built_in_heuristic():
    with pytest.raises(Exception, match="tunes a built-in heuristic"):
        S.plan_study(RULES, [2], ["random"], adapt=True)


def test_settling_names_the_look_from_which_each_headline_figure_stayed_settled(straight):
    plan, out, result = straight
    took = S.settling(result)
    heads = [f for f in plan.figures() if f.headline]
    assert len(took) == len(heads)
    rounds = S.read_rounds(out)

    def verdicts_at(r):
        table = S.figures_table(plan, out, {k: int(v) for k, v in rounds[r]["targets"].items()})
        return {f.name: v for f, v in zip(plan.figures(), table["verdict"])}

    looks = [verdicts_at(r) for r in range(len(rounds))]
    for f, row in zip(heads, took.itertuples()):
        if row.round is None or row.round != row.round:  # not settled at the last look
            assert looks[-1][f.name] == NOT_SETTLED
            continue
        r = int(row.round)
        assert all(look[f.name] != NOT_SETTLED for look in looks[r:])
        assert r == 0 or looks[r - 1][f.name] == NOT_SETTLED


def test_the_check_script_recomputes_every_verdict_from_the_games(straight, tmp_path):
    """scripts/check_study.py derives each headline figure again from the Parquet chunks with plain
    numpy: it agrees with the study's table, and finds a verdict edited in figures.csv."""
    import importlib.util
    import shutil
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "check_study", Path(__file__).parents[2] / "scripts" / "check_study.py"
    )
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    _, out, _ = straight
    assert check.main(str(out)) == 0
    copy = tmp_path / "edited"
    shutil.copytree(out, copy)
    table = pd.read_csv(copy / "figures.csv")
    first = table.index[table["headline"]][0]
    table.loc[first, "verdict"] = "moves" if table.loc[first, "verdict"] != "moves" else "the same"
    table.to_csv(copy / "figures.csv", index=False)
    assert check.main(str(copy)) == 1


@pytest.mark.slow  # two processes of smsim study (a few seconds each)
def test_a_study_killed_with_sigkill_resumes_to_the_games_of_a_straight_run(tmp_path):
    """`smsim study` killed with SIGKILL once chunks of its first round are on disk, then the same
    command again: the same rounds, the same games, chunk for chunk, as one run straight through."""
    import os
    import signal
    import subprocess
    import sys
    import time

    args = [
        "study",
        "--rule",
        "cannon_penalty=3",
        "--players",
        "2",
        "--levels",
        "random,greedy",
        "--seed",
        "13",
        "--first-games",
        "400",
        "--max-games",
        "1600",
        "--threads",
        "1",
        "--quiet",
    ]
    cut = tmp_path / "cut"
    proc = subprocess.Popen(
        [sys.executable, "-m", "smsim.cli", *args, "--out", str(cut)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline and len(list((cut / "games").rglob("*.parquet"))) < 5 and proc.poll() is None:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (cut / "stopped.json").exists()  # it really was cut short
    subprocess.run([sys.executable, "-m", "smsim.cli", *args, "--out", str(cut)], check=True, stdout=subprocess.DEVNULL)
    plan = S.plan_study(Rules(cannon_penalty=3), [2], ["random", "greedy"], seed=13, first_games=400)
    S.run_study(plan, tmp_path / "straight", max_games=1_600, threads=2)
    mine, theirs = files_of(cut), files_of(tmp_path / "straight")
    assert mine.keys() == theirs.keys()
    for name in mine:
        pd.testing.assert_frame_equal(mine[name], theirs[name])
    assert [r["targets"] for r in S.read_rounds(cut)] == [r["targets"] for r in S.read_rounds(tmp_path / "straight")]


def test_moments_merged_batch_by_batch_equal_numpy_over_all_values():
    rng = np.random.default_rng(4)
    values = rng.choice([-1.0, 0.0, 0.5, 1.0, np.nan], size=5_000)
    m = S.Moments()
    for part in np.split(values, [1, 7, 300, 301, 4_000]):
        m.add(part)
    kept = values[~np.isnan(values)]
    assert m.n == len(kept)
    assert m.mean == pytest.approx(kept.mean(), rel=1e-12) and m.std == pytest.approx(kept.std(ddof=1), rel=1e-12)
    assert m.interval()[:3] == pytest.approx(cs_interval(values)[:3], rel=1e-12)
    assert S.Moments().interval()[3] == 0


def test_figures_judged_window_by_window_equal_those_judged_at_once(straight, monkeypatch):
    """The figures are read STREAM_GAMES games at a time (a study's memory stays bounded): windows
    of 150 games (not a multiple of the chunks, nor of the blocks) give the table of one window."""
    plan, out, result = straight
    done = result.arm_games
    whole = S.figures_table(plan, out, done)
    monkeypatch.setattr(S, "STREAM_GAMES", 150)
    pd.testing.assert_frame_equal(S.figures_table(plan, out, done), whole, rtol=1e-12)
