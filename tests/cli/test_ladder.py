"""``smsim ladder``: plays a ladder into a folder, resumes it, prints it back with --read; bad input
is one line and exit status 2, before anything is written."""

import pytest

from smsim.studies.ladder import read_ladder


def assert_bad_input(result, *words):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


LADDER = [
    "ladder",
    "--rungs",
    "random,greedy,balanced",
    "-p",
    "2,3",
    "-n",
    "24",
    "--seed",
    "3",
    "--field",
    "walls,balanced",
    "--threads",
    "2",
]


def test_ladder_plays_prints_and_reads_back(run, tmp_path):
    out = tmp_path / "ladder"
    result = run(*LADDER, "--out", out)
    assert result.exit_code == 0, result.output
    for words in ("random → greedy", "greedy → balanced", "Depth", "at least", "against the field", f"ladder: {out}"):
        assert words in result.output, words
    assert "games: 2p random against the field" in result.output  # a progress line per chunk
    saved = read_ladder(out)
    assert saved.complete and len(saved.steps) == 4 and saved.command.startswith("smsim")
    again = run(*LADDER, "--out", out, "-q")  # the same command: nothing left to play, the same tables
    assert again.exit_code == 0 and "against the field" not in again.output.split("Each rung")[0]
    read = run("ladder", "--read", out)
    assert read.exit_code == 0
    assert read.output.split("Each rung")[1] == again.output.split("Each rung")[1]


def test_no_field_measures_head_to_head_only_and_prints_a_steps_cost(run, tmp_path):
    out = tmp_path / "bare"
    args = [a for a in LADDER if a not in ("--field", "walls,balanced")]
    result = run(*args, "--no-field", "--out", out, "-q")
    assert result.exit_code == 0, result.output
    assert "no data" in result.output and "one seat of each upper rung among the lower, 2 players" in result.output
    assert "against the field, 2 players" not in result.output
    assert (read_ladder(out).steps["field_games"] == 0).all()


def test_a_time_budget_stops_early_and_says_how_to_go_on(run, tmp_path):
    out = tmp_path / "ladder"
    result = run(*LADDER, "--out", out, "--hours", "1e-9", "-q")
    assert result.exit_code == 0 and "0 of" in result.output and "run the same command to go on" in result.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--rungs", "random,genius"], ["genius"]),
        (["--rungs", "greedy"], ["at least 2 rungs"]),
        (["--rungs", ""], ["at least 2 rungs"]),
        (["-n", "0"], ["--games"]),
        (["-n", "-3"], ["--games"]),
        (["-p", "6"], ["--players"]),
        (["-p", ","], ["--players"]),
        (["--cap", "walls=3"], ["not a rung"]),
        (["--cap", "greedy"], ["RUNG=GAMES"]),
        (["--check", "2"], ["no search"]),
        (["--hours", "0"], ["--hours"]),
        (["--field", "genius"], ["genius"]),
        (["--field", ""], ["--field", "--no-field"]),
        (["--field", "walls", "--no-field"], ["not both"]),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(run, tmp_path, args, words):
    out = tmp_path / "ladder"
    assert_bad_input(run("ladder", "--rungs", "random,greedy", "-n", "10", *args, "--out", out), *words)
    assert not out.exists()


def test_out_and_read_are_asked_for_one_at_a_time(run, tmp_path):
    assert_bad_input(run("ladder", "-n", "10"), "--out")
    assert_bad_input(run("ladder", "--out", tmp_path / "a", "--read", tmp_path / "b"), "not both")
    (tmp_path / "notes.txt").write_text("notes\n")
    assert_bad_input(run("ladder", "--read", tmp_path), "is not a ladder")
    assert_bad_input(run("ladder", "-n", "10", "--out", tmp_path), "holds no ladder")
