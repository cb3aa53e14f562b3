"""``smsim warmup``: the engine compiled ahead of a run, and nothing done when it already is."""

import gc

import pytest

from smsim.warmup import ALL, PARTS, compiling, warmup


def test_compiling_makes_collections_rarer_and_puts_the_thresholds_back():
    before = gc.get_threshold()
    with compiling():
        assert gc.get_threshold()[0] >= 200_000
        assert gc.get_threshold()[1:] == before[1:]
        assert gc.isenabled()
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), compiling():
        raise RuntimeError("a failed compile")
    assert gc.get_threshold() == before


def test_a_second_warmup_compiles_nothing():
    """The first call compiles the play loop or loads it (from this suite's cache or from memory);
    the second finds every function it needs and says so."""
    first = warmup()
    assert [p.name for p in first] == ["play"]
    again = warmup(["play", "play"])
    assert [(p.name, p.compiled) for p in again] == [("play", False)]
    assert again[0].description == PARTS["play"] and again[0].seconds >= 0


def test_an_unknown_part_is_refused():
    with pytest.raises(ValueError, match="unknown part 'plya'"):
        warmup(["plya"])
    assert ALL == ("play", "learned", "search", "trace", "advise")


def test_the_command_says_when_everything_is_compiled_already(run):
    run("warmup")  # compiles or loads the play loop
    r = run("warmup")
    assert r.exit_code == 0, r.output
    assert "play    already compiled, loaded in" in r.output
    assert "already compiled: nothing to do" in r.output


COMPILE_ONCE = """
import json
from numba.core.event import install_recorder
from smsim.rules import Rules
from smsim.runs.batch import run_games

with install_recorder("numba:compile") as events:
    run_games(2, 4, ["balanced"], 0, Rules(), threads=1)
    run_games(2, 3, ["random", "greedy", "balanced"], 0, Rules(), threads=1)
compiled = {}
for event in events.buffer:
    d = event[1].data["dispatcher"]
    if event[1].is_start and d.py_func.__module__.startswith("smsim"):
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        compiled.setdefault(name, []).append(str(event[1].data["args"]))
print(json.dumps(compiled))
"""


@pytest.fixture(scope="module")
def first_heuristic_run(tmp_path_factory) -> dict[str, list[str]]:
    """Every smsim function a first run of heuristic line-ups compiles, on an empty cache in a
    fresh process, with the arguments of each compile (numba's compile events)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp("cache"))}
    out = subprocess.run([sys.executable, "-c", COMPILE_ONCE], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # compiles a heuristic loop in an empty cache, in a fresh process (~40 s)
def test_a_first_run_compiles_each_loop_function_once(first_heuristic_run):
    """Each compiled specialisation of a loop function costs a share of the first compile (a
    second or more for the larger ones): a constant passed as a literal, or a type that differs
    between call sites, compiles the function again. A first run of the heuristics, on an empty
    cache, compiles every function of smsim once."""
    compiled = first_heuristic_run
    assert "smsim.play.loop.play_games_nb" in compiled and "smsim.play.loop.person_nb" in compiled
    assert {name: sigs for name, sigs in compiled.items() if len(sigs) > 1} == {}


@pytest.mark.slow  # the same empty-cache compile
def test_a_heuristic_line_up_compiles_no_learned_policy_and_no_search(first_heuristic_run):
    """The learned policy and the search compile the first time a line-up plays them, not in a
    heuristic line-up's loop: none of their functions is compiled, and no compiled signature
    carries the mark of either (smsim/_cache.py, PARTS)."""
    from smsim._cache import PARTS

    compiled = first_heuristic_run
    theirs = [
        name
        for name in compiled
        if name.startswith(("smsim.policies.learned.", "smsim.play.search.", "smsim.play.labels."))
    ]
    assert theirs == []
    marked = [name for name, sigs in compiled.items() for marker, _ in PARTS.values() for sig in sigs if marker in sig]
    assert marked == []


@pytest.mark.slow  # the same empty-cache compile
def test_a_line_up_with_no_study_compiles_no_probe(first_heuristic_run):
    """What a study observes goes through the loop's probe (``play.loop``, ``PROBE_HOOKS``): a
    run with none compiles none of any probe kind's functions (the keep oracle, the round
    snapshots, the luck of the dice and the plays the luck makes)."""
    from smsim.play.loop import PROBE_HOOKS

    hooks = {f"smsim.play.loop.{fn.py_func.__name__}" for kind in PROBE_HOOKS.values() for fn in kind.values()}
    assert len(hooks) >= 10
    luck_plays = {"smsim.play.loop.value_nb", "smsim.play.loop.play_on_nb", "smsim.play.loop.continue_rounds_nb"}
    assert sorted(set(first_heuristic_run) & (hooks | luck_plays)) == []
