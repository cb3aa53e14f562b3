"""The hot loop's memory rules (smsim/engine/memory.py): no reference counting inside the loop,
borrowed views that share their owner's data."""

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
