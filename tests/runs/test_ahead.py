"""A first compile on two cores (smsim/runs/ahead.py): the helper compiles what it is handed, a
stale record costs nothing, and this process waits only where the helper was given its signature."""

import os
import pickle
import subprocess
import sys
import textwrap

import pytest
from numba import types

from smsim.runs import ahead


def test_the_helper_compiles_its_plan_in_order_and_passes_over_what_it_cannot():
    """A signature the code no longer takes (a record from before an edit) or a name it does not
    hand over is passed over, not fatal: the helper still says it is done with it."""
    plan = [
        ("smsim.engine.game.finish_game_nb", (types.int64,)),  # finish_game_nb takes nine arguments
        ("smsim.nowhere.gone_nb", (types.int64,)),
    ]
    out = subprocess.run(
        [sys.executable, "-m", "smsim.runs.ahead"], input=pickle.dumps(plan), capture_output=True, check=True
    )
    assert out.stdout.split() == [b"0", b"1"]


class Recorder:
    def __init__(self):
        self.waited = []

    def wait_for(self, i):
        self.waited.append(i)


class Dispatcher:
    def compile(self, sig):
        return ("compiled here", sig)


def test_this_process_waits_only_at_a_function_and_signature_the_helper_was_given():
    helper, d = Recorder(), Dispatcher()
    wanted = {("m.f", (types.int64,)): 3}
    compile = ahead._waiting(d, "m.f", wanted, helper)
    assert compile((types.int64,)) == ("compiled here", (types.int64,))
    assert helper.waited == [3]
    assert compile((types.float64,)) == ("compiled here", (types.float64,))  # not handed: compiled at once
    assert helper.waited == [3]


def test_handed_functions_are_the_loops_and_off_by_the_variable(monkeypatch):
    from smsim.play import loop

    assert all(name.startswith("smsim.") and name.endswith("_nb") for name in ahead.BY_NAME)
    assert loop.person_nb in ahead.HANDED
    monkeypatch.setenv("SMSIM_COMPILE_AHEAD", "0")
    assert not ahead._enabled()


CHECK = textwrap.dedent("""
    import sys
    from numba.core import event
    from smsim.rules import Rules
    from smsim.runs import ahead
    from smsim.runs.batch import run_games
    compiled = []
    class Listener(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__name__)
        def on_end(self, ev):
            pass
    with event.install_listener("numba:compile", Listener()):
        score, player, game_out = run_games(6, 4, ["balanced", "greedy", "walls", "random"], 1, Rules(), threads=1)
    handed = [d.__name__ for d in ahead.HANDED]
    print(sum(h in compiled for h in handed), len(compiled), int(score.sum()), int(game_out.sum()))
""")


@pytest.mark.slow
def test_a_compile_with_the_record_leaves_the_handed_functions_to_the_helper(tmp_path):
    """Two first compiles in one cache folder, the engine's cache removed between them as an edit
    would: the first compiles everything here and remembers; the second compiles none of the
    handed functions here, and plays the same games."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SMSIM_COMPILE_AHEAD")}
    env["SMSIM_CACHE_DIR"] = str(tmp_path)

    def first_compile():
        out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True)
        for engine_cache in tmp_path.iterdir():  # the engine's cache, named after its sources' hash
            if engine_cache.is_dir():
                subprocess.run(["rm", "-rf", str(engine_cache)], check=True)
        return [int(x) for x in out.stdout.split()]

    alone, record = first_compile(), list(tmp_path.glob("ahead-*.pkl"))
    assert len(record) == 1 and alone[0] == len(ahead.HANDED)
    helped = first_compile()
    assert helped[0] == 0 and helped[1] < alone[1]  # none of them compiled here, fewer functions in all
    assert helped[2:] == alone[2:]  # the same games
