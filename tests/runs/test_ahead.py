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
    assert loop.ask_end_nb in ahead.HANDED and loop.person_nb not in ahead.HANDED  # a person asks the policy
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


def test_this_machines_record_goes_over_the_shipped_one(tmp_path, monkeypatch):
    import pickle

    monkeypatch.setattr(ahead, "SHIPPED", tmp_path / "shipped")
    monkeypatch.setattr(ahead, "_record_path", lambda: tmp_path / "mine.pkl")
    assert ahead._read_record() == {}  # neither: the compile runs alone
    (tmp_path / "shipped").mkdir()
    (tmp_path / "shipped" / ahead.record_name()).write_bytes(pickle.dumps({"a": ["shipped"], "b": ["shipped"]}))
    (tmp_path / "mine.pkl").write_bytes(pickle.dumps({"b": ["mine"]}))
    assert ahead._read_record() == {"a": ["shipped"], "b": ["mine"]}
    (tmp_path / "mine.pkl").write_bytes(b"not a pickle")  # unreadable: as if absent
    assert ahead._read_record() == {"a": ["shipped"], "b": ["shipped"]}


@pytest.mark.slow
def test_the_shipped_record_hands_the_functions_over_and_the_games_are_the_same(tmp_path):
    """A machine's first compile (an empty cache) of the heuristic loop, with the record the
    package ships for this numba: none of the handed functions is compiled in this process, fewer
    functions in all than a compile alone, and the same games. Fails when the shipped record is
    stale (after a change to the loop's signatures): run scripts/ahead_record.py."""
    if not (ahead.SHIPPED / ahead.record_name()).is_file():
        pytest.skip(f"no record shipped for this numba and Python ({ahead.record_name()})")

    def first_compile(mode: str, cache: str):
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SMSIM_COMPILE_AHEAD")}
        env["SMSIM_CACHE_DIR"], env["SMSIM_COMPILE_AHEAD"] = str(tmp_path / cache), mode
        out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True)
        return [int(x) for x in out.stdout.split()]

    helped, alone = first_compile("1", "helped"), first_compile("0", "alone")
    assert helped[0] == 0 and alone[0] == len(ahead.HANDED) and helped[1] < alone[1]
    assert helped[2:] == alone[2:]  # the same games
