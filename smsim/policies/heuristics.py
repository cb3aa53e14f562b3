"""Built-in jitted bots' decisions: ``random``, and one parameterised heuristic whose weight
vectors are the other built-ins (registry.py). What the heuristic sees of a position (its
weights, memo and features) is in ``features``; this module turns it into picks. Policies read the
game (``w``, a ``game.Work``), never write it, except their own scratch ``w.values`` and ``w.memo``;
they return a row of ``w.cands``.

The heuristic values a move as the VP it earns now plus weighted values of what it builds
toward, all in VP:

- coins and logs held (``coin``, ``log``); crates, more so next to crates (future merchants);
- walls on intact sides, more so the closer the side is to complete, and the bonus and defence
  a completed side gives;
- defence, pirate-aware: the cannon penalty it saves at the next attack and at later ones,
  given the strengths still to come;
- churches: the series VP they add now and the series potential (gaps that later churches
  could fill, discounted by the number of gaps);
- persons at once (citizen, priest, merchant, juggler, noble, architect and his houses), and
  where they stand (churches by churches, persons by other person types, crates by crates);
- destroying an intact side costs; filling space has a tempo value; ending the game is worth
  the estimated lead (positive when ahead, negative when behind).

Keep decisions compare the best use of the dice now with the expected value after rolling
again the dice that do not show the most promising symbol (binomial over the dice rolled), or,
with the ``exact_keep`` weight, are solved exactly for the turn (``exact_keep``).
Ties between equally valued candidates are broken uniformly at random from the seat's stream.
"""

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import ZERO, church_mask_nb, popcount_nb
from smsim.engine.dice import rand_below_nb
from smsim.engine.memory import hot_njit, loop_njit
from smsim.policies import heuristic_layout as HL
from smsim.policies.exact_keep import exact_keep_nb
from smsim.policies.features import (
    REROLL_ODDS,
    best_persons_nb,
    defence_gain_nb,
    head_value_nb,
    house_cap_nb,
    house_gain_nb,
    house_starts_nb,
    houses_at_nb,
    outer_cost_at_nb,
    person_types_near_nb,
    scan_inputs_nb,
    side_intact_nb,
    side_walls_nb,
    turn_table_nb,
)
from smsim.policies.heuristic_layout import MEMO, N_PARAMS, PARAM_NAMES, PARAMS  # noqa: F401  (the policy's interface)


@hot_njit(inline="always")
def new_game_memo_nb(memo):
    """Forget the last game's tables: the memo is keyed on CTX_TURN, which restarts each game."""
    memo[HL.M_KEY] = -1.0
    memo[HL.M_KEEP_KEY] = -1.0


@hot_njit(inline="always")
def random_choice_nb(n, rng, seat):
    """``random``: uniform among the n legal rows."""
    return rand_below_nb(rng, seat, n)


@hot_njit(inline="always")
def keep_nb(params, ctx, dice, memo):
    """Reroll mask: roll again every die not showing the most promising symbol, or 0 to stop
    (``memo``: this turn's table)."""
    odds = REROLL_ODDS[L.N_ROLLS - 1 - ctx[L.CTX_ROLL]]  # rolls left: N_ROLLS - roll
    best_now = 0.0
    best_symbol = -1
    best_expect = HL.NEG
    for symbol in range(L.N_SYMBOLS):
        shown = 0
        for d in range(L.N_DICE):
            shown += dice[d] == symbol
        now = memo[HL.M_BEST + symbol * HL.K_SPAN + shown]
        if now > best_now:
            best_now = now
        rolled = L.N_DICE - shown
        if params[HL.P_LOOKAHEAD] > 0.0:
            expect = 0.0
            for j in range(rolled + 1):  # j of the rolled dice come up as symbol
                expect += odds[rolled, j] * memo[HL.M_BEST + symbol * HL.K_SPAN + shown + j]
        else:
            expect = now
        if expect > best_expect + 1e-9:
            best_expect = expect
            best_symbol = symbol
    if best_symbol < 0:
        return L.N_KEEP_MASKS - 1  # roll every die again
    if params[HL.P_LOOKAHEAD] > 0.0 and best_expect - best_now <= params[HL.P_KEEP_MARGIN]:
        return 0
    mask = 0
    for d in range(L.N_DICE):
        if dice[d] != best_symbol:
            mask |= 1 << d
    return mask


@hot_njit(inline="always")
def use_row_value_nb(params, cands, occ, player, pirates, memo, s, rules, row):
    symbol = cands[row, L.C_SYMBOL]
    if symbol == L.NO_SYMBOL:
        return 0.0
    k = cands[row, L.C_K]
    v = -params[HL.P_COIN] * cands[row, L.C_ROTATED] * rules[R.R_ROTATION_COST]
    if symbol == L.FACE_HEAD:
        return v + head_value_nb(params, player, memo, s, rules, cands[row, L.C_PERSON])
    return v + memo[HL.M_EXACT + symbol * HL.K_SPAN + k]


@hot_njit
def place_values_nb(params, occ, player, pirates, s, rules, what, cands, n, values):
    """values[i] <- value of putting ``what`` (a Cell code) on the empty cell cands[i, 0]. What
    every cell shares is computed once; persons as in person_cell_value_nb."""
    crates = occ[s, L.CELL_CRATE]
    if what == L.CELL_WALL:
        progress = 0.1 * params[HL.P_WALL_PROGRESS]
        for i in range(n):
            side = L.SIDE_OF_CELL[cands[i, 0]]
            if side >= 0 and side_intact_nb(player, s, side):
                values[i] = 1.0 + side_walls_nb(occ, side, s) + progress
            else:
                values[i] = 0.0
        return
    persons, side_cost = scan_inputs_nb(params, occ, player, s)
    churches = church_mask_nb(occ, s)
    spot = params[HL.P_MERCHANT_SPOT] * 0.25
    if what >= L.PERSON_0:
        person = what - L.PERSON_0
        cap = house_cap_nb(player, s, rules)
        starts = house_starts_nb(occ, s) if person == L.PERSON_ARCHITECT else (ZERO, ZERO, ZERO, ZERO, ZERO)
        house = house_gain_nb(params, rules)
        coin_per_crate = params[HL.P_COIN] * rules[R.R_MERCHANT_COINS_PER_CRATE]
        cluster = params[HL.P_PERSON_CLUSTER] * 0.5
        if person == L.PERSON_SOLDIER:
            flat = defence_gain_nb(params, player, pirates, s, rules, rules[R.R_SOLDIER_DEFENCE])
        elif person == L.PERSON_CITIZEN:
            flat = float(rules[R.R_CITIZEN_VP])
        else:
            flat = float(rules[R.R_NOBLE_VP])
        for i in range(n):
            c = cands[i, 0]
            near = L.NEIGH8_MASK[c]
            n_crates = popcount_nb(near & crates)
            n_types = person_types_near_nb(persons, near)
            v = -outer_cost_at_nb(side_cost, c)
            if person == L.PERSON_PRIEST:
                v += rules[R.R_PRIEST_VP_PER_CHURCH] * popcount_nb(near & churches)
            elif person == L.PERSON_ARCHITECT:
                v += houses_at_nb(starts, cap, c) * house
            elif person == L.PERSON_MERCHANT:
                v += coin_per_crate * n_crates
            elif person == L.PERSON_JUGGLER:
                v += rules[R.R_JUGGLER_VP_PER_TYPE] * n_types
            else:
                v += flat
            if person != L.PERSON_MERCHANT:
                v -= spot * n_crates
            v += cluster * n_types
            values[i] = v
        return
    crate_cluster = params[HL.P_CRATE_CLUSTER]
    church_cluster = params[HL.P_CHURCH_CLUSTER]
    room = 0.1 * params[HL.P_CHURCH_CLUSTER]  # room for a priest
    empty = occ[s, L.CELL_EMPTY]
    for i in range(n):
        c = cands[i, 0]
        near = L.NEIGH8_MASK[c]
        v = -outer_cost_at_nb(side_cost, c)
        if what == L.CELL_CRATE:
            v += crate_cluster * popcount_nb(near & crates)
        elif what >= L.CELL_CHURCH_1:
            v += church_cluster * popcount_nb(near & churches)
            v += room * popcount_nb(near & empty)
            v -= spot * popcount_nb(near & crates)
        else:  # a house
            v -= spot * popcount_nb(near & crates)
        values[i] = v


@hot_njit
def pick_best_nb(values, n, rng, seat):
    """Index of the best of values[:n], ties broken uniformly at random (policy stream)."""
    best = HL.NEG * 10
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


NOISE_DRAW = 1 << 32
"""The coin of the ``noise`` weight: a draw below ``noise * NOISE_DRAW`` of [0, NOISE_DRAW) plays at random."""


@hot_njit(inline="always")
def heuristic_choice_nb(params, s, w, rules, exact):
    """The parameterised heuristic's pick at any decision. Inlined into the engine's one call
    site per decision; the work is in two functions that take only the arrays they read (a call
    costs in proportion to its arguments).

    With the ``noise`` weight q > 0, each decision is, with probability q, ``random``'s pick
    instead (the seat's policy stream: a coin, then the pick; at q = 1 no coin, so the seat
    plays exactly as ``random`` on the same stream). At q = 0 this costs one comparison.

    ``exact``: the line-up's mark for exact keeps (``heuristic_keep_nb``)."""
    noise = params[HL.P_NOISE]
    if noise > 0.0 and (noise >= 1.0 or rand_below_nb(w.rng, s, NOISE_DRAW) < noise * NOISE_DRAW):
        return random_choice_nb(w.ctx[L.CTX_N], w.rng, s)
    if w.ctx[L.CTX_DECISION] == L.DECISION_KEEP:
        return heuristic_keep_nb(params, s, w.ctx, w.dice, w.occ, w.player, w.pirates, w.memo, rules, exact)
    return heuristic_pick_nb(params, s, w.ctx, w.cands, w.occ, w.player, w.pirates, w.memo, w.values, w.rng, rules)


@hot_njit
def heuristic_keep_nb(params, s, ctx, dice, occ, player, pirates, memo, rules, exact):
    """KEEP: the reroll mask (row i of the candidates is mask i): exact where the weights ask
    for it (``exact_keep``), else the one-symbol rule of ``keep_nb``. ``exact``: the line-up's
    ``registry.Marks.exact``; compiled for None (no seat keeps exactly), the dynamic programming
    is left out, and weights asking for it are a caller's error."""
    turn_table_nb(params, ctx, occ, player, pirates, memo, s, rules)
    if params[HL.P_EXACT_KEEP] > 0.0:
        if exact is None:
            raise ValueError("exact keeps asked for by a line-up marked without them (registry.line_up_marks)")
        return exact_keep_nb(params, ctx, dice, player, memo, s, rules)
    return keep_nb(params, ctx, dice, memo)


@loop_njit
def heuristic_pick_nb(params, s, ctx, cands, occ, player, pirates, memo, values, rng, rules):
    """Every decision but KEEP: value each candidate row, pick the best."""
    heuristic_values_nb(params, s, ctx, cands, occ, player, pirates, memo, values, rules)
    return pick_best_nb(values, ctx[L.CTX_N], rng, s)


@hot_njit(inline="always")
def heuristic_values_nb(params, s, ctx, cands, occ, player, pirates, memo, values, rules):
    """values[i] <- the heuristic's value of candidate row i, at every decision but KEEP."""
    decision = ctx[L.CTX_DECISION]
    n = ctx[L.CTX_N]
    if decision == L.DECISION_USE:
        turn_table_nb(params, ctx, occ, player, pirates, memo, s, rules)
        for i in range(n):
            values[i] = use_row_value_nb(params, cands, occ, player, pirates, memo, s, rules, i)
    elif decision == L.DECISION_PLACE:
        place_values_nb(params, occ, player, pirates, s, rules, ctx[L.CTX_WHAT], cands, n, values)
    elif decision == L.DECISION_HOUSES:
        for i in range(n):
            values[i] = cands[i, 0] * house_gain_nb(params, rules)
    elif decision == L.DECISION_BONUS_PERSON:
        # the city has changed since the turn's table: every person's best cell, in one scan
        best_persons_nb(params, occ, player, pirates, s, rules, house_starts_nb(occ, s), memo, HL.M_BONUS_PERSON)
        for i in range(n):
            values[i] = memo[HL.M_BONUS_PERSON + cands[i, 0]]
    else:
        for i in range(n):
            values[i] = 0.0
