"""The learned policy: a model fitted to ``rollout``'s values of moves (``smsim learn``), run
inside the jitted play loop at heuristic speed.

At a USE or PLACE decision it does what a ``rollout`` seat does before it searches: its base
heuristic (the weights at the start of its vector) values every legal move, and the moves it
would weigh are kept (the ``use_candidates`` best at a USE, the ``place_candidates`` best at a
PLACE, none more than ``place_gap`` VP below the heuristic's pick). Instead of playing
continuations it scores each of those moves with a linear model of the move's features
(``USE_FEATURES``, ``PLACE_FEATURES``: the heuristic's value among them, the rest what the
heuristic cannot weigh: how near the game's end is, the pirates' threat, the seat's standing,
the neighbourhood of a cell, each crossed with the kind of move) and picks the best score. Every
other decision (KEEP, the houses, wall bonuses) is the base heuristic's. The model is fitted to
the search's mean outcome of each move (win share plus a tenth of the VP margin), so its score
is in those units.

A model's vector sits in the seat's ``params`` (``MODEL``: float64[N_PARAMS]); the features are
computed here, in numba, with no Python call per decision. A model file (``policies/model.py``)
names the features it was fitted on, so a file from another feature list is refused.
"""

import numpy as np
from numba import types
from numba.extending import overload

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import ZERO, church_mask_nb, defence_nb, popcount_nb
from smsim.engine.memory import OVERLOAD_OPTIONS, hot_njit
from smsim.policies import heuristic_layout as HL
from smsim.policies import learned_layout as LL
from smsim.policies.features import (
    church_counts_nb,
    lead_nb,
    series_value_nb,
    side_bonus_kind_nb,
    side_intact_nb,
    side_walls_nb,
)
from smsim.policies.heuristics import heuristic_keep_nb, heuristic_pick_nb, heuristic_values_nb, pick_best_nb

# the policy's features, model vector, scratch and mark (policies/learned_layout.py), as the
# constants its jitted code reads
for _record in (LL.USE_FEATURES, LL.PLACE_FEATURES, LL.MODEL, LL.LEARNED_MEMO):
    _record.export(globals())
del _record
USE_FEATURES, PLACE_FEATURES, MODEL, LEARNED_MEMO = LL.USE_FEATURES, LL.PLACE_FEATURES, LL.MODEL, LL.LEARNED_MEMO
MAX_FEATURES, MAX_HIDDEN = LL.MAX_FEATURES, LL.MAX_HIDDEN

# the spaces next to a tower (the ends of each side)
TOWER_NEIGHBOURS = np.uint64(np.bitwise_or.reduce(L.NEIGH8_MASK[list(L.CORNERS)]))


@hot_njit(inline="always")
def end_near_nb(player):
    """How near the game's end is: 1 - the fewest empty spaces of any seat / N_SPACES."""
    fewest = L.N_SPACES
    for p in range(player.shape[0]):
        fewest = min(fewest, player[p, L.N_EMPTY])
    return 1.0 - fewest / L.N_SPACES


@hot_njit
def threat_nb(player, pirates, s, rules):
    """The pirates' threat to seat s: how full the next attack's row is (0 .. 1) where the seat's
    defence is below that attack's strength, else 0."""
    row = pirates[L.PIRATE_ATTACKS]
    if row >= rules[R.R_N_PIRATE_ROWS]:
        return 0.0
    if defence_nb(player, s, rules) >= rules[R.R_PIRATE_STRENGTHS + row]:
        return 0.0
    row_len = rules[R.R_PIRATE_BOXES_PER_PLAYER] * player.shape[0]
    boxes_left = row_len * (row + 1) - pirates[L.PIRATE_BOXES]
    return min(max(1.0 - (boxes_left - 1) / row_len, 0.0), 1.0)


@hot_njit
def use_features_nb(cands, row, dice, occ, player, pirates, s, rules, values, best, end, threat, lead, out, at):
    """out[at + UF_*] <- the USE features of candidate ``row`` with ``dice`` in hand (``values``:
    the heuristic's values of the rows, ``best`` its best value)."""
    for f in range(N_USE_FEATURES):  # noqa: F821
        out[at + f] = 0.0
    symbol = cands[row, L.C_SYMBOL]
    k = cands[row, L.C_K]
    rotated = cands[row, L.C_ROTATED]
    v = max(values[row], -50.0)
    out[at + UF_VALUE] = v  # noqa: F821
    out[at + UF_BEST] = 1.0 if values[row] >= best - 1e-9 else 0.0  # noqa: F821
    out[at + UF_K] = k / 5.0  # noqa: F821
    out[at + UF_ROTATED] = rotated  # noqa: F821
    spent = rotated * rules[R.R_ROTATION_COST]
    if symbol == L.NO_SYMBOL:
        out[at + UF_COINS_SPENT] = spent / 5.0  # noqa: F821
        return
    n_empty = player[s, L.N_EMPTY]
    fill = 1.0 - n_empty / L.N_SPACES
    out[at + UF_SYMBOL + symbol] = 1.0  # noqa: F821
    out[at + UF_SYMBOL_END + symbol] = end  # noqa: F821
    out[at + UF_SYMBOL_FILL + symbol] = fill  # noqa: F821
    out[at + UF_SYMBOL_THREAT + symbol] = threat  # noqa: F821
    out[at + UF_SYMBOL_K + symbol] = k / 5.0  # noqa: F821
    out[at + UF_VALUE_SYMBOL + symbol] = v  # noqa: F821
    showing = 0
    for d in range(L.N_DICE):
        showing += dice[d] == symbol
    out[at + UF_SYMBOL_SPARE + symbol] = max(showing - (k - rotated), 0) / 5.0  # noqa: F821
    filled = 0
    if symbol == L.FACE_HEAD:
        person = cands[row, L.C_PERSON]
        out[at + UF_PERSON + person] = 1.0  # noqa: F821
        out[at + UF_PERSON_END + person] = end  # noqa: F821
        out[at + UF_PERSON_FILL + person] = fill  # noqa: F821
        if rotated > 0:
            out[at + UF_PERSON_ROTATED + person] = 1.0  # noqa: F821
        filled = 1
    elif symbol == L.FACE_CRATE or symbol == L.FACE_WALL:
        filled = k
    elif symbol == L.FACE_CROSS:
        filled = 1
        counts = church_counts_nb(occ, s)
        gain = series_value_nb(counts, rules, np.int64(k), 0.0) - series_value_nb(counts, rules, np.int64(0), 0.0)
        out[at + UF_SERIES_GAIN] = gain  # noqa: F821
        out[at + UF_CHURCH_SIZE + k - 1] = 1.0  # noqa: F821
        if counts[k - 1] > 0:
            out[at + UF_CHURCH_NEW_LAYER] = 1.0  # noqa: F821
        out[at + UF_CHURCH_POTENTIAL] = (  # noqa: F821
            series_value_nb(counts, rules, np.int64(k), 1.0) - series_value_nb(counts, rules, np.int64(0), 1.0) - gain
        )
    else:  # logs
        spent += rules[R.R_LOG_DELIVERY_COST]
        out[at + UF_LOG_STOCK] = player[s, L.LOGS] / 5.0  # noqa: F821
    if symbol == L.FACE_WALL:
        for side in range(L.N_SIDES):
            if side_intact_nb(player, s, side) and popcount_nb(occ[s, L.CELL_EMPTY] & L.SIDE_MASK[side]) <= k:
                out[at + UF_COMPLETES_SIDE] = 1.0  # noqa: F821
    if filled > 0 and filled >= n_empty:
        out[at + UF_ENDS] = 1.0  # noqa: F821
        out[at + UF_ENDS_LEAD] = lead / 10.0  # noqa: F821
    out[at + UF_COINS_SPENT] = spent / 5.0  # noqa: F821


@hot_njit
def place_features_nb(what, left, cell, occ, player, s, rules, values, row, best, end, threat, out, at):
    """out[at + PF_*] <- the PLACE features of putting ``what`` (a Cell code) on ``cell``."""
    for f in range(N_PLACE_FEATURES):  # noqa: F821
        out[at + f] = 0.0
    out[at + PF_VALUE] = max(values[row], -50.0)  # noqa: F821
    out[at + PF_BEST] = 1.0 if values[row] >= best - 1e-9 else 0.0  # noqa: F821
    near = L.NEIGH8_MASK[cell]
    side = L.SIDE_OF_CELL[cell]
    intact = side >= 0 and side_intact_nb(player, s, side)
    side_walls = side_walls_nb(occ, side, s) / 5.0 if side >= 0 else 0.0
    inner_empty = popcount_nb(near & occ[s, L.CELL_EMPTY] & L.INNER_MASK) / 8.0
    out[at + PF_INNER_EMPTY] = inner_empty  # noqa: F821
    if what == L.CELL_WALL:
        out[at + PF_VALUE_PLACED + 4] = out[at + PF_VALUE]  # noqa: F821
        out[at + PF_WALL_SIDE] = side_walls  # noqa: F821
        if side >= 0:
            need = popcount_nb(occ[s, L.CELL_EMPTY] & L.SIDE_MASK[side])
            out[at + PF_WALL_NEED] = need / 5.0  # noqa: F821
            out[at + PF_WALL_COMPLETES] = 1.0 if need == 1 else 0.0  # noqa: F821
            out[at + PF_WALL_COMPLETES_NOW] = 1.0 if need <= left else 0.0  # noqa: F821
            out[at + PF_WALL_BONUS + side_bonus_kind_nb(rules, side, s)] = 1.0  # noqa: F821
        if TOWER_NEIGHBOURS & (np.uint64(1) << np.uint64(cell)) != ZERO:
            out[at + PF_WALL_CORNER] = 1.0  # noqa: F821
        return
    if intact:
        out[at + PF_OUTER_END] = end  # noqa: F821
        out[at + PF_OUTER_THREAT] = threat  # noqa: F821
    if what == L.CELL_CRATE:
        group = 0
    elif what >= L.PERSON_0:
        group = 2
    elif what == L.CELL_HOUSE:
        group = 3
    else:
        group = 1
    if what >= L.PERSON_0:
        person = what - L.PERSON_0
        out[at + PF_PERSON_OUTER + person] = 1.0 if intact else 0.0  # noqa: F821
        out[at + PF_PERSON_EMPTY + person] = popcount_nb(near & occ[s, L.CELL_EMPTY]) / 8.0  # noqa: F821
    persons = 0
    for p in range(L.N_PERSONS):
        if occ[s, L.PERSON_0 + p] & near != ZERO:
            persons += 1
    out[at + PF_VALUE_PLACED + group] = out[at + PF_VALUE]  # noqa: F821
    base = at + PF_AROUND + group * 7  # noqa: F821
    out[base] = 1.0 if intact else 0.0
    out[base + 1] = side_walls if intact else 0.0
    out[base + 2] = popcount_nb(near & occ[s, L.CELL_CRATE]) / 8.0
    out[base + 3] = popcount_nb(near & church_mask_nb(occ, s)) / 8.0
    out[base + 4] = persons / 8.0
    out[base + 5] = popcount_nb(near & occ[s, L.CELL_EMPTY]) / 8.0
    out[base + 6] = popcount_nb(near & occ[s, L.CELL_HOUSE]) / 8.0


@hot_njit
def decision_inputs_nb(s, ctx, occ, player, pirates, rules):
    """What every candidate of a decision shares: (how near the end is, the pirates' threat, the
    seat's estimated lead where a use could end the game, else 0), computed once a decision."""
    end = end_near_nb(player)
    threat = threat_nb(player, pirates, s, rules)
    near_end = ctx[L.CTX_DECISION] == L.DECISION_USE and player[s, L.N_EMPTY] <= 5  # read only then
    lead = lead_nb(occ, player, s, rules) if near_end else 0.0
    return end, threat, lead


@hot_njit
def candidate_features_nb(s, ctx, dice, cands, occ, player, pirates, rules, values, best, shared, row, out, at):
    """The features of candidate ``row`` of a USE or PLACE decision into out[at:], given the base
    heuristic's ``values`` of the rows, its ``best`` value and the decision's ``shared`` inputs
    (``decision_inputs_nb``). Returns the number of features."""
    end, threat, lead = shared
    if ctx[L.CTX_DECISION] == L.DECISION_USE:
        use_features_nb(cands, row, dice, occ, player, pirates, s, rules, values, best, end, threat, lead, out, at)
        return N_USE_FEATURES  # noqa: F821
    place_features_nb(
        ctx[L.CTX_WHAT], ctx[L.CTX_LEFT], cands[row, 0], occ, player, s, rules, values, row, best, end, threat, out, at
    )
    return N_PLACE_FEATURES  # noqa: F821


@hot_njit(inline="always")
def best_value_nb(values, n):
    best = values[0]
    for i in range(1, n):
        best = max(best, values[i])
    return best


@hot_njit
def keep_candidates_nb(model, decision, values, n, kept):
    """kept[i] <- 1.0 for the rows the model scores, else 0.0: as ``rollout`` picks the
    candidates it searches, the heuristic's best first, then its next best (ties: the earlier
    row), the ``use_candidates`` or ``place_candidates`` best, none more than ``place_gap`` below
    the best at a PLACE. Returns the best value."""
    if decision == L.DECISION_USE:
        wanted, gap = int(model[LM_USE_CANDIDATES]), 0.0  # noqa: F821
    else:
        wanted, gap = int(model[LM_PLACE_CANDIDATES]), model[LM_PLACE_GAP]  # noqa: F821
    for i in range(n):
        kept[i] = 0.0
    top = best_value_nb(values, n)
    for _ in range(min(wanted, n)):
        pick = -1
        for i in range(n):
            if kept[i] == 0.0 and (pick < 0 or values[i] > values[pick]):
                pick = i
        if gap > 0.0 and values[pick] < top - gap:
            break
        kept[pick] = 1.0
    return top


@hot_njit(inline="always")
def score_nb(model, coef, units, hidden, feats, f, z):
    """The model's score of one move's ``f`` features: linear, plus its rectified units (their
    sums in ``z``). The weights are feature-major (``model.Units.flat``): each feature is added
    to every unit at once, a loop the compiler vectorises, where a unit's dot product (a sum
    whose order numba must keep) ran one multiply-add at a time, half of the policy's time. Each
    unit still sums its features in their order, so the scores are the same to the bit; a
    feature at zero adds nothing and is skipped (many are flags)."""
    score = 0.0
    for j in range(f):
        score += model[coef + j] * feats[j]
    if hidden == 0:
        return score
    bias = units + f * hidden
    for h in range(hidden):
        z[h] = model[bias + h]
    for j in range(f):
        x = feats[j]
        if x != 0.0:
            at = units + j * hidden
            for h in range(hidden):
                z[h] += model[at + h] * x
    out = bias + hidden
    for h in range(hidden):
        if z[h] > 0.0:
            score += model[out + h] * z[h]
    return score


@hot_njit
def learned_pick_nb(model, s, ctx, dice, cands, occ, player, pirates, memo, values, rng, rules):
    """A USE or PLACE decision: the heuristic's values, then the model's score of the moves it
    keeps; the others ranked below them by the heuristic's values. The scores stay in ``values``
    (what a search over this policy orders its candidates by)."""
    heuristic_values_nb(model, s, ctx, cands, occ, player, pirates, memo, values, rules)
    n = ctx[L.CTX_N]
    decision = ctx[L.CTX_DECISION]
    if decision == L.DECISION_USE:
        coef, units = LM_USE, LM_USE_UNITS  # noqa: F821
    else:
        coef, units = LM_PLACE, LM_PLACE_UNITS  # noqa: F821
    hidden = int(model[LM_HIDDEN])  # noqa: F821
    base = memo[LMM_BASE_VALUES : LMM_BASE_VALUES + n]  # noqa: F821
    kept = memo[LMM_KEPT : LMM_KEPT + n]  # noqa: F821
    feats = memo[LMM_FEATURES : LMM_FEATURES + MAX_FEATURES]  # noqa: F821
    z = memo[LMM_UNITS : LMM_UNITS + MAX_HIDDEN]  # noqa: F821
    for i in range(n):
        base[i] = values[i]
    best = keep_candidates_nb(model, decision, base, n, kept)
    only = -1  # a single move kept needs no score
    for i in range(n):
        if kept[i] > 0.0:
            only = i if only == -1 else -2
    shared = decision_inputs_nb(s, ctx, occ, player, pirates, rules) if only == -2 else (0.0, 0.0, 0.0)
    for i in range(n):
        if only >= 0:
            values[i] = base[i] if i == only else HL.NEG + base[i]
            continue
        if kept[i] > 0.0:
            f = candidate_features_nb(s, ctx, dice, cands, occ, player, pirates, rules, base, best, shared, i, feats, 0)
            values[i] = score_nb(model, coef, units, hidden, feats, f, z)
        else:
            values[i] = HL.NEG + base[i]
    return pick_best_nb(values, n, rng, s)


@overload(LL.learned_nb, inline="always", jit_options=OVERLOAD_OPTIONS)  # as the None case (learned_layout.py)
def _learned_seat(model, s, w, rules, mark, exact):
    if isinstance(mark, types.BaseNamedTuple) and mark.instance_class is LL.LearnedMark:
        return lambda model, s, w, rules, mark, exact: learned_choice_nb(model, s, w, rules, exact)
    return None


@hot_njit(inline="always")
def learned_choice_nb(model, s, w, rules, exact):
    """The learned policy's pick at any decision (inlined into the engine's one call site)."""
    decision = w.ctx[L.CTX_DECISION]
    if decision == L.DECISION_KEEP:
        return heuristic_keep_nb(model, s, w.ctx, w.dice, w.occ, w.player, w.pirates, w.memo, rules, exact)
    if decision == L.DECISION_USE or decision == L.DECISION_PLACE:
        return learned_pick_nb(
            model, s, w.ctx, w.dice, w.cands, w.occ, w.player, w.pirates, w.memo, w.values, w.rng, rules
        )
    return heuristic_pick_nb(model, s, w.ctx, w.cands, w.occ, w.player, w.pirates, w.memo, w.values, w.rng, rules)
