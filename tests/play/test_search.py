"""Continuations from any decision and the search policy ``rollout`` (smsim/play/search.py)."""

import numpy as np
import pytest

from smsim import layout as L
from smsim.engine.dice import seed_key
from smsim.play.loop import Seats, continue_game_nb, new_work, playout_key_nb
from smsim.errors import PolicyError
from smsim.policies.registry import base_arrays, policy_arrays, resolve_policies, resolve_policy
from smsim.rules import Rules
from smsim.play.search import evaluate_nb, new_search, play_one_search_nb
from smsim.runs.batch import run_games

RULES = Rules()
RULES_NB = RULES.to_nb()
CRATES = RULES.start_crate_cells()
LINEUP = ["balanced", "greedy", "random", "walls"]


def captured(policies, seed, game, at):
    specs = resolve_policies(policies, len(policies))
    kind, params, fns = policy_arrays(specs)
    base_kind, base_params = base_arrays(specs)
    w = new_work(len(policies))
    score, game_out, n_rows = play_one_search_nb(seed_key(seed), game, RULES_NB, CRATES, kind, params, fns, base_kind,
                                                 base_params, w, new_search(len(policies)), at)  # fmt: skip
    return (score, w.player, w.city, game_out, n_rows, w), (fns, base_kind, base_params)


@pytest.mark.parametrize("at", [0, 1, 7, 40, 133, 260])
def test_a_continuation_with_the_games_own_pick_and_dice_replays_the_game(at):
    """From any decision, forcing the pick the game made and drawing the later dice from the
    game's own key plays the game itself again, to the last VP: the turn is replayed exactly
    (its rows, its dice, the policies' streams and memo)."""
    (score, player, city, game_out, _, w), (fns, base_kind, base_params) = captured(LINEUP, 5, 3, at)
    cap = w.cap
    assert cap.at[1] == 1 and cap.ctx[L.CTX_INDEX] == at
    cw = new_work(4)
    again = np.zeros_like(score)
    out = np.zeros_like(game_out)
    seats = Seats(base_kind, base_params, fns, base_kind, base_params)
    continue_game_nb(cap.snap, cap.tape, cap.at[2], cap.at[3], w.keys[0], w.keys[0], cw, seats, RULES_NB, again, out)
    assert np.array_equal(again, score)
    assert np.array_equal(cw.player, player) and np.array_equal(cw.city, city)
    assert np.array_equal(out, game_out)


def test_continuations_draw_their_own_dice_not_the_games():
    """With a playout key the continuation's later dice are its own: the same pick, several
    playouts, give several different games, none of them the real one."""
    (score, _, _, _, _, w), (fns, base_kind, base_params) = captured(LINEUP, 5, 3, 12)
    cap = w.cap
    seats = Seats(base_kind, base_params, fns, base_kind, base_params)
    cw = new_work(4)
    totals = []
    for k in range(6):
        sc = np.zeros_like(score)
        out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
        key = playout_key_nb(w.keys[0], cap.ctx[L.CTX_INDEX], k)
        assert key != w.keys[0]
        continue_game_nb(cap.snap, cap.tape, cap.at[2], cap.at[3], w.keys[0], key, cw, seats, RULES_NB, sc, out)
        totals.append(tuple(sc[:, L.S_TOTAL]))
    assert len(set(totals)) == 6
    assert tuple(score[:, L.S_TOTAL]) not in totals


def test_evaluate_is_deterministic_and_uses_common_dice_for_every_candidate():
    (_, _, _, _, _, w), (fns, base_kind, base_params) = captured(["balanced"] * 3, 8, 1, 20)
    n = int(w.cap.ctx[L.CTX_N])
    rows = np.arange(n)

    def run(first):
        win = np.zeros((n, 8))
        vp = np.zeros_like(win)
        margin = np.zeros_like(win)
        evaluate_nb(w, new_work(w.player.shape[0]), RULES_NB, fns, base_kind, base_params, rows, first, win, vp, margin)
        return win, vp, margin

    a, b = run(0), run(0)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    later = run(8)  # other playout streams: other games
    assert not np.array_equal(a[1], later[1])
    assert ((a[0] >= 0) & (a[0] <= 1)).all()


def rollout_file(tmp_path, text):
    path = tmp_path / "search.toml"
    path.write_text(text)
    return str(path)


def test_rollout_picks_the_candidate_with_the_best_continuations(tmp_path):
    """The in-game search and the candidate evaluation agree: at each USE decision of the
    rollout seat, its pick is the candidate (among those it searches) whose continuations on
    the same dice streams have the best total of win share + margin x VP margin."""
    ref = rollout_file(tmp_path, 'base = "rollout"\nplayouts = 6\ncandidates = 128\nmargin = 0.1\n')
    lineup = [ref, "balanced", "greedy"]
    checked = 0
    for at in range(0, 60):
        (_, _, _, _, _, w), (fns, base_kind, base_params) = captured(lineup, 2, 0, at)
        cap = w.cap
        n = int(cap.ctx[L.CTX_N])
        if cap.ctx[L.CTX_SEAT] != 0 or cap.ctx[L.CTX_DECISION] != L.Decision.USE or n < 2:
            continue
        rows = np.arange(n)
        win = np.zeros((n, 6))
        vp = np.zeros_like(win)
        margin = np.zeros_like(win)
        evaluate_nb(w, new_work(w.player.shape[0]), RULES_NB, fns, base_kind, base_params, rows, 0, win, vp, margin)
        value = (win + 0.1 * margin).sum(axis=1)
        assert value[cap.at[3]] >= value.max() - 1e-9, at
        checked += 1
    assert checked >= 3


def test_rollout_games_are_the_same_on_1_and_2_threads_and_in_any_batch(tmp_path):
    cheap = rollout_file(tmp_path, 'base = "rollout"\nplayouts = 3\ncandidates = 3\nsearch_keep = 1\n')
    policies = [cheap, "balanced", "random"]
    one = run_games(6, 3, policies, 4, RULES, threads=1)
    two = run_games(6, 3, policies, 4, RULES, threads=2)
    parts = [run_games(n, 3, policies, 4, RULES, first=f, threads=1) for f, n in ((0, 2), (2, 4))]
    for i in range(3):
        assert np.array_equal(one[i], two[i])
        assert np.array_equal(one[i], np.concatenate([p[i] for p in parts]))


def test_a_rollout_seat_that_searches_nothing_plays_its_base_policy(tmp_path):
    idle = rollout_file(tmp_path, 'base = "rollout"\nsearch_use = 0\nsearch_keep = 0\nplayout_policy = "greedy"\n')
    a = run_games(8, 3, [idle, "balanced", "random"], 9, RULES, threads=1)
    b = run_games(8, 3, ["greedy", "balanced", "random"], 9, RULES, threads=1)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


@pytest.mark.parametrize(
    "text, message",
    [
        ('base = "rollout"\nplayouts = -1\n', "playouts"),
        ('base = "rollout"\nplayouts = 2.5\n', "whole number"),
        ('base = "rollout"\nbreadth = 3\n', "unknown rollout parameter 'breadth'"),
        ('base = "rollout"\nmargin = "big"\n', "must be a number"),
        ('base = "rollout"\nplayout_policy = "rollout"\n', "playout policy"),
        ('base = "rollout"\nplayout_policy = "nobody"\n', "unknown policy"),
    ],
)
def test_bad_rollout_files_are_refused_by_name(tmp_path, text, message):
    with pytest.raises(PolicyError, match=message):
        resolve_policy(rollout_file(tmp_path, text))


def test_the_built_in_rollout_lists_its_knobs_and_base():
    spec = resolve_policy("rollout")
    described = spec.describe()
    assert described["kind"] == "rollout"
    assert described["weights"]["playouts"] >= 1
    assert described["playout_policy"]["name"] == "balanced"
