"""Exact keep-or-reroll decisions: the turn's dice solved by dynamic programming over face
counts (docs/policies.md, "Exact keeps").

Within a turn the city does not change while the dice roll, so a policy's value of each final
roll (the best use of its five dice, rotations included, under the policy's own values of the
uses) is fixed for the turn, and the best keep at each roll follows exactly, as in a Yahtzee
solver: only which faces are kept matters, not which dice.

Every multiset of 0..5 dice over the six faces is a node (462 of them, ``N_NODES``); the 252 of
five dice are the final rolls. Rolling the dice not kept is adding dice one at a time, each
face with chance 1/6, so the expected value of a keep is the mean over faces of the keep with
one die more (``PLUS``), and the best of a roll with a reroll left is the best over the
multisets it contains (``MINUS``, one die fewer at a time). Per turn that is about 2,800
additions per layer and 2,800 comparisons, a few microseconds, instead of the 4,368 terms of
the transition table.

Layers, filled once a turn into the policy's memo (``HL.M_KEEP_LAST``, ``HL.M_KEEP_TWO``):

- ``last[node]``: with one roll left, the expected value of keeping ``node`` and rolling the
  rest; for a final roll, its own value (stopping);
- ``two[node]``: with two rolls left, the same, where after the reroll the best of stopping and
  rolling again is taken.

The same tables under a stated value (``balanced``'s, by default) are the keep **oracle**: the
regret of a keep is the oracle's value of its best keep minus its value of the keep played
(``keep_regret_nb``).
"""

from collections import namedtuple
from itertools import combinations_with_replacement

import numpy as np

from smsim import layout as L
from smsim import rules as R
from smsim.engine.memory import hot_njit
from smsim.policies import heuristic_layout as HL
from smsim.policies.features import turn_table_nb

ERROR_VP = 0.1  # a keep whose regret exceeds this many VP counts as an error (the oracle's rate)


def _nodes() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The multisets of 0..5 dice, smallest first: counts int64[N_NODES, N_FACES], size, and the
    node with one die of each face more (``PLUS``, -1 past five dice) and less (``MINUS``, -1
    where the face is not in it); the empty node's index."""
    nodes = [
        tuple(combo.count(f) for f in range(L.N_FACES))
        for size in range(L.N_DICE + 1)
        for combo in combinations_with_replacement(range(L.N_FACES), size)
    ]
    index = {c: i for i, c in enumerate(nodes)}
    counts = np.array(nodes, dtype=np.int64)
    plus = np.full((len(nodes), L.N_FACES), -1, dtype=np.int64)
    minus = np.full((len(nodes), L.N_FACES), -1, dtype=np.int64)
    for i, c in enumerate(nodes):
        for f in range(L.N_FACES):
            up = c[:f] + (c[f] + 1,) + c[f + 1 :]
            plus[i, f] = index.get(up, -1)
            if c[f] > 0:
                minus[i, f] = index[c[:f] + (c[f] - 1,) + c[f + 1 :]]
    return counts, counts.sum(axis=1), plus, minus, index[(0,) * L.N_FACES]


NODE_COUNTS, NODE_SIZE, PLUS, MINUS, EMPTY = _nodes()
N_NODES = NODE_COUNTS.shape[0]

# The exact keeps' mark in the play loop (``registry.Marks.exact``): a line-up where some seat's
# weights ask for exact keeps passes ``EXACT``, any other None, and the loop compiled for None holds
# none of this module's dynamic programming (``heuristics.heuristic_keep_nb``): a heuristic
# line-up's first compile is some 3 s shorter. Its type is what counts; it carries the node count
# for the reader.
ExactMark = namedtuple("ExactMark", ["nodes"])
EXACT = ExactMark(np.int64(N_NODES))
FIRST_FINAL = int(np.argmax(NODE_SIZE == L.N_DICE))  # the final rolls are the last nodes
assert N_NODES == HL.N_KEEP_NODES and np.all(NODE_SIZE[FIRST_FINAL:] == L.N_DICE)
# the nodes one die below each node, packed first (BELOW_N of them): the inner loop of
# best_within_nb visits only the faces a node holds
BELOW = np.array([sorted(row, reverse=True) for row in MINUS], dtype=np.int64)
BELOW_N = (MINUS >= 0).sum(axis=1).astype(np.int64)
_final = NODE_COUNTS[FIRST_FINAL:]
# per final roll and symbol, its entry of the use table flattened (USE_TABLE_SHAPE): the dice
# showing the symbol, and as many rotations as dice show neither it nor swords
FINAL_SLOT = np.array(
    [
        [
            (sym * HL.K_SPAN + row[sym]) * HL.K_SPAN + L.N_DICE - row[sym] - row[L.FACE_SWORDS]
            for sym in range(L.N_SYMBOLS)
        ]
        for row in _final
    ],
    dtype=np.int64,
)
FINAL_FACES = np.array([sum(1 << f for f in range(L.N_FACES) if row[f] > 0) for row in _final], dtype=np.int64)
del _final


@hot_njit
def use_table_nb(params, player, memo, s, rules, table):
    """table[S, n, r] <- the policy's best value of a use of symbol S with n dice showing it and
    at most r more rotated to it (rotations paid for at the heuristic's value of a coin), HL.NEG
    where no such use is legal. The uses are those ``actions.list_uses_nb`` lists; the values
    those a USE decision gives them (``heuristics.use_row_value_nb``)."""
    cost = rules[R.R_ROTATION_COST]
    coins = player[s, L.COINS]
    rotation_value = params[HL.P_COIN] * cost
    no_turning = (int(params[HL.P_FORGO]) & L.FORGO_ROTATIONS) != 0  # a seat forgoing rotations
    for symbol in range(L.N_SYMBOLS):
        spare = coins - (rules[R.R_LOG_DELIVERY_COST] if symbol == L.FACE_LOG else 0)
        affordable = L.N_DICE if cost <= 0 else max(spare, -1) // cost  # -1: not even unrotated
        if no_turning:
            affordable = min(affordable, 0)
        base = HL.M_EXACT + symbol * HL.K_SPAN
        for n in range(L.N_DICE + 1):
            best = HL.NEG
            for r in range(L.N_DICE - n + 1):
                if r <= affordable:
                    for k in range(max(r, 1), n + r + 1):
                        v = memo[base + k] - r * rotation_value
                        if memo[base + k] > HL.NEG * 0.5 and v > best:
                            best = v
                table[symbol, n, r] = best


@hot_njit
def final_values_nb(params, player, memo, s, rules, table, last):
    """last[node] <- the policy's value of each final roll (nodes of five dice): its best legal
    use; 0 where the turn may pass (no legal use without rotating, or ``allow_pass``)."""
    use_table_nb(params, player, memo, s, rules, table)
    flat = table.reshape(HL.USE_TABLE_SIZE)
    may_pass_always = rules[R.R_ALLOW_PASS] != 0
    # a symbol usable without rotating with one die shown is usable so with any number shown
    plain_ok = 0
    for symbol in range(L.N_SYMBOLS):
        if table[symbol, 1, 0] > HL.NEG * 0.5:
            plain_ok |= 1 << symbol
    for i in range(N_NODES - FIRST_FINAL):
        node = FIRST_FINAL + i
        best = HL.NEG
        for symbol in range(L.N_SYMBOLS):
            best = max(best, flat[FINAL_SLOT[i, symbol]])
        if may_pass_always or (FINAL_FACES[i] & plain_ok) == 0:
            best = max(best, 0.0)
        last[node] = best


@hot_njit
def expect_nb(layer):
    """layer[node] <- mean over faces of layer[node + face], for every node of fewer than five
    dice, largest first (the final rolls' entries are given)."""
    inv = 1.0 / L.N_FACES
    for node in range(FIRST_FINAL - 1, -1, -1):
        total = 0.0
        for f in range(L.N_FACES):
            total += layer[PLUS[node, f]]
        layer[node] = total * inv


@hot_njit
def best_within_nb(layer, out):
    """out[node] <- max of layer over the multisets node contains (itself included), smallest
    first: with a reroll left, a roll's value is the best of stopping and each keep."""
    for node in range(N_NODES):
        best = layer[node]
        for j in range(BELOW_N[node]):
            v = out[BELOW[node, j]]
            if v > best:
                best = v
        out[node] = best


@hot_njit
def fill_keep_tables_nb(params, player, memo, s, rules, scratch):
    """Fill the turn's two layers into memo (``HL.M_KEEP_LAST``, ``HL.M_KEEP_TWO``) from the
    turn table already in memo. ``scratch``: float64[N_SYMBOLS, N_DICE + 1, N_DICE + 1]."""
    last = memo[HL.M_KEEP_LAST : HL.M_KEEP_LAST + N_NODES]
    two = memo[HL.M_KEEP_TWO : HL.M_KEEP_TWO + N_NODES]
    final_values_nb(params, player, memo, s, rules, scratch, last)
    expect_nb(last)
    best_within_nb(last, two)  # a final roll with one reroll left: stop or the best keep
    expect_nb(two)


@hot_njit(inline="always")
def node_of_nb(dice, mask):
    """The multiset of the dice not in ``mask`` (mask 0: all five)."""
    node = EMPTY
    for d in range(L.N_DICE):
        if not (mask >> d) & 1:
            node = PLUS[node, dice[d]]
    return node


@hot_njit
def keep_values_nb(memo, dice, roll, out):
    """out[mask] <- the expected value of rolling again the dice in ``mask`` at decision ``roll``
    (1: two rolls left, 2: one), mask 0 being to stop, from the turn's layers in memo."""
    layer = HL.M_KEEP_TWO if L.N_ROLLS - roll >= 2 else HL.M_KEEP_LAST
    out[0] = memo[HL.M_KEEP_LAST + node_of_nb(dice, 0)]  # stop: the final roll's own value
    for mask in range(1, L.N_KEEP_MASKS):
        out[mask] = memo[layer + node_of_nb(dice, mask)]


@hot_njit(inline="always")
def keep_tables_nb(params, ctx, player, memo, s, rules):
    """Make memo's keep layers this turn's, unless they are (keyed like the turn table)."""
    key = float(ctx[L.CTX_TURN])
    if memo[HL.M_KEEP_KEY] != key:
        scratch = memo[HL.M_USE_TABLE : HL.M_USE_TABLE + HL.USE_TABLE_SIZE].reshape(HL.USE_TABLE_SHAPE)
        fill_keep_tables_nb(params, player, memo, s, rules, scratch)
        memo[HL.M_KEEP_KEY] = key


@hot_njit
def exact_keep_nb(params, ctx, dice, player, memo, s, rules):
    """The reroll mask of the best keep (0: stop), exactly, under the policy's values of this
    turn's uses (the turn table must be this turn's). Ties go to stopping, then to the lowest
    mask; the mask's values are left in memo[HL.M_KEEP_VALUES:]."""
    keep_tables_nb(params, ctx, player, memo, s, rules)
    values = memo[HL.M_KEEP_VALUES : HL.M_KEEP_VALUES + L.N_KEEP_MASKS]
    keep_values_nb(memo, dice, ctx[L.CTX_ROLL], values)
    best = 0
    for mask in range(1, L.N_KEEP_MASKS):
        if values[mask] > values[best] + 1e-9:
            best = mask
    return best


@hot_njit
def keep_regret_nb(params, ctx, dice, occ, player, pirates, memo, s, rules, mask):
    """The regret of rolling again ``mask`` at this KEEP decision: the best keep's expected value
    minus the keep's, both under the heuristic ``params`` (the oracle's stated value), computed
    on ``memo`` (the oracle's own)."""
    turn_table_nb(params, ctx, occ, player, pirates, memo, s, rules)
    best = exact_keep_nb(params, ctx, dice, player, memo, s, rules)
    values = memo[HL.M_KEEP_VALUES : HL.M_KEEP_VALUES + L.N_KEEP_MASKS]
    return max(values[best] - values[mask], 0.0)
