"""The pool of threads that plays a run's chunks and hands each on (smsim.runs.runner)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from smsim.runs import runner
from smsim.policies.registry import resolve_policies
from smsim.rules import Rules
from smsim.runs.batch import run_games
from smsim.errors import SimulationError

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
        assert ends[0][0] == 0 and ends[-1][1] == n and all(a[1] == b[0] for a, b in zip(ends, ends[1:]))
    sizes = [hi - lo for _, lo, hi in plan]
    assert sizes[0] == runner.MAX_SLICE and max(sizes) <= runner.MAX_SLICE
    assert sizes[-2] == runner.MIN_SLICE  # the last slices are the shortest
    whole = [hi - lo for i, lo, hi in plan if hi != chunks[i][1]]  # those not cut short by a chunk's end
    assert whole == sorted(whole, reverse=True)
    assert runner.slice_plan([(0, 1)], 16) == [(0, 0, 1)]
    slow = runner.slice_plan([(0, 50)] * 4, 2, 1, runner.SEARCH_SLICE)  # a searching seat's games
    assert max(hi - lo for _, lo, hi in slow) == runner.SEARCH_SLICE and slow[-1][2] - slow[-1][1] == 1
