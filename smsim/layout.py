"""Every encoding and record layout of smsim, declared once, and the board geometry computed
once from coordinates (docs/rules.md §2).

The enums (:class:`Face`, :class:`Person`, :class:`Cell`, :class:`Side`, :class:`BonusKind`,
:class:`Decision`, :class:`PolicyKind`) are the only declarations of those codes; code elsewhere
uses them by name, jitted code by the plain ints declared once at the end of this module
(``FACE_SWORDS``, ``CELL_WALL``, ``DECISION_KEEP``, ...: the enum's name, then the member's).
Each int64 array the engine fills is a :class:`Record` (``PLAYER``, ``PIRATES``, ``SCORE``,
``GAME``, ``ROUND``, ``CAND``, ``CTX``; the rules vector in ``smsim.rules``), from which the index
constants (``COINS``, ``S_TOTAL``, ``CTX_DECISION``, ...), the array lengths and the column names
are generated.

A city is ``int8[49]``: cell ``r * 7 + c`` holds a :class:`Cell` code; towers sit at 0, 6, 42, 48.
Alongside it the engine keeps one ``uint64`` bit mask per cell code (bit ``r * 7 + c``), so that
"crates adjacent to this cell" is one AND and one popcount.

>>> int(N_SPACES), int(N_OUTER), int(N_INNER)
(45, 20, 25)
>>> sorted(neighbours_of(1, 1))
[(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

SIZE = 7
N_CELLS = SIZE * SIZE
CORNERS = (0, SIZE - 1, N_CELLS - SIZE, N_CELLS - 1)


class Face(IntEnum):
    """A die face. The first five are the symbols a player may choose (docs/rules.md §1, §3)."""

    LOG = 0
    CRATE = 1
    WALL = 2
    CROSS = 3
    HEAD = 4
    SWORDS = 5


N_FACES = len(Face)
N_SYMBOLS = 5  # the faces before SWORDS
N_DICE = 5  # dice a player rolls
N_ROLLS = 3  # rolls a turn may have: the first and up to two more
N_KEEP_MASKS = 1 << N_DICE  # a KEEP candidate is a mask of the dice rolled again


class Person(IntEnum):
    """The seven persons (docs/rules.md §5, Head)."""

    CITIZEN = 0
    SOLDIER = 1
    PRIEST = 2
    ARCHITECT = 3
    MERCHANT = 4
    JUGGLER = 5
    NOBLE = 6


N_PERSONS = len(Person)
# heads a person costs; a head action of k dice buys a person of PERSON_HEADS == k
PERSON_HEADS = np.array([1, 2, 2, 3, 3, 4, 5], dtype=np.int64)


class Cell(IntEnum):
    """What a city cell holds; one code per letter of the board text format (docs/rules.md §8)."""

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


N_CELL_CODES = len(Cell)
PERSON_0 = int(Cell.CITIZEN)
CHURCH_CELLS = (Cell.CHURCH_1, Cell.CHURCH_2, Cell.CHURCH_3, Cell.CHURCH_4, Cell.CHURCH_5)  # by size 1..5
N_CHURCH_SIZES = len(CHURCH_CELLS)
CELL_CHAR = {
    Cell.EMPTY: ".",
    Cell.TOWER: "+",
    Cell.WALL: "#",
    Cell.CRATE: "C",
    Cell.HOUSE: "H",
    Cell.CHURCH_1: "1",
    Cell.CHURCH_2: "2",
    Cell.CHURCH_3: "3",
    Cell.CHURCH_4: "4",
    Cell.CHURCH_5: "5",
    Cell.CITIZEN: "c",
    Cell.SOLDIER: "s",
    Cell.PRIEST: "p",
    Cell.ARCHITECT: "a",
    Cell.MERCHANT: "m",
    Cell.JUGGLER: "j",
    Cell.NOBLE: "n",
}
CHAR_CELL = {ch: code for code, ch in CELL_CHAR.items()}


class Side(IntEnum):
    """The four sides of the city wall, each five outer spaces (docs/rules.md §2)."""

    TOP = 0
    RIGHT = 1
    BOTTOM = 2
    LEFT = 3


N_SIDES = len(Side)


class BonusKind(IntEnum):
    """What a completed side gives; indexes ``smsim.rules.BONUS_KINDS``."""

    NONE = 0
    PERSON = 1
    COINS = 2
    VP = 3


# -- record layouts: every int64 array's fields, declared once, in order ---------------------------
MAX_PIRATE_ROWS = 12  # most rows a rules variant's pirate track may have
MIN_PLAYERS, MAX_PLAYERS = 2, 5  # docs/rules.md §1


@dataclass(frozen=True)
class Record:
    """The fields of one int64 array, declared once, in order: ``(name, width, what it holds)``.

    Offsets are counted here, never by hand. :meth:`export` turns the declaration into module
    constants (``prefix + NAME`` = the field's first index, ``size_name`` = the array's length),
    which is how jitted code reads a field: a module-level int is a compile-time constant in
    cached numba code.

    >>> r = Record("demo", "D_", "N_DEMO", (("coins", 1, ""), ("side_round", 4, ""), ("vp", 1, "")))
    >>> r.offset("vp"), r.size, r.columns()[1:3]
    (5, 6, ('side_round_1', 'side_round_2'))
    """

    title: str
    prefix: str
    size_name: str
    fields: tuple[tuple[str, int, str], ...]

    def __post_init__(self) -> None:
        names = [name for name, _, _ in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.title}: a field is declared twice")

    def offset(self, name: str) -> int:
        at = 0
        for field, width, _ in self.fields:
            if field == name:
                return at
            at += width
        raise KeyError(f"{self.title} has no field {name!r}")

    def width(self, name: str) -> int:
        return next(width for field, width, _ in self.fields if field == name)

    @property
    def size(self) -> int:
        return sum(width for _, width, _ in self.fields)

    def columns(self) -> tuple[str, ...]:
        """One name per array entry: the field's name, or ``name_1 .. name_w`` for a wide field."""
        out: list[str] = []
        for name, width, _ in self.fields:
            out.extend([name] if width == 1 else [f"{name}_{i + 1}" for i in range(width)])
        return tuple(out)

    def constants(self) -> dict[str, int]:
        out = {self.prefix + name.upper(): self.offset(name) for name, _, _ in self.fields}
        out[self.size_name] = self.size
        return out

    def export(self, namespace: dict) -> None:
        """Define the constants in ``namespace`` (a module's ``globals()``), refusing a clash."""
        for key, value in self.constants().items():
            if key in namespace and namespace[key] != value:
                raise ValueError(f"{self.title}: constant {key} already means something else")
            namespace[key] = value


# player[seat, field], int64: one seat's state and the statistics the datasets report
PLAYER = Record(
    "player",
    "",
    "N_PLAYER_FIELDS",
    (
        ("coins", 1, "coins held"),
        ("logs", 1, "logs held"),
        ("vp", 1, "VP earned during play (persons, houses, wall VP bonuses); not the final scoring"),
        ("cannons_lost", 1, "cannons lost to the pirates"),
        ("soldiers", 1, "soldiers in the city"),
        ("sides_done", 1, "4-bit mask, bit i = Side i complete"),
        ("sides_broken", 1, "4-bit mask, bit i = Side i destroyed by a non-wall"),
        ("n_empty", 1, "empty spaces left"),
        ("vp_citizen", 1, "VP from citizens"),
        ("vp_priest", 1, "VP from priests"),
        ("vp_houses", 1, "VP from houses"),
        ("vp_juggler", 1, "VP from jugglers"),
        ("vp_noble", 1, "VP from nobles"),
        ("vp_wall_bonus", 1, "VP from wall bonuses"),
        ("coins_merchant", 1, "coins from merchants"),
        ("coins_wall_bonus", 1, "coins from wall bonuses"),
        ("coins_rotation", 1, "coins paid to turn dice"),
        ("coins_delivery", 1, "coins paid for log deliveries"),
        ("logs_delivered", 1, "logs delivered"),
        ("logs_used", 1, "logs used for houses"),
        ("n_rotated", 1, "dice turned"),
        ("n_passes", 1, "turns in which no die was used"),
        ("side_round", N_SIDES, "the round each side was completed, -1 if never"),
        ("side_walls", N_SIDES, "walls on each side at the end of the game"),
        ("bonus_persons", 1, "persons received as wall bonuses"),
        ("attack_defence", MAX_PIRATE_ROWS, "the seat's defence at each attack, -1 if none"),
        ("attack_sides", MAX_PIRATE_ROWS, "sides complete at each attack, -1 if none"),
    ),
)
PLAYER.export(globals())

# pirates[field], int64: the pirate track
PIRATES = Record(
    "pirates",
    "PIRATE_",
    "N_PIRATE_FIELDS",
    (
        ("boxes", 1, "boxes crossed"),
        ("attacks", 1, "attacks made"),
        ("attack_round", MAX_PIRATE_ROWS, "the round of each attack, -1 if none"),
    ),
)
PIRATES.export(globals())

# score[seat, field], int64: the final scoring of one seat (engine/scoring.py)
SCORE = Record(
    "score",
    "S_",
    "N_SCORE_FIELDS",
    (
        ("total", 1, "final VP"),
        ("earned", 1, "VP earned during play"),
        ("church_vp", 1, "VP of the church series"),
        ("coins_vp", 1, "VP for coins left"),
        ("logs_vp", 1, "VP for logs left"),
        ("cannon_vp", 1, "VP lost to cannons (<= 0)"),
        ("full_city_vp", 1, "VP for filling the city"),
        ("seat_vp", 1, "VP of the seat's compensation (rules seat_vp)"),
        ("empty", 1, "empty spaces left (the tie-break)"),
        ("rank", 1, "1 = best; tied seats share a rank"),
        ("won", 1, "1 for every winner"),
        ("shared", 1, "1 for a winner who shares the win"),
        ("churches", N_CHURCH_SIZES, "churches of size 1..5"),
        ("series", N_CHURCH_SIZES, "church series of length 1..5"),
    ),
)
SCORE.export(globals())

# game_out[field], int64: one game's outcome
GAME = Record(
    "game",
    "G_",
    "N_GAME_FIELDS",
    (
        ("rounds", 1, "rounds played"),
        ("aborted", 1, "1 if the safety cap of rounds stopped the game"),
        ("filled", 1, "mask of the seats whose city is full"),
        ("attacks", 1, "pirate attacks made"),
        ("boxes", 1, "pirate boxes crossed"),
        ("winners", 1, "number of winners"),
        ("error", 1, "0, or 1 + the Decision at which a policy returned a row outside its candidates"),
        ("error_seat", 1, "the seat of that policy, -1 if none"),
        ("attack_round", MAX_PIRATE_ROWS, "the round of each attack, -1 if none"),
    ),
)
GAME.export(globals())

# rounds[game, round, seat, field], int16: each seat at the start of each round and once more at
# the game's end (round = rounds played), recorded only where asked (``simulate --rounds``): the
# position a win-probability model reads. Every field is a count of the position, small enough
# for int16.
ROUND = Record(
    "round snapshot",
    "RS_",
    "N_ROUND_FIELDS",
    (
        ("score", 1, "the seat's final VP if the game ended now (every term of the final scoring)"),
        ("vp", 1, "VP earned during play so far"),
        ("church_vp", 1, "VP the seat's church series would score now"),
        ("coins", 1, "coins held"),
        ("logs", 1, "logs held"),
        ("cannons_lost", 1, "cannons lost to the pirates so far"),
        ("defence", 1, "the seat's defence against a pirate attack now"),
        ("sides_done", 1, "sides of the wall complete"),
        ("n_empty", 1, "empty spaces left"),
        ("walls", 1, "walls in the city"),
        ("crates", 1, "crates in the city"),
        ("churches", 1, "churches in the city"),
        ("persons", 1, "persons in the city"),
        ("pirate_boxes", 1, "boxes of the pirate track crossed (the same for every seat)"),
        ("pirate_attacks", 1, "pirate attacks made (the same for every seat)"),
    ),
)
ROUND.export(globals())


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
(SPACES_MASK, OUTER_MASK, INNER_MASK, NEIGH8_MASK, NEIGH4_MASK, SIDE_OF_CELL, SIDE_MASK, SIDE_CELLS) = _build_tables()
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


class PolicyKind(IntEnum):
    """How a seat decides (``smsim.play.loop``): a built-in bot is data, a user's policy a function."""

    RANDOM = 0
    HEURISTIC = 1  # the parameterised heuristic; every built-in but random is a preset of it
    USER = 2  # the seat's function in the tuple of policy functions
    ROLLOUT = 3  # the search policy (smsim.play.search): continuations played by its base policy
    LEARNED = 4  # a model fitted to the search's values (smsim.policies.learned): its vector in params


MAX_CANDS = 128
NO_SYMBOL = -1

# The parts of the game a seat may forgo (restricted play, ``smsim matters``): bit i of a forgo mask
# is FORGO_PARTS[i]. A symbol's part takes every use of it; a person's, buying it with heads and
# taking it as a wall bonus; "rotations", every use with a die turned. Soldiers are the defence a
# player buys, merchants the coins from crates.
FORGO_PARTS = (
    "churches",
    "walls",
    "crates",
    "logs",
    "rotations",
    "citizens",
    "soldiers",
    "priests",
    "architects",
    "merchants",
    "jugglers",
    "nobles",
)
FORGO_ROTATIONS = 1 << FORGO_PARTS.index("rotations")
# per Face, the bit of its symbol's part (heads: none, each person has its own)
FORGO_SYMBOL = np.array(
    [1 << FORGO_PARTS.index(part) for part in ("logs", "crates", "walls", "churches")] + [0, 0], dtype=np.int64
)
FORGO_PERSON = np.array([1 << FORGO_PARTS.index("citizens") + p for p in range(len(Person))], dtype=np.int64)
FORGO_ALL = (1 << len(FORGO_PARTS)) - 1

# cands[row, column], int64: one legal candidate of a USE decision (other decisions use column 0)
CAND = Record(
    "candidate",
    "C_",
    "CAND_WIDTH",
    (
        ("symbol", 1, "the Face used, NO_SYMBOL: no die used"),
        ("k", 1, "dice used"),
        ("rotated", 1, "dice turned to the symbol"),
        ("person", 1, "HEAD: the Person bought, else -1"),
    ),
)
CAND.export(globals())

# ctx[field], int64: what the current decision is about
CTX = Record(
    "decision context",
    "CTX_",
    "N_CTX",
    (
        ("decision", 1, "the Decision"),
        ("seat", 1, "the seat deciding"),
        ("round", 1, "the round, from 0"),
        ("roll", 1, "KEEP: rolls made so far (1 or 2)"),
        ("symbol", 1, "the symbol being used (PLACE, HOUSES)"),
        ("k", 1, "dice used"),
        ("what", 1, "PLACE: the Cell code being placed"),
        ("left", 1, "PLACE: cells still to place, this one included"),
        ("anchor", 1, "PLACE/HOUSES: the architect's cell, else -1"),
        ("group", 1, "PLACE: uint64 bits (as int64) of the group placed so far this action"),
        ("n", 1, "the number of candidates"),
        ("turn", 1, "turns played so far in this game (changes every turn: a policy's memo key)"),
        ("index", 1, "decisions asked before this one in this game: the decision's number, from 0"),
    ),
)
CTX.export(globals())


# -- the codes as plain ints, for jitted code ------------------------------------------------------
# Jitted code names a code by one of these, never through its enum: a module-level int is a
# compile-time constant in cached numba code. Each is the enum's name, then the member's
# (FACE_SWORDS is Face.SWORDS). A person's cell code is PERSON_0 + the Person; a church's,
# CELL_CHURCH_1 + its size - 1.
FACE_LOG = int(Face.LOG)
FACE_CRATE = int(Face.CRATE)
FACE_WALL = int(Face.WALL)
FACE_CROSS = int(Face.CROSS)
FACE_HEAD = int(Face.HEAD)
FACE_SWORDS = int(Face.SWORDS)

PERSON_CITIZEN = int(Person.CITIZEN)
PERSON_SOLDIER = int(Person.SOLDIER)
PERSON_PRIEST = int(Person.PRIEST)
PERSON_ARCHITECT = int(Person.ARCHITECT)
PERSON_MERCHANT = int(Person.MERCHANT)
PERSON_JUGGLER = int(Person.JUGGLER)
PERSON_NOBLE = int(Person.NOBLE)

CELL_EMPTY = int(Cell.EMPTY)
CELL_TOWER = int(Cell.TOWER)
CELL_WALL = int(Cell.WALL)
CELL_CRATE = int(Cell.CRATE)
CELL_HOUSE = int(Cell.HOUSE)
CELL_CHURCH_1 = int(Cell.CHURCH_1)

BONUS_KIND_NONE = int(BonusKind.NONE)
BONUS_KIND_PERSON = int(BonusKind.PERSON)
BONUS_KIND_COINS = int(BonusKind.COINS)
BONUS_KIND_VP = int(BonusKind.VP)

DECISION_KEEP = int(Decision.KEEP)
DECISION_USE = int(Decision.USE)
DECISION_PLACE = int(Decision.PLACE)
DECISION_HOUSES = int(Decision.HOUSES)
DECISION_BONUS_SIDE = int(Decision.BONUS_SIDE)
DECISION_BONUS_PERSON = int(Decision.BONUS_PERSON)

POLICY_KIND_RANDOM = int(PolicyKind.RANDOM)
POLICY_KIND_HEURISTIC = int(PolicyKind.HEURISTIC)
POLICY_KIND_USER = int(PolicyKind.USER)
POLICY_KIND_ROLLOUT = int(PolicyKind.ROLLOUT)
POLICY_KIND_LEARNED = int(PolicyKind.LEARNED)
