"""Shared test helpers: positions drawn in the board text format (docs/rules.md §8)."""

from __future__ import annotations

import numpy as np

from smsim import layout as L
from smsim.play.board import parse_city
from smsim.engine.city import set_city_nb
from smsim.rules import Rules


def state_from_cities(*texts: str, coins: int = 0, logs: int = 0, soldiers: int = 0):
    """(city, occ, player) arrays of len(texts) seats drawn as board text."""
    n = len(texts)
    city = np.zeros((n, 49), dtype=np.int8)
    occ = np.zeros((n, L.N_CELL_CODES), dtype=np.uint64)
    player = np.zeros((n, L.N_PLAYER_FIELDS), dtype=np.int64)
    for s, text in enumerate(texts):
        set_city_nb(city, occ, player, s, parse_city(text))
        player[s, L.COINS] = coins
        player[s, L.LOGS] = logs
        player[s, L.SOLDIERS] = soldiers
    return city, occ, player


def cell(r: int, c: int) -> int:
    return r * 7 + c


RULES = Rules()
RULES_NB = RULES.to_nb()
