"""A whole game of Saint Malo, and batches of them in parallel (RULES.md §3-§6).

``play_game_nb`` plays one game into work buffers owned by the caller (no allocation per turn)
and writes the final breakdown into ``score`` (int64[P, N_SCORE_FIELDS]). ``play_games_nb`` runs
games ``first .. first + n - 1`` over all threads; game g's dice depend only on (seed, g).

Game results: ``game_out[g, G_*]``.
"""

import numpy as np
from numba import njit, prange

from smsim import layout as L
from smsim import rules as R
from smsim.engine import events as E
from smsim.engine.actions import (
    HEAD,
    LOG,
    SWORDS,
    U_OUTER,
    WALL_FACE,
    CRATE_FACE,
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
from smsim.engine.pirates import mark_swords_nb
from smsim.engine.scoring import N_SCORE_FIELDS, score_game_nb
from smsim.policies.dispatch import choose_nb
from smsim.policies.heuristics import N_PARAMS

G_ROUNDS, G_ABORTED, G_FILLED, G_ATTACKS, G_BOXES, G_WINNERS, G_ERROR, G_ERROR_SEAT = range(8)
N_GAME_FIELDS = 8
GAME_FIELD_NAMES = ("rounds", "aborted", "filled", "attacks", "boxes", "winners", "error", "error_seat")
# G_ERROR: 0, or 1 + the Decision at which a policy returned a row outside its candidates

KEEP = int(L.Decision.KEEP)
USE = int(L.Decision.USE)
PLACE = int(L.Decision.PLACE)
HOUSES = int(L.Decision.HOUSES)
BONUS_SIDE = int(L.Decision.BONUS_SIDE)
BONUS_PERSON = int(L.Decision.BONUS_PERSON)


@njit(cache=True)
def new_work_nb(n_players):
    city = np.zeros((n_players, 49), dtype=np.int8)
    occ = np.zeros((n_players, L.N_CELL_CODES), dtype=np.uint64)
    player = np.zeros((n_players, L.N_PLAYER_FIELDS), dtype=np.int64)
    pirates = np.zeros(L.N_PIRATE_FIELDS, dtype=np.int64)
    dice = np.zeros(5, dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    cands = np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64)
    ctx = np.zeros(L.N_CTX, dtype=np.int64)
    rng = np.zeros(n_players, dtype=np.uint64)
    values = np.zeros(L.MAX_CANDS, dtype=np.float64)
    status = np.zeros(2, dtype=np.int64)  # error code, seat
    return city, occ, player, pirates, dice, counts, cands, ctx, rng, values, status


@njit(cache=True)
def ask_nb(decision, n, s, policy_kind, policy_params, ctx, dice, cands, occ, player, rules, rng, values, status):
    """The seat's policy picks one of n >= 1 candidates; a row out of range is recorded as an
    error (the game goes on with row 0 and is reported failed)."""
    ctx[L.CTX_DECISION] = decision
    ctx[L.CTX_SEAT] = s
    row = choose_nb(policy_kind[s], policy_params[s], ctx, dice, cands, n, occ, player, rules, rng, s, values)
    if row < 0 or row >= n:
        if status[0] == 0:
            status[0] = 1 + decision
            status[1] = s
        return 0
    return row


@njit(cache=True)
def place_cells_nb(
    what, k, role, anchor, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands, rules, rng,
    values, status, trace, trace_n,
):
    """Place k cells of Cell code ``what``, one decision each (RULES.md §5):

    walls on empty outer spaces; crates and houses as one orthogonally connected group (houses:
    the first touching the architect on ``anchor``); a church or a person on any empty space.
    """
    group = ZERO
    ctx[L.CTX_WHAT] = what
    ctx[L.CTX_ANCHOR] = anchor
    for i in range(k):
        empty = occ[s, EMPTY]
        if what == WALL:
            allowed = empty & U_OUTER
        elif what == CRATE:
            allowed = group_cells_nb(empty, group, k)
        elif what == HOUSE:
            allowed = house_cells_nb(empty, group, k, anchor)
        else:
            allowed = empty
        n = list_cells_nb(allowed, cands)
        ctx[L.CTX_LEFT] = k - i
        ctx[L.CTX_GROUP] = np.int64(group)
        row = ask_nb(PLACE, n, s, policy_kind, policy_params, ctx, dice, cands, occ, player, rules, rng, values, status)
        cell = cands[row, 0]
        fill_cell_nb(city, occ, player, s, cell, what)
        group |= bit_nb(cell)
        E.record_nb(trace, trace_n, E.EV_PLACE, cell, what, role, 0, 0, 0, 0)
    return group


@njit(cache=True)
def person_nb(
    person, role, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands, rules, rng, values, status,
    trace, trace_n,
):
    """Place a person on an empty space with its effect; an architect then builds houses."""
    cell = lowest_bit_nb(
        place_cells_nb(
            PERSON_0 + person, 1, role, -1, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands,
            rules, rng, values, status, trace, trace_n,
        )
    )
    apply_person_nb(occ, player, s, cell, person, rules)
    if person != ARCHITECT:
        return
    h_max = max_houses_nb(occ, player, s, cell, rules)
    for h in range(h_max + 1):
        cands[h, 0] = h
    ctx[L.CTX_ANCHOR] = cell
    h = 0
    if h_max > 0:
        h = cands[ask_nb(HOUSES, h_max + 1, s, policy_kind, policy_params, ctx, dice, cands, occ, player, rules, rng,
                         values, status), 0]
    if h == 0:
        return
    place_cells_nb(
        HOUSE, h, E.PLACED_HOUSE, cell, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands, rules,
        rng, values, status, trace, trace_n,
    )
    player[s, L.LOGS] -= h
    player[s, L.LOGS_USED] += h
    player[s, L.VP] += h * rules[R.R_HOUSE_VP]
    player[s, L.VP_HOUSES] += h * rules[R.R_HOUSE_VP]


@njit(cache=True)
def take_wall_bonuses_nb(
    new_sides, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands, rules, rng, values, status,
    trace, trace_n,
):
    """Give the bonus of every side completed this turn, in the order the seat picks (§5 Wall)."""
    player[s, L.SIDES_DONE] |= new_sides
    left = new_sides
    while left != 0:
        n = 0
        for side in range(4):
            if (left >> side) & 1:
                cands[n, 0] = side
                n += 1
        row = 0
        if n > 1:
            row = ask_nb(BONUS_SIDE, n, s, policy_kind, policy_params, ctx, dice, cands, occ, player, rules, rng,
                         values, status)
        side = cands[row, 0]
        left &= ~(1 << side)
        kind = rules[R.R_WALL_BONUS_KIND + side]
        amount = rules[R.R_WALL_BONUS_AMOUNT + side]
        if kind == 2:  # coins
            player[s, L.COINS] += amount
            player[s, L.COINS_WALL_BONUS] += amount
            E.record_nb(trace, trace_n, E.EV_BONUS, side, kind, amount, -1, 0, 0, 0)
        elif kind == 3:  # vp
            player[s, L.VP] += amount
            player[s, L.VP_WALL_BONUS] += amount
            E.record_nb(trace, trace_n, E.EV_BONUS, side, kind, amount, -1, 0, 0, 0)
        elif kind == 1:  # a person bought with at most `amount` heads; lost without an empty space
            person = -1
            if occ[s, EMPTY] != ZERO:
                n = 0
                for p in range(L.N_PERSONS):
                    if L.PERSON_HEADS[p] <= amount:
                        cands[n, 0] = p
                        n += 1
                person = cands[ask_nb(BONUS_PERSON, n, s, policy_kind, policy_params, ctx, dice, cands, occ, player,
                                      rules, rng, values, status), 0]
            E.record_nb(trace, trace_n, E.EV_BONUS, side, kind, amount, person, 0, 0, 0)
            if person >= 0:
                person_nb(person, E.PLACED_BONUS, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands,
                          rules, rng, values, status, trace, trace_n)
        else:
            E.record_nb(trace, trace_n, E.EV_BONUS, side, kind, amount, -1, 0, 0, 0)


@njit(cache=True)
def play_turn_nb(
    game_key, rnd, s, policy_kind, policy_params, city, occ, player, pirates, dice, counts, cands, ctx, rng,
    values, status, rules, trace, trace_n,
):
    """One turn of seat s (RULES.md §3): roll with keeps, use one symbol, mark the swords."""
    E.record_nb(trace, trace_n, E.EV_TURN, rnd, s, 0, 0, 0, 0, 0)
    ctx[L.CTX_ROUND] = rnd
    for d in range(5):
        dice[d] = roll_die_nb(game_key, rnd, s, 0, d)
    E.record_nb(trace, trace_n, E.EV_ROLL, dice[0], dice[1], dice[2], dice[3], dice[4], 0, 0)
    for roll in range(1, 3):
        for mask in range(32):
            cands[mask, 0] = mask
        ctx[L.CTX_ROLL] = roll
        mask = cands[ask_nb(KEEP, 32, s, policy_kind, policy_params, ctx, dice, cands, occ, player, rules, rng,
                            values, status), 0]
        if mask == 0:
            break
        for d in range(5):
            if (mask >> d) & 1:
                dice[d] = roll_die_nb(game_key, rnd, s, roll, d)
        E.record_nb(trace, trace_n, E.EV_REROLL, mask, 0, 0, 0, 0, 0, 0)
        E.record_nb(trace, trace_n, E.EV_ROLL, dice[0], dice[1], dice[2], dice[3], dice[4], 0, 0)

    n = list_uses_nb(dice, counts, player[s, L.COINS], occ, s, rules, cands)
    row = ask_nb(USE, n, s, policy_kind, policy_params, ctx, dice, cands, occ, player, rules, rng, values, status)
    symbol = cands[row, L.C_SYMBOL]
    k = cands[row, L.C_K]
    rotated = cands[row, L.C_ROTATED]
    person = cands[row, L.C_PERSON]
    rotation_cost = rotated * rules[R.R_ROTATION_COST]
    delivery_cost = rules[R.R_LOG_DELIVERY_COST] if symbol == LOG else 0
    E.record_nb(trace, trace_n, E.EV_USE, symbol, k, rotated, person, rotation_cost, delivery_cost, 0)
    ctx[L.CTX_SYMBOL] = symbol
    ctx[L.CTX_K] = k
    player[s, L.COINS] -= rotation_cost + delivery_cost
    player[s, L.COINS_ROTATION] += rotation_cost
    player[s, L.COINS_DELIVERY] += delivery_cost
    player[s, L.N_ROTATED] += rotated
    if symbol == L.NO_SYMBOL:
        player[s, L.N_PASSES] += 1
    elif symbol == LOG:
        player[s, L.LOGS] += k
        player[s, L.LOGS_DELIVERED] += k
    elif symbol == CRATE_FACE:
        place_cells_nb(CRATE, k, E.PLACED_ACTION, -1, s, policy_kind, policy_params, city, occ, player, ctx, dice,
                       cands, rules, rng, values, status, trace, trace_n)
    elif symbol == WALL_FACE:
        place_cells_nb(WALL, k, E.PLACED_ACTION, -1, s, policy_kind, policy_params, city, occ, player, ctx, dice,
                       cands, rules, rng, values, status, trace, trace_n)
        new_sides = newly_complete_sides_nb(occ, player, s)
        if new_sides != 0:
            take_wall_bonuses_nb(new_sides, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands,
                                 rules, rng, values, status, trace, trace_n)
    elif symbol == HEAD:
        person_nb(person, E.PLACED_ACTION, s, policy_kind, policy_params, city, occ, player, ctx, dice, cands, rules,
                  rng, values, status, trace, trace_n)
    else:  # cross: one church of size k
        place_cells_nb(CHURCH_1 + k - 1, 1, E.PLACED_ACTION, -1, s, policy_kind, policy_params, city, occ, player,
                       ctx, dice, cands, rules, rng, values, status, trace, trace_n)

    n_swords = counts[SWORDS]
    E.record_nb(trace, trace_n, E.EV_SWORDS, n_swords, 0, 0, 0, 0, 0, 0)
    mark_swords_nb(n_swords, pirates, player, rules, trace, trace_n)
    E.record_after_nb(trace, trace_n, player, rules)


@njit(cache=True)
def play_game_nb(
    game_key, rules, start_crates, policy_kind, policy_params, city, occ, player, pirates, dice, counts, cands, ctx,
    rng, values, status, score, game_out, trace, trace_n,
):
    """Play one game from its key to the final score (RULES.md §4).

    Rounds are played in full; the game ends after the round in which some city became full,
    or is marked aborted at rules[R_MAX_ROUNDS] rounds.
    """
    n_players = player.shape[0]
    for s in range(n_players):
        reset_city_nb(city, occ, player, s, start_crates, rules)
    pirates[L.PIRATE_BOXES] = 0
    pirates[L.PIRATE_ATTACKS] = 0
    status[0] = 0
    status[1] = -1
    seed_policy_streams_nb(game_key, rng)
    rounds = 0
    full = False
    for rnd in range(rules[R.R_MAX_ROUNDS]):
        for s in range(n_players):
            play_turn_nb(game_key, rnd, s, policy_kind, policy_params, city, occ, player, pirates, dice, counts,
                         cands, ctx, rng, values, status, rules, trace, trace_n)
        rounds = rnd + 1
        for s in range(n_players):
            if player[s, L.N_EMPTY] == 0:
                full = True
        if full:
            break
    winners = score_game_nb(occ, player, rules, score)
    filled = 0
    for s in range(n_players):
        if player[s, L.N_EMPTY] == 0:
            filled |= 1 << s
    game_out[G_ROUNDS] = rounds
    game_out[G_ABORTED] = 0 if full else 1
    game_out[G_FILLED] = filled
    game_out[G_ATTACKS] = pirates[L.PIRATE_ATTACKS]
    game_out[G_BOXES] = pirates[L.PIRATE_BOXES]
    game_out[G_WINNERS] = winners
    game_out[G_ERROR] = status[0]
    game_out[G_ERROR_SEAT] = status[1]
    E.record_nb(trace, trace_n, E.EV_END, rounds, game_out[G_ABORTED], 0, 0, 0, 0, 0)


@njit(cache=True)
def play_one_nb(seed_key, game, n_players, rules, start_crates, policy_kind, policy_params, trace, trace_n):
    """Play game ``game`` alone (for traces and replays); returns (score, player, city, game_out)."""
    city, occ, player, pirates, dice, counts, cands, ctx, rng, values, status = new_work_nb(n_players)
    score = np.zeros((n_players, N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(N_GAME_FIELDS, dtype=np.int64)
    play_game_nb(game_key_nb(seed_key, game), rules, start_crates, policy_kind, policy_params, city, occ, player,
                 pirates, dice, counts, cands, ctx, rng, values, status, score, game_out, trace, trace_n)
    return score, player, city, game_out


@njit(cache=True, parallel=True)
def play_games_nb(seed_key, first, n_players, rules, start_crates, policy_kind, policy_params, score_out,
                  player_out, game_out):
    """Play games first .. first + G - 1 (G = game_out.shape[0]) over all threads.

    Outputs: score_out int64[G, P, N_SCORE_FIELDS], player_out int64[G, P, N_PLAYER_FIELDS],
    game_out int64[G, N_GAME_FIELDS]. Work buffers are allocated once per chunk of games.
    """
    n_games = game_out.shape[0]
    n_chunks = min(n_games, 64)
    trace = np.zeros((0, E.EVENT_WIDTH), dtype=np.int64)
    for chunk in prange(n_chunks):
        city, occ, player, pirates, dice, counts, cands, ctx, rng, values, status = new_work_nb(n_players)
        trace_n = np.zeros(1, dtype=np.int64)
        lo = chunk * n_games // n_chunks
        hi = (chunk + 1) * n_games // n_chunks
        for g in range(lo, hi):
            play_game_nb(game_key_nb(seed_key, first + g), rules, start_crates, policy_kind, policy_params, city,
                         occ, player, pirates, dice, counts, cands, ctx, rng, values, status, score_out[g],
                         game_out[g], trace, trace_n)
            player_out[g] = player
