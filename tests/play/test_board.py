"""The city text format (docs/rules.md §8)."""

import re

import numpy as np
import pytest

from smsim.errors import BoardError
from smsim.layout import Cell
from smsim.play.board import EMPTY_CITY, format_city, parse_city, parse_position

FULL = """
+ # # # # # +
# C C 1 2 3 #
# C 4 5 c s #
# C p a m j #
# n H H . . #
# . . . . . #
+ # # # # # +
"""


def test_empty_start_city_has_the_four_printed_crates():
    city = parse_city(EMPTY_CITY)
    assert [i for i in range(49) if city[i] == Cell.CRATE] == [8, 9, 15, 22]


def test_round_trip_every_letter():
    city = parse_city(FULL)
    assert format_city(city) == FULL.strip()
    assert np.array_equal(parse_city(format_city(city)), city)


def test_spaces_between_characters_are_optional():
    compact = "\n".join(line.replace(" ", "") for line in FULL.strip().splitlines())
    assert np.array_equal(parse_city(compact), parse_city(FULL))


@pytest.mark.parametrize(
    "text, message",
    [
        ("+ . . . . . +\n" * 6, "a city has 7 rows, found 6"),
        (EMPTY_CITY.replace("+ . . . . . +", "+ . . . . +", 1), "row 1 has 6 columns"),
        (EMPTY_CITY.replace(". C C", ". C X", 1), "unknown character 'X'"),
        (EMPTY_CITY.replace(". C C", ". # C", 1), "wall '#' on an inner space"),
        (EMPTY_CITY.replace("+", ".", 1), "tower '+' missing from the corner"),
        (EMPTY_CITY.replace(". C C", ". + C", 1), "tower '+' off the corners"),
    ],
)
def test_bad_cities_are_refused_with_the_place_named(text, message):
    with pytest.raises(BoardError, match=re.escape(message)):
        parse_city(text)


def test_position_with_numbers():
    _city, extra = parse_position(EMPTY_CITY + "\ncoins: 7\nlogs: 2\ncannons: 1\nvp: 30\n")
    assert extra == {"coins": 7, "logs": 2, "cannons": 1, "vp": 30}
    with pytest.raises(BoardError, match="unknown field 'gold'"):
        parse_position(EMPTY_CITY + "\ngold: 3")
    with pytest.raises(BoardError, match="coins must be a whole number of at least 0, not 'many'"):
        parse_position(EMPTY_CITY + "\ncoins: many")
