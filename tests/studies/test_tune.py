"""smsim tune: CMA-ES over the heuristic's weights (smsim.studies.tune) and its command.

Budgets here are tiny (a few candidates of a few hundred 2-player games), so these check the
machinery: determinism, common dice, held-out dice, the weights file, and that the optimizer
finds a weight that is badly wrong. ``test_a_real_search_beats_its_own_base_held_out`` (slow) is
the larger version."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from smsim.errors import TuneError
from smsim.layout import PolicyKind
from smsim.policies.heuristics import PARAM_NAMES
from smsim.policies.registry import POLICIES, PolicySpec, load_weights_file, resolve_policy
from smsim.rules import Rules
from smsim.runs.batch import run_games
from smsim.studies.compare import compare
from smsim.studies.tune import FLOOR_SCALE, held_out_seed, tune, write_weights

TINY = {"players": 2, "games": 120, "budget": 6, "held_out_games": 240}
PIRATE = PARAM_NAMES.index("pirate_next")


@pytest.fixture(scope="module")
def tiny():
    return tune("balanced", seed=5, **TINY)


def test_the_same_seed_gives_the_same_search_whatever_numpy_global_state_and_threads(tiny):
    np.random.seed(123)  # cma draws from numpy's global generator: tune keeps its own apart
    state = np.random.get_state()
    again = tune("balanced", seed=5, threads=1, **TINY)
    after = np.random.get_state()
    assert after[0] == state[0] and np.array_equal(after[1], state[1]) and after[2] == state[2]  # left alone
    pd.testing.assert_frame_equal(again.history, tiny.history)
    np.testing.assert_array_equal(again.spec.params, tiny.spec.params)
    assert again.held_out_share == tiny.held_out_share
    other = tune("balanced", seed=6, **TINY)
    searched = list(tiny.searched)
    assert not np.array_equal(other.history[searched].to_numpy(), tiny.history[searched].to_numpy())


def test_the_budget_counts_every_candidate_and_the_base_is_scored_first(tiny):
    h = tiny.history
    assert len(h) == TINY["budget"]
    base = POLICIES["balanced"].weights()
    assert all(h.iloc[0][n] == base[n] for n in tiny.searched)
    # the base against itself on common dice, every seat equally: exactly parity, no spread
    assert h.iloc[0]["win_share"] == tiny.parity == 0.5
    assert h.iloc[0]["win_lo"] == h.iloc[0]["win_hi"] == 0.5
    assert len({tuple(r) for r in h[tiny.searched].to_numpy()}) == len(h)  # CMA-ES proposed new points
    assert tiny.score == h["win_share"].max() and tiny.score >= tiny.base_score
    assert list(tiny.searched) == [n for n in PARAM_NAMES if n not in ("exact_keep", "noise", "forgo")]


def test_every_candidate_is_scored_by_compare_on_the_tuning_seed(tiny):
    """Common random numbers: the winner's score is what compare gives on the tuning seed."""
    spec = PolicySpec("candidate", PolicyKind.HEURISTIC, tiny.spec.params)
    row = compare([spec, "balanced"], 2, TINY["games"], seed=5, keep_games=False).table.loc["candidate"]
    assert float(row["win_share"]) == tiny.score
    assert (float(row["win_lo"]), float(row["win_hi"])) == (tiny.score_lo, tiny.score_hi)


def test_the_held_out_games_are_on_other_dice(tiny):
    assert tiny.held_out_seed == held_out_seed(5)
    near = {held_out_seed(s) for s in range(-50, 50)}
    assert len(near) == 100 and not near & set(range(-50, 50))  # never a tuning seed nearby
    # the held-out comparison is the winner against the base on that seed
    again = compare([tiny.spec, "balanced"], 2, TINY["held_out_games"], tiny.held_out_seed, keep_games=False)
    row = again.table.loc[tiny.spec.name]
    assert (float(row["win_share"]), float(row["win_lo"]), float(row["win_hi"])) == tiny.held_out_share
    # and that seed deals other dice: the same policies end with other scores
    spec = [POLICIES["balanced"]] * 2
    a = run_games(20, 2, spec, 5, Rules())[0]
    b = run_games(20, 2, spec, tiny.held_out_seed, Rules())[0]
    assert not np.array_equal(a, b)


def test_the_weights_file_loads_as_a_policy_with_exactly_the_tuned_weights(tiny, tmp_path):
    path = tmp_path / "tuned.toml"
    write_weights(tiny, path, "smsim tune --seed 5 (test)")
    spec = load_weights_file(str(path))
    np.testing.assert_array_equal(spec.params, tiny.spec.params)
    assert resolve_policy(str(path)).kind == PolicyKind.HEURISTIC
    data = tomllib.loads(path.read_text())
    assert data.pop("base") == "balanced"
    description = data.pop("description")
    assert set(data) == set(tiny.changed)  # only the weights that differ (none when the base won)
    share, lo, hi = tiny.held_out_share
    for words in (
        "smsim tune --seed 5 (test)",
        "seed 5",
        f"{TINY['budget']} candidates",
        f"{100 * share:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
        f"seed {tiny.held_out_seed}",
    ):
        assert words in description, (words, description)
    assert not [p for p in tmp_path.iterdir() if p.name != "tuned.toml"]  # no temporary file left


def test_switches_are_not_searched_unless_named_and_their_off_value_is_no_change(tiny):
    assert "exact_keep" not in tiny.searched and "noise" not in tiny.searched
    assert set(tiny.searched) == set(PARAM_NAMES) - {"exact_keep", "noise", "forgo"}
    assert "exact_keep" not in tiny.changed and "noise" not in tiny.changed  # off in base and winner alike


def test_weights_are_searched_relative_to_their_base_with_a_floor_for_zeros(tiny):
    h, base = tiny.history, POLICIES["balanced"].weights()
    moved = h.iloc[1:]  # CMA-ES's first generation: sigma 0.3 in scaled units
    for name in ("bonus_person", "fill", "crate"):  # 3 VP, 0.05 VP, 0 in balanced
        scale = max(abs(base[name]), FLOOR_SCALE)
        step = (moved[name] - base[name]).abs().max() / scale
        assert 0.02 < step < 1.5, (name, step)
    assert (moved["church"] > 0.3).all()  # church's 0 reads as 1: searched around 1, not 0


def test_only_restricts_the_search_and_a_damaged_weight_is_found(tmp_path):
    """A base with one badly wrong weight (pirate_next = -3: it courts the pirates) is repaired by
    searching that weight alone, and the repair shows on held-out dice."""
    damaged = tmp_path / "damaged.toml"
    damaged.write_text('base = "balanced"\npirate_next = -3.0\n')
    result = tune(
        str(damaged), players=2, games=300, budget=13, seed=11, only=["pirate_next"], popsize=4, held_out_games=1200
    )
    assert result.searched == ["pirate_next"]
    others = [i for i in range(len(PARAM_NAMES)) if i != PIRATE]
    np.testing.assert_array_equal(result.spec.params[others], load_weights_file(str(damaged)).params[others])
    assert result.weights["pirate_next"] > -1.5  # moved well up from -3
    share, lo, hi = result.held_out_share
    assert lo > 0.6, (share, lo, hi)  # clearly better than the damaged base on dice it never saw
    out = tmp_path / "repaired.toml"
    write_weights(result, out, "test")
    data = tomllib.loads(out.read_text())
    assert data.pop("base") == "balanced"  # the preset nearest the winner, for a base that is a file
    data.pop("description")
    assert data == {"pirate_next": result.weights["pirate_next"]}  # only what differs from that preset
    np.testing.assert_array_equal(load_weights_file(str(out)).params, result.spec.params)


@pytest.mark.slow
def test_a_real_search_beats_its_own_damaged_base_at_four_players(tmp_path):
    damaged = tmp_path / "damaged.toml"
    damaged.write_text('base = "balanced"\npirate_next = -3.0\ncoin = -1.0\n')
    result = tune(str(damaged), players=4, games=2000, budget=60, seed=3, held_out_games=20000)
    share, lo, hi = result.held_out_share
    assert lo > result.held_out_parity + 0.05, (share, lo, hi)


def test_bad_input_to_the_api_is_refused_in_one_line():
    for kwargs, words in [
        ({"budget": 0}, "budget"),
        ({"games": 0}, "games"),
        ({"only": ["nosuch"]}, "nosuch"),
        ({"base": "random"}, "heuristic"),
        ({"against": ["balanced", "balanced"]}, "distinct"),
    ]:
        with pytest.raises(TuneError, match=words):
            tune(**{**TINY, **kwargs})


# -- the command ----------------------------------------------------------------------------------
def test_the_command_writes_a_policy_and_reports_the_held_out_result(run, tmp_path):
    out = tmp_path / "t.toml"
    result = run("tune", "-p", "2", "-n", "100", "-b", "4", "-s", "1", "--only", "coin,log", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "held out (" in result.output and "parity 50.0%" in result.output and f"written: {out}" in result.output
    spec = load_weights_file(str(out))
    assert {k for k, v in spec.weights().items() if v != POLICIES["balanced"].weights()[k]} <= {"coin", "log"}
    description = tomllib.loads(out.read_text())["description"]
    assert "smsim tune --base balanced --against balanced --players 2 --games 100 --budget 4 --seed 1" in description
    played = run("simulate", "-n", "10", "-p", "2", "--policy", f"{out},balanced", "-q")
    assert played.exit_code == 0, played.output


def assert_refused(result, *words):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_bad_input_ends_in_one_line_and_writes_nothing(run, tmp_path):
    out = str(tmp_path / "t.toml")
    small = ("-n", "50", "-b", "2", "-p", "2")
    cases = [
        (("--only", "coin,nosuch"), "nosuch"),
        (("--budget", "0"), "--budget"),
        (("--games", "0"), "--games"),
        (("--players", "1"), "players"),
        (("--players", "6"), "players"),
        (("--base", "random"), "heuristic"),
        (("--against", "nosuch"), "nosuch"),
        (("--held-out-games", "0"), "--held-out-games"),
    ]
    for args, word in cases:
        assert_refused(run("tune", *small, *args, "--out", out), word)
    assert_refused(run("tune", *small, "--out", str(tmp_path / "missing" / "t.toml")), "no directory")
    assert_refused(run("tune", *small, "--out", str(tmp_path / "t.txt")), ".toml")
    assert not list(tmp_path.iterdir())


def test_an_existing_out_is_kept_without_force_and_replaced_with_it(run, tmp_path):
    out = tmp_path / "t.toml"
    out.write_text("# mine\n")
    assert_refused(run("tune", "-n", "50", "-b", "2", "-p", "2", "--out", str(out)), "exists", "--force")
    assert out.read_text() == "# mine\n"
    result = run("tune", "-n", "50", "-b", "2", "-p", "2", "--out", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert "description" in out.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["t.toml"]


def test_an_unwritable_out_is_refused_before_any_game(run, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        target = folder if not os.access(folder, os.W_OK) else Path("/sys")  # root writes anywhere but /sys
        if not target.is_dir():
            pytest.skip("no unwritable directory to try")
        assert_refused(run("tune", "-n", "50", "-b", "2", "-p", "2", "--out", str(target / "t.toml")), "cannot write")
        assert not list(folder.iterdir())
    finally:
        folder.chmod(0o700)
