"""The local executor: tasks in order, a few ahead of the caller, progress on the caller's thread,
a task's ``Failed`` raised as ``TaskFailed``, the next task started beside one that released the
cores, and nothing left running when the caller stops."""

import threading
import time

import pytest

from smsim.errors import TaskFailed
from smsim.runs.executors import (
    Failed,
    LocalExecutor,
    Stopped,
    Task,
    open_executor,
    release_hook,
    report,
    stop_event,
    threads_here,
)


def square(x: int) -> int:
    report(x)
    return x * x


def test_results_come_in_order_with_progress_heard_on_the_callers_thread():
    heard = []
    caller = threading.current_thread()

    def on_progress(name: str, done: int) -> None:
        assert threading.current_thread() is caller
        heard.append((name, done))

    tasks = [Task(square, (x,), f"sq{x}") for x in range(6)]
    assert list(LocalExecutor().run(tasks, on_progress=on_progress)) == [(x, x * x) for x in range(6)]
    assert set(heard) <= {(f"sq{x}", x) for x in range(6)}


def test_a_task_runs_ahead_of_the_caller_but_no_further_than_ahead():
    started = []

    def note(x: int) -> int:
        started.append(x)
        return x

    results = LocalExecutor().run([Task(note, (x,), str(x)) for x in range(10)], ahead=2)
    assert next(results) == (0, 0)
    deadline = time.monotonic() + 10
    while len(started) < 4 and time.monotonic() < deadline:  # the executor plays on while the caller holds 0
        time.sleep(0.01)
    time.sleep(0.2)  # time enough to run further, were it allowed to
    assert started == [0, 1, 2, 3]  # the one taken, and at most two beyond the next
    results.close()
    assert not [t for t in threading.enumerate() if t.name == "smsim-tasks"]


def test_failed_is_raised_and_stops_the_rest():
    ran = []

    def fails_at(x: int):
        ran.append(x)
        return Failed(f"task {x} cannot be played") if x == 1 else x

    with pytest.raises(TaskFailed, match="task 1 cannot be played"):
        list(LocalExecutor().run([Task(fails_at, (x,), str(x)) for x in range(50)], ahead=1))
    assert len(ran) < 50


def test_closing_early_sets_the_running_tasks_stop_event():
    stopped = threading.Event()
    entered = threading.Event()

    def waits() -> int:
        entered.set()
        assert stop_event() is not None and threads_here() == 3
        if stop_event().wait(10):
            stopped.set()
        return 0

    results = LocalExecutor(threads=3).run([Task(square, (2,), "a"), Task(waits, (), "b")], ahead=1)
    assert next(results) == (0, 4)
    assert entered.wait(10)
    results.close()
    assert stopped.is_set()


def test_open_executor_is_local_without_a_cluster_and_passes_an_executor_through():
    with open_executor() as executor:
        assert isinstance(executor, LocalExecutor) and executor.workers == 0
        with open_executor(executor) as same:
            assert same is executor


def test_a_task_called_directly_reports_to_nobody():
    assert square(3) == 9 and stop_event() is None and threads_here() is None


def logged_tasks(n: int, releases: bool):
    """``n`` tasks that log their start and end; with ``releases``, each says its cores are free
    and then, as a part being written would, waits until the next task has started beside it."""
    log: list[tuple[str, int]] = []
    started = [threading.Event() for _ in range(n + 1)]

    def task(i: int) -> str:
        log.append(("start", i))
        started[i].set()
        if releases:
            release_hook()()
            if i + 1 < n:
                log.append(("beside", i) if started[i + 1].wait(10) else ("alone", i))
        log.append(("end", i))
        return f"part {i}"

    return [Task(task, (i,), f"t{i}") for i in range(n)], log


def test_the_next_task_starts_beside_one_that_released_the_cores_and_at_most_two_run():
    tasks, log = logged_tasks(6, releases=True)
    assert list(LocalExecutor().run(tasks)) == [(i, f"part {i}") for i in range(6)]
    assert [e for e in log if e[0] in ("beside", "alone")] == [("beside", i) for i in range(5)]
    at = {event: k for k, event in enumerate(log)}
    for i in range(4):  # the one writing, the one playing: a third waits until the first is done
        assert at[("end", i)] < at[("start", i + 2)]


def test_a_task_that_keeps_the_cores_runs_alone():
    tasks, log = logged_tasks(4, releases=False)
    assert list(LocalExecutor().run(tasks)) == [(i, f"part {i}") for i in range(4)]
    assert log == [(what, i) for i in range(4) for what in ("start", "end")]


def test_an_error_while_writing_comes_after_the_results_before_it_and_stops_the_task_beside_it():
    stopped = threading.Event()
    beside = threading.Event()

    def writes_then_fails() -> None:
        release_hook()()
        assert beside.wait(10)
        raise OSError("disk full")

    def plays() -> int:
        beside.set()
        if stop_event().wait(10):
            stopped.set()
        return 1

    results = LocalExecutor().run([Task(square, (3,), "a"), Task(writes_then_fails, (), "b"), Task(plays, (), "c")])
    assert next(results) == (0, 9)
    with pytest.raises(OSError, match="disk full"):
        next(results)
    assert stopped.is_set()


def test_a_task_stopped_because_another_failed_does_not_hide_that_failure():
    """A part being written is interrupted (Ctrl-C in its writer): its own pool sets the stop event
    the tasks share before its threads have ended, the part beside it raises Stopped at once, and
    the caller still hears the interruption, not the Stopped it caused."""
    beside = threading.Event()

    def written_then_interrupted() -> None:
        release_hook()()
        assert beside.wait(10)
        stop_event().set()  # as on_threads does at once when one of its threads raises
        time.sleep(0.3)  # and it raises only once its other threads have ended their slices
        raise KeyboardInterrupt

    def plays() -> int:
        beside.set()
        if stop_event().wait(10):
            raise Stopped()
        return 1

    results = LocalExecutor().run([Task(written_then_interrupted, (), "a"), Task(plays, (), "b")])
    with pytest.raises(KeyboardInterrupt):
        next(results)


def test_release_outside_an_executor_does_nothing():
    assert release_hook()() is None
