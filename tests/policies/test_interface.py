"""User policies inside the jitted loop: the documented example, errors, and the contract."""

import numpy as np
import pytest

from smsim.errors import SimulationError
from smsim.play.api import play_game
from smsim.play.referee import check_game
from smsim.rules import Rules
from smsim.runs.batch import run_games, simulate

EXAMPLE = "docs/example_policy.py:next_church"
FIXTURES = "tests/policies/fixtures/bad_policies.py"


def test_documented_example_plays_legal_games_for_2_to_5_players():
    for players in range(2, 6):
        for g in range(60):
            policies = [EXAMPLE if (s + g) % 2 == 0 else "balanced" for s in range(players)]
            found = check_game(play_game(players, 31, g, policies).records)
            assert found is None, str(found)


def test_example_builds_churches_in_series_order():
    seats, _ = simulate(400, 2, [EXAMPLE, "random"], seed=2)
    example = seats[seats["policy"] == "next_church"]
    # it builds the smallest missing size first: on average, never more big churches than small ones
    means = example[[f"churches_{k}" for k in range(1, 6)]].mean().to_numpy()
    assert (np.diff(means) <= 0).all(), means
    assert (example["churches_1"] >= 1).mean() > 0.9
    assert example["church_vp"].mean() > seats[seats["policy"] == "random"]["church_vp"].mean()


def test_out_of_range_choice_stops_the_run_naming_the_policy():
    with pytest.raises(
        SimulationError,
        match=r"policy 'out_of_range' \(seat 1\) returned a choice outside the "
        r"legal candidates at a PLACE decision in game \d+",
    ):
        run_games(20, 2, ["greedy", f"{FIXTURES}:out_of_range"], seed=1, rules=Rules())


def test_user_params_reach_the_function():
    # uses_params picks row 1 whenever it can: on KEEP that is reroll mask 1 (die 0 only)
    traced = play_game(2, 5, 0, [f"{FIXTURES}:uses_params", "random"])
    seat0 = [t for t in traced.records[1:-1] if t["seat"] == 0]
    assert all(all(mask == 1 for mask in t["rerolled"]) for t in seat0)


def test_swapping_user_functions_reuses_the_compiled_engine():
    from smsim.play.loop import play_games_nb

    run_games(4, 2, [EXAMPLE, "greedy"], seed=1, rules=Rules())
    before = len(play_games_nb.signatures)
    run_games(4, 2, [f"{FIXTURES}:uses_params", EXAMPLE], seed=1, rules=Rules())
    run_games(4, 5, ["random", EXAMPLE, "greedy", "balanced", EXAMPLE], seed=1, rules=Rules())
    assert len(play_games_nb.signatures) == before  # no new compile: the functions are arguments


def test_user_policy_results_are_deterministic_across_threads():
    a = run_games(64, 3, [EXAMPLE, "random", "greedy"], seed=9, rules=Rules(), threads=1)
    b = run_games(64, 3, [EXAMPLE, "random", "greedy"], seed=9, rules=Rules(), threads=2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
