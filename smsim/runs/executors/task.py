"""What an executor is handed and hands back: a ``Task`` (a picklable function and its arguments,
under a name unique within the run) and, from a task that cannot succeed anywhere, ``Failed``.

A running task says how far it has got with ``report(done)``; its executor passes that on as
``on_progress(name, done)``, from this machine's threads or from a cluster's workers alike. A task
whose last stretch needs no cores of its own (its games are played; only writing them is left)
says so with the callback ``release_hook()`` gives it, and the local executor starts the next task
beside it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Task:
    """``fn(*args)``, run by an executor. ``fn`` is a module-level function (a worker imports it
    by name), ``args`` plain data; ``name`` is unique within a run (``part-000003``)."""

    fn: Callable[..., Any]
    args: tuple
    name: str


@dataclass(frozen=True)
class Failed:
    """The result of a task that would fail the same way on any worker (a policy that broke the
    interface, a directory the worker does not see): returned, not raised, so that no executor
    retries it. The executor raises ``TaskFailed`` with its message."""

    message: str


class Stopped(Exception):
    """A task's games were stopped from outside (its executor's stop event, or ``on_threads``'
    ``stop``) before every one was played: the consequence of another task's failure or of the
    caller closing the results, never a failure of its own."""


_running = threading.local()  # the hooks, the threads and the stop event of the task this thread runs


def _nothing() -> None:
    return None


def report(done: int) -> None:
    """Called by a running task: ``done`` (games written, say) so far. A no-op where no executor
    listens (a task called directly)."""
    hook = getattr(_running, "hook", None)
    if hook is not None:
        hook(done)


def stop_event() -> threading.Event | None:
    """Set when the executor wants the task running on this thread to stop (the caller closed the
    results, or Ctrl-C): a task that plays games passes it to ``play_chunks``."""
    return getattr(_running, "stop", None)


def threads_here() -> int | None:
    """The engine threads the executor gives the task running on this thread (None outside one)."""
    return getattr(_running, "threads", None)


def release_hook() -> Callable[[], None]:
    """The callback with which the task running on this thread says, from any of its own threads,
    that it needs the cores no more: what is left of it is I/O (a part's last rows encoded and
    written, the file synced), and the local executor may start the next task beside it. Taken on
    the task's thread, called from whichever thread gets there; a no-op outside an executor."""
    return getattr(_running, "release", None) or _nothing


def run_with_hook(
    task: Task,
    hook: Callable[[int], None] | None,
    threads: int | None = None,
    stop: threading.Event | None = None,
    release: Callable[[], None] | None = None,
) -> Any:
    """Run ``task`` on this thread, with ``report`` calling ``hook``, ``threads_here`` saying
    ``threads``, ``stop_event`` giving ``stop`` and ``release_hook`` giving ``release``."""
    names = ("hook", "threads", "stop", "release")
    before = [getattr(_running, name, None) for name in names]
    for name, value in zip(names, (hook, threads, stop, release)):
        setattr(_running, name, value)
    try:
        return task.fn(*task.args)
    finally:
        for name, value in zip(names, before):
            setattr(_running, name, value)
