"""The independent referee: replays a game trace (docs/trace.md) against docs/rules.md.

The referee is written from docs/rules.md and docs/trace.md alone; it shares no code with the
engine (only :mod:`smsim.rules`, for the names and meaning of the rules fields, and
:mod:`smsim.play.tracefile`, the plain-Python reader of trace files), so that it can catch the
engine's mistakes. It keeps its own full state of every seat (city, coins,
logs, VP earned, cannons lost, soldiers, sides complete or destroyed) and of the pirate
track, and checks every ``turn`` line and the ``end`` line of a game. It reports the first
discrepancy of each game, naming the docs/rules.md section it enforces, with what it expected
and what it found.

Contract
--------
- :class:`Referee` takes the ``game`` line, then ``turn`` lines one by one, then the ``end``
  line; each call returns ``None`` or the first :class:`Discrepancy` of the game (and that
  same discrepancy on every later call: checking stops there).
- :func:`check_game` runs a whole game given as a list of records.
- :func:`check_trace` reads a JSON-lines file of one or more games and never raises: a
  malformed file (bad JSON, a missing or stray line, a game without end) is a discrepancy;
  a line that cannot be read at all ends the check there.

Plain Python on purpose (no numba, no numpy): a few dozen microseconds per turn.

>>> print(format_city(start_city(Rules())))
+ . . . . . +
. C C . . . .
. C . . . . .
. C . . . . .
. . . . . . .
. . . . . . .
+ . . . . . +
>>> church_series([3, 2, 1, 1, 2])
[5, 2, 1]
>>> church_series_vp([3, 2, 1, 1, 2], Rules().church_series_vp)
25
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from os import PathLike
from typing import Any

from smsim.errors import RulesError, TraceError
from smsim.play.tracefile import iter_jsonl
from smsim.rules import SIDE_NAMES, Rules

__all__ = [
    "Discrepancy",
    "Referee",
    "check_game",
    "check_trace",
    "church_series",
    "church_series_vp",
    "format_city",
    "parse_city",
    "start_city",
]

# -- the rules each check enforces (the ``rule`` of a Discrepancy) --------------------------------
START = "docs/rules.md §1 Components and start"
ORDER = "docs/rules.md §1 Seats (turn order)"
CITY = "docs/rules.md §2 The city"
BONUS = "docs/rules.md §2 Wall bonuses"
ROLL = "docs/rules.md §3 Roll"
CHOOSE = "docs/rules.md §3 Choose a symbol"
ROTATE = "docs/rules.md §3 Rotation"
MUST_USE = "docs/rules.md §3 Must use a die"
SWORDS = "docs/rules.md §3 Swords"
TURN = "docs/rules.md §3 A turn"
END = "docs/rules.md §4 End of the game"
SCORING = "docs/rules.md §4 Final scoring"
TIE = "docs/rules.md §4 Tie"
LOG = "docs/rules.md §5 Log"
CRATE = "docs/rules.md §5 Crate"
WALL = "docs/rules.md §5 Wall"
CROSS = "docs/rules.md §5 Cross"
SERIES = "docs/rules.md §5 Cross (church series)"
HEAD = "docs/rules.md §5 Head"
HOUSES = "docs/rules.md §5 Head (architect houses)"
PIRATES = "docs/rules.md §6 Pirates"
RULES_CONFIG = "docs/rules.md §7 Rules configuration"
BOARD = "docs/rules.md §8 Board text format"
FORMAT = "docs/trace.md"


def _effect_rule(person: str) -> str:
    """The rule of a person's placement effect, e.g. ``docs/rules.md §5 Head (merchant)``."""
    return f"{HEAD} ({person})"


# -- geometry (docs/rules.md §2), computed from coordinates ------------------------------------------
# A cell is r * 7 + c. Towers are the four corners and are not spaces.
SIZE = 7
TOWERS: frozenset[int] = frozenset({0, SIZE - 1, SIZE * (SIZE - 1), SIZE * SIZE - 1})
SPACES: tuple[int, ...] = tuple(i for i in range(SIZE * SIZE) if i not in TOWERS)


def _is_outer(cell: int) -> bool:
    r, c = divmod(cell, SIZE)
    return r in (0, SIZE - 1) or c in (0, SIZE - 1)


def _side_of(cell: int) -> int:
    """Side index (SIDE_NAMES order: top, right, bottom, left) of an outer space, else -1."""
    r, c = divmod(cell, SIZE)
    if cell in TOWERS:
        return -1
    if r == 0:
        return 0
    if c == SIZE - 1:
        return 1
    if r == SIZE - 1:
        return 2
    if c == 0:
        return 3
    return -1


def _neighbours(cell: int, diagonal: bool) -> frozenset[int]:
    r, c = divmod(cell, SIZE)
    out = set()
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0) or (not diagonal and dr and dc):
                continue
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE and rr * SIZE + cc not in TOWERS:
                out.add(rr * SIZE + cc)
    return frozenset(out)


OUTER: frozenset[int] = frozenset(i for i in SPACES if _is_outer(i))
SIDE_OF: tuple[int, ...] = tuple(_side_of(i) for i in range(SIZE * SIZE))
SIDE_CELLS: tuple[tuple[int, ...], ...] = tuple(tuple(i for i in SPACES if SIDE_OF[i] == s) for s in range(4))
# "Adjacent": the 8 neighbours that are spaces; "orthogonally connected": the 4 neighbours.
NEIGHBOURS_8: tuple[frozenset[int], ...] = tuple(_neighbours(i, True) for i in range(SIZE * SIZE))
NEIGHBOURS_4: tuple[frozenset[int], ...] = tuple(_neighbours(i, False) for i in range(SIZE * SIZE))

assert len(SPACES) == 45 and len(OUTER) == 20 and all(len(s) == 5 for s in SIDE_CELLS)
assert len(NEIGHBOURS_8[1 * SIZE + 1]) == 7 and (1 * SIZE + 0) in NEIGHBOURS_8[0 * SIZE + 1]

# -- faces and persons ------------------------------------------------------------------------
FACES: tuple[str, ...] = ("log", "crate", "wall", "cross", "head", "swords")
SYMBOLS: tuple[str, ...] = FACES[:5]  # swords can never be chosen nor rotated to (§3)
FACE_SET = frozenset(FACES)
# person -> (letter of docs/rules.md §8, number of heads that buy it, docs/rules.md §5 Head)
PERSONS: dict[str, tuple[str, int]] = {
    "citizen": ("c", 1),
    "soldier": ("s", 2),
    "priest": ("p", 2),
    "architect": ("a", 3),
    "merchant": ("m", 3),
    "juggler": ("j", 4),
    "noble": ("n", 5),
}
PERSON_LETTERS = frozenset(letter for letter, _ in PERSONS.values())
EMPTY, WALL_CH, CRATE_CH, HOUSE_CH, TOWER_CH = ".", "#", "C", "H", "+"
CHURCH_CHS = frozenset("12345")
CELL_CHARS = frozenset(".#CH+12345") | PERSON_LETTERS
SEAT_FIELDS: tuple[str, ...] = ("coins", "logs", "vp", "cannons", "defence")
# The rule to blame when a quantity changed although the referee saw no reason for it.
# rules fields a trace may leave out: the per-seat compensation of a designer's variant
# (docs/rules.md §7), absent from the printed game and from traces written before it existed
OPTIONAL_RULES = ("seat_coins", "seat_vp", "wall_bonus_seats")  # absent: the printed game (Rules.to_dict)


def _per_seat(values: Sequence[int], seat: int) -> int:
    """A seat's entry of a per-seat rules list; a seat past the end of the list gets 0 (§7)."""
    return values[seat] if seat < len(values) else 0


_UNEXPLAINED = {"coins": TURN, "logs": TURN, "vp": TURN, "cannons": PIRATES, "defence": f"{PIRATES} (defence)"}


# -- public helpers -----------------------------------------------------------------------------
def start_city(rules: Rules) -> list[str]:
    """A seat's city at the start (docs/rules.md §1, §2): towers, printed crates, empty spaces.

    Returns
    -------
    list of str, length 49
        One character of docs/rules.md §8 per cell ``r * 7 + c``.
    """
    grid = [TOWER_CH if i in TOWERS else EMPTY for i in range(SIZE * SIZE)]
    for r, c in rules.start_crates:
        grid[r * SIZE + c] = CRATE_CH
    return grid


def format_city(grid: Sequence[str]) -> str:
    """A city in the board text format (docs/rules.md §8): 7 lines of 7 characters, single spaces."""
    return "\n".join(" ".join(grid[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE))


def parse_city(text: str) -> list[str]:
    """Read the board text format (docs/rules.md §8); spaces between characters are allowed.

    Raises
    ------
    ValueError
        If the text is not 7 lines of 7 known characters with towers at the corners.
    """
    lines = [line.replace(" ", "") for line in text.strip("\n").split("\n")]
    if len(lines) != SIZE or any(len(line) != SIZE for line in lines):
        raise ValueError(f"a city is 7 lines of 7 characters, got {text!r}")
    grid = [ch for line in lines for ch in line]
    for i, ch in enumerate(grid):
        if ch not in CELL_CHARS:
            raise ValueError(f"unknown character {ch!r} at [{i // SIZE}, {i % SIZE}]")
        if (ch == TOWER_CH) != (i in TOWERS):
            raise ValueError(f"towers are the four corners only; found {ch!r} at [{i // SIZE}, {i % SIZE}]")
    return grid


def church_series(counts: Sequence[int]) -> list[int]:
    """Lengths of the church series, longest first (docs/rules.md §5, Cross).

    Series 1 is the longest run 1, 2, 3, ... using one church of each size; series 2 the
    longest run among the churches left; and so on. Churches outside a run from size 1
    belong to no series.

    Parameters
    ----------
    counts : sequence of 5 int
        Churches of size 1..5.
    """
    left = list(counts)
    series = []
    while True:
        length = 0
        while length < len(left) and left[length] > 0:
            length += 1
        if length == 0:
            return series
        for size in range(length):
            left[size] -= 1
        series.append(length)


def church_series_vp(counts: Sequence[int], series_vp: Sequence[int]) -> int:
    """VP of all church series (docs/rules.md §5, Cross); ``series_vp[n - 1]`` scores length n."""
    return sum(series_vp[length - 1] for length in church_series(counts))


# -- discrepancies ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Discrepancy:
    """One thing a trace got wrong, and the rule it breaks.

    Attributes
    ----------
    game : int
        The game index of the ``game`` line (-1 when no game line was read).
    turn : int or None
        0-based index of the turn line within its game; None for the game line, the end
        line, or the file as a whole.
    round, seat : int or None
        Where it happened, when known.
    rule : str
        The section enforced, e.g. ``"docs/rules.md §5 Crate"``.
    message : str
        What was wrong, with what was expected and what was found.
    """

    game: int
    turn: int | None
    round: int | None
    seat: int | None
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"game {self.game}" if self.game >= 0 else "before any game"
        if self.turn is not None:
            where += f", turn {self.turn}"
        parts = []
        if self.round is not None:
            parts.append(f"round {self.round}")
        if self.seat is not None:
            parts.append(f"seat {self.seat}")
        if parts:
            where += f" ({', '.join(parts)})"
        return f"{where}: {self.rule}: {self.message}"


class _Violation(Exception):
    """Raised inside the checks; turned into a :class:`Discrepancy` by the public methods."""

    def __init__(self, rule: str, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.seat = seat


def _is_int(x: Any) -> bool:
    return type(x) is int


def _cell_text(cell: int) -> str:
    return f"[{cell // SIZE}, {cell % SIZE}]"


def _malformed(exc: Exception, what: str) -> str:
    """A readable message for a line that does not have the shape docs/trace.md gives."""
    if isinstance(exc, KeyError):
        return f"{what}: missing field {exc.args[0]!r}"
    return f"{what} is malformed: {type(exc).__name__}: {exc}"


def _connected(cells: Sequence[int]) -> bool:
    """Whether the cells form one orthogonally connected group by themselves (docs/rules.md §2)."""
    if len(cells) <= 1:
        return True
    todo = set(cells)
    stack = [todo.pop()]
    while stack:
        for j in NEIGHBOURS_4[stack.pop()]:
            if j in todo:
                todo.remove(j)
                stack.append(j)
    return not todo


class _Seat:
    """One seat's state as the referee sees it."""

    __slots__ = (
        "grid",
        "coins",
        "logs",
        "vp",
        "cannons",
        "soldiers",
        "complete",
        "destroyed",
        "n_complete",
        "empty",
        "empty_outer",
    )

    def __init__(self, rules: Rules, seat: int) -> None:
        self.grid: list[str] = start_city(rules)  # docs/rules.md §8 characters, cell r * 7 + c
        # start coins, and the seat's compensation of a designer's variant (docs/rules.md §7)
        self.coins = rules.start_coins + _per_seat(rules.seat_coins, seat)
        self.logs = rules.start_logs
        self.vp = 0  # earned during play (persons, houses, wall VP bonuses)
        self.cannons = 0  # cannons lost
        self.soldiers = 0
        self.complete = [False] * 4  # side fully walled and never destroyed, SIDE_NAMES order
        self.destroyed = [False] * 4  # something other than a wall stands on the side
        self.n_complete = 0
        self.empty = sum(1 for i in SPACES if self.grid[i] == EMPTY)
        self.empty_outer = sum(1 for i in OUTER if self.grid[i] == EMPTY)
        for i in OUTER:  # a printed crate on an outer space (a variant) destroys its side (§3)
            if self.grid[i] != EMPTY:
                self.destroyed[SIDE_OF[i]] = True


# -- the referee --------------------------------------------------------------------------------
class Referee:
    """Replays one game from its "game" line, checking each turn and the end.

    Parameters
    ----------
    header : dict
        The ``game`` line of docs/trace.md. A header that cannot be played (bad rules, a
        wrong number of players) is not raised: it is kept in :attr:`error` and returned by
        every later call.

    Attributes
    ----------
    error : Discrepancy or None
        The first discrepancy found so far; once set, checking stops.
    game : int
        The game index of the header (-1 if it has none).
    """

    def __init__(self, header: dict) -> None:
        self.error: Discrepancy | None = None
        self.game: int = -1
        self.n_turns = 0  # turn lines accepted so far
        self.round = 0  # the round and seat of the next turn
        self.seat = 0
        self.over = False  # the game must have ended (docs/rules.md §4)
        self.aborted = False
        self.crossed = 0  # pirate boxes crossed so far (docs/rules.md §6)
        self._changes: list[tuple[int, str, str]] = []  # (seat, field, rule) changed this turn
        try:
            game = header.get("game") if isinstance(header, dict) else None
            self.game = game if _is_int(game) else -1
            self._start(header)
        except _Violation as v:
            self.error = Discrepancy(self.game, None, None, v.seat, v.rule, "game line: " + v.message)
        except Exception as exc:  # a header that is not shaped like docs/trace.md
            self.error = Discrepancy(self.game, None, None, None, FORMAT, _malformed(exc, "game line"))

    # -- set-up -----------------------------------------------------------------------------
    def _start(self, header: dict) -> None:
        """Read the header and set up the start state (docs/rules.md §1, §7)."""
        if header.get("type") != "game":
            raise _Violation(FORMAT, f'expected a "game" line, found type {header.get("type")!r}')
        if not _is_int(header["game"]):
            raise _Violation(FORMAT, f"game index must be a whole number, found {header['game']!r}")
        players = header["players"]
        if not _is_int(players) or not 2 <= players <= 5:
            raise _Violation(START, f"2 to 5 players, found {players!r}")
        raw = header["rules"]
        if not isinstance(raw, dict):
            raise _Violation(FORMAT, f"rules must be an object, found {raw!r}")
        missing = [f.name for f in fields(Rules) if f.name not in raw and f.name not in OPTIONAL_RULES]
        if missing:
            raise _Violation(FORMAT, f"rules lacks field(s) {', '.join(missing)}")
        try:
            rules = Rules.from_dict(raw)
        except RulesError as exc:
            raise _Violation(RULES_CONFIG, str(exc)) from None
        self.rules = rules
        self.players: int = players
        self.row_boxes = rules.pirate_row_boxes(players)
        self.total_boxes = self.row_boxes * len(rules.pirate_strengths)
        self.seats = [_Seat(rules, s) for s in range(players)]

    # -- public API -------------------------------------------------------------------------
    def turn(self, record: dict) -> Discrepancy | None:
        """Check one "turn" line against the referee's state, then apply it.

        Returns
        -------
        Discrepancy or None
            The first discrepancy of the game, or None if this turn (and all before) is right.
        """
        if self.error is not None:
            return self.error
        self._changes.clear()
        try:
            self._turn(record)
        except _Violation as v:
            self.error = self._turn_discrepancy(record, v.rule, v.message)
        except Exception as exc:
            self.error = self._turn_discrepancy(record, FORMAT, _malformed(exc, "turn line"))
        else:
            self.n_turns += 1
            return None
        return self.error

    def end(self, record: dict) -> Discrepancy | None:
        """Check the "end" line: the moment the game ended, the scores and the cities."""
        if self.error is not None:
            return self.error
        try:
            self._end(record)
        except _Violation as v:
            self.error = Discrepancy(self.game, None, None, v.seat, v.rule, "end line: " + v.message)
        except Exception as exc:
            self.error = Discrepancy(self.game, None, None, None, FORMAT, _malformed(exc, "end line"))
        return self.error

    def defence(self, seat: int) -> int:
        """A seat's defence now: per soldier and per complete side (docs/rules.md §6)."""
        s = self.seats[seat]
        return s.soldiers * self.rules.soldier_defence + s.n_complete * self.rules.side_defence

    def city(self, seat: int) -> str:
        """A seat's city in the board text format (docs/rules.md §8)."""
        return format_city(self.seats[seat].grid)

    def position(self, seat: int) -> dict[str, int]:
        """A seat's position now, as the referee sees it: its final score if the game ended now
        and what makes it up, what its city holds, and the pirate track (the same for every
        seat). The names are the round snapshots' (``layout.ROUND``), which this checks."""
        me = self.seats[seat]
        score = self._score(seat)
        n_rows = len(self.rules.pirate_strengths)
        return {
            "score": score["total"],
            "vp": me.vp,
            "church_vp": score["church_vp"],
            "coins": me.coins,
            "logs": me.logs,
            "cannons_lost": me.cannons,
            "defence": self.defence(seat),
            "sides_done": me.n_complete,
            "n_empty": me.empty,
            "walls": me.grid.count(WALL_CH),
            "crates": me.grid.count(CRATE_CH),
            "churches": sum(ch in CHURCH_CHS for ch in me.grid),
            "persons": sum(ch in PERSON_LETTERS for ch in me.grid),
            "pirate_boxes": self.crossed,
            "pirate_attacks": min(n_rows, self.crossed // self.row_boxes),
        }

    def _turn_discrepancy(self, record: Any, rule: str, message: str) -> Discrepancy:
        """A discrepancy located at the turn being checked (its round and active seat)."""
        rnd, st = self.round, self.seat
        if isinstance(record, dict):
            if _is_int(record.get("round")):
                rnd = record["round"]
            if _is_int(record.get("seat")):
                st = record["seat"]
        return Discrepancy(self.game, self.n_turns, rnd, st, rule, message)

    # -- one turn ---------------------------------------------------------------------------
    def _turn(self, rec: dict) -> None:
        if rec.get("type") != "turn":
            raise _Violation(FORMAT, f'expected a "turn" line, found type {rec.get("type")!r}')
        rnd, seat = rec["round"], rec["seat"]
        if self.over:
            why = "no city became full" if self.aborted else "a city was full"
            raise _Violation(
                END,
                f"a turn after the game ended: {why} at the end of round "
                f"{self.round - 1}, so round {self.round} is never played",
            )
        if rnd != self.round or seat != self.seat:
            raise _Violation(ORDER, f"expected round {self.round} seat {self.seat}, found round {rnd!r} seat {seat!r}")
        final = self._check_dice(rec["rolls"], rec["rerolled"])
        use = rec["use"]
        if use is None:
            self._check_pass(seat, final, rec)
        else:
            self._use(seat, final, use, rec)
        self._swords(final, rec)
        self._check_after(rec["after"])
        # advance the turn order; the game ends after the round in which a city became full
        self.seat += 1
        if self.seat == self.players:
            self.seat = 0
            self.round += 1
            if any(s.empty == 0 for s in self.seats):
                self.over = True
            elif self.round >= self.rules.max_rounds:
                self.over, self.aborted = True, True

    def _check_dice(self, rolls: Any, rerolled: Any) -> list[str]:
        """1 to 3 rolls of 5 faces; dice not rolled again keep their face (docs/rules.md §3, Roll)."""
        if not isinstance(rolls, list) or not 1 <= len(rolls) <= 3:
            raise _Violation(ROLL, f"1 to 3 rolls, found {rolls!r}")
        for roll in rolls:
            if not isinstance(roll, list) or len(roll) != 5 or not FACE_SET.issuperset(roll):
                raise _Violation(ROLL, f"a roll is 5 dice of {', '.join(FACES)}; found {roll!r}")
        if not isinstance(rerolled, list) or len(rerolled) != len(rolls) - 1:
            raise _Violation(
                ROLL, f"expected {len(rolls) - 1} reroll mask(s), one per roll after the first, found {rerolled!r}"
            )
        for n, mask in enumerate(rerolled):
            if not _is_int(mask) or not 0 <= mask <= 31:
                raise _Violation(ROLL, f"a reroll mask is 0..31, found {mask!r}")
            before, after = rolls[n], rolls[n + 1]
            for die in range(5):
                if not (mask >> die) & 1 and before[die] != after[die]:
                    raise _Violation(
                        ROLL,
                        f"roll {n + 2}: die {die} was kept (mask {mask}) but "
                        f"changed from {before[die]} to {after[die]}",
                    )
        return rolls[-1]

    def _check_pass(self, seat: int, final: list[str], rec: dict) -> None:
        """A turn without a use (docs/rules.md §3): allowed only under ``allow_pass`` or when no
        legal use exists without rotating."""
        for key in ("rotation_cost", "delivery_cost"):
            if rec[key] != 0:
                raise _Violation(TURN, f"no die was used, yet {key} is {rec[key]!r}")
        for key in ("cells", "houses", "bonuses"):
            if rec[key] != []:
                raise _Violation(TURN, f"no die was used, yet {key} is {rec[key]!r}")
        if self.rules.allow_pass:
            return
        me = self.seats[seat]
        if "log" in final and me.coins >= self.rules.log_delivery_cost:
            why = f"a log delivery ({me.coins} coins, delivery costs {self.rules.log_delivery_cost})"
        elif me.empty and ("crate" in final or "cross" in final or "head" in final):
            sym = next(f for f in ("crate", "cross", "head") if f in final)
            why = f"one {sym} on one of {me.empty} empty spaces"
        elif "wall" in final and me.empty_outer:
            why = f"one wall on one of {me.empty_outer} empty outer spaces"
        else:
            return
        raise _Violation(MUST_USE, f"no die used although a legal use without rotating existed: {why}; dice {final}")

    def _use(self, seat: int, final: list[str], use: dict, rec: dict) -> None:
        """Check and apply the use of k dice for one action (docs/rules.md §3, §5)."""
        rules, me = self.rules, self.seats[seat]
        sym, k, rot, person = use["symbol"], use["dice"], use["rotated"], use["person"]
        if sym not in SYMBOLS:
            raise _Violation(CHOOSE, f"symbol must be one of {', '.join(SYMBOLS)}, found {sym!r}")
        if not _is_int(k) or k < 1:
            raise _Violation(CHOOSE, f"a use takes at least 1 die, found dice={k!r}")
        if not _is_int(rot) or not 0 <= rot <= k:
            raise _Violation(ROTATE, f"rotated must be 0..dice ({k}), found {rot!r}")
        showing = final.count(sym)
        if k - rot > showing:
            raise _Violation(CHOOSE, f"{k - rot} unrotated dice used for {sym} but only {showing} show it: {final}")
        rotatable = 5 - showing - final.count("swords")
        if rot > rotatable:
            raise _Violation(
                ROTATE, f"{rot} dice rotated to {sym} but only {rotatable} show neither {sym} nor swords: {final}"
            )
        cost = rot * rules.rotation_cost
        if rec["rotation_cost"] != cost:
            raise _Violation(
                ROTATE,
                f"rotation_cost: expected {cost} ({rot} x {rules.rotation_cost}), found {rec['rotation_cost']!r}",
            )
        if cost > me.coins:
            raise _Violation(
                ROTATE,
                f"rotating {rot} dice costs {cost} coins but the seat has {me.coins}; coins may never go below 0",
            )
        if cost:
            me.coins -= cost
            self._changes.append((seat, "coins", ROTATE))
        if sym != "log" and rec["delivery_cost"] != 0:
            raise _Violation(LOG, f"delivery_cost is {rec['delivery_cost']!r} without a log delivery")
        if sym != "head" and person is not None:
            raise _Violation(HEAD, f"person {person!r} given for a {sym} use")
        if (sym != "head" or person != "architect") and rec["houses"] != []:
            raise _Violation(HOUSES, f"houses {rec['houses']!r} without an architect bought this turn")
        if sym != "wall" and rec["bonuses"] != []:
            raise _Violation(WALL, f"wall bonuses {rec['bonuses']!r} without a wall built")
        cells = rec["cells"]
        if sym == "log":
            if cells != []:
                raise _Violation(LOG, f"a log delivery places nothing, found cells {cells!r}")
            fee = rules.log_delivery_cost
            if rec["delivery_cost"] != fee:
                raise _Violation(LOG, f"delivery_cost: expected {fee}, found {rec['delivery_cost']!r}")
            if me.coins < fee:
                raise _Violation(LOG, f"a delivery costs {fee} coins, not allowed with {me.coins} left after rotations")
            if fee:
                me.coins -= fee
                self._changes.append((seat, "coins", LOG))
            me.logs += k
            self._changes.append((seat, "logs", LOG))
        elif sym == "crate":
            placed = self._cells(seat, cells, CRATE, "crates")
            if len(placed) != k:
                raise _Violation(CRATE, f"{k} dice make {k} crates, found {len(placed)} cells")
            if not _connected(placed):
                raise _Violation(CRATE, f"crates {cells} do not form one orthogonally connected group")
            for cell in placed:
                self._place(seat, cell, CRATE_CH)
        elif sym == "wall":
            placed = self._cells(seat, cells, WALL, "walls")
            if len(placed) != k:
                raise _Violation(WALL, f"{k} dice make {k} walls, found {len(placed)} cells")
            for cell in placed:
                if cell not in OUTER:
                    raise _Violation(WALL, f"wall on inner space {_cell_text(cell)}; walls go on outer spaces only")
            for cell in placed:
                self._place(seat, cell, WALL_CH)
            self._wall_bonuses(seat, placed, rec["bonuses"])
        elif sym == "cross":
            if k > 5:
                raise _Violation(CROSS, f"a church has size 1 to 5, found {k}")
            placed = self._cells(seat, cells, CROSS, "the church")
            if len(placed) != 1:
                raise _Violation(CROSS, f"one church on one space, found {len(placed)} cells")
            self._place(seat, placed[0], str(k))
        else:  # head
            if person not in PERSONS:
                raise _Violation(HEAD, f"unknown person {person!r}")
            if PERSONS[person][1] != k:
                bought = [p for p, (_, heads) in PERSONS.items() if heads == k]
                raise _Violation(HEAD, f"{k} heads buy {' or '.join(bought) or 'no person'}, not {person}")
            placed = self._cells(seat, cells, HEAD, "the person")
            if len(placed) != 1:
                raise _Violation(HEAD, f"one person on one space, found {len(placed)} cells")
            self._person(seat, placed[0], person, rec["houses"])

    def _cells(self, seat: int, raw: Any, rule: str, what: str) -> list[int]:
        """Distinct empty spaces given as ``[r, c]`` (docs/rules.md §2, §3: everything goes on an
        empty space)."""
        if not isinstance(raw, list):
            raise _Violation(FORMAT, f"cells of {what} must be a list, found {raw!r}")
        grid = self.seats[seat].grid
        out = []
        for item in raw:
            if (
                not isinstance(item, (list, tuple))
                or len(item) != 2
                or not _is_int(item[0])
                or not _is_int(item[1])
                or not (0 <= item[0] < SIZE and 0 <= item[1] < SIZE)
            ):
                raise _Violation(CITY, f"{what}: {item!r} is not a cell [r, c] of the 7 x 7 grid")
            cell = item[0] * SIZE + item[1]
            if cell in TOWERS:
                raise _Violation(CITY, f"{what}: {_cell_text(cell)} is a tower, not a space")
            if grid[cell] != EMPTY:
                raise _Violation(rule, f"{what}: {_cell_text(cell)} is not empty (holds {grid[cell]!r})")
            if cell in out:
                raise _Violation(rule, f"{what}: {_cell_text(cell)} is listed twice")
            out.append(cell)
        return out

    def _place(self, seat: int, cell: int, ch: str) -> None:
        """Fill an empty space for good; anything but a wall destroys an outer side (§3)."""
        me = self.seats[seat]
        me.grid[cell] = ch
        me.empty -= 1
        side = SIDE_OF[cell]
        if side >= 0:
            me.empty_outer -= 1
            if ch != WALL_CH:
                me.destroyed[side] = True

    def _person(self, seat: int, cell: int, person: str, houses: Any) -> None:
        """Place a person with its effect, at placement only (docs/rules.md §5, Head)."""
        rules, me = self.rules, self.seats[seat]
        letter = PERSONS[person][0]
        self._place(seat, cell, letter)
        grid, around = me.grid, NEIGHBOURS_8[cell]
        rule = _effect_rule(person)
        if person != "architect" and houses != []:
            raise _Violation(HOUSES, f"houses {houses!r} with a {person}; only an architect builds houses")
        if person == "citizen":
            me.vp += rules.citizen_vp
            self._changes.append((seat, "vp", rule))
        elif person == "soldier":
            me.soldiers += 1
            self._changes.append((seat, "defence", rule))
        elif person == "priest":
            me.vp += rules.priest_vp_per_church * sum(1 for j in around if grid[j] in CHURCH_CHS)
            self._changes.append((seat, "vp", rule))
        elif person == "merchant":
            me.coins += rules.merchant_coins_per_crate * sum(1 for j in around if grid[j] == CRATE_CH)
            self._changes.append((seat, "coins", rule))
        elif person == "juggler":
            me.vp += rules.juggler_vp_per_type * len({grid[j] for j in around} & PERSON_LETTERS)
            self._changes.append((seat, "vp", rule))
        elif person == "noble":
            me.vp += rules.noble_vp
            self._changes.append((seat, "vp", rule))
        else:  # architect
            self._houses(seat, cell, houses)

    def _houses(self, seat: int, architect: int, raw: Any) -> None:
        """An architect's houses (docs/rules.md §5, Head): 0..architect_max_houses logs become
        houses forming one orthogonally connected group, one of them adjacent to him."""
        rules, me = self.rules, self.seats[seat]
        limit = min(rules.architect_max_houses, me.logs)
        if isinstance(raw, list) and len(raw) > limit:
            raise _Violation(
                HOUSES,
                f"{len(raw)} houses but at most {limit} (architect_max_houses "
                f"{rules.architect_max_houses}, {me.logs} logs)",
            )
        placed = self._cells(seat, raw, HOUSES, "houses")
        if not placed:
            return
        if not _connected(placed):
            raise _Violation(HOUSES, f"houses {raw} do not form one orthogonally connected group")
        if not any(h in NEIGHBOURS_8[architect] for h in placed):
            raise _Violation(HOUSES, f"no house of {raw} is adjacent to the architect at {_cell_text(architect)}")
        for cell in placed:
            self._place(seat, cell, HOUSE_CH)
        me.logs -= len(placed)
        me.vp += rules.house_vp * len(placed)
        self._changes.append((seat, "logs", HOUSES))
        self._changes.append((seat, "vp", HOUSES))

    def _wall_bonuses(self, seat: int, walls: list[int], bonuses: Any) -> None:
        """Sides completed by this turn's walls give their bonus at once (docs/rules.md §2 wall
        bonuses, §5 Wall): exactly those sides, each once, in the order the player chose."""
        rules, me = self.rules, self.seats[seat]
        done = []
        for side in sorted({SIDE_OF[c] for c in walls}):
            intact = not me.complete[side] and not me.destroyed[side]
            if intact and all(me.grid[i] == WALL_CH for i in SIDE_CELLS[side]):
                done.append(side)
        if not isinstance(bonuses, list) or not all(isinstance(b, dict) for b in bonuses):
            raise _Violation(FORMAT, f"bonuses must be a list of objects, found {bonuses!r}")
        expected = sorted(SIDE_NAMES[s] for s in done)
        found = [b["side"] for b in bonuses]
        if sorted(found, key=str) != expected:
            raise _Violation(
                BONUS, f"sides completed this turn: expected bonuses for {expected or 'none'}, found {found or 'none'}"
            )
        for side in done:  # +side_defence from then on (docs/rules.md §5 Wall, §6)
            me.complete[side] = True
            me.n_complete += 1
            self._changes.append((seat, "defence", WALL))
        for b in bonuses:
            side = SIDE_NAMES.index(b["side"])
            kind, amount = rules.wall_bonus_kind[side], rules.wall_bonus_amount[side]
            if not (rules.wall_bonus_seats[side] >> seat) & 1:  # a seat left out of the side's bonus (§7)
                kind, amount = "none", 0
            if b["kind"] != kind or b["amount"] != amount:
                raise _Violation(
                    BONUS, f"{b['side']} bonus: expected {kind} {amount}, found {b['kind']!r} {b['amount']!r}"
                )
            person, cell, houses = b["person"], b["cell"], b["houses"]
            if kind != "person":
                if person is not None or cell is not None or houses != []:
                    raise _Violation(
                        BONUS,
                        f"{b['side']} bonus is {kind}: person, cell must be null "
                        f"and houses [], found {person!r}, {cell!r}, {houses!r}",
                    )
                if kind == "coins" and amount:
                    me.coins += amount
                    self._changes.append((seat, "coins", BONUS))
                elif kind == "vp" and amount:
                    me.vp += amount
                    self._changes.append((seat, "vp", BONUS))
                continue
            if person is None:  # lost only when no empty space is left
                if cell is not None or houses != []:
                    raise _Violation(BONUS, f"{b['side']} bonus: no person, yet cell {cell!r} houses {houses!r}")
                if me.empty:
                    raise _Violation(BONUS, f"{b['side']} person bonus not taken although {me.empty} spaces are empty")
                continue
            if person not in PERSONS or PERSONS[person][1] > amount:
                allowed = [p for p, (_, heads) in PERSONS.items() if heads <= amount]
                raise _Violation(
                    BONUS,
                    f"{b['side']} bonus is a person of at most {amount} heads ({', '.join(allowed)}), found {person!r}",
                )
            placed = self._cells(seat, [cell], BONUS, f"the {b['side']} bonus {person}")
            self._person(seat, placed[0], person, houses)

    def _swords(self, final: list[str], rec: dict) -> None:
        """Mark the swords after the action and check the attacks they caused (docs/rules.md §3, §6)."""
        n = final.count("swords")
        if rec["swords"] != n:
            raise _Violation(SWORDS, f"swords: expected {n} (the swords among {final}), found {rec['swords']!r}")
        expected = []
        if n and self.crossed < self.total_boxes:
            crossed = min(self.crossed + n, self.total_boxes)
            for row in range(self.crossed // self.row_boxes, crossed // self.row_boxes):
                strength = self.rules.pirate_strengths[row]
                defence = [self.defence(s) for s in range(self.players)]
                lost = [s for s in range(self.players) if defence[s] < strength]
                for s in lost:
                    self.seats[s].cannons += 1
                    self._changes.append((s, "cannons", PIRATES))
                expected.append({"row": row, "strength": strength, "defence": defence, "lost": lost})
            self.crossed = crossed
        found = rec["attacks"]
        if not isinstance(found, list):
            raise _Violation(FORMAT, f"attacks must be a list, found {found!r}")
        track = (
            f"{self.row_boxes} boxes a row, {self.crossed} of {self.total_boxes} crossed after this turn's {n} swords"
        )
        for i in range(max(len(expected), len(found))):
            if i >= len(found):
                e = expected[i]
                raise _Violation(
                    PIRATES,
                    f"missing attack: row {e['row']} (strength {e['strength']}) was finished this turn ({track})",
                )
            if i >= len(expected):
                raise _Violation(PIRATES, f"extra attack {found[i]!r}: no row was finished ({track})")
            e, f = expected[i], found[i]
            for key in ("row", "strength", "defence"):
                if f[key] != e[key]:
                    raise _Violation(PIRATES, f"attack {i}: {key} expected {e[key]}, found {f[key]!r}")
            lost = f["lost"]
            if not isinstance(lost, list) or sorted(lost, key=str) != e["lost"]:
                raise _Violation(
                    PIRATES,
                    f"attack {i} on row {e['row']} (strength {e['strength']}, "
                    f"defence {e['defence']}): seats losing a cannon expected "
                    f"{e['lost']}, found {lost!r}",
                )

    def _check_after(self, after: Any) -> None:
        """Every seat's coins, logs, VP earned, cannons lost and defence once the turn is over."""
        if not isinstance(after, list) or len(after) != self.players:
            raise _Violation(FORMAT, f"after must list {self.players} seats, found {after!r}")
        for s, state in enumerate(after):
            me = self.seats[s]
            mine = (me.coins, me.logs, me.vp, me.cannons, self.defence(s))
            for key, value in zip(SEAT_FIELDS, mine):
                if state[key] != value:
                    rules = [r for (cs, ck, r) in self._changes if cs == s and ck == key]
                    rule = " + ".join(dict.fromkeys(rules)) if rules else _UNEXPLAINED[key]
                    why = "changed this turn by " + rule if rules else "unchanged this turn"
                    raise _Violation(rule, f"after: seat {s} {key} expected {value}, found {state[key]!r} ({why})")

    # -- the end ----------------------------------------------------------------------------
    def _end(self, rec: dict) -> None:
        """The game ends after the round in which a city became full (docs/rules.md §4)."""
        if rec.get("type") != "end":
            raise _Violation(FORMAT, f'expected an "end" line, found type {rec.get("type")!r}')
        rules = self.rules
        if not self.over:
            if self.seat:
                raise _Violation(
                    END,
                    f"the game stopped in round {self.round} before seat {self.seat} "
                    f"played; a round is always played to its end",
                )
            raise _Violation(
                END,
                f"the game stopped after {self.round} rounds although no city is "
                f"full and max_rounds ({rules.max_rounds}) was not reached",
            )
        if rec["rounds"] != self.round:
            raise _Violation(END, f"rounds: expected {self.round}, found {rec['rounds']!r}")
        if rec["aborted"] is not self.aborted:
            raise _Violation(END, f"aborted: expected {self.aborted}, found {rec['aborted']!r}")
        filled = [s for s in range(self.players) if self.seats[s].empty == 0]
        if not isinstance(rec["filled"], list) or sorted(rec["filled"], key=str) != filled:
            raise _Violation(END, f"filled: expected {filled}, found {rec['filled']!r}")
        expected = [self._score(s) for s in range(self.players)]
        totals = [(e["total"], e["empty"]) for e in expected]
        for s, e in enumerate(expected):
            e["rank"] = 1 + sum(1 for t in totals if t > totals[s])  # (total, empty) lexicographic
            e["won"] = e["rank"] == 1
        n_winners = sum(1 for e in expected if e["won"])
        for e in expected:
            e["shared"] = e["won"] and n_winners > 1
        scores = rec["scores"]
        if not isinstance(scores, list) or len(scores) != self.players:
            raise _Violation(FORMAT, f"scores must list {self.players} seats, found {scores!r}")
        by_seat = {sc.get("seat"): sc for sc in scores}
        if sorted(by_seat, key=str) != list(range(self.players)):
            raise _Violation(
                FORMAT,
                f"scores must give each seat 0..{self.players - 1} once, "
                f"found seats {[sc.get('seat') for sc in scores]}",
            )
        for s, e in enumerate(expected):
            found = by_seat[s]
            for key, rule in _SCORE_RULES:
                # a trace written before seat compensation existed has no seat_vp: it was 0
                value = found.get(key, 0) if key == "seat_vp" else found[key]
                if value != e[key] or (isinstance(e[key], bool) and type(value) is not bool):
                    raise _Violation(
                        rule,
                        f"seat {s} {key}: expected {e[key]!r}, found {value!r}{self._score_hint(key, e, expected)}",
                        seat=s,
                    )
        cities = rec["cities"]
        if not isinstance(cities, list) or len(cities) != self.players:
            raise _Violation(FORMAT, f"cities must list {self.players} cities, found {cities!r}")
        for s, text in enumerate(cities):
            mine = self.seats[s].grid
            if text == format_city(mine):
                continue
            try:
                theirs = parse_city(text) if isinstance(text, str) else None
            except ValueError as exc:
                raise _Violation(BOARD, f"seat {s} city: {exc}", seat=s) from None
            if theirs is None:
                raise _Violation(BOARD, f"seat {s} city must be a string, found {text!r}", seat=s)
            for i in range(SIZE * SIZE):
                if theirs[i] != mine[i]:
                    r = i // SIZE
                    row = slice(r * SIZE, (r + 1) * SIZE)
                    raise _Violation(
                        BOARD,
                        f"seat {s} city cell {_cell_text(i)}: expected {mine[i]!r}, "
                        f"found {theirs[i]!r} (row {r} expected {' '.join(mine[row])!r}, "
                        f"found {' '.join(theirs[row])!r})",
                        seat=s,
                    )

    def _score(self, seat: int) -> dict[str, Any]:
        """One seat's final score breakdown (docs/rules.md §4, §5 Cross)."""
        rules, me = self.rules, self.seats[seat]
        churches = [0] * 5
        for ch in me.grid:
            if ch in CHURCH_CHS:
                churches[int(ch) - 1] += 1
        series = church_series(churches)
        score: dict[str, Any] = {
            "earned": me.vp,
            "churches": churches,
            "series": series,
            "church_vp": sum(rules.church_series_vp[n - 1] for n in series),
            "coins": me.coins // rules.coins_per_vp,
            "logs": me.logs * rules.vp_per_log,
            "cannons": -rules.cannon_penalty * me.cannons,
            "full_city": rules.full_city_vp if me.empty == 0 else 0,
            "seat_vp": _per_seat(rules.seat_vp, seat),  # counts before ranks (docs/rules.md §7)
            "empty": me.empty,
        }
        parts = ("earned", "church_vp", "coins", "logs", "cannons", "full_city", "seat_vp")
        score["total"] = sum(score[k] for k in parts)
        return score

    @staticmethod
    def _score_hint(key: str, e: dict[str, Any], expected: list[dict[str, Any]]) -> str:
        """What the expected value of a score field was made of, for the message."""
        if key in ("rank", "won", "shared"):
            return f" (total, empty spaces per seat: {[(x['total'], x['empty']) for x in expected]})"
        if key == "total":
            return (
                f" (= earned {e['earned']} + churches {e['church_vp']} + coins {e['coins']} + "
                f"logs {e['logs']} + cannons {e['cannons']} + full city {e['full_city']}"
                + (f" + seat compensation {e['seat_vp']})" if e["seat_vp"] else ")")
            )
        if key in ("series", "church_vp"):
            return f" (churches of size 1..5: {e['churches']})"
        return ""


# (field of a score, the rule it follows), in the order they are checked
_SCORE_RULES: tuple[tuple[str, str], ...] = (
    ("earned", SCORING),
    ("churches", CROSS),
    ("series", SERIES),
    ("church_vp", SERIES),
    ("coins", SCORING),
    ("logs", SCORING),
    ("cannons", SCORING),
    ("full_city", SCORING),
    ("seat_vp", RULES_CONFIG),
    ("empty", SCORING),
    ("total", SCORING),
    ("rank", TIE),
    ("won", TIE),
    ("shared", TIE),
)


# -- whole games and files ----------------------------------------------------------------------
def check_game(records: list[dict]) -> Discrepancy | None:
    """Check one game: ``records = [game line, turn lines..., end line]``.

    Returns
    -------
    Discrepancy or None
        The first discrepancy, or None if the game follows docs/rules.md.
    """
    if not records:
        return Discrepancy(-1, None, None, None, FORMAT, "no records: a game starts with a game line")
    ref = Referee(records[0])
    if ref.error is not None:
        return ref.error
    for n, rec in enumerate(records[1:], 1):
        kind = rec.get("type") if isinstance(rec, dict) else None
        if kind == "end" and n == len(records) - 1:
            return ref.end(rec)
        if kind != "turn":
            wanted = "a turn line or the end line" if n == len(records) - 1 else "a turn line"
            return Discrepancy(
                ref.game, ref.n_turns, None, None, FORMAT, f"record {n}: expected {wanted}, found {kind!r}"
            )
        found = ref.turn(rec)
        if found is not None:
            return found
    return Discrepancy(ref.game, None, None, None, FORMAT, "the game has no end line")


def check_trace(path: str | PathLike[str]) -> tuple[int, list[Discrepancy]]:
    """Check every game of a JSON-lines trace file (docs/trace.md).

    Parameters
    ----------
    path : str or path-like
        The trace file.

    Returns
    -------
    n_games : int
        Number of games checked (``game`` lines read).
    discrepancies : list of Discrepancy
        The first discrepancy of each bad game, in file order. A malformed file (a turn or
        end line outside a game, a game without an end line, no game at all) is reported
        here too, never raised; so is a file that ``tracefile.iter_jsonl`` refuses (missing,
        empty, a line that is not a JSON object), as the discrepancy of the game it is in:
        the check stops at that line, the games before it checked.
    """
    bad: list[Discrepancy] = []
    n_games = 0
    ref: Referee | None = None  # the current (or last) game
    is_open = False  # the current game has not had its end line
    failed = False  # the current (or last) game already has its discrepancy

    def report(d: Discrepancy) -> None:
        nonlocal failed
        if not failed:
            bad.append(d)
            failed = True

    def stray(lineno: int, what: str) -> None:
        game = ref.game if ref is not None else -1
        report(Discrepancy(game, None, None, None, FORMAT, f"line {lineno}: {what}"))

    try:
        for lineno, rec in iter_jsonl(path):
            kind = rec.get("type")
            if kind == "game":
                if is_open and ref is not None:
                    report(
                        Discrepancy(
                            ref.game,
                            None,
                            None,
                            None,
                            FORMAT,
                            f"the game has no end line (next game starts at line {lineno})",
                        )
                    )
                n_games += 1
                ref, is_open, failed = Referee(rec), True, False
                if ref.error is not None:
                    report(ref.error)
            elif kind in ("turn", "end"):
                line = "a turn line" if kind == "turn" else "an end line"
                if ref is None:
                    stray(lineno, f"{line} before any game line")
                elif not is_open:
                    stray(lineno, f"{line} after the game's end line")
                elif not failed:
                    found = ref.turn(rec) if kind == "turn" else ref.end(rec)
                    if found is not None:
                        report(found)
                if kind == "end":
                    is_open = False
            else:
                stray(lineno, f"unknown line type {kind!r}")
    except TraceError as exc:  # the file stops being a trace here: the check stops too
        report(Discrepancy(ref.game if ref is not None else -1, None, None, None, FORMAT, exc.detail))
    if is_open and ref is not None:
        report(Discrepancy(ref.game, None, None, None, FORMAT, "the game has no end line"))
    return n_games, bad
