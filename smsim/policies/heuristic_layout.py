"""The built-in heuristic's two record layouts, declared once: its weights (``params``,
float64[N_PARAMS], one ``P_*`` constant per weight) and its per-turn memo (``w.memo``,
float64, ``M_*``). The constants are generated from the declarations (``layout.Record``).
"""

from collections import namedtuple
from math import comb

import numpy as np

from smsim import layout as L

# -- the weights: params[P_*], float64[N_PARAMS] -------------------------------------------------
PARAMS = L.Record(
    "heuristic weights",
    "P_",
    "N_HEURISTIC_PARAMS",
    (
        ("coin", 1, "value of a coin held"),
        ("log", 1, "value of a log held"),
        ("crate", 1, "value of a crate placed"),
        ("crate_cluster", 1, "extra per crate already adjacent to a new crate (future merchants)"),
        ("wall", 1, "value of a wall on an intact side"),
        ("wall_progress", 1, "extra per wall, times the fraction of its side then walled"),
        ("defence", 1, "flat value of a defence point"),
        ("pirate_next", 1, "weight on the cannon penalty a defence gain saves at the next attack"),
        ("pirate_later", 1, "weight on the cannon penalty it saves at later attacks"),
        ("church_potential", 1, "weight on church series potential gained"),
        ("church_cluster", 1, "placing a church next to churches (one priest can bless several)"),
        ("person_cluster", 1, "placing a person next to other person types (future jugglers)"),
        ("merchant_spot", 1, "keeping crate-rich cells free of non-merchants"),
        ("outer_break", 1, "cost of destroying an intact side with a non-wall (grows with its walls)"),
        ("fill", 1, "tempo value of a space filled"),
        ("finish", 1, "weight on the estimated lead when a move would end the game"),
        ("keep_margin", 1, "roll again only when the expected gain exceeds this"),
        ("lookahead", 1, "0: keep the best symbol now and always roll the rest; 1: expected-value keeps"),
        ("bonus_person", 1, "value of a wall bonus person (its own effect is added when placed)"),
        ("church", 1, "multiplier on the church series VP a church adds (1: face value; 0 reads as 1)"),
        ("exact_keep", 1, "1: keep decisions solved exactly for the turn's values of the uses (exact_keep.py)"),
        ("noise", 1, "share of decisions (0..1) picked uniformly at random among the legal ones (weaker rungs)"),
        ("forgo", 1, "parts of the game never played, a mask of layout.FORGO_PARTS (0: none; POLICY-without-PART)"),
        ("spare", 1, "room for more weights without changing the kernels' signatures"),
    ),
)
PARAMS.export(globals())
# A seat's params vector is this wide, whatever its policy: the heuristic's weights above, a
# rollout's knobs (policies/rollout.py) or a learned model (policies/learned.py) all fit in it, so
# the kernels' signatures never change with the policy.
N_PARAMS = 2560
# The mark of a line-up where some seat forgoes parts of the game (``registry.line_up_marks``):
# the loop compiled with it filters those seats' moves (``play.loop.forgo_nb``); with None, nothing.
ForgoMark = namedtuple("ForgoMark", ["parts"])
FORGO = ForgoMark(np.int64(L.FORGO_ALL))
PARAM_NAMES = PARAMS.columns()[: PARAMS.offset("spare")]
NEG = -1e9

K_SPAN = L.N_DICE + 1  # memo tables by dice count: entries for k = 0 .. N_DICE
# the multisets of 0..5 dice over the six faces, the nodes of the exact keep (exact_keep.py)
N_KEEP_NODES = comb(L.N_DICE + L.N_FACES, L.N_FACES)
USE_TABLE_SHAPE = (L.N_SYMBOLS,) + (K_SPAN,) * 2  # symbol, dice showing it, dice it may rotate
USE_TABLE_SIZE = L.N_SYMBOLS * K_SPAN * K_SPAN

# -- memo: w.memo, float64, valid for one turn of one seat (key: ctx[CTX_TURN]) -------------------
MEMO = L.Record(
    "heuristic memo",
    "M_",
    "M_END",
    (
        ("key", 1, "ctx[CTX_TURN] of the turn the table was filled for; -1: none yet this game"),
        ("largest", 1, "largest empty group, up to 5"),
        ("best_n", 1, "houses the best architect cell allows"),
        ("best_crate_near", 1, "crates next to the best merchant cell"),
        ("exact", L.N_SYMBOLS * K_SPAN, "value of using exactly k dice of symbol S (k = 0..5), heads: best person"),
        ("person", L.N_PERSONS, "value of each person (best cell)"),
        ("best", L.N_SYMBOLS * K_SPAN, "best value with n dice showing symbol S (fewer used, rotations allowed)"),
        ("walls", K_SPAN, "value of k = 1..5 walls (walls_values_nb)"),
        ("lead", 1, "the seat's estimated lead over the best other seat"),
        ("series", 1, "series_value_nb of the seat's churches as they stand (potential included)"),
        ("bonus_person", L.N_PERSONS, "each person's best cell when a wall bonus person is chosen (city as then)"),
        ("keep_key", 1, "ctx[CTX_TURN] of the turn the exact keep's layers were filled for; -1: none yet"),
        ("keep_last", N_KEEP_NODES, "exact keep: each multiset's value kept with one roll left"),
        ("keep_two", N_KEEP_NODES, "exact keep: each multiset's value kept with two rolls left"),
        ("keep_values", L.N_KEEP_MASKS, "exact keep: the expected value of each reroll mask at this decision"),
        ("use_table", USE_TABLE_SIZE, "exact keep: best use by symbol, dice showing it and dice it may rotate"),
    ),
)
MEMO.export(globals())
