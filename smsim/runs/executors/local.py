"""The executor of this machine: tasks run one after another on a thread of their own, each
spreading its games over every core itself (``runs.runner.play_chunks``), a few tasks ahead of
the caller taking their results, so the cores never wait while the caller sums a result.

A Ctrl-C, or the caller closing the results early, sets the running task's stop event
(``task.stop_event``): its threads stop after their slice, and it keeps nothing half-written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from smsim.errors import TaskFailed
from smsim.runs.executors.task import Failed, Task, run_with_hook

AHEAD = 2  # results played beyond the one the caller is taking, at most


class LocalExecutor:
    """Runs tasks here, each on ``threads`` engine threads (None: the task's own default, every
    core). ``workers`` is 0: no cluster."""

    workers = 0

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads

    def run(self, tasks: Sequence[Task], *, ordered: bool = False, ahead: int | None = None,
            on_progress: Callable[[str, int], None] | None = None) -> Iterator[tuple[int, Any]]:  # fmt: skip
        """Yield (index, result) of each task, in the order given (here they finish in that order,
        so ``ordered`` changes nothing). ``ahead``: tasks finished beyond the one taken, at most.
        Progress reports reach ``on_progress`` on the caller's thread. Closing the iterator stops
        the task in play and runs no more."""
        if not tasks:
            return
        ahead = max(1, ahead or AHEAD)
        cond = threading.Condition()
        stop = threading.Event()
        state: dict[str, Any] = {"taken": 0, "over": False, "error": None}
        ready: dict[int, Any] = {}
        heard: dict[str, int] = {}

        def hook_for(name: str):
            def hook(done: int) -> None:
                with cond:
                    heard[name] = done
                    cond.notify_all()

            return hook

        def produce() -> None:
            try:
                for i, task in enumerate(tasks):
                    with cond:
                        while i > state["taken"] + ahead and not stop.is_set():
                            cond.wait(0.1)  # far enough ahead: wait for the caller
                    if stop.is_set():
                        return
                    result = run_with_hook(task, hook_for(task.name), self.threads, stop)
                    with cond:
                        ready[i] = result
                        cond.notify_all()
            except BaseException as exc:  # raised on the caller's thread
                with cond:
                    state["error"] = exc
            finally:
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
