"""Datasets at fsspec URLs (smsim.runs.storage): the in-process memory:// filesystem and file:// stand in
for an object store and a renaming filesystem; the parts are the bytes a local run writes."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from smsim.errors import DatasetError
from smsim.runs.batch import simulate_to
from smsim.runs.dataset import ParquetStream, done_parts, load, part_name, read_manifest
from smsim.runs.storage import Remote, is_url, location

fsspec = pytest.importorskip("fsspec")

ROOT = "/smsim-test"  # memory:// paths of this module, removed after each test
RUN = {"games": 620, "players": 3, "policies": ["greedy", "random", "balanced"], "seed": 4, "batch": 250}


@pytest.fixture
def memory():
    fs = fsspec.filesystem("memory")
    yield fs
    if fs.exists(ROOT):
        fs.rm(ROOT, recursive=True)


@pytest.fixture
def stage(tmp_path, monkeypatch):
    """The local temporary directory parts are written to before their upload (kept empty after)."""
    folder = tmp_path / "stage"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def local_files(path: Path) -> dict[str, bytes]:
    return {f"{sub}/{p.name}": p.read_bytes() for sub in ("seats", "games") for p in sorted((path / sub).iterdir())}


def memory_files(fs, path: str) -> dict[str, bytes]:
    return {f[len(path) + 1 :]: fs.cat_file(f) for f in fs.find(path) if not f.endswith("manifest.json")}


def test_urls_and_local_paths():
    assert is_url("s3://bucket/run") and is_url("memory://runs/a") and is_url("file:///tmp/run")
    assert not is_url("runs/a") and not is_url("/abs/runs") and not is_url(Path("s3:/x"))
    assert location("runs/a") == Path("runs/a")  # a local path stays a Path: the local code path
    here = location("memory://smsim-test/a/")
    assert (
        isinstance(here, Remote)
        and str(here) == "memory://smsim-test/a"
        and str(here / "seats") == "memory://smsim-test/a/seats"
    )


def test_a_run_at_a_memory_url_is_the_local_run_byte_for_byte(tmp_path, memory, stage, monkeypatch):
    from smsim.runs import spec

    monkeypatch.setattr(spec, "CHUNK_GAMES", 100)  # parts of several row groups, as a big run writes them
    # an object store: each file uploaded once to its final name, never renamed
    monkeypatch.setattr(type(memory), "mv", lambda *a, **k: pytest.fail("renamed on an object store"))
    local = simulate_to(str(tmp_path / "local"), **RUN)
    url = f"memory://{ROOT}/a"
    remote = simulate_to(url, **RUN)
    assert (remote.path, remote.games, remote.played) == (url, 620, 620)
    assert memory_files(memory, f"{ROOT}/a") == local_files(tmp_path / "local")  # no temporary file left
    assert read_manifest(url)["run"] == read_manifest(tmp_path / "local")["run"]
    assert list(stage.iterdir()) == []  # every staged part was uploaded and removed
    for name in local.tables:
        pd.testing.assert_frame_equal(remote.tables[name], local.tables[name], check_exact=True)
    here, there = load(tmp_path / "local"), load(url)
    pd.testing.assert_frame_equal(there.seats, here.seats, check_exact=True)
    pd.testing.assert_frame_equal(there.games, here.games, check_exact=True)
    assert there.complete and done_parts(location(url)) == {0, 1, 2}


def test_resuming_at_a_url_plays_only_the_missing_parts(tmp_path, memory, stage):
    simulate_to(str(tmp_path / "local"), **RUN)
    url = f"memory://{ROOT}/b"
    simulate_to(url, **RUN)
    memory.rm_file(f"{ROOT}/b/games/{part_name(1)}")  # part 1 lost its games, part 2 its seats
    memory.rm_file(f"{ROOT}/b/seats/{part_name(2)}")
    kept = memory.info(f"{ROOT}/b/seats/{part_name(0)}")["created"]
    assert done_parts(location(url)) == {0}
    again = simulate_to(url, **RUN)
    assert (again.games, again.played) == (620, 250 + 120)  # parts 1 and 2, nothing else
    assert memory.info(f"{ROOT}/b/seats/{part_name(0)}")["created"] == kept  # part 0 not written again
    assert memory_files(memory, f"{ROOT}/b") == local_files(tmp_path / "local")
    assert simulate_to(url, **RUN).played == 0
    with pytest.raises(DatasetError, match="different run"):
        simulate_to(url, **{**RUN, "seed": 5})


def test_an_aborted_part_leaves_nothing_at_the_url(memory, stage):
    from smsim.runs.batch import simulate
    from smsim.runs.dataset import PartWriter

    seats, games = simulate(20, 2, ["random"], seed=1)
    writer = PartWriter(location(f"memory://{ROOT}/c"), 0)
    writer.write(seats, games)
    writer.abort()
    assert memory.find(ROOT) == [] and list(stage.iterdir()) == []
    lone = ParquetStream(location(f"memory://{ROOT}/c/x.parquet"))
    lone.close()  # nothing written: no file
    assert memory.find(ROOT) == []


def test_a_file_url_renames_into_place_and_equals_the_local_run(tmp_path, stage, monkeypatch):
    """file:// is a filesystem that renames: a part is uploaded under a temporary name and moved."""
    from fsspec.implementations.local import LocalFileSystem

    moved = []
    real_mv = LocalFileSystem.mv
    monkeypatch.setattr(LocalFileSystem, "mv", lambda self, a, b, **k: (moved.append((a, b)), real_mv(self, a, b, **k)))
    local = simulate_to(str(tmp_path / "local"), 300, 2, ["random", "greedy"], seed=2, batch=100)
    there = simulate_to(f"file://{tmp_path}/url", 300, 2, ["random", "greedy"], seed=2, batch=100)
    assert sorted(Path(b).name for a, b in moved) == ["manifest.json"] + [part_name(k) for k in (0, 0, 1, 1, 2, 2)]
    assert all(Path(a).name == f".{Path(b).name}.tmp-{os.getpid()}" for a, b in moved)
    assert local_files(tmp_path / "url") == local_files(tmp_path / "local")  # hidden temporaries count too
    for name in local.tables:
        pd.testing.assert_frame_equal(there.tables[name], local.tables[name], check_exact=True)
    assert sorted(p.name for p in (tmp_path / "url").iterdir()) == ["games", "manifest.json", "seats"]


def test_a_sweep_and_its_summary_at_a_url(tmp_path, memory, stage, run):
    from smsim.studies.sweep import plan_variants, read_sweep, run_sweep, sweep_table

    variants = plan_variants(["side_defence=1,2"], [], False, None)
    args = (variants, 200, 2, ["random", "greedy"], 3, 100)
    local = run_sweep(str(tmp_path / "sweep"), *args)
    remote = run_sweep(f"memory://{ROOT}/sweep", *args)
    pd.testing.assert_frame_equal(remote.table, local.table, check_exact=True)
    pd.testing.assert_frame_equal(sweep_table(f"memory://{ROOT}/sweep"), local.table, check_exact=True)
    dirs = [d.relative_to(tmp_path / "sweep").as_posix() for d in read_sweep(tmp_path / "sweep").dirs]
    assert [str(d) for d in read_sweep(f"memory://{ROOT}/sweep").dirs] == [f"memory://{ROOT}/sweep/{d}" for d in dirs]
    for d in dirs:
        assert memory_files(memory, f"{ROOT}/sweep/{d}") == local_files(tmp_path / "sweep" / d)
    # smsim summary reads a dataset at a URL as it reads a local one
    here = run("summary", tmp_path / "sweep" / dirs[1], "--format", "csv")
    there = run("summary", f"memory://{ROOT}/sweep/{dirs[1]}", "--format", "csv")
    assert there.exit_code == 0 and there.output == here.output


@pytest.mark.parametrize(
    "scheme, says",
    [
        ("smsimnowhere", "needs smsim_missing_fs: pip install smsim_missing_fs"),
        ("smsimunknown", "Protocol not known: smsimunknown"),
    ],
)
def test_a_url_whose_scheme_is_not_installed_is_one_line(tmp_path, monkeypatch, run, scheme, says):
    from fsspec.registry import known_implementations

    fake = {"class": "smsim_missing_fs.FileSystem", "err": "Install smsim_missing_fs"}  # a package not installed
    monkeypatch.setitem(known_implementations, "smsimnowhere", fake)
    monkeypatch.chdir(tmp_path)
    for command in (["simulate", "-n", "50", "-p", "2"], ["sweep", "--vary", "side_defence=1,2", "-n", "50"]):
        result = run(*command, "--out", f"{scheme}://bucket/run", "--quiet")
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1, result.output
        assert lines[0].startswith(f"Error: '{scheme}://bucket/run': ") and lines[0].endswith(says)
    assert list(tmp_path.iterdir()) == []  # nothing written, not even a local directory named like the URL


def test_compare_out_at_a_url_is_refused(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    result = run("compare", "random", "greedy", "-p", "2", "-n", "100", "--out", "memory://smsim-test/cmp")
    assert result.exit_code == 2 and "written to a local directory" in result.output
    assert list(tmp_path.iterdir()) == []


def test_s3_without_s3fs_names_it(run, tmp_path, monkeypatch):
    pytest.importorskip("fsspec")
    try:
        import s3fs  # noqa: F401

        pytest.skip("s3fs is installed here")
    except ImportError:
        pass
    monkeypatch.chdir(tmp_path)
    result = run("simulate", "-n", "50", "--out", "s3://bucket/run", "--quiet")
    assert result.exit_code == 2
    assert result.output.strip() == "Error: 's3://bucket/run': the s3:// scheme needs s3fs: pip install s3fs"


def test_without_fsspec_a_url_says_what_to_install(tmp_path, monkeypatch, run):
    monkeypatch.setitem(sys.modules, "fsspec", None)  # as if it were not installed
    monkeypatch.setitem(sys.modules, "fsspec.core", None)
    monkeypatch.chdir(tmp_path)
    result = run("simulate", "-n", "50", "--out", "memory://smsim-test/x", "--quiet")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "Error: 'memory://smsim-test/x' needs fsspec to read and write datasets at a URL: pip install 'smsim[remote]'"
    )
    with pytest.raises(DatasetError, match="smsim\\[remote\\]"):
        load("memory://smsim-test/x")
    assert list(tmp_path.iterdir()) == []


def test_a_local_run_never_imports_fsspec(tmp_path):
    code = (
        "import sys, smsim; smsim.simulate_to(sys.argv[1], 30, 2, ['random'], seed=1, batch=10); "
        "smsim.load(sys.argv[1]); print('fsspec' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "d")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
