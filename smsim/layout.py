"""Codes, index constants and the board geometry, computed once from coordinates (RULES.md §2).

A city is ``int8[49]``: cell ``r * 7 + c`` holds a :class:`Cell` code; towers sit at 0, 6, 42, 48.
Alongside it the engine keeps one ``uint64`` bit mask per cell code (bit ``r * 7 + c``), so that
"crates adjacent to this cell" is one AND and one popcount.

>>> int(N_SPACES), int(N_OUTER), int(N_INNER)
(45, 20, 25)
>>> sorted(neighbours_of(1, 1))
[(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)]
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

SIZE = 7
N_CELLS = SIZE * SIZE
CORNERS = (0, SIZE - 1, N_CELLS - SIZE, N_CELLS - 1)


class Face(IntEnum):
    """A die face. The first five are the symbols a player may choose (RULES.md §1, §3)."""

    LOG = 0
    CRATE = 1
    WALL = 2
    CROSS = 3
    HEAD = 4
    SWORDS = 5


N_FACES = 6
N_SYMBOLS = 5


class Person(IntEnum):
    """The seven persons (RULES.md §5, Head)."""

    CITIZEN = 0
    SOLDIER = 1
    PRIEST = 2
    ARCHITECT = 3
    MERCHANT = 4
    JUGGLER = 5
    NOBLE = 6


N_PERSONS = 7
# heads a person costs; a head action of k dice buys a person of PERSON_HEADS == k
PERSON_HEADS = np.array([1, 2, 2, 3, 3, 4, 5], dtype=np.int64)


class Cell(IntEnum):
    """What a city cell holds; one code per letter of the board text format (RULES.md §8)."""

    EMPTY = 0
    TOWER = 1
    WALL = 2
    CRATE = 3
    HOUSE = 4
    CHURCH_1 = 5  # CHURCH_1..CHURCH_5 consecutive: size = code - CHURCH_1 + 1
    CHURCH_2 = 6
    CHURCH_3 = 7
    CHURCH_4 = 8
    CHURCH_5 = 9
    CITIZEN = 10  # persons consecutive in Person order: code = PERSON_0 + person
    SOLDIER = 11
    PRIEST = 12
    ARCHITECT = 13
    MERCHANT = 14
    JUGGLER = 15
    NOBLE = 16


N_CELL_CODES = 17
PERSON_0 = int(Cell.CITIZEN)
CELL_CHAR = {
    Cell.EMPTY: ".", Cell.TOWER: "+", Cell.WALL: "#", Cell.CRATE: "C", Cell.HOUSE: "H",
    Cell.CHURCH_1: "1", Cell.CHURCH_2: "2", Cell.CHURCH_3: "3", Cell.CHURCH_4: "4",
    Cell.CHURCH_5: "5", Cell.CITIZEN: "c", Cell.SOLDIER: "s", Cell.PRIEST: "p",
    Cell.ARCHITECT: "a", Cell.MERCHANT: "m", Cell.JUGGLER: "j", Cell.NOBLE: "n",
}  # fmt: skip
CHAR_CELL = {ch: code for code, ch in CELL_CHAR.items()}


class Side(IntEnum):
    """The four sides of the city wall, each five outer spaces (RULES.md §2)."""

    TOP = 0
    RIGHT = 1
    BOTTOM = 2
    LEFT = 3


N_SIDES = 4


class BonusKind(IntEnum):
    """What a completed side gives; indexes ``smsim.rules.BONUS_KINDS``."""

    NONE = 0
    PERSON = 1
    COINS = 2
    VP = 3


# -- player state: player[seat, field], int32 -------------------------------------------------
(
    COINS,
    LOGS,
    VP,  # earned during play (persons, houses, wall VP bonuses); not the final scoring
    CANNONS_LOST,
    SOLDIERS,
    SIDES_DONE,  # 4-bit mask, bit i = Side i complete
    SIDES_BROKEN,  # 4-bit mask, bit i = Side i destroyed by a non-wall
    N_EMPTY,
    # statistics: where VP, coins and logs came from and went
    VP_CITIZEN,
    VP_PRIEST,
    VP_HOUSES,
    VP_JUGGLER,
    VP_NOBLE,
    VP_WALL_BONUS,
    COINS_MERCHANT,
    COINS_WALL_BONUS,
    COINS_ROTATION,
    COINS_DELIVERY,
    LOGS_DELIVERED,
    LOGS_USED,
    N_ROTATED,
    N_PASSES,
) = range(22)
SIDE_ROUND = 22  # 4 fields: the round each side was completed, -1 if never
SIDE_WALLS = 26  # 4 fields: walls on each side at the end of the game
BONUS_PERSONS = 30  # persons received as wall bonuses
ATTACK_DEFENCE = 31  # MAX_PIRATE_ROWS fields: the seat's defence at each attack, -1 if none
MAX_PIRATE_ROWS = 12  # most rows a rules variant's pirate track may have
ATTACK_SIDES = ATTACK_DEFENCE + MAX_PIRATE_ROWS  # MAX_PIRATE_ROWS fields: sides complete at each attack, -1 if none
N_PLAYER_FIELDS = ATTACK_SIDES + MAX_PIRATE_ROWS

# -- pirate track: pirates[field], int64 ------------------------------------------------------
PIRATE_BOXES, PIRATE_ATTACKS = range(2)
PIRATE_ATTACK_ROUND = 2  # MAX_PIRATE_ROWS fields: the round of each attack, -1 if none
N_PIRATE_FIELDS = PIRATE_ATTACK_ROUND + MAX_PIRATE_ROWS


def cell_index(r: int, c: int) -> int:
    return r * SIZE + c


def cell_rc(cell: int) -> tuple[int, int]:
    return divmod(int(cell), SIZE)


def is_space(r: int, c: int) -> bool:
    """A grid cell that is not a tower."""
    return 0 <= r < SIZE and 0 <= c < SIZE and cell_index(r, c) not in CORNERS


def is_outer(r: int, c: int) -> bool:
    return is_space(r, c) and (r in (0, SIZE - 1) or c in (0, SIZE - 1))


def side_of(r: int, c: int) -> int:
    """The side an outer space belongs to, -1 for inner spaces and towers."""
    if not is_outer(r, c):
        return -1
    if r == 0:
        return Side.TOP
    if c == SIZE - 1:
        return Side.RIGHT
    if r == SIZE - 1:
        return Side.BOTTOM
    return Side.LEFT


def neighbours_of(r: int, c: int, diagonal: bool = True) -> list[tuple[int, int]]:
    """Spaces adjacent to (r, c): the 8 (or 4 orthogonal) grid neighbours that are spaces."""
    out = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0) or (not diagonal and dr != 0 and dc != 0):
                continue
            if is_space(r + dr, c + dc):
                out.append((r + dr, c + dc))
    return out


def _mask(cells) -> np.uint64:
    m = 0
    for r, c in cells:
        m |= 1 << cell_index(r, c)
    return np.uint64(m)


def _build_tables():
    spaces = [(r, c) for r in range(SIZE) for c in range(SIZE) if is_space(r, c)]
    neigh8 = np.zeros(N_CELLS, dtype=np.uint64)
    neigh4 = np.zeros(N_CELLS, dtype=np.uint64)
    side_cell = np.full(N_CELLS, -1, dtype=np.int64)
    for r, c in spaces:
        i = cell_index(r, c)
        neigh8[i] = _mask(neighbours_of(r, c, diagonal=True))
        neigh4[i] = _mask(neighbours_of(r, c, diagonal=False))
        side_cell[i] = side_of(r, c)
    side_mask = np.array([_mask([(r, c) for r, c in spaces if side_of(r, c) == s]) for s in range(N_SIDES)])
    side_cells = np.array(
        [[cell_index(r, c) for r, c in spaces if side_of(r, c) == s] for s in range(N_SIDES)], dtype=np.int64
    )
    return (
        _mask(spaces),
        _mask([p for p in spaces if is_outer(*p)]),
        _mask([p for p in spaces if not is_outer(*p)]),
        neigh8,
        neigh4,
        side_cell,
        side_mask.astype(np.uint64),
        side_cells,
    )


# Bit masks over the 49 cells; NEIGH*_MASK[cell] = the cell's adjacent spaces.
(SPACES_MASK, OUTER_MASK, INNER_MASK, NEIGH8_MASK, NEIGH4_MASK, SIDE_OF_CELL, SIDE_MASK, SIDE_CELLS) = (
    _build_tables()
)
N_SPACES = bin(int(SPACES_MASK)).count("1")
N_OUTER = bin(int(OUTER_MASK)).count("1")
N_INNER = bin(int(INNER_MASK)).count("1")


# -- decisions: the engine lists candidates, the seat's policy picks a row (STYLE §4) -----------
class Decision(IntEnum):
    """What a policy is asked. ``cands[i]`` columns per decision are given beside each."""

    KEEP = 0  # [reroll mask 0..31]; 0 = stop rolling
    USE = 1  # [symbol (-1: use no die), k dice, rotated, person (-1)]
    PLACE = 2  # [cell]
    HOUSES = 3  # [houses the new architect builds]
    BONUS_SIDE = 4  # [side whose bonus is taken next]
    BONUS_PERSON = 5  # [person the wall bonus buys]


MAX_CANDS = 128
CAND_WIDTH = 4
C_SYMBOL, C_K, C_ROTATED, C_PERSON = range(4)
NO_SYMBOL = -1

# ctx: int64[N_CTX], what the current decision is about
(
    CTX_DECISION,
    CTX_SEAT,
    CTX_ROUND,
    CTX_ROLL,  # KEEP: rolls made so far (1 or 2)
    CTX_SYMBOL,  # the symbol being used (PLACE, HOUSES)
    CTX_K,  # dice used
    CTX_WHAT,  # PLACE: the Cell code being placed
    CTX_LEFT,  # PLACE: cells still to place, this one included
    CTX_ANCHOR,  # PLACE/HOUSES: the architect's cell, else -1
    CTX_GROUP,  # PLACE: uint64 bits (as int64) of the group placed so far this action
    CTX_N,  # the number of candidates
    CTX_TURN,  # turns played so far in this game (changes every turn: a policy's memo key)
    N_CTX,
) = range(13)
