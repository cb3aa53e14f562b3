# fixture policies are loaded by the tests from their files, not collected as test modules
collect_ignore_glob = ["policies/fixtures/*"]
# the default suite's test time, printed and held to its budget (tests/timing.py)
pytest_plugins = ["tests.timing", "pytester"]

import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402


def built_once(tmp_path_factory, name: str, build) -> dict:
    """What ``build(root)`` returns (plain JSON data), built once a test run: under pytest-xdist
    the workers share one directory beside their own temporary ones, the first to ask builds it
    under a lock and the others wait and read its result, so a dataset every worker's tests read
    is played once, not once a worker. Such data is only read by the tests (one that writes into
    it copies it first)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's directory, above every worker's own
    root, done = base / f"shared-{name}", base / f"shared-{name}.json"
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): each worker builds its own
        return build(tmp_path_factory.mktemp(name))
    with open(base / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if build fails
        if done.exists():
            return json.loads(done.read_text())
        if root.exists():
            shutil.rmtree(root)  # a build that failed half-way
        root.mkdir()
        result = build(root)
        done.write_text(json.dumps(result))
        return result


@pytest.fixture(scope="session")
def report_datasets(tmp_path_factory):
    """Small datasets for the report, plot and CLI tests: a 4-player run with four policies, a
    2-player mirror, a 3-player comparison, a 3-game run, a dataset with no finished part and a
    wall-bonus ablation of the mirror's players, policy and seed (100 games)."""
    return built_once(tmp_path_factory, "report-data", _report_datasets)


def _report_datasets(root: Path) -> dict[str, str]:
    from smsim.rules import Rules
    from smsim.runs.batch import simulate_to
    from smsim.studies.bonus import plan_bonus, run_bonus
    from smsim.studies.compare import compare, save_comparison

    simulate_to(str(root / "four"), 600, 4, ["balanced", "greedy", "walls", "random"], seed=3, batch=300)
    simulate_to(str(root / "two"), 400, 2, ["balanced"], seed=4, batch=200)
    simulate_to(str(root / "tiny"), 3, 3, ["random"], seed=5, batch=10)
    simulate_to(str(root / "empty"), 10, 2, ["random"], seed=6, batch=10)
    shutil.rmtree(root / "empty" / "seats")  # as if killed before its first part finished
    shutil.rmtree(root / "empty" / "games")
    result = compare(["balanced", "churches", "greedy"], 3, 360, seed=6)
    save_comparison(result, str(root / "cmp"), ["smsim", "compare", "balanced", "churches", "greedy"], 6, Rules())
    run_bonus(plan_bonus(2, "balanced", games=100, seed=4), root / "bonus2", threads=2)  # the wall-bonus ablation
    return {name: str(root / name) for name in ("four", "two", "tiny", "empty", "cmp", "bonus2")}


@pytest.fixture(scope="session")
def session_report(report_datasets, tmp_path_factory):
    """The report of the 4-player run, the 2-player mirror, the comparison and the wall-bonus
    ablation of ``report_datasets``, written once a session by the command line (``smsim report four
    two cmp bonus2 --out DIR``, which is ``write_report(read_report_data(paths), DIR)``): (DIR, the
    paths, the command's result). The tests of the page (tests/report/test_write.py) and of the command
    (tests/cli/test_cli.py) only read it; one that writes into it must copy it first."""
    paths = [report_datasets[k] for k in ("four", "two", "cmp", "bonus2")]

    def write(root: Path) -> dict:
        from click.testing import CliRunner

        from smsim.cli import cli

        result = CliRunner().invoke(cli, ["report", *paths, "--out", str(root / "report")], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return {"out": str(root / "report"), "exit_code": result.exit_code, "output": result.output}

    made = built_once(tmp_path_factory, "session-report", write)
    return Path(made["out"]), paths, CommandResult(made["exit_code"], made["output"])


class CommandResult:
    """The parts of a click result the tests read (exit code and output), as built once a run."""

    def __init__(self, exit_code: int, output: str):
        self.exit_code, self.output = exit_code, output


@pytest.fixture(scope="session")
def ladder_datasets(tmp_path_factory):
    """Mirrors of three levels of play at 4 players, for the ladder and report tests, which only
    read them: ``balanced`` (L1) and ``learned`` (L2), 400 games each, and a cheap search standing
    in for L3 (``cheap``: its policy file, cheap.toml), 24 games in parts of 8. The search is the
    costly one (seconds a game), so it is played once a session."""
    return built_once(tmp_path_factory, "ladder-data", _ladder_datasets)


def _ladder_datasets(root: Path) -> dict[str, str]:
    from smsim.runs.batch import simulate_to

    (root / "cheap.toml").write_text('base = "rollout"\nbudget = 4\nmin_playouts = 2\ncandidates = 2\n')
    paths = {"cheap": str(root / "cheap.toml"), **{name: str(root / name) for name in ("bal4", "lrn4", "cheap4")}}
    simulate_to(paths["bal4"], 400, 4, ["balanced"], seed=21, batch=200)
    simulate_to(paths["lrn4"], 400, 4, ["learned"], seed=22, batch=200)
    simulate_to(paths["cheap4"], 24, 4, [paths["cheap"]], seed=23, batch=8)
    return paths


@pytest.fixture
def run():
    """``run("simulate", "-n", 10)``: the smsim command line in this process, its result (arguments
    may be paths or numbers)."""
    from click.testing import CliRunner

    from smsim.cli import cli

    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def figures_blank():
    """The test's reports are written with their figures left blank (``helpers.figures_left_blank``)."""
    from tests.helpers import figures_left_blank

    with figures_left_blank():
        yield


# Fixtures whose data compile play loops of their own beyond the heuristic one (the learned
# policy, a search, the keep oracle, round snapshots, the luck, restricted play): every test that
# uses one is marked ``own_loop`` (the fixture, and the module it must come from where the name is
# common), which the compatibility suite leaves out (Makefile, docs/development.md).
OWN_LOOP_FIXTURES = {"ladder_datasets": None, "folders": "test_folder.py", "studies": "test_outline.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if any(f in used and (m is None or item.path.name == m) for f, m in OWN_LOOP_FIXTURES.items()):
            item.add_marker(pytest.mark.own_loop)
