"""What the built-in heuristic sees in a position: its weights, its per-turn memo, and the
position features it values moves with (all in VP; ``heuristics`` turns them into decisions).

Features read the game, never write it, except the seat's own scratch ``memo`` and ``out``.
The weights and the memo are record layouts declared once in ``heuristic_layout`` (``HL.P_*``,
``HL.M_*``).
"""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import (
    ZERO,
    church_mask_nb,
    component4_nb,
    count_person_types_nb,
    defence_nb,
    lowest_bit_nb,
    popcount_nb,
)
from smsim.engine.memory import hot_njit, loop_njit
from smsim.policies import heuristic_layout as HL


def _reroll_odds() -> np.ndarray:
    """REROLL_ODDS[r - 1, m, j]: chance that j of m dice rolled again show a wanted symbol at
    least once in r more rolls (each die keeps its symbol once shown): Binomial(m, 1 - (5/6)^r).
    A table, because powers in the keep loop were a tenth of a heuristic turn."""
    odds = np.zeros((2, 6, 6))
    for r in (1, 2):
        q = 1.0 - (5.0 / 6.0) ** r
        for m in range(6):
            comb = 1.0
            for j in range(m + 1):
                odds[r - 1, m, j] = comb * q**j * (1.0 - q) ** (m - j)
                comb = comb * (m - j) / (j + 1)
    return odds


REROLL_ODDS = _reroll_odds()


# -- position features -----------------------------------------------------------------------------
@hot_njit(inline="always")
def church_counts_nb(occ, s):
    """Seat s's churches of each size 1..5, as a tuple."""
    church = L.CELL_CHURCH_1
    return (
        popcount_nb(occ[s, church]),
        popcount_nb(occ[s, church + 1]),
        popcount_nb(occ[s, church + 2]),
        popcount_nb(occ[s, church + 3]),
        popcount_nb(occ[s, church + 4]),
    )


def _series_layer_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a series layer as a 5-bit mask m (bit i: some church of size i + 1 in the layer):
    PREFIX[m], the run of sizes 1, 2, .. it holds; TOP[m], its largest size; GAPS[m], the sizes
    missing between them (top - sizes held)."""
    prefix = np.array([next(i for i in range(6) if not (m >> i) & 1) for m in range(32)], dtype=np.int64)
    top = np.array([m.bit_length() for m in range(32)], dtype=np.int64)
    gaps = np.array([m.bit_length() - bin(m).count("1") for m in range(32)], dtype=np.int64)
    return prefix, top, gaps


SERIES_PREFIX, SERIES_TOP, SERIES_GAPS = _series_layer_tables()


@hot_njit
def series_value_nb(counts, rules, extra_size, potential_weight):
    """Series VP of churches ``counts`` (with one more of ``extra_size``, 0: none) plus
    ``potential_weight`` times their potential: for each series layer, the VP its gaps would add
    if filled, divided by 1 + the number of gaps."""
    h1 = counts[0] + (1 if extra_size == 1 else 0)
    h2 = counts[1] + (1 if extra_size == 2 else 0)
    h3 = counts[2] + (1 if extra_size == 3 else 0)
    h4 = counts[3] + (1 if extra_size == 4 else 0)
    h5 = counts[4] + (1 if extra_size == 5 else 0)
    realized = 0.0
    potential = 0.0
    layer = 1
    while True:
        m = (
            (1 if h1 >= layer else 0)
            | (2 if h2 >= layer else 0)
            | (4 if h3 >= layer else 0)
            | (8 if h4 >= layer else 0)
            | (16 if h5 >= layer else 0)
        )
        if m == 0:
            return realized + potential_weight * potential
        prefix = SERIES_PREFIX[m]
        top = SERIES_TOP[m]
        realized += rules[R.R_CHURCH_SERIES_VP + prefix]
        potential += (rules[R.R_CHURCH_SERIES_VP + top] - rules[R.R_CHURCH_SERIES_VP + prefix]) / (1.0 + SERIES_GAPS[m])
        layer += 1


@hot_njit(inline="always")
def church_value_nb(occ, s, rules, extra_size, potential_weight):
    """``series_value_nb`` of seat s's churches."""
    return series_value_nb(church_counts_nb(occ, s), rules, np.int64(extra_size), potential_weight)


@hot_njit
def estimate_total_nb(occ, player, s, rules):
    """Seat s's score if the game ended now (docs/rules.md §4)."""
    est = player[s, L.VP] + church_value_nb(occ, s, rules, 0, 0.0)
    est += player[s, L.COINS] // rules[R.R_COINS_PER_VP] + player[s, L.LOGS] * rules[R.R_VP_PER_LOG]
    est -= player[s, L.CANNONS_LOST] * rules[R.R_CANNON_PENALTY]
    if player[s, L.N_EMPTY] == 0:
        est += rules[R.R_FULL_CITY_VP]
    return est


@hot_njit
def lead_nb(occ, player, s, rules):
    """Seat s's estimated total minus the best other seat's."""
    best_other = HL.NEG
    for o in range(player.shape[0]):
        if o != s:
            best_other = max(best_other, estimate_total_nb(occ, player, o, rules))
    return estimate_total_nb(occ, player, s, rules) - best_other


@hot_njit
def defence_gain_nb(params, player, pirates, s, rules, delta):
    """Value of ``delta`` more defence: the cannon penalty it saves at each attack still to come
    whose strength it newly reaches. The next attack weighs from ``pirate_later`` up to
    ``pirate_next`` as its row fills (few boxes left: it will strike before defence can be
    built later); later attacks weigh ``pirate_later``."""
    if delta <= 0:
        return 0.0
    d = defence_nb(player, s, rules)
    v = params[HL.P_DEFENCE] * delta
    row_len = rules[R.R_PIRATE_BOXES_PER_PLAYER] * player.shape[0]
    next_row = pirates[L.PIRATE_ATTACKS]
    boxes_left = row_len * (next_row + 1) - pirates[L.PIRATE_BOXES]
    urgency = 1.0 - (boxes_left - 1) / row_len
    for row in range(next_row, rules[R.R_N_PIRATE_ROWS]):
        strength = rules[R.R_PIRATE_STRENGTHS + row]
        if d < strength <= d + delta:
            weight = params[HL.P_PIRATE_LATER]
            if row == next_row:
                weight += (params[HL.P_PIRATE_NEXT] - params[HL.P_PIRATE_LATER]) * urgency
            v += weight * rules[R.R_CANNON_PENALTY]
    return v


@hot_njit(inline="always")
def side_walls_nb(occ, side, s):
    return popcount_nb(occ[s, L.CELL_WALL] & L.SIDE_MASK[side])


@hot_njit(inline="always")
def side_intact_nb(player, s, side):
    return ((player[s, L.SIDES_BROKEN] | player[s, L.SIDES_DONE]) >> side) & 1 == 0


@hot_njit(inline="always")
def side_bonus_kind_nb(rules, side, s):
    """The kind of bonus seat s receives for completing ``side``: none where ``wall_bonus_seats``
    leaves it out (the wall-bonus ablation), else the side's."""
    if (rules[R.R_WALL_BONUS_SEATS + side] >> s) & 1 == 0:
        return np.int64(L.BONUS_KIND_NONE)
    return rules[R.R_WALL_BONUS_KIND + side]


@hot_njit(inline="always")
def bonus_value_nb(params, rules, side, s):
    """What seat s gains from completing ``side``'s bonus, in VP: nothing where it receives none."""
    kind = side_bonus_kind_nb(rules, side, s)
    amount = rules[R.R_WALL_BONUS_AMOUNT + side]
    if kind == L.BONUS_KIND_PERSON:
        return params[HL.P_BONUS_PERSON]
    if kind == L.BONUS_KIND_COINS:
        return params[HL.P_COIN] * amount
    if kind == L.BONUS_KIND_VP:
        return float(amount)
    return 0.0


@loop_njit
def walls_values_nb(params, occ, player, pirates, s, rules, out, at):
    """out[at + k] <- value of k = 1..5 walls: placed on the intact sides nearest to complete first
    (ties: lower side), completed sides adding their bonus and defence. One pass for every k."""
    order = 0  # side of the i-th nearest intact side in bits 4i..4i+3 (no allocation per turn)
    needs = 0  # walls it still needs, likewise
    n_sides = 0
    done = 0
    for _ in range(L.N_SIDES):  # intact sides by how many walls they still need
        best_side = -1
        best_need = 99
        for side in range(L.N_SIDES):
            if (done >> side) & 1 or not side_intact_nb(player, s, side):
                continue
            need = popcount_nb(occ[s, L.CELL_EMPTY] & L.SIDE_MASK[side])
            if need < best_need:
                best_need = need
                best_side = side
        if best_side < 0:
            break
        done |= 1 << best_side
        order |= best_side << (4 * n_sides)
        needs |= best_need << (4 * n_sides)
        n_sides += 1
    for k in range(1, HL.K_SPAN):
        v = 0.0
        left = k
        completed = 0
        for i in range(n_sides):
            if left == 0:
                break
            need = (needs >> (4 * i)) & 15
            used = min(left, need)
            for j in range(used):
                v += params[HL.P_WALL] + params[HL.P_WALL_PROGRESS] * (5 - need + j + 1) / 5.0
            left -= used
            if used == need:
                completed += 1
                v += bonus_value_nb(params, rules, (order >> (4 * i)) & 15, s)
        if completed > 0:
            v += defence_gain_nb(params, player, pirates, s, rules, completed * rules[R.R_SIDE_DEFENCE])
        out[at + k] = v


@hot_njit(inline="always")
def outer_cost_nb(params, occ, player, s, cell):
    """Cost of putting a non-wall on ``cell``: destroying an intact side and its walls."""
    side = L.SIDE_OF_CELL[cell]
    return side_break_cost_nb(params, occ, player, s, side) if side >= 0 else 0.0


@hot_njit(inline="always")
def side_break_cost_nb(params, occ, player, s, side):
    """Cost of destroying ``side`` (nothing once it is complete or broken)."""
    if not side_intact_nb(player, s, side):
        return 0.0
    return params[HL.P_OUTER_BREAK] * (1.0 + side_walls_nb(occ, side, s))


@hot_njit(inline="always")
def scan_inputs_nb(params, occ, player, s):
    """What the cell scans read for every cell, loaded once: (the cells of each person type,
    the cost of breaking each side)."""
    persons = (
        occ[s, L.PERSON_0],
        occ[s, L.PERSON_0 + 1],
        occ[s, L.PERSON_0 + 2],
        occ[s, L.PERSON_0 + 3],
        occ[s, L.PERSON_0 + 4],
        occ[s, L.PERSON_0 + 5],
        occ[s, L.PERSON_0 + 6],
    )
    side_cost = (
        side_break_cost_nb(params, occ, player, s, 0),
        side_break_cost_nb(params, occ, player, s, 1),
        side_break_cost_nb(params, occ, player, s, 2),
        side_break_cost_nb(params, occ, player, s, 3),
    )
    return persons, side_cost


@hot_njit(inline="always")
def outer_cost_at_nb(side_cost, cell):
    """outer_cost_nb from the scan's side costs."""
    side = L.SIDE_OF_CELL[cell]
    return side_cost[side] if side >= 0 else 0.0


@hot_njit(inline="always")
def person_types_near_nb(persons, near):
    """count_person_types_nb from the scan's person masks."""
    n = 0
    for mask in persons:
        if mask & near != ZERO:
            n += 1
    return n


@hot_njit
def house_starts_nb(occ, s):
    """(m1, .., m5): m_h = empty cells that can start a group of h houses (one component pass)."""
    m1 = m2 = m3 = m4 = m5 = ZERO
    empty = occ[s, L.CELL_EMPTY]
    left = empty
    while left != ZERO:
        comp = component4_nb(left & (ZERO - left), empty)
        n = popcount_nb(comp)
        m1 |= comp
        if n >= 2:
            m2 |= comp
        if n >= 3:
            m3 |= comp
        if n >= 4:
            m4 |= comp
        if n >= 5:
            m5 |= comp
        left &= ~comp
    return m1, m2, m3, m4, m5


@hot_njit(inline="always")
def houses_at_nb(starts, cap, cell):
    """Most houses (<= cap) an architect on ``cell`` could build. The architect's own cell is
    counted as free: a slight overestimate where it would cut its component, fine for valuing."""
    near = L.NEIGH8_MASK[cell]
    for h in range(min(cap, 5), 0, -1):
        if starts[h - 1] & near != ZERO:
            return h
    return 0


@hot_njit(inline="always")
def house_cap_nb(player, s, rules):
    return min(rules[R.R_ARCHITECT_MAX_HOUSES], player[s, L.LOGS])


@hot_njit(inline="always")
def house_gain_nb(params, rules):
    """Value of one house: its VP, less the log it uses (valued at its end-of-game VP)."""
    return rules[R.R_HOUSE_VP] - rules[R.R_VP_PER_LOG] + params[HL.P_FILL]


@hot_njit(inline="always")
def person_cell_value_nb(params, occ, player, pirates, s, rules, person, cell, houses):
    """Value of ``person`` on empty ``cell``: its effect now plus where it stands (``houses``:
    what an architect there could build). The definition, cell by cell: the scans
    (``best_persons_nb``, ``place_values_nb``) compute the same terms with what cells share
    hoisted, and the tests hold them to it."""
    near = L.NEIGH8_MASK[cell]
    v = -outer_cost_nb(params, occ, player, s, cell)
    if person == L.PERSON_CITIZEN:
        v += rules[R.R_CITIZEN_VP]
    elif person == L.PERSON_SOLDIER:
        v += defence_gain_nb(params, player, pirates, s, rules, rules[R.R_SOLDIER_DEFENCE])
    elif person == L.PERSON_PRIEST:
        v += rules[R.R_PRIEST_VP_PER_CHURCH] * popcount_nb(near & church_mask_nb(occ, s))
    elif person == L.PERSON_ARCHITECT:
        v += houses * house_gain_nb(params, rules)
    elif person == L.PERSON_MERCHANT:
        v += params[HL.P_COIN] * rules[R.R_MERCHANT_COINS_PER_CRATE] * popcount_nb(near & occ[s, L.CELL_CRATE])
    elif person == L.PERSON_JUGGLER:
        v += rules[R.R_JUGGLER_VP_PER_TYPE] * count_person_types_nb(occ, s, near)
    else:
        v += rules[R.R_NOBLE_VP]
    if person != L.PERSON_MERCHANT:
        v -= params[HL.P_MERCHANT_SPOT] * 0.25 * popcount_nb(near & occ[s, L.CELL_CRATE])
    v += params[HL.P_PERSON_CLUSTER] * 0.5 * count_person_types_nb(occ, s, near)
    return v


@hot_njit
def best_persons_nb(params, occ, player, pirates, s, rules, starts, out, at):
    """out[at + p] <- each person's value on its best empty cell (HL.NEG without one), in one scan of
    the city: the same terms as person_cell_value_nb, with each cell's features computed once and
    everything the scan reads held in locals. Returns (most houses an architect could build on
    any empty cell, most crates next to one)."""
    churches = church_mask_nb(occ, s)
    crates = occ[s, L.CELL_CRATE]
    persons, side_cost = scan_inputs_nb(params, occ, player, s)
    cap = house_cap_nb(player, s, rules)
    soldier = defence_gain_nb(params, player, pirates, s, rules, rules[R.R_SOLDIER_DEFENCE])
    house = house_gain_nb(params, rules)
    coin_per_crate = params[HL.P_COIN] * rules[R.R_MERCHANT_COINS_PER_CRATE]
    cluster = params[HL.P_PERSON_CLUSTER] * 0.5
    spot = params[HL.P_MERCHANT_SPOT] * 0.25
    citizen = rules[R.R_CITIZEN_VP]
    priest = rules[R.R_PRIEST_VP_PER_CHURCH]
    juggler = rules[R.R_JUGGLER_VP_PER_TYPE]
    noble = rules[R.R_NOBLE_VP]
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = HL.NEG
    best_houses = 0
    best_crates = 0
    m = occ[s, L.CELL_EMPTY]
    while m != ZERO:
        c = lowest_bit_nb(m)
        m &= m - np.uint64(1)
        near = L.NEIGH8_MASK[c]
        n_crates = popcount_nb(near & crates)
        n_types = person_types_near_nb(persons, near)
        outer = outer_cost_at_nb(side_cost, c)
        houses = houses_at_nb(starts, cap, c)
        best_houses = max(best_houses, houses)
        best_crates = max(best_crates, n_crates)
        base = -outer + cluster * n_types
        common = base - spot * n_crates
        b0 = max(b0, common + citizen)
        b1 = max(b1, common + soldier)
        b2 = max(b2, common + priest * popcount_nb(near & churches))
        b3 = max(b3, common + (houses * house if cap > 0 else 0.0))
        b4 = max(b4, base + coin_per_crate * n_crates)
        b5 = max(b5, common + juggler * n_types)
        b6 = max(b6, common + noble)
    out[at] = b0
    out[at + 1] = b1
    out[at + 2] = b2
    out[at + 3] = b3
    out[at + 4] = b4
    out[at + 5] = b5
    out[at + 6] = b6
    return best_houses, best_crates


@hot_njit(inline="always")
def finish_value_nb(params, player, s, rules, filled, lead):
    """Filling ``filled`` spaces: tempo, and the full-city bonus plus the estimated ``lead`` if
    it ends the game."""
    v = params[HL.P_FILL] * filled
    if filled > 0 and filled >= player[s, L.N_EMPTY]:
        v += rules[R.R_FULL_CITY_VP] + params[HL.P_FINISH] * lead
    return v


@hot_njit(inline="always")
def exact_use_value_nb(params, occ, player, memo, s, rules, symbol, k, churches):
    """Value of using exactly k dice of ``symbol``, not heads (no rotation); HL.NEG when illegal.
    ``churches``: church_counts_nb of the seat."""
    n_empty = player[s, L.N_EMPTY]
    coins = player[s, L.COINS]
    if symbol == L.FACE_LOG:
        if coins < rules[R.R_LOG_DELIVERY_COST]:
            return HL.NEG
        return params[HL.P_LOG] * k - params[HL.P_COIN] * rules[R.R_LOG_DELIVERY_COST]
    if symbol == L.FACE_CRATE:
        if k > memo[HL.M_LARGEST]:
            return HL.NEG
        # the first crate can go beside the most crates; later ones beside the new group
        near = min(memo[HL.M_BEST_CRATE_NEAR], 3.0) + (k - 1)
        return (
            k * params[HL.P_CRATE]
            + params[HL.P_CRATE_CLUSTER] * near
            + finish_value_nb(params, player, s, rules, k, memo[HL.M_LEAD])
        )
    if symbol == L.FACE_WALL:
        if k > popcount_nb(occ[s, L.CELL_EMPTY] & L.OUTER_MASK):
            return HL.NEG
        return memo[HL.M_WALLS + k] + finish_value_nb(params, player, s, rules, k, memo[HL.M_LEAD])
    if n_empty == 0:
        return HL.NEG
    # a cross
    gain = series_value_nb(churches, rules, k, params[HL.P_CHURCH_POTENTIAL]) - memo[HL.M_SERIES]
    weight = params[HL.P_CHURCH] if params[HL.P_CHURCH] > 0.0 else 1.0
    return weight * gain + finish_value_nb(params, player, s, rules, 1, memo[HL.M_LEAD])


@hot_njit(inline="always")
def head_value_nb(params, player, memo, s, rules, person):
    """Value of buying ``person`` with heads (no rotation): on its best cell; HL.NEG without one."""
    if player[s, L.N_EMPTY] == 0:
        return HL.NEG
    v = memo[HL.M_PERSON + person]
    if person == L.PERSON_ARCHITECT:
        return v + finish_value_nb(params, player, s, rules, 1 + int(memo[HL.M_BEST_N]), memo[HL.M_LEAD])
    return v + finish_value_nb(params, player, s, rules, 1, memo[HL.M_LEAD])


@hot_njit(inline="always")
def turn_table_nb(params, ctx, occ, player, pirates, memo, s, rules):
    """Make w.memo this turn's table (``fill_turn_table_nb``) unless it already is."""
    key = float(ctx[L.CTX_TURN])
    if memo[HL.M_KEY] != key:
        fill_turn_table_nb(params, occ, player, pirates, memo, s, rules)
        memo[HL.M_KEY] = key


@loop_njit
def forgo_turn_table_nb(params, player, memo, s, rules, forgo, affordable):
    """The turn table of a seat that forgoes the parts of mask ``forgo`` (``layout.FORGO_PARTS``):
    a forgone use is no use of its dice (the loop leaves it out of the uses the seat is offered
    too), heads buy the best person not forgone. Returns the dice it may turn (none, forgoing
    rotations)."""
    for symbol in range(L.N_SYMBOLS):
        if forgo & L.FORGO_SYMBOL[symbol]:
            for k in range(1, HL.K_SPAN):
                memo[HL.M_EXACT + symbol * HL.K_SPAN + k] = HL.NEG
    heads = HL.M_EXACT + L.FACE_HEAD * HL.K_SPAN
    for k in range(1, HL.K_SPAN):
        memo[heads + k] = HL.NEG
    for p in range(L.N_PERSONS):
        if not forgo & L.FORGO_PERSON[p]:
            at = heads + L.PERSON_HEADS[p]
            memo[at] = max(memo[at], head_value_nb(params, player, memo, s, rules, p))
    return 0 if forgo & L.FORGO_ROTATIONS else affordable


@hot_njit
def fill_turn_table_nb(params, occ, player, pirates, memo, s, rules):
    """Fill w.memo for this turn: the value of each person on its best cell and of using exactly
    k dice of each symbol (heads: the best person for k). The city does not change while the
    dice roll, so KEEP and USE decisions of one turn share it."""
    memo[HL.M_SERIES] = church_value_nb(occ, s, rules, 0, params[HL.P_CHURCH_POTENTIAL])
    walls_values_nb(params, occ, player, pirates, s, rules, memo, HL.M_WALLS)
    starts = house_starts_nb(occ, s)
    # the largest group of empty cells, up to 5 (no use places more): starts[h - 1] is non-empty
    # iff some group has h cells or more
    largest = 0
    for m in starts:
        if m != ZERO:
            largest += 1
    memo[HL.M_LARGEST] = largest
    best_houses, best_crates = best_persons_nb(params, occ, player, pirates, s, rules, starts, memo, HL.M_PERSON)
    memo[HL.M_BEST_N] = best_houses
    memo[HL.M_BEST_CRATE_NEAR] = best_crates
    # the lead is read only by a use that fills the city: at most 5 dice of crates or walls, or
    # an architect and his houses. Earlier it is not needed (and it costs a tenth of the table).
    if player[s, L.N_EMPTY] <= max(5, 1 + best_houses):
        memo[HL.M_LEAD] = lead_nb(occ, player, s, rules)
    else:
        memo[HL.M_LEAD] = 0.0
    churches = church_counts_nb(occ, s)
    for symbol in range(L.N_SYMBOLS):
        memo[HL.M_EXACT + symbol * HL.K_SPAN] = 0.0
        for k in range(1, HL.K_SPAN):
            if symbol == L.FACE_HEAD:
                memo[HL.M_EXACT + symbol * HL.K_SPAN + k] = HL.NEG  # the persons below fill it
            else:
                memo[HL.M_EXACT + symbol * HL.K_SPAN + k] = exact_use_value_nb(
                    params, occ, player, memo, s, rules, symbol, k, churches
                )
    for p in range(L.N_PERSONS):  # heads: the best person that number of heads buys
        at = HL.M_EXACT + L.FACE_HEAD * HL.K_SPAN + L.PERSON_HEADS[p]
        memo[at] = max(memo[at], head_value_nb(params, player, memo, s, rules, p))
    cost = rules[R.R_ROTATION_COST]
    affordable = player[s, L.COINS] // cost if cost > 0 else L.N_DICE
    forgo = int(params[HL.P_FORGO])
    if forgo != 0:  # apart, so that the tables of a seat that forgoes nothing are made as before
        affordable = forgo_turn_table_nb(params, player, memo, s, rules, forgo, affordable)
    rotation_value = params[HL.P_COIN] * cost
    for symbol in range(L.N_SYMBOLS):
        # best using at most n dice of the symbol (0: use them elsewhere, worth about nothing) ...
        prefix = 0.0
        for n in range(HL.K_SPAN):
            if n > 0:
                prefix = max(prefix, memo[HL.M_EXACT + symbol * HL.K_SPAN + n])
            memo[HL.M_BEST + symbol * HL.K_SPAN + n] = prefix
        # ... then with up to `affordable` more dice rotated to it; n rising, so the entries n + r
        # read are still the unrotated prefix maxima (rotations are never counted twice)
        for n in range(HL.K_SPAN):
            best = memo[HL.M_BEST + symbol * HL.K_SPAN + n]
            for r in range(1, min(affordable, L.N_DICE - n) + 1):
                best = max(best, memo[HL.M_BEST + symbol * HL.K_SPAN + n + r] - r * rotation_value)
            memo[HL.M_BEST + symbol * HL.K_SPAN + n] = best
