"""Datasets on disk: resumable runs identical to uninterrupted ones, refusals, reading back."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import smsim
from smsim.cli import cli
from smsim.errors import DatasetError
from smsim.rules import Rules
from smsim.runs.batch import simulate, simulate_to
from smsim.runs.dataset import done_parts, load

POLICIES = ["balanced", "random", "greedy"]


def test_dataset_equals_the_in_memory_tables(tmp_path):
    result = simulate_to(str(tmp_path / "d"), 700, 3, POLICIES, seed=5, batch=300)
    data = load(tmp_path / "d")
    seats, games = simulate(700, 3, POLICIES, seed=5)
    assert result.games == result.played == 700
    pd.testing.assert_frame_equal(data.seats, seats, check_categorical=False)
    pd.testing.assert_frame_equal(data.games, games)
    assert data.complete and sorted(done_parts(tmp_path / "d")) == [0, 1, 2]
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert manifest["kind"] == "dataset" and manifest["smsim"] == smsim.__version__
    assert manifest["inputs"]["rules"] == Rules().to_dict()
    assert [p["name"] for p in manifest["inputs"]["policies"]] == POLICIES
    assert manifest["inputs"]["policies"][0]["weights"]["pirate_next"] > 0
    assert {"smsim", "numba"} <= set(manifest["environment"])
    assert data.manifest["run"] == manifest["inputs"]  # read back as it always was: the run's identity


def test_seat_table_columns_from_the_engine_arrays():
    """The policy column names each seat's policy game after game (categories sorted), and
    sides_completed counts the bits of the engine's completed-sides mask."""
    from smsim import layout as L
    from smsim.runs.batch import run_games
    from smsim.runs.dataset import seat_table

    names = ["walls", "random", "walls"]
    score, player, game_out = run_games(400, 3, names, 11, Rules())
    seats = seat_table(score, player, game_out, names, Rules(), first=0)
    assert list(seats["policy"].cat.categories) == ["random", "walls"]
    assert list(seats["policy"].astype(str)) == names * 400
    done = player[:, :, L.SIDES_DONE].reshape(-1)
    assert list(seats["sides_completed"]) == [bin(int(m)).count("1") for m in done]
    assert seats["sides_completed"].max() >= 2  # walls completes sides: the check has something to count


def test_a_part_written_from_the_engine_arrays_reads_back_as_one_written_through_pandas(tmp_path):
    """Parts are encoded straight from the engine's arrays (``seat_arrow``, ``arrow_table``): read
    back, every table equals the one a part written through pandas (the format before) gives,
    value for value and type for type, categorical included; under rules with another pirate
    track too (more attack columns)."""
    from smsim.runs.batch import run_games
    from smsim.runs.dataset import (
        PartWriter,
        arrow_table,
        game_columns,
        game_table,
        read_part,
        round_columns,
        round_table,
        seat_arrow,
        seat_table,
    )
    from smsim.runs.storage import location

    for rules in (Rules(), Rules(pirate_strengths=(1, 3, 6, 9, 12))):
        names = ["walls", "random", "balanced"]
        score, player, game_out, rows = run_games(300, 3, names, 13, rules, first=600, rounds=True)
        arrow_out, pandas_out = location(str(tmp_path / "arrow")), location(str(tmp_path / "pandas"))
        for out, tables in (
            (
                arrow_out,
                (
                    seat_arrow(score, player, game_out, names, rules, 600),
                    arrow_table(game_columns(game_out, 3, rules, 600)),
                    arrow_table(round_columns(rows)),
                ),
            ),
            (
                pandas_out,
                (
                    seat_table(score, player, game_out, names, rules, 600),
                    game_table(game_out, 3, rules, 600),
                    round_table(rows),
                ),
            ),
        ):
            writer = PartWriter(out, 0, rounds=True)
            writer.write(*tables)
            writer.write(*tables)  # a second chunk: a second row group
            writer.close()
        for sub in ("seats", "games", "rounds"):
            new, before = (read_part(out / sub / "part-000000.parquet") for out in (arrow_out, pandas_out))
            pd.testing.assert_frame_equal(new, before, check_exact=True)
            assert len(new) == 2 * (900 if sub == "seats" else 300 if sub == "games" else len(rows[0]) * 3)
        seats = read_part(arrow_out / "seats" / "part-000000.parquet")
        assert list(seats["policy"].cat.categories) == ["balanced", "random", "walls"]
        assert list(seats["policy"].astype(str)[:3]) == names


def test_resuming_adds_only_missing_parts(tmp_path):
    out = tmp_path / "d"
    simulate_to(str(out), 900, 2, ["greedy", "random"], seed=1, batch=300)
    # lose a part, as a killed run would never have written it, leaving a half-written file
    for sub in ("seats", "games"):
        (out / sub / "part-000001.parquet").unlink()
    (out / "seats" / ".part-000001.parquet.tmp-12345").write_bytes(b"half a parquet file")
    before = {p: p.stat().st_mtime_ns for p in out.rglob("part-*.parquet")}
    result = simulate_to(str(out), 900, 2, ["greedy", "random"], seed=1, batch=300)
    assert (result.games, result.played) == (900, 300)
    data = load(out)
    after = {p: p.stat().st_mtime_ns for p in out.rglob("part-*.parquet")}
    assert all(after[p] == t for p, t in before.items())  # untouched
    assert len(after) == len(before) + 2
    assert not list(out.rglob(".part-*"))  # the half-written file was removed
    seats, _ = simulate(900, 2, ["greedy", "random"], seed=1)
    pd.testing.assert_frame_equal(data.seats, seats, check_categorical=False)


def test_open_run_writes_the_manifest_resumes_its_own_run_and_refuses_another(tmp_path):
    from smsim.policies.registry import resolve_policies
    from smsim.runs.dataset import open_run, read_manifest, run_identity

    specs = resolve_policies(["random"], 2)
    identity = run_identity(30, 2, specs, 1, Rules(), 10)
    out = tmp_path / "d"
    assert open_run(out, identity, ["smsim", "simulate"]) == set()
    assert read_manifest(out)["run"] == identity and read_manifest(out)["command"] == ["smsim", "simulate"]
    for sub in ("seats", "games"):
        (out / sub).mkdir()
        (out / sub / "part-000001.parquet").write_bytes(b"")
    stale = out / "seats" / ".part-000002.parquet.tmp-99"
    stale.write_bytes(b"half")
    assert open_run(out, identity, []) == {1}  # resumed: the finished part kept, the leftover gone
    assert not stale.exists()
    other = run_identity(30, 2, specs, 2, Rules(), 10)
    with pytest.raises(DatasetError, match="different run \\(its seed differs\\)"):
        open_run(out, other, [])
    assert read_manifest(out)["run"] == identity


def test_parts_larger_than_a_chunk_are_written_chunk_by_chunk(tmp_path, monkeypatch):
    """A part of several chunks is written one row group per chunk; interrupted in the middle of
    a part, the run leaves no trace of that part, and resuming gives byte for byte the files of
    an uninterrupted run."""
    import pyarrow.parquet as pq

    from smsim.runs import dataset, spec

    monkeypatch.setattr(spec, "CHUNK_GAMES", 100)
    args = dict(games=620, players=3, policies=["greedy", "random", "random"], seed=4, batch=250)
    clean = simulate_to(str(tmp_path / "clean"), **args)
    assert [pq.ParquetFile(tmp_path / "clean" / "seats" / dataset.part_name(k)).num_row_groups for k in range(3)] == [
        3,
        3,
        2,
    ]
    seats, games = simulate(620, 3, ["greedy", "random", "random"], seed=4)
    data = load(tmp_path / "clean")
    pd.testing.assert_frame_equal(data.seats, seats, check_categorical=False)
    pd.testing.assert_frame_equal(data.games, games)

    writes = 0
    real_write = dataset.PartWriter.write

    def interrupted_write(self, seats, games, rounds=None):
        nonlocal writes
        writes += 1
        if writes >= 5:  # the second chunk of part 1, and whatever another thread writes after it
            raise KeyboardInterrupt
        real_write(self, seats, games, rounds)

    monkeypatch.setattr(dataset.PartWriter, "write", interrupted_write)
    with pytest.raises(KeyboardInterrupt):
        simulate_to(str(tmp_path / "cut"), **args)
    assert done_parts(tmp_path / "cut") == {0}
    assert sorted(p.name for p in (tmp_path / "cut").rglob("*.parquet")) == ["part-000000.parquet"] * 2
    assert not list((tmp_path / "cut").rglob(".part-*"))  # the part cut short left nothing behind
    monkeypatch.setattr(dataset.PartWriter, "write", real_write)
    result = simulate_to(str(tmp_path / "cut"), **args)
    assert (result.games, result.played) == (620, 370)
    for name, table in clean.tables.items():  # the headline tables continue from part 0 as written
        pd.testing.assert_frame_equal(result.tables[name], table)
    for sub in ("seats", "games"):
        for k in range(3):
            name = dataset.part_name(k)
            assert (tmp_path / "cut" / sub / name).read_bytes() == (tmp_path / "clean" / sub / name).read_bytes()


@pytest.mark.parametrize(
    "change, word",
    [
        (dict(seed=2), "seed"),
        (dict(games=1000), "games"),
        (dict(policies=["random", "greedy"]), "policies"),
        (dict(rules=Rules(rotation_cost=3)), "rules"),
        (dict(batch=100), "batch"),
    ],
)
def test_a_different_command_is_refused_and_nothing_is_lost(tmp_path, change, word):
    out = tmp_path / "d"
    args = dict(games=600, players=2, policies=["greedy", "random"], seed=1, batch=300)
    simulate_to(str(out), **args)
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(DatasetError, match=f"holds a different run \\(.*{word}"):
        simulate_to(str(out), **{**args, **change})
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files


def test_foreign_and_corrupt_directories(tmp_path):
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(DatasetError, match="holds no smsim dataset"):
        simulate_to(str(foreign), 10, 2, ["random"], seed=1)
    assert (foreign / "cat.jpg").read_bytes() == b"\xff\xd8"
    with pytest.raises(DatasetError, match="is not an smsim dataset"):
        load(foreign)
    out = tmp_path / "d"
    simulate_to(str(out), 20, 2, ["random"], seed=1)
    (out / "seats" / "part-000000.parquet").write_bytes(b"not parquet")
    with pytest.raises(DatasetError, match="a part cannot be read"):
        load(out)
    (out / "manifest.json").write_text("{broken")
    with pytest.raises(DatasetError, match=r"manifest.json is damaged"):
        load(out)


def test_unwritable_output(tmp_path):
    file = tmp_path / "file"
    file.write_text("x")
    # a directory cannot be made inside a regular file, whoever runs the test
    with pytest.raises(DatasetError, match="cannot write to"):
        simulate_to(str(file / "d"), 10, 2, ["random"], seed=1)
    with pytest.raises(DatasetError, match="exists and is not a directory"):
        simulate_to(str(file), 10, 2, ["random"], seed=1)
    assert file.read_text() == "x"


# one kill in the default suite, three in the slow one (each run is a process of its own, ~4 s)
@pytest.mark.parametrize("kills", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_kill_9_and_resume_gives_the_uninterrupted_dataset(tmp_path, kills):
    """A run killed with SIGKILL at arbitrary moments, resumed with the same command, ends up
    with exactly the dataset an uninterrupted run writes."""
    out = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "smsim.cli",
        "simulate",
        "-n",
        "3000",
        "-p",
        "3",
        "--policy",
        "greedy",
        "--seed",
        "8",
        "--batch",
        "250",
        "--out",
        str(out),
        "--quiet",
        "--threads",
        "1",
    ]
    for k in range(kills):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        target = k + 1
        while time.time() < deadline and len(done_parts(out)) < target and proc.poll() is None:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert len(done_parts(out)) < 12  # it really was interrupted
    # resumed by the same command line, in this process (a third process would only add its start)
    resume = CliRunner().invoke(cli, cmd[3:], catch_exceptions=False)
    assert resume.exit_code == 0, resume.output
    resumed = load(out)
    simulate_to(str(tmp_path / "clean"), 3000, 3, ["greedy"], seed=8, batch=250, threads=2)
    clean = load(tmp_path / "clean")
    pd.testing.assert_frame_equal(resumed.seats, clean.seats)
    pd.testing.assert_frame_equal(resumed.games, clean.games)


def test_summary_of_parts_equals_summary_of_the_whole(tmp_path):
    """The part-by-part summary (flat memory) gives the tables pandas gives on the whole."""
    from smsim.runs.summary import summarise_dataset, summary_tables

    result = simulate_to(str(tmp_path / "d"), 900, 4, ["balanced", "random", "greedy", "walls"], seed=2, batch=200)
    data = load(tmp_path / "d")
    whole = summary_tables(data.seats, data.games)
    parts, done, planned = summarise_dataset(tmp_path / "d")
    assert done == planned == 900
    for name in whole:
        pd.testing.assert_frame_equal(parts[name], whole[name])
        pd.testing.assert_frame_equal(result.tables[name], whole[name])
    # and the accumulated numbers are the plain pandas ones
    by_policy = whole["by_policy"]
    g = data.seats.groupby("policy", observed=True)
    share = data.seats["won"] / data.seats.groupby("game")["won"].transform("sum")  # a shared win split
    assert np.allclose(by_policy["win_rate"], share.groupby(data.seats["policy"], observed=True).mean().sort_index())
    assert np.allclose(by_policy["vp_mean"], g["total"].mean().sort_index())
    assert np.allclose(by_policy["cannons_lost"], g["cannons_lost"].mean().sort_index())
    for q in (10, 50, 90):  # the smallest VP with at least q% of the seats at or below it
        expected = g["total"].apply(lambda v: np.quantile(v, q / 100, method="inverted_cdf")).sort_index()  # noqa: B023 (called at once)
        assert (by_policy[f"vp_p{q}"] == expected).all()


def test_a_dataset_written_before_a_rules_field_existed_keeps_its_identity(tmp_path):
    """A manifest without a rules field added since (here: rotation_cost removed by hand, as a
    dataset of an older smsim would lack a newer field) is read with the field's default, so the
    run resumes and reports beside today's datasets."""
    import json

    from smsim.runs.dataset import read_manifest

    out = tmp_path / "old"
    simulate_to(str(out), 400, 2, ["random"], seed=3, batch=200)
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["inputs"]["rules"]["rotation_cost"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert read_manifest(out)["run"]["rules"]["rotation_cost"] == Rules().rotation_cost
    again = simulate_to(str(out), 400, 2, ["random"], seed=3, batch=200)  # the same run: nothing to play
    assert again.played == 0


# -- seat compensation (format 3) ------------------------------------------------------------------
def test_a_dataset_written_before_seat_vp_reads_with_seat_vp_0(tmp_path):
    """Format 2 datasets have no seat_vp column: load, the summary and the report read it as 0, the
    value it had, and a run of the printed game still resumes them (its rules dict is unchanged)."""
    import pyarrow.parquet as pq

    from smsim.report.tables import read_report_data, vp_by_source
    from smsim.runs.dataset import run_identity
    from smsim.runs.summary import summarise_dataset

    out = tmp_path / "old"
    simulate_to(str(out), 400, 3, ["balanced"], seed=2, batch=200)
    new = load(out).seats
    for k in done_parts(out):  # drop the column, as format 2 wrote the parts
        part = out / "seats" / f"part-{k:06d}.parquet"
        pq.write_table(pq.read_table(part).drop(["seat_vp"]), part)
    old = load(out).seats
    assert (old["seat_vp"] == 0).all() and len(old) == 1200
    assert (
        old[["earned", "church_vp", "coins_vp", "logs_vp", "cannon_vp", "full_city_vp", "seat_vp"]].sum(axis=1)
        == old["total"]
    ).all()
    tables, done, _ = summarise_dataset(out)
    assert done == 400 and (tables["vp_by_source"]["seat_vp"] == 0).all()
    assert "seat_vp" not in vp_by_source(read_report_data([out]))  # the printed game: no column of zeros
    assert set(new.columns) == set(old.columns)
    assert "seat_vp" not in run_identity(400, 3, [], 2, Rules(), 200)["rules"]


def test_a_compensated_dataset_reports_seat_vp_in_the_breakdown(tmp_path):
    from smsim.report.tables import read_report_data, vp_by_source
    from smsim.runs.summary import summarise_dataset

    out = tmp_path / "comp"
    simulate_to(str(out), 300, 3, ["balanced"], seed=4, rules=Rules(seat_vp=(0, 2, 3)))
    seats = load(out).seats
    assert list(seats.groupby("seat")["seat_vp"].unique().map(list)) == [[0], [2], [3]]
    t = vp_by_source(read_report_data([out]))
    parts = ["earned", "church_vp", "coins_vp", "logs_vp", "full_city_vp", "cannon_vp", "seat_vp"]
    assert t[parts].sum(axis=1).to_numpy() == pytest.approx(t["total"].to_numpy())  # they sum to the total
    tables, _, _ = summarise_dataset(out)
    assert tables["vp_by_source"]["seat_vp"].iloc[0] == pytest.approx(5 / 3)


@pytest.mark.parametrize("gap, resumes", [(0, True), (1, False)])
def test_a_search_dataset_written_before_a_knob_existed_resumes_as_the_knob_that_plays_alike(tmp_path, gap, resumes):
    """A manifest written before ``clear_gap`` existed stands for the search without it
    (``clear_gap`` 0): that policy resumes the run; a search that leaves decisions to its base
    is another policy, refused, and nothing written is touched."""
    policy = tmp_path / "cheap.toml"
    policy.write_text('base = "rollout"\nbudget = 4\nplace_budget = 4\nmin_playouts = 2\nclear_gap = 0\n')
    out = tmp_path / "d"
    args = dict(games=4, players=2, policies=[str(policy), "random"], seed=3, batch=2)
    simulate_to(str(out), **args)
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["inputs"]["policies"][0]["weights"]["clear_gap"]  # as written before the knob
    (out / "manifest.json").write_text(json.dumps(manifest))
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    policy.write_text(policy.read_text().replace("clear_gap = 0", f"clear_gap = {gap}"))
    if resumes:
        result = simulate_to(str(out), **args)
        assert (result.games, result.played) == (4, 0)
    else:
        with pytest.raises(DatasetError, match="holds a different run \\(its policies differ"):
            simulate_to(str(out), **args)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files


# -- round snapshots ----------------------------------------------------------------------------
def test_round_snapshots_are_a_table_of_the_dataset_resumed_part_by_part(tmp_path):
    """``rounds=True`` adds rounds/ beside seats/ and games/: the in-memory table's rows, part by
    part; a part whose round snapshots are missing is played again, and only that part."""
    from smsim.runs.dataset import load_rounds

    out = tmp_path / "d"
    args = dict(games=90, players=3, policies=["balanced", "greedy", "random"], seed=4, batch=40)
    simulate_to(str(out), **args, rounds=True)
    assert sorted(p.name for p in out.iterdir()) == ["games", "manifest.json", "rounds", "seats"]
    assert done_parts(out, rounds=True) == {0, 1, 2}
    _, _, rounds = simulate(90, 3, args["policies"], seed=4, rounds=True)
    pd.testing.assert_frame_equal(load_rounds(out), rounds)
    (out / "rounds" / "part-000001.parquet").unlink()  # a part cut short before its games were put in place
    (out / "games" / "part-000001.parquet").unlink()
    before = {p: p.stat().st_mtime_ns for p in out.rglob("part-*.parquet") if "000001" not in p.name}
    result = simulate_to(str(out), **args, rounds=True)
    assert result.played == 40
    assert all(p.stat().st_mtime_ns == t for p, t in before.items())  # parts 0 and 2 untouched
    pd.testing.assert_frame_equal(load_rounds(out), rounds)
    few = load_rounds(out, columns=["score", "coins"])
    assert list(few.columns) == ["game", "round", "seat", "score", "coins"]
    with pytest.raises(DatasetError, match="no round snapshot column wins; the columns are score, vp"):
        load_rounds(out, columns=["wins"])


def test_a_dataset_is_resumed_only_as_it_was_begun_with_or_without_round_snapshots(tmp_path):
    from smsim.runs.dataset import load_rounds, read_manifest

    plain, recorded = tmp_path / "plain", tmp_path / "recorded"
    args = dict(games=60, players=2, policies=["greedy", "random"], seed=1, batch=30)
    simulate_to(str(plain), **args)
    simulate_to(str(recorded), **args, rounds=True)
    assert "rounds" not in read_manifest(plain)["run"]  # datasets written before it keep their identity
    assert read_manifest(recorded)["run"]["rounds"] is True
    for path, rounds in ((plain, True), (recorded, False)):
        files = {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}
        with pytest.raises(DatasetError, match=r"holds a different run \(.*rounds"):
            simulate_to(str(path), **args, rounds=rounds)
        assert {p: p.read_bytes() for p in path.rglob("*") if p.is_file()} == files
    with pytest.raises(DatasetError, match="holds no round snapshots: it was written without --rounds"):
        load_rounds(plain)
    pd.testing.assert_frame_equal(load(plain).seats, load(recorded).seats)  # the same games
