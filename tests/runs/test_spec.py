"""A run's inputs checked once (smsim.runs.spec): games, players, line-up, seed, rules."""

import pytest

from smsim.errors import PolicyError, SimulationError
from smsim.rules import Rules
from smsim.runs.spec import MAX_GAMES, RunSpec, split_chunks, verify_batch, verify_run


def test_verify_run_gives_one_value_with_every_input_checked():
    run = verify_run(500, 3, ["greedy", "random", "walls"], seed=7, rules=Rules(side_defence=2), first=10)
    assert isinstance(run, RunSpec)
    assert (run.games, run.players, run.seed, run.first) == (500, 3, 7, 10)
    assert run.names == ["greedy", "random", "walls"] and run.rules.side_defence == 2
    one = verify_run(10, 4, ["balanced"])  # one policy for every seat; docs/rules.md's rules
    assert one.names == ["balanced"] * 4 and one.rules == Rules()


@pytest.mark.parametrize(
    "args, error, words",
    [
        ((0, 4, None), SimulationError, "games must be a whole number from 1 to 10,000,000,000, not 0"),
        ((MAX_GAMES + 1, 4, None), SimulationError, "games must be .* to 10,000,000,000, not 10,000,000,001"),
        ((10, 6, None), SimulationError, "players must be a whole number from 2 to 5, not 6"),
        ((10, 3, ["greedy", "random"]), PolicyError, "got 2 policies for 3 players"),
        ((10, 2, ["nobody"]), PolicyError, "unknown policy 'nobody'"),
        ((10, 2, None, "7"), SimulationError, "seed must be a whole number, not '7'"),
    ],
)
def test_verify_run_refuses_bad_input_with_one_line(args, error, words):
    with pytest.raises(error, match=words) as caught:
        verify_run(*args)
    assert "\n" not in str(caught.value)


def test_a_run_is_cut_into_parts_and_chunks():
    assert verify_batch(None, 25_000) == 10_000 and verify_batch(300, 1000) == 300
    assert split_chunks(5, 25_000) == [(5, 10_000), (10_005, 10_000), (20_005, 5_000)]
    with pytest.raises(SimulationError, match="batch must be a whole number from 1 to 10,000,000,000, not -1"):
        verify_batch(-1, 10)
