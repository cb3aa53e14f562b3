"""The default suite's budget (tests/timing.py) fails a run of the whole default suite over it,
and only such a run; the time numba spends compiling is counted apart."""

from __future__ import annotations

import pytest

SLEEPER = "import time\n\ndef test_sleeps():\n    time.sleep(0.15)\n"


@pytest.fixture
def project(pytester):
    """A project whose default selection is ``-m 'not slow'``, as smsim's, with one test of 0.15 s."""

    def make(budget: str):
        pytester.makeini(f"[pytest]\naddopts = -m 'not slow'\nmarkers = slow\ntest_time_budget = {budget}\n")
        pytester.makepyfile(test_sleeper=SLEEPER)
        return pytester

    return make


def test_a_whole_run_over_the_budget_fails_and_says_so(project):
    result = project("0.1").runpytest_inprocess("-p", "tests.timing")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*OVER the default suite's budget of 0 s (test_time_budget in pyproject.toml)*"])


def test_a_whole_run_within_the_budget_passes_and_says_so(project):
    result = project("60").runpytest_inprocess("-p", "tests.timing")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["test time 0 s: 0 s of tests and 0 s of numba compiling*; the budget 60 s holds"])


@pytest.mark.parametrize("selection", [["test_sleeper.py"], ["-m", "slow or not slow"]])
def test_a_run_of_a_part_of_the_suite_is_not_held_to_it(project, selection):
    result = project("0.1").runpytest_inprocess("-p", "tests.timing", *selection)
    assert result.ret == pytest.ExitCode.OK
    assert "OVER" not in result.stdout.str() and "the budget" not in result.stdout.str()


def test_numba_compiling_is_counted_apart_from_the_tests(pytester):
    """A test that compiles a function: the compile is counted as compiling, within the test's
    time, and the test that compiled is named; a test that compiles nothing adds no compiling."""
    from tests import timing

    pytester.makeini("[pytest]\naddopts = -m 'not slow'\nmarkers = slow\ntest_time_budget = 60\n")
    pytester.makepyfile(
        test_compiles="import numba\n\ndef test_compiles():\n    assert numba.njit(lambda x: x * 2 + 1)(3) == 7\n",
        test_plain="def test_plain():\n    assert 1 + 1 == 2\n",
    )
    recorded = pytester.inline_run("-p", "tests.timing")
    recorded.assertoutcome(passed=2)
    spent = recorded.getcall("pytest_sessionfinish").session.config.stash[timing._STASH]
    assert 0 < spent.compile_s <= spent.test_s
    assert list(spent.compiles) == ["test_compiles.py::test_compiles"]


def test_files_run_longest_first_by_their_seconds_in_the_last_run(pytester):
    """Without a record the files with the most tests come first (xdist's own order); after a run,
    the longest file by its seconds, whatever its number of tests; a file new since comes first."""
    pytester.makeini("[pytest]\naddopts = -m 'not slow'\nmarkers = slow\n")
    pytester.makepyfile(
        test_a_quick="def test_one():\n    pass\n\ndef test_two():\n    pass\n",
        test_b_slow="import time\n\ndef test_sleeps():\n    time.sleep(0.2)\n",
    )

    def order(*args):
        result = pytester.runpytest_inprocess("-p", "tests.timing", "--collect-only", "-q", *args)
        return list(dict.fromkeys(line.split("::")[0] for line in result.outlines if "::" in line))

    assert order() == ["test_a_quick.py", "test_b_slow.py"]  # two tests before one
    pytester.runpytest_inprocess("-p", "tests.timing").assert_outcomes(passed=3)
    assert order() == ["test_b_slow.py", "test_a_quick.py"]
    pytester.makepyfile(test_c_new="def test_new():\n    pass\n")
    assert order() == ["test_c_new.py", "test_b_slow.py", "test_a_quick.py"]
    assert order("-p", "no:cacheprovider") == ["test_a_quick.py", "test_b_slow.py", "test_c_new.py"]
