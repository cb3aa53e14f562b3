"""The event log a traced game writes, turned into JSON lines by ``smsim.play.trace``.

``trace``: int64[capacity, 8], one event per row: column 0 the EV_* code, columns 1..7 its
arguments (below). ``trace_n``: int64[1], rows written. A batch run passes a trace of 0 rows and
nothing is written. A full log stops writing and sets ``trace_n[0] = -1`` (overflow).
"""

from smsim import layout as L
from smsim.engine.city import defence_nb
from smsim.engine.memory import hot_njit, loop_njit

EV_TURN = 1  # round, seat
EV_ROLL = 2  # face of die 0..4
EV_REROLL = 3  # mask of dice rolled again
EV_USE = 4  # symbol (-1: no die used), k, rotated, person (-1), rotation cost, delivery cost
EV_PLACE = 5  # cell, cell code, role (PLACED_*)
EV_BONUS = 6  # side, bonus kind, amount, person (-1)
EV_SWORDS = 7  # swords marked
EV_ATTACK = 8  # row, strength, lost-seat mask, then defence of seats 0..4
EV_AFTER = 9  # seat, coins, logs, vp, cannons lost, defence
EV_END = 10  # rounds, aborted

PLACED_ACTION = 0  # the action's crates, walls, church or person
PLACED_HOUSE = 1  # an architect's houses
PLACED_BONUS = 2  # a wall bonus person
EVENT_WIDTH = 8


@hot_njit(inline="always")
def record_nb(trace, trace_n, ev, a1, a2, a3, a4, a5, a6, a7):
    n = trace_n[0]
    if n < 0 or trace.shape[0] == 0:
        return
    if n >= trace.shape[0]:
        trace_n[0] = -1
        return
    trace[n, 0] = ev
    trace[n, 1] = a1
    trace[n, 2] = a2
    trace[n, 3] = a3
    trace[n, 4] = a4
    trace[n, 5] = a5
    trace[n, 6] = a6
    trace[n, 7] = a7
    trace_n[0] = n + 1


@loop_njit
def record_attack_nb(trace, trace_n, row, strength, lost, player, rules):
    if trace.shape[0] == 0:
        return
    n = player.shape[0]  # 2..5 seats; -1 for the seats the game does not have
    d2 = defence_nb(player, 2, rules) if n > 2 else -1
    d3 = defence_nb(player, 3, rules) if n > 3 else -1
    d4 = defence_nb(player, 4, rules) if n > 4 else -1
    record_nb(
        trace,
        trace_n,
        EV_ATTACK,
        row,
        strength,
        lost,
        defence_nb(player, 0, rules),
        defence_nb(player, 1, rules),
        d2,
        d3,
    )
    # a fifth seat's defence does not fit the row: it follows in a second row
    record_nb(trace, trace_n, EV_ATTACK, -1, d4, 0, 0, 0, 0, 0)


@hot_njit
def record_after_nb(trace, trace_n, player, rules):
    if trace.shape[0] == 0:
        return
    for s in range(player.shape[0]):
        record_nb(
            trace,
            trace_n,
            EV_AFTER,
            s,
            player[s, L.COINS],
            player[s, L.LOGS],
            player[s, L.VP],
            player[s, L.CANNONS_LOST],
            defence_nb(player, s, rules),
            0,
        )
