"""policies.exact_keep: the turn's dice solved exactly, checked against brute force over dice
positions and against the engine's own list of uses valued as a USE decision values them."""

import itertools

import numpy as np
import pytest

from smsim import layout as L
from smsim.engine.actions import list_uses_nb
from smsim.engine.dice import seed_key
from smsim.play.loop import MEMO_SIZE, new_work, play_one_nb
from smsim.policies import exact_keep as X
from smsim.policies import heuristic_layout as HL
from smsim.policies.features import fill_turn_table_nb
from smsim.policies.heuristics import heuristic_keep_nb, heuristic_values_nb
from smsim.policies.registry import POLICIES, base_arrays, line_up_marks, policy_arrays
from smsim.rules import Rules

RULES = Rules()
RULES_NB = RULES.to_nb()
INDEX = {tuple(c): i for i, c in enumerate(X.NODE_COUNTS)}


def node_of(dice) -> int:
    return INDEX[tuple(np.bincount(np.asarray(dice, dtype=np.int64), minlength=L.N_FACES))]


def test_the_nodes_are_every_multiset_of_up_to_five_dice():
    assert X.N_NODES == 462 and X.N_NODES - X.FIRST_FINAL == 252  # Yahtzee's 252 final rolls
    assert len(INDEX) == X.N_NODES and X.NODE_COUNTS.sum(axis=1).max() == L.N_DICE
    for i, c in enumerate(X.NODE_COUNTS):
        for f in range(L.N_FACES):
            up, down = X.PLUS[i, f], X.MINUS[i, f]
            assert (up < 0) == (c.sum() == L.N_DICE)
            if up >= 0:
                assert np.array_equal(X.NODE_COUNTS[up] - c, np.eye(L.N_FACES, dtype=np.int64)[f])
            assert (down >= 0) == (c[f] > 0)
    # 4,368 transitions of the textbook table: sum over keeps of the outcomes of the dice rolled
    assert sum(len(list(itertools.combinations_with_replacement(range(6), 5 - c.sum()))) for c in X.NODE_COUNTS) == 4368


def brute_force_layers(final: dict):
    """Expected values by enumerating every ordered outcome of the dice rolled (6**m of them)."""

    def value(dice):
        return final[node_of(dice)]

    def expect(kept, f):
        m = L.N_DICE - len(kept)
        return np.mean([f(list(kept) + list(o)) for o in itertools.product(range(L.N_FACES), repeat=m)])

    def one_left(dice):  # stop, or the best reroll with one roll left
        best = value(dice)
        for mask in range(1, L.N_KEEP_MASKS):
            best = max(best, expect([dice[d] for d in range(L.N_DICE) if not mask >> d & 1], value))
        return best

    return value, expect, one_left


@pytest.mark.parametrize(
    "draws, two_rolls_from",
    [
        (1, 3),  # the default suite: one roll, the second layer checked where 3 or more dice are kept (~3 s)
        pytest.param(4, 2, marks=pytest.mark.slow),  # four rolls, the second layer from 2 kept dice (~60 s)
    ],
)
def test_both_layers_equal_brute_force_over_dice_positions(draws, two_rolls_from):
    rng = np.random.default_rng(5)
    last = np.zeros(X.N_NODES)
    last[X.FIRST_FINAL :] = rng.normal(size=X.N_NODES - X.FIRST_FINAL)
    final = {i: last[i] for i in range(X.FIRST_FINAL, X.N_NODES)}
    value, expect, one_left = brute_force_layers(final)
    two = np.zeros(X.N_NODES)
    X.expect_nb(last)
    X.best_within_nb(last, two)
    X.expect_nb(two)
    for _ in range(draws):
        dice = rng.integers(0, L.N_FACES, L.N_DICE)
        for mask in (0, 1, 6, 21, 31):
            kept = [dice[d] for d in range(L.N_DICE) if not mask >> d & 1]
            node = X.node_of_nb(dice, mask)
            assert node == (node_of(kept) if kept else X.EMPTY)
            assert last[node] == pytest.approx(expect(kept, value), abs=1e-12)
            if len(kept) >= two_rolls_from:  # two rolls left: 6**(5 - kept) outcomes, each with its own best reroll
                assert two[node] == pytest.approx(expect(kept, one_left), abs=1e-12)


def keep_positions(games: int = 3, policy: str = "balanced", players: int = 3):
    """(seat, state at the decision, dice) of every KEEP decision in the first decisions of a few
    games, captured as ``smsim advise`` captures them."""
    specs = [POLICIES[policy]] * players
    kind, params, fns = policy_arrays(specs)
    out = []
    for game in range(games):
        for decision in range(0, 160, 7):
            w = new_work(players)
            w.cap.at[0] = decision
            play_one_nb(
                seed_key(11), game, RULES_NB, RULES.start_crate_cells(), kind, params, fns, w, line_up_marks(specs)
            )
            if w.cap.at[1] and w.cap.ctx[L.CTX_DECISION] == L.DECISION_KEEP:
                out.append((int(w.cap.ctx[L.CTX_SEAT]), w.cap.now, w.cap.dice.copy()))
    assert base_arrays(specs) is not None and len(out) > 10
    return out


@pytest.fixture(scope="module")
def positions():
    return keep_positions()


def test_each_final_roll_is_worth_the_best_use_a_use_decision_would_pick(positions):
    """The final values come from the turn table through the DP's own use table; here each of the
    252 final rolls is valued as the engine lists its uses (``list_uses_nb``: rotations, coins,
    the pass row) and the heuristic values them at a USE decision."""
    params = POLICIES["balanced"].params
    cands = np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64)
    counts = np.zeros(L.N_FACES, dtype=np.int64)
    values = np.zeros(L.MAX_CANDS)
    for s, now, _ in positions:
        memo = np.zeros(MEMO_SIZE)
        fill_turn_table_nb(params, now.occ, now.player, now.pirates, memo, s, RULES_NB)
        memo[HL.M_KEY] = float(now.ctx[L.CTX_TURN])
        last = np.zeros(X.N_NODES)
        X.final_values_nb(params, now.player, memo, s, RULES_NB, np.zeros(HL.USE_TABLE_SHAPE), last)
        ctx = now.ctx.copy()
        ctx[L.CTX_DECISION] = L.DECISION_USE
        for node in range(X.FIRST_FINAL, X.N_NODES):
            dice = np.repeat(np.arange(L.N_FACES), X.NODE_COUNTS[node])
            n = list_uses_nb(dice, counts, now.player[s, L.COINS], now.occ, s, RULES_NB, cands)
            ctx[L.CTX_N] = n
            heuristic_values_nb(params, s, ctx, cands, now.occ, now.player, now.pirates, memo, values, RULES_NB)
            assert last[node] == pytest.approx(values[:n].max(), abs=1e-9), (X.NODE_COUNTS[node], s)


def test_the_exact_keep_is_never_worse_than_the_one_symbol_rule_by_its_own_values(positions):
    """Under the same values, the exact keep's expectation is at least that of the heuristic's
    keep (``keep_nb``), and strictly more somewhere: the DP is a maximum over every keep."""
    params = POLICIES["balanced"].params
    exact = params.copy()
    exact[HL.P_EXACT_KEEP] = 1.0
    gained = 0.0
    for s, now, dice in positions:
        memo = np.zeros(MEMO_SIZE)
        memo[HL.M_KEY] = memo[HL.M_KEEP_KEY] = -1.0
        rule = heuristic_keep_nb(params, s, now.ctx, dice, now.occ, now.player, now.pirates, memo, RULES_NB, None)
        best = heuristic_keep_nb(exact, s, now.ctx, dice, now.occ, now.player, now.pirates, memo, RULES_NB, X.EXACT)
        keep_values = memo[HL.M_KEEP_VALUES : HL.M_KEEP_VALUES + L.N_KEEP_MASKS]
        assert keep_values[best] == pytest.approx(keep_values.max())
        assert keep_values[best] >= keep_values[rule] - 1e-12
        gained += keep_values[best] - keep_values[rule]
        regret = X.keep_regret_nb(params, now.ctx, dice, now.occ, now.player, now.pirates, memo, s, RULES_NB, rule)
        assert regret == pytest.approx(keep_values[best] - keep_values[rule])
    assert gained > 0.0


def test_weights_asking_for_exact_keeps_in_a_loop_compiled_without_them_are_refused(positions):
    """A loop compiled for a line-up marked without exact keeps holds no dynamic programming: a
    seat whose weights ask for it there is a caller's error, said, never a silent one-symbol keep."""
    exact = POLICIES["balanced-exact"].params
    s, now, dice = positions[0]
    memo = np.zeros(MEMO_SIZE)
    with pytest.raises(ValueError, match="exact keeps"):
        heuristic_keep_nb(exact, s, now.ctx, dice, now.occ, now.player, now.pirates, memo, RULES_NB, None)


def test_the_oracle_charges_the_exact_keep_nothing_and_a_blind_keep_much():
    from smsim.studies.regret import keep_regret

    table = keep_regret(["balanced-exact", "balanced", "random"], players=2, games=30, seed=2, threads=1)
    by = table.set_index("policy")
    assert by.loc["balanced-exact", "regret_per_game"] == 0.0 and by.loc["balanced-exact", "keeps_per_game"] > 10
    assert 0.0 < by.loc["balanced", "regret_per_game"] < by.loc["random", "regret_per_game"]
