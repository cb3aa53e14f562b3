"""The click CLI under CliRunner: outputs, and one-line errors with exit status 2."""

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

import smsim
from smsim import __version__
from smsim.errors import SmsimError
from smsim.play.board import EMPTY_CITY


def assert_bad_input(result, *words):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_version_and_help(run):
    assert run("--version").output.strip() == f"smsim, version {__version__}"
    out = run("--help").output
    for command in ("play", "simulate", "score", "validate", "policies"):
        assert command in out


def test_score_json(run, tmp_path):
    path = tmp_path / "city.txt"
    text = EMPTY_CITY.replace("+ . . . . . +", "+ 1 2 3 1 . +", 1) + "\ncoins: 5\nlogs: 1\ncannons: 1\nvp: 20\n"
    path.write_text(text)
    result = run("score", str(path), "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert set(data) == {
        "churches",
        "series",
        "coins",
        "logs",
        "cannons",
        "full_city",
        "earned",
        "total",
        "church_vp",
        "coins_left",
        "logs_left",
        "cannons_lost",
    }
    assert data["churches"] == [2, 1, 1, 0, 0] and data["series"] == [3, 1]
    assert data["total"] == 20 + 8 + 1 + 2 + 1 - 5
    human = run("score", str(path)).output
    assert "church series" in human and "total" in human


# docs/rules.md §8 board text; the top wall's bonus was earned during play, so it is in vp
SCORED_CITY = """\
+ # # # # # +
. C C 1 2 3 .
. C 1 5 . . .
. C . . . . .
. . . . . . .
. . . . . . .
+ . . . . . +
coins: 7
logs: 3
cannons: 2
vp: 11
"""


def test_score_says_which_figures_are_vp_and_which_counts(run, tmp_path):
    """By hand from docs/rules.md §4-§5: churches 1 2 3 1 5 make series 1-2-3 (8 VP) and 1 (1 VP),
    the 5 is in no run from 1 (0 VP); 7 coins are 3 VP (one per 2, rounded down), 3 logs 3 VP,
    2 lost cannons -10 VP, the city is not full (0 VP): 11 + 9 + 3 + 3 - 10 = 16."""
    path = tmp_path / "city.txt"
    path.write_text(SCORED_CITY)
    data = json.loads(run("score", str(path), "--json").output)
    assert data == {
        "churches": [2, 1, 1, 0, 1],
        "series": [3, 1],
        "church_vp": 9,
        "earned": 11,
        # VP, as before
        "coins": 3,
        "logs": 3,
        "cannons": -10,
        "full_city": 0,
        "total": 16,
        # counts
        "coins_left": 7,
        "logs_left": 3,
        "cannons_lost": 2,
    }
    result = run("score", str(path))
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["churches", "by", "size", "1-5", "2", "1", "1", "0", "1"]
    assert lines[1] == "church series         3 (8 VP), 1 (1 VP)"
    assert lines[2].split() == ["count", "VP"]
    # each row: what, then the count where there is one, then the VP (right-aligned columns)
    count_at, vp_at = lines[2].index("count") + len("count"), lines[2].index("VP") + len("VP")
    rows = {
        line[: count_at - 5].strip(): (line[count_at - 5 : count_at].strip(), line[count_at:vp_at].strip())
        for line in lines[3:]
    }
    assert rows == {
        "churches": ("5", "9"),
        "earned during play": ("", "11"),
        "coins left": ("7", "3"),
        "logs left": ("3", "3"),
        "cannons lost": ("2", "-10"),
        "full city": ("", "0"),
        "total": ("", "16"),
    }


def test_play_writes_a_trace_the_referee_accepts(run, tmp_path):
    trace = tmp_path / "game.jsonl"
    result = run(
        "play",
        "--players",
        "3",
        "--seed",
        "4",
        "--game",
        "2",
        "--policy",
        "greedy,random,greedy",
        "--trace",
        str(trace),
    )
    assert result.exit_code == 0
    assert "Round 1" in result.output and "Game over" in result.output
    assert "+ C C . . . +" not in result.output.splitlines()[0]
    lines = trace.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "game" and json.loads(lines[-1])["type"] == "end"
    ok = run("validate", str(trace))
    assert ok.exit_code == 0, ok.output
    assert "1 games checked" in ok.output


def test_validate_reports_a_planted_error_and_exits_1(run, tmp_path):
    trace = tmp_path / "game.jsonl"
    run("play", "--players", "2", "--seed", "1", "--trace", str(trace), "--quiet")
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    records[3]["after"][records[3]["seat"]]["coins"] += 1
    trace.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    result = run("validate", str(trace))
    assert result.exit_code == 1
    assert "turn 2" in result.output


@pytest.mark.parametrize(
    "content, why",
    [
        (b"seat,policy,total\n0,greedy,41\n", "line 1: not valid JSON"),
        (b"", "the file is empty"),
        (b"\n\n", "the file has only blank lines"),
        (b'{"type": "turn", "seat": 0}\n', "a turn line before any game line"),
        (b'{"type": "end"}\n', "an end line before any game line"),
        (b"[1, 2, 3]\n", "line 1: an array, not an object"),
        (b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "line 1: not UTF-8 text"),
    ],
)
def test_validate_refuses_a_file_that_is_not_a_trace(run, tmp_path, content, why):
    path = tmp_path / "not-a-trace.jsonl"
    path.write_bytes(content)
    result = run("validate", str(path))
    assert_bad_input(result, "is not a trace", why)
    assert "games broke a rule" not in result.output


def test_policies_lists_the_builtins(run):
    out = run("policies").output
    assert "random" in out and "greedy" in out


def test_simulate_prints_tables(run):
    result = run("simulate", "--games", "300", "--players", "3", "--policy", "greedy", "--seed", "2")
    assert result.exit_code == 0
    assert "300 games" in result.output and "win rate" in result.output


BAD_INPUT = [
    (["simulate", "--games", "0"], ["--games must be a whole number from 1 to 10,000,000,000, not 0"]),
    (["simulate", "--games", "-5"], ["games"]),
    (["simulate", "--games", "ten"], ["--games must be a whole number from 1 to 10,000,000,000, not 'ten'"]),
    (["simulate", "--games", "1e99"], ["--games must be a whole number from 1 to 10,000,000,000, not 1e99"]),
    (
        ["simulate", "--games", "10_000_000_001"],
        ["--games must be a whole number from 1 to 10,000,000,000, not 10,000,000,001"],
    ),
    (["simulate", "--games", "1e400"], ["--games must be a whole number from 1 to 10,000,000,000, not inf"]),
    (
        ["simulate", "--batch", "1e30", "--out", "never-written"],
        ["--batch must be a whole number from 1 to 10,000,000,000, not 1e30"],
    ),
    (["play", "--game", str(2**63)], ["game must be a whole number from 0 to 2**63 - 1, not 9.22e18"]),
    (["simulate", "--players", "6"], ["players", "2 to 5"]),
    (["simulate", "--players", "1"], ["players"]),
    (["simulate", "--players", "3", "--policy", "greedy,random"], ["2 policies for 3 players"]),
    (["simulate", "--policy", "genius"], ["unknown policy 'genius'"]),
    (["play", "--players", "9"], ["players"]),
    (["play", "--rule", "rotation_cost=-1"], ["rotation_cost", ">= 0"]),
    (["play", "--rule", "pirate_boxes_per_player=0"], ["pirate_boxes_per_player"]),
    (["play", "--rule", "church_series_vp=[1,2]"], ["church_series_vp", "5 values"]),
    (["play", "--rule", "start_crates=[[0,6]]"], ["start_crates", "tower"]),
    (["play", "--rule", "start_crates=[[3,9]]"], ["start_crates", "off the 7 x 7 grid"]),
    (["play", "--rule", "speed=3"], ["unknown rules field 'speed'"]),
    (["simulate", "--rule", "side_defence=" + "9" * 40], ["side_defence", "1,000,000,000"]),
    (["play", "--rule", "allow_pass"], ["field=value"]),
    (["play", "--rules", "/nonexistent/variant.toml"], ["cannot read rules file"]),
    (["play", "--players", "x"], ["players"]),
    (["play", "--bogus"], ["bogus"]),
    (["score", "/nonexistent/city.txt"], ["cannot read city file"]),
    (["validate", "/nonexistent/trace.jsonl"], ["no trace file"]),
    (["frobnicate"], ["frobnicate"]),
]


@pytest.mark.parametrize("args, words", BAD_INPUT)
def test_bad_input_is_one_line_and_exit_2(run, args, words):
    assert_bad_input(run(*args), *words)


class NewlyAddedError(SmsimError):
    """An error class no command names: the command group still answers it in one line."""


@pytest.mark.parametrize(
    "command, target",
    [
        (["play", "--seed", "1"], "smsim.play.api.play_game"),
        (["summary", "somewhere"], "smsim.runs.summary.summarise_dataset"),
        (["report", "somewhere", "--out", "elsewhere"], "smsim.report.write.report"),
    ],
)
def test_any_smsim_error_is_one_line_and_exit_2(run, monkeypatch, command, target):
    def refuse(*args, **kwargs):
        raise NewlyAddedError("the new check says no")

    monkeypatch.setattr(target, refuse)
    assert_bad_input(run(*command), "the new check says no")


def test_an_error_that_is_not_bad_input_still_raises(run, monkeypatch):
    """Only smsim's own errors are bad input: a bug surfaces as itself, not as a tidy line."""

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr("smsim.play.api.play_game", broken)
    with pytest.raises(KeyError):
        run("play", "--seed", "1")


@pytest.mark.parametrize(
    "text, words",
    [
        ("+ . . +\n", ["city has 7 rows"]),
        (EMPTY_CITY.replace(". C C", ". # C", 1), ["wall", "inner space"]),
        (EMPTY_CITY.replace(". C C", ". Z C", 1), ["unknown character 'Z'"]),
        (EMPTY_CITY.replace("+", ".", 1), ["tower", "missing"]),
        (EMPTY_CITY + "\ncoins: -3", ["coins must be a whole number of at least 0, not -3"]),
    ],
)
def test_bad_city_files(run, tmp_path, text, words):
    path = tmp_path / "city.txt"
    path.write_text(text)
    assert_bad_input(run("score", str(path)), *words)


def test_variant_file_bad_type(run, tmp_path):
    path = tmp_path / "v.toml"
    path.write_text('rotation_cost = "cheap"\n')
    assert_bad_input(run("simulate", "--rules", str(path)), "rotation_cost", "whole number")


def test_simulate_out_summary_formats_and_refusal(run, tmp_path):
    out = tmp_path / "run"
    result = run(
        "simulate",
        "-n",
        "600",
        "-p",
        "2",
        "--policy",
        "greedy,random",
        "--seed",
        "3",
        "--out",
        str(out),
        "--batch",
        "250",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    assert "dataset:" in result.output
    csv = run("summary", str(out), "--format", "csv").output
    assert "# by_policy" in csv and "greedy" in csv
    data = json.loads(run("summary", str(out), "--format", "json").output)
    assert set(data) == {"by_policy", "by_seat", "vp_by_source", "church_series", "sides_completed", "games"}
    assert data["by_policy"]["greedy"]["seats"] == 600
    md = run("summary", str(out), "--format", "markdown").output
    assert "## by_seat" in md and "| greedy | 600 |" in md
    assert "Results by policy" in run("summary", str(out)).output
    assert_bad_input(
        run(
            "simulate",
            "-n",
            "600",
            "-p",
            "2",
            "--policy",
            "greedy,random",
            "--seed",
            "4",
            "--out",
            str(out),
            "--batch",
            "250",
        ),
        "holds a different run",
        "seed",
    )
    assert len(list((out / "seats").glob("*.parquet"))) == 3


def test_replay_writes_one_page_of_one_game_and_refuses_a_broken_trace(run, tmp_path):
    trace = tmp_path / "g.jsonl"
    played = run("play", "-p", "3", "--seed", "5", "-q", "--trace", str(trace), "--html", str(tmp_path / "p.html"))
    assert played.exit_code == 0 and "page: " in played.output
    out = run("replay", str(trace), "--html", str(tmp_path / "r.html"))
    assert out.exit_code == 0 and out.output.startswith("page: ")
    assert (tmp_path / "r.html").read_text() == (tmp_path / "p.html").read_text()  # the same game, the same page
    lines = trace.read_text().splitlines()
    two = tmp_path / "two.jsonl"
    two.write_text("\n".join(lines + [lines[0].replace('"game":0', '"game":1')] + lines[1:]) + "\n")
    assert_bad_input(run("replay", str(two), "--html", str(tmp_path / "x.html")), "holds 2 games (0, 1)", "--game")
    assert run("replay", str(two), "--html", str(tmp_path / "x.html"), "--game", "0").exit_code == 0
    assert_bad_input(run("replay", str(two), "--html", str(tmp_path / "y.html"), "--game", "5"), "holds no game 5")
    turn = json.loads(lines[2])
    turn["after"][1]["logs"] += 2
    (tmp_path / "bad.jsonl").write_text("\n".join([lines[0], lines[1], json.dumps(turn), *lines[3:]]) + "\n")
    assert_bad_input(run("replay", str(tmp_path / "bad.jsonl"), "--html", str(tmp_path / "z.html")), "seat 1 logs")
    assert not (tmp_path / "y.html").exists() and not (tmp_path / "z.html").exists()  # no page for a refused trace
    valued = run("replay", str(trace), "--html", str(tmp_path / "v.html"), "--values", "search", "--playouts", "4")
    assert valued.exit_code == 0, valued.output
    assert '"values":{' in (tmp_path / "v.html").read_text() and '"costly":[' in (tmp_path / "v.html").read_text()
    learned = run("replay", str(trace), "--html", str(tmp_path / "l.html"), "--values", "learned")
    assert learned.exit_code == 0 and '"values_method":"learned"' in (tmp_path / "l.html").read_text()
    assert_bad_input(
        run("replay", str(trace), "--html", str(tmp_path / "w.html"), "--values", "search", "--playouts", "0"),
        "--playouts",
    )
    assert_bad_input(run("play", "-p", "2", "--values", "search"), "give --html FILE")
    again = run("replay", str(trace), "--html", str(tmp_path / "b.html"), "--from", "30", "--move", "0")
    assert again.exit_code == 0, again.output
    assert "The same dice, another choice" in (tmp_path / "b.html").read_text()
    assert_bad_input(run("replay", str(trace), "--html", str(tmp_path / "c.html"), "--from", "30"), "go together")
    assert_bad_input(
        run("replay", str(trace), "--html", str(tmp_path / "c.html"), "--from", "30", "--move", "77"), "--move 77"
    )


@pytest.mark.own_loop  # restricted play: a loop of its own
def test_matters_ranks_the_parts_and_writes_its_table(run, tmp_path):
    out = run(
        "matters",
        "--policy",
        "balanced",
        "--part",
        "churches",
        "--part",
        "crates",
        "-p",
        "2",
        "-n",
        "200",
        "--seed",
        "4",
        "--out",
        str(tmp_path / "m"),
    )
    assert out.exit_code == 0, out.output
    assert "What matters at 2 players" in out.output and "matters (1)" in out.output
    assert out.output.index("churches") < out.output.index("crates")  # ranked by loss
    table = pd.read_csv(tmp_path / "m" / "matters.csv")
    assert list(table["part"]) == ["churches", "crates"] and (table["games"] == 200).all()
    again = run(
        "matters",
        "--policy",
        "balanced",
        "--part",
        "churches",
        "--part",
        "crates",
        "-p",
        "2",
        "-n",
        "200",
        "--seed",
        "4",
        "--out",
        str(tmp_path / "m"),
    )  # resumes: every cell is there
    assert again.exit_code == 0 and again.output == out.output
    assert_bad_input(
        run("matters", "--policy", "balanced", "-p", "2", "-n", "200", "--seed", "5", "--out", str(tmp_path / "m")),
        "different what-matters study",
    )


def test_winprob_fits_a_model_and_checks_it(run, tmp_path):
    for players in (2, 3):
        assert (
            run(
                "simulate",
                "-n",
                "400",
                "-p",
                str(players),
                "--policy",
                "balanced",
                "--seed",
                "3",
                "--rounds",
                "--out",
                str(tmp_path / f"p{players}"),
                "--quiet",
            ).exit_code
            == 0
        )
    fitted = run("winprob", str(tmp_path / "p2"), str(tmp_path / "p3"), "--out", str(tmp_path / "wp.json"))
    assert fitted.exit_code == 0, fitted.output
    assert "Win probability, 2 players: " in fitted.output and "Win probability, 3 players" in fitted.output
    assert "calibration error" in fitted.output and "model: " in fitted.output
    checked = run("winprob", str(tmp_path / "p3"), "--model", str(tmp_path / "wp.json"))
    assert checked.exit_code == 0 and "Win probability, 3 players" in checked.output
    assert (
        checked.output.split("Win probability, 3 players")[1]
        == fitted.output.split("Win probability, 3 players")[1].split("model: ")[0]
    )
    assert (
        run(
            "simulate", "-n", "40", "-p", "2", "--policy", "balanced", "--out", str(tmp_path / "plain"), "--quiet"
        ).exit_code
        == 0
    )
    assert_bad_input(
        run("winprob", str(tmp_path / "plain"), "--model", str(tmp_path / "wp.json")),
        "holds no round snapshots",
        "--rounds",
    )
    assert_bad_input(
        run("winprob", str(tmp_path / "p2"), str(tmp_path / "p2"), "--out", str(tmp_path / "x.json")),
        "two datasets of 2 players",
    )
    assert not (tmp_path / "x.json").exists()
    shaped = run(
        "shape",
        str(tmp_path / "p2"),
        str(tmp_path / "p3"),
        "--model",
        str(tmp_path / "wp.json"),
        "--out",
        str(tmp_path / "shape.csv"),
    )
    assert shaped.exit_code == 0, shaped.output
    assert "2p balanced" in shaped.output and "lead changes a game, by VP" in shaped.output
    assert len(pd.read_csv(tmp_path / "shape.csv")) == 2 * 12
    paired = run("shape", str(tmp_path / "p2"), "--against", str(tmp_path / "p2"), "--model", str(tmp_path / "wp.json"))
    assert paired.exit_code == 0 and "minus" in paired.output and "+0.00 [+0.00, +0.00]" in paired.output
    assert_bad_input(
        run("shape", str(tmp_path / "p2"), "--against", str(tmp_path / "p3"), "--model", str(tmp_path / "wp.json")),
        "not the same games",
    )
    assert_bad_input(
        run("shape", str(tmp_path / "p2"), "--model", str(tmp_path / "none.json")), "cannot read win-probability model"
    )
    lucky = run("luck", "greedy", "balanced", "--players", "3", "--games", "40", "--model", str(tmp_path / "wp.json"))
    assert lucky.exit_code == 0, lucky.output
    assert "greedy in one seat against balanced, 3 players, 40 blocks" in lucky.output
    assert "luck taken out" in lucky.output and "R^2" in lucky.output and "under 25 empty spaces" in lucky.output
    assert_bad_input(
        run("luck", "greedy", "balanced", "--players", "4", "--model", str(tmp_path / "wp.json")),
        "fitted on 2, 3 players, not on 4",
    )


def test_simulate_records_round_snapshots_and_resumes_only_as_begun(run, tmp_path):
    out = tmp_path / "run"
    args = ["simulate", "-n", "50", "-p", "3", "--policy", "balanced", "--seed", "3", "--out", str(out), "--quiet"]
    assert run(*args, "--rounds").exit_code == 0
    rounds = smsim.load_rounds(out)
    games = smsim.load(out).games
    assert len(rounds) == 3 * (games["rounds"] + 1).sum()
    assert_bad_input(run(*args), "holds a different run", "rounds")
    assert sorted(p.name for p in (out / "rounds").iterdir()) == ["part-000000.parquet"]


MORE_BAD_INPUT = [
    (["summary", "/nonexistent/run"], ["not an smsim dataset"]),
    (["compare", "greedy"], ["at least 2 policies"]),
    (["compare", "greedy", "nobody"], ["unknown policy 'nobody'"]),
    (["compare", "greedy", "random", "--precision", "3"], ["precision"]),
    (["simulate", "--games", "2.5"], ["--games must be a whole number from 1 to 10,000,000,000, not 2.5"]),
    (["simulate", "--batch", "0"], ["--batch must be a whole number from 1 to 10,000,000,000, not 0"]),
]


@pytest.mark.parametrize("args, words", MORE_BAD_INPUT)
def test_more_bad_input(run, args, words):
    assert_bad_input(run(*args), *words)


BINARY = b"\x89PNG\r\n\x1a\n\x00\xff\xfe"  # bytes that are no UTF-8 text


# Input every command can refuse without playing a game; ``{tmp}`` is a directory holding
# ``file`` (a regular file), ``foreign/`` (a directory with a file that is no dataset),
# ``bad.toml`` and ``binary.toml``. A path under ``{tmp}/file`` cannot be made, whoever runs the
# test (root too).
NEEDS_NO_GAME = [
    (["simulate", "--players", "3", "--policy", "greedy,random"], ["2 policies for 3 players"]),
    (["simulate", "--policy", "{tmp}/bad.toml"], ["not valid TOML"]),
    (["simulate", "--out", "{tmp}/foreign", "-n", "10"], ["holds no smsim dataset"]),
    (["simulate", "--out", "{tmp}/file/run", "-n", "10"], ["cannot write", "not a directory"]),
    (["simulate", "--out", "{tmp}/file", "-n", "10"], ["not a directory"]),
    (["simulate", "-n", "10", "--rounds"], ["--rounds records a table of the dataset: give --out DIR"]),
    (["winprob", "{tmp}/foreign"], ["give --out FILE (fit a model) or --model FILE (check one)"]),
    (["winprob", "{tmp}/foreign", "--out", "{tmp}/m.txt"], ["--out must name a .json file"]),
    (["winprob", "{tmp}/foreign", "--out", "{tmp}/none/m.json"], ["no directory"]),
    (["winprob", "{tmp}/foreign", "--out", "{tmp}/m.json"], ["not an smsim dataset"]),
    (["winprob", "{tmp}/foreign", "--model", "{tmp}/binary.json"], ["not a win-probability model"]),
    (["luck", "greedy", "balanced", "--samples", "1", "--model", "{tmp}/binary.json"], ["--samples must be a whole"]),
    (["luck", "rollout", "balanced", "--model", "{tmp}/binary.json"], ["'rollout' searches"]),
    (["luck", "greedy", "balanced", "--endgame", "-3", "--model", "{tmp}/binary.json"], ["--endgame must be a whole"]),
    (["luck", "greedy", "nobody", "--model", "{tmp}/binary.json"], ["unknown policy 'nobody'"]),
    (["luck", "greedy", "balanced", "--model", "{tmp}/binary.json"], ["not a win-probability model"]),
    (["replay", "{tmp}/none.jsonl", "--html", "{tmp}/page.html"], ["no trace file"]),
    (["replay", "{tmp}/file", "--html", "{tmp}/page.html"], ["is not a trace", "not valid JSON"]),
    (["replay", "{tmp}/binary.json", "--html", "{tmp}/file/page.html"], ["cannot write page", "not a directory"]),
    (["matters", "--part", "dragons"], ["unknown part 'dragons'"]),
    (["matters", "--policy", "random"], ["'random' is a random policy"]),
    (["matters", "--players", "7"], ["--players"]),
    (["matters", "--out", "{tmp}/file", "-n", "10"], ["not a directory"]),
    (["matters", "--out", "memory://{tmp}/new", "-n", "10"], ["written to a local directory, not to a URL"]),
    (["matters", "--out", "{tmp}/foreign", "-n", "10"], ["what-matters study"]),
    (["compare", "balanced-without-dragons", "balanced"], ["unknown part 'dragons'"]),
    (["play", "--players", "2", "--policy", "greedy,random,walls"], ["3 policies for 2 players"]),
    (["play", "--trace", "{tmp}/file/game.jsonl"], ["cannot write trace", "not a directory"]),
    (["play", "--trace", "{tmp}"], ["is a directory"]),
    (["advise", "--decision", "3", "--players", "2", "--policy", "a,b,c"], ["policies"]),
    (["advise", "{tmp}/file", "--decision", "3"], ["not a trace"]),
    (["compare", "greedy", "random", "--precision", "3"], ["precision"]),
    (["compare", "greedy", "greedy", "random", "--players", "4"], ["line-up"]),
    (["compare", "greedy", "random", "--out", "{tmp}/file/cmp"], ["cannot write"]),
    (["compare", "greedy", "random", "--out", "{tmp}/foreign"], ["not empty and holds no comparison"]),
    (["sweep", "--vary", "side_defence=1,2", "--players", "3", "--policy", "greedy,random"], ["2 policies"]),
    (["sweep", "--vary", "side_defence=1,2", "--out", "{tmp}/foreign"], ["holds no sweep"]),
    (["sweep", "--vary", "side_defence=1,2", "--out", "{tmp}/file/sweep"], ["cannot write", "not a directory"]),
    (["sweep", "--vary", "no_such_field=1,2"], ["no_such_field"]),
    (["tune", "--against", "greedy,genius", "--out", "{tmp}/t.toml"], ["unknown policy 'genius'"]),
    (["tune", "--out", "{tmp}/file/w.toml"], ["cannot write", "no directory"]),
    (["fairness", "--policy", "genius"], ["unknown policy 'genius'"]),
    (["fairness", "--out", "{tmp}/file/fair"], ["cannot write", "not a directory"]),
    (["fairness", "--out", "{tmp}/foreign"], ["not empty and holds no result of smsim fairness"]),
    (["report", "{tmp}/foreign", "--out", "{tmp}/rep"], ["not an smsim dataset"]),
    (["skill", "--levels", "greedy,genius", "--out", "{tmp}/sk"], ["unknown policy 'genius'"]),
    (["skill", "--levels", "greedy", "--out", "{tmp}/sk"], ["at least 2 levels"]),
    (["skill", "--cap", "walls=10", "--out", "{tmp}/sk"], ["--cap walls: not a level"]),
    (["skill", "--cap", "greedy=0", "--out", "{tmp}/sk"], ["--cap greedy"]),
    (["skill", "--out", "{tmp}/foreign"], ["not empty and holds no skill study"]),
    (["skill", "--out", "{tmp}/file/sk"], ["cannot write"]),
    (["skill", "--vary", "no_such_field=1,2", "--out", "{tmp}/sk"], ["no_such_field"]),
    (["bonus-value", "--players", "6", "--out", "{tmp}/bv"], ["players must be a whole number from 2 to 5"]),
    (["bonus-value", "--policy", "genius", "--out", "{tmp}/bv"], ["unknown policy 'genius'"]),
    (["bonus-value", "--games", "0", "--out", "{tmp}/bv"], ["--games must be a whole number from 1"]),
    (
        ["bonus-value", "--rule", "wall_bonus_seats=[31,30,31,31]", "--out", "{tmp}/bv"],
        ["already leave seats out of the right bonus"],
    ),
    (
        ["bonus-value", "--rule", "wall_bonus_seats=[31,32,31,31]", "--out", "{tmp}/bv"],
        ["'wall_bonus_seats': the right mask must be from 0 to 31"],
    ),
    (["bonus-value", "--out", "{tmp}/foreign"], ["not empty and holds no wall-bonus ablation"]),
    (["bonus-value", "--out", "{tmp}/file/bv"], ["cannot write"]),
    (["regret", "genius"], ["unknown policy 'genius'"]),
    (["regret", "balanced", "--players", "6"], ["--players must be a whole number from 2 to 5"]),
    (["regret", "balanced", "--games", "0"], ["--games must be a whole number from 1"]),
    (["regret", "balanced", "balanced"], ["a policy is named twice"]),
    (["regret", "balanced", "--oracle", "learned"], ["--oracle must be a heuristic"]),
    (["regret", "balanced", "--against", "genius"], ["unknown policy 'genius'"]),
    (["regret", "balanced", "--out", "{tmp}/foreign"], ["not empty and holds no keep-regret study"]),
    (["regret", "balanced", "--out", "{tmp}/file/rg"], ["cannot write"]),
    (["simulate", "--rules", "{tmp}/binary.toml"], ["not valid TOML", "not UTF-8 text"]),
    (["simulate", "--policy", "{tmp}/binary.toml"], ["not valid TOML", "not UTF-8 text"]),
    (["compare", "{tmp}/no_budget.toml", "balanced"], ["'budget' must be a whole number from 1"]),
    (["compare", "{tmp}/negative_budget.toml", "balanced"], ["'budget'", "got -5"]),
    (["simulate", "--policy", "{tmp}/negative_stop.toml"], ["'stop_se' must be a number from 0"]),
    (["simulate", "--policy", "{tmp}/unknown_knob.toml"], ["unknown rollout parameter 'breadth'"]),
    (["simulate", "--policy", "{tmp}/no_base.toml"], ["unknown policy 'genius'"]),
    (["compare", "{tmp}/no_candidate_base.toml", "balanced"], ["unknown policy 'oracle'"]),
    (["simulate", "--policy", "{tmp}/negative_gap.toml"], ["'clear_gap' must be a number from 0"]),
    (["advise", "--decision", "3", "--min-playouts", "0"], ["--min-playouts"]),
    (["compare", "{tmp}/truncated.json", "balanced"], ["not a model file", "invalid JSON"]),
    (["simulate", "--policy", "{tmp}/other_features.json"], ["another feature list"]),
    (["simulate", "--policy", "{tmp}/binary.json"], ["not a model file", "not UTF-8"]),
    (
        ["learn", "--out", "{tmp}/labels", "--decisions", "-3"],
        ["--decisions must be a whole number from 1 to 100,000,000, not -3"],
    ),
    (["learn", "--out", "{tmp}/foreign"], ["not empty and holds no smsim learn labels"]),
    (["learn", "--out", "{tmp}/labels", "--knob", "budget=0"], ["'budget' must be a whole number from 1"]),
    (["learn", "--out", "{tmp}/labels", "--base", "random"], ["--base must be a heuristic or a learned model"]),
    (["learn", "--out", "{tmp}/labels", "--model", "{tmp}/file/m.json"], ["no directory"]),
    (["learn", "--out", "{tmp}/labels", "--from", "balanced"], ["--from must name a learned model"]),
    (["learn", "--out", "{tmp}/labels", "--from", "learned", "--base", "greedy"], ["give --from or --base, not both"]),
    (["learn", "--out", "{tmp}/labels", "--from", "{tmp}/truncated.json"], ["not a model file", "invalid JSON"]),
    (["learn", "--out", "{tmp}/labels", "--labels-from", "{tmp}/foreign"], ["foreign' is not", "learn.json"]),
]


def cold_cases(tmp: Path) -> list[tuple[list[str], list[str]]]:
    """Every bad-input case of this module that needs no file of its own, paths made under ``tmp``."""
    (tmp / "file").write_text("not a dataset\n")
    (tmp / "foreign").mkdir(exist_ok=True)
    (tmp / "foreign" / "notes.txt").write_text("not a dataset\n")
    (tmp / "bad.toml").write_text("wall = [unclosed\n")
    (tmp / "binary.toml").write_bytes(BINARY)
    for name, knob in (
        ("no_budget", "budget = 0"),
        ("negative_budget", "budget = -5"),
        ("negative_stop", "stop_se = -1.5"),
        ("unknown_knob", "breadth = 3"),
        ("no_base", 'playout_policy = "genius"'),
        ("no_candidate_base", 'candidate_policy = "oracle"'),
        ("negative_gap", "clear_gap = -1"),
    ):
        (tmp / f"{name}.toml").write_text(f'base = "rollout"\n{knob}\n')
    shipped = (Path(smsim.__file__).parent / "policies" / "data" / "learned.json").read_text()
    (tmp / "truncated.json").write_text(shipped[:300])
    (tmp / "other_features.json").write_text(shipped.replace('"use_features": [', '"use_features": ["speed", '))
    (tmp / "binary.json").write_bytes(BINARY)
    cases = BAD_INPUT + MORE_BAD_INPUT + NEEDS_NO_GAME
    return [([a.replace("{tmp}", str(tmp)) for a in args], words) for args, words in cases]


@pytest.mark.parametrize("index", range(len(NEEDS_NO_GAME)))
def test_input_refused_without_a_game(run, tmp_path, index):
    args, words = cold_cases(tmp_path)[len(BAD_INPUT) + len(MORE_BAD_INPUT) + index]
    foreign = sorted((tmp_path / "foreign").iterdir())
    assert_bad_input(run(*args), *words)
    assert sorted((tmp_path / "foreign").iterdir()) == foreign  # a refused directory is left as it was
    assert (tmp_path / "file").read_text() == "not a dataset\n"


COLD_RUN = """
import json, sys, time
from pathlib import Path

from numba.core import event  # numba first: smsim's cache is configured all the same

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(str(ev.data["dispatcher"].py_func.__qualname__))

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())

from click.testing import CliRunner  # noqa: E402

from smsim.cli import cli  # noqa: E402
from tests.cli.test_cli import cold_cases  # noqa: E402

out = []
for args, words in cold_cases(Path(sys.argv[1])):
    start, before = time.perf_counter(), len(compiled)
    result = CliRunner().invoke(cli, args)
    out.append({"args": args, "exit": result.exit_code, "output": result.output,
                "compiled": compiled[before:], "seconds": time.perf_counter() - start})
print(json.dumps(out))
"""


def test_bad_input_is_answered_before_anything_is_compiled(tmp_path):
    """On an empty numba cache, every bad-input case above answers without compiling a function:
    a typo never waits for the engine's compile (``scripts/bench.py --bad-input`` times them)."""
    import subprocess
    import sys

    cache = tmp_path / "cache"
    cache.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SMSIM_CACHE_DIR")}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    (tmp_path / "in").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", COLD_RUN, str(tmp_path / "in")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert len(results) == len(BAD_INPUT + MORE_BAD_INPUT + NEEDS_NO_GAME)
    for r in results:
        lines = [line for line in r["output"].splitlines() if line.strip()]
        assert r["exit"] == 2 and len(lines) == 1 and lines[0].startswith("Error: "), r
        assert r["compiled"] == [], r
    assert [p for p in cache.rglob("*") if p.is_file()] == []


def test_compare_prints_tables_and_writes(run, tmp_path):
    result = run("compare", "balanced", "random", "--players", "2", "--games", "200", "--out", str(tmp_path / "c"))
    assert result.exit_code == 0, result.output
    assert "win share" in result.output and "Mean VP difference" in result.output
    assert {p.name for p in (tmp_path / "c").iterdir()} >= {
        "seats.parquet",
        "games.parquet",
        "manifest.json",
        "policies.csv",
        "pairs.csv",
        "ratings.csv",
    }


def test_regret_prints_its_table_and_resumes_a_folder(run, tmp_path):
    out = str(tmp_path / "rg")
    args = ("regret", "balanced-exact", "greedy", "--players", "2", "--games", "20", "--seed", "3", "-q")
    result = run(*args, "--out", out)
    assert result.exit_code == 0, result.output
    assert "under balanced's values" in result.output and "greedy" in result.output
    table = (tmp_path / "rg" / "regret.csv").read_text()
    assert table.splitlines()[1].startswith("balanced-exact,40,") and ",0.0,0.0,0.0," in table.splitlines()[1]
    again = run(*args, "--out", out)
    assert again.exit_code == 0 and (tmp_path / "rg" / "regret.csv").read_text() == table


def test_report_and_plot(run, session_report, report_datasets, tmp_path):
    # `smsim report four two cmp --out DIR`, run once a session (conftest.session_report), whose
    # page tests/report/test_write.py reads
    out, _, result = session_report
    assert result.exit_code == 0, result.output
    assert (out / "report.md").is_file() and (out / "report.html").is_file()
    for suffix in ("png", "svg"):
        target = tmp_path / f"seats.{suffix}"
        result = run("plot", "seat-advantage", report_datasets["two"], "--out", str(target))
        assert result.exit_code == 0, result.output
        assert target.stat().st_size > 1000
        assert "400 games" in result.output  # the caption, with the number of games


@pytest.mark.parametrize(
    "args, words",
    [
        (["report", "/nonexistent/dir", "--out", "x"], ["/nonexistent/dir", "not a directory"]),
        (["plot", "no-such-kind", "."], ["no-such-kind"]),
        (["plot", "scores", "/nonexistent/dir"], ["not a directory"]),
    ],
)
def test_report_and_plot_bad_input(run, args, words):
    assert_bad_input(run(*args), *words)


@pytest.mark.parametrize(
    "margin, words",
    [
        ("vp=-1", ["vp=-1", "at least 0"]),
        ("rate=abc", ["rate=abc", "not a number"]),
        ("rounds=inf", ["rounds=inf"]),
        ("coins=1", ["coins=1", "rate"]),  # an unknown unit: the known ones listed
        ("vp", ["'vp'", "UNIT=VALUE"]),
    ],
)
def test_report_refuses_a_bad_margin_in_one_line_before_reading_any_data(run, tmp_path, margin, words):
    """A bad margin is answered first: the dataset (which does not exist) is never looked at."""
    assert_bad_input(run("report", "/nonexistent/dir", "--out", tmp_path / "rep", "--margin", margin), *words)
    assert not (tmp_path / "rep").exists()


def test_report_passes_its_margins_down(run, monkeypatch, tmp_path):
    from smsim.intervals import MARGINS

    seen = []
    monkeypatch.setattr(
        "smsim.report.write.report", lambda *a, **k: seen.append(k["margins"]) or Path(a[1], "report.md")
    )
    assert run("report", "somewhere", "--out", tmp_path / "a").exit_code == 0
    assert (
        run(
            "report",
            "somewhere",
            "--out",
            tmp_path / "b",
            "--margin",
            "vp=0.25",
            "--margin",
            "rate=2",
            "--margin",
            "vp=0.3",
        ).exit_code
        == 0
    )
    assert seen == [MARGINS, {**MARGINS, "vp": 0.3, "rate": 0.02}]


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_simulate_refuses_to_resume_a_dataset_with_a_damaged_part(run, report_datasets, tmp_path):
    """A part cut short (a full disk, a copy cut off) is met when a run resumes: one line, exit 2,
    the dataset as it was, as ``summary`` says of it."""
    data = tmp_path / "two"
    shutil.copytree(report_datasets["two"], data)
    part = data / "seats" / "part-000001.parquet"
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    before = snapshot(data)
    # the command that wrote it (conftest.report_datasets): the same run, so it resumes
    result = run("simulate", "-n", 400, "-p", 2, "--policy", "balanced", "--seed", 4, "--batch", 200, "--out", data)
    assert_bad_input(result, "a part cannot be read")
    assert snapshot(data) == before
    assert_bad_input(run("summary", data), "a part cannot be read")


def test_compare_and_fairness_refuse_an_output_that_holds_a_dataset(run, report_datasets, tmp_path):
    """A dataset given as ``compare --out`` would have its manifest replaced by the comparison's
    (and be read no more); as ``fairness --out``, it would be hidden from ``report``. Both refuse
    it, as simulate and sweep do; a comparison is still written over by the next."""
    data = tmp_path / "two"
    shutil.copytree(report_datasets["two"], data)
    before = snapshot(data)
    assert_bad_input(run("compare", "balanced", "random", "-p", 2, "-n", 20, "--out", data), "holds no comparison")
    assert_bad_input(run("fairness", "-p", 2, "-n", 20, "--out", data), "holds no result of smsim fairness")
    assert snapshot(data) == before
    shutil.copytree(report_datasets["cmp"], tmp_path / "cmp")
    result = run("compare", "balanced", "random", "-p", 2, "-n", 20, "--out", tmp_path / "cmp")
    assert result.exit_code == 0, result.output


DAMAGED = {  # a manifest's text -> what a damaged copy holds instead
    "binary": lambda text: BINARY,
    "hollow": lambda text: json.dumps({"kind": json.loads(text)["kind"]}).encode(),  # says what it is, no more
}


@pytest.mark.parametrize("damage", sorted(DAMAGED))
@pytest.mark.parametrize("name", ["two", "cmp"])
def test_a_damaged_manifest_is_refused_in_one_line(run, report_datasets, tmp_path, name, damage):
    data = tmp_path / name
    shutil.copytree(report_datasets[name], data)
    manifest = data / "manifest.json"
    manifest.write_bytes(DAMAGED[damage](manifest.read_text()))
    before = snapshot(data)
    for args in (
        ["summary", data],
        ["report", data, "--out", tmp_path / "rep"],
        ["plot", "scores", data, "--out", tmp_path / "scores.png"],
    ):
        assert_bad_input(run(*args), str(data))
    assert snapshot(data) == before


def test_report_refuses_a_dataset_as_output_and_keeps_it(run, report_datasets, tmp_path):
    before = sorted(p.name for p in (Path(report_datasets["two"]) / "seats").iterdir())
    assert_bad_input(run("report", report_datasets["tiny"], "--out", report_datasets["two"]), "holds an smsim dataset")
    assert sorted(p.name for p in (Path(report_datasets["two"]) / "seats").iterdir()) == before
    assert not (Path(report_datasets["two"]) / "report.md").exists()
    assert_bad_input(run("plot", "scores", report_datasets["tiny"], "--out", str(tmp_path / "x.jpg")), ".png")
    assert_bad_input(
        run("plot", "ratings", report_datasets["tiny"], "--out", str(tmp_path / "r.png")), "nothing to draw"
    )


def test_the_command_line_loads_neither_numba_nor_matplotlib_until_a_command_needs_them():
    """`smsim --help`, `smsim summary` and the like start in a tenth of a second: the command
    line module itself must not import the jitted engine or matplotlib."""
    import subprocess
    import sys

    code = "import sys, smsim.cli; print(sorted({'numba', 'matplotlib'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_plot_help_lists_every_figure_kind(run):
    from smsim.report.plots import PLOTS

    result = run("plot", "--help")
    assert result.exit_code == 0
    assert all(kind in result.output for kind in PLOTS)


def test_every_option_that_takes_code_says_so_in_its_help():
    """docs/trust.md: a policy file is code, a Dask scheduler runs what its clients send; the help
    of every option that takes one points there."""
    from smsim.cli import cli

    assert (Path(__file__).parents[2] / "docs" / "trust.md").is_file()
    seen = 0
    for name, command in cli.commands.items():
        for param in command.params:
            if param.name in ("policy", "cluster"):
                seen += 1
                assert "docs/trust.md" in (param.help or ""), (name, param.name)
            if param.name == "rules_file":
                assert "never executed" in (param.help or ""), name
    assert seen >= 8


def test_play_writes_its_trace_and_page_into_directories_not_made_yet(run, tmp_path):
    """Found by the long argument property test: the page's directory passed the check before the
    game and was then not made, so the command wrote the trace and failed on the page."""
    trace, page = tmp_path / "game.jsonl", tmp_path / "missing" / "deeper"
    result = run("play", "--game", "0", "--trace", trace, "--html", page, "--quiet")
    assert result.exit_code == 0, result.output
    assert trace.is_file() and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
