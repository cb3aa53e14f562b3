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


@pytest.fixture(scope="session")
def session_report(report_datasets, tmp_path_factory):
    """The report of the 4-player run, the 2-player mirror and the comparison of
    ``report_datasets``, written once a session by the command line (``smsim report four two cmp
    --out DIR``, which is ``write_report(read_report_data(paths), DIR)``): (DIR, the paths, the
    command's result). The tests of the page (tests/report/test_write.py) and of the command
    (tests/cli/test_cli.py) only read it; one that writes into it must copy it first."""
    from click.testing import CliRunner

    from smsim.cli import cli

    out = tmp_path_factory.mktemp("session-report") / "report"
    paths = [report_datasets[k] for k in ("four", "two", "cmp")]
    result = CliRunner().invoke(cli, ["report", *paths, "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, paths, result


@pytest.fixture(scope="session")
def ladder_datasets(tmp_path_factory):
    """Mirrors of three levels of play at 4 players, for the ladder and report tests, which only
    read them: ``balanced`` (L1) and ``learned`` (L2), 400 games each, and a cheap search standing
    in for L3 (``cheap``: its policy file, cheap.toml), 24 games in parts of 8. The search is the
    costly one (seconds a game), so it is played once a session."""
    from smsim.runs.batch import simulate_to

    root = tmp_path_factory.mktemp("ladder-data")
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
