"""The default suite's cost, kept: a pytest plugin (loaded by tests/conftest.py) that sums the time
of every test (setup, call and teardown), splits off what numba spent compiling or loading the
engine (which a fresh clone pays and a warm cache does not), prints both at the end of a run, and
fails a run of the whole default suite whose test time, less compiling, is over the budget
(``test_time_budget`` in pyproject.toml). Growth past it is then a decision (raise the budget, or
mark a test slow), not drift.

Under pytest-xdist each worker times its own tests and compiles; the controller adds them up.

It also orders the test files longest first, so that the workers (``--dist loadfile``, a file to a
worker, handed out in order) end together rather than one waiting on the last long file: each
file's seconds in the last run are kept in pytest's cache (``smsim/file_seconds``); without them
(a fresh clone, ``-p no:cacheprovider``) the files with the most tests go first, xdist's own order.
"""

from __future__ import annotations

import time

import pytest

_KEY = "smsim_timing"
_FILE_SECONDS = "smsim/file_seconds"


def pytest_addoption(parser):
    parser.addini(
        "test_time_budget", "seconds the whole default suite's tests may take, less numba compiling", default="0"
    )


class Timing:
    def __init__(self, config):
        self.config = config
        self.test_s = 0.0  # every report's duration, on this process or sent by the workers
        self.compile_s = 0.0  # numba compiling and cache loading, added up over the workers
        self.started = time.perf_counter()
        self.listener = None
        self.times_compiles = False  # this process runs tests (a worker, or pytest without workers)
        self.compiles: dict[str, float] = {}  # test -> seconds numba compiled in it (its setup and call)
        self.file_s: dict[str, float] = {}  # test file -> its tests' seconds in this run

    def start_compile_timer(self) -> None:
        """Time numba's compiles in this process (a worker, or pytest without xdist). Importing smsim
        first points numba's cache where smsim keeps it."""
        import smsim  # noqa: F401, I001 (first: it points numba's cache, see the docstring)
        from numba.core import event

        self.listener = event.TimingListener()  # counts nested compiles once
        event.register("numba:compile", self.listener)

    def compile_here(self) -> float:
        return self.listener.duration if self.listener is not None and self.listener.done else 0.0

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item):
        if self.listener is None and self.times_compiles:
            self.start_compile_timer()  # at the first test: after coverage.py (make coverage) has started
        return (yield from self._compiles_of(item, "setup"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        return (yield from self._compiles_of(item, "call"))

    def _compiles_of(self, item, when: str):
        """Note on the test what numba compiled (or loaded) in this phase: the phase's report
        carries it to the controller (a report carries every note made on its test so far)."""
        before = self.compile_here()
        try:
            return (yield)
        finally:
            if (spent := self.compile_here() - before) > 0:
                item.user_properties.append((f"numba_compile_s:{when}", spent))

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        self.test_s += report.duration
        file = report.nodeid.split("::", 1)[0]
        self.file_s[file] = self.file_s.get(file, 0.0) + report.duration
        spent = sum(v for k, v in report.user_properties if k == f"numba_compile_s:{report.when}")
        if spent:
            self.compiles[report.nodeid] = self.compiles.get(report.nodeid, 0.0) + spent

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        self.compile_s += node.workeroutput.get("smsim_compile_s", 0.0) if hasattr(node, "workeroutput") else 0.0

    def whole_default_suite(self, session) -> bool:
        """A run of the default selection (no paths, -k or -m given), not under coverage.py (which
        about doubles it): the one the budget is for."""
        opt = self.config.option
        return (
            not getattr(opt, "keyword", "")
            and not getattr(opt, "cov_source", None)
            and getattr(opt, "markexpr", "") == "not slow"
            and self.config.args_source != pytest.Config.ArgsSource.ARGS
            and session.testscollected > 0
        )


def pytest_configure(config):
    timing = Timing(config)
    config.stash[_STASH] = timing
    config.pluginmanager.register(timing, _KEY)
    if not hasattr(config, "workerinput") and config.pluginmanager.hasplugin("xdist") and _distributed(config):
        return  # the controller of xdist workers: they compile, it only adds up
    timing.times_compiles = True


def _distributed(config) -> bool:
    n = getattr(config.option, "numprocesses", None)
    return bool(n) and getattr(config.option, "dist", "no") != "no"


_STASH = pytest.StashKey[Timing]()


def pytest_collection_modifyitems(session, config, items):
    """Longest files first (the module docstring); the tests of a file keep their order. Every
    worker reads the same cache, so every worker collects the same order, as xdist requires."""
    cache = getattr(config, "cache", None)
    seconds = cache.get(_FILE_SECONDS, {}) if cache is not None else {}
    files: dict[str, int] = {}
    for item in items:
        file = item.nodeid.split("::", 1)[0]
        files[file] = files.get(file, 0) + 1

    def cost(file: str) -> tuple[float, int]:
        return (-seconds[file], 0) if file in seconds else (-float("inf") if seconds else 0.0, -files[file])

    rank = {file: i for i, file in enumerate(sorted(files, key=cost))}  # sorted() is stable: ties keep theirs
    items.sort(key=lambda item: rank[item.nodeid.split("::", 1)[0]])


def pytest_sessionfinish(session, exitstatus):
    timing = session.config.stash[_STASH]
    if hasattr(session.config, "workerinput"):  # a worker: hand its compile time to the controller
        session.config.workeroutput["smsim_compile_s"] = timing.compile_here()
        return
    timing.compile_s += timing.compile_here()
    cache = getattr(session.config, "cache", None)
    if cache is not None and timing.file_s:  # remembered for the next run's order, files not run kept
        cache.set(_FILE_SECONDS, {**cache.get(_FILE_SECONDS, {}), **timing.file_s})
    budget = float(session.config.getini("test_time_budget") or 0)
    timing.within = None
    if budget > 0 and timing.whole_default_suite(session):
        timing.within = timing.test_s - timing.compile_s <= budget
        if not timing.within and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    timing.budget = budget


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    timing = config.stash[_STASH]
    if hasattr(config, "workerinput"):
        return
    work = timing.test_s - timing.compile_s
    line = (
        f"test time {timing.test_s:.0f} s: {work:.0f} s of tests and {timing.compile_s:.0f} s of numba "
        f"compiling or loading the engine; wall {time.perf_counter() - timing.started:.0f} s"
    )
    within = getattr(timing, "within", None)
    if not timing.test_s:  # nothing ran (--collect-only)
        return
    if timing.compiles and timing.compile_s >= 10:  # a cold cache: who compiled what
        top = sorted(timing.compiles.items(), key=lambda kv: -kv[1])[:10]
        terminalreporter.write_line("numba compiled most in: " + "; ".join(f"{s:.0f} s {t}" for t, s in top))
    if within is None:
        terminalreporter.write_line(line)
    elif within:
        terminalreporter.write_line(f"{line}; the budget {timing.budget:.0f} s holds")
    else:
        terminalreporter.write_line(
            f"{line}: OVER the default suite's budget of {timing.budget:.0f} s (test_time_budget in pyproject.toml): "
            "mark the new long tests slow, make them cheaper, or raise the budget and say why",
            red=True,
        )
