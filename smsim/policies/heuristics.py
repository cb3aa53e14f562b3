"""Built-in jitted bots. Each reads the state (never writes it) and returns a row of ``cands``.

Common arguments: ``params`` float64[N_PARAMS] (the seat's weights), ``ctx`` int64[N_CTX],
``dice`` int64[5], ``cands`` int64[MAX_CANDS, 4] with ``n`` rows, ``occ`` uint64[P, 17],
``player`` int64[P, N_PLAYER_FIELDS], ``pirates`` int64[2], ``rules`` int64[N_RULE_FIELDS],
``rng`` uint64[P] (the policy streams), ``seat``.
"""

import numpy as np
from numba import njit

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import (
    CHURCH_1,
    CRATE,
    EMPTY,
    NEIGH8_MASK,
    OUTER_MASK,
    PERSON_0,
    SIDE_MASK,
    SIDE_OF_CELL,
    WALL,
    ZERO,
    church_mask_nb,
    count_person_types_nb,
    largest_group_nb,
    lowest_bit_nb,
    popcount_nb,
)
from smsim.engine.dice import rand_below_nb

LOG, CRATE_FACE, WALL_FACE, CROSS, HEAD, SWORDS = range(6)
CITIZEN, SOLDIER, PRIEST, ARCHITECT, MERCHANT, JUGGLER, NOBLE = range(7)
KEEP, USE, PLACE, HOUSES, BONUS_SIDE, BONUS_PERSON = (int(d) for d in L.Decision)

# greedy's weights: params[P_*]
P_COIN = 0  # value of a coin, in VP
P_LOG = 1  # value of a log kept
P_CRATE = 2  # value of a crate placed (future merchants)
P_WALL = 3  # value of a wall placed (future sides)
P_DEFENCE = 4  # value of one point of defence
P_PERSON_BONUS = 5  # value of a free person from a wall bonus
P_OUTER = 6  # cost of destroying an intact side with a non-wall
N_PARAMS = 16
GREEDY_DEFAULTS = np.array([0.4, 0.8, 0.2, 0.3, 0.5, 2.0, 1.5] + [0.0] * 9, dtype=np.float64)
NEG_INF = -1e18


@njit(cache=True)
def random_choice_nb(n, rng, seat):
    """``random``: uniform among the n legal rows."""
    return rand_below_nb(rng, seat, n)


@njit(cache=True)
def church_vp_with_nb(occ, s, rules, extra_size):
    """Church series VP of seat s if one more church of ``extra_size`` (1..5; 0 none) stood."""
    vp = 0
    i = 1
    while True:
        length = 0
        while length < 5:
            have = popcount_nb(occ[s, CHURCH_1 + length]) + (1 if extra_size == length + 1 else 0)
            if have < i:
                break
            length += 1
        if length == 0:
            return vp
        vp += rules[R.R_CHURCH_SERIES_VP + length]
        i += 1


@njit(cache=True)
def best_adjacent_nb(occ, s, target_mask, person_types):
    """Most cells of ``target_mask`` (or distinct person types) next to one empty cell."""
    best = 0
    m = occ[s, EMPTY]
    while m != ZERO:
        c = lowest_bit_nb(m)
        m &= m - np.uint64(1)
        if person_types:
            v = count_person_types_nb(occ, s, NEIGH8_MASK[c])
        else:
            v = popcount_nb(NEIGH8_MASK[c] & target_mask)
        if v > best:
            best = v
    return best


@njit(cache=True)
def person_value_nb(params, occ, player, s, rules, person):
    """What a person is worth at once to greedy (RULES.md §5 Head), best cell assumed."""
    if person == CITIZEN:
        return float(rules[R.R_CITIZEN_VP])
    if person == SOLDIER:
        return params[P_DEFENCE] * rules[R.R_SOLDIER_DEFENCE]
    if person == PRIEST:
        return float(rules[R.R_PRIEST_VP_PER_CHURCH] * best_adjacent_nb(occ, s, church_mask_nb(occ, s), False))
    if person == ARCHITECT:
        houses = min(rules[R.R_ARCHITECT_MAX_HOUSES], player[s, L.LOGS], popcount_nb(occ[s, EMPTY]) - 1)
        return max(houses, 0) * (rules[R.R_HOUSE_VP] - params[P_LOG])
    if person == MERCHANT:
        crates = best_adjacent_nb(occ, s, occ[s, CRATE], False)
        return params[P_COIN] * rules[R.R_MERCHANT_COINS_PER_CRATE] * crates
    if person == JUGGLER:
        return float(rules[R.R_JUGGLER_VP_PER_TYPE] * best_adjacent_nb(occ, s, ZERO, True))
    return float(rules[R.R_NOBLE_VP])


@njit(cache=True)
def bonus_value_nb(params, rules, side):
    kind = rules[R.R_WALL_BONUS_KIND + side]
    amount = rules[R.R_WALL_BONUS_AMOUNT + side]
    if kind == 1:  # person
        return params[P_PERSON_BONUS]
    if kind == 2:  # coins
        return params[P_COIN] * amount
    if kind == 3:  # vp
        return float(amount)
    return 0.0


@njit(cache=True)
def wall_value_nb(params, occ, player, s, rules, k):
    """Walls placed plus the sides k walls can complete, cheapest sides first."""
    v = params[P_WALL] * k
    left = k
    done = player[s, L.SIDES_DONE] | player[s, L.SIDES_BROKEN]
    for _ in range(4):
        best_side = -1
        best_need = 99
        for side in range(4):
            if (done >> side) & 1:
                continue
            need = popcount_nb(occ[s, EMPTY] & SIDE_MASK[side])
            if need < best_need:
                best_need = need
                best_side = side
        if best_side < 0 or best_need > left:
            break
        left -= best_need
        done |= 1 << best_side
        v += bonus_value_nb(params, rules, best_side) + params[P_DEFENCE] * rules[R.R_SIDE_DEFENCE]
    return v


@njit(cache=True)
def use_value_nb(params, occ, player, s, rules, symbol, k, rotated, person):
    """greedy's value of one use: VP gained this turn plus small values on what it buys."""
    v = -params[P_COIN] * rotated * rules[R.R_ROTATION_COST]
    if symbol == L.NO_SYMBOL:
        return v
    if symbol == LOG:
        return v + params[P_LOG] * k - params[P_COIN] * rules[R.R_LOG_DELIVERY_COST]
    if symbol == CRATE_FACE:
        return v + params[P_CRATE] * k
    if symbol == WALL_FACE:
        return v + wall_value_nb(params, occ, player, s, rules, k)
    if symbol == CROSS:
        return v + church_vp_with_nb(occ, s, rules, k) - church_vp_with_nb(occ, s, rules, 0)
    return v + person_value_nb(params, occ, player, s, rules, person)


@njit(cache=True)
def cell_value_nb(params, ctx, occ, player, s, cell):
    """greedy's value of putting ctx[CTX_WHAT] on ``cell``."""
    what = ctx[L.CTX_WHAT]
    near = NEIGH8_MASK[cell]
    v = 0.0
    side = SIDE_OF_CELL[cell]
    intact = side >= 0 and ((player[s, L.SIDES_BROKEN] | player[s, L.SIDES_DONE]) >> side) & 1 == 0
    if what == WALL:
        if intact:
            v += 10.0 - popcount_nb(occ[s, EMPTY] & SIDE_MASK[side])
        return v
    if intact:
        v -= params[P_OUTER]
    if what == CRATE:
        v += 0.1 * popcount_nb(near & occ[s, CRATE])
    elif what == PERSON_0 + PRIEST:
        v += popcount_nb(near & church_mask_nb(occ, s))
    elif what == PERSON_0 + MERCHANT:
        v += popcount_nb(near & occ[s, CRATE])
    elif what == PERSON_0 + JUGGLER:
        v += count_person_types_nb(occ, s, near)
    elif what == PERSON_0 + ARCHITECT:
        v += 0.1 * popcount_nb(near & occ[s, EMPTY])
    return v


@njit(cache=True)
def greedy_keep_nb(params, dice, occ, player, s, rules):
    """Keep the dice of the symbol whose use now looks best; roll the rest (mask 0: stop)."""
    largest = largest_group_nb(occ[s, EMPTY])
    best_symbol = 0
    best = NEG_INF
    for symbol in range(5):
        k = 0
        for d in range(5):
            k += dice[d] == symbol
        if k == 0:
            continue
        if symbol == CRATE_FACE and k > largest:
            k = largest
        if symbol == HEAD:
            v = NEG_INF
            for person in range(L.N_PERSONS):
                if L.PERSON_HEADS[person] == k:
                    v = max(v, use_value_nb(params, occ, player, s, rules, symbol, k, 0, person))
        else:
            v = use_value_nb(params, occ, player, s, rules, symbol, k, 0, -1)
        if v > best:
            best = v
            best_symbol = symbol
    mask = 0
    for d in range(5):
        if dice[d] != best_symbol:
            mask |= 1 << d
    return mask


@njit(cache=True)
def pick_best_nb(values, n, rng, seat):
    """Index of the best of values[:n], ties broken uniformly at random (policy stream)."""
    best = NEG_INF
    n_best = 0
    for i in range(n):
        if values[i] > best + 1e-9:
            best = values[i]
            n_best = 1
        elif values[i] > best - 1e-9:
            n_best += 1
    pick = rand_below_nb(rng, seat, n_best) if n_best > 1 else 0
    for i in range(n):
        if values[i] > best - 1e-9:
            if pick == 0:
                return i
            pick -= 1
    return 0


@njit(cache=True)
def greedy_choice_nb(params, ctx, dice, cands, n, occ, player, rules, rng, seat, values):
    """``greedy``: the most immediate VP this turn, with small values on coins, logs, walls."""
    decision = ctx[L.CTX_DECISION]
    s = seat
    if decision == KEEP:
        return greedy_keep_nb(params, dice, occ, player, s, rules)  # row i is mask i
    for i in range(n):
        if decision == USE:
            values[i] = use_value_nb(
                params, occ, player, s, rules, cands[i, L.C_SYMBOL], cands[i, L.C_K],
                cands[i, L.C_ROTATED], cands[i, L.C_PERSON],
            )
        elif decision == PLACE:
            values[i] = cell_value_nb(params, ctx, occ, player, s, cands[i, 0])
        elif decision == HOUSES:
            values[i] = float(cands[i, 0])
        elif decision == BONUS_PERSON:
            values[i] = person_value_nb(params, occ, player, s, rules, cands[i, 0])
        else:
            values[i] = 0.0
    return pick_best_nb(values, n, rng, seat)
