"""Counter-based randomness (docs/rules.md §3 dice; STYLE §3).

Every die value is a pure function of (seed, game, round, seat, roll, die): a splitmix64 hash of
the counter. So a game replays alone from (seed, game), results ignore thread count and batch
size, and a die's face does not depend on what the player kept (common random numbers when
bots swap seats). Policies that need chance draw from a separate per-seat stream, so a bot's
coin flips never shift the dice.

All constants are ``np.uint64``: numba types uint64 mixed with a Python int as float64.
"""

import numpy as np

from smsim import layout as L
from smsim.engine.memory import cached_njit, hot_njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
POLICY_STREAM = np.uint64(0xD1B54A32D192ED03)
SHIFT_30 = np.uint64(30)
SHIFT_27 = np.uint64(27)
SHIFT_31 = np.uint64(31)
SHIFT_32 = np.uint64(32)
SIX = np.uint64(L.N_FACES)


@hot_njit(inline="always")
def mix64_nb(z):
    """splitmix64's finaliser: a bijective, well-mixed hash of one uint64."""
    z = (z ^ (z >> SHIFT_30)) * MIX_1
    z = (z ^ (z >> SHIFT_27)) * MIX_2
    return z ^ (z >> SHIFT_31)


@hot_njit
def game_key_nb(seed_key, game):
    """The key of one game's streams, from the run's seed key and the game index."""
    return mix64_nb(seed_key ^ mix64_nb(np.uint64(game) * GOLDEN + GOLDEN))


@hot_njit(inline="always")
def roll_die_nb(game_key, rnd, seat, roll, die):
    """Face 0..5 of one die: a hash of its counter (round, seat, roll 0..2, die 0..4)."""
    counter = np.uint64((((rnd * 8 + seat) * 4 + roll) * 8) + die)
    h = mix64_nb(game_key + counter * GOLDEN)
    return np.int64(((h >> SHIFT_32) * SIX) >> SHIFT_32)


@hot_njit
def seed_policy_streams_nb(game_key, rng):
    """rng: uint64[P], one policy stream state per seat."""
    for s in range(rng.shape[0]):
        rng[s] = mix64_nb(game_key ^ (POLICY_STREAM + np.uint64(s) * GOLDEN))


@hot_njit(inline="always")
def next_u64_nb(rng, seat):
    """Next draw of a seat's policy stream (splitmix64)."""
    rng[seat] += GOLDEN
    return mix64_nb(rng[seat])


@hot_njit(inline="always")
def rand_below_nb(rng, seat, n):
    """Uniform integer in [0, n) from a seat's policy stream (multiply-high, bias < 2**-32)."""
    return np.int64(((next_u64_nb(rng, seat) >> SHIFT_32) * np.uint64(n)) >> SHIFT_32)


def seed_key(seed: int) -> np.uint64:
    """The run's key from a user's seed (any integer, reduced mod 2**64)."""
    return np.uint64(int(seed) % (1 << 64))


@cached_njit(nogil=True)
def dice_floor_nb(seed_key, first, n_games, n_players, rounds, out):
    """The physical floor of a game: the same dice stream and three-roll keeps as the engine,
    no board. Each turn keeps the most common non-sword face and rolls the rest again.
    Writes each game's swords count to out[g] (so the work cannot be optimised away)."""
    counts = np.zeros(L.N_FACES, dtype=np.int64)
    dice = np.zeros(L.N_DICE, dtype=np.int64)
    for g in range(n_games):
        key = game_key_nb(seed_key, first + g)
        swords = 0
        for rnd in range(rounds):
            for s in range(n_players):
                for d in range(L.N_DICE):
                    dice[d] = roll_die_nb(key, rnd, s, 0, d)
                for roll in range(1, L.N_ROLLS):
                    for f in range(L.N_FACES):
                        counts[f] = 0
                    for d in range(L.N_DICE):
                        counts[dice[d]] += 1
                    best = 0
                    for f in range(1, L.N_SYMBOLS):  # LOG is face 0, the start
                        if counts[f] > counts[best]:
                            best = f
                    for d in range(L.N_DICE):
                        if dice[d] != best:
                            dice[d] = roll_die_nb(key, rnd, s, roll, d)
                for d in range(L.N_DICE):
                    swords += dice[d] == L.FACE_SWORDS
        out[g] = swords
