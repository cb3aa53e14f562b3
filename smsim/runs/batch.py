"""The batch API: many games played on a pool of threads (or a Dask cluster), returned as the
dataset's tables (``simulate``), written part by part into a resumable dataset (``simulate_to``),
or kept only as headline tables (``simulate_summary``).

>>> from smsim.runs.batch import simulate
>>> seats, games = simulate(100, players=3, policies=["greedy", "random", "random"], seed=1)  # doctest: +SKIP
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from smsim import checks
from smsim.errors import DatasetError, PolicyError, SimulationError
from smsim.policies.registry import PolicySpec, rebuild_policy, resolve_policies, ship_policy
from smsim.rules import Rules
from smsim.runs import spec
from smsim.runs.dataset import (
    MANIFEST,
    PartWriter,
    arrow_table,
    game_columns,
    game_table,
    open_run,
    part_name,
    read_manifest,
    records_rounds,
    round_columns,
    round_table,
    run_identity,
    seat_arrow,
    seat_table,
    tables_of,
)
from smsim.runs.executors import (
    Failed,
    Task,
    open_executor,
    release_hook,
    report,
    stop_event,
    threads_here,
)
from smsim.runs.executors import check as check_cluster
from smsim.runs.runner import play_chunks
from smsim.runs.spec import default_threads, verify_batch, verify_run
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
    rounds: bool = False,
) -> tuple[np.ndarray, ...]:
    """Raw engine arrays (score, player, game_out) for games first .. first + games - 1, played on
    ``threads`` threads (``runner.play_chunks``, the batch one chunk); each game's dice depend only
    on (seed, game), so the result does not depend on ``threads``. ``rounds``: the round
    snapshots' rows (``runner.RoundRows``) come fourth.
    """

    specs = resolve_policies(policies, players)
    arrays = []
    play_chunks(
        [(first, games)],
        players,
        [(specs, rules)],
        seed,
        threads or default_threads(),
        lambda i, *chunk: arrays.append(chunk),
        rounds=rounds,
    )
    return arrays[0]


def simulate(
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    first: int = 0,
    threads: int | None = None,
    rounds: bool = False,
) -> tuple[pd.DataFrame, ...]:
    """Play ``games`` games and return the dataset's two tables as DataFrames: ``seats``, one
    row per player per game (final score and its breakdown, rank, win, churches and series,
    walls and sides, bonuses, defence at each attack, coins and logs gained, spent and left, ...)
    and ``games``, one row per game (rounds, attacks and their rounds, who ended it). ``rounds``:
    a third table, ``rounds``, one row per player at the start of every round and at the game's
    end (round = the rounds played): the position's score if the game ended then and what makes
    it up (``dataset.round_table``).
    ``smsim simulate --out DIR`` writes the same tables; ``smsim.load(DIR)`` reads them back.
    Every row is held in memory (about 1 GB for 200,000 four-player games): for larger runs,
    ``simulate_to`` writes them a chunk at a time and ``simulate_summary`` keeps only the
    headline tables.
    """

    run = verify_run(games, players, policies, seed, rules, first)
    threads = checks.threads(threads)
    score, player, game_out, *rows = run_games(
        run.games, run.players, run.lineup, run.seed, run.rules, run.first, threads, rounds
    )
    return (
        seat_table(score, player, game_out, run.names, run.rules, run.first),
        game_table(game_out, run.players, run.rules, run.first),
        *(round_table(r) for r in rows),
    )


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
    rounds: bool = False,
) -> RunResult:
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

    ``rounds``: the dataset also holds the round snapshots (``dataset.load_rounds`` reads them),
    one row per player at the start of every round and at the end; a run is resumed only as it
    was begun, with them or without.
    """

    run = verify_run(games, players, policies, seed, rules)
    threads = checks.threads(threads)
    games, players, specs, seed, rules = run.games, run.players, run.lineup, run.seed, run.rules
    batch = verify_batch(batch, games)
    check_cluster(cluster)  # a bad address or a missing Dask: refused before the directory is made
    path = location(out)  # a local directory, or a URL (a scheme not installed: refused here)
    with open_executor(cluster) as executor:  # connected (a cluster) before anything is written
        identity = run_identity(games, players, specs, seed, rules, batch, rounds)
        have = open_run(path, identity, command or [])
        acc = SummaryAccumulator()
        for k in sorted(have):  # the summary continues from what earlier runs wrote
            acc.add_part(path, k)
        done = sum(min(batch, games - k * batch) for k in have)
        progress = _Reporter(on_progress, acc, games, done)
        parts = [(k, k * batch, min(batch, games - k * batch)) for k in range(-(-games // batch)) if k not in have]
        play_parts(executor, path, parts, players, specs, seed, rules, identity, threads, acc, progress)
    return RunResult(str(path), acc.tables(), progress.done, progress.played)


def part_tasks(
    path,
    parts: list[tuple[int, int, int]],
    players: int,
    specs: list[PolicySpec],
    seed: int,
    rules: Rules,
    identity: dict,
    threads: int | None,
) -> list[Task]:
    """One task per dataset part (k, first game, games): ``play_part``, with plain-data arguments."""
    shipped = [ship_policy(s) for s in specs]
    return [
        Task(
            play_part,
            (str(path), k, first, n, players, shipped, seed, rules.to_dict(), identity, threads),
            f"part-{k:06d}",
        )
        for k, first, n in parts
    ]


def play_parts(
    executor,
    path,
    parts: list[tuple[int, int, int]],
    players: int,
    specs: list[PolicySpec],
    seed: int,
    rules: Rules,
    identity: dict,
    threads: int | None,
    acc: SummaryAccumulator,
    progress: _Reporter,
) -> None:
    """Play the dataset parts ``parts`` ((k, first game, games) each) on ``executor`` and add each
    finished part to the summary ``acc``; ``progress`` hears the games written so far, across a
    cluster's workers too."""
    if not parts:
        return
    tasks = part_tasks(path, parts, players, specs, seed, rules, identity, threads)
    in_flight: dict[str, int] = {}  # task name -> games of its part written so far
    over: set[str] = set()  # the parts whose result is in: a report of theirs heard late is old news
    finished = 0

    def heard(name: str, written: int) -> None:
        if name in over:
            return
        in_flight[name] = written
        progress.update(finished + sum(in_flight.values()), executor.workers)

    try:
        for i, (k, n, sums) in executor.run(tasks, on_progress=heard):
            if sums is None:  # the part was there already (a retry after its writer died): read it back
                if not all((path / sub / part_name(k)).is_file() for sub in tables_of(records_rounds(identity))):
                    raise DatasetError(
                        f"a worker wrote part {k}, but it is not in {str(path)!r} here: --out "
                        "must be a directory every worker sees, on a shared filesystem or at a "
                        "URL"
                    )
                acc.add_part(path, k)
            else:
                acc.merge(sums)
            in_flight.pop(tasks[i].name, None)
            over.add(tasks[i].name)
            finished += n
            progress.update(finished + sum(in_flight.values()), executor.workers)
    except OSError as exc:
        raise DatasetError(f"cannot write to {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        for stale in path.glob("*/.part-*.tmp-*"):  # a dead worker's half-written part
            stale.unlink(missing_ok=True)


def play_part(
    out: str,
    k: int,
    first: int,
    n: int,
    players: int,
    policies: list,
    seed: int,
    rules: dict,
    identity: dict,
    threads: int | None = None,
) -> tuple[int, int, dict | None] | Failed:
    """Play part ``k`` (games first .. first + n - 1) of the run ``identity`` and write it into the
    dataset ``out``, a chunk of games at a time, on the executor's threads. Returns (k, n, the
    part's sums), or (k, n, None) when the part was there already (a retry after its writer died
    between writing and reporting). Runs wherever the executor runs it; every argument is plain
    data."""
    where = "this worker"
    try:
        path = location(out)  # a URL: this worker needs fsspec and the scheme's package too
    except DatasetError as exc:
        return Failed(f"{where}: {exc}")
    if not (path / MANIFEST).is_file():
        return Failed(
            f"{where} does not see the dataset {out!r} (no {MANIFEST} there): --out must be a "
            "directory every worker sees, on a shared filesystem or at a URL"
        )
    try:
        if read_manifest(path).get("run") != identity:
            return Failed(
                f"{where} sees a different run in {out!r} than the client: --out must be the same "
                "directory on every worker"
            )
    except DatasetError as exc:
        return Failed(f"{where}: {exc}")
    rounds = records_rounds(identity)
    if all((path / sub / part_name(k)).is_file() for sub in tables_of(rounds)):
        return k, n, None
    try:
        specs = [rebuild_policy(p) for p in policies]
        run_rules = Rules.from_dict(rules)
    except (PolicyError, ValueError) as exc:
        return Failed(f"{where}: {exc}")
    chunks = spec.split_chunks(first, n)
    acc = SummaryAccumulator()
    names = [s.name for s in specs]
    writer: list[PartWriter] = []  # made when the first chunk is written
    written, told = [0], [0]  # games written into the part; the last reported

    def encode(i: int, score: np.ndarray, player: np.ndarray, game_out: np.ndarray, rows=None) -> tuple:
        lo = chunks[i][0]  # on the thread that played it, beside the others
        return (  # Arrow tables straight from the engine's arrays: no pandas on the way to the file
            seat_arrow(score, player, game_out, names, run_rules, lo),
            arrow_table(game_columns(game_out, players, run_rules, lo)),
            arrays_sums(score, player, game_out, names, lo),
            None if rows is None else arrow_table(round_columns(rows)),
        )

    def write(i: int, item: tuple) -> None:  # a row group per chunk, in game order
        seats, games, sums, round_rows = item
        if not writer:
            writer.append(PartWriter(path, k, rounds))
        writer[0].write(seats, games, round_rows)
        acc.merge(sums)
        written[0] += chunks[i][1]

    def progress() -> None:
        if written[0] != told[0]:
            told[0] = written[0]
            report(written[0])

    try:  # once its games are played the part only writes: the executor may play the next one beside it
        play_chunks(
            chunks,
            players,
            [(specs, run_rules)],
            seed,
            threads or threads_here() or default_threads(),
            encode,
            progress,
            stop_event(),
            release_hook(),
            write,
            rounds,
        )
        if writer:  # synced and renamed into place: the part is there whole or not at all
            writer.pop().close()
    except SimulationError as exc:  # the same games fail anywhere: not retried
        for w in writer:
            w.abort()
        return Failed(str(exc))
    except BaseException:  # an I/O error (retried on a cluster), or an interrupt
        for w in writer:
            w.abort()
        raise
    return k, n, acc.sums()


def simulate_summary(
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress=None,
) -> RunResult:
    """Play ``games`` games and keep only their headline tables (``RunResult.tables``, as
    ``summary.summary_tables`` gives), a chunk of games at a time: memory stays flat whatever
    ``games`` is. What ``smsim simulate`` without ``--out`` prints; ``simulate`` returns every
    row instead."""

    run = verify_run(games, players, policies, seed, rules)
    threads = checks.threads(threads)
    games, players, specs, rules = run.games, run.players, run.lineup, run.rules
    chunks = spec.split_chunks(0, games)
    acc = SummaryAccumulator()
    progress = _Reporter(on_progress, acc, games, 0)
    names = [s.name for s in specs]
    counted = [0]

    def sums(i: int, score: np.ndarray, player: np.ndarray, game_out: np.ndarray) -> dict:
        return arrays_sums(score, player, game_out, names, chunks[i][0])  # no table: only the sums

    def add(i: int, chunk_sums: dict) -> None:
        acc.merge(chunk_sums)
        counted[0] += chunks[i][1]

    def poll() -> None:
        if counted[0] != progress.played:
            progress.update(counted[0])

    play_chunks(chunks, players, [(specs, rules)], seed, threads or default_threads(), sums, poll, use=add)
    return RunResult(None, acc.tables(), progress.done, progress.played)


class _Reporter:
    """Calls ``on_progress`` with a ``Progress`` after each chunk."""

    def __init__(self, on_progress, acc, total: int, done: int) -> None:

        self.on_progress, self.acc, self.total, self.done, self.played = on_progress, acc, total, done, 0
        self.clock = time.perf_counter
        self.start = self.clock()

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
        self.on_progress(
            Progress(
                self.done,
                self.total,
                elapsed,
                self.played / elapsed if elapsed > 0 else 0.0,
                leader,
                rate,
                lo,
                hi,
                workers,
            )
        )
