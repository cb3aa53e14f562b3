"""Turn the engine's event log into the JSON-lines records of ``docs/trace.md`` (the file itself is
read and written by ``smsim.play.tracefile``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from smsim import layout as L
from smsim.engine import events as E
from smsim.play.board import format_city
from smsim.rules import BONUS_KINDS, SIDE_NAMES, Rules

FACE_NAMES = tuple(f.name.lower() for f in L.Face)
PERSON_NAMES = tuple(p.name.lower() for p in L.Person)


def _rc(cell: int) -> list[int]:
    return list(L.cell_rc(cell))


def series_lengths(series_counts: Iterable[int]) -> list[int]:
    """Church series lengths, longest first, from the number of series of length 1..5."""
    counts = list(series_counts)
    return [length for length in range(5, 0, -1) for _ in range(int(counts[length - 1]))]


def events_to_records(
    events: np.ndarray,
    *,
    seed: int,
    game: int,
    policies: list[str],
    rules: Rules,
    score: np.ndarray,
    city: np.ndarray,
    game_out: np.ndarray,
) -> list[dict[str, Any]]:
    """The ``game``, ``turn`` and ``end`` records of one traced game."""
    n_players = len(policies)
    records: list[dict[str, Any]] = [
        {
            "type": "game",
            "seed": int(seed),
            "game": int(game),
            "players": n_players,
            "policies": list(policies),
            "rules": rules.to_dict(),
        }
    ]
    turns, decisions = turn_records(events, n_players)
    records.extend(turns)
    end = end_record(score, city, game_out)
    end["decisions"] = decisions
    records.append(end)
    return records


def turn_records(events: np.ndarray, n_players: int) -> tuple[list[dict[str, Any]], int | None]:
    """The ``turn`` records of the event rows ``events`` and the game's number of decisions
    (None without its EV_END row). Rows cut before the end give the turns so far, the last one
    partial (``smsim advise`` draws a position this way); its ``decisions`` end is then None."""
    records: list[dict[str, Any]] = []
    total: int | None = None
    turn: dict[str, Any] | None = None
    bonus: dict[str, Any] | None = None
    i = 0
    while i < len(events):
        ev, a = int(events[i, 0]), [int(x) for x in events[i, 1:]]
        if ev == E.EV_TURN:
            if turn is not None:
                turn["decisions"][1] = a[2]
            turn = {
                "type": "turn",
                "round": a[0],
                "seat": a[1],
                "rolls": [],
                "rerolled": [],
                "use": None,
                "rotation_cost": 0,
                "delivery_cost": 0,
                "cells": [],
                "houses": [],
                "bonuses": [],
                "swords": 0,
                "attacks": [],
                "after": [],
                "decisions": [a[2], None],
            }
            bonus = None
            records.append(turn)
        elif ev == E.EV_ROLL:
            turn["rolls"].append([FACE_NAMES[f] for f in a[:5]])
        elif ev == E.EV_REROLL:
            turn["rerolled"].append(a[0])
        elif ev == E.EV_USE:
            symbol, k, rotated, person, rotation_cost, delivery_cost = a[:6]
            if symbol >= 0:
                turn["use"] = {
                    "symbol": FACE_NAMES[symbol],
                    "dice": k,
                    "rotated": rotated,
                    "person": PERSON_NAMES[person] if person >= 0 else None,
                }
            turn["rotation_cost"] = rotation_cost
            turn["delivery_cost"] = delivery_cost
        elif ev == E.EV_PLACE:
            cell, _code, role = a[:3]
            if role == E.PLACED_BONUS:
                bonus["cell"] = _rc(cell)
            elif role == E.PLACED_HOUSE:
                (bonus if bonus is not None else turn)["houses"].append(_rc(cell))
            else:
                turn["cells"].append(_rc(cell))
        elif ev == E.EV_BONUS:
            side, kind, amount, person = a[:4]
            bonus = {
                "side": SIDE_NAMES[side],
                "kind": BONUS_KINDS[kind],
                "amount": amount,
                "person": PERSON_NAMES[person] if person >= 0 else None,
                "cell": None,
                "houses": [],
            }
            turn["bonuses"].append(bonus)
        elif ev == E.EV_SWORDS:
            turn["swords"] = a[0]
        elif ev == E.EV_ATTACK:
            row, strength, lost = a[:3]
            defence = a[3:7] + [int(events[i + 1, 2])]  # the fifth seat's defence is in the next row
            i += 1
            turn["attacks"].append(
                {
                    "row": row,
                    "strength": strength,
                    "defence": defence[:n_players],
                    "lost": [s for s in range(n_players) if (lost >> s) & 1],
                }
            )
        elif ev == E.EV_AFTER:
            turn["after"].append({"coins": a[1], "logs": a[2], "vp": a[3], "cannons": a[4], "defence": a[5]})
        elif ev == E.EV_END:
            total = a[2]
            if turn is not None:
                turn["decisions"][1] = a[2]
        i += 1
    return records, total


def score_dict(score_row: np.ndarray, seat: int) -> dict[str, Any]:
    """One seat's final breakdown in the trace's ``end`` form."""
    sc = [int(x) for x in score_row]
    return {
        "seat": seat,
        "earned": sc[L.S_EARNED],
        "churches": sc[L.S_CHURCHES : L.S_CHURCHES + 5],
        "series": series_lengths(sc[L.S_SERIES : L.S_SERIES + 5]),
        "church_vp": sc[L.S_CHURCH_VP],
        "coins": sc[L.S_COINS_VP],
        "logs": sc[L.S_LOGS_VP],
        "cannons": sc[L.S_CANNON_VP],
        "full_city": sc[L.S_FULL_CITY_VP],
        "seat_vp": sc[L.S_SEAT_VP],
        "total": sc[L.S_TOTAL],
        "empty": sc[L.S_EMPTY],
        "rank": sc[L.S_RANK],
        "won": bool(sc[L.S_WON]),
        "shared": bool(sc[L.S_SHARED]),
    }


def end_record(score: np.ndarray, city: np.ndarray, game_out: np.ndarray) -> dict[str, Any]:

    n_players = score.shape[0]
    return {
        "type": "end",
        "rounds": int(game_out[L.G_ROUNDS]),
        "aborted": bool(game_out[L.G_ABORTED]),
        "filled": [s for s in range(n_players) if (int(game_out[L.G_FILLED]) >> s) & 1],
        "scores": [score_dict(score[s], s) for s in range(n_players)],
        "cities": [format_city(city[s]) for s in range(n_players)],
    }
