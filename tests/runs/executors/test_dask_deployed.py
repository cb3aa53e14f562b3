"""--cluster tcp://... as it is deployed: a `dask scheduler` and `dask worker` processes started as
separate OS processes on 127.0.0.1 (no LocalCluster), `smsim simulate` and `smsim sweep` run as
commands against them, one worker process killed with SIGKILL mid-run, and the dataset byte-identical
to a run on this machine alone. A worker without smsim, or with another one, is refused in one line.

The workers run with a nanny, as `dask worker` does by default: the process killed is the worker the
nanny started (the nanny starts a new one), and the scheduler gives its parts to the other worker.
Every child inherits this process's smsim (PYTHONPATH) and numba cache (NUMBA_CACHE_DIR, set when
smsim was imported), so the workers load the engine this process compiled.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import smsim
import smsim.runs.executors.dask
from smsim.cli import cli
from smsim.runs.dataset import part_name
from smsim.runs.executors.dask import SAME_SMSIM, smsim_identity, verify_workers
from tests.helpers import assert_same_dataset

# scheduler and worker processes started and killed for real (~80 s in all): the slow suite;
# tests/runs/executors/test_dask.py keeps the executor's behaviour on an in-process cluster in the default suite
pytestmark = pytest.mark.slow

ROOT = Path(smsim.__file__).resolve().parents[1]  # the checkout the children must import
START_TIMEOUT = 60  # seconds for a scheduler or a worker to come up (a busy 2-core machine)
RUN_TIMEOUT = 300  # seconds for one command: a hang fails the test instead of stalling the suite
GAMES, PART = 48_000, 2_000  # 24 parts: several rounds for two workers, so a kill lands mid-run
PLAYERS = ["-p", "4", "--policy", "balanced,greedy,walls,random"]


def child_env(pythonpath: list[Path] | None = None) -> dict[str, str]:
    """This process's environment for a child, with ``pythonpath`` (default: this checkout) first
    on PYTHONPATH, so that it imports the smsim under test and not another install."""
    paths = [str(p) for p in (pythonpath if pythonpath is not None else [ROOT])]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def smsim_cmd(*args: object) -> list[str]:
    return [sys.executable, "-m", "smsim.cli", *(str(a) for a in args)]


def smsim_run(*args: object) -> subprocess.CompletedProcess:
    """``smsim ARGS`` in a fresh process (as a user types it), bounded by RUN_TIMEOUT."""
    return subprocess.run(smsim_cmd(*args), env=child_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a child started in its own session and everything it started (a nanny's worker)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@dataclass
class Deployment:
    """A scheduler and workers started as OS processes, each in its own process group, and a
    Client of this process that watches them (it runs nothing)."""

    root: Path
    procs: list[subprocess.Popen] = field(default_factory=list)
    address: str = ""
    client: Any = None  # a distributed.Client once connected

    def start(self, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen:
        with open(self.root / f"{name}.log", "wb") as log:  # the child keeps its own descriptor
            # started in the test's directory, not the checkout: `python -m` puts its directory first
            # on sys.path, where this smsim would shadow whatever PYTHONPATH says
            proc = subprocess.Popen(
                [sys.executable, "-m", "dask", *args],
                env=env,
                cwd=self.root,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def log(self, name: str) -> str:
        return (self.root / f"{name}.log").read_text(errors="replace")[-3000:]

    def start_scheduler(self) -> None:
        file = self.root / "scheduler.json"
        proc = self.start(
            "scheduler",
            ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(file)],
            child_env(),
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                self.address = json.loads(file.read_text())["address"]
                return
            except (OSError, ValueError, KeyError):  # not written yet, or half written
                time.sleep(0.1)
        raise AssertionError(f"the scheduler did not start:\n{self.log('scheduler')}")

    def start_worker(self, name: str, env: dict[str, str]) -> subprocess.Popen:
        return self.start(
            name,
            [
                "worker",
                self.address,
                "--nworkers",
                "1",
                "--nthreads",
                "1",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--local-directory",
                str(self.root / name),
            ],
            env,
        )

    def connect(self) -> None:
        from distributed import Client

        self.client = Client(self.address, timeout=START_TIMEOUT)

    def wait_for_workers(self, n: int) -> dict[str, int]:
        """Exactly ``n`` workers registered: their process ids by address."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if len(self.client.scheduler_info()["workers"]) == n:
                try:  # os.getpid unpickles on any worker, with or without smsim
                    pids = self.client.run(os.getpid)
                except OSError:  # a worker killed a moment ago, not yet removed by the scheduler
                    pids = {}
                if len(pids) == n:
                    return pids
            time.sleep(0.2)
        logs = "\n".join(self.log(p.name[:-4]) for p in sorted(self.root.glob("*.log")))
        raise AssertionError(f"not {n} workers after {START_TIMEOUT} s:\n{logs}")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        for proc in reversed(self.procs):
            kill_group(proc)


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """A scheduler and two workers (one process each, one thread each) on 127.0.0.1."""
    pytest.importorskip("distributed")
    from smsim.warmup import warmup

    d = Deployment(tmp_path_factory.mktemp("deployed"))
    try:
        d.start_scheduler()
        for i in (1, 2):
            d.start_worker(f"worker-{i}", child_env())
        warmup(["play"])  # meanwhile: the engine in the cache the workers will load it from
        d.connect()
        d.wait_for_workers(2)
        yield d
    finally:
        d.close()


@pytest.fixture(scope="module")
def mismatched(tmp_path_factory):
    """A scheduler of its own (the tests add a worker that runs another smsim, or none)."""
    pytest.importorskip("distributed")
    d = Deployment(tmp_path_factory.mktemp("mismatched"))
    try:
        d.start_scheduler()
        d.connect()
        yield d
    finally:
        d.close()


def printed(stdout: str, out: Path) -> list[str]:
    """A command's output lines but its timing line, with the output path made neutral."""
    return [
        line.replace(str(out), "OUT") for line in stdout.splitlines() if not line.startswith(("dataset:", "sweep:"))
    ]


def parts_written(out: Path) -> set[str]:
    """The parts of a dataset complete on disk (both tables)."""
    seats = {p.name for p in (out / "seats").glob("part-*.parquet")} if (out / "seats").is_dir() else set()
    return {name for name in seats if (out / "games" / name).is_file()}


def kill_a_worker_mid_run(d: Deployment, out: Path, run: subprocess.Popen) -> dict:
    """Once the run has written its first part, SIGKILL a worker process that holds a part of it;
    what was seen at that moment."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < deadline:
        if run.poll() is not None:
            raise AssertionError("the run ended before a worker could be killed mid-run: give it more parts")
        if parts_written(out):  # the workers have loaded the engine and are playing
            holding = {
                w: [k for k in keys if str(k).startswith("smsim-part-")] for w, keys in d.client.processing().items()
            }
            busy = sorted(w for w, keys in holding.items() if keys)
            if busy:
                victim = busy[0]
                pid = d.client.run(os.getpid, workers=[victim])[victim]
                os.kill(pid, signal.SIGKILL)
                return {
                    "worker": victim,
                    "pid": pid,
                    "parts": holding[victim],
                    "written": parts_written(out),
                    "running": run.poll() is None,
                }
        time.sleep(0.05)
    raise AssertionError("no worker held a part of the run")


def test_simulate_on_a_scheduler_and_worker_processes_survives_a_killed_worker(deployed, tmp_path):
    before = deployed.wait_for_workers(2)
    args = ["simulate", "-n", GAMES, *PLAYERS, "--seed", "21", "--batch", PART, "--quiet"]
    here = smsim_run(*args, "--out", tmp_path / "here")
    assert here.returncode == 0, here.stderr
    out = tmp_path / "cluster"
    run = subprocess.Popen(
        smsim_cmd(*args, "--out", out, "--cluster", deployed.address),
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        killed = kill_a_worker_mid_run(deployed, out, run)
        stdout, stderr = run.communicate(timeout=RUN_TIMEOUT)
    finally:
        if run.poll() is None:
            kill_group(run)
    assert run.returncode == 0, stderr
    # the kill was mid-run: the command still running, parts still to write, one of them on the victim
    assert killed["running"] and 0 < len(killed["written"]) < GAMES // PART, killed
    assert killed["pid"] in before.values() and killed["parts"], killed
    lost = {part_name(int(key.split("-")[2])) for key in killed["parts"]}  # smsim-part-000007-<token>
    assert lost - killed["written"], killed  # a part the victim held, not on disk after the kill: played again
    assert killed["pid"] not in deployed.wait_for_workers(2).values()  # gone; its nanny started another
    assert_same_dataset(tmp_path / "here", out)  # every part, no half part left behind
    assert len(parts_written(out)) == GAMES // PART
    assert printed(stdout, out) == printed(here.stdout, tmp_path / "here")
    # and the comparison sees one byte changed
    altered = tmp_path / "altered"
    shutil.copytree(out, altered)
    victim = altered / "games" / part_name(GAMES // PART - 1)
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 1
    victim.write_bytes(bytes(data))
    with pytest.raises(AssertionError):
        assert_same_dataset(tmp_path / "here", altered)


def test_sweep_on_a_scheduler_and_worker_processes_equals_the_sweep_here(deployed, tmp_path):
    deployed.wait_for_workers(2)
    args = ["sweep", "--vary", "side_defence=1,2", "-n", "6000", *PLAYERS, "--seed", "4", "--batch", "1500", "--quiet"]
    here = smsim_run(*args, "--out", tmp_path / "here")
    assert here.returncode == 0, here.stderr
    there = smsim_run(*args, "--out", tmp_path / "cluster", "--cluster", deployed.address)
    assert there.returncode == 0, there.stderr
    variants = sorted(p.parent.relative_to(tmp_path / "here") for p in (tmp_path / "here").glob("*/*/manifest.json"))
    assert len(variants) == 2, variants  # the baseline and side_defence=1
    for sub in variants:
        assert_same_dataset(tmp_path / "here" / sub, tmp_path / "cluster" / sub)
        assert len(parts_written(tmp_path / "cluster" / sub)) == 4
    assert printed(there.stdout, tmp_path / "cluster") == printed(here.stdout, tmp_path / "here")


FAKE_SMSIM = {
    # another smsim: first on the worker's PYTHONPATH, it shadows the one installed
    "other": '__version__ = "0.0.0-other"\n',
    # no smsim: the editable install of this checkout would be found anyway, so the package first on
    # the path refuses to import exactly as a missing one does
    "missing": 'raise ModuleNotFoundError("No module named \'smsim\'", name="smsim")\n',
}
SAYS = {  # what the line says of the worker (its source hash is whatever its smsim's sources give)
    "other": r"runs smsim 0\.0\.0-other \(source \w+\), this machine smsim",
    "missing": r"cannot import smsim \(ModuleNotFoundError: No module named 'smsim'\), this machine smsim",
}


@pytest.mark.parametrize("kind", ["other", "missing"])
def test_a_worker_with_another_smsim_or_none_is_one_line(mismatched, tmp_path, kind):
    fake = tmp_path / "fake"
    (fake / "smsim").mkdir(parents=True)
    (fake / "smsim" / "__init__.py").write_text(FAKE_SMSIM[kind])
    mismatched.wait_for_workers(0)  # the previous case's worker is gone
    worker = mismatched.start_worker(f"worker-{kind}", child_env([fake]))
    try:
        (address,) = mismatched.wait_for_workers(1)
        version, source = smsim_identity()
        for command in (
            ["simulate", "-n", "1000"],
            ["sweep", "--vary", "side_defence=1,2", "-n", "1000"],
            ["compare", "balanced", "random", "-p", "2", "-n", "1000"],
        ):
            out = tmp_path / command[0]
            r = smsim_run(*command, "--out", out, "--cluster", mismatched.address)
            lines = (r.stdout + r.stderr).strip().splitlines()
            assert r.returncode == 2 and len(lines) == 1, r.stdout + r.stderr
            assert re.fullmatch(
                f"Error: --cluster {re.escape(mismatched.address)}: worker {re.escape(address)} "
                f"{SAYS[kind]} {re.escape(version)} \\(source {source}\\): {SAME_SMSIM}",
                lines[0],
            ), lines[0]
            if command[0] == "compare":  # its --out is made up front (an unwritable one fails at once), left empty
                assert not any(out.iterdir())
            else:  # refused before anything was written
                assert not out.exists()
    finally:
        kill_group(worker)


def test_a_worker_that_does_not_answer_the_check_is_one_line(mismatched, tmp_path, monkeypatch):
    """A worker that hangs (stopped here with SIGSTOP) stops the command after CHECK_TIMEOUT, not never."""
    mismatched.wait_for_workers(0)
    worker = mismatched.start_worker("worker-stopped", child_env())
    try:
        mismatched.wait_for_workers(1)
        os.killpg(worker.pid, signal.SIGSTOP)
        monkeypatch.setattr(smsim.runs.executors.dask, "CHECK_TIMEOUT", 2)
        out = tmp_path / "run"
        r = CliRunner().invoke(cli, ["simulate", "-n", "100", "--out", str(out), "--cluster", mismatched.address])
        assert r.exit_code == 2
        assert r.output.strip().splitlines() == [
            f"Error: --cluster {mismatched.address}: the workers did not report "
            "their smsim version within 2 s (a worker hung?)"
        ]
        assert not out.exists()
    finally:
        kill_group(worker)


def test_the_check_passes_workers_that_run_this_smsim(deployed):
    """The same check on the good workers: nothing to say (else every test above would fail too)."""
    deployed.wait_for_workers(2)
    verify_workers(deployed.client, deployed.address)
