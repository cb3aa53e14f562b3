"""A whole game of Saint Malo, and batches of them in parallel (RULES.md §3-§6).

State travels in two bundles: ``Work``, the buffers one game mutates (allocated once per thread
chunk, never per turn), and ``Seats``, who decides for each seat (``kind`` int64[P], ``params``
float64[P, N_PARAMS], ``fns`` a 5-tuple of POLICY_SIG functions). ``play_game_nb`` plays one
game and writes its final breakdown into ``score`` (int64[P, N_SCORE_FIELDS]) and ``game_out``
(int64[N_GAME_FIELDS], the ``G_*`` fields); ``play_games_nb`` runs many over all threads. Game
g's dice depend only on (seed, g).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from smsim import layout as L
from smsim import rules as R
from smsim.engine import events as E
from smsim.engine.actions import (
    CRATE_FACE,
    HEAD,
    LOG,
    SWORDS,
    U_OUTER,
    WALL_FACE,
    group_cells_nb,
    house_cells_nb,
    list_cells_nb,
    list_uses_nb,
)
from smsim.engine.city import (
    ARCHITECT,
    CHURCH_1,
    CRATE,
    EMPTY,
    HOUSE,
    PERSON_0,
    SIDE_MASK,
    WALL,
    ZERO,
    apply_person_nb,
    bit_nb,
    fill_cell_nb,
    lowest_bit_nb,
    max_houses_nb,
    newly_complete_sides_nb,
    popcount_nb,
    reset_city_nb,
)
from smsim.engine.dice import game_key_nb, roll_die_nb, seed_policy_streams_nb
from smsim.engine.memory import borrow_nb, hot_njit
from smsim.engine.pirates import mark_swords_nb
from smsim.engine.scoring import N_SCORE_FIELDS, score_game_nb
from smsim.policies.dispatch import choose_nb
from smsim.policies.heuristics import M_END

G_ROUNDS, G_ABORTED, G_FILLED, G_ATTACKS, G_BOXES, G_WINNERS, G_ERROR, G_ERROR_SEAT = range(8)
G_ATTACK_ROUND = 8  # MAX_PIRATE_ROWS fields: the round of each attack, -1 if none
N_GAME_FIELDS = G_ATTACK_ROUND + L.MAX_PIRATE_ROWS
GAME_FIELD_NAMES = ("rounds", "aborted", "filled", "attacks", "boxes", "winners", "error", "error_seat")
# G_ERROR: 0, or 1 + the Decision at which a policy returned a row outside its candidates
MEMO_SIZE = 128  # float64 scratch a built-in policy may keep within one turn

# numba does not bounds-check: the heuristic's memo layout must fit the buffer
assert MEMO_SIZE >= M_END, f"MEMO_SIZE {MEMO_SIZE} < heuristic memo {M_END}"

KEEP = int(L.Decision.KEEP)
USE = int(L.Decision.USE)
PLACE = int(L.Decision.PLACE)
HOUSES = int(L.Decision.HOUSES)
BONUS_SIDE = int(L.Decision.BONUS_SIDE)
BONUS_PERSON = int(L.Decision.BONUS_PERSON)

Work = namedtuple(
    "Work",
    ["city", "occ", "player", "pirates", "dice", "counts", "cands", "ctx", "rng", "values", "memo", "status",
     "trace", "trace_n"],
)  # fmt: skip
Seats = namedtuple("Seats", ["kind", "params", "fns"])


@njit(cache=True)
def new_work_nb(n_players, trace):
    """Fresh buffers for one thread: city int8[P, 49], occ uint64[P, 17], player int64[P, F],
    pirates int64[2], dice int64[5], counts int64[6] (faces of the final dice), cands
    int64[MAX_CANDS, 4], ctx int64[N_CTX], rng uint64[P], values and memo float64 scratch for
    policies, status int64[2] (error code, seat), and the trace (0 rows: not traced)."""
    return Work(
        np.zeros((n_players, 49), dtype=np.int8),
        np.zeros((n_players, L.N_CELL_CODES), dtype=np.uint64),
        np.zeros((n_players, L.N_PLAYER_FIELDS), dtype=np.int64),
        np.zeros(L.N_PIRATE_FIELDS, dtype=np.int64),
        np.zeros(5, dtype=np.int64),
        np.zeros(6, dtype=np.int64),
        np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64),
        np.zeros(L.N_CTX, dtype=np.int64),
        np.zeros(n_players, dtype=np.uint64),
        np.zeros(L.MAX_CANDS, dtype=np.float64),
        np.zeros(MEMO_SIZE, dtype=np.float64),
        np.zeros(2, dtype=np.int64),
        trace,
        np.zeros(1, dtype=np.int64),
    )


# Inlined, as are place_cells_nb and play_turn_nb: a call passes the Work tuple flattened into
# some 110 machine words, and that hop cost more than a random policy's whole decision.
@hot_njit(inline="always")
def ask_nb(decision, n, s, w, seats, rules):
    """Seat s's policy picks one of n >= 1 candidates in w.cands. A row out of range is recorded
    in w.status (the game goes on with row 0 and the run reports the policy)."""
    w.ctx[L.CTX_DECISION] = decision
    w.ctx[L.CTX_SEAT] = s
    w.ctx[L.CTX_N] = n
    row = choose_nb(seats, s, w, rules)
    if row < 0 or row >= n:
        if w.status[0] == 0:
            w.status[0] = 1 + decision
            w.status[1] = s
        return 0
    return row


@hot_njit(inline="always")
def place_cells_nb(what, k, role, anchor, s, w, seats, rules):
    """Place k cells of Cell code ``what``, one decision each (RULES.md §5): walls on empty outer
    spaces; crates and houses as one orthogonally connected group (houses: the first touching the
    architect on ``anchor``); a church or a person on any empty space. Returns the cells' mask."""
    group = ZERO
    w.ctx[L.CTX_WHAT] = what
    w.ctx[L.CTX_ANCHOR] = anchor
    for i in range(k):
        empty = w.occ[s, EMPTY]
        if what == WALL:
            allowed = empty & U_OUTER
        elif what == CRATE:
            allowed = group_cells_nb(empty, group, k)
        elif what == HOUSE:
            allowed = house_cells_nb(empty, group, k, anchor)
        else:
            allowed = empty
        n = list_cells_nb(allowed, w.cands)
        w.ctx[L.CTX_LEFT] = k - i
        w.ctx[L.CTX_GROUP] = np.int64(group)
        cell = w.cands[ask_nb(PLACE, n, s, w, seats, rules), 0]
        fill_cell_nb(w.city, w.occ, w.player, s, cell, what)
        group |= bit_nb(cell)
        E.record_nb(w.trace, w.trace_n, E.EV_PLACE, cell, what, role, 0, 0, 0, 0)
    return group


# Not inlined: it holds two placements, and inlining it where it is called cost 28 s of first
# compile (46 -> 74 s) for about 3% of speed.
@hot_njit
def person_nb(person, role, s, w, seats, rules):
    """Place a person on an empty space with its effect; an architect then builds houses."""
    cell = lowest_bit_nb(place_cells_nb(PERSON_0 + person, 1, role, -1, s, w, seats, rules))
    apply_person_nb(w.occ, w.player, s, cell, person, rules)
    if person != ARCHITECT:
        return
    h_max = max_houses_nb(w.occ, w.player, s, cell, rules)
    if h_max == 0:
        return
    for h in range(h_max + 1):
        w.cands[h, 0] = h
    w.ctx[L.CTX_ANCHOR] = cell
    h = w.cands[ask_nb(HOUSES, h_max + 1, s, w, seats, rules), 0]
    if h == 0:
        return
    place_cells_nb(HOUSE, h, E.PLACED_HOUSE, cell, s, w, seats, rules)
    w.player[s, L.LOGS] -= h
    w.player[s, L.LOGS_USED] += h
    w.player[s, L.VP] += h * rules[R.R_HOUSE_VP]
    w.player[s, L.VP_HOUSES] += h * rules[R.R_HOUSE_VP]


@hot_njit
def take_wall_bonuses_nb(new_sides, s, w, seats, rules):
    """Give the bonus of every side completed this turn, in the order the seat picks (§5 Wall)."""
    w.player[s, L.SIDES_DONE] |= new_sides
    for side in range(4):
        if (new_sides >> side) & 1:
            w.player[s, L.SIDE_ROUND + side] = w.ctx[L.CTX_ROUND]
    left = new_sides
    while left != 0:
        n = 0
        for side in range(4):
            if (left >> side) & 1:
                w.cands[n, 0] = side
                n += 1
        side = w.cands[ask_nb(BONUS_SIDE, n, s, w, seats, rules) if n > 1 else 0, 0]
        left &= ~(1 << side)
        kind = rules[R.R_WALL_BONUS_KIND + side]
        amount = rules[R.R_WALL_BONUS_AMOUNT + side]
        person = -1
        if kind == 2:  # coins
            w.player[s, L.COINS] += amount
            w.player[s, L.COINS_WALL_BONUS] += amount
        elif kind == 3:  # vp
            w.player[s, L.VP] += amount
            w.player[s, L.VP_WALL_BONUS] += amount
        elif kind == 1 and w.occ[s, EMPTY] != ZERO:  # a person of at most `amount` heads
            n = 0
            for p in range(L.N_PERSONS):
                if L.PERSON_HEADS[p] <= amount:
                    w.cands[n, 0] = p
                    n += 1
            person = w.cands[ask_nb(BONUS_PERSON, n, s, w, seats, rules), 0]
        E.record_nb(w.trace, w.trace_n, E.EV_BONUS, side, kind, amount, person, 0, 0, 0)
        if person >= 0:
            w.player[s, L.BONUS_PERSONS] += 1
            person_nb(person, E.PLACED_BONUS, s, w, seats, rules)


@hot_njit(inline="always")
def play_turn_nb(game_key, rnd, s, w, seats, rules):
    """One turn of seat s (RULES.md §3): roll with keeps, use one symbol, mark the swords."""
    E.record_nb(w.trace, w.trace_n, E.EV_TURN, rnd, s, 0, 0, 0, 0, 0)
    w.ctx[L.CTX_ROUND] = rnd
    w.ctx[L.CTX_TURN] += 1
    dice = w.dice
    for d in range(5):
        dice[d] = roll_die_nb(game_key, rnd, s, 0, d)
    E.record_nb(w.trace, w.trace_n, E.EV_ROLL, dice[0], dice[1], dice[2], dice[3], dice[4], 0, 0)
    for roll in range(1, 3):
        for mask in range(32):
            w.cands[mask, 0] = mask
        w.ctx[L.CTX_ROLL] = roll
        mask = w.cands[ask_nb(KEEP, 32, s, w, seats, rules), 0]
        if mask == 0:
            break
        for d in range(5):
            if (mask >> d) & 1:
                dice[d] = roll_die_nb(game_key, rnd, s, roll, d)
        E.record_nb(w.trace, w.trace_n, E.EV_REROLL, mask, 0, 0, 0, 0, 0, 0)
        E.record_nb(w.trace, w.trace_n, E.EV_ROLL, dice[0], dice[1], dice[2], dice[3], dice[4], 0, 0)

    n = list_uses_nb(dice, w.counts, w.player[s, L.COINS], w.occ, s, rules, w.cands)
    row = ask_nb(USE, n, s, w, seats, rules)
    symbol = w.cands[row, L.C_SYMBOL]
    k = w.cands[row, L.C_K]
    rotated = w.cands[row, L.C_ROTATED]
    person = w.cands[row, L.C_PERSON]
    rotation_cost = rotated * rules[R.R_ROTATION_COST]
    delivery_cost = rules[R.R_LOG_DELIVERY_COST] if symbol == LOG else 0
    E.record_nb(w.trace, w.trace_n, E.EV_USE, symbol, k, rotated, person, rotation_cost, delivery_cost, 0)
    w.ctx[L.CTX_SYMBOL] = symbol
    w.ctx[L.CTX_K] = k
    p = w.player
    p[s, L.COINS] -= rotation_cost + delivery_cost
    p[s, L.COINS_ROTATION] += rotation_cost
    p[s, L.COINS_DELIVERY] += delivery_cost
    p[s, L.N_ROTATED] += rotated
    if symbol == L.NO_SYMBOL:
        p[s, L.N_PASSES] += 1
    elif symbol == LOG:
        p[s, L.LOGS] += k
        p[s, L.LOGS_DELIVERED] += k
    elif symbol == CRATE_FACE:
        place_cells_nb(CRATE, k, E.PLACED_ACTION, -1, s, w, seats, rules)
    elif symbol == WALL_FACE:
        place_cells_nb(WALL, k, E.PLACED_ACTION, -1, s, w, seats, rules)
        new_sides = newly_complete_sides_nb(w.occ, p, s)
        if new_sides != 0:
            take_wall_bonuses_nb(new_sides, s, w, seats, rules)
    elif symbol == HEAD:
        person_nb(person, E.PLACED_ACTION, s, w, seats, rules)
    else:  # cross: one church of size k
        place_cells_nb(CHURCH_1 + k - 1, 1, E.PLACED_ACTION, -1, s, w, seats, rules)

    n_swords = w.counts[SWORDS]
    E.record_nb(w.trace, w.trace_n, E.EV_SWORDS, n_swords, 0, 0, 0, 0, 0, 0)
    mark_swords_nb(n_swords, rnd, w.pirates, p, rules, w.trace, w.trace_n)
    E.record_after_nb(w.trace, w.trace_n, p, rules)


@hot_njit
def play_game_nb(game_key, w, seats, rules, start_crates, score, game_out):
    """Play one game from its key to the final score (RULES.md §4).

    Rounds are played in full; the game ends after the round in which some city became full,
    or is marked aborted at rules[R_MAX_ROUNDS] rounds.
    """
    n_players = w.player.shape[0]
    for s in range(n_players):
        reset_city_nb(w.city, w.occ, w.player, s, start_crates, rules)
    for f in range(w.pirates.shape[0]):
        w.pirates[f] = -1 if f >= L.PIRATE_ATTACK_ROUND else 0
    w.status[0] = 0
    w.status[1] = -1
    w.ctx[L.CTX_TURN] = 0
    w.memo[0] = -1.0  # policies' per-turn memo is keyed on CTX_TURN, which restarts each game
    seed_policy_streams_nb(game_key, w.rng)
    rounds = 0
    full = False
    for rnd in range(rules[R.R_MAX_ROUNDS]):
        for s in range(n_players):
            play_turn_nb(game_key, rnd, s, w, seats, rules)
        rounds = rnd + 1
        for s in range(n_players):
            if w.player[s, L.N_EMPTY] == 0:
                full = True
        if full:
            break
    for s in range(n_players):
        for side in range(4):
            w.player[s, L.SIDE_WALLS + side] = popcount_nb(w.occ[s, WALL] & SIDE_MASK[side])
    winners = score_game_nb(w.occ, w.player, rules, score)
    filled = 0
    for s in range(n_players):
        if w.player[s, L.N_EMPTY] == 0:
            filled |= 1 << s
    game_out[G_ROUNDS] = rounds
    game_out[G_ABORTED] = 0 if full else 1
    game_out[G_FILLED] = filled
    game_out[G_ATTACKS] = w.pirates[L.PIRATE_ATTACKS]
    game_out[G_BOXES] = w.pirates[L.PIRATE_BOXES]
    game_out[G_WINNERS] = winners
    game_out[G_ERROR] = w.status[0]
    game_out[G_ERROR_SEAT] = w.status[1]
    for row in range(L.MAX_PIRATE_ROWS):
        game_out[G_ATTACK_ROUND + row] = w.pirates[L.PIRATE_ATTACK_ROUND + row]
    E.record_nb(w.trace, w.trace_n, E.EV_END, rounds, game_out[G_ABORTED], 0, 0, 0, 0, 0)


@njit(cache=True)
def play_one_nb(seed_key, game, rules, start_crates, kind, params, fns, trace):
    """Play game ``game`` alone with its trace; returns (score, player, city, game_out, rows traced)."""
    n_players = kind.shape[0]
    w = new_work_nb(n_players, trace)
    score = np.zeros((n_players, N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(N_GAME_FIELDS, dtype=np.int64)
    play_game_nb(game_key_nb(seed_key, game), w, Seats(kind, params, fns), rules, start_crates, score, game_out)
    return score, w.player, w.city, game_out, w.trace_n[0]


@hot_njit
def borrow_work_nb(w):
    """``w`` with every buffer borrowed (``memory.borrow_nb``): the caller keeps ``w`` alive."""
    return Work(
        borrow_nb(w.city), borrow_nb(w.occ), borrow_nb(w.player), borrow_nb(w.pirates), borrow_nb(w.dice),
        borrow_nb(w.counts), borrow_nb(w.cands), borrow_nb(w.ctx), borrow_nb(w.rng), borrow_nb(w.values),
        borrow_nb(w.memo), borrow_nb(w.status), borrow_nb(w.trace), borrow_nb(w.trace_n),
    )  # fmt: skip


@hot_njit
def play_borrowed_nb(seed_key, first, w, rules, start_crates, kind, params, fns, score_out, player_out, game_out):
    """The loop of ``play_games_nb`` on borrowed views. Its arguments are owned by the caller
    for the whole call, so the views cannot outlive them."""
    w = borrow_work_nb(w)
    seats = Seats(borrow_nb(kind), borrow_nb(params), fns)
    rules = borrow_nb(rules)
    start_crates = borrow_nb(start_crates)
    score_out = borrow_nb(score_out)
    player_out = borrow_nb(player_out)
    game_out = borrow_nb(game_out)
    for g in range(game_out.shape[0]):
        play_game_nb(game_key_nb(seed_key, first + g), w, seats, rules, start_crates, score_out[g], game_out[g])
        for s in range(w.player.shape[0]):  # element by element: a slice copy would allocate
            for f in range(w.player.shape[1]):
                player_out[g, s, f] = w.player[s, f]


@njit(cache=True, nogil=True)
def play_games_nb(seed_key, first, rules, start_crates, kind, params, fns, score_out, player_out, game_out):
    """Play games first .. first + G - 1 (G = game_out.shape[0]), releasing the GIL so that
    several threads can run chunks of a batch at once (``sim.run_games``).

    Outputs: score_out int64[G, P, N_SCORE_FIELDS], player_out int64[G, P, N_PLAYER_FIELDS],
    game_out int64[G, N_GAME_FIELDS]. Work buffers are allocated once per call; the games run
    on borrowed views of them and of the arguments (``smsim/engine/memory.py``).
    """
    w = new_work_nb(kind.shape[0], np.zeros((0, E.EVENT_WIDTH), dtype=np.int64))
    play_borrowed_nb(seed_key, first, w, rules, start_crates, kind, params, fns, score_out, player_out, game_out)
