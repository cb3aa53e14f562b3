"""Search from any decision: the ``rollout`` policy and the candidate evaluation behind
``smsim advise``.

A continuation copies a game at one of its decisions (the state at the start of the decision's
turn, and the rows picked before it in that turn), forces one candidate there and plays the copy
to the end with every seat's base policy (``play.continue_game_nb``). Its dice after the forced
rows come from a stream keyed by (seed, game, decision number, playout), never from the real
game's: a search cannot see the future, and its games stay deterministic from the seed whatever
the threads or batches. Continuation k of every candidate uses the same stream (common random
numbers), so candidates are compared on the same dice, and a difference between two candidates
is judged on the paired differences of their continuations.

``race_nb`` spends a decision's continuations (Karnin, Koren and Somekh 2013, sequential
halving): every candidate first gets ``min_playouts``; candidates whose continuations have given
identical results on every one of those (every seat's score, counters and final city alike:
five walls of one side that the game goes on to complete, say) are the same move here and share
one candidate's continuations from then on; the rest of the budget goes in equal rounds to the
candidates still in, the worse half dropped after each round; and the search stops as soon as
the leader's mean paired advantage over the runner-up exceeds ``stop_se`` of its standard
errors. Played apart, candidates grouped this way end identically on 99.6% of later
continuations (tests/play/test_search.py): the same move as far as the continuations can tell.

``rollout`` searches KEEP, USE and PLACE decisions, each by its own switch (its knobs:
``policies/rollout.py``); every other decision of its seat is its base policy's.
"""

from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from smsim import layout as L
from smsim.engine.dice import game_key_nb, mix64_nb
from smsim.engine.memory import OVERLOAD_OPTIONS, cached_njit, hot_njit, loop_njit
from smsim.play.loop import (
    Seats,
    choose_nb,
    continue_game_nb,
    new_work,
    play_game_nb,
    playout_key_nb,
    search_nb,
)
from smsim.policies import rollout as RO

# Per-thread scratch of the search: the continuation's Work, its score and outcome, the candidate
# rows; per (candidate, continuation) the seat's win share, VP margin over the best other seat,
# final VP and a hash of how it ended (``end_state_hash_nb``); per candidate its continuations played
# (``played``), the candidate whose continuations stand for it (``same``: itself, or the first of
# its group), whether it is still in (``alive``), its mean value at a halving (``mean``); ``spent``
# int64[2] counts continuations played and decisions searched (for scripts and reports: it never
# changes a pick).
Search = namedtuple(
    "Search",
    ["cw", "score", "game_out", "rows", "win", "margin_vp", "vp", "fp", "played", "same", "alive", "mean", "spent"],
)


# continuations and searches played in this process by ``runs`` (each run adds its scratch's
# ``spent``): what scripts/bench.py reports per game; never read by a search
SEARCH_TOTALS = np.zeros(2, dtype=np.int64)


def new_search(n_players: int, room: int = 1, cands: int = L.MAX_CANDS) -> Search:
    """Fresh search scratch for one thread (allocated in Python, as ``play.new_work``), with room
    for ``room`` continuations (``search_room``) of ``cands`` candidates."""
    room = max(int(room), 1)
    return Search(
        new_work(n_players),
        np.zeros((n_players, L.N_SCORE_FIELDS), dtype=np.int64),
        np.zeros(L.N_GAME_FIELDS, dtype=np.int64),
        np.zeros(L.MAX_CANDS, dtype=np.int64),
        np.zeros((cands, room), dtype=np.float64),
        np.zeros((cands, room), dtype=np.float64),
        np.zeros((cands, room), dtype=np.float64),
        np.zeros((cands, room), dtype=np.uint64),
        np.zeros(L.MAX_CANDS, dtype=np.int64),
        np.zeros(L.MAX_CANDS, dtype=np.int64),
        np.zeros(L.MAX_CANDS, dtype=np.int64),
        np.zeros(L.MAX_CANDS, dtype=np.float64),
        np.zeros(2, dtype=np.int64),
    )


def search_room(kind: np.ndarray, params: np.ndarray) -> int:
    """The continuations per candidate a line-up's search scratch must hold: its largest budget
    (no candidate gets more) or floor."""
    room = 1
    for k, p in zip(kind, params):
        if k == L.POLICY_KIND_ROLLOUT:
            room = max(room, int(p[RO.RO_BUDGET]), int(p[RO.RO_PLACE_BUDGET]), int(p[RO.RO_MIN_PLAYOUTS]))
    return room


@hot_njit(inline="always")
def outcome_nb(score, game_out, s, margin):
    """Seat s's result of a continuation: its win share (a shared win split) plus ``margin``
    times its VP margin over the best other seat."""
    best_other = -(1 << 30)
    for o in range(score.shape[0]):
        if o != s and score[o, L.S_TOTAL] > best_other:
            best_other = score[o, L.S_TOTAL]
    share = score[s, L.S_WON] / max(game_out[L.G_WINNERS], 1)
    return share + margin * (score[s, L.S_TOTAL] - best_other)


@hot_njit(inline="always")
def add_row_nb(rows, m, row):
    for i in range(m):
        if rows[i] == row:
            return m
    rows[m] = row
    return m + 1


@hot_njit(inline="always")
def value_nb(search, c, k, margin):
    return search.win[c, k] + margin * search.margin_vp[c, k]


@hot_njit
def mean_nb(search, c, t, margin):
    total = 0.0
    for k in range(t):
        total += value_nb(search, c, k, margin)
    return total / max(t, 1)


@hot_njit
def paired_z_nb(search, a, b, t, margin):
    """Candidate a's mean paired advantage over b on continuations 0..t-1, in standard errors
    (infinite when every difference is the same positive number)."""
    if t < 2:
        return 0.0
    total = 0.0
    for k in range(t):
        total += value_nb(search, a, k, margin) - value_nb(search, b, k, margin)
    mean = total / t
    ss = 0.0
    for k in range(t):
        d = value_nb(search, a, k, margin) - value_nb(search, b, k, margin) - mean
        ss += d * d
    se = np.sqrt(ss / (t - 1) / t)
    if se <= 1e-12:
        return np.inf if mean > 1e-12 else 0.0
    return mean / se


@hot_njit
def top_two_nb(search, m, t, margin):
    """The best and second-best candidates still in by mean value on t continuations (ties: the
    earlier candidate, the base policy's pick first)."""
    first, second = -1, -1
    v1, v2 = -np.inf, -np.inf
    for c in range(m):
        if search.alive[c] == 0:
            continue
        v = mean_nb(search, c, t, margin)
        if first < 0 or v > v1 + 1e-12:
            first, second, v2 = c, first, v1
            v1 = v
        elif second < 0 or v > v2 + 1e-12:
            second, v2 = c, v
    return first, second


@loop_njit
def end_state_hash_nb(cw, score, game_out):
    """A hash of how a continuation ended: every seat's score, counters and city, and the game's
    length. Two candidates with equal hashes on every continuation played them to the same end."""
    h = mix64_nb(np.uint64(game_out[L.G_ROUNDS] + 1))
    for p in range(score.shape[0]):
        for f in range(score.shape[1]):
            h = mix64_nb(h ^ np.uint64(score[p, f] & 0xFFFFFFFF))
        for f in range(cw.player.shape[1]):
            h = mix64_nb(h ^ np.uint64(cw.player[p, f] & 0xFFFFFFFF))
        for cell in range(L.N_CELLS):
            h = mix64_nb(h ^ np.uint64(cw.city[p, cell] + 256 * cell))
    return h


@loop_njit
def play_out_nb(snap, tape, n_tape, game_key, index, first_playout, s, c, k0, k1, base, rules, search):
    """Continuations k0..k1-1 of candidate c (dice streams first_playout + k), into its results."""
    rows = search.rows
    score = search.score
    game_out = search.game_out
    for k in range(k0, k1):
        key = playout_key_nb(game_key, index, first_playout + k)
        continue_game_nb(snap, tape, n_tape, rows[c], game_key, key, search.cw, base, rules, score, game_out)
        win = outcome_nb(score, game_out, s, 0.0)
        search.win[c, k] = win
        search.margin_vp[c, k] = outcome_nb(score, game_out, s, 1.0) - win
        search.vp[c, k] = score[s, L.S_TOTAL]
        search.fp[c, k] = end_state_hash_nb(search.cw, score, game_out)
    search.played[c] = k1
    search.spent[0] += k1 - k0


@hot_njit
def paired_over_nb(search, a, b, margin):
    """``paired_z_nb`` of candidates a and b over the continuations both have."""
    return paired_z_nb(search, a, b, min(search.played[a], search.played[b]), margin)


@loop_njit
def race_nb(
    snap,
    tape,
    n_tape,
    game_key,
    index,
    first_playout,
    s,
    m,
    base,
    rules,
    search,
    budget,
    flat_each,
    floor,
    stop,
    group,
    margin,
    top_playouts,
    halving,
    drop,
    switch,
):
    """Spend continuations on candidates ``search.rows[:m]`` of seat s's decision number
    ``index`` (see the module docstring) and return the index of the chosen one in the rows
    (row 0: the base policy's pick).

    ``budget`` continuations in all: by sequential halving (``halving``), else by racing alone;
    ``flat_each`` > 0 instead plays that many for every candidate; ``top_playouts`` > 0 (``smsim
    advise``, budget 0) instead sets the halving rounds so that the last two candidates reach that
    many. ``floor`` continuations every candidate gets first; ``group``: identical candidates
    share continuations. The round is played in blocks of ``floor``; after each, ``stop`` > 0:
    the search stops when the leader beats the runner-up by that many paired standard errors;
    ``drop`` > 0: a candidate the leader beats by that many is dropped. ``switch`` > 0: the
    leader is picked over row 0 only when it beats it by that many paired standard errors.
    Afterwards ``search.played[c]`` is the continuations behind candidate c's results and
    ``search.same[c]`` the candidate whose results they are."""
    room = search.win.shape[1]
    floor = max(1, min(floor, room))
    for c in range(m):
        search.same[c] = c
        search.alive[c] = 1
        search.played[c] = 0
    search.spent[1] += 1
    for c in range(m):
        play_out_nb(snap, tape, n_tape, game_key, index, first_playout, s, c, 0, floor, base, rules, search)
    spent = m * floor
    n_alive = m
    if group:  # the same results on every continuation so far: the same move here
        for c in range(1, m):
            for d in range(c):
                if search.same[d] != d:
                    continue
                identical = True
                for k in range(floor):
                    if search.fp[c, k] != search.fp[d, k]:
                        identical = False
                        break
                if identical:
                    search.same[c] = d
                    search.alive[c] = 0
                    n_alive -= 1
                    break
    t = floor
    rounds_left = 1
    if halving and flat_each == 0:
        rounds_left = 0
        while (1 << rounds_left) < n_alive:
            rounds_left += 1
    while n_alive > 1 and rounds_left > 0:
        if flat_each > 0:
            target = flat_each
        elif top_playouts > 0:
            target = top_playouts >> (rounds_left - 1)
        else:
            target = t + (budget - spent) // (n_alive * rounds_left)
        target = min(max(target, t), room)
        # the round in blocks of ``floor``, each followed by the stopping and dropping tests
        stopped = False
        while n_alive > 1:
            if stop > 0.0 or drop > 0.0:
                a, b = top_two_nb(search, m, t, margin)
                if stop > 0.0 and paired_z_nb(search, a, b, t, margin) > stop:
                    stopped = True
                    break
                if drop > 0.0:
                    for c in range(m):
                        if c != a and search.alive[c] == 1 and paired_z_nb(search, a, c, t, margin) > drop:
                            search.alive[c] = 0
                            n_alive -= 1
                    if n_alive == 1:
                        break
                    if not halving and flat_each == 0 and top_playouts == 0:  # racing: the rest to those still in
                        target = min(max(t + (budget - spent) // n_alive, t), room)
            if t >= target:
                break
            step = min(floor, target - t)
            for c in range(m):
                if search.alive[c] == 1:
                    play_out_nb(
                        snap, tape, n_tape, game_key, index, first_playout, s, c, t, t + step, base, rules, search
                    )
            spent += n_alive * step
            t += step
        if stopped or n_alive <= 1 or not halving or flat_each > 0:
            break
        # the worse half out: a candidate stays if fewer than half the field beat it
        keep = (n_alive + 1) // 2
        for c in range(m):
            if search.alive[c] == 1:
                search.mean[c] = mean_nb(search, c, t, margin)
        for c in range(m):
            if search.alive[c] == 1:
                better = 0
                for d in range(m):
                    if d != c and search.alive[d] >= 1:
                        u, v = search.mean[d], search.mean[c]
                        if u > v + 1e-12 or (u > v - 1e-12 and d < c):
                            better += 1
                if better >= keep:
                    search.alive[c] = 2  # out after this round (2, not 0: the field stays whole while ranked)
        for c in range(m):
            if search.alive[c] == 2:
                search.alive[c] = 0
        n_alive = keep
        rounds_left -= 1
    best, _ = top_two_nb(search, m, t, margin)
    for c in range(m):  # an alias's results are its group's
        search.played[c] = search.played[search.same[c]]
    base_pick = search.same[0]
    if switch > 0.0 and best != base_pick and paired_over_nb(search, best, base_pick, margin) <= switch:
        return 0  # not shown better than the base policy's pick: keep it
    return best


@hot_njit
def candidate_rows_nb(decision, n, base_row, values, dice, wanted, by_value, gap, rows):
    """The candidates a search weighs, into ``rows``; returns how many. The base policy's pick
    first; KEEP: stop, and roll again every die not showing one symbol, for each symbol; USE and
    PLACE: the base policy's ``wanted`` best by its ``values``, none valued more than ``gap``
    below its pick (``gap`` > 0; a policy without values: the first rows)."""
    m = add_row_nb(rows, 0, base_row)
    if decision == L.DECISION_KEEP:
        m = add_row_nb(rows, m, 0)  # stop rolling
        for symbol in range(L.N_SYMBOLS):
            mask = 0
            for d in range(L.N_DICE):
                if dice[d] != symbol:
                    mask |= 1 << d
            m = add_row_nb(rows, m, mask)
        return m
    limit = min(wanted, n)
    while m < limit:
        best = -1
        for i in range(n):
            taken = False
            for j in range(m):
                if rows[j] == i:
                    taken = True
            if not taken and (best < 0 or (by_value and values[i] > values[best])):
                best = i
        if by_value and gap > 0.0 and values[best] < values[base_row] - gap:
            break  # the base policy is sure enough of the rest
        m = add_row_nb(rows, m, best)
    return m


@hot_njit(inline="always")
def ordered_by_values_nb(base_kind):
    """Whether a base policy leaves values of the candidates to order them by (a heuristic's
    values, a learned model's scores)."""
    return base_kind == L.POLICY_KIND_HEURISTIC or base_kind == L.POLICY_KIND_LEARNED


@hot_njit(inline="always")
def clear_lead_nb(values, n, base_row):
    """How far the base policy values its pick above its best other candidate."""
    second = -np.inf
    for i in range(n):
        if i != base_row and values[i] > second:
            second = values[i]
    return values[base_row] - second


@hot_njit(inline="always")
def searched_nb(params, decision):
    """Whether a rollout seat with knobs ``params`` searches this kind of decision, how many
    candidates (USE, PLACE), its budget and the value gap that leaves candidates out (PLACE)."""
    if decision == L.DECISION_KEEP:
        return params[RO.RO_SEARCH_KEEP] > 0.0, L.MAX_CANDS, int(params[RO.RO_BUDGET]), 0.0
    if decision == L.DECISION_USE:
        return params[RO.RO_SEARCH_USE] > 0.0, int(params[RO.RO_CANDIDATES]), int(params[RO.RO_BUDGET]), 0.0
    if decision == L.DECISION_PLACE:
        return (
            params[RO.RO_SEARCH_PLACE] > 0.0,
            int(params[RO.RO_PLACE_CANDIDATES]),
            int(params[RO.RO_PLACE_BUDGET]),
            params[RO.RO_PLACE_GAP],
        )
    return False, 0, 0, 0.0


@loop_njit
def search_decision_nb(
    params,
    decision,
    n,
    base_row,
    values,
    dice,
    by_value,
    snap,
    tape,
    n_tape,
    game_key,
    index,
    first_playout,
    s,
    base,
    rules,
    search,
):
    """A rollout seat's search with knobs ``params`` at one decision (its state as ``snap`` and
    the turn's ``tape``, the base policy's pick ``base_row`` and ``values``): its candidates into
    ``search.rows``; returns (candidates, index of the pick in the rows), or (m, -1) where it
    does not search."""
    searched, wanted, budget, gap = searched_nb(params, decision)
    if n <= 1 or not searched or base_row < 0 or base_row >= n:
        return 0, -1
    clear = params[RO.RO_CLEAR_GAP]
    if clear > 0.0 and by_value and decision != L.DECISION_KEEP and clear_lead_nb(values, n, base_row) >= clear:
        return 0, -1  # the base is sure of its pick: the playouts go where it is not
    m = candidate_rows_nb(decision, n, base_row, values, dice, wanted, by_value, gap, search.rows)
    if m <= 1:
        return m, -1
    flat_each = 0
    if params[RO.RO_HALVING] <= 0.0 and params[RO.RO_DROP_SE] <= 0.0:
        flat_each = max(budget // int(params[RO.RO_CANDIDATES]), 1)
    c = race_nb(
        snap,
        tape,
        n_tape,
        game_key,
        index,
        first_playout,
        s,
        m,
        base,
        rules,
        search,
        budget,
        flat_each,
        int(params[RO.RO_MIN_PLAYOUTS]),
        params[RO.RO_STOP_SE],
        params[RO.RO_GROUP] > 0.0,
        params[RO.RO_MARGIN],
        0,
        params[RO.RO_HALVING] > 0.0,
        params[RO.RO_DROP_SE],
        params[RO.RO_SWITCH_SE],
    )
    return m, c


@loop_njit
def rollout_nb(seats, s, w, rules, search):
    """``rollout``'s pick at a KEEP, USE or PLACE decision of seat s (see the module docstring)."""
    base_row = choose_nb(seats, s, w, rules)  # the base policy's pick (USE, PLACE: its values in w.values)
    base = Seats(
        seats.playout_kind,
        seats.playout_params,
        seats.fns,
        seats.playout_kind,
        seats.playout_params,
        seats.playout_kind,
        seats.playout_params,
        seats.marks,
    )  # every seat as its playout policy
    _, c = search_decision_nb(
        seats.params[s],
        w.ctx[L.CTX_DECISION],
        w.ctx[L.CTX_N],
        base_row,
        w.values,
        w.dice,
        ordered_by_values_nb(seats.base_kind[s]),
        w.snap,
        w.tape,
        w.tape_n[0],
        w.keys[0],
        w.ctx[L.CTX_INDEX],
        0,
        s,
        base,
        rules,
        search,
    )
    return base_row if c < 0 else search.rows[c]


@overload(search_nb, inline="always", jit_options=OVERLOAD_OPTIONS)  # as play.loop's overloads
def _search_with_scratch(seats, s, w, rules, search):
    if isinstance(search, types.BaseNamedTuple) and search.instance_class is Search:
        return lambda seats, s, w, rules, search: rollout_nb(seats, s, w, rules, search)
    return None


@cached_njit
def play_one_search_nb(
    seed_key,
    game,
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
    w,
    search,
    capture_at,
):
    """One game alone on ``w`` (``play.new_work`` with a trace), any line-up, ``search`` the
    search scratch (``new_search``); the decision numbered ``capture_at`` (-1: none) is captured
    in ``w`` for ``evaluate_nb``. Returns (score, game_out, rows traced). ``marks``: the
    line-up's ``registry.line_up_marks`` (here and in the entries below)."""
    n_players = kind.shape[0]
    w.cap.at[0] = capture_at
    score = np.zeros((n_players, L.N_SCORE_FIELDS), dtype=np.int64)
    game_out = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
    seats = Seats(kind, params, fns, base_kind, base_params, playout_kind, playout_params, marks)
    play_game_nb(game_key_nb(seed_key, game), w, seats, rules, start_crates, score, game_out, search)
    return score, game_out, w.trace_n[0]


@cached_njit
def evaluate_nb(
    w, rules, fns, playout_kind, playout_params, marks, m, first_playout, top_playouts, floor, group, margin, search
):
    """The candidates ``search.rows[:m]`` of the decision captured in ``w`` (``play_one_search_nb``),
    raced as ``race_nb`` does with every seat played by its playout policy, no early stop, the last
    two reaching ``top_playouts`` continuations (dice streams ``first_playout`` onwards), ranked
    by win share plus ``margin`` times VP margin. The results are left in ``search``; returns the
    index of the best."""
    seats = Seats(playout_kind, playout_params, fns, playout_kind, playout_params, playout_kind, playout_params, marks)
    cap = w.cap
    return race_nb(
        cap.snap,
        cap.tape,
        cap.at[2],
        w.keys[0],
        cap.ctx[L.CTX_INDEX],
        first_playout,
        cap.ctx[L.CTX_SEAT],
        m,
        seats,
        rules,
        search,
        0,
        0,
        floor,
        0.0,
        group,
        margin,
        top_playouts,
        True,
        0.0,
        0.0,
    )


@cached_njit
def search_captured_nb(w, rules, fns, base_kind, playout_kind, playout_params, marks, knobs, first_playout, search):
    """What a rollout seat with ``knobs`` (float64[N_PARAMS]) would search at the decision captured
    in ``w``, with the deciding seat's base policy's pick and values as captured (``base_kind``
    saying whether they order the candidates) and continuations played by the playout policies:
    its candidates into ``search.rows``; returns (candidates, index of its pick in the rows), or
    (m, -1) where it would not search (scripts/search_quality.py)."""
    cap = w.cap
    s = cap.ctx[L.CTX_SEAT]
    seats = Seats(playout_kind, playout_params, fns, playout_kind, playout_params, playout_kind, playout_params, marks)
    return search_decision_nb(
        knobs,
        cap.ctx[L.CTX_DECISION],
        cap.ctx[L.CTX_N],
        cap.at[3],
        cap.values,
        cap.dice,
        ordered_by_values_nb(base_kind[s]),
        cap.snap,
        cap.tape,
        cap.at[2],
        w.keys[0],
        cap.ctx[L.CTX_INDEX],
        first_playout,
        s,
        seats,
        rules,
        search,
    )
