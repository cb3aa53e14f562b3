"""The executor of this machine: tasks run one after another, each on a thread of its own and
spreading its games over every core itself (``runs.runner.play_chunks``), a few tasks ahead of
the caller taking their results, so the cores never wait while the caller sums a result.

A task that says its cores are free (``task.release_hook``: a dataset part whose games are all
played, its last rows still to encode and write) has the next task started beside it: one task
writes while the next plays, so no core waits on the writing either. At most two tasks run at
once, and only one of them holds the cores.

A Ctrl-C, or the caller closing the results early, sets the running tasks' stop event
(``task.stop_event``): a task still playing stops after its slice and keeps nothing half-written;
one that is writing finishes its part, whole.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from smsim.errors import TaskFailed
from smsim.runs.executors.task import Failed, Stopped, Task, run_with_hook

AHEAD = 2  # results played beyond the one the caller is taking, at most
RUNNING = 2  # tasks at once, at most: the one holding the cores and the one before it, writing


class LocalExecutor:
    """Runs tasks here, each on ``threads`` engine threads (None: the task's own default, every
    core). ``workers`` is 0: no cluster."""

    workers = 0

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads

    def run(
        self,
        tasks: Sequence[Task],
        *,
        ordered: bool = False,
        ahead: int | None = None,
        on_progress: Callable[[str, int], None] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        """Yield (index, result) of each task, in the order given (``ordered`` changes nothing).
        ``ahead``: tasks finished beyond the one taken, at most. Progress reports reach
        ``on_progress`` on the caller's thread. Closing the iterator stops the tasks in play and
        runs no more."""
        if not tasks:
            return
        ahead = max(1, ahead or AHEAD)
        cond = threading.Condition()
        stop = threading.Event()
        # taken: results the caller has; cores: the task holding the cores (None: free); alive: tasks running
        state: dict[str, Any] = {"taken": 0, "cores": None, "alive": 0, "over": False, "error": None}
        ready: dict[int, Any] = {}
        heard: dict[str, int] = {}

        def hook_for(name: str) -> Callable[[int], None]:
            def hook(done: int) -> None:
                with cond:
                    heard[name] = done
                    cond.notify_all()

            return hook

        def release_for(i: int) -> Callable[[], None]:
            def release() -> None:
                with cond:
                    if state["cores"] == i:
                        state["cores"] = None
                        cond.notify_all()

            return release

        def keep_error(exc: BaseException) -> None:
            """The first error, but never a ``Stopped`` over the failure that stopped it: a failing
            task sets the stop event its neighbour shares before its own threads have ended, so the
            neighbour's ``Stopped`` can come first. Called under ``cond``."""
            if state["error"] is None or (isinstance(state["error"], Stopped) and not isinstance(exc, Stopped)):
                state["error"] = exc

        def run_one(i: int, task: Task) -> None:
            try:
                result = run_with_hook(task, hook_for(task.name), self.threads, stop, release_for(i))
                with cond:
                    ready[i] = result
            except BaseException as exc:  # raised on the caller's thread, after the results before it
                with cond:
                    keep_error(exc)
                stop.set()  # the task beside it would be thrown away: stop it
            finally:
                with cond:
                    if state["cores"] == i:
                        state["cores"] = None
                    state["alive"] -= 1
                    cond.notify_all()

        def produce() -> None:
            running: list[threading.Thread] = []
            try:
                for i, task in enumerate(tasks):
                    with cond:
                        # far enough ahead of the caller, or the cores still held, or one task still writing: wait
                        while not stop.is_set() and (
                            i > state["taken"] + ahead or state["cores"] is not None or state["alive"] >= RUNNING
                        ):
                            cond.wait(0.1)
                        if stop.is_set():
                            return
                        state["cores"] = i
                        state["alive"] += 1
                    thread = threading.Thread(target=run_one, args=(i, task), name=f"smsim-task-{i}", daemon=True)
                    running.append(thread)
                    thread.start()
            except BaseException as exc:  # no thread to start a task on: raised on the caller's thread
                with cond:
                    keep_error(exc)
                stop.set()
            finally:
                for thread in running:
                    thread.join()
                with cond:
                    state["over"] = True
                    cond.notify_all()

        producer = threading.Thread(target=produce, name="smsim-tasks", daemon=True)
        producer.start()
        try:
            for i in range(len(tasks)):
                with cond:
                    while i not in ready and not state["over"]:
                        if heard and on_progress is not None:
                            news = dict(heard)
                            heard.clear()
                            cond.release()  # the caller's callback runs without the lock
                            try:
                                for name, done in news.items():
                                    on_progress(name, done)
                            finally:
                                cond.acquire()
                            continue
                        cond.wait(0.2)
                    if i not in ready:
                        raise state["error"] or RuntimeError("the tasks stopped early")
                    result = ready.pop(i)
                    heard.pop(tasks[i].name, None)  # its last reports: the result says it all
                    state["taken"] = i + 1
                    cond.notify_all()
                if isinstance(result, Failed):
                    raise TaskFailed(result.message)
                yield i, result
        finally:
            stop.set()
            with cond:
                cond.notify_all()
            producer.join()
