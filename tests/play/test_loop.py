"""Whole games: invariants under random play, and determinism (docs/rules.md §3-§6, STYLE §7)."""

from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smsim import layout as L
from smsim.engine.memory import borrow_nb, loop_njit
from smsim.layout import (
    S_CANNON_VP,
    S_CHURCH_VP,
    S_COINS_VP,
    S_EARNED,
    S_FULL_CITY_VP,
    S_LOGS_VP,
    S_SEAT_VP,
    S_TOTAL,
)
from smsim.play.api import play_game
from smsim.rules import Rules
from smsim.runs.batch import run_games

POLICY_MIXES = [["random"], ["greedy"], ["random", "greedy"]]


def seat_policies(mix, players):
    return [mix[s % len(mix)] for s in range(players)]


def check_invariants(records, rules=Rules()):
    header, turns, end = records[0], records[1:-1], records[-1]
    players = header["players"]
    filled = [{tuple(rc) for rc in rules.start_crates} for _ in range(players)]
    n_attacks = 0
    for turn in turns:
        s = turn["seat"]
        placed = [tuple(rc) for rc in turn["cells"] + turn["houses"]]
        for b in turn["bonuses"]:
            placed += [tuple(b["cell"])] if b["cell"] else []
            placed += [tuple(rc) for rc in b["houses"]]
        for rc in placed:
            assert rc not in filled[s], f"cell {rc} refilled"  # a filled space is never refilled
            filled[s].add(rc)
        if turn["use"] and turn["use"]["symbol"] == "wall":
            assert all(L.is_outer(*rc) for rc in turn["cells"])  # walls only outside
        for after in turn["after"]:
            assert after["coins"] >= 0 and after["logs"] >= 0
        n_attacks += len(turn["attacks"])
    assert n_attacks <= len(rules.pirate_strengths)
    assert not end["aborted"]  # every game ends
    assert end["rounds"] < rules.max_rounds
    for sc in end["scores"]:
        assert sc["total"] == (
            sc["earned"] + sc["church_vp"] + sc["coins"] + sc["logs"] + sc["cannons"] + sc["full_city"] + sc["seat_vp"]
        )
        assert sc["seat_vp"] == (rules.seat_vp[sc["seat"]] if sc["seat"] < len(rules.seat_vp) else 0)
        assert sc["empty"] == 45 - len(filled[sc["seat"]])
    assert any(sc["empty"] == 0 for sc in end["scores"])
    return n_attacks


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**63), game=st.integers(0, 10**6), players=st.integers(2, 5), mix=st.sampled_from(POLICY_MIXES)
)
def test_invariants_under_random_play(seed, game, players, mix):
    traced = play_game(players, seed, game, seat_policies(mix, players))
    check_invariants(traced.records)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_invariants_with_allow_pass_and_a_variant(seed, players):
    rules = Rules(
        allow_pass=True,
        rotation_cost=1,
        start_crates=((0, 3), (3, 3)),
        pirate_strengths=(2, 4, 20),
        seat_coins=(0, 2, -1, 4),
        seat_vp=(0, 3, -2),
    )
    traced = play_game(players, seed, 0, seat_policies(["random", "greedy"], players), rules)
    check_invariants(traced.records, rules)


def test_breakdown_sums_to_total_in_batches():
    score, player, game_out = run_games(3000, 4, ["random", "greedy", "greedy", "random"], 11, Rules())
    parts = score[..., [S_EARNED, S_CHURCH_VP, S_COINS_VP, S_LOGS_VP, S_CANNON_VP, S_FULL_CITY_VP, S_SEAT_VP]].sum(-1)
    assert np.array_equal(parts, score[..., S_TOTAL])
    assert (player[..., L.COINS] >= 0).all() and (player[..., L.LOGS] >= 0).all()
    assert (game_out[:, L.G_ABORTED] == 0).all()
    assert (player[..., L.CANNONS_LOST] <= 6).all()


@pytest.mark.parametrize("players", [2, 5])
def test_same_seed_and_game_give_the_same_game_on_1_and_2_threads_and_in_any_batch(players):
    policies = seat_policies(["random", "greedy"], players)
    rules = Rules()
    # smsim's own thread pool runs the games (sim.run_games cuts the batch into one chunk per
    # thread); three threads cut it at uneven places
    one = run_games(400, players, policies, 5, rules, threads=1)
    for threads in (2, 3):
        other = run_games(400, players, policies, 5, rules, threads=threads)
        for a, b in zip(one, other):
            assert np.array_equal(a, b)
    # split into batches at odd places: the same games
    parts = [run_games(n, players, policies, 5, rules, first=f) for f, n in ((0, 7), (7, 250), (257, 143))]
    for i in range(3):
        assert np.array_equal(np.concatenate([p[i] for p in parts]), one[i])
    # any single game replays alone from (seed, game)
    for g in (0, 123, 399):
        traced = play_game(players, 5, g, policies, rules)
        assert np.array_equal(traced.score, one[0][g])
        assert np.array_equal(traced.player, one[1][g])


def test_different_seeds_give_different_games():
    a = run_games(50, 3, ["greedy"], 1, Rules())[0]
    b = run_games(50, 3, ["greedy"], 2, Rules())[0]
    assert not np.array_equal(a, b)


def test_dice_are_fair():
    """The six faces come up equally often (chi-square at a 1e-6 false alarm rate)."""
    from smsim.engine.dice import game_key_nb, roll_die_nb, seed_key

    key = game_key_nb(seed_key(99), 0)
    faces = np.array(
        [roll_die_nb(key, r, s, k, d) for r in range(400) for s in range(5) for k in range(3) for d in range(5)]
    )
    counts = np.bincount(faces, minlength=6)
    expected = len(faces) / 6
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 33.0  # chi-square, 5 degrees of freedom, p = 1e-6


# -- seat compensation (docs/rules.md §7): a designer's variant ------------------------------------
def test_seat_coins_start_seat_3_with_five_more_coins():
    """After the start player's first turn seats 1-3 have not played: their coins are their start
    coins, start_coins + seat_coins[s]; the same game without compensation starts them all at 3."""
    policies = ["balanced"] * 4
    plain = play_game(4, 5, 0, policies).records
    comp = play_game(4, 5, 0, policies, Rules(seat_coins=(0, 0, 0, 5))).records
    for records, coins in ((plain, [3, 3, 3]), (comp, [3, 3, 8])):
        first = records[1]
        assert (first["round"], first["seat"]) == (0, 0)
        assert [first["after"][s]["coins"] for s in (1, 2, 3)] == coins
    check_invariants(comp, Rules(seat_coins=(0, 0, 0, 5)))


def test_seat_vp_changes_the_final_score_and_nothing_during_play():
    """seat_vp=[0, 3]: same seed, same dice and the same moves (play ignores the VP adjustment), so
    every turn is the same; seat 1's total is 3 more, seat 0's the same, and ranks and wins follow
    from the new totals (more VP, then more empty spaces, docs/rules.md §4)."""
    rules = Rules(seat_vp=(0, 3))
    changed = 0
    for g in range(30):
        a = play_game(2, 17, g, ["balanced", "balanced"]).records
        b = play_game(2, 17, g, ["balanced", "balanced"], rules).records
        assert a[1:-1] == b[1:-1] and a[-1]["cities"] == b[-1]["cities"]
        sa, sb = a[-1]["scores"], b[-1]["scores"]
        assert sb[0]["total"] == sa[0]["total"] and sb[1]["total"] == sa[1]["total"] + 3
        assert [sc["seat_vp"] for sc in sb] == [0, 3]
        key = [(sc["total"], sc["empty"]) for sc in sb]
        assert [sc["won"] for sc in sb] == [k == max(key) for k in key]
        changed += sa[1]["won"] != sb[1]["won"]
    assert changed > 0  # over 30 games, 3 VP turned some loss of seat 1 into a win


# -- round snapshots ----------------------------------------------------------------------------
def referee_positions(records: list[dict]) -> dict[tuple[int, int], dict[str, int]]:
    """The independent referee's position of every seat at the start of every round and at the
    game's end (round = the rounds played), keyed (round, seat), replaying the game's trace."""
    from smsim.play.referee import Referee

    ref, out = Referee(records[0]), {}
    players = records[0]["players"]
    for rec in records[1:]:
        if rec["type"] == "turn":
            if rec["seat"] == 0:
                out.update({(rec["round"], s): ref.position(s) for s in range(players)})
            assert ref.turn(rec) is None
        elif rec["type"] == "end":
            out.update({(rec["rounds"], s): ref.position(s) for s in range(players)})
            assert ref.end(rec) is None
    return out


# A learned seat makes the recording loop one of its own (about 20 s of compiling): the slow suite.
HEURISTIC_SEATS = ["balanced", "greedy", "random", "walls", "churches"]


@pytest.mark.parametrize(
    "lineup",
    [
        HEURISTIC_SEATS[:2],
        HEURISTIC_SEATS[:3],
        HEURISTIC_SEATS,
        pytest.param([*HEURISTIC_SEATS[:4], "learned"], marks=pytest.mark.slow),
    ],
    ids=["2", "3", "5", "5-learned"],
)
def test_round_snapshots_are_the_positions_the_referee_sees(lineup):
    """Every field of every seat at every round start and at the end, as the referee (which shares
    no code with the engine) computes it from the game's trace; the last row is the final score."""
    from smsim.runs.batch import simulate

    players = len(lineup)
    rules = Rules(seat_vp=(0, 1, 0, 2, 0)[:players])  # a compensation counts in the score now too
    seats, games, rounds = simulate(12, players, lineup, seed=31, rules=rules, threads=2, rounds=True)
    assert list(rounds.columns) == ["game", "round", "seat", *L.ROUND.columns()]
    assert len(rounds) == ((games["rounds"] + 1) * players).sum()  # every round's start and the end
    for g in range(12):
        expected = referee_positions(play_game(players, 31, g, lineup, rules).records)
        mine = rounds[rounds["game"] == g].drop(columns="game").set_index(["round", "seat"])
        assert set(mine.index) == set(expected)
        for key, position in expected.items():
            assert mine.loc[key].to_dict() == position, (g, key)
    end = rounds.merge(games[["game", "rounds"]], on="game").query("round == rounds")
    final = end.merge(seats[["game", "seat", "total", "empty_left"]], on=["game", "seat"])
    assert (final["score"] == final["total"]).all() and (final["n_empty"] == final["empty_left"]).all()


@pytest.mark.parametrize(
    "lineup",
    [
        ["balanced", "random", "churches", "greedy"],
        pytest.param(["balanced", "random", "learned", "greedy"], marks=pytest.mark.slow),
    ],
    ids=["heuristic", "learned"],
)
def test_round_snapshots_leave_the_games_as_they_were(lineup):
    """Recording is only a reading: the same games, score for score, with and without it, on
    any number of threads."""
    plain = run_games(60, 4, lineup, 9, Rules(), threads=1)
    recorded = run_games(60, 4, lineup, 9, Rules(), threads=2, rounds=True)
    for a, b in zip(plain, recorded[:3]):
        np.testing.assert_array_equal(a, b)
    again = run_games(60, 4, lineup, 9, Rules(), threads=1, rounds=True)
    for a, b in zip(recorded[3], again[3]):
        np.testing.assert_array_equal(a, b)


PROBES_COMPILED = """
import json
import numpy as np
from numba.core.event import install_recorder
from smsim.play.winprob import N_WIN_FEATURES
from smsim.policies.registry import resolve_policy
from smsim.rules import Rules
from smsim.runs.runner import DiceLuck, KeepRegret, RoundSnapshots, engine_arrays, kernel

specs = [resolve_policy("balanced")] * 2
probes = {
    "none": None,
    "oracle": KeepRegret(specs[0].params),
    "rounds": RoundSnapshots(Rules().max_rounds),
    "luck": DiceLuck(np.zeros((8, N_WIN_FEATURES)), 2),
}
compiled = {}
for name, probe in probes.items():
    with install_recorder("numba:compile") as events:
        kernel(2, specs, 0, Rules(), probe)(0, *engine_arrays(1, 2))
    compiled[name] = sorted({e[1].data["dispatcher"].py_func.__name__ for e in events.buffer if e[1].is_start})
print(json.dumps(compiled))
"""


@pytest.mark.slow  # four loops compiled in an empty cache, in a fresh process (~70 s)
def test_each_probe_kind_compiles_its_own_hooks_and_no_other(tmp_path):
    """A loop holds the code of the probe it is compiled for (``play.loop.PROBE_HOOKS``) and of no
    other kind; without a probe, of none."""
    import json
    import os
    import subprocess
    import sys

    from smsim.play.loop import PROBE_HOOKS, Luck, Oracle, Rounds

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", PROBES_COMPILED], env=env, capture_output=True, text=True, check=True)
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    own = {
        name: {fn.py_func.__name__ for fn in PROBE_HOOKS[kind].values()}
        for name, kind in (("oracle", Oracle), ("rounds", Rounds), ("luck", Luck))
    }
    every = set().union(*own.values())
    assert "play_games_nb" in compiled["none"] and not every & set(compiled["none"])
    for name, hooks in own.items():
        assert every & set(compiled[name]) == hooks, name


# A probe kind of the tests' own, at module level so that its loop is cached like the engine's: every
# seat's turns counted at each turn's start
Turns = namedtuple("Turns", ["out", "game"])


@loop_njit
def turns_game_nb(p, g):
    p.game[0] = g


@loop_njit
def turns_begin_nb(p, w, rnd, s):
    p.out[p.game[0], s] += 1


@loop_njit
def borrow_turns_nb(p):
    return Turns(borrow_nb(p.out), borrow_nb(p.game))


class CountTurns:
    def buffers(self, players: int, games: int) -> Turns:
        return Turns(np.zeros((games, players), dtype=np.int64), np.zeros(1, dtype=np.int64))

    def results(self, buffers: Turns, first: int, game_out: np.ndarray) -> np.ndarray:
        return buffers.out


def test_a_new_probe_kind_observes_the_games_without_a_change_to_the_loop():
    """A study that observes something new registers a probe kind and its hooks
    (``play.loop.probe_kind``): here every seat's turns, counted at each turn's start, are the
    rounds each game played; the games themselves are those played without it."""
    from smsim.play.loop import PROBE_HOOKS, probe_kind
    from smsim.policies.registry import resolve_policy
    from smsim.runs.runner import engine_arrays, kernel

    probe_kind(Turns, game=turns_game_nb, turn_begin=turns_begin_nb, borrow=borrow_turns_nb)
    try:
        specs = [resolve_policy(name) for name in ("balanced", "random", "greedy")]
        arrays = engine_arrays(30, 3)
        turns = kernel(3, specs, 8, Rules(), CountTurns())(0, *arrays)
        plain = engine_arrays(30, 3)
        assert kernel(3, specs, 8, Rules())(0, *plain) is None
    finally:
        del PROBE_HOOKS[Turns]
    for mine, theirs in zip(arrays, plain):
        np.testing.assert_array_equal(mine, theirs)
    rounds = arrays[2][:, L.G_ROUNDS]
    np.testing.assert_array_equal(turns, np.repeat(rounds[:, None], 3, axis=1))
