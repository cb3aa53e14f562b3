"""smsim's one pool of threads (``on_threads``), and a run's games played on it (``play_chunks``).

Every command that plays games here plays them on it: ``run_games``, a dataset's parts,
``simulate_summary``, compare's rounds, a sweep in memory, and ``smsim learn``'s labels. The work
outside the engine runs on the threads that played the games, in parallel:

- the games are cut into *chunks* (what the caller writes or sums at a time: a Parquet row
  group), and each chunk into *slices*, long at first and short at the end (``slice_plan``);
- every thread takes the next slice, in game order, and plays it into its chunk's arrays (the
  engine releases the GIL);
- the thread that plays a chunk's last slice calls ``finish(i, score, player, game_out)`` for it,
  while the other threads go on playing, and hands what it returns to ``use``, which hears the
  chunks one at a time and in game order (a dataset part's row groups); the thread that plays
  the run's last slice first calls ``played()``, so that the caller can put the cores to other
  work (the local executor starts the next part) while that last chunk is finished;
- the calling thread only waits, calling ``poll()`` every ``POLL_SECONDS`` (progress).

Each game's dice depend only on (seed, game), so the arrays of a chunk do not depend on the
threads or the slices; ``finish`` is called for every chunk exactly once, in any order, ``use``
in chunk order. A chunk's arrays are made when its first slice is taken and dropped after
``finish``: about ``threads + 1`` chunks are in memory. An exception in a thread stops the
others after their current slice and is raised here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from smsim import layout as L
from smsim.engine.dice import seed_key
from smsim.engine.memory import is_cached
from smsim.play.api import check_errors
from smsim.play.loop import new_luck, new_oracle, new_rounds, new_work, play_games_nb
from smsim.play.search import SEARCH_TOTALS, new_search, search_room
from smsim.policies.registry import PolicySpec, any_search, base_arrays, line_up_marks, policy_arrays
from smsim.rules import Rules
from smsim.runs.ahead import compile_ahead
from smsim.runs.executors.task import Stopped  # on_threads stopped from outside (its ``stop`` event)

POLL_SECONDS = 0.1
MIN_SLICE, MAX_SLICE = 32, 2000  # games a thread plays at a time (``slice_plan``)
SEARCH_SLICE = 4  # at most, where a seat searches
# at most, where round snapshots are recorded: a slice's buffer holds every round the rules allow
# (max_rounds + 1 rows a game: some 15 MB for 500 five-player games), of which a game fills 20 to 40
ROUNDS_SLICE = 500


class Probe(Protocol):
    """What a study observes in the games a kernel plays: one of the loop's probe kinds
    (``play.loop``: ``PROBE_HOOKS``) with its buffers for a call's games, and what the call
    returns of them."""

    def buffers(self, players: int, games: int) -> tuple: ...

    def results(self, buffers: Any, first: int, game_out: np.ndarray) -> Any: ...


@dataclass(frozen=True)
class KeepRegret:
    """The keep oracle (``play.loop.Oracle``) under the heuristic weights ``params``: every KEEP
    decision judged; a call returns float64[G, P, len(ORACLE_FIELDS)], each game's keep regret,
    keep decisions and errors per seat."""

    params: np.ndarray

    def buffers(self, players: int, games: int) -> tuple:
        return new_oracle(players, games, self.params)

    def results(self, buffers: Any, first: int, game_out: np.ndarray) -> np.ndarray:
        return buffers.out


@dataclass(frozen=True)
class RoundSnapshots:
    """Every seat's position at the start of every round and at the end (``play.loop.Rounds``), in
    games of at most ``max_rounds`` rounds; a call returns the rows of the rounds played
    (``round_rows``)."""

    max_rounds: int

    def buffers(self, players: int, games: int) -> tuple:
        return new_rounds(players, games, self.max_rounds)

    def results(self, buffers: Any, first: int, game_out: np.ndarray) -> RoundRows:
        return round_rows(buffers.out, game_out, first)


@dataclass(frozen=True)
class DiceLuck:
    """The luck of the dice (``play.loop.Luck``) under the win-probability coefficients ``coef`` of
    the player count, each value the mean of ``samples`` plays, the endgame from ``endgame`` empty
    spaces; a call returns float64[G, P, len(LUCK_FIELDS)], each game's luck per seat."""

    coef: np.ndarray
    samples: int
    endgame: int = 0

    def buffers(self, players: int, games: int) -> tuple:
        return new_luck(players, games, self.coef, self.samples, self.endgame)

    def results(self, buffers: Any, first: int, game_out: np.ndarray) -> np.ndarray:
        return buffers.out


def kernel(players: int, specs: list[PolicySpec], seed: int, rules: Rules, probe: Probe | None = None) -> Callable:
    """``play(first, score, player, game_out)``: games first .. first + len(score) - 1 into the
    given arrays, with the engine (the search policy's loop where a seat searches); it returns
    what ``probe`` observed in them (``Probe.results``: ``KeepRegret``, ``RoundSnapshots``,
    ``DiceLuck``), or None without a probe (a loop that holds no probe's code)."""
    key, rules_nb, crates, *policies = lineup_arrays(specs, seed, rules)
    searching = any_search(specs)
    room = search_room(*policies[:2])  # kind, params

    compiled = threading.Event()

    def play(first: int, score: np.ndarray, player: np.ndarray, game_out: np.ndarray) -> Any:
        # the work buffers (and search scratch) of this call: held here while the games run on views of them
        buffers = probe.buffers(players, len(game_out)) if probe is not None else None
        work = new_work(players, probe=buffers)
        search = new_search(players, room) if searching else None
        args = (key, first, work, rules_nb, crates, *policies, score, player, game_out, search)
        if compiled.is_set():
            play_games_nb(*args)
        else:  # the first call: where it compiles, a helper process compiles part of it (runs/ahead.py)
            with compile_ahead(play_games_nb, args):
                play_games_nb(*args)
            compiled.set()
        if search is not None:
            SEARCH_TOTALS[:] += search.spent  # in place: the module's array
        return probe.results(buffers, first, game_out) if probe is not None else None

    return play


RoundRows = tuple[np.ndarray, np.ndarray, np.ndarray]
"""The round snapshots of the rounds played: game int64[n], round int16[n] and every seat's
position int16[n, P, N_ROUND_FIELDS] (``layout.ROUND``), game by game, round by round."""


def round_rows(out: np.ndarray, game_out: np.ndarray, first: int) -> RoundRows:
    """The rows of ``out`` (``play.loop.Rounds.out`` of games first, first + 1, ...) that the games
    filled: the start of each round played and the end (round = the rounds played)."""
    played = game_out[:, L.G_ROUNDS] + 1
    g, r = np.nonzero(np.arange(out.shape[1])[None, :] < played[:, None])
    return first + g.astype(np.int64), r.astype(np.int16), out[g, r]


def join_round_rows(parts: list[RoundRows]) -> RoundRows:
    """Round rows of consecutive games, in order, as one."""
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore[return-value]


def lineup_arrays(specs: list[PolicySpec], seed: int, rules: Rules) -> tuple:
    """What ``play_games_nb`` takes of a run: (dice key, rules, start crates, then kind, params,
    functions, base and playout kind and params of the seats, and the learned policy's mark)."""
    # the deciding and the playout policies; the learned policy's mark (None: a loop without it)
    return (
        seed_key(seed),
        rules.to_nb(),
        rules.start_crate_cells(),
        *policy_arrays(specs),
        *base_arrays(specs),
        line_up_marks(specs),
    )


def kernel_compiled(players: int, specs: list[PolicySpec], rules: Rules, rounds: bool = False) -> bool:
    """Whether the loop this line-up plays (recording round snapshots, with ``rounds``) is compiled,
    in this process or in the on-disk cache (a first run compiles it: the command says so before
    it starts timing the games)."""
    key, rules_nb, crates, *policies = lineup_arrays(specs, 0, rules)
    search = new_search(players) if any_search(specs) else None
    work = new_work(players, probe=RoundSnapshots(1).buffers(players, 1) if rounds else None)
    args = (key, 0, work, rules_nb, crates, *policies, *engine_arrays(1, players), search)
    return is_cached(play_games_nb, args)


def engine_arrays(games: int, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed (score, player, game_out) for ``games`` games."""
    return (
        np.zeros((games, players, L.N_SCORE_FIELDS), dtype=np.int64),
        np.zeros((games, players, L.N_PLAYER_FIELDS), dtype=np.int64),
        np.zeros((games, L.N_GAME_FIELDS), dtype=np.int64),
    )


def slice_plan(
    chunks: list[tuple[int, ...]], threads: int, min_slice: int | None = None, max_slice: int | None = None
) -> list[tuple[int, int, int]]:
    """The slices (chunk index, first, end within the chunk) the threads take, in game order.

    Guided, as OpenMP's schedule of that name: a slice is a quarter of a thread's share of the
    games still to come, between ``MIN_SLICE`` and ``MAX_SLICE``, and never crosses a chunk's end.
    Early slices are long, because each call into the engine costs about 0.6 ms of Python (mostly
    unboxing the seats' policy functions, with the GIL held); the last ones are short, so the
    threads finish together. A searching seat's games take a second each: for them a slice is
    at most ``SEARCH_SLICE`` games, and at the end a single game."""
    lo_size, hi_size = min_slice or MIN_SLICE, max_slice or MAX_SLICE
    remaining = sum(c[1] for c in chunks)
    plan = []
    for i, c in enumerate(chunks):
        lo = 0
        while lo < c[1]:
            size = min(hi_size, max(lo_size, -(-remaining // (4 * threads))), c[1] - lo)
            plan.append((i, lo, lo + size))
            lo += size
            remaining -= size
    return plan


def on_threads(
    slices: list[tuple[int, int, int]],
    threads: int,
    play: Callable[[Any, int, int, int], None],
    finish: Callable[[Any, int], Any] | None = None,
    use: Callable[[int, Any], None] | None = None,
    *,
    begin: Callable[[int], Any] | None = None,
    poll: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
    played: Callable[[], None] | None = None,
) -> None:
    """smsim's one pool of threads. Each of ``threads`` threads takes the next (chunk i, lo, hi) of
    ``slices`` in their order and calls ``play(held, i, lo, hi)``, ``held`` being what ``begin(i)``
    made (under the pool's lock) when chunk i's first slice was taken (None without ``begin``).
    The thread that plays a chunk's last slice calls ``finish(held, i)``, beside the other threads
    still playing, and its result goes to ``use(i, result)``: ``use`` is called for the chunks in
    the order their first slices come, one call at a time (a result ready before the one ahead of
    it waits, and the thread that hands that one on hands it on too), and never while ``poll``
    runs, so neither needs a lock of its own. ``held`` is dropped after ``finish``.

    The calling thread only waits, calling ``poll()`` every ``POLL_SECONDS`` and once at the end.
    ``played``: called once, by the thread that played the last slice, before that chunk's
    ``finish`` (the cores are free: only finishing is left). ``stop``: set from another thread,
    the threads stop after their slice and ``Stopped`` is raised. An exception in a thread
    (``play``, ``finish`` or ``use``) stops the others after their slice and is raised here; so is
    Ctrl-C, once the threads have stopped."""
    lock, handing = threading.Lock(), threading.Lock()  # handing: held around use and poll
    state = {"next": 0, "error": None, "unplayed": len(slices), "handed": 0, "busy": False}
    left: dict[int, int] = {}  # slices of each chunk not yet played
    for i, _, _ in slices:
        left[i] = left.get(i, 0) + 1
    order = list(left)  # the chunks, in the order use hears them
    held: dict[int, Any] = {}
    ready: dict[int, Any] = {}  # finished chunks waiting for one ahead of them
    stopped = stop or threading.Event()

    def hand_on(i: int, result: Any) -> None:
        with lock:
            ready[i] = result
            if state["busy"]:  # the thread handing on now hands this one on when its turn comes
                return
            state["busy"] = True
        while True:
            with lock:
                if state["handed"] == len(order) or order[state["handed"]] not in ready:
                    state["busy"] = False
                    return
                j = order[state["handed"]]
                result = ready.pop(j)
            with handing:
                use(j, result)
            with lock:
                state["handed"] += 1

    def work() -> None:
        try:
            while not stopped.is_set():
                with lock:
                    if state["next"] == len(slices):
                        return
                    i, lo, hi = slices[state["next"]]
                    state["next"] += 1
                    if i not in held:
                        held[i] = begin(i) if begin is not None else None
                    mine = held[i]
                play(mine, i, lo, hi)
                with lock:
                    left[i] -= 1
                    last = left[i] == 0
                    if last:
                        del held[i]
                    state["unplayed"] -= 1
                    everything = state["unplayed"] == 0  # the run's last slice ends its chunk too
                if last:
                    if everything and played is not None:
                        played()
                    result = finish(mine, i) if finish is not None else None
                    if use is not None:
                        hand_on(i, result)
        except BaseException as exc:  # handed to the calling thread, which raises it
            with lock:
                state["error"] = state["error"] or exc
            stopped.set()

    def polled() -> None:
        with handing:
            poll()

    workers = [
        threading.Thread(target=work, name=f"smsim-play-{t}", daemon=True)
        for t in range(max(1, min(threads, len(slices))))
    ]
    for w in workers:
        w.start()
    try:
        for w in workers:
            while w.is_alive():
                w.join(POLL_SECONDS)
                if poll is not None and not stopped.is_set():
                    polled()
    except BaseException:  # Ctrl-C: the threads stop after their slice; nothing half-finished is kept
        stopped.set()
        for w in workers:
            w.join()
        raise
    if state["error"] is not None:
        raise state["error"]
    if any(left.values()):  # stopped from outside before the end
        raise Stopped()
    if poll is not None:
        polled()


def play_chunks(
    chunks: list[tuple[int, int]] | list[tuple[int, int, int]],
    players: int,
    setups: list[tuple[list[PolicySpec], Rules]],
    seed: int,
    threads: int,
    finish: Callable[..., Any],
    poll: Callable[[], None] | None = None,
    stop: threading.Event | None = None,
    played: Callable[[], None] | None = None,
    use: Callable[[int, Any], None] | None = None,
    rounds: bool = False,
) -> None:
    """Play every (first game, games) chunk on ``threads`` threads (``on_threads``) and call
    ``finish(i, score, player, game_out)`` for each chunk on the thread that completed it; what
    it returns goes to ``use(i, result)``, in chunk order (see ``on_threads``). ``rounds``: the
    round snapshots are recorded too and ``finish`` gets the chunk's rows as a fifth argument
    (``RoundRows``).

    A chunk in which a policy chose outside its candidates raises ``SimulationError`` (naming the
    game) instead of reaching ``finish``.

    ``setups``: the (line-up, rules) the chunks are played with. One run has one; ``compare``'s
    seat arrangements and a sweep's variants have several, a chunk being then (first game, games,
    setup index). ``poll``, ``stop`` and ``played``: as ``on_threads``'s."""
    plays = [
        kernel(players, lineup, seed, rules, RoundSnapshots(rules.max_rounds) if rounds else None)
        for lineup, rules in setups
    ]
    search = any(any_search(lineup) for lineup, _ in setups)
    if search:
        slices = slice_plan(chunks, threads, 1, SEARCH_SLICE)
    else:
        slices = slice_plan(chunks, threads, max_slice=ROUNDS_SLICE if rounds else None)

    def setup(i: int) -> int:
        return chunks[i][2] if len(chunks[i]) > 2 else 0

    def begin(i: int) -> tuple:
        return (*engine_arrays(chunks[i][1], players), {})  # the round rows of each slice, by its start

    def play(held: tuple, i: int, lo: int, hi: int) -> None:
        score, player, game_out, slices_rounds = held
        rows = plays[setup(i)](chunks[i][0] + lo, score[lo:hi], player[lo:hi], game_out[lo:hi])
        if rows is not None:
            slices_rounds[lo] = rows  # each slice's own key: no two threads write one

    def done(held: tuple, i: int) -> Any:
        score, player, game_out, slices_rounds = held
        # the engine flags a policy that chose outside its candidates; no caller checks again
        check_errors(game_out, setups[setup(i)][0], chunks[i][0])
        if not rounds:
            return finish(i, score, player, game_out)
        return finish(i, score, player, game_out, join_round_rows([slices_rounds[lo] for lo in sorted(slices_rounds)]))

    on_threads(slices, threads, play, done, use, begin=begin, poll=poll, stop=stop, played=played)
