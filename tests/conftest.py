# fixture policies are loaded by the tests from their files, not collected as test modules
collect_ignore_glob = ["policies/fixtures/*"]

import shutil  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def report_datasets(tmp_path_factory):
    """Small datasets for the report, plot and CLI tests: a 4-player run with four policies, a
    2-player mirror, a 3-player comparison, a 3-game run and a dataset with no finished part."""
    from smsim.studies.compare import compare, save_comparison
    from smsim.rules import Rules
    from smsim.runs.batch import simulate_to

    root = tmp_path_factory.mktemp("report-data")
    simulate_to(str(root / "four"), 600, 4, ["balanced", "greedy", "walls", "random"], seed=3, batch=300)
    simulate_to(str(root / "two"), 400, 2, ["balanced"], seed=4, batch=200)
    simulate_to(str(root / "tiny"), 3, 3, ["random"], seed=5, batch=10)
    simulate_to(str(root / "empty"), 10, 2, ["random"], seed=6, batch=10)
    shutil.rmtree(root / "empty" / "seats")  # as if killed before its first part finished
    shutil.rmtree(root / "empty" / "games")
    result = compare(["balanced", "churches", "greedy"], 3, 360, seed=6)
    save_comparison(result, str(root / "cmp"), ["smsim", "compare", "balanced", "churches", "greedy"], 6, Rules())
    return {name: str(root / name) for name in ("four", "two", "tiny", "empty", "cmp")}


@pytest.fixture
def run():
    """``run("simulate", "-n", 10)``: the smsim command line in this process, its result (arguments
    may be paths or numbers)."""
    from click.testing import CliRunner

    from smsim.cli import cli

    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)
