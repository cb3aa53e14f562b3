"""A whole game, position by position, for the replay page (``smsim replay``, report/replay.py):
the trace replayed by the independent referee, turn by turn, every seat's city and state after
each turn.

A *step* is the position before the first turn (step 0) or after turn k (step k): each seat's
city as the 49 letters of the board text format, cell r * 7 + c (docs/rules.md §8), its coins, logs, VP earned,
cannons lost, defence and its score were the game to end there, and the pirate boxes crossed.
Everything comes from the referee's replay of the trace (``play.referee``), so a page shows what
the rules say, not what the engine wrote; the referee checks the engine's own figures of each
turn (``after``), the scores and the final cities against it, and a trace where they disagree is
refused in one line.
"""

from __future__ import annotations

from typing import Any

from smsim import layout as L
from smsim.errors import TraceError
from smsim.play.referee import Referee

SEAT_FIELDS = ("coins", "logs", "vp", "cannons_lost", "defence", "score")
"""Each seat's state at a step (``Referee.position``'s names)."""


def games_of(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The games of a trace's records: each its ``game`` line, its turns and its ``end``."""
    games: list[list[dict[str, Any]]] = []
    for rec in records:
        if rec.get("type") == "game":
            games.append([rec])
        elif games:
            games[-1].append(rec)
    return games


def _step(ref: Referee, players: int) -> dict[str, Any]:
    seats = []
    for s in range(players):
        pos = ref.position(s)
        city = ref.city(s).replace(" ", "").replace("\n", "")  # 49 letters, cell r * 7 + c
        # the round snapshot's fields in their order: what a win-probability model reads
        seats.append(
            {
                "city": city,
                **{f: int(pos[f]) for f in SEAT_FIELDS},
                "position": [int(pos[f]) for f in L.ROUND.columns()],
            }
        )
    return {"seats": seats, "pirate_boxes": int(ref.crossed)}


def replay_game(game: list[dict[str, Any]], where: str = "the trace") -> dict[str, Any]:
    """One game's records (``games_of``) as the replay page's data: ``header`` (players, seed,
    game, policies, the rules), ``steps`` (step 0 the start, step k after turn k, each with the turn
    line that led to it under ``turn``), ``end`` (the end line). A game the referee refuses, or
    whose engine figures disagree with the referee's, raises ``TraceError`` in one line."""
    header = game[0]
    ref = Referee(header)
    if ref.error is not None:
        raise TraceError(f"{where}: {ref.error}")
    players = ref.players
    steps = [{"turn": None, **_step(ref, players)}]
    end = None
    for rec in game[1:]:
        if rec.get("type") == "turn":
            bad = ref.turn(rec)
            if bad is not None:
                raise TraceError(f"{where}: {bad}")
            steps.append({"turn": {k: v for k, v in rec.items() if k not in ("type", "after")}, **_step(ref, players)})
        elif rec.get("type") == "end":
            bad = ref.end(rec)
            if bad is not None:
                raise TraceError(f"{where}: {bad}")
            end = {k: v for k, v in rec.items() if k != "type"}
    if end is None:
        raise TraceError(f"{where}: game {header.get('game')} has no end line (a trace cut off?)")
    keep = ("seed", "game", "players", "policies")
    return {
        "header": {
            **{k: header.get(k) for k in keep},
            "rules": header["rules"],
            "pirate_strengths": list(ref.rules.pirate_strengths),
            "row_boxes": int(ref.row_boxes),
        },
        "steps": steps,
        "end": end,
    }


def round_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps at the start of each round and the last (the game's end): the positions a round
    snapshot records (``simulate --rounds``)."""
    players = data["header"]["players"]
    # a round's last turn: the next round starts there (the game's last step is a round's last turn)
    return [data["steps"][0], *(step for step in data["steps"][1:] if step["turn"]["seat"] == players - 1)]


def vp_by_round(data: dict[str, Any]) -> list[list[int]]:
    """Each seat's score were the game to end, at the start of each round and at the end (the
    page's chart of the game's course): [round][seat]."""
    return [[s["score"] for s in step["seats"]] for step in round_steps(data)]


__all__ = ["games_of", "replay_game", "round_steps", "vp_by_round"]
