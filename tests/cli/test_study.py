"""cli.study: ``smsim study RULES`` plays, reports and prints its verdicts; a bad rules file, option
or folder is refused in one line with exit status 2 before any game is played."""

import pytest
from click.testing import CliRunner

from smsim.cli import cli
from smsim.cli.common import InputError
from smsim.cli.study import seconds_of


def run(*args):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize(
    "rules_text, words",
    [
        ("cannon_penalty = 3\nwarp_drive = 1\n", "warp_drive"),
        ("cannon_penalty = -4\n", "cannon_penalty"),
        ("cannon_penalty = \n", "rules"),
    ],
)
def test_a_bad_rules_file_is_refused_in_one_line_before_any_game(tmp_path, rules_text, words):
    rules = tmp_path / "mine.toml"
    rules.write_text(rules_text)
    result = run("study", str(rules), "--players", "2", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ") and words in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (["--variant", "no-such-variant"], "no such variant"),
        (["RULES", "--variant", "milder-cannons"], "not both"),
        (["--time", "ten minutes"], "--time"),
        (["--time", "0m"], "--time"),
        (["--players", "7"], "--players"),
        (["--levels", "balanced,genius"], "genius"),
        (["--max-games", "0"], "--max-games"),
        (["--first-games", "many"], "--first-games"),
        (["--margin", "vp=-1"], "margin"),
        (["--rule", "side_defence=many"], "side_defence"),
        (["--balance", "--balance-scale", "0"], "--balance-scale"),
        (["--balance", "--balance-scale", "2"], "--balance-scale"),
        (["--see-also", "reports/feel"], "with --balance"),
        (["--balance", "--see-also", "no/such/report"], "no/such/report"),
        (["--report", "HELD"], "holds an smsim dataset"),
    ],
)
def test_bad_options_are_refused_in_one_line(tmp_path, args, words):
    rules = tmp_path / "r.toml"
    rules.write_text("cannon_penalty = 3\n")
    held = tmp_path / "held"
    if "HELD" in args:  # a dataset where the report would go
        from smsim.runs.batch import simulate_to

        simulate_to(str(held), 20, 2, ["random"], seed=1, threads=1)
    args = [str(rules) if a == "RULES" else str(held) if a == "HELD" else a for a in args]
    result = run("study", *args, "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and words in result.output
    assert not (tmp_path / "out").exists()


def test_a_folder_of_another_kind_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    result = run("study", "--rule", "cannon_penalty=3", "--players", "2", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "not empty" in result.output
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"


def test_a_rules_file_studied_on_time_prints_its_verdicts_and_writes_its_report(tmp_path):
    rules = tmp_path / "cheap-turns.toml"
    rules.write_text("# turning a die costs 1\nrotation_cost = 1\n")
    out = tmp_path / "study"
    args = ["study", str(rules), "--players", "2", "--levels", "greedy", "--no-bonus", "--no-skill"]
    args += ["--time", "2s", "--max-games", "4000", "--out", str(out), "--quiet"]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "games; stopped because" in result.output
    assert "Start player's edge at 2 players, change" in result.output
    md = (out / "report" / "report.md").read_text()
    assert str(rules) in md.splitlines()[0] and "rotation cost 2 → 1" in md
    again = run(*args)  # the same command resumes the same study
    assert again.exit_code == 0, again.output


def test_durations():
    assert [seconds_of(t) for t in ("90s", "15m", "1.5h", "600", " 2m ")] == [90, 900, 5400, 600, 120]
    for bad in ("", "m", "-5m", "5d", "0"):
        with pytest.raises(InputError):
            seconds_of(bad)
