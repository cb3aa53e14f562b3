"""The argument checks every entry point shares (smsim/checks.py): numpy integers are whole
numbers, bools, floats and text are not, and each refusal is one line naming the bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smsim.checks import positive, threads, whole
from smsim.errors import SimulationError, SmsimError, TuneError

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("kind", INTS)
def test_numpy_integers_are_whole_numbers_and_come_back_as_int(kind):
    got = whole(kind(7), "games", low=1, high=100)
    assert got == 7 and type(got) is int


@pytest.mark.parametrize(
    "value, shown",
    [
        (True, "True"),
        (False, "False"),
        (np.bool_(True), "True"),
        (2.5, "2.5"),
        (np.float64(3.0), "3.0"),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        ("100", "'100'"),
        (None, "None"),
        ([1], "[1]"),
    ],
)
def test_bools_floats_and_text_are_refused_with_the_value_shown(value, shown):
    with pytest.raises(SimulationError) as caught:
        whole(value, "games", low=1)
    assert str(caught.value) == f"games must be a whole number of at least 1, not {shown}"


@pytest.mark.parametrize(
    "low, high, value, message",
    [
        (1, 10, 0, "n must be a whole number from 1 to 10, not 0"),
        (1, 10, 11, "n must be a whole number from 1 to 10, not 11"),
        (1, None, -1, "n must be a whole number of at least 1, not -1"),
        (None, 5, 6, "n must be a whole number of at most 5, not 6"),
        (0, 0, 1, "n must be a whole number from 0 to 0, not 1"),
        (None, None, 1.5, "n must be a whole number, not 1.5"),
        (0, 2**63 - 1, 2**63, "n must be a whole number from 0 to 2**63 - 1, not 9.22e18"),
        (1, 10**10, 10**99, "n must be a whole number from 1 to 10,000,000,000, not 1e99"),
        (1, 10**10, -(10**400), "n must be a whole number from 1 to 10,000,000,000, not -1e400"),
        (1, 10**10, 12_345_678_901, "n must be a whole number from 1 to 10,000,000,000, not 12,345,678,901"),
        (1, None, np.int8(-3), "n must be a whole number of at least 1, not -3"),
    ],
)
def test_the_message_names_the_bounds_and_the_value(low, high, value, message):
    with pytest.raises(SimulationError) as caught:
        whole(value, "n", low=low, high=high)
    assert str(caught.value) == message


def test_the_caller_names_the_error_class():
    with pytest.raises(TuneError, match="budget must be"):
        whole(0, "budget", low=1, error=TuneError)
    with pytest.raises(ValueError, match="max_iter must be"):  # a plain ValueError where the caller raises one
        whole(0, "max_iter", low=1, error=ValueError)


def test_a_long_value_is_cut_to_one_short_line():
    with pytest.raises(SmsimError) as caught:
        whole("x\n" * 100, "seed")
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 100


@given(st.integers(-(2**70), 2**70), st.integers(-50, 50), st.integers(0, 100))
def test_whole_accepts_exactly_the_range(value, low, width):
    high = low + width
    if low <= value <= high:
        assert whole(value, "x", low=low, high=high) == value
        assert whole(np.int64(value), "x", low=low, high=high) == value  # small enough for an int64
    else:
        with pytest.raises(SimulationError, match=f"^x must be a whole number from {low:,} to {high:,}, not "):
            whole(value, "x", low=low, high=high)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_no_float_is_a_whole_number_even_a_round_one(value):
    with pytest.raises(SimulationError, match="must be a whole number"):
        whole(value, "x")


def test_threads_are_none_or_at_least_one():
    assert threads(None) is None and threads(np.int64(2)) == 2
    for bad in (0, -1, True, 1.0):
        with pytest.raises(SimulationError, match=r"^--threads must be a whole number of at least 1, not "):
            threads(bad, "--threads")


@pytest.mark.parametrize("value", [0.5, np.float64(0.25), 1e-9, np.float32(0.5), 1 - 1e-12])
def test_a_fraction_lies_strictly_between_0_and_1(value):
    assert positive(value, "precision", below=1) == float(value)


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, -0.5, 2.0, float("nan"), float("inf"), True, "0.5", None])
def test_a_fraction_outside_0_and_1_or_not_a_number_is_refused(value):
    with pytest.raises(SimulationError, match=r"^precision must be a number above 0 and below 1, not "):
        positive(value, "precision", below=1)


def test_a_share_may_include_one_when_asked():
    assert positive(1, "--rate", most=1) == 1.0
    with pytest.raises(SimulationError, match=r"^--rate must be a number above 0 and at most 1, not 0\.0$"):
        positive(0.0, "--rate", most=1)


def test_positive_numbers_are_finite_and_above_0():
    assert positive(np.float64(0.3), "sigma") == 0.3 and positive(2, "sigma") == 2.0
    for bad in (0, -1.0, math.inf, math.nan, False, "1"):
        with pytest.raises(SimulationError, match=r"^sigma must be a number above 0, not "):
            positive(bad, "sigma")


# -- every entry point: numpy integers accepted, the same refusals as the command line ----------
def _api(name):
    import importlib

    if name in ("advise", "verify_plan", "LearnPlan"):
        module = "smsim.studies.advise" if name == "advise" else "smsim.studies.learn"
        return getattr(importlib.import_module(module), name)
    import smsim

    return getattr(smsim, name)


N = np.int64


def _played(tmp_path):
    """Calls with every whole-number argument a numpy integer; each plays a few games, or stops
    at a bad argument checked after them (so they were accepted) before any game."""
    a_file = tmp_path / "file"
    a_file.write_text("")
    return {
        "simulate": lambda: _api("simulate")(N(3), players=N(2), seed=N(1), first=N(5), threads=N(1)),
        "simulate_summary": lambda: _api("simulate_summary")(N(3), N(2), seed=N(1), threads=N(1)),
        "simulate_to": lambda: _api("simulate_to")(
            str(tmp_path / "run"), N(3), N(2), seed=N(1), batch=N(2), threads=N(1)
        ),
        "play_game": lambda: _api("play_game")(N(2), seed=N(3), game=N(4)),
        "sweep": lambda: _api("sweep")(N(4), players=N(2), seed=N(1), vary=["side_defence=1,2"], threads=N(1)),
        "compare": (
            lambda: _api("compare")(
                ["greedy", "random"], N(2), N(10), seed=N(1), precision=np.float64(0.5), cluster="nonsense"
            ),
            "cluster",
        ),
        "tune": (
            lambda: _api("tune")(
                "balanced",
                players=N(2),
                games=N(10),
                budget=N(2),
                seed=N(1),
                held_out_games=N(10),
                popsize=N(2),
                sigma=-1.0,
            ),
            "sigma must be",
        ),
        "fairness": (
            lambda: _api("fairness")(
                N(2), 7, games=N(10), seed=N(1), check_games=N(10), check_seed=N(2), max_compensation=N(1)
            ),
            "policy must be",
        ),
        "skill": (
            lambda: _api("skill")(
                N(2), str(a_file), ["greedy", "random"], games=N(10), seed=N(1), caps={"greedy": N(5)}
            ),
            "is not a directory",
        ),
        "advise": (
            lambda: _api("advise")(
                N(4), N(1), N(0), N(3), policies=["nobody"], playouts=N(2), min_playouts=N(1), first_playout=N(0)
            ),
            "unknown policy",
        ),
        "learn": lambda: _api("verify_plan")(
            _api("LearnPlan")(
                decisions=N(10), iterations=N(1), seed=N(1), hidden=N(0), epochs=N(1), rate=np.float64(0.5)
            )
        ),
    }


@pytest.mark.parametrize(
    "name",
    [
        "simulate",
        "simulate_summary",
        "simulate_to",
        "play_game",
        "sweep",
        "compare",
        "tune",
        "fairness",
        "skill",
        "advise",
        "learn",
    ],
)
def test_every_entry_point_takes_numpy_integers(name, tmp_path):
    call = _played(tmp_path)[name]
    if callable(call):
        call()
        return
    call, stopped_by = call
    with pytest.raises(SmsimError) as caught:  # an argument checked after the numpy integers
        call()
    assert stopped_by in str(caught.value), str(caught.value)


# (entry point, its other arguments, the argument, a bad value, the command line, its name for it)
REFUSED = [
    ("simulate", {}, "games", 0, ["simulate", "-n"], "--games"),
    ("simulate", {}, "games", -1, ["simulate", "-n"], "--games"),
    ("simulate", {"games": 2}, "players", 1, ["simulate", "-n", "2", "-p"], "players"),
    ("simulate", {"games": 2}, "players", 6, ["simulate", "-n", "2", "-p"], "players"),
    (
        "simulate_to",
        {"out": "{tmp}/run", "games": 2},
        "batch",
        0,
        ["simulate", "-n", "2", "-o", "{tmp}/run", "--batch"],
        "--batch",
    ),
    ("play_game", {}, "game", -1, ["play", "--game"], "game"),
    ("advise", {"players": 4, "seed": 0, "decision": 3}, "game", -1, ["advise", "-d", "3", "--game"], "game"),
    (
        "compare",
        {"policies": ["greedy", "random"], "players": 2},
        "games",
        0,
        ["compare", "greedy", "random", "-n"],
        "--games",
    ),
    (
        "compare",
        {"policies": ["greedy", "random"], "players": 2, "games": 10},
        "precision",
        2.0,
        ["compare", "greedy", "random", "-n", "10", "--precision"],
        "precision",
    ),
    ("sweep", {"vary": ["side_defence=1,2"]}, "games", 0, ["sweep", "--vary", "side_defence=1,2", "-n"], "--games"),
    ("tune", {"players": 2}, "games", 0, ["tune", "-p", "2", "-o", "{tmp}/t.toml", "-n"], "--games"),
    (
        "tune",
        {"players": 2, "games": 10},
        "budget",
        -1,
        ["tune", "-p", "2", "-o", "{tmp}/t.toml", "-n", "10", "-b"],
        "--budget",
    ),
    (
        "tune",
        {"players": 2, "games": 10},
        "held_out_games",
        0,
        ["tune", "-p", "2", "-o", "{tmp}/t.toml", "-n", "10", "--held-out-games"],
        "--held-out-games",
    ),
    ("fairness", {"players": 2}, "games", 0, ["fairness", "-p", "2", "-n"], "--games"),
    (
        "fairness",
        {"players": 2, "games": 10},
        "check_games",
        -1,
        ["fairness", "-p", "2", "-n", "10", "--check-games"],
        "--check-games",
    ),
    (
        "fairness",
        {"players": 2, "games": 10},
        "max_compensation",
        -1,
        ["fairness", "-p", "2", "-n", "10", "--max"],
        "--max",
    ),
    (
        "skill",
        {"players": 2, "out": "{tmp}/sk", "levels": ["greedy", "random"]},
        "games",
        0,
        ["skill", "-p", "2", "-o", "{tmp}/sk", "--levels", "greedy,random", "-n"],
        "--games",
    ),
    ("advise", {"players": 4, "seed": 0, "game": 0}, "decision", -1, ["advise", "-d"], "--decision"),
    (
        "advise",
        {"players": 4, "seed": 0, "game": 0, "decision": 3},
        "playouts",
        0,
        ["advise", "-d", "3", "-k"],
        "--playouts",
    ),
    (
        "advise",
        {"players": 4, "seed": 0, "game": 0, "decision": 3},
        "min_playouts",
        0,
        ["advise", "-d", "3", "--min-playouts"],
        "--min-playouts",
    ),
    # threads: 0 is not "every core" (None is), from Python as at the command line
    ("simulate", {"games": 2}, "threads", 0, ["simulate", "-n", "2", "--threads"], "--threads"),
    ("simulate_summary", {"games": 2}, "threads", -1, ["simulate", "-n", "2", "--threads"], "--threads"),
    (
        "simulate_to",
        {"out": "{tmp}/run", "games": 2},
        "threads",
        0,
        ["simulate", "-n", "2", "-o", "{tmp}/run", "--threads"],
        "--threads",
    ),
    (
        "compare",
        {"policies": ["greedy", "random"], "players": 2, "games": 10},
        "threads",
        0,
        ["compare", "greedy", "random", "-n", "10", "--threads"],
        "--threads",
    ),
    (
        "sweep",
        {"games": 2, "vary": ["side_defence=1,2"]},
        "threads",
        0,
        ["sweep", "--vary", "side_defence=1,2", "-n", "2", "--threads"],
        "--threads",
    ),
    (
        "tune",
        {"players": 2, "games": 10},
        "threads",
        0,
        ["tune", "-p", "2", "-o", "{tmp}/t.toml", "-n", "10", "--threads"],
        "--threads",
    ),
    (
        "fairness",
        {"players": 2, "games": 10},
        "threads",
        0,
        ["fairness", "-p", "2", "-n", "10", "--threads"],
        "--threads",
    ),
    (
        "skill",
        {"players": 2, "out": "{tmp}/sk", "levels": ["greedy", "random"], "games": 10},
        "threads",
        0,
        ["skill", "-p", "2", "-o", "{tmp}/sk", "--levels", "greedy,random", "-n", "10", "--threads"],
        "--threads",
    ),
]


@pytest.mark.parametrize(
    "kind, call",
    [
        ("skill", lambda out: _api("skill")(2, out, ["greedy", "random"], games=10)),
        (
            "learn",
            lambda out: __import__("smsim.studies.learn", fromlist=["learn"]).learn(
                _api("LearnPlan")(decisions=10, iterations=1), out
            ),
        ),
    ],
)
def test_a_local_only_result_is_refused_at_a_url_and_no_local_folder_is_made(kind, call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SmsimError, match="written to a local directory, not to a URL"):
        call("s3://bucket/run")
    assert not list(tmp_path.iterdir())  # not a folder named 's3:'


def _call(name, kwargs):
    if name == "learn":
        return _api("verify_plan")(_api("LearnPlan")(**kwargs))
    return _api(name)(**kwargs)


@pytest.mark.parametrize("name, given, arg, bad, argv, option", REFUSED)
def test_every_entry_point_refuses_as_the_command_line_does(name, given, arg, bad, argv, option, tmp_path, run):
    given = {k: v.replace("{tmp}", str(tmp_path)) if isinstance(v, str) else v for k, v in given.items()}
    with pytest.raises(SmsimError) as caught:
        _call(name, {**given, arg: bad})
    said = str(caught.value)
    assert said.startswith(f"{arg} must be ") and said.endswith(f", not {bad}"), said
    result = run(*(a.replace("{tmp}", str(tmp_path)) for a in argv), bad)
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"Error: {option}{said[len(arg) :]}", (result.output, said)
    for true in (True, np.bool_(True)):  # a bool is not a number of games, nor a seat, nor anything counted
        with pytest.raises(SmsimError, match=f"^{arg} must be a .*, not True$"):
            _call(name, {**given, arg: true})
    assert not list(tmp_path.iterdir())  # refused before anything was written
