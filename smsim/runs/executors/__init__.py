"""Executors: they are handed tasks (``Task``: a picklable function, its arguments and a name)
and hand back the results, knowing nothing of what the tasks do. ``local``: one task after
another on this machine, each on every core, the next one starting while the one before writes,
a few ahead of the caller; ``dask``: a Dask distributed cluster
(docs/cluster.md). A study makes its own tasks and hands them to ``open_executor(cluster)``, so a
new study never touches an executor.

May import: the facts (``smsim.errors``) only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from smsim.runs.executors.dask import DaskExecutor, check, connect
from smsim.runs.executors.local import LocalExecutor
from smsim.runs.executors.task import Failed, Stopped, Task, release_hook, report, stop_event, threads_here

__all__ = [
    "DaskExecutor",
    "Failed",
    "LocalExecutor",
    "Stopped",
    "Task",
    "check",
    "open_executor",
    "release_hook",
    "report",
    "stop_event",
    "threads_here",
]


@contextlib.contextmanager
def open_executor(cluster=None) -> Iterator[LocalExecutor | DaskExecutor]:
    """The executor of ``cluster``: None, this machine (``LocalExecutor``); a
    ``distributed.Client`` or an address (``local:N``, ``tcp://host:port``), the Dask executor on
    it, connected for the ``with`` block (``dask.connect``). An executor is passed through."""
    if cluster is None:
        yield LocalExecutor()
    elif isinstance(cluster, (LocalExecutor, DaskExecutor)):
        yield cluster
    else:
        with connect(cluster) as client:
            yield DaskExecutor(client)
