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
    assert ALL == ("play", "search", "trace", "advise")


def test_the_command_says_when_everything_is_compiled_already(run):
    run("warmup")  # compiles or loads the play loop
    r = run("warmup")
    assert r.exit_code == 0, r.output
    assert "play    already compiled, loaded in" in r.output
    assert "already compiled: nothing to do" in r.output


COMPILE_ONCE = """
import gc, json
from numba.core.registry import CPUDispatcher
from smsim.rules import Rules
from smsim.runs.batch import run_games

run_games(2, 4, ["balanced"], 0, Rules(), threads=1)
run_games(2, 3, ["random", "greedy", "balanced"], 0, Rules(), threads=1)
compiled = {f"{d.py_func.__module__}.{d.py_func.__qualname__}": [str(s) for s in d.signatures]
            for d in gc.get_objects() if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("smsim")}
print(json.dumps(compiled))
"""


def test_a_first_run_compiles_each_loop_function_once(tmp_path):
    """Each compiled specialisation of a loop function costs a share of the first compile (a
    second or more for the larger ones): a constant passed as a literal, or a type that differs
    between call sites, compiles the function again. A first run of the heuristics, on an empty
    cache, compiles every function of smsim once."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", COMPILE_ONCE], env=env, capture_output=True, text=True, check=True)
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    assert "smsim.play.loop.play_games_nb" in compiled and "smsim.play.loop.person_nb" in compiled
    assert {name: sigs for name, sigs in compiled.items() if len(sigs) > 1} == {}
