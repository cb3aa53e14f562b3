"""The hot loop's memory rules (smsim/engine/memory.py): no reference counting inside the loop,
borrowed views that share their owner's data."""

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit
from numba.core.dispatcher import Dispatcher
from numba.core.errors import NumbaError

from smsim.engine import actions, city, dice, events, game, memory, pirates, scoring
from smsim.play import labels, search
from smsim.play import loop as play
from smsim.policies import features, heuristics, learned

HOT_MODULES = (actions, city, dice, events, game, pirates, scoring, features, heuristics, learned, play, search, labels)
# the functions that allocate or are entered from Python with NRT, each outside the per-turn loop:
# traced games, the per-game scoring scratch, the candidate evaluation of advise and of
# scripts/search_quality.py, the labels of smsim learn, and the bench's dice-only kernel (the batch
# loop, play_games_nb, and these run on work buffers their Python caller allocates: play.new_work)
ALLOCATING = {
    "play_one_nb",
    "play_one_search_nb",
    "evaluate_nb",
    "search_captured_nb",
    "score_game_nb",
    "dice_floor_nb",
    "label_decision_nb",
}


def jitted_functions():
    for module in HOT_MODULES:
        for name, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == module.__name__:
                yield module.__name__, name, obj


def test_every_loop_function_is_compiled_without_reference_counting():
    """A loop function decorated with plain njit would bring numba's reference counting back
    into the loop wherever it is first compiled for an NRT caller (memory.py)."""
    found = list(jitted_functions())
    assert len(found) > 40
    for module, name, fn in found:
        if name in ALLOCATING:
            assert fn.targetoptions.get("_nrt", True) is not False, f"{module}.{name} allocates"
        else:
            assert fn.targetoptions.get("_nrt") is False, f"{module}.{name} is not hot_njit"


def test_a_hot_function_cannot_allocate():
    @memory.hot_njit
    def allocates(n):
        return np.zeros(n).sum()

    with pytest.raises(NumbaError, match=r"NRT required|Only accept returning"):
        allocates(3)


def test_a_borrowed_view_shares_its_owners_data():
    @njit
    def write_through(a):
        view = memory.borrow_nb(a)
        view[1, 2] = 7
        return view.shape[0] * 10 + view.shape[1], view[0, 0]

    owner = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert write_through(owner) == (34, 0)
    assert owner[1, 2] == 7


# A module of loop functions outside the package, compiled in fresh processes on one cache folder
LINKED_MODULE = """
from smsim.engine.memory import hot_njit, loop_njit

@loop_njit
def twice_nb(x):
    return 2 * x

@loop_njit
def twice_plus_one_nb(x):
    return twice_nb(x) + 1

@hot_njit
def first_caller_nb(x):
    return twice_plus_one_nb(x) * 10

@hot_njit
def second_caller_nb(x):
    return twice_plus_one_nb(x) * 100
"""
LINKED_RUN = """
import sys
from numba.core.codegen import JITCodeLibrary
from smsim.engine.memory import LinkOnlyLibrary
made = []  # the libraries made machine code
finalize = JITCodeLibrary._finalize_specific
def counted(self):
    made.append(self.name)
    finalize(self)
JITCodeLibrary._finalize_specific = counted
import linked
caller = getattr(linked, sys.argv[1])
print(caller(20))
for fn in (linked.twice_nb, linked.twice_plus_one_nb):
    if not fn.overloads:
        print(fn.__name__, "not loaded")
        continue
    (library,) = [res.library for res in fn.overloads.values()]
    print(fn.__name__, type(library).__name__, library._pending, sum(fn.stats.cache_hits.values()))
print(sorted(made))
"""


def test_a_loop_function_is_linked_into_its_caller_never_made_machine_code_and_cached_as_its_ir(tmp_path):
    """A loop function (``loop_njit``) is compiled to IR that its callers link in
    (``LinkOnlyLibrary``): only the caller that Python calls is made machine code. Its cache entry
    is that IR: a later process compiling another caller loads it and links it in."""
    (tmp_path / "linked.py").write_text(LINKED_MODULE)
    (tmp_path / "run.py").write_text(LINKED_RUN)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run(caller: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, str(tmp_path / "run.py"), caller], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    first = run("first_caller_nb")
    assert first[:3] == ["410", "twice_nb LinkOnlyLibrary True 0", "twice_plus_one_nb LinkOnlyLibrary True 0"]
    made = eval(first[3])  # the names of the libraries made machine code (numba's runtime's too)
    assert "first_caller_nb" in made and not any("twice" in name for name in made)
    second = run("second_caller_nb")  # compiled now, on the loop functions' IR from the cache
    # twice_plus_one_nb's IR holds twice_nb's: the callee of a callee is not even loaded
    assert second[:3] == ["4100", "twice_nb not loaded", "twice_plus_one_nb LinkOnlyLibrary True 1"]
    made = eval(second[3])
    assert "second_caller_nb" in made and not any("twice" in name or "first" in name for name in made)


def test_an_index_entry_naming_a_class_this_process_cannot_import_is_passed_over_and_kept(tmp_path, monkeypatch):
    """A loop compiled with a probe kind of a script or test module lands in the same index as the
    package's own signatures: a process without that module on its path still reads the others,
    saves beside them, and writes the foreign entry back for the processes that have it."""
    import pickle
    import textwrap

    from numba import types

    (tmp_path / "kinds").mkdir()
    (tmp_path / "kinds" / "absent_probe_kind.py").write_text(
        textwrap.dedent("""
            from collections import namedtuple
            Kind = namedtuple("Kind", "a b")
        """)
    )
    monkeypatch.syspath_prepend(str(tmp_path / "kinds"))
    import absent_probe_kind

    foreign = (types.NamedUniTuple(types.int64, 2, absent_probe_kind.Kind),)
    index = memory.IndexFile(str(tmp_path / "cache"), "f-1.py311", "stamp")
    os.makedirs(tmp_path / "cache")
    index.save((foreign, "cpu"), b"foreign code")
    index.save(((types.int64,), "cpu"), b"own code")
    module = sys.modules.pop("absent_probe_kind")  # as in a process where it is not on the path
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path / "kinds")])
    here = memory.IndexFile(str(tmp_path / "cache"), "f-1.py311", "stamp")
    assert here.load(((types.int64,), "cpu")) == b"own code"
    assert not here.unreadable
    keys = list(here._load_index())
    assert len(keys) == 2 and any(isinstance(k[0][0].instance_class, memory.Absent) for k in keys)
    here.save(((types.float64,), "cpu"), b"new code")  # saved beside both
    sys.modules["absent_probe_kind"] = module  # back where it can be imported: its entry is its own again
    back = memory.IndexFile(str(tmp_path / "cache"), "f-1.py311", "stamp")
    assert back.load((foreign, "cpu")) == b"foreign code"
    assert back.load(((types.float64,), "cpu")) == b"new code"
    assert len({back._load_index()[k] for k in back._load_index()}) == 3  # three data files, none overwritten
    # an index unreadable otherwise is a miss, and nothing is saved beside it
    with open(back._index_path, "r+b") as f:
        pickle.load(f)
        f.truncate(f.tell() + 5)
    broken = memory.IndexFile(str(tmp_path / "cache"), "f-1.py311", "stamp")
    assert broken.load(((types.int64,), "cpu")) is None and broken.unreadable
    size = os.path.getsize(broken._index_path)
    broken.save(((types.int32,), "cpu"), b"x")
    assert os.path.getsize(broken._index_path) == size
