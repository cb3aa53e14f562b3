"""The pool of threads that plays a run's chunks and hands each on (smsim.runs.runner)."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest

from smsim.errors import SimulationError
from smsim.policies.registry import resolve_policies
from smsim.rules import Rules
from smsim.runs import runner
from smsim.runs.batch import run_games

LINEUP = ["balanced", "random", "walls"]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_every_chunk_is_finished_once_with_the_games_of_a_plain_run(threads, monkeypatch):
    """Whatever the threads and the slices, finish sees each chunk once, on a worker thread, with
    exactly the arrays run_games gives for those games; ``played`` is heard once, before the
    finish of the chunk whose slice was the last played."""
    monkeypatch.setattr(runner, "MAX_SLICE", 7)  # many slices per chunk, taken by different threads
    monkeypatch.setattr(runner, "MIN_SLICE", 2)
    chunks = [(5, 30), (35, 17), (52, 1), (53, 40)]
    specs = resolve_policies(LINEUP, 3)
    seen, where = {}, set()
    lock = threading.Lock()

    def finish(i, score, player, game_out):
        with lock:
            assert i not in seen
            seen[i] = (score.copy(), player.copy(), game_out.copy())
            where.add(threading.current_thread().name)

    def played():
        with lock:
            heard.append(len(seen))

    polls, heard = [], []
    runner.play_chunks(chunks, 3, [(specs, Rules())], 4, threads, finish, lambda: polls.append(1), played=played)
    assert sorted(seen) == [0, 1, 2, 3]
    assert len(heard) == 1 and heard[0] < len(chunks)
    assert all(name.startswith("smsim-play-") for name in where)
    assert polls  # at least once, at the end
    for i, (first, n) in enumerate(chunks):
        expected = run_games(n, 3, LINEUP, 4, Rules(), first=first, threads=1)
        for got, want in zip(seen[i], expected):
            np.testing.assert_array_equal(got, want)


def test_an_error_in_a_thread_stops_the_run_and_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(runner, "MAX_SLICE", 5)
    monkeypatch.setattr(runner, "MIN_SLICE", 5)
    chunks = [(k * 10, 10) for k in range(40)]
    finished = []

    def finish(i, score, player, game_out):
        if i == 2:
            raise SimulationError("chunk 2 failed")
        finished.append(i)

    with pytest.raises(SimulationError, match="chunk 2 failed"):
        runner.play_chunks(chunks, 2, [(resolve_policies(["random"], 2), Rules())], 1, 2, finish)
    assert len(finished) < len(chunks) - 1  # the other thread stopped too, long before the end


def test_slices_cover_every_game_once_long_first_and_short_at_the_end():
    chunks = [(0, 10_000)] * 20 + [(0, 37)]
    plan = runner.slice_plan(chunks, 4)
    for i, (_, n) in enumerate(chunks):  # each chunk cut into consecutive slices, first to last game
        ends = [(lo, hi) for j, lo, hi in plan if j == i]
        assert ends[0][0] == 0 and ends[-1][1] == n and all(a[1] == b[0] for a, b in itertools.pairwise(ends))
    sizes = [hi - lo for _, lo, hi in plan]
    assert sizes[0] == runner.MAX_SLICE and max(sizes) <= runner.MAX_SLICE
    assert sizes[-2] == runner.MIN_SLICE  # the last slices are the shortest
    whole = [hi - lo for i, lo, hi in plan if hi != chunks[i][1]]  # those not cut short by a chunk's end
    assert whole == sorted(whole, reverse=True)
    assert runner.slice_plan([(0, 1)], 16) == [(0, 0, 1)]
    slow = runner.slice_plan([(0, 50)] * 4, 2, 1, runner.SEARCH_SLICE)  # a searching seat's games
    assert max(hi - lo for _, lo, hi in slow) == runner.SEARCH_SLICE and slow[-1][2] - slow[-1][1] == 1


# -- the one pool of threads (on_threads) ----------------------------------------------------------
def _slices(chunks: int, per_chunk: int) -> list[tuple[int, int, int]]:
    return [(i, j, j + 1) for i in range(chunks) for j in range(per_chunk)]


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_use_hears_every_chunk_once_in_order_one_at_a_time_and_never_beside_poll(threads):
    """finish runs on the threads, in any order (chunk 0 here finishes last); use hears the
    chunks in order, one call at a time, never while poll runs; begin's value reaches play and
    finish of its own chunk."""
    import time

    inside, heard, finished, polls = [0], [], [], []
    lock = threading.Lock()

    def begin(i):
        return {"chunk": i, "slices": 0}

    def play(held, i, lo, hi):
        assert held["chunk"] == i
        with lock:
            held["slices"] += 1

    def finish(held, i):
        if i == 0:
            time.sleep(0.3)  # the other threads finish later chunks meanwhile
        with lock:
            finished.append(i)
        return i, held["slices"]

    def use(i, result):
        inside[0] += 1
        assert inside[0] == 1  # alone: no other use, no poll
        time.sleep(0.002)
        heard.append((i, result))
        inside[0] -= 1

    def poll():
        inside[0] += 1
        assert inside[0] == 1
        polls.append(len(heard))
        inside[0] -= 1

    runner.on_threads(_slices(12, 3), threads, play, finish, use, begin=begin, poll=poll)
    assert heard == [(i, (i, 3)) for i in range(12)]
    assert sorted(finished) == list(range(12))
    if threads > 1:
        assert finished[-1] == 0  # out of order, yet heard in order
    assert polls and polls[-1] == 12 and polls == sorted(polls)


@pytest.mark.parametrize("where", ["play", "finish", "use"])
def test_an_exception_in_a_worker_thread_stops_the_others_and_is_raised_in_the_caller(where):
    played = []

    def fail_at(stage, i):
        if stage == where and i == 3:
            raise ValueError(f"{where} of chunk 3 failed")

    def play(_, i, lo, hi):
        fail_at("play", i)
        played.append(i)

    with pytest.raises(ValueError, match=f"{where} of chunk 3 failed"):
        runner.on_threads(_slices(2000, 1), 2, play, lambda _, i: fail_at("finish", i), lambda i, _: fail_at("use", i))
    assert len(played) < 100  # the other thread stopped too, long before the end
    assert not [t for t in threading.enumerate() if t.name.startswith("smsim-play-")]


def test_a_stop_from_outside_or_an_interrupt_in_the_caller_stops_every_thread():
    stop = threading.Event()
    played = []

    def play(_, i, lo, hi):
        played.append(i)
        if i == 5:
            stop.set()

    with pytest.raises(runner.Stopped):
        runner.on_threads(_slices(1000, 1), 2, play, stop=stop)
    assert len(played) < 10

    def interrupt():  # Ctrl-C reaches the calling thread while it polls
        raise KeyboardInterrupt

    played.clear()
    with pytest.raises(KeyboardInterrupt):
        runner.on_threads(_slices(10**6, 1), 2, lambda *_: played.append(1), poll=interrupt)
    assert len(played) < 10**6
    assert not [t for t in threading.enumerate() if t.name.startswith("smsim-play-")]


def test_used_chunks_of_a_run_are_identical_on_one_and_two_threads(monkeypatch):
    """play_chunks with ``use``: the arrays heard, in order, are those of a plain run, whatever the threads."""
    monkeypatch.setattr(runner, "MAX_SLICE", 9)
    monkeypatch.setattr(runner, "MIN_SLICE", 3)
    chunks = [(0, 25), (25, 40), (65, 11)]
    specs = resolve_policies(LINEUP, 3)
    runs = {}
    for threads in (1, 2):
        heard = []
        runner.play_chunks(
            chunks,
            3,
            [(specs, Rules())],
            8,
            threads,
            lambda i, *arrays: arrays,
            use=lambda i, arrays: heard.append((i, arrays)),  # noqa: B023 (called within the iteration)
        )
        runs[threads] = heard
    expected = run_games(76, 3, LINEUP, 8, Rules(), threads=1)
    for heard in runs.values():
        assert [i for i, _ in heard] == [0, 1, 2]
        for want, got in zip(expected, zip(*(arrays for _, arrays in heard))):
            np.testing.assert_array_equal(np.concatenate(got), want)
