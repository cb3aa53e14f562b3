"""Tests of the independent referee (smsim/play/referee.py) on hand-made traces.

Each trace is written turn by turn as docs/trace.md describes it; the state each turn leaves
(``after``) is stated by the test itself, from docs/rules.md, never computed by the referee. Legal
turns must pass; each planted error must be caught, naming the rule it breaks. The examples
of docs/rules.md §9 that the referee's checks and scoring touch are tests here too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from smsim.play.referee import (
    Discrepancy,
    Referee,
    check_game,
    check_trace,
    church_series,
    church_series_vp,
    format_city,
    parse_city,
)
from smsim.rules import Rules

# -- building traces by hand ------------------------------------------------------------------
FIELDS = ("coins", "logs", "vp", "cannons", "defence")
ANY5 = ["crate", "log", "wall", "cross", "head"]  # one of each symbol, no swords
ALL_SPACES = [(r, c) for r in range(7) for c in range(7) if r not in (0, 6) or c not in (0, 6)]


def header(players: int = 2, game: int = 0, **overrides: Any) -> dict:
    """A "game" line with docs/rules.md rules (plus overrides)."""
    return {
        "type": "game",
        "seed": 0,
        "game": game,
        "players": players,
        "policies": ["random"] * players,
        "rules": Rules.from_dict(overrides).to_dict(),
    }


def use(symbol: str, dice: int, rotated: int = 0, person: str | None = None) -> dict:
    return {"symbol": symbol, "dice": dice, "rotated": rotated, "person": person}


def bonus(
    side: str, kind: str, amount: int, person: str | None = None, cell: list | None = None, houses: list | None = None
) -> dict:
    return {"side": side, "kind": kind, "amount": amount, "person": person, "cell": cell, "houses": houses or []}


def attack(row: int, strength: int, defence: list[int], lost: list[int]) -> dict:
    return {"row": row, "strength": strength, "defence": defence, "lost": lost}


class Game:
    """A hand-made game. Each turn states the active seat's changes as deltas
    (``coins=+2``...); cannons lost follow from the attacks the test lists."""

    def __init__(self, players: int = 2, game: int = 0, **overrides: Any) -> None:
        self.rules = Rules.from_dict(overrides)
        self.players = players
        self.header = header(players, game, **overrides)
        self.turns: list[dict] = []
        self.state = [
            {"coins": self.rules.start_coins, "logs": self.rules.start_logs, "vp": 0, "cannons": 0, "defence": 0}
            for _ in range(players)
        ]
        self.round = 0
        self.seat = 0

    def turn(
        self,
        dice: list[str] | None = None,
        use: dict | None = None,
        *,
        cells=(),
        houses=(),
        bonuses=(),
        rolls: list[list[str]] | None = None,
        rerolled=(),
        rotation_cost: int = 0,
        delivery_cost: int = 0,
        attacks=(),
        **delta: int,
    ) -> dict:
        rolls = rolls or [list(dice)]
        final = rolls[-1]
        me = self.state[self.seat]
        for key, d in delta.items():
            me[key] += d
        for a in attacks:
            for s in a["lost"]:
                self.state[s]["cannons"] += 1
        rec = {
            "type": "turn",
            "round": self.round,
            "seat": self.seat,
            "rolls": rolls,
            "rerolled": list(rerolled),
            "use": use,
            "rotation_cost": rotation_cost,
            "delivery_cost": delivery_cost,
            "cells": [list(c) for c in cells],
            "houses": [list(c) for c in houses],
            "bonuses": list(bonuses),
            "swords": final.count("swords"),
            "attacks": list(attacks),
            "after": [dict(s) for s in self.state],
        }
        self.turns.append(rec)
        self.seat += 1
        if self.seat == self.players:
            self.seat, self.round = 0, self.round + 1
        return rec

    def filler(self, cell: tuple[int, int]) -> dict:
        """A plain turn: one crate on ``cell``."""
        return self.turn(ANY5, use("crate", 1), cells=[cell])

    @property
    def records(self) -> list[dict]:
        return [self.header, *self.turns]


def replay(game: Game, end: dict | None = None) -> Discrepancy | None:
    """The first discrepancy of the turns (and of the end line, if given)."""
    ref = Referee(game.header)
    assert ref.error is None, ref.error
    for rec in game.turns:
        found = ref.turn(rec)
        if found is not None:
            return found
    return ref.end(end) if end is not None else None


def caught(found: Discrepancy | None, *words: str, turn: int | None = None) -> Discrepancy:
    """Assert a discrepancy was found, its rule names every word, at the given turn."""
    assert found is not None, "the planted error was not caught"
    for word in words:
        assert word in found.rule, f"expected rule with {word!r}, got {found}"
    if turn is not None:
        assert found.turn == turn, str(found)
    return found


def city(*rows: str) -> str:
    """A city in the board text format, from 7 rows written without spaces."""
    assert len(rows) == 7
    return "\n".join(" ".join(row) for row in rows)


START_CITY = city("+.....+", ".CC....", ".C.....", ".C.....", ".......", ".......", "+.....+")


def score(
    seat: int,
    *,
    earned=0,
    churches=(0, 0, 0, 0, 0),
    series=(),
    church_vp=0,
    coins=0,
    logs=0,
    cannons=0,
    full_city=0,
    total=0,
    empty=41,
    rank=1,
    won=True,
    shared=False,
) -> dict:
    return {
        "seat": seat,
        "earned": earned,
        "churches": list(churches),
        "series": list(series),
        "church_vp": church_vp,
        "coins": coins,
        "logs": logs,
        "cannons": cannons,
        "full_city": full_city,
        "total": total,
        "empty": empty,
        "rank": rank,
        "won": won,
        "shared": shared,
    }


def end_line(rounds: int, scores: list[dict], cities: list[str], *, aborted: bool = True, filled=()) -> dict:
    return {
        "type": "end",
        "rounds": rounds,
        "aborted": aborted,
        "filled": list(filled),
        "scores": scores,
        "cities": cities,
    }


# -- geometry and helpers -----------------------------------------------------------------------
def test_start_city_in_board_text_format() -> None:
    """docs/rules.md §8: the empty start city, printed crates shown."""
    ref = Referee(header())
    assert ref.city(0) == START_CITY == ref.city(1)
    assert format_city(parse_city(START_CITY)) == START_CITY
    assert parse_city(START_CITY.replace(" ", "")) == parse_city(START_CITY)


def test_discrepancy_is_one_line() -> None:
    d = Discrepancy(3, 41, 10, 1, "docs/rules.md §5 Crate", "crates do not connect")
    assert str(d) == "game 3, turn 41 (round 10, seat 1): docs/rules.md §5 Crate: crates do not connect"
    assert str(Discrepancy(3, None, None, None, "r", "m")) == "game 3: r: m"


# -- docs/rules.md §9 --------------------------------------------------------------------------------
def test_s9_church_sizes_score_25() -> None:
    """Churches: sizes three 1s, two 2s, one 3, one 4, two 5s score 25 VP (20 + 4 + 1)."""
    counts = [3, 2, 1, 1, 2]
    assert church_series(counts) == [5, 2, 1]
    assert church_series_vp(counts, Rules().church_series_vp) == 25


def test_s9_size_5_church_adds_7() -> None:
    """A size 5 church adds 7 VP (13 to 20) when sizes 1-4 are present."""
    vp = Rules().church_series_vp
    assert church_series_vp([1, 1, 1, 1, 0], vp) == 13
    assert church_series_vp([1, 1, 1, 1, 1], vp) == 20
    assert church_series([0, 2, 1, 1, 1]) == []  # no run from size 1: nothing


MERCHANT_CRATES = [[1, 1], [1, 2], [2, 1], [3, 1], [1, 3], [2, 3], [3, 3], [4, 1], [4, 3]]


def merchant_game() -> Game:
    g = Game(start_crates=MERCHANT_CRATES)
    three_heads = ["head", "head", "head", "log", "log"]
    g.turn(three_heads, use("head", 3, person="merchant"), cells=[(2, 2)], coins=+7)
    g.filler((5, 5))
    g.turn(three_heads, use("head", 3, person="merchant"), cells=[(4, 2)], coins=+4)
    return g


def test_s9_merchant_7_then_4() -> None:
    """Merchant: placed with 7 adjacent crates earns 7 coins; a second merchant with 4
    adjacent crates earns 4."""
    assert replay(merchant_game()) is None


def test_wrong_merchant_payout_is_caught() -> None:
    g = merchant_game()
    g.turns[0]["after"][0]["coins"] = 3 + 6
    found = caught(replay(g), "§5 Head", "merchant", turn=0)
    assert "coins expected 10, found 9" in found.message


def test_s9_juggler_three_types_scores_6() -> None:
    """Juggler: adjacent to a merchant, two architects and a soldier scores 6 VP (3 types)."""
    g = Game()
    g.turn(["head"] * 3 + ["log"] * 2, use("head", 3, person="merchant"), cells=[(3, 3)])
    g.filler((5, 1))
    g.turn(["head"] * 3 + ["log"] * 2, use("head", 3, person="architect"), cells=[(3, 4)])
    g.filler((5, 2))
    g.turn(["head"] * 3 + ["log"] * 2, use("head", 3, person="architect"), cells=[(3, 5)])
    g.filler((5, 3))
    g.turn(["head"] * 2 + ["log"] * 3, use("head", 2, person="soldier"), cells=[(4, 3)], defence=+1)
    g.filler((5, 4))
    g.turn(["head"] * 4 + ["log"], use("head", 4, person="juggler"), cells=[(4, 4)], vp=+6)
    assert replay(g) is None
    g.turns[-1]["after"][0]["vp"] = 8  # four types counted
    caught(replay(g), "juggler", turn=8)


def architect_game(houses) -> Game:
    g = Game()
    n = len(houses)
    g.turn(
        ["head"] * 3 + ["log"] * 2,
        use("head", 3, person="architect"),
        cells=[(4, 4)],
        houses=houses,
        logs=-n,
        vp=+3 * n,
    )
    return g


def test_s9_architect_two_logs_two_houses_6_vp() -> None:
    """Architect with 2 logs used: 2 houses, 6 VP; logs are not paid for when used."""
    g = architect_game([(4, 5), (5, 5)])
    assert g.turns[0]["after"][0] == {"coins": 3, "logs": 0, "vp": 6, "cannons": 0, "defence": 0}
    assert replay(g) is None


@pytest.mark.parametrize(
    "houses, why",
    [
        ([(4, 6), (5, 6)], "no house adjacent to the architect"),
        ([(4, 5), (5, 6)], "houses not orthogonally connected"),
        ([(4, 5), (5, 5), (5, 4)], "3 houses with only 2 logs"),
        ([(4, 4)], "house on the architect's own space"),
    ],
)
def test_illegal_houses_are_caught(houses, why) -> None:
    caught(replay(architect_game(houses)), "§5 Head", turn=0)


def test_houses_without_architect_are_caught() -> None:
    g = Game()
    g.turn(
        ["head"] * 3 + ["log"] * 2, use("head", 3, person="merchant"), cells=[(4, 4)], houses=[(4, 5)], logs=-1, vp=+3
    )
    caught(replay(g), "§5 Head", turn=0)


def four_player_pirates() -> Game:
    g = Game(players=4)
    assert g.rules.pirate_row_boxes(4) == 8
    g.turn(
        ["head", "head", "swords", "swords", "swords"], use("head", 2, person="soldier"), cells=[(3, 3)], defence=+1
    )  # 3 boxes
    g.turn(["swords"] * 5, attacks=[attack(0, 1, [1, 0, 0, 0], [1, 2, 3])])  # 8: row 0 done
    g.turn(["swords"] * 5)  # 13
    g.turn(["swords"] * 5, attacks=[attack(1, 3, [1, 0, 0, 0], [0, 1, 2, 3])])  # 18: row 1 done
    g.turn(["swords"] * 5)  # 23
    g.turn(
        ["swords", "log", "log", "log", "log"],
        use("log", 4),
        delivery_cost=2,
        coins=-2,
        logs=+4,
        attacks=[attack(2, 6, [1, 0, 0, 0], [0, 1, 2, 3])],
    )  # 24: row 2 done
    return g


def test_s9_four_players_strength_6_attack_on_row_3() -> None:
    """Pirates, 4 players: rows of 8; a turn that crosses the last box of row 3 triggers a
    strength-6 attack and every player with defence 0 to 5 loses a cannon."""
    g = four_player_pirates()
    assert replay(g) is None
    assert [s["cannons"] for s in g.turns[-1]["after"]] == [2, 3, 3, 3]


def test_missed_attack_is_caught() -> None:
    g = four_player_pirates()
    g.turns[-1]["attacks"] = []
    found = caught(replay(g), "§6 Pirates", turn=5)
    assert "missing attack" in found.message


def test_attack_too_early_is_caught() -> None:
    """Rows have 2 x P boxes: no attack after 5 swords with 4 players."""
    g = four_player_pirates()
    g.turns[0]["attacks"] = [attack(0, 1, [1, 0, 0, 0], [1, 2, 3])]
    found = caught(replay(g), "§6 Pirates", turn=0)
    assert "extra attack" in found.message


def test_wrong_cannon_loss_is_caught() -> None:
    g = four_player_pirates()
    g.turns[1]["attacks"][0]["lost"] = [0, 1, 2, 3]  # seat 0 has defence 1 = strength 1
    caught(replay(g), "§6 Pirates", turn=1)


def test_s9_three_player_row_has_6_boxes() -> None:
    """A 3-player pirate row has 6 boxes."""
    g = Game(players=3)
    g.turn(["swords"] * 5)
    g.turn(
        ["swords", "log", "log", "log", "log"],
        use("log", 4),
        delivery_cost=2,
        coins=-2,
        logs=+4,
        attacks=[attack(0, 1, [0, 0, 0], [0, 1, 2])],
    )
    assert replay(g) is None


def test_several_attacks_in_one_turn_and_swords_after_the_last_row() -> None:
    """Each finished row is its own attack, in order; after the last row swords are ignored."""
    g = Game(pirate_boxes_per_player=1, pirate_strengths=[1, 3])  # rows of 2 boxes
    g.turn(["swords"] * 5, attacks=[attack(0, 1, [0, 0], [0, 1]), attack(1, 3, [0, 0], [0, 1])])
    g.turn(["swords"] * 5)
    assert replay(g) is None
    g.turns[1]["attacks"] = [attack(2, 3, [0, 0], [0, 1])]
    caught(replay(g), "§6 Pirates", turn=1)


def defence_game() -> Game:
    g = Game()
    right = [(r, 6) for r in range(1, 6)]
    g.turn(["wall"] * 5, use("wall", 5), cells=right, bonuses=[bonus("right", "coins", 2)], coins=+2, defence=+2)
    g.filler((5, 5))
    g.turn(["head", "head", "log", "crate", "cross"], use("head", 2, person="soldier"), cells=[(3, 3)], defence=+1)
    return g


def test_s9_defence_one_soldier_one_side_is_3() -> None:
    """Defence: one soldier and one complete side = 3."""
    g = defence_game()
    ref = Referee(g.header)
    for rec in g.turns:
        assert ref.turn(rec) is None
    assert ref.defence(0) == 3 == g.turns[-1]["after"][0]["defence"]


# -- planted errors -----------------------------------------------------------------------------
def test_legal_turns_pass() -> None:
    g = Game()
    g.turn(["crate", "crate", "crate", "log", "swords"], use("crate", 3), cells=[(4, 4), (4, 5), (5, 5)])
    g.turn(["log", "log", "cross", "cross", "swords"], use("log", 2), delivery_cost=2, coins=-2, logs=+2)
    g.turn(["cross"] * 5, use("cross", 5), cells=[(2, 2)])
    g.turn(
        ["swords", "swords", "wall", "wall", "wall"],
        use("wall", 3),
        cells=[(0, 1), (6, 3), (3, 0)],
        attacks=[attack(0, 1, [0, 0], [0, 1])],
    )
    g.turn(
        ["head", "cross", "log", "log", "log"],
        use("head", 2, rotated=1, person="priest"),
        cells=[(2, 3)],
        rotation_cost=2,
        coins=-2,
        vp=+1,
    )  # next to the size 5 church
    g.turn(["head"] * 5, use("head", 5, person="noble"), cells=[(3, 3)], vp=+7)
    assert replay(g) is None


@pytest.mark.parametrize(
    "cells",
    [
        [(4, 4), (4, 6)],  # apart
        [(4, 4), (5, 5)],  # diagonal only
        [(2, 2), (1, 3)],  # linked only through printed crates (1, 2)
    ],
)
def test_crate_group_not_connected_is_caught(cells) -> None:
    g = Game()
    g.turn(["crate", "crate", "log", "log", "log"], use("crate", 2), cells=cells)
    found = caught(replay(g), "§5 Crate", turn=0)
    assert "connected" in found.message


def test_crate_on_a_filled_space_is_caught() -> None:
    g = Game()
    g.turn(["crate", "log", "log", "log", "log"], use("crate", 1), cells=[(1, 1)])
    caught(replay(g), "§5 Crate", turn=0)


def test_wall_on_inner_space_is_caught() -> None:
    g = Game()
    g.turn(["wall", "wall", "log", "log", "log"], use("wall", 2), cells=[(0, 3), (3, 3)])
    found = caught(replay(g), "§5 Wall", turn=0)
    assert "inner" in found.message


def test_wrong_rotation_cost_is_caught() -> None:
    g = Game()
    g.turn(
        ["crate", "crate", "log", "wall", "cross"],
        use("crate", 3, rotated=1),
        cells=[(4, 4), (4, 5), (4, 6)],
        rotation_cost=2,
        coins=-2,
    )
    assert replay(g) is None
    g.turns[0]["rotation_cost"] = 1
    g.turns[0]["after"][0]["coins"] = 2
    caught(replay(g), "§3 Rotation", turn=0)


def test_rotating_a_swords_die_is_caught() -> None:
    g = Game()
    g.turn(
        ["crate", "crate", "swords", "swords", "swords"],
        use("crate", 3, rotated=1),
        cells=[(4, 4), (4, 5), (4, 6)],
        rotation_cost=2,
        coins=-2,
    )
    caught(replay(g), "§3 Rotation", turn=0)


def test_rotation_below_zero_coins_is_caught() -> None:
    g = Game(start_coins=1)
    g.turn(
        ["crate", "log", "log", "log", "log"],
        use("crate", 2, rotated=1),
        cells=[(4, 4), (4, 5)],
        rotation_cost=2,
        coins=-2,
    )
    caught(replay(g), "§3 Rotation", turn=0)


def test_log_delivery_needs_the_fee() -> None:
    g = Game(start_coins=1)
    g.turn(["log"] * 5, use("log", 5), delivery_cost=2, coins=-2, logs=+5)
    caught(replay(g), "§5 Log", turn=0)


def test_pass_when_a_legal_use_existed_is_caught() -> None:
    g = Game()
    g.turn(["log", "log", "log", "log", "swords"])  # a delivery was possible: 3 coins
    found = caught(replay(g), "§3 Must use", turn=0)
    assert "log delivery" in found.message


def test_pass_allowed_when_no_use_without_rotating() -> None:
    g = Game(start_coins=1)  # cannot pay a delivery, and all five dice are logs
    g.turn(["log"] * 5)
    assert replay(g) is None


def test_pass_allowed_under_allow_pass() -> None:
    g = Game(allow_pass=True)
    g.turn(ANY5)
    assert replay(g) is None


def test_third_roll_changing_a_kept_die_is_caught() -> None:
    rolls = [
        ["log", "crate", "wall", "cross", "head"],
        ["log", "crate", "wall", "cross", "cross"],  # die 4 rolled again (mask 16)
        ["head", "head", "wall", "cross", "cross"],  # dice 0 and 1 rolled again (mask 3)
    ]
    g = Game()
    g.turn(rolls=rolls, rerolled=[16, 3], use=use("cross", 2), cells=[(4, 4)])
    assert replay(g) is None
    g.turns[0]["rolls"][2] = ["head", "head", "wall", "crate", "cross"]  # die 3 was kept
    found = caught(replay(g), "§3 Roll", turn=0)
    assert "die 3" in found.message


def test_wrong_swords_count_is_caught() -> None:
    g = Game()
    g.turn(["crate", "log", "log", "log", "swords"], use("crate", 1), cells=[(4, 4)])
    g.turns[0]["swords"] = 0
    caught(replay(g), "§3 Swords", turn=0)


def test_wrong_person_for_heads_is_caught() -> None:
    g = Game()
    g.turn(["head", "head", "head", "log", "log"], use("head", 3, person="priest"), cells=[(4, 4)])
    caught(replay(g), "§5 Head", turn=0)


def test_wrong_turn_order_is_caught() -> None:
    g = Game()
    g.filler((4, 4))
    g.filler((4, 4))
    g.turns[1]["seat"] = 0
    caught(replay(g), "§1 Seats", turn=1)


def test_missing_wall_bonus_is_caught() -> None:
    g = defence_game()
    g.turns[0]["bonuses"] = []
    caught(replay(g), "§2 Wall bonuses", turn=0)


def test_top_wall_bonus_person() -> None:
    """The top side gives a person of 1 to 3 heads, placed with its effect (docs/rules.md §2, §5)."""
    top = [(0, c) for c in range(1, 6)]
    g = Game()
    g.turn(
        ["wall"] * 5,
        use("wall", 5),
        cells=top,
        bonuses=[bonus("top", "person", 3, "citizen", [3, 3])],
        vp=+1,
        defence=+2,
    )
    assert replay(g) is None
    g.turns[0]["bonuses"][0].update(person="noble")
    g.turns[0]["after"][0]["vp"] = 7
    caught(replay(g), "§2 Wall bonuses", turn=0)


def test_destroyed_side_gives_no_bonus() -> None:
    """Anything but a wall on an outer space destroys that side for good (docs/rules.md §3)."""
    g = Game()
    g.turn(["crate", "log", "log", "log", "log"], use("crate", 1), cells=[(6, 3)])
    g.filler((4, 4))
    g.turn(["wall"] * 4 + ["log"], use("wall", 4), cells=[(6, 1), (6, 2), (6, 4), (6, 5)])
    assert replay(g) is None
    g.turns[2]["bonuses"] = [bonus("bottom", "vp", 3)]
    g.turns[2]["after"][0]["vp"] = 3
    caught(replay(g), "§2 Wall bonuses", turn=2)


def test_person_bonus_lost_only_when_the_city_is_full() -> None:
    """With no empty space left the person bonus is lost (docs/rules.md §5 Wall)."""
    top = [(0, c) for c in range(1, 6)]
    crates = [list(x) for x in ALL_SPACES if x not in top]
    g = Game(start_crates=crates)
    g.turn(["wall"] * 5, use("wall", 5), cells=top, bonuses=[bonus("top", "person", 3)], defence=+2)
    assert replay(g) is None
    g = Game()
    g.turn(["wall"] * 5, use("wall", 5), cells=top, bonuses=[bonus("top", "person", 3)], defence=+2)
    caught(replay(g), "§2 Wall bonuses", turn=0)


# -- the end line -------------------------------------------------------------------------------
def church_game() -> tuple[Game, dict]:
    g = Game(max_rounds=3)
    for size, col in ((1, 5), (2, 4), (3, 3)):
        g.turn(["cross"] * size + ["log"] * (5 - size), use("cross", size), cells=[(5, col)])
        g.turn(["head", "log", "log", "log", "log"], use("head", 1, person="citizen"), cells=[(5, col)], vp=+1)
    cities = [
        city("+.....+", ".CC....", ".C.....", ".C.....", ".......", "...321.", "+.....+"),
        city("+.....+", ".CC....", ".C.....", ".C.....", ".......", "...ccc.", "+.....+"),
    ]
    scores = [
        score(0, churches=(1, 1, 1, 0, 0), series=[3], church_vp=8, coins=1, logs=2, total=11, empty=38),
        score(1, earned=3, coins=1, logs=2, total=6, empty=38, rank=2, won=False),
    ]
    return g, end_line(3, scores, cities)


def test_end_line_of_an_aborted_game_passes() -> None:
    g, end = church_game()
    assert replay(g, end) is None
    assert check_game([*g.records, end]) is None


def test_wrong_church_series_in_end_line_is_caught() -> None:
    g, end = church_game()
    end["scores"][0].update(series=[2, 1], church_vp=5, total=8)
    found = caught(replay(g, end), "§5 Cross (church series)")
    assert found.seat == 0 and found.turn is None


def test_wrong_city_in_end_line_is_caught() -> None:
    g, end = church_game()
    end["cities"][1] = end["cities"][1].replace("c c c", "c c p")
    caught(replay(g, end), "§8")


def tie_game(seat1: str) -> Game:
    g = Game(max_rounds=1)
    g.turn(["head", "log", "log", "log", "log"], use("head", 1, person="citizen"), cells=[(4, 4)], vp=+1)
    if seat1 == "logs":  # total 0 + 1 coin // 2 + 4 logs = 4, but 41 empty spaces
        g.turn(["log", "log", "head", "head", "head"], use("log", 2), delivery_cost=2, coins=-2, logs=+2)
    else:  # the same as seat 0
        g.turn(["head", "log", "log", "log", "log"], use("head", 1, person="citizen"), cells=[(4, 4)], vp=+1)
    return g


def test_tie_broken_by_empty_spaces() -> None:
    """docs/rules.md §4: tied on VP, the player with more empty spaces wins."""
    g = tie_game("logs")
    cities = [START_CITY[: 4 * 14 + 8] + "c" + START_CITY[4 * 14 + 9 :], START_CITY]
    scores = [
        score(0, earned=1, coins=1, logs=2, total=4, empty=40, rank=2, won=False),
        score(1, coins=0, logs=4, total=4, empty=41, rank=1, won=True),
    ]
    end = end_line(1, scores, cities)
    assert replay(g, end) is None
    # the wrong tie-break: fewer empty spaces win
    scores[0].update(rank=1, won=True)
    scores[1].update(rank=2, won=False)
    found = caught(replay(g, end), "§4 Tie")
    assert found.seat == 0


def test_full_tie_is_a_shared_win() -> None:
    g = tie_game("citizen")
    c = START_CITY[: 4 * 14 + 8] + "c" + START_CITY[4 * 14 + 9 :]
    scores = [score(s, earned=1, coins=1, logs=2, total=4, empty=40, rank=1, won=True, shared=True) for s in (0, 1)]
    end = end_line(1, scores, [c, c])
    assert replay(g, end) is None
    scores[1]["shared"] = False
    caught(replay(g, end), "§4 Tie")


def full_city_game() -> tuple[Game, dict]:
    """Printed crates everywhere but (5, 4) and (5, 5): seat 0 fills its city in round 0."""
    crates = [list(x) for x in ALL_SPACES if x not in ((5, 4), (5, 5))]
    g = Game(start_crates=crates)
    g.turn(["crate", "crate", "log", "log", "log"], use("crate", 2), cells=[(5, 4), (5, 5)])
    g.filler((5, 5))
    full = city("+CCCCC+", *["CCCCCCC"] * 5, "+CCCCC+")
    scores = [
        score(0, coins=1, logs=2, full_city=5, total=8, empty=0),
        score(1, coins=1, logs=2, total=3, empty=1, rank=2, won=False),
    ]
    cities = [full, full[: 5 * 14 + 8] + "." + full[5 * 14 + 9 :]]
    return g, end_line(1, scores, cities, aborted=False, filled=[0])


def test_game_ends_after_the_round_a_city_filled() -> None:
    """docs/rules.md §4: the round is played to its end, then the game ends (+5 VP full city)."""
    g, end = full_city_game()
    assert replay(g, end) is None


def test_turn_after_the_end_is_caught() -> None:
    g, end = full_city_game()
    g.filler((5, 4))
    caught(replay(g, end), "§4 End", turn=2)


def test_game_stopping_early_is_caught() -> None:
    g, end = church_game()
    del g.turns[-2:]
    end["rounds"] = 2
    caught(replay(g, end), "§4 End")
    g, end = full_city_game()
    del g.turns[-1]  # seat 1 never played round 0
    caught(replay(g, end), "§4 End")


def test_wrong_aborted_flag_is_caught() -> None:
    g, end = full_city_game()
    end["aborted"] = True
    caught(replay(g, end), "§4 End")


# -- whole files --------------------------------------------------------------------------------
def write_lines(path, records) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))


def test_check_trace_good_and_bad_games(tmp_path) -> None:
    good, good_end = church_game()
    bad, bad_end = church_game()
    bad.header["game"] = 1
    bad_end["scores"][1]["total"] = 7
    path = tmp_path / "trace.jsonl"
    write_lines(path, [*good.records, good_end, *bad.records, bad_end])
    n, found = check_trace(path)
    assert n == 2 and len(found) == 1
    assert found[0].game == 1 and "§4 Final scoring" in found[0].rule


@pytest.mark.parametrize(
    "mangle, what",
    [
        (lambda recs: recs[:-1], "no end line"),
        (lambda recs: recs[:3] + ["{not json"] + recs[3:], "not valid JSON"),
        (lambda recs: recs + [recs[1]], "after the game's end line"),
        (lambda recs: recs[1:], "before any game line"),
        (lambda recs: [], "the file is empty"),
    ],
)
def test_check_trace_malformed_files(tmp_path, mangle, what) -> None:
    g, end = church_game()
    path = tmp_path / "trace.jsonl"
    write_lines(path, mangle([*g.records, end]))
    _n, found = check_trace(path)
    assert len(found) == 1 and what in found[0].message, found
    assert found[0].rule == "docs/trace.md"


def test_check_trace_stops_at_a_line_it_cannot_read(tmp_path) -> None:
    """A trace cut off inside its end line: the game so far is checked, the cut line reported
    (tracefile.iter_jsonl's message, without the file's name); a bad line in a second game
    stops the check there, the first game checked."""
    g, end = church_game()
    path = tmp_path / "trace.jsonl"
    text = "".join(json.dumps(r) + "\n" for r in [*g.records, end])
    path.write_text(text[:-10])
    n, found = check_trace(path)
    assert n == 1 and len(found) == 1
    assert found[0].message == f"line {len(g.records) + 1}: cut off, the file ends inside it"
    assert found[0].game == g.header["game"] and found[0].rule == "docs/trace.md"
    write_lines(path, [*g.records, end, g.records[0], "{not json", *g.records[1:], end])
    n, found = check_trace(path)
    assert n == 2 and len(found) == 1
    assert found[0].message.startswith(f"line {len(g.records) + 3}: not valid JSON (")


def test_check_trace_missing_file(tmp_path) -> None:
    n, found = check_trace(tmp_path / "nope.jsonl")
    assert n == 0 and len(found) == 1


def test_check_trace_of_a_file_that_is_no_trace_finds_no_game(tmp_path) -> None:
    """What ``smsim validate`` refuses as not a trace: no game line read, one discrepancy that
    says why, placed before any game."""
    path = tmp_path / "results.csv"
    path.write_text("seat,policy,total\n0,greedy,41\n")
    n, found = check_trace(path)
    assert n == 0 and len(found) == 1
    assert found[0].game == -1 and "line 1: not valid JSON" in found[0].message
    assert str(found[0]).startswith("before any game: docs/trace.md: line 1")


def test_malformed_turn_line_is_a_discrepancy() -> None:
    g = Game()
    g.filler((4, 4))
    del g.turns[0]["after"]
    found = caught(replay(g), "docs/trace.md", turn=0)
    assert "after" in found.message


def test_bad_header_is_a_discrepancy() -> None:
    h = header()
    h["rules"]["rotation_cost"] = -1
    ref = Referee(h)
    assert ref.error is not None and "§7" in ref.error.rule
    assert check_game([h]) == ref.error
    h = header(players=6)
    assert "§1" in Referee(h).error.rule


def test_checking_stops_at_the_first_discrepancy() -> None:
    g = Game()
    g.filler((4, 4))
    g.filler((4, 4))
    g.turns[0]["after"][1]["logs"] = 9  # seat 1's state is wrong after seat 0's turn
    ref = Referee(g.header)
    first = ref.turn(g.turns[0])
    assert first is not None and first.seat == 0 and "seat 1 logs" in first.message
    assert ref.turn(g.turns[1]) is first and ref.end({"type": "end"}) is first
