"""Runs on a Dask distributed cluster (``--cluster``, docs/cluster.md).

The unit of work of ``simulate`` and ``sweep`` is one part of a dataset (games k*B .. (k+1)*B - 1):
a worker plays it and writes it with ``dataset.PartWriter`` straight into the output directory,
which every worker must see (a shared filesystem, or a URL such as ``s3://bucket/run``: ``storage``);
the client keeps the manifest, the summary and the progress. A part is written under a temporary
name and renamed (at a URL: uploaded whole), so a worker that dies mid-part leaves no part behind,
and the scheduler gives the part to another worker; every game depends only on (seed, game), so
the dataset is byte-identical to one written on this machine alone.

The unit of work of ``compare`` is one round of blocks: a worker plays it and sends its tables
back (a comparison's games are one file, written by the client), and the client takes the rounds
in order, so the comparison is the one played here.

Dask is an optional dependency (``pip install 'smsim[dask]'``): this module imports it inside
functions only, and no other module of smsim imports it at all.

>>> parse_address("local:2")
('local', 2)
>>> parse_address("tcp://10.0.0.5:8786")
('remote', 'tcp://10.0.0.5:8786')
"""

from __future__ import annotations

from smsim.errors import ClusterError

import contextlib
import hashlib
import os
import re
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

DASK_MISSING = "--cluster needs Dask: pip install 'smsim[dask]'"
PROGRESS_TOPIC = "smsim-part-progress"  # workers' per-chunk reports (Worker.log_event)
CONNECT_TIMEOUT = 20  # seconds to wait for a remote scheduler to answer
_REMOTE = re.compile(r"^(tcp|tls)://([^\s:/]+|\[[0-9a-fA-F:]+\]):(\d{1,5})/?$")


# -- the address --------------------------------------------------------------------------------
def parse_address(text: str) -> tuple[str, int | str]:
    """``local:N`` -> ("local", N), a LocalCluster of N worker processes on this machine;
    ``tcp://host:port`` (or ``tls://``) -> ("remote", address), a running ``dask scheduler``."""
    usage = "expected local:N (N worker processes on this machine) or a scheduler address tcp://host:port"
    if not isinstance(text, str) or not text.strip():
        raise ClusterError(f"--cluster: {usage}, got {text!r}")
    text = text.strip()
    if text.startswith("local:") or text == "local":
        count = text.partition(":")[2]
        if not count.strip().isdigit():
            raise ClusterError(f"--cluster {text!r}: N in local:N must be a whole number >= 1")
        n = int(count)
        if n < 1:
            raise ClusterError(f"--cluster {text!r}: N in local:N must be >= 1, got {n}")
        return "local", n
    m = _REMOTE.match(text)
    if m is None:
        raise ClusterError(f"--cluster: {usage}, got {text!r}")
    if not 1 <= int(m.group(3)) <= 65535:
        raise ClusterError(f"--cluster {text!r}: the port must be from 1 to 65535")
    return "remote", text.rstrip("/")


def require_dask() -> None:
    """Raise ``ClusterError(DASK_MISSING)`` unless dask.distributed can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterError(DASK_MISSING) from None


def check(cluster) -> None:
    """Refuse a bad address, or a missing Dask, before anything is written (a Client passes)."""
    if isinstance(cluster, str):
        parse_address(cluster)
    require_dask()


def local_threads(n_workers: int) -> int:
    """Threads of each worker of a LocalCluster of ``n_workers``: the cores shared out, at least 1."""
    return max(1, (os.cpu_count() or 1) // n_workers)


@contextlib.contextmanager
def connect(cluster):
    """A ``distributed.Client`` for ``cluster``: a Client is used as it is (and left open); an
    address string starts a LocalCluster (``local:N``, shut down on exit) or connects to a running
    scheduler (``tcp://host:port``, the client closed on exit, the scheduler left running)."""
    check(cluster)
    if not isinstance(cluster, str):
        yield cluster
        return
    import logging

    from distributed import Client, LocalCluster

    kind, where = parse_address(cluster)
    if kind == "local":
        # processes, not threads: each worker its own interpreter, as on separate machines
        with _sigint_ignored():  # Ctrl-C stops the command, which shuts the workers down in order
            local = LocalCluster(n_workers=where, threads_per_worker=local_threads(where), processes=True,
                                 dashboard_address=None, silence_logs=logging.ERROR)  # fmt: skip
        with local, Client(local) as client:
            yield client
        return
    try:
        client = Client(where, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"--cluster {where}: no scheduler answered within {CONNECT_TIMEOUT} s ({exc})") from None
    with client:
        yield client


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while worker processes start: they inherit it (through exec, and Python
    keeps an ignored SIGINT), so a Ctrl-C in the terminal reaches only the command, not every
    worker with a traceback of its own."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def worker_count(client) -> int:
    return len(client.scheduler_info()["workers"])


# -- policies shipped to workers ------------------------------------------------------------------
@dataclass(frozen=True)
class UserPolicyRef:
    """A user's ``file.py:function`` policy as a worker rebuilds it: the file must be at the same
    absolute path on every worker (a shared filesystem) and hold the same bytes as here."""

    spec: Any  # the PolicySpec without its jitted function
    path: str
    name: str
    sha256: str


def ship_policy(spec):
    """What a worker needs to rebuild ``spec``: the spec itself (plain data: name, kind, weights),
    with a user's jitted function replaced by a reference to its file."""
    from smsim.layout import PolicyKind

    if spec.base is not None:
        spec = replace(spec, base=ship_policy(spec.base))
    if spec.kind != PolicyKind.USER:
        return spec
    file, _, name = spec.source.rpartition(":")
    path = Path(file).resolve()
    return UserPolicyRef(replace(spec, fn=None), str(path), name, hashlib.sha256(path.read_bytes()).hexdigest())


def rebuild_policy(shipped):
    """The PolicySpec ``ship_policy`` shipped, on a worker."""
    from smsim.errors import PolicyError
    from smsim.policies.registry import load_user_policy

    if isinstance(shipped, UserPolicyRef):
        path = Path(shipped.path)
        if not path.is_file():
            raise PolicyError(f"policy {shipped.spec.source!r}: no file {shipped.path!r} on this worker "
                              "(a user's policy file must be at the same path on every worker)")  # fmt: skip
        if hashlib.sha256(path.read_bytes()).hexdigest() != shipped.sha256:
            raise PolicyError(f"policy {shipped.spec.source!r}: {shipped.path!r} differs on this worker "
                              "from the client's copy")  # fmt: skip
        fn = load_user_policy(f"{shipped.path}:{shipped.name}").fn
        return replace(shipped.spec, fn=fn)
    if shipped.base is not None:
        return replace(shipped, base=rebuild_policy(shipped.base))
    return shipped


# -- the worker's side --------------------------------------------------------------------------
@dataclass(frozen=True)
class PartFailed:
    """A part that cannot be played anywhere (a policy that broke the interface, a directory this
    worker does not see): returned, not raised, so that the scheduler does not retry it."""

    message: str


def _worker():
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):  # called outside a worker (tests call it directly)
        return None


def _part_threads(threads: int | None, worker) -> int:
    """Engine threads for one part: ``threads`` if given, else the worker's cores shared among the
    parts it runs at once (one per worker thread)."""
    if threads:
        return threads
    slots = getattr(worker, "nthreads", 1) if worker is not None else 1
    return max(1, (os.cpu_count() or 1) // max(1, slots))


def play_part(out: str, k: int, first: int, n: int, players: int, policies: list, seed: int, rules: dict,
              identity: dict, threads: int | None = None, token: str = "") -> tuple[int, int, bool] | PartFailed:
    """Play part ``k`` (games first .. first + n - 1) of the run ``identity`` and write it into the
    dataset ``out``, a chunk of games at a time, exactly as ``sim.simulate_to`` does here. Returns
    (k, n, played): played is False when the part was already there (a retry after its writer
    died between writing and reporting). Runs on a worker; every argument is plain data."""
    from smsim.runs.dataset import MANIFEST, part_name, read_manifest
    from smsim.errors import DatasetError
    from smsim.errors import PolicyError
    from smsim.rules import Rules
    from smsim.runs.runner import play_chunks
    from smsim.runs.spec import split_chunks
    from smsim.runs.batch import _PartSink
    from smsim.errors import SimulationError
    from smsim.runs.storage import location
    from smsim.runs.summary import SummaryAccumulator

    worker = _worker()
    where = f"worker {worker.address}" if worker is not None else "this worker"
    try:
        path = location(out)  # a URL: this worker needs fsspec and the scheme's package too
    except DatasetError as exc:
        return PartFailed(f"{where}: {exc}")
    if not (path / MANIFEST).is_file():
        return PartFailed(f"{where} does not see the dataset {out!r} (no {MANIFEST} there): --out must be a "
                          "directory every worker sees, on a shared filesystem or at a URL")  # fmt: skip
    try:
        if read_manifest(path).get("run") != identity:
            return PartFailed(f"{where} sees a different run in {out!r} than the client: --out must be the same "
                              "directory on every worker")  # fmt: skip
    except DatasetError as exc:
        return PartFailed(f"{where}: {exc}")
    if all((path / sub / part_name(k)).is_file() for sub in ("seats", "games")):
        return k, n, False
    try:
        specs = [rebuild_policy(p) for p in policies]
        run_rules = Rules.from_dict(rules)
    except (PolicyError, ValueError) as exc:
        return PartFailed(f"{where}: {exc}")
    chunks = [(k, lo, m) for lo, m in split_chunks(first, n)]
    sink = _PartSink(path, chunks, specs, run_rules, SummaryAccumulator())  # the client sums the part from disk
    threads = _part_threads(threads, worker)
    reported = [0]

    def progress() -> None:
        if worker is not None and reported[0] < sink.written < n:
            reported[0] = sink.written
            worker.log_event(PROGRESS_TOPIC, {"token": token, "part": k, "done": sink.written})

    try:
        play_chunks([(lo, m) for _, lo, m in chunks], players, [(specs, run_rules)], seed, threads, sink.finish,
                    progress)  # fmt: skip
        sink.close_all()
    except SimulationError as exc:  # the same games fail on any worker: no retry
        sink.abort()
        return PartFailed(str(exc))
    except BaseException:  # an I/O error: the scheduler retries the part
        sink.abort()
        raise
    return k, n, True


# -- the client's side ---------------------------------------------------------------------------
def play_parts(cluster, path, parts: list[tuple[int, int, int]], players: int, specs: list, seed: int,
               rules, identity: dict, threads: int | None, acc, progress, retries: int = 3) -> None:
    """Play the dataset parts ``parts`` ((k, first game, games) each) on ``cluster`` (a Client or
    an address) and add each finished part to the summary ``acc`` from what was written;
    ``progress`` (``sim._Reporter``) hears games done across the cluster as workers play them.

    Parts go to the scheduler all at once (each with a unique key, ``retries`` for I/O errors; a
    part whose worker dies is rescheduled by the scheduler itself) and are taken back in the order
    they finish."""
    from smsim.runs.dataset import part_name
    from smsim.errors import DatasetError
    from smsim.errors import SimulationError

    if not parts:
        return
    with connect(cluster) as client:
        from distributed import KilledWorker, as_completed

        token = uuid.uuid4().hex
        in_flight: dict[int, int] = {}  # part -> games of it written so far (reports from workers)

        def heard(event) -> None:  # runs on the client's event loop: only updates the dict
            msg = event[1] if isinstance(event, tuple) else event
            if isinstance(msg, dict) and msg.get("token") == token:
                in_flight[msg["part"]] = msg["done"]

        client.subscribe_topic(PROGRESS_TOPIC, heard)
        shipped = [ship_policy(s) for s in specs]
        futures = {}
        for k, first, n in parts:
            future = client.submit(play_part, str(path), k, first, n, players, shipped, seed, rules.to_dict(),
                                   identity, threads, token, key=f"smsim-part-{k:06d}-{token}", pure=False,
                                   retries=retries)  # fmt: skip
            futures[future] = (k, first, n)
        finished, told = 0, None
        workers, asked = worker_count(client), time.monotonic()
        pending = as_completed(list(futures))
        try:
            while not pending.is_empty():
                batch = pending.next_batch(block=False)
                for future in batch:
                    k, first, n = futures[future]
                    try:
                        result = future.result()
                    except KilledWorker:
                        raise SimulationError(f"part {k} (games {first} to {first + n - 1}) was given up: the "
                                              "workers that played it died (see their logs)") from None  # fmt: skip
                    except OSError as exc:
                        raise DatasetError(f"cannot write part {k} to {str(path)!r} on a worker: {exc}") from None
                    except Exception as exc:  # e.g. a worker without smsim, or the scheduler gone
                        raise ClusterError(f"part {k} failed on the cluster: {type(exc).__name__}: {exc}") from None
                    if isinstance(result, PartFailed):
                        raise SimulationError(result.message)
                    if not all((path / sub / part_name(k)).is_file() for sub in ("seats", "games")):
                        raise DatasetError(f"a worker wrote part {k}, but it is not in {str(path)!r} here: --out "
                                           "must be a directory every worker sees, on a shared filesystem or at a "
                                           "URL")  # fmt: skip
                    acc.add_part(path, k)
                    in_flight.pop(k, None)
                    finished += n
                now = time.monotonic()
                if now - asked > 2:
                    workers, asked = worker_count(client), now
                news = (finished + sum(in_flight.values()), workers)
                if news != told:
                    progress.update(*news)
                    told = news
                if not batch:
                    time.sleep(0.2)
        finally:
            for future in futures:  # on an error or an interrupt: nothing left running for this run
                if not future.done():
                    future.cancel()
            with contextlib.suppress(Exception):
                client.unsubscribe_topic(PROGRESS_TOPIC)
    for stale in path.glob("*/.part-*.tmp-*"):  # a dead worker's half-written part
        stale.unlink(missing_ok=True)


# -- compare: rounds of blocks ------------------------------------------------------------------
def play_blocks(first: int, n: int, arrs: list, policies: list, names: list, players: int, seed: int, rules: dict,
                threads: int | None = None, tables: bool = True):  # fmt: skip
    """Blocks first .. first + n - 1 of a comparison (``comparison.play_blocks``) on a worker: their
    ``RoundGames`` (with the tables per seat arrangement when ``tables``), or ``PartFailed`` for a
    policy that broke the interface."""
    from smsim.studies.compare import play_blocks as play
    from smsim.errors import PolicyError
    from smsim.rules import Rules
    from smsim.errors import SimulationError

    try:
        specs = [rebuild_policy(p) for p in policies]
        return play(first, n, arrs, specs, names, players, seed, Rules.from_dict(rules),
                    _part_threads(threads, _worker()), tables)  # fmt: skip
    except (SimulationError, PolicyError) as exc:
        return PartFailed(str(exc))


def blocks_on_cluster(cluster, rounds: list[tuple[int, int]], arrs: list, specs: list, names: list, players: int,
                      seed: int, rules, threads: int | None, tables: bool = True, retries: int = 3):  # fmt: skip
    """Yield the games (``comparison.RoundGames``) of each round (first block, blocks) of a comparison, in order, played on
    ``cluster``: a few rounds ahead of the one taken are in flight (twice the cluster's threads),
    so a comparison that stops early (``precision``) leaves little work behind; closing the
    generator cancels it."""
    from smsim.errors import SimulationError

    if not rounds:
        return
    with connect(cluster) as client:
        from distributed import KilledWorker

        token = uuid.uuid4().hex
        shipped = [ship_policy(s) for s in specs]
        ahead = max(2, 2 * sum(client.nthreads().values()))
        waiting = iter(rounds)
        flight: list = []

        def submit_next() -> None:
            for first, n in waiting:
                flight.append(client.submit(play_blocks, first, n, arrs, shipped, names, players, seed, rules.to_dict(),
                                            threads, tables, key=f"smsim-blocks-{first:09d}-{token}", pure=False,
                                            retries=retries))  # fmt: skip
                return

        try:
            for _ in range(ahead):
                submit_next()
            while flight:
                future = flight.pop(0)
                try:
                    result = future.result()
                except KilledWorker:
                    raise SimulationError("a round of blocks was given up: the workers that played it died (see "
                                          "their logs)") from None  # fmt: skip
                except Exception as exc:  # e.g. a worker without smsim, or the scheduler gone
                    raise ClusterError(f"a round of blocks failed on the cluster: {type(exc).__name__}: {exc}") from None
                if isinstance(result, PartFailed):
                    raise SimulationError(result.message)
                submit_next()
                yield result
        finally:
            for future in flight:
                future.cancel()
