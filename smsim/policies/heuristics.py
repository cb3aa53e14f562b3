"""Built-in jitted bots: ``random``, and one parameterised heuristic whose weight vectors are the
other built-ins (registry.py). Policies read the game (``w``, a ``game.Work``), never write it,
except their own scratch ``w.values`` and ``w.memo``; they return a row of ``w.cands``.

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
again the dice that do not show the most promising symbol (binomial over the dice rolled).
Ties between equally valued candidates are broken uniformly at random from the seat's stream.
"""

import numpy as np

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
    component4_nb,
    count_person_types_nb,
    defence_nb,
    lowest_bit_nb,
    popcount_nb,
)
from smsim.engine.dice import rand_below_nb
from smsim.engine.memory import hot_njit

LOG, CRATE_FACE, WALL_FACE, CROSS, HEAD, SWORDS = range(6)
CITIZEN, SOLDIER, PRIEST, ARCHITECT, MERCHANT, JUGGLER, NOBLE = range(7)
KEEP, USE, PLACE, HOUSES, BONUS_SIDE, BONUS_PERSON = (int(d) for d in L.Decision)
U_OUTER = np.uint64(OUTER_MASK)

# -- the weights: params[P_*] --------------------------------------------------------------------
PARAM_NAMES = (
    "coin",  # value of a coin held
    "log",  # value of a log held
    "crate",  # value of a crate placed
    "crate_cluster",  # extra per crate already adjacent to a new crate (future merchants)
    "wall",  # value of a wall on an intact side
    "wall_progress",  # extra per wall, times the fraction of its side then walled
    "defence",  # flat value of a defence point
    "pirate_next",  # weight on the cannon penalty a defence gain saves at the next attack
    "pirate_later",  # weight on the cannon penalty it saves at later attacks
    "church_potential",  # weight on church series potential gained
    "church_cluster",  # placing a church next to churches (one priest can bless several)
    "person_cluster",  # placing a person next to other person types (future jugglers)
    "merchant_spot",  # keeping crate-rich cells free of non-merchants
    "outer_break",  # cost of destroying an intact side with a non-wall (grows with its walls)
    "fill",  # tempo value of a space filled
    "finish",  # weight on the estimated lead when a move would end the game
    "keep_margin",  # roll again only when the expected gain exceeds this
    "lookahead",  # 0: keep the best symbol now and always roll the rest; 1: expected-value keeps
    "bonus_person",  # value of a wall bonus person (its own effect is added when placed)
    "church",  # multiplier on the church series VP a church adds (1: face value; 0 reads as 1)
)
(
    P_COIN, P_LOG, P_CRATE, P_CRATE_CLUSTER, P_WALL, P_WALL_PROGRESS, P_DEFENCE, P_PIRATE_NEXT,
    P_PIRATE_LATER, P_CHURCH_POTENTIAL, P_CHURCH_CLUSTER, P_PERSON_CLUSTER, P_MERCHANT_SPOT,
    P_OUTER_BREAK, P_FILL, P_FINISH, P_KEEP_MARGIN, P_LOOKAHEAD, P_BONUS_PERSON, P_CHURCH,
) = range(20)  # fmt: skip
N_PARAMS = 24  # room for more weights without changing the kernels' signatures
NEG = -1e9

# -- memo: w.memo, valid for one turn of one seat (key: ctx[CTX_TURN]) --------------------------
M_KEY = 0
M_LARGEST, M_BEST_N, M_BEST_CRATE_NEAR = 1, 2, 3  # M_LARGEST: largest empty group, up to 5
M_EXACT = 8  # 5 x 6: value of using exactly k dice of symbol S (k = 0..5), heads: best person
M_PERSON = 40  # 7: value of each person (best cell)
M_BEST = 48  # 5 x 6: best value with n dice showing symbol S (fewer used, rotations allowed)
M_WALLS = 78  # 6: value of k = 1..5 walls (walls_values_nb)
M_LEAD = 84  # the seat's estimated lead over the best other seat
M_SERIES = 85  # series_value_nb of the seat's churches as they stand (potential included)
M_BONUS_PERSON = 86  # 7: each person's best cell when a wall bonus person is chosen (city as then)
M_END = 93  # slots used; the engine's memo must be at least this long


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


@hot_njit(inline="always")
def random_choice_nb(n, rng, seat):
    """``random``: uniform among the n legal rows."""
    return rand_below_nb(rng, seat, n)


# -- position features -----------------------------------------------------------------------------
@hot_njit(inline="always")
def church_counts_nb(occ, s):
    """Seat s's churches of each size 1..5, as a tuple."""
    return (popcount_nb(occ[s, CHURCH_1]), popcount_nb(occ[s, CHURCH_1 + 1]), popcount_nb(occ[s, CHURCH_1 + 2]),
            popcount_nb(occ[s, CHURCH_1 + 3]), popcount_nb(occ[s, CHURCH_1 + 4]))  # fmt: skip


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
        m = ((1 if h1 >= layer else 0) | (2 if h2 >= layer else 0) | (4 if h3 >= layer else 0)
             | (8 if h4 >= layer else 0) | (16 if h5 >= layer else 0))  # fmt: skip
        if m == 0:
            return realized + potential_weight * potential
        prefix = SERIES_PREFIX[m]
        top = SERIES_TOP[m]
        realized += rules[R.R_CHURCH_SERIES_VP + prefix]
        potential += (rules[R.R_CHURCH_SERIES_VP + top] - rules[R.R_CHURCH_SERIES_VP + prefix]) / (
            1.0 + SERIES_GAPS[m])
        layer += 1


@hot_njit(inline="always")
def church_value_nb(occ, s, rules, extra_size, potential_weight):
    """``series_value_nb`` of seat s's churches."""
    return series_value_nb(church_counts_nb(occ, s), rules, extra_size, potential_weight)


@hot_njit
def estimate_total_nb(occ, player, s, rules):
    """Seat s's score if the game ended now (RULES.md §4)."""
    est = player[s, L.VP] + church_value_nb(occ, s, rules, 0, 0.0)
    est += player[s, L.COINS] // rules[R.R_COINS_PER_VP] + player[s, L.LOGS] * rules[R.R_VP_PER_LOG]
    est -= player[s, L.CANNONS_LOST] * rules[R.R_CANNON_PENALTY]
    if player[s, L.N_EMPTY] == 0:
        est += rules[R.R_FULL_CITY_VP]
    return est


@hot_njit
def lead_nb(occ, player, s, rules):
    """Seat s's estimated total minus the best other seat's."""
    best_other = NEG
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
    v = params[P_DEFENCE] * delta
    row_len = rules[R.R_PIRATE_BOXES_PER_PLAYER] * player.shape[0]
    next_row = pirates[L.PIRATE_ATTACKS]
    boxes_left = row_len * (next_row + 1) - pirates[L.PIRATE_BOXES]
    urgency = 1.0 - (boxes_left - 1) / row_len
    for row in range(next_row, rules[R.R_N_PIRATE_ROWS]):
        strength = rules[R.R_PIRATE_STRENGTHS + row]
        if d < strength <= d + delta:
            weight = params[P_PIRATE_LATER]
            if row == next_row:
                weight += (params[P_PIRATE_NEXT] - params[P_PIRATE_LATER]) * urgency
            v += weight * rules[R.R_CANNON_PENALTY]
    return v


@hot_njit(inline="always")
def side_walls_nb(occ, side, s):
    return popcount_nb(occ[s, WALL] & SIDE_MASK[side])


@hot_njit(inline="always")
def side_intact_nb(player, s, side):
    return ((player[s, L.SIDES_BROKEN] | player[s, L.SIDES_DONE]) >> side) & 1 == 0


@hot_njit(inline="always")
def bonus_value_nb(params, rules, side):
    kind = rules[R.R_WALL_BONUS_KIND + side]
    amount = rules[R.R_WALL_BONUS_AMOUNT + side]
    if kind == 1:
        return params[P_BONUS_PERSON]
    if kind == 2:
        return params[P_COIN] * amount
    if kind == 3:
        return float(amount)
    return 0.0


@hot_njit
def walls_values_nb(params, occ, player, pirates, s, rules, out, at):
    """out[at + k] <- value of k = 1..5 walls: placed on the intact sides nearest to complete first
    (ties: lower side), completed sides adding their bonus and defence. One pass for every k."""
    order = 0  # side of the i-th nearest intact side in bits 4i..4i+3 (no allocation per turn)
    needs = 0  # walls it still needs, likewise
    n_sides = 0
    done = 0
    for _ in range(4):  # intact sides by how many walls they still need
        best_side = -1
        best_need = 99
        for side in range(4):
            if (done >> side) & 1 or not side_intact_nb(player, s, side):
                continue
            need = popcount_nb(occ[s, EMPTY] & SIDE_MASK[side])
            if need < best_need:
                best_need = need
                best_side = side
        if best_side < 0:
            break
        done |= 1 << best_side
        order |= best_side << (4 * n_sides)
        needs |= best_need << (4 * n_sides)
        n_sides += 1
    for k in range(1, 6):
        v = 0.0
        left = k
        completed = 0
        for i in range(n_sides):
            if left == 0:
                break
            need = (needs >> (4 * i)) & 15
            used = min(left, need)
            for j in range(used):
                v += params[P_WALL] + params[P_WALL_PROGRESS] * (5 - need + j + 1) / 5.0
            left -= used
            if used == need:
                completed += 1
                v += bonus_value_nb(params, rules, (order >> (4 * i)) & 15)
        if completed > 0:
            v += defence_gain_nb(params, player, pirates, s, rules, completed * rules[R.R_SIDE_DEFENCE])
        out[at + k] = v


@hot_njit(inline="always")
def outer_cost_nb(params, occ, player, s, cell):
    """Cost of putting a non-wall on ``cell``: destroying an intact side and its walls."""
    side = SIDE_OF_CELL[cell]
    return side_break_cost_nb(params, occ, player, s, side) if side >= 0 else 0.0


@hot_njit(inline="always")
def side_break_cost_nb(params, occ, player, s, side):
    """Cost of destroying ``side`` (nothing once it is complete or broken)."""
    if not side_intact_nb(player, s, side):
        return 0.0
    return params[P_OUTER_BREAK] * (1.0 + side_walls_nb(occ, side, s))


@hot_njit(inline="always")
def scan_inputs_nb(params, occ, player, s):
    """What the cell scans read for every cell, loaded once: (the cells of each person type,
    the cost of breaking each side)."""
    persons = (occ[s, PERSON_0], occ[s, PERSON_0 + 1], occ[s, PERSON_0 + 2], occ[s, PERSON_0 + 3],
               occ[s, PERSON_0 + 4], occ[s, PERSON_0 + 5], occ[s, PERSON_0 + 6])  # fmt: skip
    side_cost = (side_break_cost_nb(params, occ, player, s, 0), side_break_cost_nb(params, occ, player, s, 1),
                 side_break_cost_nb(params, occ, player, s, 2), side_break_cost_nb(params, occ, player, s, 3))  # fmt: skip
    return persons, side_cost


@hot_njit(inline="always")
def outer_cost_at_nb(side_cost, cell):
    """outer_cost_nb from the scan's side costs."""
    side = SIDE_OF_CELL[cell]
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
    empty = occ[s, EMPTY]
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
    near = NEIGH8_MASK[cell]
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
    return rules[R.R_HOUSE_VP] - rules[R.R_VP_PER_LOG] + params[P_FILL]


@hot_njit(inline="always")
def person_cell_value_nb(params, occ, player, pirates, s, rules, person, cell, houses):
    """Value of ``person`` on empty ``cell``: its effect now plus where it stands (``houses``:
    what an architect there could build). The definition, cell by cell: the scans
    (``best_persons_nb``, ``place_values_nb``) compute the same terms with what cells share
    hoisted, and the tests hold them to it."""
    near = NEIGH8_MASK[cell]
    v = -outer_cost_nb(params, occ, player, s, cell)
    if person == CITIZEN:
        v += rules[R.R_CITIZEN_VP]
    elif person == SOLDIER:
        v += defence_gain_nb(params, player, pirates, s, rules, rules[R.R_SOLDIER_DEFENCE])
    elif person == PRIEST:
        v += rules[R.R_PRIEST_VP_PER_CHURCH] * popcount_nb(near & church_mask_nb(occ, s))
    elif person == ARCHITECT:
        v += houses * house_gain_nb(params, rules)
    elif person == MERCHANT:
        v += params[P_COIN] * rules[R.R_MERCHANT_COINS_PER_CRATE] * popcount_nb(near & occ[s, CRATE])
    elif person == JUGGLER:
        v += rules[R.R_JUGGLER_VP_PER_TYPE] * count_person_types_nb(occ, s, near)
    else:
        v += rules[R.R_NOBLE_VP]
    if person != MERCHANT:
        v -= params[P_MERCHANT_SPOT] * 0.25 * popcount_nb(near & occ[s, CRATE])
    v += params[P_PERSON_CLUSTER] * 0.5 * count_person_types_nb(occ, s, near)
    return v


@hot_njit
def best_persons_nb(params, occ, player, pirates, s, rules, starts, out, at):
    """out[at + p] <- each person's value on its best empty cell (NEG without one), in one scan of
    the city: the same terms as person_cell_value_nb, with each cell's features computed once and
    everything the scan reads held in locals. Returns (most houses an architect could build on
    any empty cell, most crates next to one)."""
    churches = church_mask_nb(occ, s)
    crates = occ[s, CRATE]
    persons, side_cost = scan_inputs_nb(params, occ, player, s)
    cap = house_cap_nb(player, s, rules)
    soldier = defence_gain_nb(params, player, pirates, s, rules, rules[R.R_SOLDIER_DEFENCE])
    house = house_gain_nb(params, rules)
    coin_per_crate = params[P_COIN] * rules[R.R_MERCHANT_COINS_PER_CRATE]
    cluster = params[P_PERSON_CLUSTER] * 0.5
    spot = params[P_MERCHANT_SPOT] * 0.25
    citizen = rules[R.R_CITIZEN_VP]
    priest = rules[R.R_PRIEST_VP_PER_CHURCH]
    juggler = rules[R.R_JUGGLER_VP_PER_TYPE]
    noble = rules[R.R_NOBLE_VP]
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = NEG
    best_houses = 0
    best_crates = 0
    m = occ[s, EMPTY]
    while m != ZERO:
        c = lowest_bit_nb(m)
        m &= m - np.uint64(1)
        near = NEIGH8_MASK[c]
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
    v = params[P_FILL] * filled
    if filled > 0 and filled >= player[s, L.N_EMPTY]:
        v += rules[R.R_FULL_CITY_VP] + params[P_FINISH] * lead
    return v


@hot_njit(inline="always")
def exact_use_value_nb(params, occ, player, memo, s, rules, symbol, k, churches):
    """Value of using exactly k dice of ``symbol``, not heads (no rotation); NEG when illegal.
    ``churches``: church_counts_nb of the seat."""
    n_empty = player[s, L.N_EMPTY]
    coins = player[s, L.COINS]
    if symbol == LOG:
        if coins < rules[R.R_LOG_DELIVERY_COST]:
            return NEG
        return params[P_LOG] * k - params[P_COIN] * rules[R.R_LOG_DELIVERY_COST]
    if symbol == CRATE_FACE:
        if k > memo[M_LARGEST]:
            return NEG
        # the first crate can go beside the most crates; later ones beside the new group
        near = min(memo[M_BEST_CRATE_NEAR], 3.0) + (k - 1)
        return k * params[P_CRATE] + params[P_CRATE_CLUSTER] * near + finish_value_nb(
            params, player, s, rules, k, memo[M_LEAD])
    if symbol == WALL_FACE:
        if k > popcount_nb(occ[s, EMPTY] & U_OUTER):
            return NEG
        return memo[M_WALLS + k] + finish_value_nb(params, player, s, rules, k, memo[M_LEAD])
    if n_empty == 0:
        return NEG
    # a cross
    gain = series_value_nb(churches, rules, k, params[P_CHURCH_POTENTIAL]) - memo[M_SERIES]
    weight = params[P_CHURCH] if params[P_CHURCH] > 0.0 else 1.0
    return weight * gain + finish_value_nb(params, player, s, rules, 1, memo[M_LEAD])


@hot_njit(inline="always")
def head_value_nb(params, player, memo, s, rules, person):
    """Value of buying ``person`` with heads (no rotation): on its best cell; NEG without one."""
    if player[s, L.N_EMPTY] == 0:
        return NEG
    v = memo[M_PERSON + person]
    if person == ARCHITECT:
        return v + finish_value_nb(params, player, s, rules, 1 + int(memo[M_BEST_N]), memo[M_LEAD])
    return v + finish_value_nb(params, player, s, rules, 1, memo[M_LEAD])


@hot_njit(inline="always")
def turn_table_nb(params, ctx, occ, player, pirates, memo, s, rules):
    """Make w.memo this turn's table (``fill_turn_table_nb``) unless it already is."""
    key = float(ctx[L.CTX_TURN])
    if memo[M_KEY] != key:
        fill_turn_table_nb(params, occ, player, pirates, memo, s, rules)
        memo[M_KEY] = key


@hot_njit
def fill_turn_table_nb(params, occ, player, pirates, memo, s, rules):
    """Fill w.memo for this turn: the value of each person on its best cell and of using exactly
    k dice of each symbol (heads: the best person for k). The city does not change while the
    dice roll, so KEEP and USE decisions of one turn share it."""
    memo[M_SERIES] = church_value_nb(occ, s, rules, 0, params[P_CHURCH_POTENTIAL])
    walls_values_nb(params, occ, player, pirates, s, rules, memo, M_WALLS)
    starts = house_starts_nb(occ, s)
    # the largest group of empty cells, up to 5 (no use places more): starts[h - 1] is non-empty
    # iff some group has h cells or more
    largest = 0
    for m in starts:
        if m != ZERO:
            largest += 1
    memo[M_LARGEST] = largest
    best_houses, best_crates = best_persons_nb(params, occ, player, pirates, s, rules, starts, memo, M_PERSON)
    memo[M_BEST_N] = best_houses
    memo[M_BEST_CRATE_NEAR] = best_crates
    # the lead is read only by a use that fills the city: at most 5 dice of crates or walls, or
    # an architect and his houses. Earlier it is not needed (and it costs a tenth of the table).
    if player[s, L.N_EMPTY] <= max(5, 1 + best_houses):
        memo[M_LEAD] = lead_nb(occ, player, s, rules)
    else:
        memo[M_LEAD] = 0.0
    churches = church_counts_nb(occ, s)
    for symbol in range(5):
        memo[M_EXACT + symbol * 6] = 0.0
        for k in range(1, 6):
            if symbol == HEAD:
                memo[M_EXACT + symbol * 6 + k] = NEG  # the persons below fill it
            else:
                memo[M_EXACT + symbol * 6 + k] = exact_use_value_nb(params, occ, player, memo, s, rules, symbol, k,
                                                                    churches)  # fmt: skip
    for p in range(L.N_PERSONS):  # heads: the best person that number of heads buys
        at = M_EXACT + HEAD * 6 + L.PERSON_HEADS[p]
        memo[at] = max(memo[at], head_value_nb(params, player, memo, s, rules, p))
    cost = rules[R.R_ROTATION_COST]
    affordable = player[s, L.COINS] // cost if cost > 0 else 5
    rotation_value = params[P_COIN] * cost
    for symbol in range(5):
        # best using at most n dice of the symbol (0: use them elsewhere, worth about nothing) ...
        prefix = 0.0
        for n in range(6):
            if n > 0:
                prefix = max(prefix, memo[M_EXACT + symbol * 6 + n])
            memo[M_BEST + symbol * 6 + n] = prefix
        # ... then with up to `affordable` more dice rotated to it; n rising, so the entries n + r
        # read are still the unrotated prefix maxima (rotations are never counted twice)
        for n in range(6):
            best = memo[M_BEST + symbol * 6 + n]
            for r in range(1, min(affordable, 5 - n) + 1):
                best = max(best, memo[M_BEST + symbol * 6 + n + r] - r * rotation_value)
            memo[M_BEST + symbol * 6 + n] = best


@hot_njit(inline="always")
def keep_nb(params, ctx, dice, memo):
    """Reroll mask: roll again every die not showing the most promising symbol, or 0 to stop
    (``memo``: this turn's table)."""
    odds = REROLL_ODDS[2 - ctx[L.CTX_ROLL]]  # rolls left: 3 - roll
    best_now = 0.0
    best_symbol = -1
    best_expect = NEG
    for symbol in range(5):
        shown = 0
        for d in range(5):
            shown += dice[d] == symbol
        now = memo[M_BEST + symbol * 6 + shown]
        if now > best_now:
            best_now = now
        rolled = 5 - shown
        if params[P_LOOKAHEAD] > 0.0:
            expect = 0.0
            for j in range(rolled + 1):  # j of the rolled dice come up as symbol
                expect += odds[rolled, j] * memo[M_BEST + symbol * 6 + shown + j]
        else:
            expect = now
        if expect > best_expect + 1e-9:
            best_expect = expect
            best_symbol = symbol
    if best_symbol < 0:
        return 31
    if params[P_LOOKAHEAD] > 0.0 and best_expect - best_now <= params[P_KEEP_MARGIN]:
        return 0
    mask = 0
    for d in range(5):
        if dice[d] != best_symbol:
            mask |= 1 << d
    return mask


@hot_njit(inline="always")
def use_row_value_nb(params, cands, occ, player, pirates, memo, s, rules, row):
    symbol = cands[row, L.C_SYMBOL]
    if symbol == L.NO_SYMBOL:
        return 0.0
    k = cands[row, L.C_K]
    v = -params[P_COIN] * cands[row, L.C_ROTATED] * rules[R.R_ROTATION_COST]
    if symbol == HEAD:
        return v + head_value_nb(params, player, memo, s, rules, cands[row, L.C_PERSON])
    return v + memo[M_EXACT + symbol * 6 + k]


@hot_njit
def place_values_nb(params, occ, player, pirates, s, rules, what, cands, n, values):
    """values[i] <- value of putting ``what`` (a Cell code) on the empty cell cands[i, 0]. What
    every cell shares is computed once; persons as in person_cell_value_nb."""
    crates = occ[s, CRATE]
    if what == WALL:
        progress = 0.1 * params[P_WALL_PROGRESS]
        for i in range(n):
            side = SIDE_OF_CELL[cands[i, 0]]
            if side >= 0 and side_intact_nb(player, s, side):
                values[i] = 1.0 + side_walls_nb(occ, side, s) + progress
            else:
                values[i] = 0.0
        return
    persons, side_cost = scan_inputs_nb(params, occ, player, s)
    churches = church_mask_nb(occ, s)
    spot = params[P_MERCHANT_SPOT] * 0.25
    if what >= PERSON_0:
        person = what - PERSON_0
        cap = house_cap_nb(player, s, rules)
        starts = house_starts_nb(occ, s) if person == ARCHITECT else (ZERO, ZERO, ZERO, ZERO, ZERO)
        house = house_gain_nb(params, rules)
        coin_per_crate = params[P_COIN] * rules[R.R_MERCHANT_COINS_PER_CRATE]
        cluster = params[P_PERSON_CLUSTER] * 0.5
        if person == SOLDIER:
            flat = defence_gain_nb(params, player, pirates, s, rules, rules[R.R_SOLDIER_DEFENCE])
        elif person == CITIZEN:
            flat = float(rules[R.R_CITIZEN_VP])
        else:
            flat = float(rules[R.R_NOBLE_VP])
        for i in range(n):
            c = cands[i, 0]
            near = NEIGH8_MASK[c]
            n_crates = popcount_nb(near & crates)
            n_types = person_types_near_nb(persons, near)
            v = -outer_cost_at_nb(side_cost, c)
            if person == PRIEST:
                v += rules[R.R_PRIEST_VP_PER_CHURCH] * popcount_nb(near & churches)
            elif person == ARCHITECT:
                v += houses_at_nb(starts, cap, c) * house
            elif person == MERCHANT:
                v += coin_per_crate * n_crates
            elif person == JUGGLER:
                v += rules[R.R_JUGGLER_VP_PER_TYPE] * n_types
            else:
                v += flat
            if person != MERCHANT:
                v -= spot * n_crates
            v += cluster * n_types
            values[i] = v
        return
    crate_cluster = params[P_CRATE_CLUSTER]
    church_cluster = params[P_CHURCH_CLUSTER]
    room = 0.1 * params[P_CHURCH_CLUSTER]  # room for a priest
    empty = occ[s, EMPTY]
    for i in range(n):
        c = cands[i, 0]
        near = NEIGH8_MASK[c]
        v = -outer_cost_at_nb(side_cost, c)
        if what == CRATE:
            v += crate_cluster * popcount_nb(near & crates)
        elif what >= CHURCH_1:
            v += church_cluster * popcount_nb(near & churches)
            v += room * popcount_nb(near & empty)
            v -= spot * popcount_nb(near & crates)
        else:  # a house
            v -= spot * popcount_nb(near & crates)
        values[i] = v


@hot_njit
def pick_best_nb(values, n, rng, seat):
    """Index of the best of values[:n], ties broken uniformly at random (policy stream)."""
    best = NEG * 10
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


@hot_njit(inline="always")
def heuristic_choice_nb(params, s, w, rules):
    """The parameterised heuristic's pick at any decision. Inlined into the engine's one call
    site per decision; the work is in two functions that take only the arrays they read (a call
    costs in proportion to its arguments)."""
    if w.ctx[L.CTX_DECISION] == KEEP:
        return heuristic_keep_nb(params, s, w.ctx, w.dice, w.occ, w.player, w.pirates, w.memo, rules)
    return heuristic_pick_nb(params, s, w.ctx, w.cands, w.occ, w.player, w.pirates, w.memo, w.values, w.rng, rules)


@hot_njit
def heuristic_keep_nb(params, s, ctx, dice, occ, player, pirates, memo, rules):
    """KEEP: the reroll mask (row i of the candidates is mask i)."""
    turn_table_nb(params, ctx, occ, player, pirates, memo, s, rules)
    return keep_nb(params, ctx, dice, memo)


@hot_njit
def heuristic_pick_nb(params, s, ctx, cands, occ, player, pirates, memo, values, rng, rules):
    """Every decision but KEEP: value each candidate row, pick the best."""
    decision = ctx[L.CTX_DECISION]
    n = ctx[L.CTX_N]
    if decision == USE:
        turn_table_nb(params, ctx, occ, player, pirates, memo, s, rules)
        for i in range(n):
            values[i] = use_row_value_nb(params, cands, occ, player, pirates, memo, s, rules, i)
    elif decision == PLACE:
        place_values_nb(params, occ, player, pirates, s, rules, ctx[L.CTX_WHAT], cands, n, values)
    elif decision == HOUSES:
        for i in range(n):
            values[i] = cands[i, 0] * house_gain_nb(params, rules)
    elif decision == BONUS_PERSON:
        # the city has changed since the turn's table: every person's best cell, in one scan
        best_persons_nb(params, occ, player, pirates, s, rules, house_starts_nb(occ, s), memo, M_BONUS_PERSON)
        for i in range(n):
            values[i] = memo[M_BONUS_PERSON + cands[i, 0]]
    else:
        for i in range(n):
            values[i] = 0.0
    return pick_best_nb(values, n, rng, s)
