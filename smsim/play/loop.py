"""The play loop: who decides, and in which order, above the rules (``engine``) and the bots
(``policies``) (docs/rules.md §3-§6).

In the vocabulary of game-playing programs:

- the **state** is ``Work`` (cities, bit masks, counters, pirate track, dice) plus the seat to
  move; ``engine`` holds the rules over it and imports nothing from here or from ``policies``;
- the **legal actions** of a decision are the rows ``w.cands[:n]`` that ``engine.actions``
  lists (a ``layout.Decision`` says what a row means), and ``w.ctx`` describes the decision;
- the **current player** is ``w.ctx[CTX_SEAT]``; its policy picks a row (``choose_nb``: a
  built-in bot is data, a user's policy a function of ``policies.interface.POLICY_SIG``);
- **apply action**: the loop applies the picked row with ``engine.city``/``engine.game``;
- **chance outcomes** are the dice: a pure function of (game key, round, seat, roll, die)
  (``engine.dice``), so the same game replays alone from (seed, game).

One game is ``play_game_nb``; ``play_games_nb`` plays a contiguous range of games on one thread
(``runner`` runs several ranges at once). ``Seats`` says who decides for each seat:
``kind`` int64[P] (a ``layout.PolicyKind``), ``params`` float64[P, N_PARAMS], ``fns`` a
5-tuple of POLICY_SIG functions.
"""

import types as pytypes
from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from smsim import layout as L
from smsim import rules as R
from smsim.engine import events as E
from smsim.engine.actions import (
    forgo_persons_nb,
    forgo_uses_nb,
    list_bonus_persons_nb,
    list_cells_nb,
    list_houses_nb,
    list_keeps_nb,
    list_sides_nb,
    list_uses_nb,
    place_allowed_nb,
)
from smsim.engine.city import (
    ZERO,
    apply_person_nb,
    bit_nb,
    fill_cell_nb,
    lowest_bit_nb,
    max_houses_nb,
    newly_complete_sides_nb,
)
from smsim.engine.dice import game_key_nb, roll_die_nb, seed_policy_streams_nb
from smsim.engine.game import (
    city_full_nb,
    complete_sides_nb,
    finish_game_nb,
    give_side_bonus_nb,
    pay_for_houses_nb,
    pay_for_use_nb,
    start_game_nb,
)
from smsim.engine.memory import OVERLOAD_OPTIONS, borrow_nb, cached_njit, hot_njit, loop_njit
from smsim.engine.pirates import mark_swords_nb
from smsim.engine.scoring import ROUND_SCRATCH, snapshot_round_nb
from smsim.play.winprob import N_WIN_FEATURES, position_values_nb
from smsim.policies import heuristic_layout as HL
from smsim.policies.exact_keep import ERROR_VP, keep_regret_nb
from smsim.policies.heuristics import heuristic_choice_nb, new_game_memo_nb, random_choice_nb
from smsim.policies.learned_layout import LEARNED_MEMO, learned_nb

# float64 scratch a built-in policy may keep within one turn: the largest any policy declares
MEMO_SIZE = LEARNED_MEMO.size

# int64, not the literal a Python int constant is typed as: a function that is called, not inlined,
# is compiled once per distinct argument types, so a literal argument costs a compile of its own
ONE, NO_ANCHOR, TO_THE_END = np.int64(1), np.int64(-1), np.int64(-1)
REST_OF_ROUND = np.int64(0)  # play_rounds_nb's ``turns``: the round's turns from the first seat's on

PLAYOUT_STREAM = np.uint64(0x8CB92BA72F3D8DD7)  # keeps continuations' dice apart from the game's
MAX_PLAYOUTS = 1 << 20  # playouts a decision may have: the key's room for them
MAX_TAPE = 64  # decisions one turn can hold, with room to spare (at most about 25)
NO_TRACE = np.zeros((0, E.EVENT_WIDTH), dtype=np.int64)  # the trace of a game not traced: no rows, never written

Work = namedtuple(
    "Work",
    [
        "city",
        "occ",
        "player",
        "pirates",
        "dice",
        "counts",
        "cands",
        "ctx",
        "rng",
        "values",
        "memo",
        "status",
        "trace",
        "trace_n",
        "keys",
        "tape",
        "forced",
        "tape_n",
        "snap",
        "cap",
        "probe",
    ],
)
# The state at the start of a turn, from which a continuation replays the turn: int64 meta[2] is
# (round, seat) of that turn.
Snap = namedtuple("Snap", ["city", "occ", "player", "pirates", "ctx", "rng", "meta"])
# One decision captured for ``smsim advise``: at[0] the decision's number to capture (-1: none),
# at[1] 1 once captured, at[2] the decisions made before it in its turn, at[3] the policy's pick,
# at[4] the trace rows written before it (the position as the trace tells it); its candidates,
# context, the turn's earlier rows and the turn's start state; the dice in hand and the deciding
# policy's values of the candidates (a heuristic's, for USE and PLACE: what a search orders them by);
# the state at the decision itself (``now``: what a learned policy's features read there).
Capture = namedtuple("Capture", ["at", "cands", "ctx", "tape", "snap", "dice", "values", "now"])
# The probes: what a study observes in a game, ``Work.probe``, one probe kind (a namedtuple of
# buffers) or None. The loop calls the same hooks whatever the probe (``on_game_nb``,
# ``on_round_nb``, ``on_turn_begin_nb``, ``on_keep_nb``, ``on_turn_end_nb``, ``on_game_end_nb``,
# ``borrow_probe_nb``), and each resolves, by the probe's type when the loop is compiled, to the
# function its kind registered for it (``PROBE_HOOKS``, ``probe_kind``) or to nothing: a loop
# compiled for None, or for a kind that does not watch an event, holds none of that code. A study
# that observes something new adds a probe kind and its hooks, not a parameter of the loop.
#
# The keep oracle (``smsim regret``, policies/exact_keep.py), a probe that judges every KEEP
# decision of the games: the stated value's heuristic weights and its own memo; out[g, seat, :]
# the game's regret in VP, its keep decisions and its errors (``ORACLE_FIELDS``), g = game[0], the
# game's row among those the call plays.
Oracle = namedtuple("Oracle", ["params", "memo", "out", "game"])
ORACLE_FIELDS = ("keep_regret", "keeps", "keep_errors")
# The round snapshots (``simulate --rounds``), a probe that records every seat's position at the
# start of every round and at the game's end: out[g, r, seat, :] the ``layout.ROUND`` row of round r (r = the rounds
# played: the end), int16, g = game[0], the game's row among those the call plays; scratch for
# ``scoring.snapshot_round_nb``.
Rounds = namedtuple("Rounds", ["out", "game", "scratch"])
# The luck of the dice (``smsim luck``, studies/luck.py), a probe that judges every turn's dice. A
# position's value, for every
# seat, is its expected win credit at the luck's target: the mean over ``samples[0]`` plays from
# it to that target by the same policies with other dice (``LUCK_STREAM``). The target is the
# round's end, read by the win-probability model ``coef`` (``play.winprob``: fitted on positions
# at rounds' starts, it is read only there) or, where the game is over, its outcome; in the game's
# endgame (at a round's start its fullest city has fewer than ``samples[1]`` empty spaces, and
# from then on: ``endgame[0]``), the game's end itself, its outcome played out. A turn's luck is
# the value after it minus the value before it (the value after a round's last turn, outside the
# endgame, is its position's): whatever the seats play, it has mean 0 given everything before the
# turn, and a round's turns' luck sums to its end against what was expected at its start.
# ``snap`` holds the state the plays start from, ``cw`` plays them; ``before`` holds the value
# before the turn; ``position``, ``scratch``, ``features``, ``probs`` and ``after`` are scratch.
# out[g, seat, :]: ``LUCK_FIELDS``.
Luck = namedtuple(
    "Luck",
    [
        "coef",
        "samples",
        "snap",
        "cw",
        "position",
        "scratch",
        "features",
        "probs",
        "before",
        "after",
        "endgame",
        "out",
        "game",
    ],
)
# luck: the seat's luck summed over every turn (every seat's dice), in win probability; own_luck: over
# its own turns only; turns: its own turns
LUCK_FIELDS = ("luck", "own_luck", "turns")
LUCK_STREAM = np.uint64(0x5851F42D4C957F2D)  # keeps the luck's plays' dice apart from the game's and the search's
MAX_LUCK_SAMPLES = 1 << 12  # plays a value may be the mean of: the key's room for them
# Who decides for each seat. A searching seat (PolicyKind.ROLLOUT) has its own knobs in ``params``,
# the policy that orders its candidates and decides where it does not search in
# ``base_kind``/``base_params``, and the policy its continuations play in ``playout_kind``/
# ``playout_params``; any other seat is its own base and playout policy. ``marks`` are the line-up's
# compiled parts (``registry.line_up_marks``): ``marks.learned`` is ``LEARNED`` where some seat's
# policy, base or playout policy is learned, ``marks.exact`` is ``EXACT`` where one keeps exactly,
# each else None, and a loop compiled for None holds none of that code.
Seats = namedtuple(
    "Seats", ["kind", "params", "fns", "base_kind", "base_params", "playout_kind", "playout_params", "marks"]
)


def new_snap(n_players: int) -> Snap:
    """Buffers for the state at the start of a turn (``Snap``)."""
    return Snap(
        np.zeros((n_players, L.N_CELLS), dtype=np.int8),
        np.zeros((n_players, L.N_CELL_CODES), dtype=np.uint64),
        np.zeros((n_players, L.N_PLAYER_FIELDS), dtype=np.int64),
        np.zeros(L.N_PIRATE_FIELDS, dtype=np.int64),
        np.zeros(L.N_CTX, dtype=np.int64),
        np.zeros(n_players, dtype=np.uint64),
        np.zeros(2, dtype=np.int64),
    )


def new_oracle(n_players: int, games: int, params: np.ndarray) -> Oracle:
    """The keep oracle's buffers for ``games`` games under the heuristic weights ``params``."""
    return Oracle(
        np.ascontiguousarray(params, dtype=np.float64),
        np.zeros(MEMO_SIZE, dtype=np.float64),
        np.zeros((games, n_players, len(ORACLE_FIELDS)), dtype=np.float64),
        np.zeros(1, dtype=np.int64),
    )


def new_rounds(n_players: int, games: int, max_rounds: int) -> Rounds:
    """The round snapshots' buffers for ``games`` games of at most ``max_rounds`` rounds."""
    return Rounds(
        np.zeros((games, max_rounds + 1, n_players, L.N_ROUND_FIELDS), dtype=np.int16),
        np.zeros(1, dtype=np.int64),
        np.zeros(ROUND_SCRATCH, dtype=np.int64),
    )


def new_luck(n_players: int, games: int, coef: np.ndarray, samples: int, endgame: int = 0) -> Luck:
    """The luck's buffers for ``games`` games under the win-probability coefficients ``coef``
    float64[N_STAGES, N_WIN_FEATURES], each value the mean of ``samples`` plays, the game in its
    endgame once its fullest city has fewer than ``endgame`` empty spaces (``Luck``)."""
    return Luck(
        np.ascontiguousarray(coef, dtype=np.float64),
        np.array([samples, endgame], dtype=np.int64),
        new_snap(n_players),
        new_work(n_players),
        np.zeros((n_players, L.N_ROUND_FIELDS), dtype=np.int16),
        np.zeros(ROUND_SCRATCH, dtype=np.int64),
        np.zeros(N_WIN_FEATURES, dtype=np.float64),
        np.zeros(n_players, dtype=np.float64),
        np.zeros(n_players, dtype=np.float64),
        np.zeros(n_players, dtype=np.float64),
        np.zeros(1, dtype=np.int64),
        np.zeros((games, n_players, len(LUCK_FIELDS))),
        np.zeros(1, dtype=np.int64),
    )


def new_work(n_players: int, trace: np.ndarray = NO_TRACE, probe: tuple | None = None) -> Work:
    """Fresh buffers for one thread: city int8[P, N_CELLS], occ uint64[P, N_CELL_CODES], player
    int64[P, N_PLAYER_FIELDS], pirates int64[N_PIRATE_FIELDS], dice int64[N_DICE], counts
    int64[N_FACES] (faces of the final dice), cands int64[MAX_CANDS, CAND_WIDTH], ctx
    int64[N_CTX], rng uint64[P], values and memo float64 scratch for policies, status int64[2]
    (error code, seat), the trace (0 rows: not traced), and what continuations need: keys
    uint64[2] (the game's dice key, the key of dice after a continuation's forced rows), tape
    int64[MAX_TAPE] (rows picked so far this turn), forced int64[MAX_TAPE] (rows a continuation
    replays), tape_n int64[3] (rows on the tape, forced rows, forced rows replayed), the turn's
    start state, a capture, and the probe (``Oracle``, ``Rounds``, ``Luck``: ``new_oracle``,
    ``new_rounds``, ``new_luck``; None, nothing observed, unless given).

    Allocated here, by numpy, and passed to the compiled code: a jitted allocator cost a second
    of the first compile (numba's np.zeros for each shape and the boxing of the tuple), and the
    caller that allocates is the owner the borrowed views need (``engine/memory.py``)."""
    return Work(
        np.zeros((n_players, L.N_CELLS), dtype=np.int8),
        np.zeros((n_players, L.N_CELL_CODES), dtype=np.uint64),
        np.zeros((n_players, L.N_PLAYER_FIELDS), dtype=np.int64),
        np.zeros(L.N_PIRATE_FIELDS, dtype=np.int64),
        np.zeros(L.N_DICE, dtype=np.int64),
        np.zeros(L.N_FACES, dtype=np.int64),
        np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64),
        np.zeros(L.N_CTX, dtype=np.int64),
        np.zeros(n_players, dtype=np.uint64),
        np.zeros(L.MAX_CANDS, dtype=np.float64),
        np.zeros(MEMO_SIZE, dtype=np.float64),
        np.zeros(2, dtype=np.int64),
        trace,
        np.zeros(1, dtype=np.int64),
        np.zeros(2, dtype=np.uint64),
        np.zeros(MAX_TAPE, dtype=np.int64),
        np.zeros(MAX_TAPE, dtype=np.int64),
        np.zeros(3, dtype=np.int64),
        new_snap(n_players),
        Capture(
            np.array([-1, 0, 0, -1, 0], dtype=np.int64),
            np.zeros((L.MAX_CANDS, L.CAND_WIDTH), dtype=np.int64),
            np.zeros(L.N_CTX, dtype=np.int64),
            np.zeros(MAX_TAPE, dtype=np.int64),
            new_snap(n_players),
            np.zeros(L.N_DICE, dtype=np.int64),
            np.zeros(L.MAX_CANDS, dtype=np.float64),
            new_snap(n_players),
        ),
        probe,
    )


@loop_njit(forceinline=True)
def choose_nb(seats, s, w, rules):
    """Row of w.cands[:n] that seat s's policy picks (n = w.ctx[CTX_N]). Only the branch taken
    touches the seat's weights or function."""
    kind = seats.base_kind[s]  # a searching seat's own decisions, where it does not search
    n = w.ctx[L.CTX_N]
    if kind == L.POLICY_KIND_HEURISTIC:
        return heuristic_choice_nb(seats.base_params[s], s, w, rules, seats.marks.exact)
    if kind == L.POLICY_KIND_LEARNED:
        return learned_nb(seats.base_params[s], s, w, rules, seats.marks.learned, seats.marks.exact)
    if kind == L.POLICY_KIND_USER:
        fn = seats.fns[s]
        return fn(w.ctx, w.dice, w.cands, n, w.city, w.occ, w.player, w.pirates, rules, seats.base_params[s], w.rng)
    return random_choice_nb(n, w.rng, s)


def search_nb(seats, s, w, rules, search):
    """The searching policy's pick (``smsim.play.search`` implements it for a real ``search``
    scratch; with ``None`` it is the seat's base policy). Resolved by argument type at compile
    time, so that the loop that plays continuations, compiled with ``None``, never contains the
    search again (numba cannot compile a function that calls itself through another type)."""
    raise NotImplementedError("compiled code only")


# Inlined by numba (a few lines), as are the search's and the learned policy's: never a function of
# its own, so never cached apart from the function that calls it, whose key says which parts it
# holds (smsim/_cache.py, PARTS).
@overload(search_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _search_without_scratch(seats, s, w, rules, search):
    if search is types.none or isinstance(search, types.NoneType):
        return lambda seats, s, w, rules, search: choose_nb(seats, s, w, rules)
    return None  # smsim.play.search registers the implementation for its scratch


def forgo_nb(mark, kind, params, decision, cands, n):
    """The candidates left to a seat that forgoes parts of the game (its decider's ``forgo`` weight,
    a heuristic's or a learned policy's base): USE rows (``actions.forgo_uses_nb``) or BONUS_PERSON
    rows (``actions.forgo_persons_nb``) moved to the front; their number. ``mark``: the line-up's
    ``Marks.forgo``; compiled for None, n as it is and nothing in the loop."""
    raise NotImplementedError("compiled code only")


@overload(forgo_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _forgo(mark, kind, params, decision, cands, n):
    if isinstance(mark, types.NoneType):
        return lambda mark, kind, params, decision, cands, n: n

    def filtered(mark, kind, params, decision, cands, n):
        if kind != L.POLICY_KIND_HEURISTIC and kind != L.POLICY_KIND_LEARNED:
            return n
        forgo = int(params[HL.P_FORGO])
        if forgo == 0:
            return n
        if decision == L.DECISION_USE:
            return forgo_uses_nb(forgo, cands, n)
        return forgo_persons_nb(forgo, cands, n)

    return filtered


# Not inlined: only ``smsim advise`` captures, and every decision's code would hold a copy.
@loop_njit
def capture_nb(w):
    """Keep this decision (``smsim advise``): its candidates, context, the turn's rows so far and
    the turn's start state."""
    cap = w.cap
    cap.at[1] = 1
    cap.at[2] = w.tape_n[0]
    cap.at[4] = w.trace_n[0]
    for i in range(w.ctx[L.CTX_N]):
        for j in range(L.CAND_WIDTH):
            cap.cands[i, j] = w.cands[i, j]
    for f in range(L.N_CTX):
        cap.ctx[f] = w.ctx[f]
    for i in range(w.tape_n[0]):
        cap.tape[i] = w.tape[i]
    for d in range(L.N_DICE):
        cap.dice[d] = w.dice[d]
    copy_snap_nb(w.snap, cap.snap)
    now = cap.now
    copy_state_nb(
        w.city, w.occ, w.player, w.pirates, w.ctx, w.rng, now.city, now.occ, now.player, now.pirates, now.ctx, now.rng
    )


@hot_njit
def copy_state_nb(city, occ, player, pirates, ctx, rng, to_city, to_occ, to_player, to_pirates, to_ctx, to_rng):
    """Copy a game's state (cities, masks, counters, pirate track, context, policy streams)
    element by element: the one copy behind snapshots, captures and continuations (no allocation)."""
    for p in range(city.shape[0]):
        for c in range(L.N_CELLS):
            to_city[p, c] = city[p, c]
        for code in range(L.N_CELL_CODES):
            to_occ[p, code] = occ[p, code]
        for f in range(L.N_PLAYER_FIELDS):
            to_player[p, f] = player[p, f]
        to_rng[p] = rng[p]
    for f in range(L.N_PIRATE_FIELDS):
        to_pirates[f] = pirates[f]
    for f in range(L.N_CTX):
        to_ctx[f] = ctx[f]


@loop_njit
def copy_snap_nb(src, dst):
    copy_state_nb(
        src.city,
        src.occ,
        src.player,
        src.pirates,
        src.ctx,
        src.rng,
        dst.city,
        dst.occ,
        dst.player,
        dst.pirates,
        dst.ctx,
        dst.rng,
    )
    dst.meta[0] = src.meta[0]
    dst.meta[1] = src.meta[1]


@loop_njit
def snapshot_nb(w, rnd, s):
    """The state at the start of seat s's turn in round rnd, for continuations (no allocation)."""
    snap = w.snap
    copy_state_nb(
        w.city,
        w.occ,
        w.player,
        w.pirates,
        w.ctx,
        w.rng,
        snap.city,
        snap.occ,
        snap.player,
        snap.pirates,
        snap.ctx,
        snap.rng,
    )
    snap.meta[0] = rnd
    snap.meta[1] = s


# ask_nb is inlined by numba (its search branch must resolve by the type of ``search`` where it is
# called); its two halves are compiled once and inlined by LLVM (``forceinline``): a call passes
# the Work tuple flattened into some 110 machine words, and that hop cost more than a random
# policy's whole decision, while numba's own inlining re-types the code at every call site.
@hot_njit(inline="always")
def ask_nb(decision, n, s, w, seats, rules, search):
    """Seat s's policy picks one of n >= 1 candidates in w.cands. A row out of range is recorded
    in w.status (the game goes on with row 0 and the run reports the policy).

    A continuation first replays its forced rows; every row picked goes on the turn's tape, so
    that a continuation can replay the turn up to any of its decisions. ``search`` is the search
    scratch where the seat may search (KEEP, USE and PLACE), else None. ``decision`` is passed as an
    int64, ``np.int64(L.DECISION_KEEP)``, not the literal: ask_nb is then compiled once for every
    decision (see ONE)."""
    pos = ask_begin_nb(decision, n, s, w)
    # a forced row still asks the policy, so that its stream and memo move on as in the game replayed
    if pos < 0 and search is not None and seats.kind[s] == L.POLICY_KIND_ROLLOUT:
        row = search_nb(seats, s, w, rules, search)
    else:
        row = choose_nb(seats, s, w, rules)
    return ask_end_nb(decision, n, s, w, row, pos)


@loop_njit(forceinline=True)
def ask_begin_nb(decision, n, s, w):
    """Describe the decision in w.ctx (and capture it for ``smsim advise``). Returns the tape
    position of the row a continuation replays here, or -1 when the policy's pick stands."""
    w.ctx[L.CTX_DECISION] = decision
    w.ctx[L.CTX_SEAT] = s
    w.ctx[L.CTX_N] = n
    pos = w.tape_n[2]
    if pos < w.tape_n[1]:
        return pos
    if w.cap.at[0] == w.ctx[L.CTX_INDEX] and w.cap.at[1] == 0:
        capture_nb(w)
    return np.int64(-1)


@loop_njit(forceinline=True)
def ask_end_nb(decision, n, s, w, row, pos):
    """The row played: the forced one at tape position ``pos`` (>= 0), else the policy's pick
    ``row`` (0 if out of range, recorded in w.status); it goes on the turn's tape."""
    if pos >= 0:
        row = w.forced[pos]
        w.tape_n[2] = pos + 1
    elif w.cap.at[0] == w.ctx[L.CTX_INDEX]:
        w.cap.at[3] = row
        for i in range(n):
            w.cap.values[i] = w.values[i]
    w.ctx[L.CTX_INDEX] += 1
    if row < 0 or row >= n:
        if w.status[0] == 0:
            w.status[0] = 1 + decision
            w.status[1] = s
        row = 0
    if w.tape_n[0] < MAX_TAPE:
        w.tape[w.tape_n[0]] = row
        w.tape_n[0] += 1
    return row


@loop_njit(forceinline=True)
def place_cells_nb(what, k, role, anchor, s, w, seats, rules, search):
    """Place k cells of Cell code ``what``, one PLACE decision each, where the rules allow
    (``actions.place_allowed_nb``). Returns the cells' mask. ``search``: as for ``ask_nb``."""
    group = ZERO
    w.ctx[L.CTX_WHAT] = what
    w.ctx[L.CTX_ANCHOR] = anchor
    for i in range(k):
        n = list_cells_nb(place_allowed_nb(what, w.occ[s, L.CELL_EMPTY], group, k, anchor), w.cands)
        w.ctx[L.CTX_LEFT] = k - i
        w.ctx[L.CTX_GROUP] = np.int64(group)
        cell = w.cands[ask_nb(np.int64(L.DECISION_PLACE), n, s, w, seats, rules, search), 0]
        fill_cell_nb(w.city, w.occ, w.player, s, cell, what)
        group |= bit_nb(cell)
        E.record_nb(w.trace, w.trace_n, E.EV_PLACE, cell, what, role, 0, 0, 0, 0)
    return group


# Not inlined: it holds two placements, and inlining it where it is called cost 28 s of first
# compile (46 -> 74 s) for about 3% of speed.
@loop_njit
def person_nb(person, role, s, w, seats, rules, search):
    """Place a person on an empty space with its effect; an architect then builds houses."""
    cell = lowest_bit_nb(place_cells_nb(L.PERSON_0 + person, ONE, role, NO_ANCHOR, s, w, seats, rules, search))
    apply_person_nb(w.occ, w.player, s, cell, person, rules)
    if person != L.PERSON_ARCHITECT:
        return
    h_max = max_houses_nb(w.occ, w.player, s, cell, rules)
    if h_max == 0:
        return
    n = list_houses_nb(h_max, w.cands)
    w.ctx[L.CTX_ANCHOR] = cell
    h = w.cands[ask_nb(np.int64(L.DECISION_HOUSES), n, s, w, seats, rules, None), 0]
    if h == 0:
        return
    place_cells_nb(np.int64(L.CELL_HOUSE), h, np.int64(E.PLACED_HOUSE), cell, s, w, seats, rules, search)
    pay_for_houses_nb(w.player, s, h, rules)


@loop_njit
def take_wall_bonuses_nb(new_sides, s, w, seats, rules, search):
    """Give the bonus of every side completed this turn, in the order the seat picks (§5 Wall)."""
    complete_sides_nb(w.player, s, new_sides, w.ctx[L.CTX_ROUND])
    left = new_sides
    while left != 0:
        n = list_sides_nb(left, w.cands)
        pick = ask_nb(np.int64(L.DECISION_BONUS_SIDE), np.int64(n), s, w, seats, rules, None) if n > 1 else 0
        side = w.cands[pick, 0]
        left &= ~(1 << side)
        kind, amount = give_side_bonus_nb(w.player, s, side, rules)
        person = -1
        if kind == L.BONUS_KIND_PERSON and w.occ[s, L.CELL_EMPTY] != ZERO:  # a person of at most `amount` heads
            n = list_bonus_persons_nb(amount, w.cands)
            n = forgo_nb(
                seats.marks.forgo,
                seats.base_kind[s],
                seats.base_params[s],
                np.int64(L.DECISION_BONUS_PERSON),
                w.cands,
                n,
            )
            person = w.cands[ask_nb(np.int64(L.DECISION_BONUS_PERSON), np.int64(n), s, w, seats, rules, None), 0]
        E.record_nb(w.trace, w.trace_n, E.EV_BONUS, side, kind, amount, person, 0, 0, 0)
        if person >= 0:
            w.player[s, L.BONUS_PERSONS] += 1
            person_nb(person, E.PLACED_BONUS, s, w, seats, rules, search)


@loop_njit
def oracle_keep_nb(o, w, s, rules, mask):
    """The keep oracle ``o``'s judgement of seat s rolling again ``mask`` (``Oracle``)."""
    regret = keep_regret_nb(o.params, w.ctx, w.dice, w.occ, w.player, w.pirates, o.memo, s, rules, mask)
    g = o.game[0]
    o.out[g, s, 0] += regret
    o.out[g, s, 1] += 1.0
    if regret > ERROR_VP:
        o.out[g, s, 2] += 1.0


@loop_njit
def oracle_game_nb(o, g):
    """The keep oracle ``o`` writes game ``g``'s row next, its memo new (keyed on the turn number)."""
    o.game[0] = g
    new_game_memo_nb(o.memo)


@loop_njit(forceinline=True)
def rounds_round_nb(rec, w, rnd, rules):
    """Every seat's position at the start of round ``rnd`` (or, with ``rnd`` the rounds played, at
    the game's end) into the round snapshots ``rec`` (``Rounds``)."""
    snapshot_round_nb(w.occ, w.player, w.pirates, rules, rec.scratch, rec.out[rec.game[0], rnd])


@loop_njit(forceinline=True)
def rounds_game_nb(rec, g):
    """The round snapshots ``rec`` take game ``g``'s rows next."""
    rec.game[0] = g


@loop_njit(forceinline=True)
def luck_turn_begin_nb(lk, w, rnd, s):
    """The state at the start of seat s's turn in round rnd, from which the luck ``lk`` plays the
    turn's other dice."""
    snap = lk.snap
    copy_state_nb(
        w.city,
        w.occ,
        w.player,
        w.pirates,
        w.ctx,
        w.rng,
        snap.city,
        snap.occ,
        snap.player,
        snap.pirates,
        snap.ctx,
        snap.rng,
    )
    snap.meta[0] = rnd
    snap.meta[1] = s


@hot_njit
def restart_nb(snap, cw, n_forced, seen_key, later_key):
    """``cw`` set to play on from the turn that begins at ``snap``: its state, the first
    ``n_forced`` rows of ``cw.forced`` to replay (their dice from ``seen_key``, every later die from
    ``later_key``), no capture, the policies' memos new."""
    copy_state_nb(
        snap.city,
        snap.occ,
        snap.player,
        snap.pirates,
        snap.ctx,
        snap.rng,
        cw.city,
        cw.occ,
        cw.player,
        cw.pirates,
        cw.ctx,
        cw.rng,
    )
    cw.tape_n[0] = 0
    cw.tape_n[1] = n_forced
    cw.tape_n[2] = 0
    cw.keys[0] = seen_key
    cw.keys[1] = later_key
    cw.status[0] = 0
    cw.status[1] = -1
    cw.cap.at[0] = -1
    new_game_memo_nb(cw.memo)


@loop_njit
def play_on_nb(snap, key, cw, seats, rules, turns):
    """From the turn that begins at ``snap``, the round's turns (``turns`` REST_OF_ROUND) or the
    game to its end (TO_THE_END) played on ``cw``, their dice from ``key``: the same policies,
    their streams and memos as at that turn's start."""
    restart_nb(snap, cw, np.int64(0), key, key)
    continue_rounds_nb(cw, seats, rules, snap.meta[0], snap.meta[1], None, turns)


@loop_njit
def value_nb(lk, seats, rules, stream, which):
    """Every seat's value (``Luck``) of the state in ``lk.snap`` into ``lk.after``: the mean over
    ``lk.samples[0]`` plays from it to the luck's target (the round's end, read by the model, or
    the game's end in the endgame: ``lk.endgame[0]``), their dice from the game's luck
    ``stream``; ``which`` keeps each call's dice apart."""
    n_players = lk.after.shape[0]
    for i in range(n_players):
        lk.after[i] = 0.0
    samples = lk.samples[0]
    to_end = lk.endgame[0] == 1
    cw = lk.cw
    for k in range(samples):
        play_on_nb(
            lk.snap,
            game_key_nb(stream, which * MAX_LUCK_SAMPLES + k),
            cw,
            seats,
            rules,
            TO_THE_END if to_end else REST_OF_ROUND,
        )
        snapshot_round_nb(cw.occ, cw.player, cw.pirates, rules, lk.scratch, lk.position)
        position_values_nb(lk.position, to_end or city_full_nb(cw.player), lk.coef, rules, lk.features, lk.probs)
        for i in range(n_players):
            lk.after[i] += lk.probs[i] / samples


@loop_njit
def judge_turn_nb(lk, w, seats, rules, s):
    """Every seat's luck in seat s's turn just played: its value (``Luck``) now minus its value
    before the turn."""
    n_players = w.player.shape[0]
    turn = w.ctx[L.CTX_TURN]
    stream = w.keys[0] ^ LUCK_STREAM
    if s == 0:
        fewest = L.N_SPACES
        for i in range(n_players):
            fewest = min(fewest, lk.snap.player[i, L.N_EMPTY])
        endgame = fewest < lk.samples[1]
        if not (endgame and lk.endgame[0] == 1):  # a new target: the value at the round's start, from ``snap``
            lk.endgame[0] = 1 if endgame else 0
            value_nb(lk, seats, rules, stream, 2 * turn)
            for i in range(n_players):
                lk.before[i] = lk.after[i]
    over = s == n_players - 1 and city_full_nb(w.player)
    if over or (s == n_players - 1 and lk.endgame[0] == 0):  # the round's end: its position read
        snapshot_round_nb(w.occ, w.player, w.pirates, rules, lk.scratch, lk.position)
        position_values_nb(lk.position, over, lk.coef, rules, lk.features, lk.after)
    else:  # the rest of the round, or of the game, played from here
        copy_state_nb(
            w.city,
            w.occ,
            w.player,
            w.pirates,
            w.ctx,
            w.rng,
            lk.snap.city,
            lk.snap.occ,
            lk.snap.player,
            lk.snap.pirates,
            lk.snap.ctx,
            lk.snap.rng,
        )
        lk.snap.meta[0] = w.ctx[L.CTX_ROUND] + (s + 1) // n_players
        lk.snap.meta[1] = (s + 1) % n_players
        value_nb(lk, seats, rules, stream, 2 * turn + 1)
    g = lk.game[0]
    for i in range(n_players):
        luck = lk.after[i] - lk.before[i]
        lk.before[i] = lk.after[i]
        lk.out[g, i, 0] += luck
        if i == s:
            lk.out[g, i, 1] += luck
            lk.out[g, i, 2] += 1.0


@loop_njit(forceinline=True)
def luck_game_nb(lk, g):
    """The luck ``lk`` writes game ``g``'s row next."""
    lk.game[0] = g
    lk.endgame[0] = 0


@loop_njit
def borrow_luck_nb(lk):
    """The luck's buffers borrowed (``memory.borrow_nb``)."""
    return Luck(
        borrow_nb(lk.coef),
        borrow_nb(lk.samples),
        borrow_snap_nb(lk.snap),
        borrow_other_work_nb(lk.cw),
        borrow_nb(lk.position),
        borrow_nb(lk.scratch),
        borrow_nb(lk.features),
        borrow_nb(lk.probs),
        borrow_nb(lk.before),
        borrow_nb(lk.after),
        borrow_nb(lk.endgame),
        borrow_nb(lk.out),
        borrow_nb(lk.game),
    )


@loop_njit
def borrow_rounds_nb(rec):
    """The round snapshots with their buffers borrowed (``memory.borrow_nb``)."""
    return Rounds(borrow_nb(rec.out), borrow_nb(rec.game), borrow_nb(rec.scratch))


@loop_njit
def borrow_oracle_nb(o):
    """The keep oracle with its buffers borrowed (``memory.borrow_nb``)."""
    return Oracle(borrow_nb(o.params), borrow_nb(o.memo), borrow_nb(o.out), borrow_nb(o.game))


# -- the probe's hooks ------------------------------------------------------------------------------
# Each probe kind's functions, by event: "game" (probe, g): game g of the call's games begins (its
# row of the probe's output); "round" (probe, w, rnd, rules): round rnd begins; "turn_begin"
# (probe, w, rnd, s) and "turn_end" (probe, w, seats, rules, s): seat s's turn; "keep" (probe, w,
# s, rules, mask): seat s rolls ``mask`` again; "game_end" (probe, w, rounds, rules): the game is
# scored; "borrow" (probe): the probe with its buffers borrowed (``memory.borrow_nb``).
PROBE_HOOKS: dict[type, dict[str, object]] = {}


def probe_kind(kind: type, **hooks) -> None:
    """Register ``kind`` (a namedtuple of buffers) as a probe watching the events named in
    ``hooks`` (each a jitted function of the event's arguments); it must borrow its buffers."""
    assert "borrow" in hooks and set(hooks) <= {"game", "round", "turn_begin", "turn_end", "keep", "game_end", "borrow"}
    PROBE_HOOKS[kind] = hooks


probe_kind(Oracle, game=oracle_game_nb, keep=oracle_keep_nb, borrow=borrow_oracle_nb)
probe_kind(Rounds, game=rounds_game_nb, round=rounds_round_nb, game_end=rounds_round_nb, borrow=borrow_rounds_nb)
probe_kind(Luck, game=luck_game_nb, turn_begin=luck_turn_begin_nb, turn_end=judge_turn_nb, borrow=borrow_luck_nb)


def _hook(probe, event: str):
    """The function ``probe``'s kind registered for ``event`` (a numba type: None, nothing)."""
    if isinstance(probe, types.BaseNamedTuple):
        return PROBE_HOOKS[probe.instance_class].get(event)
    return None


def on_game_nb(probe, g):
    raise NotImplementedError("compiled code only")


def on_round_nb(probe, w, rnd, rules):
    raise NotImplementedError("compiled code only")


def on_turn_begin_nb(probe, w, rnd, s):
    raise NotImplementedError("compiled code only")


def on_keep_nb(probe, w, s, rules, mask):
    raise NotImplementedError("compiled code only")


def on_turn_end_nb(probe, w, seats, rules, s):
    raise NotImplementedError("compiled code only")


def on_game_end_nb(probe, w, rounds, rules):
    raise NotImplementedError("compiled code only")


def borrow_probe_nb(probe):
    raise NotImplementedError("compiled code only")


# Resolved by type, inlined: each is typed where it is called, no dispatcher of its own (the turn
# played again for the luck runs the loop's twin, which holds these calls too, and a dispatcher
# that the compile of its own other signature reaches is left unlinked by numba: "unresolved
# symbol"). A hook a kind does not register, or a None probe, compiles to nothing.
@overload(on_game_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _on_game(probe, g):
    fn = _hook(probe, "game")
    return (lambda probe, g: None) if fn is None else (lambda probe, g: fn(probe, g))


@overload(on_round_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _on_round(probe, w, rnd, rules):
    fn = _hook(probe, "round")
    return (
        (lambda probe, w, rnd, rules: None) if fn is None else (lambda probe, w, rnd, rules: fn(probe, w, rnd, rules))
    )


@overload(on_turn_begin_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _on_turn_begin(probe, w, rnd, s):
    fn = _hook(probe, "turn_begin")
    return (lambda probe, w, rnd, s: None) if fn is None else (lambda probe, w, rnd, s: fn(probe, w, rnd, s))


@overload(on_keep_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _on_keep(probe, w, s, rules, mask):
    fn = _hook(probe, "keep")
    if fn is None:
        return lambda probe, w, s, rules, mask: None
    return lambda probe, w, s, rules, mask: fn(probe, w, s, rules, mask)


@overload(on_turn_end_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _on_turn_end(probe, w, seats, rules, s):
    fn = _hook(probe, "turn_end")
    if fn is None:
        return lambda probe, w, seats, rules, s: None
    return lambda probe, w, seats, rules, s: fn(probe, w, seats, rules, s)


@overload(on_game_end_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _on_game_end(probe, w, rounds, rules):
    fn = _hook(probe, "game_end")
    if fn is None:
        return lambda probe, w, rounds, rules: None
    return lambda probe, w, rounds, rules: fn(probe, w, rounds, rules)


# By type, not by an ``is None`` test, so that one function does not return two types
@overload(borrow_probe_nb, inline="always", jit_options=OVERLOAD_OPTIONS)
def _borrow_probe(probe):
    fn = _hook(probe, "borrow")
    return (lambda probe: None) if fn is None else (lambda probe: fn(probe))


@hot_njit(inline="always")
def dice_key_nb(w):
    """The key of the next roll: the game's while a continuation replays its forced rows (those
    dice were seen), the continuation's own after them (the real game's future stays unseen)."""
    return w.keys[0] if w.tape_n[2] < w.tape_n[1] else w.keys[1]


def play_rounds_nb(w, seats, rules, first_round, first_seat, search, turns):
    """Play on from the turn of ``first_seat`` in ``first_round`` (docs/rules.md §4): rounds are played
    in full; the game ends after the round in which some city became full, or is marked aborted
    at rules[R_MAX_ROUNDS] rounds. Returns (rounds played, some city full). ``search``: the search
    scratch, or None. ``turns``: REST_OF_ROUND to play the round's turns from the first seat's alone
    (the luck of the dice, ``play_on_nb``), TO_THE_END to play on to the game's end.

    The turn is written out in the loop, not inlined from a function of its own: numba's inlining
    copies the callee's IR once per block with all its variables, and for the turn, the engine's
    largest piece of code, that copy alone took some 13 s of the first compile."""
    n_players = w.player.shape[0]
    rounds = first_round
    full = False
    # the rest of a round: the loop's bound holds it, not a count and an exit inside the turn (an exit cost
    # the random policy's games some 3% on one thread)
    last_round = first_round + 1 if turns == REST_OF_ROUND else rules[R.R_MAX_ROUNDS]
    for rnd in range(first_round, last_round):
        if rnd != first_round or first_seat == 0:
            on_round_nb(w.probe, w, rnd, rules)
        for s in range(first_seat if rnd == first_round else 0, n_players):
            # seat s's turn (docs/rules.md §3): roll with keeps, use one symbol, mark the swords
            if seats.kind[s] == L.POLICY_KIND_ROLLOUT or (w.cap.at[0] >= 0 and w.cap.at[1] == 0):
                snapshot_nb(w, rnd, s)
            on_turn_begin_nb(w.probe, w, rnd, s)
            w.tape_n[0] = 0
            E.record_nb(w.trace, w.trace_n, E.EV_TURN, rnd, s, w.ctx[L.CTX_INDEX], 0, 0, 0, 0)
            w.ctx[L.CTX_ROUND] = rnd
            w.ctx[L.CTX_TURN] += 1
            dice = w.dice
            key = dice_key_nb(w)
            for d in range(L.N_DICE):
                dice[d] = roll_die_nb(key, rnd, s, 0, d)
            E.record_nb(w.trace, w.trace_n, E.EV_ROLL, dice[0], dice[1], dice[2], dice[3], dice[4], 0, 0)
            for roll in range(1, L.N_ROLLS):
                n = list_keeps_nb(w.cands)
                w.ctx[L.CTX_ROLL] = roll
                mask = w.cands[ask_nb(np.int64(L.DECISION_KEEP), n, s, w, seats, rules, search), 0]
                on_keep_nb(w.probe, w, s, rules, mask)
                if mask == 0:
                    break
                key = dice_key_nb(w)
                for d in range(L.N_DICE):
                    if (mask >> d) & 1:
                        dice[d] = roll_die_nb(key, rnd, s, roll, d)
                E.record_nb(w.trace, w.trace_n, E.EV_REROLL, mask, 0, 0, 0, 0, 0, 0)
                E.record_nb(w.trace, w.trace_n, E.EV_ROLL, dice[0], dice[1], dice[2], dice[3], dice[4], 0, 0)

            n = list_uses_nb(dice, w.counts, w.player[s, L.COINS], w.occ, s, rules, w.cands)
            n = forgo_nb(
                seats.marks.forgo, seats.base_kind[s], seats.base_params[s], np.int64(L.DECISION_USE), w.cands, n
            )
            row = ask_nb(np.int64(L.DECISION_USE), n, s, w, seats, rules, search)
            symbol = w.cands[row, L.C_SYMBOL]
            k = w.cands[row, L.C_K]
            rotated = w.cands[row, L.C_ROTATED]
            person = w.cands[row, L.C_PERSON]
            rotation_cost, delivery_cost = pay_for_use_nb(w.player, s, symbol, k, rotated, rules)
            E.record_nb(w.trace, w.trace_n, E.EV_USE, symbol, k, rotated, person, rotation_cost, delivery_cost, 0)
            w.ctx[L.CTX_SYMBOL] = symbol
            w.ctx[L.CTX_K] = k
            if symbol == L.FACE_HEAD:
                person_nb(person, E.PLACED_ACTION, s, w, seats, rules, search)
            elif symbol == L.FACE_CRATE or symbol == L.FACE_WALL or symbol == L.FACE_CROSS:
                # k crates, k walls or one church of size k, from one call site: each is inlined code
                what = (
                    L.CELL_CRATE
                    if symbol == L.FACE_CRATE
                    else (L.CELL_WALL if symbol == L.FACE_WALL else L.CELL_CHURCH_1 + k - 1)
                )
                place_cells_nb(
                    what,
                    ONE if symbol == L.FACE_CROSS else k,
                    np.int64(E.PLACED_ACTION),
                    NO_ANCHOR,
                    s,
                    w,
                    seats,
                    rules,
                    search,
                )
                if symbol == L.FACE_WALL:
                    new_sides = newly_complete_sides_nb(w.occ, w.player, s)
                    if new_sides != 0:
                        take_wall_bonuses_nb(new_sides, s, w, seats, rules, search)

            n_swords = w.counts[L.FACE_SWORDS]
            E.record_nb(w.trace, w.trace_n, E.EV_SWORDS, n_swords, 0, 0, 0, 0, 0, 0)
            mark_swords_nb(n_swords, rnd, w.pirates, w.player, rules, w.trace, w.trace_n)
            E.record_after_nb(w.trace, w.trace_n, w.player, rules)
            on_turn_end_nb(w.probe, w, seats, rules, s)
        rounds = rnd + 1
        full = city_full_nb(w.player)
        if full:
            break
    return rounds, full


def _twin(fn, name):
    """A copy of ``fn`` under its own name, to be compiled by a dispatcher of its own (numba's
    cache files are named after the function: a name apiece keeps them apart)."""
    twin = pytypes.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    twin.__qualname__ = name
    twin.__doc__ = fn.__doc__
    return twin


# The loop of the games a run plays, and the same loop for continuations, compiled apart (always
# with search None, see ``search_nb``): two dispatchers of one source. The loop is the engine's
# largest function; compiled here, not inlined into a wrapper, numba builds its IR once.
continue_rounds_nb = loop_njit(_twin(play_rounds_nb, "continue_rounds_nb"))
play_rounds_nb = loop_njit(play_rounds_nb)


# Inlined: numba links a callee's code into its caller and optimises and emits it again there,
# so each wrapper level around the loop cost seconds of first compile.
@hot_njit(inline="always")
def play_game_nb(game_key, w, seats, rules, start_crates, score, game_out, search):
    """Play one game from its key to the final score (docs/rules.md §4)."""
    start_game_nb(w.city, w.occ, w.player, w.pirates, start_crates, rules)
    w.status[0] = 0
    w.status[1] = -1
    w.ctx[L.CTX_TURN] = 0
    w.ctx[L.CTX_INDEX] = 0
    w.keys[0] = game_key
    w.keys[1] = game_key
    w.tape_n[0] = 0
    w.tape_n[1] = 0
    w.tape_n[2] = 0
    new_game_memo_nb(w.memo)  # policies' per-turn memo is keyed on CTX_TURN, which restarts each game
    seed_policy_streams_nb(game_key, w.rng)
    rounds, full = play_rounds_nb(w, seats, rules, 0, 0, search, TO_THE_END)
    finish_game_nb(w.occ, w.player, w.pirates, w.status, rounds, full, rules, score, game_out)
    on_game_end_nb(w.probe, w, rounds, rules)
    E.record_nb(w.trace, w.trace_n, E.EV_END, rounds, game_out[L.G_ABORTED], w.ctx[L.CTX_INDEX], 0, 0, 0, 0)


@hot_njit(inline="always")
def playout_key_nb(game_key, decision, playout):
    """The dice key of continuation ``playout`` from decision number ``decision`` of a game:
    keyed by (seed, game, decision, playout), apart from the game's own dice."""
    return game_key_nb(game_key ^ PLAYOUT_STREAM, decision * MAX_PLAYOUTS + playout)


@hot_njit
def continue_game_nb(snap, tape, n_tape, row, game_key, playout_key, cw, seats, rules, score, game_out):
    """Play a copy of a game on to its end from one of its decisions, with ``row`` picked there.

    ``snap`` is the state at the start of the decision's turn, ``tape[:n_tape]`` the rows picked
    before it in that turn: the turn is replayed on ``cw`` with those rows and ``row`` forced,
    the dice seen so far from ``game_key``, every later die from ``playout_key``; ``seats`` decide
    the rest, their policy streams taken up where the turn began. With the game's own pick and
    ``playout_key == game_key`` it plays the game itself again. The final score goes to
    ``score`` and ``game_out``."""
    for i in range(n_tape):
        cw.forced[i] = tape[i]
    cw.forced[n_tape] = row
    restart_nb(snap, cw, n_tape + 1, game_key, playout_key)
    rounds, full = continue_rounds_nb(cw, seats, rules, snap.meta[0], snap.meta[1], None, TO_THE_END)
    finish_game_nb(cw.occ, cw.player, cw.pirates, cw.status, rounds, full, rules, score, game_out)


@cached_njit
def play_one_nb(seed_key, game, rules, start_crates, kind, params, fns, w, marks):
    """Play game ``game`` alone on ``w`` (``new_work`` with a trace); returns (score, game_out,
    rows traced); the final cities and counters are left in ``w``. ``marks``:
    ``registry.line_up_marks`` of the line-up."""
    n_players = kind.shape[0]
    score = np.zeros((n_players, L.N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    seats = Seats(kind, params, fns, kind, params, kind, params, marks)
    play_game_nb(game_key_nb(seed_key, game), w, seats, rules, start_crates, score, game_out, None)
    return score, game_out, w.trace_n[0]


@loop_njit
def borrow_work_nb(w):
    """``w`` with every buffer borrowed (``memory.borrow_nb``): the caller keeps ``w`` alive."""
    return Work(
        borrow_nb(w.city),
        borrow_nb(w.occ),
        borrow_nb(w.player),
        borrow_nb(w.pirates),
        borrow_nb(w.dice),
        borrow_nb(w.counts),
        borrow_nb(w.cands),
        borrow_nb(w.ctx),
        borrow_nb(w.rng),
        borrow_nb(w.values),
        borrow_nb(w.memo),
        borrow_nb(w.status),
        borrow_nb(w.trace),
        borrow_nb(w.trace_n),
        borrow_nb(w.keys),
        borrow_nb(w.tape),
        borrow_nb(w.forced),
        borrow_nb(w.tape_n),
        borrow_snap_nb(w.snap),
        Capture(
            borrow_nb(w.cap.at),
            borrow_nb(w.cap.cands),
            borrow_nb(w.cap.ctx),
            borrow_nb(w.cap.tape),
            borrow_snap_nb(w.cap.snap),
            borrow_nb(w.cap.dice),
            borrow_nb(w.cap.values),
            borrow_snap_nb(w.cap.now),
        ),
        borrow_probe_nb(w.probe),
    )


# The luck's plays' work, inside the luck inside a Work, borrowed by a dispatcher of its own: numba
# refuses a function that calls itself, even with other argument types.
borrow_other_work_nb = loop_njit(_twin(borrow_work_nb.py_func, "borrow_other_work_nb"))


@loop_njit
def borrow_snap_nb(snap):
    return Snap(
        borrow_nb(snap.city),
        borrow_nb(snap.occ),
        borrow_nb(snap.player),
        borrow_nb(snap.pirates),
        borrow_nb(snap.ctx),
        borrow_nb(snap.rng),
        borrow_nb(snap.meta),
    )


@hot_njit
def play_games_nb(
    seed_key,
    first,
    w,
    rules,
    start_crates,
    kind,
    params,
    fns,
    base_kind,
    base_params,
    playout_kind,
    playout_params,
    marks,
    score_out,
    player_out,
    game_out,
    search,
):
    """Play games first .. first + G - 1 (G = game_out.shape[0]) on the calling thread, releasing
    the GIL so that ``runner`` can run several such ranges at once on its threads.

    ``marks`` are the line-up's ``registry.line_up_marks`` (the loop of a line-up without a learned
    seat, or without exact keeps, holds none of their code). ``w`` holds the work buffers
    (``new_work``), ``search`` the search scratch (``search.new_search``) where a seat searches,
    else None: the caller allocates them, once per call, and owns them and every other argument for
    the whole call, so the borrowed views the games run on (``smsim/engine/memory.py``) cannot
    outlive them. Called from Python, not from an allocating jitted wrapper: such a wrapper links,
    optimises and emits the whole loop again (about 1.5 s of the first compile).

    Outputs: score_out int64[G, P, N_SCORE_FIELDS], player_out int64[G, P, N_PLAYER_FIELDS],
    game_out int64[G, N_GAME_FIELDS].
    """
    w = borrow_work_nb(w)
    seats = Seats(
        borrow_nb(kind),
        borrow_nb(params),
        fns,
        borrow_nb(base_kind),
        borrow_nb(base_params),
        borrow_nb(playout_kind),
        borrow_nb(playout_params),
        marks,
    )
    rules = borrow_nb(rules)
    start_crates = borrow_nb(start_crates)
    score_out = borrow_nb(score_out)
    player_out = borrow_nb(player_out)
    game_out = borrow_nb(game_out)
    for g in range(game_out.shape[0]):
        on_game_nb(w.probe, g)
        play_game_nb(game_key_nb(seed_key, first + g), w, seats, rules, start_crates, score_out[g], game_out[g], search)
        for s in range(w.player.shape[0]):  # element by element: a slice copy would allocate
            for f in range(w.player.shape[1]):
                player_out[g, s, f] = w.player[s, f]
