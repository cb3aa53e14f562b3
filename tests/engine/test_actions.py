"""The candidates a seat that forgoes parts of the game is left with (``actions.forgo_uses_nb``,
``actions.forgo_persons_nb``), against the uses the rules list."""

import numpy as np
import pytest

from smsim import layout as L
from smsim.engine.actions import forgo_persons_nb, forgo_uses_nb, list_bonus_persons_nb, list_uses_nb
from smsim.engine.game import start_game_nb
from smsim.play.loop import new_work
from smsim.rules import Rules

RULES_NB = Rules().to_nb()
BIT = {part: 1 << i for i, part in enumerate(L.FORGO_PARTS)}


def uses(dice, coins=6):
    """Every legal use of ``dice`` in a city as the game starts, with ``coins``: (rows, n)."""
    w = new_work(2)
    start_game_nb(w.city, w.occ, w.player, w.pirates, Rules().start_crate_cells(), RULES_NB)
    cands = np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64)
    counts = np.zeros(L.N_FACES, dtype=np.int64)
    n = list_uses_nb(np.array(dice, dtype=np.int64), counts, coins, w.occ, 0, RULES_NB, cands)
    return cands, n


def forgone(row, mask):
    symbol, _k, rotated, person = row
    if symbol == L.NO_SYMBOL:
        return False
    if rotated > 0 and mask & BIT["rotations"]:
        return True
    if symbol == L.FACE_HEAD:
        return bool(mask & (BIT["citizens"] << person))
    part = {L.FACE_LOG: "logs", L.FACE_CRATE: "crates", L.FACE_WALL: "walls", L.FACE_CROSS: "churches"}[symbol]
    return bool(mask & BIT[part])


@pytest.mark.parametrize(
    "mask",
    [
        BIT["churches"],
        BIT["rotations"],
        BIT["walls"] | BIT["nobles"],
        BIT["soldiers"] | BIT["priests"] | BIT["logs"],
        BIT["crates"] | BIT["rotations"],
    ],
)
@pytest.mark.parametrize("dice", [[3, 3, 4, 4, 4], [0, 1, 2, 3, 4], [4, 4, 4, 4, 4], [2, 2, 5, 5, 3]])
def test_a_forgone_use_is_left_out_and_the_others_keep_their_order(dice, mask):
    cands, n = uses(dice)
    rows = [tuple(cands[i]) for i in range(n)]
    kept = [r for r in rows if not forgone(r, mask)]
    assert kept, "every case here leaves some use"
    m = forgo_uses_nb(mask, cands, n)
    assert [tuple(cands[i]) for i in range(m)] == kept
    if len(kept) < len(rows):
        assert m < n


def test_where_every_legal_use_is_forgone_the_rules_force_one():
    # crosses and swords, no coins to turn a die: a church is the only use and passing is not allowed
    cands, n = uses([3, 3, 5, 5, 5], coins=0)
    before = cands[:n].copy()
    assert all(cands[i, L.C_SYMBOL] == L.FACE_CROSS for i in range(n))
    assert forgo_uses_nb(BIT["churches"], cands, n) == n
    assert (cands[:n] == before).all()


def test_turning_dice_forgone_never_forces_a_turn():
    # with only rotated uses the rules allow the pass, which is never forgone
    cands, n = uses([5, 5, 5, 5, 5], coins=10)
    m = forgo_uses_nb(BIT["rotations"], cands, n)
    assert m == 1 and cands[0, L.C_SYMBOL] == L.NO_SYMBOL


def test_a_wall_bonus_person_forgone_is_left_out_unless_all_are():
    cands = np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64)
    n = list_bonus_persons_nb(3, cands)
    assert n == 5
    m = forgo_persons_nb(BIT["soldiers"] | BIT["merchants"], cands, n)
    assert list(cands[:m, 0]) == [L.PERSON_CITIZEN, L.PERSON_PRIEST, L.PERSON_ARCHITECT]
    n = list_bonus_persons_nb(1, cands)
    assert forgo_persons_nb(BIT["citizens"], cands, n) == 1 and cands[0, 0] == L.PERSON_CITIZEN  # placed all the same
