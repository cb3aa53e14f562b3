"""The batch API: many games played on a pool of threads (or a Dask cluster), returned as the
dataset's tables (``simulate``), written part by part into a resumable dataset (``simulate_to``),
or kept only as headline tables (``simulate_summary``).

>>> from smsim.runs.batch import simulate
>>> seats, games = simulate(100, players=3, policies=["greedy", "random", "random"], seed=1)  # doctest: +SKIP
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim.errors import DatasetError
from smsim.play.api import check_errors, verify_players
from smsim.policies.registry import PolicySpec, resolve_policies
from smsim.rules import Rules
from smsim.runs import spec
from smsim.runs.dataset import PartWriter, game_table, open_run, run_identity, seat_table
from smsim.runs.runner import engine_arrays, kernel, play_chunks
from smsim.runs.spec import default_threads, verify_batch, verify_games
from smsim.runs.storage import location
from smsim.runs.summary import SummaryAccumulator, arrays_sums


def run_games(
    games: int,
    players: int,
    policies: list | None,
    seed: int,
    rules: Rules,
    first: int = 0,
    threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw engine arrays (score, player, game_out) for games first .. first + games - 1.

    The batch is cut into one contiguous chunk per thread; each game's dice depend only on
    (seed, game), so the result does not depend on ``threads``.
    """

    specs = resolve_policies(policies, players)
    score, player, game_out = engine_arrays(games, players)
    play = kernel(players, specs, seed, rules)
    threads = max(1, min(threads or default_threads(), games))

    def run(lo: int, hi: int) -> None:
        play(first + lo, score[lo:hi], player[lo:hi], game_out[lo:hi])

    bounds = [games * i // threads for i in range(threads + 1)]
    if threads == 1:
        run(0, games)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, bounds[:-1], bounds[1:]))
    check_errors(game_out, specs, first)
    return score, player, game_out


def simulate(
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    first: int = 0,
    threads: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play ``games`` games and return the dataset's two tables as DataFrames: ``seats``, one
    row per player per game (final score and its breakdown, rank, win, churches and series,
    walls and sides, bonuses, defence at each attack, coins and logs gained, spent and left, ...)
    and ``games``, one row per game (rounds, attacks and their rounds, who ended it).
    ``smsim simulate --out DIR`` writes the same tables; ``smsim.load(DIR)`` reads them back.
    Every row is held in memory (about 1 GB for 200,000 four-player games): for larger runs,
    ``simulate_to`` writes them a chunk at a time and ``simulate_summary`` keeps only the
    headline tables.
    """

    games = verify_games(games, first)
    players = verify_players(players)
    rules = rules or Rules()
    specs = resolve_policies(policies, players)
    score, player, game_out = run_games(games, players, specs, seed, rules, first, threads)
    names = [s.name for s in specs]
    return seat_table(score, player, game_out, names, rules, first), game_table(game_out, players, rules, first)


# -- runs written to disk, resumable ---------------------------------------------------------------
@dataclass
class RunResult:
    """A run: the dataset it wrote (None when nothing was written), its headline tables
    (``summary.SummaryAccumulator``), the games in it and the games this call played."""

    path: str | None
    tables: dict
    games: int
    played: int


@dataclass
class Progress:
    """Reported after every chunk of games: games done (of total), speed, and the leading policy's win
    rate with its 95% Wilson interval over the games done so far. On a cluster (``cluster=``),
    games done count the chunks every worker has written, the leader is over the parts finished
    (``""`` before the first), and ``workers`` is the number of workers (0: this machine alone)."""

    done: int
    total: int
    elapsed: float
    games_per_second: float
    leader: str
    leader_rate: float
    leader_lo: float
    leader_hi: float
    workers: int = 0


def simulate_to(
    out: str,
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    batch: int | None = None,
    threads: int | None = None,
    command: list[str] | None = None,
    on_progress=None,
    cluster=None,
) -> "RunResult":
    """Play ``games`` games into the dataset directory ``out`` (a local path, or an fsspec URL such
    as ``s3://bucket/run`` with fsspec and the scheme's package installed), part by part, and return its
    headline tables (``smsim.load(out)`` reads the full tables). Games are played and written a
    chunk at a time, so memory stays flat whatever ``games`` and ``batch`` are.

    Resumable: rerun with the same arguments and only the missing parts are played; the result
    is identical to an uninterrupted run. A directory made by a different run is refused.

    ``cluster``: play the missing parts on a Dask distributed cluster (``smsim.runs.executors.dask``, docs/cluster.md):
    a ``distributed.Client``, or an address, ``"local:N"`` (N worker processes here) or
    ``"tcp://host:8786"``. Workers write the parts into ``out``, which they must all see (a shared
    filesystem or a URL); the dataset is byte-identical to one played here. ``threads`` is then the
    threads of each part on its worker (default: the worker's cores shared among its threads).
    """

    games = verify_games(games)
    players = verify_players(players)
    rules = rules or Rules()
    specs = resolve_policies(policies, players)
    batch = verify_batch(batch, games)
    if cluster is not None:
        from smsim.runs.executors.dask import check

        check(cluster)  # a bad address or a missing Dask: refused before the directory is made
    path = location(out)  # a local directory, or a URL (a scheme not installed: refused here)
    identity = run_identity(games, players, specs, seed, rules, batch)
    have = open_run(path, identity, command or [])
    n_parts = -(-games // batch)
    acc = SummaryAccumulator()
    for k in sorted(have):  # the summary continues from what earlier runs wrote
        acc.add_part(path, k)
    done = sum(min(batch, games - k * batch) for k in have)
    if cluster is not None:  # a worker plays and writes each missing part; here only the summary
        from smsim.runs.executors.dask import play_parts

        progress = _Reporter(on_progress, acc, games, done)
        parts = [(k, k * batch, min(batch, games - k * batch)) for k in range(n_parts) if k not in have]
        play_parts(cluster, path, parts, players, specs, seed, rules, identity, threads, acc, progress)
        return RunResult(str(path), acc.tables(), progress.done, progress.played)
    # every part left to play, cut into chunks: (part, first game, games)
    chunks = [(k, first, n) for k in range(n_parts) if k not in have
              for first, n in spec.split_chunks(k * batch, min(batch, games - k * batch))]  # fmt: skip
    progress = _Reporter(on_progress, acc, games, done)
    parts = _PartSink(path, chunks, specs, rules, acc)
    try:
        play_chunks([(first, n) for _, first, n in chunks], players, [(specs, rules)], seed,
                    threads or default_threads(), parts.finish, parts.poll(progress))  # fmt: skip
        parts.close_all()
    except OSError as exc:
        raise DatasetError(f"cannot write to {out!r}: {exc.strerror or exc}") from None
    finally:
        parts.abort()  # the parts left unfinished by an error or an interrupt (none after a whole run)
    return RunResult(str(path), acc.tables(), progress.done, progress.played)


class _PartSink:
    """What ``simulate_to`` does with each chunk its threads finish (``runner.play_chunks``): on
    the thread that finished it, turn it into tables and sums, then write it into its part
    (``dataset.PartWriter``), whose row groups go in game order: a chunk finished before the one
    ahead of it in its part waits, and the thread that writes that one writes it too. Parts are
    written side by side, each by one thread at a time."""

    def __init__(self, path, chunks: list[tuple[int, int, int]], specs: list[PolicySpec], rules: Rules, acc) -> None:
        import threading

        self.path, self.chunks = path, chunks
        self.specs, self.names, self.rules, self.acc = specs, [s.name for s in specs], rules, acc
        self.lock = threading.Lock()
        self.first_chunk: dict[int, int] = {}  # part -> index of its first chunk
        for i, (k, _, _) in enumerate(chunks):
            self.first_chunk.setdefault(k, i)
        self.next = dict(self.first_chunk)  # part -> index of its next chunk to write
        self.pending: dict[int, tuple] = {}  # chunk index -> what to write
        self.writing: set[int] = set()  # parts a thread is writing now
        self.writers: dict[int, object] = {}  # part -> its open PartWriter
        self.closing = ThreadPoolExecutor(1, thread_name_prefix="smsim-close")
        self.closes: list = []  # a finished part's close (fsync, rename or upload) on self.closing
        self.written = 0  # games written by this call

    def finish(self, i: int, score: np.ndarray, player: np.ndarray, game_out: np.ndarray) -> None:

        k, first, n = self.chunks[i]
        check_errors(game_out, self.specs, first)
        item = (seat_table(score, player, game_out, self.names, self.rules, first),
                game_table(game_out, score.shape[1], self.rules, first), arrays_sums(score, player, game_out,
                self.names, first), n, i + 1 == len(self.chunks) or self.chunks[i + 1][0] != k)  # fmt: skip
        with self.lock:
            self.pending[i] = item
            if k in self.writing:  # the thread writing this part writes this chunk when its turn comes
                return
            self.writing.add(k)
        self._drain(k)

    def _drain(self, k: int) -> None:
        """Write part k's chunks that are ready, in order (one thread per part at a time)."""

        while True:
            with self.lock:
                item = self.pending.pop(self.next[k], None)
                if item is None:
                    self.writing.discard(k)
                    return
            seats, game_df, sums, n, last = item
            try:
                writer = self.writers.get(k) or PartWriter(self.path, k)
                self.writers[k] = writer
                writer.write(seats, game_df)
                if last:  # sync and rename it on the closing thread: a playing thread never waits on the disk
                    del self.writers[k]
                    self.closes.append(self.closing.submit(writer.close))
            except BaseException:
                with self.lock:
                    self.writing.discard(k)
                raise
            with self.lock:
                self.acc.merge(sums)
                self.written += n
                self.next[k] += 1

    def poll(self, progress: _Reporter):
        def report() -> None:
            with self.lock:
                written = self.written
                if written == progress.played:
                    return
                progress.update(written)  # reads the sums: under the lock

        return report

    def close_all(self) -> None:
        """Wait until every finished part is synced and in place (raising the first error), and
        stop the closing thread."""
        for future in self.closes:
            future.result()
        self.closing.shutdown(wait=True)

    def abort(self) -> None:
        """After an error or an interrupt: let the parts being closed finish, drop the others."""
        self.closing.shutdown(wait=True)
        for writer in self.writers.values():
            writer.abort()
        self.writers.clear()


def simulate_summary(
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress=None,
) -> "RunResult":
    """Play ``games`` games and keep only their headline tables (``RunResult.tables``, as
    ``summary.summary_tables`` gives), a chunk of games at a time: memory stays flat whatever
    ``games`` is. What ``smsim simulate`` without ``--out`` prints; ``simulate`` returns every
    row instead."""
    import threading


    games = verify_games(games)
    players = verify_players(players)
    rules = rules or Rules()
    specs = resolve_policies(policies, players)
    chunks = spec.split_chunks(0, games)
    acc = SummaryAccumulator()
    progress = _Reporter(on_progress, acc, games, 0)
    lock = threading.Lock()
    names = [s.name for s in specs]
    counted = [0]

    def finish(i: int, score: np.ndarray, player: np.ndarray, game_out: np.ndarray) -> None:
        first, n = chunks[i]
        check_errors(game_out, specs, first)
        sums = arrays_sums(score, player, game_out, names, first)  # no table: only the sums
        with lock:
            acc.merge(sums)
            counted[0] += n

    def poll() -> None:
        with lock:
            if counted[0] != progress.played:
                progress.update(counted[0])

    play_chunks(chunks, players, [(specs, rules)], seed, threads or default_threads(), finish, poll)
    return RunResult(None, acc.tables(), progress.done, progress.played)


class _Reporter:
    """Calls ``on_progress`` with a ``Progress`` after each chunk."""

    def __init__(self, on_progress, acc, total: int, done: int) -> None:
        import time

        self.on_progress, self.acc, self.total, self.done, self.played = on_progress, acc, total, done, 0
        self.clock = time.perf_counter
        self.start = self.clock()

    def add(self, n: int) -> None:
        self.update(self.played + n)

    def update(self, played: int, workers: int = 0) -> None:
        """Games played by this call so far (across a cluster's workers: ``workers``)."""
        self.done += played - self.played
        self.played = played
        if self.on_progress is None:
            return
        elapsed = self.clock() - self.start
        leader, rate, lo, hi = "", float("nan"), float("nan"), float("nan")
        if self.acc.game_sums["games"]:  # on a cluster, nothing until the first part is back
            rates = self.acc.rates("policy")
            leader = rates["win_rate"].idxmax()
            rate, lo, hi = rates.loc[leader, "win_rate"], rates.loc[leader, "win_lo"], rates.loc[leader, "win_hi"]
        self.on_progress(Progress(self.done, self.total, elapsed, self.played / elapsed if elapsed > 0 else 0.0,
                                  leader, rate, lo, hi, workers))  # fmt: skip
