"""The learned policy's layout, apart from its jitted code (``policies/learned.py``): the
features of a USE and a PLACE candidate, the model's vector, the policy's scratch, and its mark
and entry in the play loop (``learned_nb``). The loop, the model file and ``smsim learn`` read
it without holding the policy's code, which a line-up compiles only when one of its seats plays it.
"""

from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from smsim import layout as L
from smsim.engine.memory import OVERLOAD_OPTIONS
from smsim.policies import heuristic_layout as HL
from smsim.policies.heuristics import heuristic_choice_nb

# The features of a USE candidate (a symbol used with k dice, some rotated; heads: a person).
# Crossed with the symbol: end = how near the game's end is (1 - the fewest empty spaces of any
# seat / 45); fill = the seat's own city filled; threat = the pirates' next attack near and the
# seat's defence below its strength (0 .. 1).
_SYMBOLS = ("log", "crate", "wall", "cross", "head")
USE_FEATURES = L.Record(
    "USE features",
    "UF_",
    "N_USE_FEATURES",
    (
        ("value", 1, "the base heuristic's value of the move (VP)"),
        ("best", 1, "1 where the move is the base heuristic's best"),
        ("k", 1, "dice used / 5"),
        ("rotated", 1, "dice turned (a coin each)"),
        ("symbol", 5, "the symbol used: log, crate, wall, cross, head (a pass: none)"),
        ("symbol_end", 5, "the symbol, times how near the game's end is"),
        ("symbol_fill", 5, "the symbol, times the share of the seat's city filled"),
        ("symbol_threat", 5, "the symbol, times the pirates' threat to the seat"),
        ("symbol_k", 5, "the symbol, times dice used / 5"),
        ("person", L.N_PERSONS, "heads: the person bought"),
        ("person_end", L.N_PERSONS, "heads: the person, times how near the game's end is"),
        ("ends", 1, "1 where the move fills the seat's city (the game ends after the round)"),
        ("ends_lead", 1, "the move fills the city, times the seat's estimated lead / 10"),
        ("completes_side", 1, "walls: 1 where they complete an intact side"),
        ("series_gain", 1, "a cross: the church series VP the church adds now"),
        ("log_stock", 1, "logs: the logs held / 5"),
        ("coins_spent", 1, "coins the move spends (turns, a delivery) / 5"),
        ("value_symbol", 5, "the heuristic's value, times the symbol (its scale, symbol by symbol)"),
        ("church_size", L.N_CHURCH_SIZES, "a cross: the size of the church built"),
        ("church_new_layer", 1, "a cross: the seat already has a church of that size (it starts a new series layer)"),
        ("church_potential", 1, "a cross: the series VP its gaps could still add, gained by it"),
        ("person_rotated", L.N_PERSONS, "heads: the person, where dice were turned to buy it"),
        ("person_fill", L.N_PERSONS, "heads: the person, times the share of the seat's city filled"),
        ("symbol_spare", 5, "the symbol, times the dice showing it that the move leaves unused / 5"),
    ),
)
USE_FEATURES.export(globals())

# The features of a PLACE candidate (an empty cell for a crate, wall, church, person or house):
# what stands around the cell, crossed with what is placed.
_PLACED = ("crate", "church", "person", "house")
_AROUND = ("outer", "side_walls", "crates", "churches", "persons", "empty", "houses")
PLACE_FEATURES = L.Record(
    "PLACE features",
    "PF_",
    "N_PLACE_FEATURES",
    (
        ("value", 1, "the base heuristic's value of the cell (VP)"),
        ("best", 1, "1 where the cell is the base heuristic's best"),
        (
            "around",
            len(_PLACED) * len(_AROUND),
            "crate, church, person, house, each times: the cell on an intact side, that side's walls / 5, "
            "and crates, churches, person types, empty spaces, houses among its 8 neighbours / 8",
        ),
        ("wall_side", 1, "a wall: its side's walls / 5"),
        ("wall_completes", 1, "a wall: 1 where it completes the side"),
        ("wall_corner", 1, "a wall: 1 where the cell is next to a tower"),
        ("outer_end", 1, "not a wall: the cell on an intact side, times how near the game's end is"),
        ("outer_threat", 1, "not a wall: the cell on an intact side, times the pirates' threat"),
        ("inner_empty", 1, "empty inner spaces among its 8 neighbours / 8 (room kept or used)"),
        ("value_placed", 5, "the heuristic's value, times what is placed: crate, church, person, house, wall"),
        ("wall_bonus", len(L.BonusKind), "a wall: the kind of bonus its side gives (none, person, coins, VP)"),
        ("wall_completes_now", 1, "a wall: its side needs no more walls than this action still places"),
        ("wall_need", 1, "a wall: the empty spaces of its side / 5"),
        ("person_outer", L.N_PERSONS, "a person: which, where the cell is on an intact side"),
        ("person_empty", L.N_PERSONS, "a person: which, times the empty spaces among its 8 neighbours / 8"),
    ),
)
PLACE_FEATURES.export(globals())
MAX_FEATURES = max(N_USE_FEATURES, N_PLACE_FEATURES)  # noqa: F821  (exported above)

# The model's vector: float64[N_PARAMS] in a seat's params. Per decision kind, a linear score of
# the features plus a layer of ``hidden`` rectified units (0: linear alone), each unit a row of
# weights over the features, a bias and its weight in the score.
MAX_HIDDEN = 16
MODEL = L.Record(
    "learned model",
    "LM_",
    "N_MODEL",
    (
        ("base", HL.N_HEURISTIC_PARAMS, "the base heuristic's weights (policies/heuristic_layout.py)"),
        ("use_candidates", 1, "USE: most moves scored, the base heuristic's best"),
        ("place_candidates", 1, "PLACE: most cells scored, the base heuristic's best"),
        ("place_gap", 1, "PLACE: leave out cells the base heuristic values this many VP below its best (0: none)"),
        ("hidden", 1, "rectified units per decision kind (0: a linear model)"),
        ("use", N_USE_FEATURES, "the USE features' coefficients"),  # noqa: F821
        ("place", N_PLACE_FEATURES, "the PLACE features' coefficients"),  # noqa: F821
        (
            "use_units",
            MAX_HIDDEN * (N_USE_FEATURES + 2),  # noqa: F821
            "USE units: per feature the units' weights, then their biases, then their weights in the score",
        ),
        ("place_units", MAX_HIDDEN * (N_PLACE_FEATURES + 2), "PLACE units, likewise"),  # noqa: F821
    ),
)
MODEL.export(globals())
assert MODEL.size <= HL.N_PARAMS

# The policy's scratch beyond the heuristic's memo (w.memo): one candidate's features.
LEARNED_MEMO = L.Record(
    "learned memo",
    "LMM_",
    "LEARNED_MEMO_END",
    (
        ("heuristic", HL.M_END, "the base heuristic's memo"),
        ("features", MAX_FEATURES, "the features of the candidate being scored"),
        ("base_values", L.MAX_CANDS, "the base heuristic's values of the candidates"),
        ("kept", L.MAX_CANDS, "1.0 where the candidate is scored by the model"),
        ("units", MAX_HIDDEN, "the rectified units' sums for the candidate being scored"),
    ),
)
LEARNED_MEMO.export(globals())

# The learned policy's mark in the play loop (``play.loop.Seats``, ``marks.learned``): a line-up with a
# learned seat passes ``LEARNED``, any other None, and the loop compiled for None holds none of this
# module's code (a heuristic line-up's first run compiles no features and no model). Its type,
# not its value, is what counts; it carries the model vector's size for the reader.
LearnedMark = namedtuple("LearnedMark", ["model_size"])
LEARNED = LearnedMark(np.int64(MODEL.size))


def learned_nb(model, s, w, rules, mark, exact):
    """The learned policy's pick of seat s in the play loop, resolved by the type of ``mark`` when
    the loop is compiled: with ``LEARNED``, the policy itself (``policies/learned.py`` registers
    it); with None, the model's base heuristic (no seat of the line-up is learned: the branch is
    never taken). ``exact``: the line-up's mark for exact keeps (``heuristics.heuristic_keep_nb``)."""
    raise NotImplementedError("compiled code only")


# Inlined by numba (a line): never a function of its own, so never cached apart from the loop
# function that calls it, whose key says whether it holds the policy (smsim/_cache.py, PARTS).
@overload(learned_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _no_learned_seat(model, s, w, rules, mark, exact):
    if isinstance(mark, types.NoneType):
        # Never reached (a learned seat always brings its mark): the base heuristic's pick, not
        # -1, because a second call site of the heuristic keeps LLVM from inlining its keep and
        # pick into each of the loop's six copies of choose_nb; with one, random games ran 18%
        # slower (2.31 -> 2.75 s for 60,000 four-player games on one thread, same games).
        return lambda model, s, w, rules, mark, exact: heuristic_choice_nb(model, s, w, rules, exact)
    return None
