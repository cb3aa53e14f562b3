"""The jitted core and the independent referee agree on thousands of seeded games, and the
referee catches errors planted in real engine traces (issue: rules engine)."""

import copy

import pytest

from smsim import layout as L
from smsim.play.api import play_game
from smsim.play.referee import check_game
from smsim.policies.registry import POLICIES

# every built-in (the search policy with few playouts, so the sweep stays fast) and the
# documented example policy, rotating through the seats game by game, plus pure random and pure
# greedy tables: each policy plays thousands of games at 2-5 players
EVERYONE = [
    *(name for name, spec in POLICIES.items() if spec.base is None),
    "tests/policies/fixtures/cheap_rollout.toml",
    "docs/example_policy.py:next_church",
]


def table(g: int, players: int) -> list[str]:
    if g % 10 == 0:
        return ["random"] * players
    if g % 10 == 5:
        return ["greedy"] * players
    return [EVERYONE[(g + 2 * s) % len(EVERYONE)] for s in range(players)]


def referee_disagreements(players: int, games: int, seed: int) -> list[str]:
    problems = []
    for g in range(games):
        traced = play_game(players, seed, g, table(g, players))
        found = check_game(traced.records)
        if found is not None:
            problems.append(str(found))
    return problems


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_referee_agrees_with_the_core_on_150_games_with_every_policy(players):
    """Every policy sits in every seat a dozen times or more (the table rotates game by game); the
    slow suite plays 25,000 more a player count."""
    assert referee_disagreements(players, 150, seed=20261121 + players) == []


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_referee_agrees_with_the_core_on_25000_more_games(players):
    assert referee_disagreements(players, 25000, seed=7 + players) == []


# -- planted errors ------------------------------------------------------------------------------
def find_turn(predicate, players=3, policies=("greedy", "random", "greedy")):
    """A real game and the index of its first turn record matching predicate."""
    for g in range(200):
        records = play_game(players, 1234, g, list(policies)).records
        for i, rec in enumerate(records):
            if rec["type"] == "turn" and predicate(rec):
                return records, i
    raise AssertionError("no such turn in 200 games")  # pragma: no cover


def filled_before(records, index, seat):
    cells = {tuple(rc) for rc in records[0]["rules"]["start_crates"]}
    for rec in records[1 : index + 1]:
        if rec["type"] == "turn" and rec["seat"] == seat:
            cells |= {tuple(rc) for rc in rec["cells"] + rec["houses"]}
            for b in rec["bonuses"]:
                cells |= {tuple(b["cell"])} if b["cell"] else set()
                cells |= {tuple(rc) for rc in b["houses"]}
    return cells


def test_planted_illegal_crate_group_is_caught():
    records, i = find_turn(lambda r: r["use"] and r["use"]["symbol"] == "crate" and r["use"]["dice"] >= 2)
    assert check_game(records) is None
    bad = copy.deepcopy(records)
    turn = bad[i]
    taken = filled_before(records, i, turn["seat"])
    keep = [tuple(rc) for rc in turn["cells"][:-1]]
    far = next(
        (r, c)
        for r in range(7)
        for c in range(7)
        if L.is_space(r, c) and (r, c) not in taken and all(abs(r - kr) + abs(c - kc) > 1 for kr, kc in keep)
    )
    turn["cells"][-1] = list(far)
    found = check_game(bad)
    assert found is not None and found.turn == i - 1
    assert "§5 Crate" in found.rule


def test_planted_wrong_merchant_payout_is_caught():
    records, i = find_turn(lambda r: r["use"] and r["use"]["person"] == "merchant")
    assert check_game(records) is None
    bad = copy.deepcopy(records)
    bad[i]["after"][bad[i]["seat"]]["coins"] += 1
    found = check_game(bad)
    assert found is not None and found.turn == i - 1
    assert "merchant" in found.rule


def test_planted_missed_attack_is_caught():
    records, i = find_turn(lambda r: len(r["attacks"]) > 0 and len(r["attacks"][0]["lost"]) > 0)
    assert check_game(records) is None
    bad = copy.deepcopy(records)
    # the engine "forgets" the attack: no attack listed, nobody loses a cannon from here on
    attack = bad[i]["attacks"].pop(0)
    for rec in bad[i:]:
        if rec["type"] == "turn":
            for s in attack["lost"]:
                rec["after"][s]["cannons"] -= 1
    found = check_game(bad)
    assert found is not None and found.turn == i - 1
    assert "§6" in found.rule


def test_planted_wrong_final_score_is_caught():
    records = play_game(4, 99, 0, ["greedy"]).records
    bad = copy.deepcopy(records)
    bad[-1]["scores"][2]["church_vp"] += 4
    bad[-1]["scores"][2]["total"] += 4
    found = check_game(bad)
    assert found is not None and found.turn is None and found.seat == 2


# -- seat compensation (docs/rules.md §7) -------------------------------------------------------------
COMPENSATED = {"seat_coins": [0, 1, 3, -2, 4], "seat_vp": [0, 2, -1, 5]}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_referee_agrees_with_the_core_on_compensated_games(players):
    """The referee re-plays seat_coins and re-scores seat_vp on its own, from the trace's rules."""
    from smsim.rules import Rules

    rules = Rules.from_dict(COMPENSATED)
    for g in range(60):
        records = play_game(players, 555 + players, g, table(g, players), rules).records
        assert records[0]["rules"]["seat_coins"] == COMPENSATED["seat_coins"]
        assert check_game(records) is None, str(check_game(records))


def test_referee_catches_a_compensation_left_out_of_the_rules():
    from smsim.rules import Rules

    records = play_game(3, 8, 0, ["greedy"] * 3, Rules.from_dict(COMPENSATED)).records
    no_coins = copy.deepcopy(records)
    del no_coins[0]["rules"]["seat_coins"]  # the engine gave seat 1 a coin more than the rules say
    found = check_game(no_coins)
    assert found is not None and found.turn == 0 and "seat 1 coins expected 3, found 4" in found.message
    no_vp = copy.deepcopy(records)
    del no_vp[0]["rules"]["seat_vp"]  # the end line counts a seat VP the rules do not give
    found = check_game(no_vp)
    assert found is not None and found.turn is None and found.seat == 1 and "seat_vp" in found.message
    assert "§7" in found.rule


# -- wall_bonus_seats: seats left out of a side's bonus (docs/rules.md §7) ----------------------------
DENIED = {"wall_bonus_seats": [0b11110, 0b11101, 0b11011, 0b10111]}  # side i's bonus withheld from seat i


@pytest.mark.parametrize("players", [2, 4])
def test_referee_agrees_with_the_core_where_seats_are_left_out_of_a_bonus(players):
    """Seat i never receives side i's bonus: the core records it as none, the referee expects none
    for that seat and the side's bonus for every other, and both score the game alike."""
    from smsim.rules import Rules

    rules = Rules.from_dict(DENIED)
    withheld = given = 0
    for g in range(120):
        traced = play_game(players, 99 + players, g, table(g, players), rules)
        assert check_game(traced.records) is None, g
        for rec in traced.records:
            for b in rec.get("bonuses", []) if rec["type"] == "turn" else []:
                denied = b["side"] == ("top", "right", "bottom", "left")[rec["seat"]]
                assert (b["kind"] == "none") == denied and (b["amount"] == 0) == denied, b
                withheld += denied
                given += not denied
    assert withheld > 0 and given > 0


def test_a_withheld_bonus_recorded_as_given_is_caught():
    from smsim.rules import Rules

    rules = Rules.from_dict(DENIED)
    for g in range(200):
        records = play_game(2, 5, g, ["walls", "walls"], rules).records
        hit = next(
            (
                (i, j)
                for i, rec in enumerate(records)
                if rec["type"] == "turn"
                for j, b in enumerate(rec["bonuses"])
                if b["kind"] == "none" and b["side"] != "top"
            ),
            None,
        )
        if hit is not None:
            break
    else:  # pragma: no cover
        raise AssertionError("no withheld coins or VP bonus in 200 games")
    bad = copy.deepcopy(records)
    i, j = hit
    side = bad[i]["bonuses"][j]["side"]
    bad[i]["bonuses"][j].update(
        kind=rules.wall_bonus_kind[("top", "right", "bottom", "left").index(side)],
        amount=rules.wall_bonus_amount[("top", "right", "bottom", "left").index(side)],
    )
    found = check_game(bad)
    assert found is not None and found.rule == "docs/rules.md §2 Wall bonuses" and "expected none 0" in found.message
