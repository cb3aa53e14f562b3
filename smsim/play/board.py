"""The city text format of docs/rules.md §8: parse and print.

>>> city = parse_city('''
... + . . . . . +
... . C C . . . .
... . C . . . . .
... . C . . . . .
... . . . . . . .
... . . . . . . .
... + . . . . . +
... ''')
>>> int((city == Cell.CRATE).sum())
4
>>> print(format_city(city).splitlines()[1])
. C C . . . .
>>> parse_city("+ . . . . . +\\n" * 7)
Traceback (most recent call last):
...
smsim.errors.BoardError: row 2, column 1: tower '+' off the corners
"""

from __future__ import annotations

import numpy as np

from smsim.checks import int_or_text, whole
from smsim.errors import BoardError
from smsim.layout import CELL_CHAR, CHAR_CELL, CORNERS, N_CELLS, SIZE, Cell, cell_index, is_outer

CITY_EXTRA_FIELDS = ("coins", "logs", "cannons", "vp")


def parse_city(text: str) -> np.ndarray:
    """Read a city written as 7 lines of 7 characters into ``int8[49]`` cell codes.

    Blank lines around the city and spaces between characters are ignored.
    """
    rows = [line for line in text.splitlines() if line.strip()]
    if len(rows) != SIZE:
        raise BoardError(f"a city has {SIZE} rows, found {len(rows)}")
    city = np.zeros(N_CELLS, dtype=np.int8)
    for r, line in enumerate(rows):
        chars = line.replace(" ", "").replace("\t", "")
        if len(chars) != SIZE:
            raise BoardError(f"row {r + 1} has {len(chars)} columns, expected {SIZE}")
        for c, ch in enumerate(chars):
            where = f"row {r + 1}, column {c + 1}"
            if ch not in CHAR_CELL:
                raise BoardError(f"{where}: unknown character {ch!r}")
            code = CHAR_CELL[ch]
            corner = cell_index(r, c) in CORNERS
            if corner and code != Cell.TOWER:
                raise BoardError(f"{where}: tower '+' missing from the corner")
            if not corner and code == Cell.TOWER:
                raise BoardError(f"{where}: tower '+' off the corners")
            if code == Cell.WALL and not is_outer(r, c):
                raise BoardError(f"{where}: wall '#' on an inner space (walls go on outer spaces only)")
            city[cell_index(r, c)] = code
    return city


def format_city(city: np.ndarray) -> str:
    """Write ``int8[49]`` cell codes as 7 lines of 7 space-separated characters."""
    return "\n".join(" ".join(CELL_CHAR[Cell(int(city[cell_index(r, c)]))] for c in range(SIZE)) for r in range(SIZE))


def parse_position(text: str) -> tuple[np.ndarray, dict[str, int]]:
    """A city followed by optional ``coins: N``, ``logs: N``, ``cannons: N``, ``vp: N`` lines.

    Returns the city and the numbers given (missing ones are 0).

    >>> city, extra = parse_position(format_city(parse_city(EMPTY_CITY)) + "\\ncoins: 5\\nvp: 12")
    >>> extra
    {'coins': 5, 'logs': 0, 'cannons': 0, 'vp': 12}
    """
    board_lines, extras = [], dict.fromkeys(CITY_EXTRA_FIELDS, 0)
    for n, line in enumerate(text.splitlines(), start=1):
        if ":" in line:
            key, _, value = line.partition(":")
            key = key.strip().lower()
            if key not in extras:
                raise BoardError(f"line {n}: unknown field {key!r}; expected one of {', '.join(CITY_EXTRA_FIELDS)}")
            extras[key] = whole(int_or_text(value.strip()), f"line {n}: {key}", low=0, error=BoardError)
        elif line.strip():
            board_lines.append(line)
    return parse_city("\n".join(board_lines)), extras


EMPTY_CITY = """\
+ . . . . . +
. C C . . . .
. C . . . . .
. C . . . . .
. . . . . . .
. . . . . . .
+ . . . . . +"""
