"""The Dask executor (``--cluster``, docs/cluster.md): tasks run on a Dask distributed cluster.

It is handed ``Task``s (``executors.task``) and hands back their results, knowing nothing of what
they do: ``simulate`` and ``sweep`` hand it one task per dataset part (the worker writes the part
into the output directory, which every worker must see), ``compare`` one per round of blocks
(the worker sends the round's games back). Each task is submitted under a unique key with
retries for errors that may pass (I/O); a task whose worker dies is given to another worker by
the scheduler, and since every game depends only on (seed, game), the results are those of a run
on this machine alone. A task that would fail anywhere returns ``Failed``, which is not retried.

Workers report progress (``task.report``) through ``Worker.log_event``; the client hears it.

Connecting to a running scheduler (``tcp://host:port``) first asks every worker which smsim it
imports (``verify_workers``): a worker without smsim, or with another version or other sources,
stops the command with one line before anything is written, where it would otherwise fail every
task it is given, or leave the run waiting for ever.

Dask is an optional dependency (``pip install 'smsim[dask]'``): this module imports it inside
functions only, and no other module of smsim imports it at all.

>>> parse_address("local:2")
('local', 2)
>>> parse_address("tcp://10.0.0.5:8786")
('remote', 'tcp://10.0.0.5:8786')
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from smsim import __version__
from smsim._cache import package_hash
from smsim.checks import int_or_text, whole
from smsim.errors import ClusterError, TaskFailed
from smsim.runs.executors.local import LocalExecutor
from smsim.runs.executors.task import Failed, Task, run_with_hook

DASK_MISSING = "--cluster needs Dask: pip install 'smsim[dask]'"
PROGRESS_TOPIC = "smsim-task-progress"  # workers' reports of their tasks' progress (Worker.log_event)
CONNECT_TIMEOUT = 20  # seconds to wait for a remote scheduler to answer
CHECK_TIMEOUT = 30  # seconds for every worker to report its smsim (a worker busy compiling still answers)
SAME_SMSIM = "install the same smsim on every worker"
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
        n = int_or_text(text.partition(":")[2].strip())
        return "local", whole(n, f"--cluster {text!r}: N in local:N", low=1, error=ClusterError)
    m = _REMOTE.match(text)
    if m is None:
        raise ClusterError(f"--cluster: {usage}, got {text!r}")
    if not 1 <= int(m.group(3)) <= 65535:
        raise ClusterError(f"--cluster {text!r}: the port must be from 1 to 65535")
    return "remote", text.rstrip("/")


def require_dask() -> None:
    """Raise ``ClusterError(DASK_MISSING)`` unless dask.distributed can be imported."""
    try:
        import distributed  # noqa: F401  (optional: whether it is installed)
    except ImportError:
        raise ClusterError(DASK_MISSING) from None


def check(cluster) -> None:
    """Refuse a bad address, or a missing Dask, before anything is written (None, this machine
    alone, and a Client pass)."""
    if cluster is None or isinstance(cluster, (LocalExecutor, DaskExecutor)):
        return
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

    from distributed import Client, LocalCluster  # Dask is optional: loaded only for --cluster

    kind, where = parse_address(cluster)
    if kind == "local":
        # processes, not threads: each worker its own interpreter, as on separate machines
        with _sigint_ignored():  # Ctrl-C stops the command, which shuts the workers down in order
            local = LocalCluster(
                n_workers=where,
                threads_per_worker=local_threads(where),
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        with local, Client(local) as client:
            yield client
        return
    try:
        client = Client(where, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"--cluster {where}: no scheduler answered within {CONNECT_TIMEOUT} s ({exc})") from None
    with client:
        # workers started by hand may run anything: one without smsim would fail every task it is
        # given (and a run whose workers all lack it would wait forever), one with other sources
        # could write other bytes; a LocalCluster's workers run this very interpreter
        verify_workers(client, where)
        yield client


@functools.cache  # hashed once per process: a worker whose checkout changes on disk under it still runs the old code
def smsim_identity() -> tuple[str, str]:
    """The smsim this process runs: (``smsim.__version__``, ``_cache.package_hash()``, a hash of
    every module's source), what ``verify_workers`` compares between the client and each worker."""
    return __version__, package_hash()


def verify_workers(client, address: str, timeout: float | None = None) -> None:
    """Raise a one-line ``ClusterError`` unless every worker of ``client`` imports the same smsim
    as this process (``smsim_identity``) and says so within ``timeout`` seconds (``CHECK_TIMEOUT``).
    Workers that join later are not checked (their tasks fail with the worker's own error)."""

    def probe() -> tuple[str | None, str]:
        # defined in here so that Dask ships it by value (cloudpickle), not as a name in this
        # module: it runs on a worker where smsim may be missing or another, so it looks smsim up
        # by name there, at run time, rather than importing it as this module's code does
        try:
            smsim = importlib.import_module("smsim")
        except Exception as exc:  # ImportError, or an smsim that is broken on import
            return None, f"{type(exc).__name__}: {exc}"
        try:
            return importlib.import_module("smsim.runs.executors.dask").smsim_identity()
        except Exception:  # an smsim from before this check, or an incomplete one
            return str(getattr(smsim, "__version__", "unknown")), "unknown"

    timeout = CHECK_TIMEOUT if timeout is None else timeout
    try:
        # Client.run has no timeout of its own; this is the call it makes, under a bounded wait
        answers = client.sync(client._run, probe, on_error="return", callback_timeout=timeout)
    except TimeoutError:
        raise ClusterError(
            f"--cluster {address}: the workers did not report their smsim version within {timeout:g} s (a worker hung?)"
        ) from None
    except OSError as exc:  # the scheduler went away meanwhile
        raise ClusterError(f"--cluster {address}: lost the scheduler while checking the workers ({exc})") from None
    here = smsim_identity()
    wrong = []
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):  # the probe itself could not run there
            wrong.append(f"worker {worker} cannot run smsim's check ({_one_line(answer)})")
        elif answer[0] is None:
            wrong.append(f"worker {worker} cannot import smsim ({_one_line(answer[1])})")
        elif tuple(answer) != here:
            wrong.append(f"worker {worker} runs smsim {answer[0]} (source {answer[1]})")
    if wrong:
        more = f"; {len(wrong) - 1} more worker(s) differ too" if len(wrong) > 1 else ""
        raise ClusterError(
            f"--cluster {address}: {wrong[0]}, this machine smsim {here[0]} (source {here[1]}): {SAME_SMSIM}{more}"
        )


def _one_line(error) -> str:
    """An exception (or its text) as one line: the first line of its message, with its type."""
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return (text.strip().splitlines() or [""])[0]


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


# -- the worker's side --------------------------------------------------------------------------
def _worker():
    try:
        from distributed import get_worker  # optional, as everywhere in this module

        return get_worker()
    except (ImportError, ValueError):  # called outside a worker
        return None


def worker_threads(worker) -> int:
    """Engine threads for one task on ``worker``: its cores shared among the tasks it runs at once
    (one per worker thread)."""
    slots = getattr(worker, "nthreads", 1) if worker is not None else 1
    return max(1, (os.cpu_count() or 1) // max(1, slots))


def run_task(fn: Callable[..., Any], args: tuple, name: str, token: str) -> Any:
    """``fn(*args)`` on a worker, its ``report``s sent to the client as events."""
    worker = _worker()

    def hook(done: int) -> None:
        if worker is not None:
            worker.log_event(PROGRESS_TOPIC, {"token": token, "name": name, "done": done})

    return run_with_hook(Task(fn, args, name), hook, worker_threads(worker))


# -- the client's side ---------------------------------------------------------------------------
class DaskExecutor:
    """Runs tasks on the cluster of a ``distributed.Client``."""

    def __init__(self, client, retries: int = 3) -> None:
        self.client, self.retries = client, retries
        self._workers, self._asked = worker_count(client), time.monotonic()

    @property
    def workers(self) -> int:
        """The cluster's workers now (asked of the scheduler at most every 2 s)."""
        now = time.monotonic()
        if now - self._asked > 2:
            self._workers, self._asked = worker_count(self.client), now
        return self._workers

    def threads(self) -> int:
        """The threads of every worker together."""
        return sum(self.client.nthreads().values())

    def run(
        self,
        tasks: Sequence[Task],
        *,
        ordered: bool = False,
        ahead: int | None = None,
        on_progress: Callable[[str, int], None] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        """Yield (index, result) of each task: as they finish, or in the order given (``ordered``).
        ``ahead``: at most that many tasks in flight (else all at once). Closing the iterator, or
        an error, cancels the tasks still in flight."""
        from distributed import KilledWorker, wait  # optional, as everywhere in this module

        if not tasks:
            return
        client, token = self.client, uuid.uuid4().hex
        heard: dict[str, int] = {}  # task name -> its last report (written by the client's event loop)

        def listen(event) -> None:
            msg = event[1] if isinstance(event, tuple) else event
            if isinstance(msg, dict) and msg.get("token") == token:
                heard[msg["name"]] = msg["done"]

        if on_progress is not None:
            client.subscribe_topic(PROGRESS_TOPIC, listen)
        waiting = iter(enumerate(tasks))
        flight: dict = {}  # future -> task index

        def submit(count: int) -> None:
            for i, task in waiting:
                future = client.submit(
                    run_task,
                    task.fn,
                    task.args,
                    task.name,
                    token,
                    key=f"smsim-{task.name}-{token}",
                    pure=False,
                    retries=self.retries,
                )
                flight[future] = i
                count -= 1
                if count == 0:
                    return

        def result(future):
            task = tasks[flight.pop(future)]
            try:
                value = future.result()
            except KilledWorker:
                raise ClusterError(f"{task.name} was given up: the workers that ran it died (see their logs)") from None
            except OSError:
                raise  # the caller knows what the task was writing
            except Exception as exc:  # e.g. a worker without smsim, or the scheduler gone
                raise ClusterError(f"{task.name} failed on the cluster: {type(exc).__name__}: {exc}") from None
            if isinstance(value, Failed):
                raise TaskFailed(value.message)
            return value

        told: dict[str, int] = {}
        try:
            submit(ahead or len(tasks))
            while flight:
                if ordered:
                    future = min(flight, key=flight.get)
                    done = [future] if future.done() else []
                else:
                    done = [f for f in flight if f.done()]
                for future in sorted(done, key=flight.get):
                    i = flight[future]
                    value = result(future)
                    heard.pop(tasks[i].name, None)
                    yield i, value
                    if ahead:
                        submit(1)
                if on_progress is not None:
                    for name, count in list(heard.items()):
                        if told.get(name) != count:
                            told[name] = count
                            on_progress(name, count)
                if not done:
                    with contextlib.suppress(Exception):
                        wait(list(flight), timeout=0.2, return_when="FIRST_COMPLETED")
        finally:
            for future in flight:  # on an error, an interrupt or an early stop: nothing left running
                future.cancel()
            if on_progress is not None:
                with contextlib.suppress(Exception):
                    client.unsubscribe_topic(PROGRESS_TOPIC)
