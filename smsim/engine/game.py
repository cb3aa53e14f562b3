"""The course of a game by the rules, without asking anyone (docs/rules.md §1, §3-§6).

Each function here applies one step whose choice has already been made: start the game, pay for
the dice used, count the houses an architect built, give a completed side's bonus, close the
game and score it. Who makes the choices, and in which order the steps come, is the play loop's
business (``smsim.play.loop``); what may legally be chosen is ``engine.actions``'.
"""

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.city import popcount_nb, reset_city_nb
from smsim.engine.memory import hot_njit
from smsim.engine.scoring import score_game_nb


@hot_njit
def start_game_nb(city, occ, player, pirates, start_crates, rules):
    """Every seat's start state (docs/rules.md §1) and an empty pirate track."""
    for s in range(player.shape[0]):
        reset_city_nb(city, occ, player, s, start_crates, rules)
    for f in range(pirates.shape[0]):
        pirates[f] = -1 if f >= L.PIRATE_ATTACK_ROUND else 0


@hot_njit(inline="always")
def pay_for_use_nb(player, s, symbol, k, rotated, rules):
    """Seat s uses k dice of ``symbol``, ``rotated`` of them turned (docs/rules.md §3, §5 Log):
    pay the rotations and a log delivery, take the logs, count a pass. Returns the rotation
    cost and the delivery cost, for the trace."""
    rotation_cost = rotated * rules[R.R_ROTATION_COST]
    delivery_cost = rules[R.R_LOG_DELIVERY_COST] if symbol == L.FACE_LOG else 0
    player[s, L.COINS] -= rotation_cost + delivery_cost
    player[s, L.COINS_ROTATION] += rotation_cost
    player[s, L.COINS_DELIVERY] += delivery_cost
    player[s, L.N_ROTATED] += rotated
    if symbol == L.NO_SYMBOL:
        player[s, L.N_PASSES] += 1
    elif symbol == L.FACE_LOG:
        player[s, L.LOGS] += k
        player[s, L.LOGS_DELIVERED] += k
    return rotation_cost, delivery_cost


@hot_njit
def pay_for_houses_nb(player, s, houses, rules):
    """An architect built ``houses`` (docs/rules.md §5 Architect): one log and house_vp VP each."""
    player[s, L.LOGS] -= houses
    player[s, L.LOGS_USED] += houses
    player[s, L.VP] += houses * rules[R.R_HOUSE_VP]
    player[s, L.VP_HOUSES] += houses * rules[R.R_HOUSE_VP]


@hot_njit
def complete_sides_nb(player, s, new_sides, rnd):
    """Mark the sides of mask ``new_sides`` complete in round ``rnd`` (docs/rules.md §5 Wall)."""
    player[s, L.SIDES_DONE] |= new_sides
    for side in range(L.N_SIDES):
        if (new_sides >> side) & 1:
            player[s, L.SIDE_ROUND + side] = rnd


@hot_njit
def give_side_bonus_nb(player, s, side, rules):
    """The coins or VP of a completed side (docs/rules.md §2, §5 Wall). Returns the bonus kind and
    amount; a person bonus is bought by the caller, who asks which person. A seat that
    ``wall_bonus_seats`` leaves out of the side's mask receives nothing (kind none, amount 0)."""
    if (rules[R.R_WALL_BONUS_SEATS + side] >> s) & 1 == 0:
        return np.int64(L.BONUS_KIND_NONE), np.int64(0)
    kind = rules[R.R_WALL_BONUS_KIND + side]
    amount = rules[R.R_WALL_BONUS_AMOUNT + side]
    if kind == L.BONUS_KIND_COINS:
        player[s, L.COINS] += amount
        player[s, L.COINS_WALL_BONUS] += amount
    elif kind == L.BONUS_KIND_VP:
        player[s, L.VP] += amount
        player[s, L.VP_WALL_BONUS] += amount
    return kind, amount


@hot_njit
def finish_game_nb(occ, player, pirates, status, rounds, full, rules, score, game_out):
    """Close a game after ``rounds`` rounds (docs/rules.md §4): walls per side, the final score
    (``score``, layout.SCORE) and the outcome (``game_out``, layout.GAME). ``status`` holds a
    policy error (code, seat), if any."""
    n_players = player.shape[0]
    for s in range(n_players):
        for side in range(L.N_SIDES):
            player[s, L.SIDE_WALLS + side] = popcount_nb(occ[s, L.CELL_WALL] & L.SIDE_MASK[side])
    winners = score_game_nb(occ, player, rules, score)
    filled = 0
    for s in range(n_players):
        if player[s, L.N_EMPTY] == 0:
            filled |= 1 << s
    game_out[L.G_ROUNDS] = rounds
    game_out[L.G_ABORTED] = 0 if full else 1
    game_out[L.G_FILLED] = filled
    game_out[L.G_ATTACKS] = pirates[L.PIRATE_ATTACKS]
    game_out[L.G_BOXES] = pirates[L.PIRATE_BOXES]
    game_out[L.G_WINNERS] = winners
    game_out[L.G_ERROR] = status[0]
    game_out[L.G_ERROR_SEAT] = status[1]
    for row in range(L.MAX_PIRATE_ROWS):
        game_out[L.G_ATTACK_ROUND + row] = pirates[L.PIRATE_ATTACK_ROUND + row]


@hot_njit
def city_full_nb(player):
    """Some seat's city has no empty space left: the game ends with this round (docs/rules.md §4)."""
    for s in range(player.shape[0]):  # noqa: SIM110 (jitted: a loop, not any() over a generator)
        if player[s, L.N_EMPTY] == 0:
            return True
    return False
